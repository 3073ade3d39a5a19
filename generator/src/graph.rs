//! The pair graph: which slices a slice pair's captures and promotions lead
//! to, an order of the pairs where each comes after those it needs, and
//! the steps (read back or solve) a build is made of (scheduled by
//! [`crate::memory`]).
//!
//! The one source of the order of work: the local build
//! ([`crate::driver`]), the audit and the cluster plan ([`crate::plan`])
//! all read it.
//!
//! What a slice leads to is worked out from its material alone, for every
//! game: a capture takes one or more of the opponent's pieces, and the
//! capturing man may be crowned on the way; a quiet move changes the
//! material only by crowning a man. That is a superset of what the moves
//! of a game can reach (an Italian man never takes a king), which costs a
//! little memory and never a missing slice.

use std::collections::BTreeSet;

use damka::format::Distances;
use damka::resolve::{Resolution, THREAT_READS};
use damka::Material;

/// The most pieces damka builds slices of (and plans for: eight pieces
/// are a cluster's work).
pub const MAX_PIECES: u8 = 8;

/// A slice pair by its smaller slice: `KKvKM`, not `KMvKK`.
pub fn pair_of(slice: Material) -> Material {
    slice.min(slice.swap())
}

/// The slices of the pair `pair`: one when the pair is symmetric (KvK).
pub fn slices_of(pair: Material) -> Vec<Material> {
    if pair == pair.swap() {
        vec![pair]
    } else {
        vec![pair, pair.swap()]
    }
}

/// The positions of the pair `pair`, both slices.
pub fn pair_size(pair: Material) -> u64 {
    slices_of(pair).iter().map(|m| damka::SliceIndex::new(*m).size()).sum()
}

/// The slices a capture from `slice` can lead to (seen from the side to
/// move after it): fewer pieces, never the same pair. Captures that take
/// the opponent's last piece end the game and lead to no slice.
pub fn captures_lead_to(slice: Material) -> BTreeSet<Material> {
    let Material { own_kings, own_men, opp_kings, opp_men } = slice;
    // The capturer as it ends: as it was, or a man crowned on the way.
    let mut capturers = vec![(own_kings, own_men)];
    if own_men > 0 {
        capturers.push((own_kings + 1, own_men - 1));
    }
    let mut out = BTreeSet::new();
    for kings_taken in 0..=opp_kings {
        for men_taken in 0..=opp_men {
            let (kings_left, men_left) = (opp_kings - kings_taken, opp_men - men_taken);
            if kings_taken + men_taken == 0 || kings_left + men_left == 0 {
                continue;
            }
            for &(k, m) in &capturers {
                out.insert(Material::new(kings_left, men_left, k, m));
            }
        }
    }
    out
}

/// The slice a quiet move that crowns a man of `slice` leads to, if it has
/// a man: the same pieces, one man fewer.
pub fn promotion_leads_to(slice: Material) -> Option<Material> {
    (slice.own_men > 0).then(|| Material::new(slice.opp_kings, slice.opp_men, slice.own_kings + 1, slice.own_men - 1))
}

/// The slices reading `slice` back from its files resolves its "don't
/// care" entries from: where its captures lead, and where the captures
/// lead that answer the quiet moves of a settled threat, as deep as one
/// lies ([`threats_reach`]; see [`damka::resolve::is_settled_threat`]).
pub fn read_back_reads(slice: Material) -> BTreeSet<Material> {
    let mut reads = captures_lead_to(slice);
    for answering in threats_reach(slice) {
        reads.extend(captures_lead_to(answering));
    }
    reads
}

/// Where the distances of slice `material` come from: of a slice and its
/// twin (the other side to move) that differ, the one whose side to move
/// has fewer kings, or as many kings and fewer pieces, takes them from the
/// other. That side's distance files were the larger in 51 of the 73
/// pairs up to 6 pieces, and deriving them saves 48% of all distance
/// bytes (docs/COMPRESSION.md).
pub fn distances_of(material: Material) -> Distances {
    let twin = material.swap();
    let strength = |m: Material| (m.own_kings, m.own_kings + m.own_men);
    match strength(material).cmp(&strength(twin)) {
        _ if twin == material => Distances::Own,
        std::cmp::Ordering::Less => Distances::FromTwin,
        _ => Distances::ForTwin,
    }
}

/// What a build leaves "don't care" in its files (`damka generate
/// --dont-care`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DontCare {
    /// All a reader can resolve, but in slices of kings alone of
    /// [`STORE_ALL_KINGS_FROM`] pieces or more, which store every result.
    #[default]
    Auto,
    /// All a reader can resolve, in every slice: the smallest files.
    All,
    /// Nothing: every result is stored, and a probe reads one entry.
    None,
}

/// Pieces from which a slice of kings alone stores every result under
/// [`DontCare::Auto`]: among flying kings a probe's resolution of a capture
/// or a settled threat reads hundreds of entries (about a millisecond
/// without a cache at 7 pieces), where the files of these slices are a
/// sliver of the piece count's bytes (docs/COMPRESSION.md).
pub const STORE_ALL_KINGS_FROM: u8 = 7;

/// What a build leaves "don't care": which slices leave what (`policy`),
/// and how many entries a settled threat's resolution may read where
/// threats are left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Leaving {
    pub policy: DontCare,
    pub threat_reads: ThreatReads,
}

impl From<DontCare> for Leaving {
    fn from(policy: DontCare) -> Leaving {
        Leaving { policy, ..Leaving::default() }
    }
}

/// How many entries a settled threat's resolution may read at most, as
/// [`damka::resolve::is_settled_threat`] counts them (`damka generate
/// --threat-reads`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThreatReads {
    /// No bound below [`BOUND_THREATS_FROM`] pieces, [`THREAT_READS`] from
    /// there.
    #[default]
    Auto,
    /// The same in every slice (None: no bound).
    Every(Option<u32>),
}

/// Pieces from which slices bound their threats' reads under
/// [`ThreatReads::Auto`]. Below, the result files are smallest without a
/// bound, and a probe without a cache still meets its 20 us (6 pieces:
/// 100.6 positions a byte, a quiet result 18.3-19.0 us); at 7 pieces an
/// unbounded threat's search reads a hundred blocks and more (KKKvKKKM:
/// 881 us against 17.5 with the bound; docs/COMPRESSION.md).
pub const BOUND_THREATS_FROM: u8 = 7;

/// What the files of slice `material` leave "don't care" when a build
/// is `leaving` it.
pub fn resolution_of(material: Material, leaving: Leaving) -> Resolution {
    let kings_alone = material.own_men + material.opp_men == 0;
    let threat_reads = match leaving.threat_reads {
        ThreatReads::Auto => (material.pieces() >= BOUND_THREATS_FROM).then_some(THREAT_READS),
        ThreatReads::Every(bound) => bound,
    };
    match leaving.policy {
        DontCare::Auto if kings_alone && material.pieces() >= STORE_ALL_KINGS_FROM => Resolution::NONE,
        DontCare::Auto | DontCare::All => Resolution { threat_reads, ..Resolution::FULL },
        DontCare::None => Resolution::NONE,
    }
}

/// The slices quiet moves lead to from `slice` in at most
/// [`damka::resolve::THREAT_DEPTH`] plies, seen from the side to move
/// there: those resolving its settled threats reads the entries of (its
/// twin, where a promotion leads, and from two plies on `slice` itself).
/// One ply more where the slice takes its distances from the twin: a
/// position's one ply reaches the twin's settled threats.
pub fn threats_reach(slice: Material) -> BTreeSet<Material> {
    let mut reached = BTreeSet::new();
    let mut frontier = BTreeSet::from([slice]);
    let plies = damka::resolve::THREAT_DEPTH + u32::from(distances_of(slice) == Distances::FromTwin);
    for _ in 0..plies {
        frontier = frontier.iter().flat_map(|&s| quiet_moves_lead_to(s)).collect();
        reached.extend(frontier.iter().copied());
    }
    reached
}

/// The slices a quiet move from `slice` leads to (seen from the side to
/// move after it): its twin, and where a promotion leads.
pub fn quiet_moves_lead_to(slice: Material) -> impl Iterator<Item = Material> {
    [Some(slice.swap()), promotion_leads_to(slice)].into_iter().flatten()
}

/// The slices solving the pair `pair` reads: where the captures and
/// promotions of both its slices lead.
pub fn solve_reads(pair: Material) -> BTreeSet<Material> {
    let own = slices_of(pair);
    own.iter()
        .flat_map(|&s| captures_lead_to(s).into_iter().chain(promotion_leads_to(s)))
        .filter(|s| !own.contains(s))
        .collect()
}

/// The pairs the pair `pair` needs finished before it is solved.
pub fn inputs(pair: Material) -> Vec<Material> {
    let pairs: BTreeSet<Material> = solve_reads(pair).into_iter().map(pair_of).collect();
    let mut pairs: Vec<Material> = pairs.into_iter().collect();
    sort_in_order(&mut pairs);
    pairs
}

/// The order of work: fewer pieces first (captures), then fewer men
/// (promotions crown a man), so every pair comes after its inputs.
fn order_key(pair: &Material) -> (u8, u8, Material) {
    (pair.pieces(), pair.men(), *pair)
}

/// Sorts `pairs` in the order of work.
pub fn sort_in_order(pairs: &mut [Material]) {
    pairs.sort_by_key(order_key);
}

/// Every slice pair with 2 to `max_pieces` pieces, each after its inputs.
pub fn pairs_in_order(max_pieces: u8) -> Vec<Material> {
    let mut pairs: Vec<Material> =
        Material::all_up_to(max_pieces).into_iter().filter(|m| *m == pair_of(*m)).collect();
    sort_in_order(&mut pairs);
    pairs
}

/// Every pair the pairs `targets` need, directly or through other pairs,
/// the targets themselves not included unless one needs another; in order.
pub fn needed_by(targets: &[Material]) -> Vec<Material> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<Material> = targets.to_vec();
    while let Some(p) = todo.pop() {
        for input in inputs(p) {
            if seen.insert(input) {
                todo.push(input);
            }
        }
    }
    let mut out: Vec<Material> = seen.into_iter().collect();
    sort_in_order(&mut out);
    out
}

/// What a build does with one pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Solve the pair and write its tables.
    Solve,
    /// Read these slices of a finished pair back from their files (only
    /// those a later step reads; reading one resolves its capture positions
    /// from the slices its captures lead to, which costs minutes at six
    /// pieces).
    Load(Vec<Material>),
    /// Read these slices back from the working copies an earlier step
    /// spilled ([`crate::spill`]): no other slice is needed for that.
    Restore(Vec<Material>),
}

/// One step of a build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub pair: Material,
    pub action: Action,
    /// The slices in memory that no later step reads, or that the next
    /// step needs the room of: drop them after this one.
    pub release: Vec<Material>,
    /// Those of `release` that a later step restores: write their working
    /// copies before dropping them.
    pub spill: Vec<Material>,
}

/// A pair that is needed, neither finished nor to be solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    pub pair: Material,
    /// A pair that needs it (directly).
    pub needed_by: Material,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn m(text: &str) -> Material {
        text.parse().expect("material")
    }

    /// Of a slice and its twin that differ, exactly one takes its
    /// distances from the other, which stores them for it; a slice that is
    /// its own twin stores its own.
    #[test]
    fn one_slice_of_each_pair_takes_its_distances_from_the_other() {
        let mut pairs = 0;
        for pair in pairs_in_order(7) {
            for m in slices_of(pair) {
                let both = [distances_of(m), distances_of(m.swap())];
                if m == m.swap() {
                    assert_eq!(both, [Distances::Own; 2], "{m}");
                } else {
                    pairs += 1;
                    assert!(matches!(both, [Distances::FromTwin, Distances::ForTwin] | [Distances::ForTwin, Distances::FromTwin]), "{m}: {both:?}");
                }
            }
        }
        assert!(pairs > 100);
        assert_eq!(distances_of("KMvKK".parse().unwrap()), Distances::FromTwin, "fewer kings");
        assert_eq!(distances_of("KKvKM".parse().unwrap()), Distances::ForTwin);
        assert_eq!(distances_of("KvKM".parse().unwrap()), Distances::FromTwin, "as many kings, fewer pieces");
    }

    #[test]
    fn captures_and_crownings_lead_where_the_material_says() {
        // KM v K: the king or the man takes the lone king (game over), or
        // the man is crowned: KvKK.
        assert!(captures_lead_to(m("KMvK")).is_empty());
        assert_eq!(promotion_leads_to(m("KMvK")), Some(m("KvKK")));
        assert_eq!(promotion_leads_to(m("KKvK")), None);
        let from = captures_lead_to(m("MvKM"));
        let want: BTreeSet<Material> = [m("KvM"), m("KvK"), m("MvM"), m("MvK")].into_iter().collect();
        assert_eq!(from, want);
    }

    #[test]
    fn every_input_comes_first_in_the_order() {
        let pairs = pairs_in_order(6);
        let at: HashMap<Material, usize> = pairs.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        for (i, &p) in pairs.iter().enumerate() {
            assert!(!inputs(p).contains(&p), "{p} needs itself");
            for input in inputs(p) {
                assert!(at[&input] < i, "{p} comes before its input {input}");
            }
        }
    }
}
