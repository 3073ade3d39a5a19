//! The value of a capture position, from the positions its captures lead to.
//!
//! A capture is compulsory, so a position whose side to move can capture is
//! worth the best of its captures. Tables store such positions as "don't
//! care" (docs/FORMAT.md); the probe, the verifier and the loaders all
//! answer them here, by one rule: the result is the best of the successors'
//! results turned around, and a win or a loss is 1 ply from its reset (the
//! capture itself). Under a rule set this is exactly what the solver
//! stores: a capture into a position the opponent would win only without
//! the limits (cursed win) is a blessed loss here, with no rule distance;
//! a capture that wins is a win in 1 ply, within any limit, since rule
//! limits are at least 1 ply (rules.rs).

use crate::board::Color;
use crate::movegen::{capture_moves, generate, has_capture, is_threatened, Routes};
use crate::moves::Move;
use crate::position::Position;
use crate::value::{value_order, Value, Wdl};
use crate::variant::Variant;

/// The value of `pos` if its side to move must capture, else `None`.
/// `successor` gives the stored (or resolved) value of a position reached
/// by a capture, for its side to move, with whichever colour is to move.
/// `moves` is scratch space.
pub fn capture_value<E>(
    pos: &Position,
    variant: Variant,
    moves: &mut Vec<Move>,
    mut successor: impl FnMut(&Position) -> Result<Value, E>,
) -> Result<Option<Value>, E> {
    if !capture_moves(pos, variant, Routes::Merge, moves) {
        return Ok(None);
    }
    // The search stops at the first win, and a capture that takes more is
    // likelier to win: at 6 pieces 9% fewer blocks a probe.
    moves.sort_by_key(|m| std::cmp::Reverse(m.captured().count()));
    let mut best = Wdl::Loss;
    for m in moves.iter() {
        let after = pos.play(m);
        let wdl = if after.pieces(after.turn()).is_empty() { Wdl::Loss } else { successor(&after)?.wdl };
        best = best.max(wdl.negate());
        if best == Wdl::Win {
            break;
        }
    }
    Ok(Some(of_best(best)))
}

/// How many plies deep a settled threat may lie at most: a probe resolves
/// one through its moves, and those of the settled threats they lead to,
/// at most this deep (docs/FORMAT.md; docs/COMPRESSION.md says what each ply
/// buys and costs). A slice's header says how deep its own may lie
/// ([`Resolution`]).
pub const THREAT_DEPTH: u32 = 3;

/// What a slice's files leave "don't care" for the reader to resolve, as
/// its headers record it: fewer stored entries make smaller files, and each
/// one left costs a probe a search (among flying kings, hundreds of
/// entries). A capture position's distance is never stored: it follows
/// from its result ([`of_best`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resolution {
    /// Capture positions' results are "don't care", resolved through their
    /// captures; else stored.
    pub captures: bool,
    /// How many plies deep a settled threat of the slice may lie (0: every
    /// threat is stored), at most [`THREAT_DEPTH`].
    pub threat_depth: u32,
    /// How many entries a settled threat's resolution may read at most, as
    /// [`is_settled_threat`] counts them: a threat that would read more is
    /// stored (None: no bound, as in format 10 and 11). A multiple of
    /// [`READS_STEP`], at most [`MOST_THREAT_READS`].
    pub threat_reads: Option<u32>,
}

/// The unit of [`Resolution::threat_reads`] in a header byte.
pub const READS_STEP: u32 = 8;

/// The largest bound on a threat's reads a header byte holds (five bits of
/// [`READS_STEP`]s).
pub const MOST_THREAT_READS: u32 = 31 * READS_STEP;

/// The bound on a settled threat's reads that builds set by default from 7
/// pieces on: at 7 pieces an unbounded threat's search reads a hundred
/// blocks and more (docs/COMPRESSION.md, "Format 12"). Below 7 pieces
/// builds set none by default: the files are a third smaller, and probes
/// without a cache stay within 20 us.
pub const THREAT_READS: u32 = 32;

impl Resolution {
    /// As much as a reader can resolve: the smallest files (format 10's
    /// only resolution).
    pub const FULL: Resolution = Resolution { captures: true, threat_depth: THREAT_DEPTH, threat_reads: None };
    /// What builds leave by default from 7 pieces on (but in slices of
    /// kings alone): as [`Resolution::FULL`], but the threats whose
    /// resolution would read more than [`THREAT_READS`] entries are stored.
    pub const BOUNDED: Resolution = Resolution { threat_reads: Some(THREAT_READS), ..Resolution::FULL };
    /// Nothing: every position's result is stored, and a probe reads one
    /// entry.
    pub const NONE: Resolution = Resolution { captures: false, threat_depth: 0, threat_reads: None };

    /// In a header byte: the threat depth, plus 4 if captures are stored,
    /// plus 8 for each [`READS_STEP`] of the bound on a threat's reads.
    pub fn id(self) -> u8 {
        debug_assert!(self.threat_reads.is_none_or(|r| r % READS_STEP == 0 && r <= MOST_THREAT_READS), "{self:?}");
        let reads = self.threat_reads.map_or(0, |r| r / READS_STEP) as u8;
        self.threat_depth as u8 | if self.captures { 0 } else { 4 } | reads << 3
    }

    pub fn from_id(id: u8) -> Option<Resolution> {
        let threat_depth = u32::from(id & 3);
        let reads = u32::from(id >> 3);
        // A bound on threats' reads where no threat is left means nothing.
        (threat_depth <= THREAT_DEPTH && (reads == 0 || threat_depth > 0)).then_some(Resolution {
            captures: id & 4 == 0,
            threat_depth,
            threat_reads: (reads > 0).then_some(reads * READS_STEP),
        })
    }
}

/// What is left "don't care", in a few words (`damka info`).
impl std::fmt::Display for Resolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.captures, self.threat_depth) {
            (false, 0) => write!(f, "nothing")?,
            (true, 0) => write!(f, "captures")?,
            (false, d) => write!(f, "threats {d} plies deep")?,
            (true, d) => write!(f, "captures, threats {d} plies deep")?,
        }
        match self.threat_reads {
            Some(reads) if self.threat_depth > 0 => write!(f, " reading <= {reads}"),
            _ => Ok(()),
        }
    }
}

/// Whether `pos` is a settled threat of a slice that leaves `resolution`:
/// quiet (its side to move cannot capture) but threatened (the opponent
/// could, were it its turn), and every move leads to a capture position,
/// to a quiet position without a threat, or to a settled threat less deep,
/// the deepest at most `resolution.threat_depth` plies (none at 0), and its
/// resolution reads at most `resolution.threat_reads` entries, counting one
/// for each quiet position without a threat it reaches and one for each
/// capture of the capture positions (about what a probe reads without a
/// cache; most of a probe's time goes to the few threats that read
/// hundreds). Its result follows from its moves ([`threat_result`]), and
/// theirs from their moves, without ever coming back to such a position,
/// so tables leave its `.wdl` entry "don't care" (docs/FORMAT.md). Leaves
/// its legal moves in `moves`.
pub fn is_settled_threat(pos: &Position, variant: Variant, resolution: Resolution, moves: &mut Vec<Move>) -> bool {
    settled_threat(pos, variant, resolution, moves, &mut Captures::Counted)
}

/// [`is_settled_threat`] for a run of positions of one slice, the capture
/// counts of the positions their moves reach kept in `counts`.
pub fn is_settled_threat_counting(pos: &Position, resolution: Resolution, moves: &mut Vec<Move>, counts: &mut CaptureCounts) -> bool {
    settled_threat(pos, counts.variant, resolution, moves, &mut Captures::Kept(counts))
}

fn settled_threat(pos: &Position, variant: Variant, resolution: Resolution, moves: &mut Vec<Move>, captures: &mut Captures) -> bool {
    // Most positions are not threatened: that test first.
    let depth = resolution.threat_depth;
    if depth == 0 || !is_threatened(pos, variant) || has_capture(pos, variant) {
        return false;
    }
    generate(pos, variant, Routes::Merge, moves);
    let mut reads = resolution.threat_reads;
    let mut replies = Vec::new();
    moves.iter().all(|m| settles_within(&pos.play(m), variant, depth - 1, &mut reads, &mut replies, captures))
}

/// Something known of each of the positions met last, one a slot, the
/// slot chosen by hashing the position: searches from neighbouring
/// positions of a slice reach many of the same positions again, and a
/// slot costs a comparison where the search costs a capture search or
/// more. What it holds must follow from the position alone.
pub struct PositionCache<T> {
    slots: Box<[(Position, Option<T>)]>,
}

impl<T: Copy> PositionCache<T> {
    const SLOT_BITS: u32 = 16;

    pub fn new() -> PositionCache<T> {
        PositionCache { slots: vec![(Position::start(Color::White), None); 1 << Self::SLOT_BITS].into_boxed_slice() }
    }

    fn slot(pos: &Position) -> usize {
        let key = (pos.pieces(Color::White).0 ^ pos.pieces(Color::Black).0.rotate_left(21) ^ pos.all_kings().0.rotate_left(42))
            ^ pos.turn() as u64;
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SLOT_BITS)) as usize
    }

    /// What was put for `pos`, if its slot still holds it.
    pub fn get(&self, pos: &Position) -> Option<T> {
        match &self.slots[Self::slot(pos)] {
            (held, Some(value)) if held == pos => Some(*value),
            _ => None,
        }
    }

    /// Keeps `value` for `pos`, in place of what its slot held.
    pub fn put(&mut self, pos: &Position, value: T) {
        self.slots[Self::slot(pos)] = (*pos, Some(value));
    }
}

impl<T: Copy> Default for PositionCache<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The capture counts of the positions that the searches for settled
/// threats of neighbouring positions reached last ([`PositionCache`]):
/// those searches reach many of the same positions (at 5 pieces 30-70% of
/// their capture tests), and counting their captures took most of the
/// writing of a slice. 64K slots (2.5 MB) found the most again for the
/// least time.
pub struct CaptureCounts {
    variant: Variant,
    /// Each position's count of captures (0: it must not capture).
    counts: PositionCache<u32>,
}

impl CaptureCounts {
    pub fn new(variant: Variant) -> CaptureCounts {
        CaptureCounts { variant, counts: PositionCache::new() }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The captures of `pos`, counted by [`capture_moves`] with `moves` as
    /// scratch space, or found again.
    fn of(&mut self, pos: &Position, moves: &mut Vec<Move>) -> u32 {
        self.counts.get(pos).unwrap_or_else(|| {
            let count = count_captures(pos, self.variant, moves);
            self.counts.put(pos, count);
            count
        })
    }
}

/// How a search for settled threats learns how many captures a position
/// has: counted each time, or kept for the next search.
enum Captures<'a> {
    Counted,
    Kept(&'a mut CaptureCounts),
}

impl Captures<'_> {
    /// The captures of `pos` (0: it must not capture), with `moves` as
    /// scratch space.
    fn of(&mut self, pos: &Position, variant: Variant, moves: &mut Vec<Move>) -> u32 {
        match self {
            Captures::Counted => count_captures(pos, variant, moves),
            Captures::Kept(counts) => counts.of(pos, moves),
        }
    }
}

/// The captures of `pos` (0: it must not capture), generated into `moves`.
fn count_captures(pos: &Position, variant: Variant, moves: &mut Vec<Move>) -> u32 {
    match capture_moves(pos, variant, Routes::Merge, moves) {
        true => moves.len() as u32,
        false => 0,
    }
}

/// Whether `pos` needs no stored entry of its own beyond `depth` plies and
/// within the `reads` left, less what it reads: a capture position, a quiet
/// position without a threat, or (`depth` > 0) a threat whose every move
/// leads to one that needs none beyond `depth - 1`. `moves` is scratch
/// space.
fn settles_within(
    pos: &Position,
    variant: Variant,
    depth: u32,
    reads: &mut Option<u32>,
    moves: &mut Vec<Move>,
    captures: &mut Captures,
) -> bool {
    // A move out of a threat mostly leaves the threat standing, so the side
    // to move here can capture: that test first. Its captures are counted
    // only under a bound.
    let read = match reads {
        None if has_capture(pos, variant) => return true,
        None => 0,
        Some(_) => captures.of(pos, variant, moves),
    };
    let read = if read > 0 {
        read
    } else if !is_threatened(pos, variant) {
        1
    } else if depth == 0 {
        return false;
    } else {
        generate(pos, variant, Routes::Merge, moves);
        let mut replies = Vec::new();
        return moves.iter().all(|m| settles_within(&pos.play(m), variant, depth - 1, reads, &mut replies, captures));
    };
    match reads {
        None => true,
        Some(left) => left.checked_sub(read).map(|l| *left = l).is_some(),
    }
}

/// The result of a settled threat `pos` with legal `moves`, from the
/// results `successor` gives for the positions they lead to: the best of
/// them turned around (a loss without a move). With move-limit rules this
/// takes each successor's result for fresh counters, one move too early;
/// the tables store the positions where that is wrong (docs/FORMAT.md).
/// The moves that leave the opponent no capture come first, as they read
/// one stored entry where the others resolve captures, and the search
/// stops at the first win (at 6 pieces 6% fewer blocks a probe).
pub fn threat_result<E>(
    pos: &Position,
    variant: Variant,
    moves: &[Move],
    mut successor: impl FnMut(&Position) -> Result<Wdl, E>,
) -> Result<Wdl, E> {
    let mut afters: Vec<(bool, Position)> = moves
        .iter()
        .map(|m| {
            let after = pos.play(m);
            (has_capture(&after, variant), after)
        })
        .collect();
    afters.sort_by_key(|&(capture, _)| capture);
    let mut best = Wdl::Loss;
    for (_, after) in &afters {
        best = best.max(successor(after)?.negate());
        if best == Wdl::Win {
            break;
        }
    }
    Ok(best)
}

/// The value of a settled threat `pos` with legal `moves`, from the values
/// `successor` gives for the positions they lead to: the best of them one
/// ply back (a loss in 0 plies without a move). Its result is
/// [`threat_result`]'s. Under move-limit rules, as there, each successor
/// counts for fresh counters; the `.dtc` file stores the distance of the
/// positions where this is not their value (docs/FORMAT.md).
pub fn threat_value<E>(
    pos: &Position,
    moves: &[Move],
    mut successor: impl FnMut(&Position) -> Result<Value, E>,
) -> Result<Value, E> {
    best_one_ply_back(moves.iter().map(|m| Ok((successor(&pos.play(m))?, m.converts()))))
}

/// [`threat_value`] from the successors' values, each with whether its
/// move converts, however they were found (the writer locates them all
/// ahead, to read them without waiting on memory for each).
pub fn best_one_ply_back<E>(successors: impl IntoIterator<Item = Result<(Value, bool), E>>) -> Result<Value, E> {
    let mut best = Value::new(Wdl::Loss, 0);
    for successor in successors {
        let (v, converts) = successor?;
        let v = v.back_one_ply(converts);
        if value_order(v) > value_order(best) {
            best = v;
        }
    }
    Ok(best)
}

/// The stored value of a capture position whose best capture gives `wdl`.
pub fn of_best(wdl: Wdl) -> Value {
    match wdl {
        Wdl::Win | Wdl::Loss => Value::new(wdl, 1),
        wdl => Value::new(wdl, 0),
    }
}

/// `pos` as tables index it: White to move.
pub fn white_to_move(pos: &Position) -> Position {
    if pos.turn() == Color::Black {
        pos.flip()
    } else {
        *pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Material, SliceIndex};

    /// Capture counts kept from one position to the next decide every
    /// threat as counting afresh does, under bounds that the counts decide
    /// often, in slices of kings, of men, and of both.
    #[test]
    fn kept_capture_counts_decide_as_counting_afresh() {
        let variant = Variant::Russian;
        let mut counts = CaptureCounts::new(variant);
        let (mut moves, mut again) = (Vec::new(), Vec::new());
        for (material, reads) in [("KKvKM", 8), ("KMvKK", 16), ("MMvKM", 8), ("KKvMM", 32)] {
            let index = SliceIndex::new(material.parse::<Material>().unwrap());
            let resolution = Resolution { threat_reads: Some(reads), ..Resolution::FULL };
            let (mut settled, mut threatened) = (0, 0);
            for pos in index.positions(0..index.size()) {
                let afresh = is_settled_threat(&pos, variant, resolution, &mut moves);
                assert_eq!(is_settled_threat_counting(&pos, resolution, &mut again, &mut counts), afresh, "{material}");
                settled += afresh as u32;
                threatened += (is_threatened(&pos, variant) && !has_capture(&pos, variant)) as u32;
            }
            // The bound decides: some threats settle, others not.
            assert!(settled > 0 && settled < threatened, "{material}: {settled} of {threatened}");
        }
    }
}
