//! The indexer: a bijection between a slice's positions (White to move)
//! and `0..size`.
//!
//! An index is `config * kings_per_config + kings`: the men configuration
//! first, so each configuration is one contiguous range (the unit of work
//! and memory), then the kings on the squares the men leave free. Squares
//! are numbered densely (a1 = 0 ... h8 = 31, see [`Square::from_dense`]),
//! sets of squares ranked in colexicographic order.
//!
//! White men stand on dense squares 0..28 (not rank 8), Black men on 4..32
//! (not rank 1). To keep the count exact the configurations are grouped by
//! how many Black men stand on rank 8: within a group, White's men choose
//! among a fixed number of free squares.

use std::sync::LazyLock;

use crate::board::{ray, Bitboard, Color, Direction, Square};
use crate::material::Material;
use crate::position::Position;

const BINOM: [[u64; 33]; 33] = {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// `n` choose `k` (0 when k > n).
#[inline]
pub fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

const RANK_8: u32 = 0xF000_0000;
const RANKS_2_TO_7: u32 = 0x0FFF_FFF0;

/// Dark squares of the even ranks (1, 3, 5, 7): bits 0, 2, 4, 6 of a byte.
const EVEN_RANKS: u64 = 0x0055_0055_0055_0055;
/// Dark squares of the odd ranks (2, 4, 6, 8) moved down one file: bits 0,
/// 2, 4, 6 of their bytes.
const ODD_RANKS_DOWN: u64 = 0x5500_5500_5500_5500;

/// A set of squares in the dense numbering.
///
/// Branch-free and table-free (the indexer's hot path): the odd ranks are
/// moved down a file so that every dark square sits on an even bit of its
/// rank's byte, then the bits are packed together, halving the gaps at
/// each step: 2 -> 1 within a byte, then bytes into nibbles, 16- and
/// 32-bit halves.
#[inline]
pub fn dense(bb: Bitboard) -> u32 {
    let mut x = (bb.0 & EVEN_RANKS) | ((bb.0 >> 1) & ODD_RANKS_DOWN);
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF;
    x as u32
}

/// The inverse of [`dense`]: the same steps backwards.
#[inline]
pub fn sparse(set: u32) -> Bitboard {
    let mut x = set as u64;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    x = (x | (x << 1)) & 0x5555_5555_5555_5555;
    Bitboard((x & EVEN_RANKS) | ((x & ODD_RANKS_DOWN) << 1))
}

/// Colex rank of `set` after removing the squares of `taken` (disjoint from
/// `set`) from the numbering.
#[inline]
fn rank_set(mut set: u32, taken: u32) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        let sq = set.trailing_zeros();
        let below = taken & ((1u32 << sq) - 1);
        // The table holds 0 where k > n, so no range check is needed.
        rank += BINOM[(sq - below.count_ones()) as usize][i as usize];
        i += 1;
        set &= set - 1;
    }
    rank
}

/// The `k`-set of rank `rank` among the squares not in `taken`.
#[inline]
fn unrank_set(rank: u64, k: u32, taken: u32) -> u32 {
    expand(unrank_compressed(rank, k), taken)
}

/// The `k`-set of rank `rank` in colex order, in compressed numbering.
#[inline]
fn unrank_compressed(mut rank: u64, k: u32) -> u32 {
    let mut compressed = 0u32;
    let mut top = 32;
    for i in (1..=k).rev() {
        // The largest c below top with C(c, i) <= rank, by bisection: C(c, i)
        // grows with c, and C(i - 1, i) = 0.
        let (mut lo, mut hi) = (i - 1, top - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if binomial(mid, i) <= rank {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        rank -= binomial(lo, i);
        compressed |= 1 << lo;
        top = lo;
    }
    compressed
}

/// The set after `set` in colex order among sets as large within `n`
/// elements (Gosper's hack), `None` after the last. The empty set is the
/// only one of its size.
#[inline]
fn next_subset(set: u32, n: u32) -> Option<u32> {
    if set == 0 {
        return None;
    }
    let set = set as u64;
    let low = set & set.wrapping_neg();
    let ripple = set + low;
    let next = ripple | ((ripple ^ set) >> 2 >> low.trailing_zeros());
    (next >> n == 0).then_some(next as u32)
}

/// The squares not in `taken` in increasing order: compressed square `j`
/// is `free[j]`.
#[inline]
fn free_squares(taken: u32) -> [u8; 32] {
    let mut free = [0u8; 32];
    let mut rest = !taken;
    let mut j = 0;
    while rest != 0 {
        free[j] = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        j += 1;
    }
    free
}

/// [`expand`] through a list of [`free_squares`].
#[inline]
fn expand_by(mut compressed: u32, free: &[u8; 32]) -> u32 {
    let mut out = 0;
    while compressed != 0 {
        out |= 1 << free[compressed.trailing_zeros() as usize];
        compressed &= compressed - 1;
    }
    out
}

/// A walk through consecutive positions of a slice: the king placements of
/// a men configuration in rank order, by stepping each colour's kings to
/// their next set instead of unranking every index.
struct KingsWalk {
    config_rank: u64,
    config: MenConfig,
    /// Compressed sets: White's kings among the squares the men leave
    /// free, Black's among those White's kings leave free too.
    white: u32,
    black: u32,
    free_white: [u8; 32],
    free_black: [u8; 32],
    white_kings: u32,
    black_kings: u32,
}

impl KingsWalk {
    fn at(index: &SliceIndex, i: u64) -> KingsWalk {
        let (config_rank, kings) = (i / index.kings_per_config, i % index.kings_per_config);
        let config = index.config(config_rank);
        let m = index.material;
        let opp_count = binomial(32 - config.occupied().count_ones() - m.own_kings as u32, m.opp_kings as u32);
        let white = unrank_compressed(kings / opp_count, m.own_kings as u32);
        let black = unrank_compressed(kings % opp_count, m.opp_kings as u32);
        let mut walk = KingsWalk {
            config_rank,
            config,
            white,
            black,
            free_white: free_squares(config.occupied()),
            free_black: [0; 32],
            white_kings: 0,
            black_kings: 0,
        };
        walk.place_white();
        walk
    }

    /// Places White's kings, and Black's around them.
    fn place_white(&mut self) {
        self.white_kings = expand_by(self.white, &self.free_white);
        self.free_black = free_squares(self.config.occupied() | self.white_kings);
        self.black_kings = expand_by(self.black, &self.free_black);
    }

    fn position(&self, index: &SliceIndex) -> Position {
        index.position_with(self.config, self.white_kings, self.black_kings).expect("walked kings fit the slice")
    }

    /// On to the next index (which must be within the slice).
    fn step(&mut self, index: &SliceIndex) {
        let m = index.material;
        let (ok, ak) = (m.own_kings as u32, m.opp_kings as u32);
        let free = 32 - self.config.occupied().count_ones();
        if let Some(black) = next_subset(self.black, free - ok) {
            self.black = black;
            self.black_kings = expand_by(black, &self.free_black);
            return;
        }
        self.black = (1 << ak) - 1;
        if let Some(white) = next_subset(self.white, free) {
            self.white = white;
        } else {
            self.config_rank += 1;
            self.config = index.config(self.config_rank);
            self.free_white = free_squares(self.config.occupied());
            self.white = (1 << ok) - 1;
        }
        self.place_white();
    }
}

/// Spreads compressed square numbers back over the squares not in `taken`.
#[inline]
fn expand(mut compressed: u32, taken: u32) -> u32 {
    let mut out = 0;
    let mut free = !taken;
    let mut i = 0;
    while compressed != 0 {
        let sq = free.trailing_zeros();
        if compressed & 1 != 0 {
            out |= 1 << sq;
        }
        compressed >>= 1;
        free &= free - 1;
        i += 1;
    }
    debug_assert!(i <= 32);
    out
}

/// A men configuration: White's and Black's men as dense square sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MenConfig {
    white: u32,
    black: u32,
}

impl MenConfig {
    /// The configuration of White's and Black's men (dense sets, disjoint,
    /// no White man on rank 8 nor Black man on rank 1).
    #[inline]
    pub fn new(white: u32, black: u32) -> MenConfig {
        debug_assert!(white & black == 0 && white & RANK_8 == 0 && black & 0xF == 0);
        MenConfig { white, black }
    }

    /// How far the men have come: each man move adds exactly one. Man moves
    /// therefore lead from one level to the next, never back.
    pub fn progress(&self) -> u32 {
        let rows = |mut set: u32| {
            let mut sum = 0;
            while set != 0 {
                sum += set.trailing_zeros() / 4;
                set &= set - 1;
            }
            sum
        };
        rows(self.white) + 7 * self.black.count_ones() - rows(self.black)
    }

    /// The same configuration with colours swapped and the board turned.
    pub fn flip(&self) -> MenConfig {
        MenConfig { white: self.black.reverse_bits(), black: self.white.reverse_bits() }
    }

    pub fn occupied(&self) -> u32 {
        self.white | self.black
    }

    /// White's men (dense).
    pub fn white(&self) -> u32 {
        self.white
    }

    /// Black's men (dense).
    pub fn black(&self) -> u32 {
        self.black
    }

    /// The configuration of `pos`.
    pub fn of(pos: &Position) -> MenConfig {
        MenConfig { white: dense(pos.men(Color::White)), black: dense(pos.men(Color::Black)) }
    }
}

/// A position's index and the three parts it is made of, `index =
/// (config * own placements + own_kings) * opponent's placements +
/// opp_kings`: what a file's entry order lays out (layout.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexParts {
    pub index: u64,
    /// Rank of the men configuration.
    pub config: u64,
    /// Rank of the own kings' placement, and of the opponent's.
    pub own_kings: u64,
    pub opp_kings: u64,
}

/// The indexer of one slice.
#[derive(Clone, Debug)]
pub struct SliceIndex {
    material: Material,
    /// First configuration rank of each group (Black men on rank 8).
    group_start: [u64; 6],
    configs: u64,
    kings_per_config: u64,
}

impl SliceIndex {
    pub fn new(material: Material) -> SliceIndex {
        let (om, am) = (material.own_men as u32, material.opp_men as u32);
        let mut group_start = [0u64; 6];
        for h in 0..5u32 {
            group_start[h as usize + 1] = group_start[h as usize] + group_size(om, am, h);
        }
        let free = 32 - om - am;
        let kings_per_config = binomial(free, material.own_kings as u32)
            * binomial(free - material.own_kings as u32, material.opp_kings as u32);
        SliceIndex { material, group_start, configs: group_start[5], kings_per_config }
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Positions in the slice.
    pub fn size(&self) -> u64 {
        self.configs * self.kings_per_config
    }

    /// Men configurations in the slice.
    pub fn configs(&self) -> u64 {
        self.configs
    }

    /// King placements per men configuration.
    pub fn kings_per_config(&self) -> u64 {
        self.kings_per_config
    }

    /// Placements of the own kings, and of the opponent's beside them, on
    /// the squares a men configuration leaves free: a king placement's rank
    /// is `own * opponent's count + opponent's`.
    pub fn king_placements(&self) -> (u64, u64) {
        let free = 32 - self.material.own_men as u32 - self.material.opp_men as u32;
        let own_kings = self.material.own_kings as u32;
        (binomial(free, own_kings), binomial(free - own_kings, self.material.opp_kings as u32))
    }

    pub fn config_rank(&self, c: MenConfig) -> u64 {
        let (om, am) = (self.material.own_men as u32, self.material.opp_men as u32);
        let h = (c.black & RANK_8).count_ones();
        let r8 = rank_set(c.black >> 28, 0);
        let rest = rank_set((c.black & RANKS_2_TO_7) >> 4, 0);
        let white = rank_set(c.white, c.black & !RANK_8);
        let in_group = (r8 * binomial(24, am - h) + rest) * binomial(28 - am + h, om) + white;
        self.group_start[h as usize] + in_group
    }

    pub fn config(&self, rank: u64) -> MenConfig {
        let (om, am) = (self.material.own_men as u32, self.material.opp_men as u32);
        let h = (0..5).rfind(|&h| self.group_start[h] <= rank && group_size(om, am, h as u32) > 0)
            .expect("rank within the slice") as u32;
        let mut r = rank - self.group_start[h as usize];
        let white_count = binomial(28 - am + h, om);
        let white_rank = r % white_count;
        r /= white_count;
        let rest_count = binomial(24, am - h);
        let rest = unrank_set(r % rest_count, am - h, 0) << 4;
        let r8 = unrank_set(r / rest_count, h, 0) << 28;
        let black = r8 | rest;
        // White men never stand on rank 8: mark it taken.
        let white = unrank_set(white_rank, om, (black & !RANK_8) | RANK_8);
        MenConfig { white, black }
    }

    /// Rank of the kings (dense sets) on the squares `men` leaves free.
    #[inline]
    pub fn kings_rank(&self, men: u32, white_kings: u32, black_kings: u32) -> u64 {
        let (own, opp, opp_count) = self.king_ranks(men, white_kings, black_kings);
        own * opp_count + opp
    }

    /// The ranks of the own kings' placement and of the opponent's, and
    /// how many placements the opponent's kings have beside the own.
    #[inline]
    fn king_ranks(&self, men: u32, white_kings: u32, black_kings: u32) -> (u64, u64, u64) {
        let opp_count = binomial(
            32 - men.count_ones() - self.material.own_kings as u32,
            self.material.opp_kings as u32,
        );
        (rank_set(white_kings, men), rank_set(black_kings, men | white_kings), opp_count)
    }

    #[inline]
    pub fn kings(&self, men: u32, rank: u64) -> (u32, u32) {
        let opp_count = binomial(
            32 - men.count_ones() - self.material.own_kings as u32,
            self.material.opp_kings as u32,
        );
        let white = unrank_set(rank / opp_count, self.material.own_kings as u32, men);
        let black = unrank_set(rank % opp_count, self.material.opp_kings as u32, men | white);
        (white, black)
    }

    /// Every king placement on the squares `men` leaves free, in rank order:
    /// `f(white_kings, black_kings)` for ranks 0, 1, 2, ...
    pub fn for_each_kings(&self, men: u32, mut f: impl FnMut(u32, u32)) {
        let (ok, ak) = (self.material.own_kings as u32, self.material.opp_kings as u32);
        for_each_subset(!men, ok, |white| {
            for_each_subset(!men & !white, ak, |black| f(white, black));
        });
    }

    /// The index of `pos`, which must have White to move and this slice's
    /// material.
    pub fn index(&self, pos: &Position) -> Option<u64> {
        if pos.turn() != Color::White || Material::of(pos) != self.material {
            return None;
        }
        Some(self.index_unchecked(pos))
    }

    /// [`SliceIndex::index`] for a position the caller knows to be of this
    /// slice with White to move.
    #[inline]
    pub fn index_unchecked(&self, pos: &Position) -> u64 {
        self.parts_unchecked(pos).index
    }

    /// [`SliceIndex::index_unchecked`] with the parts the index is made of.
    #[inline]
    pub fn parts_unchecked(&self, pos: &Position) -> IndexParts {
        debug_assert!(pos.turn() == Color::White && Material::of(pos) == self.material);
        let white = dense(pos.pieces(Color::White));
        let black = dense(pos.pieces(Color::Black));
        let kings = dense(pos.all_kings());
        let config = MenConfig { white: white & !kings, black: black & !kings };
        let (own_kings, opp_kings, opp) = self.king_ranks(config.occupied(), white & kings, black & kings);
        let config = self.config_rank(config);
        IndexParts { index: config * self.kings_per_config + own_kings * opp + opp_kings, config, own_kings, opp_kings }
    }

    /// The position (White to move) at `index` < `size()`.
    pub fn position(&self, index: u64) -> Position {
        let config = self.config(index / self.kings_per_config);
        self.position_in(config, index % self.kings_per_config)
    }

    /// The positions at indices `range` (within `size()`), in order:
    /// [`SliceIndex::position`] of each, but stepped from the one before:
    /// only the first index is unranked.
    pub fn positions(&self, range: std::ops::Range<u64>) -> impl Iterator<Item = Position> + '_ {
        let mut walk: Option<KingsWalk> = None;
        range.map(move |i| {
            match &mut walk {
                Some(w) => w.step(self),
                None => walk = Some(KingsWalk::at(self, i)),
            }
            walk.as_ref().expect("set above").position(self)
        })
    }

    /// The position (White to move) of configuration `config` of this slice
    /// with kings of rank `kings` < `kings_per_config()`.
    #[inline]
    pub fn position_in(&self, config: MenConfig, kings: u64) -> Position {
        let (wk, bk) = self.kings(config.occupied(), kings);
        self.position_with(config, wk, bk).expect("unranked kings fit the slice")
    }

    /// The position (White to move) of configuration `config` of this slice
    /// with the given kings (dense sets), if they fit: on free squares, as
    /// many as the slice has.
    #[inline]
    pub fn position_with(&self, config: MenConfig, white_kings: u32, black_kings: u32) -> Option<Position> {
        let m = self.material;
        let fits = config.white.count_ones() == m.own_men as u32
            && config.black.count_ones() == m.opp_men as u32
            && white_kings.count_ones() == m.own_kings as u32
            && black_kings.count_ones() == m.opp_kings as u32
            && (config.occupied() | white_kings) & black_kings == 0
            && config.occupied() & white_kings == 0;
        fits.then(|| {
            Position::from_parts_unchecked(
                sparse(config.white | white_kings),
                sparse(config.black | black_kings),
                sparse(white_kings | black_kings),
                Color::White,
            )
        })
    }
}

/// Every `k`-subset of `squares` in colex order (the order [`rank_set`]
/// counts), by walking the combinations of positions within `squares`.
fn for_each_subset(squares: u32, k: u32, mut f: impl FnMut(u32)) {
    let n = squares.count_ones();
    if k > n {
        return;
    }
    let mut list = [0u32; 32];
    let mut rest = squares;
    for slot in list.iter_mut().take(n as usize) {
        *slot = 1 << rest.trailing_zeros();
        rest &= rest - 1;
    }
    if k == 0 {
        f(0);
        return;
    }
    // Gosper's hack: the next larger number with the same count of ones;
    // in increasing order these are the k-subsets in colex order.
    let mut comb: u64 = (1u64 << k) - 1;
    while comb < 1u64 << n {
        let mut set = 0;
        let mut c = comb;
        while c != 0 {
            set |= list[c.trailing_zeros() as usize];
            c &= c - 1;
        }
        f(set);
        let low = comb & comb.wrapping_neg();
        let ripple = comb + low;
        comb = (((ripple ^ comb) >> 2) / low) | ripple;
    }
}

/// The board's diagonal rays in the dense numbering, for solvers that keep
/// positions as dense sets and would otherwise convert to bitboards and
/// back for every king move.
///
/// Dense numbers grow with the rank, so along a northward ray they rise and
/// along a southward one they fall: the nearest blocker is the lowest or
/// the highest bit, as on the 8x8 board.
pub struct DenseRays([[u32; 4]; 32]);

static DENSE_RAYS: LazyLock<DenseRays> = LazyLock::new(|| {
    let mut rays = [[0; 4]; 32];
    for (n, dirs) in rays.iter_mut().enumerate() {
        for dir in Direction::ALL {
            dirs[dir.index()] = dense(ray(Square::from_dense(n as u8), dir).bitboard());
        }
    }
    DenseRays(rays)
});

impl DenseRays {
    /// The rays, built from the board's on first use.
    pub fn get() -> &'static DenseRays {
        &DENSE_RAYS
    }

    /// Where a king on dense square `sq` can move without capturing, given
    /// the occupied squares: [`crate::movegen`]'s king steps, densely.
    #[inline]
    pub fn king_steps(&self, sq: u32, occupied: u32, flying: bool) -> u32 {
        let mut to = 0;
        for dir in Direction::ALL {
            let ray = self.0[sq as usize][dir.index()];
            let reach = if dir.is_northward() {
                // Everything below the lowest blocker (or the first square).
                let stop = if flying { ray & occupied } else { ray & !lowest(ray) };
                ray & lowest(stop).wrapping_sub(1)
            } else {
                let stop = if flying { ray & occupied } else { ray & !highest(ray) };
                // Everything above the highest blocker.
                let h = highest(stop);
                ray & !(h | h.saturating_sub(1))
            };
            to |= reach & !occupied;
        }
        to
    }
}

/// The lowest bit of `x` (0 if none).
#[inline]
fn lowest(x: u32) -> u32 {
    x & x.wrapping_neg()
}

/// The highest bit of `x` (0 if none).
#[inline]
fn highest(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        1 << (31 - x.leading_zeros())
    }
}

/// Configurations with `h` Black men on rank 8.
fn group_size(om: u32, am: u32, h: u32) -> u64 {
    if h > am {
        return 0;
    }
    binomial(4, h) * binomial(24, am - h) * binomial(28 - am + h, om)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    #[test]
    fn positions_in_a_range_are_those_at_each_index() {
        // Kings of both colours, of one, of none; men of both, of one, of
        // none (own kings, own men, opponent's kings, opponent's men).
        for counts in [(1, 1, 1, 1), (2, 0, 3, 0), (0, 2, 1, 1), (1, 1, 0, 2), (0, 2, 0, 2), (3, 0, 0, 1), (1, 0, 1, 0)] {
            let index = SliceIndex::new(Material::new(counts.0, counts.1, counts.2, counts.3));
            let kpc = index.kings_per_config();
            // Across configuration boundaries, from mid-configuration, and
            // to the slice's end.
            let ranges = [kpc / 2..(kpc * 3 + 5).min(index.size()), index.size().saturating_sub(kpc + 7)..index.size()];
            for range in ranges {
                let walked: Vec<Position> = index.positions(range.clone()).collect();
                assert_eq!(walked.len() as u64, range.end - range.start);
                for (i, pos) in range.zip(walked) {
                    assert_eq!(pos, index.position(i), "{counts:?}, index {i}");
                }
            }
        }
    }

    #[test]
    fn dense_and_sparse_are_inverse() {
        for sq in Square::all() {
            assert_eq!(dense(sq.bb()), 1 << sq.dense());
            assert_eq!(sparse(1 << sq.dense()), sq.bb());
        }
        assert_eq!(dense(Bitboard::DARK), u32::MAX);
        // Sets of several squares too: each square keeps its own place.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let set = (x >> 32) as u32;
            let expected = Square::all().filter(|sq| set & 1 << sq.dense() != 0).fold(Bitboard::EMPTY, |b, sq| b.with(sq));
            assert_eq!(sparse(set), expected);
            assert_eq!(dense(expected), set);
            assert_eq!(dense(Bitboard(expected.0 | !Bitboard::DARK.0)), set, "light squares are ignored");
        }
    }

    #[test]
    fn king_placements_come_in_rank_order() {
        let index = SliceIndex::new(Material::new(2, 1, 1, 1));
        let config = index.config(17);
        let mut expected = 0;
        index.for_each_kings(config.occupied(), |w, b| {
            assert_eq!(index.kings_rank(config.occupied(), w, b), expected);
            expected += 1;
        });
        assert_eq!(expected, index.kings_per_config());
    }

    #[test]
    fn dense_king_steps_match_the_board() {
        use crate::board::open_ray;
        let rays = DenseRays::get();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..200 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Sparse and dense occupancies alike.
            let occupied = ((x >> 32) as u32) & ((x >> 7) as u32);
            for sq in Square::all() {
                let occ = sparse(occupied & !(1 << sq.dense()));
                let mut flying = Bitboard::EMPTY;
                let mut short = Bitboard::EMPTY;
                for dir in Direction::ALL {
                    flying |= open_ray(sq, dir, occ);
                    short |= sq.bb().shift(dir) & !occ;
                }
                let d = sq.dense() as u32;
                assert_eq!(rays.king_steps(d, dense(occ), true), dense(flying), "{sq} {occ:?}");
                assert_eq!(rays.king_steps(d, dense(occ), false), dense(short), "{sq} {occ:?}");
            }
        }
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(32, 4), 35960);
        assert_eq!(binomial(5, 6), 0);
    }

    #[test]
    fn rank_and_unrank_are_inverse_on_small_slices() {
        for m in Material::all_up_to(4) {
            let index = SliceIndex::new(m);
            for i in 0..index.size() {
                let pos = index.position(i);
                assert_eq!(Material::of(&pos), m);
                assert_eq!(index.index(&pos), Some(i), "{m} {i}");
            }
        }
    }

    #[test]
    fn config_ranks_cover_every_configuration() {
        let m = Material::new(0, 2, 0, 2);
        let index = SliceIndex::new(m);
        let mut seen = std::collections::HashSet::new();
        for r in 0..index.configs() {
            let c = index.config(r);
            assert_eq!(c.white & c.black, 0);
            assert_eq!(c.white & RANK_8, 0);
            assert_eq!(c.black & 0xF, 0);
            assert_eq!(index.config_rank(c), r);
            assert!(seen.insert(c));
        }
    }

    #[test]
    fn slice_sizes_add_up_to_the_published_position_counts() {
        // Placements with both sides present, each counted once (docs/TABLEBASE.md, "Slices").
        let expected = [3488u64, 196_032, 6_209_316, 139_450_808, 2_426_085_676];
        for (n, want) in (2u8..).zip(expected) {
            let total: u64 = Material::all_up_to(n)
                .into_iter()
                .filter(|m| m.pieces() == n)
                .map(|m| SliceIndex::new(m).size())
                .sum();
            assert_eq!(total, want, "{n} pieces");
        }
    }

    #[test]
    fn progress_rises_by_one_per_man_move() {
        let c = MenConfig { white: 1 << 5, black: 1 << 20 };
        let moved = MenConfig { white: 1 << 9, black: 1 << 20 };
        assert_eq!(moved.progress(), c.progress() + 1);
        assert_eq!(c.flip().progress(), c.progress());
    }
}
