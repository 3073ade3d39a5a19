//! One men configuration with both sides to move: the solver's unit of work.
//!
//! Inside a unit only kings move. Every other move is an exit whose value
//! is known before the unit is solved ([`Exits`]). Two ways to solve:
//! - [`Unit::retrograde`]: wins and losses spread back along king moves in
//!   order of distance; what is never reached is a draw.
//! - [`Unit::layered`]: when a kings-only limit binds beside a quiet limit,
//!   the state is (position, kings-only count): king moves raise the count,
//!   so the states form layers solved from the limit down to a fresh count.

use damka::index::{DenseRays, MenConfig, SliceIndex};
use damka::movegen::{capture_moves, Routes};
use damka::{Material, Move, Position, Value, Variant, Wdl};
use rayon::prelude::*;
use std::ops::Range;

use crate::kept::prefetch;

/// Where the values of moves that leave a unit come from.
pub trait Exits: Sync {
    /// The value of position `at` for the side to move if it must capture
    /// and an earlier pass worked out what its captures are worth: the
    /// unit then generates none.
    fn known_captures(&self, at: PairIndex) -> Option<Value>;

    /// Where the captures `moves` from `pos` lead, appended to `out`, their
    /// values asked for ahead: a capture leads anywhere in a smaller slice,
    /// and reading each as it was found waited on memory for a third of a
    /// 7-piece pure pass.
    fn locate_captures(&self, pos: &Position, moves: &[Move], out: &mut Vec<Located>);

    /// The best value for the mover of the captures `located` (by
    /// [`Exits::locate_captures`]) from position `at` of the pair.
    fn captures(&self, located: &[Located], at: PairIndex) -> Value;

    /// The value, for the mover, of a man move (no capture) whose successor
    /// is position `index` of slice `material` (seen from the opponent, who
    /// moves next); `promotes` if the man became a king. The unit ranks the
    /// successor itself: it knows where it lands without building it.
    fn man_move(&self, material: Material, index: u64, promotes: bool) -> Value;

    /// Asks for the value [`Exits::man_move`] will read.
    fn prefetch_man_move(&self, material: Material, index: u64, promotes: bool);

    /// The value of a position without a legal move: a loss, in 0 plies,
    /// or in 1 where distances run to a counter reset (the missing move is
    /// the reset: a move that blocks the opponent on the limit ply draws).
    fn no_move(&self) -> Value;
}

/// Where a capture leads: a slice and an index in it, as the [`Exits`]
/// that located it names them.
#[derive(Clone, Copy, Debug)]
pub struct Located {
    pub slice: u32,
    pub index: u64,
}

/// Where a position of a unit lies in its pair: `half` 0 in the first
/// slice (White to move), 1 in the last (Black to move, flipped), at
/// `index` of that slice.
#[derive(Clone, Copy, Debug)]
pub struct PairIndex {
    pub half: usize,
    pub index: usize,
}

/// The best of two move values for the mover: the shortest win, else a
/// draw, else the longest loss.
#[inline]
pub fn better(a: Value, b: Value) -> Value {
    let key = |v: Value| match v.wdl {
        Wdl::Win => (2, u16::MAX - v.plies.0),
        Wdl::Loss => (0, v.plies.0),
        _ => (1, 0),
    };
    if key(b) > key(a) {
        b
    } else {
        a
    }
}

/// A unit's positions with one side to move, in the frame of their slice:
/// the side to move plays White, up the board. A king move leads from one
/// half to the other with the board turned, which on dense sets is
/// `reverse_bits`.
struct Half<'a> {
    index: &'a SliceIndex,
    config: MenConfig,
    /// The squares of all men (dense).
    men: u32,
    /// The first local number of the half.
    start: usize,
    /// The index of its first position in its slice.
    first: usize,
    /// The man moves of the side to move that no man blocks.
    man_moves: Vec<ManMove>,
}

/// A man move and the slice and configuration it lands in, ranked once per
/// unit so that a position only adds the rank of its kings.
struct ManMove {
    /// The square it goes to (one bit, dense).
    to: u32,
    promotes: bool,
    /// The successor's slice, seen from the opponent.
    material: Material,
    index: SliceIndex,
    /// The index of the successor configuration's first position.
    base: u64,
    /// The successor's men (dense, its frame).
    men: u32,
}

pub struct Unit<'a> {
    /// The kings of each position (own, opponent's) in the frame of its
    /// half. Positions with White to move come first.
    kings: Vec<(u32, u32)>,
    halves: [Half<'a>; 2],
    variant: Variant,
    rays: &'static DenseRays,
}

/// What the moves of a position that leave its unit are worth, and how
/// many king moves stay inside.
#[derive(Clone, Copy)]
struct Scan {
    capture: bool,
    best: Option<Value>,
    king_moves: u8,
}
/// Positions scanned together: enough captures located ahead to keep the
/// memory busy, few enough that their lines stay in cache until judged.
const SCAN_BATCH: usize = 64;

/// What [`Unit::scan_batch`] works in: a move list, the captures located
/// (where each leads), and per position that must capture, where its scan
/// goes, its local number and its captures.
#[derive(Default)]
struct ScanScratch {
    moves: Vec<Move>,
    located: Vec<Located>,
    captures: Vec<(usize, usize, Range<usize>)>,
    /// Man moves to judge: where the scan goes, and where the move leads.
    man_moves: Vec<(usize, Material, u64, bool)>,
}

/// Bookkeeping of a position in a retrograde solve that is not yet final.
#[derive(Clone, Copy)]
struct Pending {
    /// King moves whose successor is not yet known to win for the opponent.
    open: u8,
    /// Some move is known not to lose (a drawing exit, or a winning exit
    /// waiting in its bucket): the position is no loss.
    not_lost: bool,
    /// The longest loss among the moves resolved so far.
    longest_loss: u16,
}

/// A position not yet final, and one not yet final that must capture (so
/// king moves do not reach it). Neither is a packed value.
const UNSET: u16 = u16::MAX;
const UNSET_CAPTURE: u16 = u16::MAX - 1;

/// Bucket entries finalised together before their predecessors are
/// visited: their predecessors' state is fetched meanwhile.
const BATCH: usize = 256;

impl<'a> Unit<'a> {
    /// The unit of `config` (White's men, Black's men) in a slice pair:
    /// `white` indexes positions with White to move, `black` the flipped
    /// positions with Black to move.
    pub fn new(config: MenConfig, white: &'a SliceIndex, black: &'a SliceIndex, variant: Variant) -> Unit<'a> {
        let mut kings = Vec::with_capacity(white.kings_per_config() as usize + black.kings_per_config() as usize);
        white.for_each_kings(config.occupied(), |w, b| kings.push((w, b)));
        black.for_each_kings(config.flip().occupied(), |w, b| kings.push((w, b)));
        let rays = DenseRays::get();
        let half = |index: &'a SliceIndex, config: MenConfig, start| Half {
            index,
            config,
            men: config.occupied(),
            start,
            first: (index.config_rank(config) * index.kings_per_config()) as usize,
            man_moves: man_moves(config, index.material(), rays),
        };
        let halves = [half(white, config, 0), half(black, config.flip(), white.kings_per_config() as usize)];
        Unit { kings, halves, variant, rays }
    }

    /// Positions in the unit.
    pub fn positions(&self) -> usize {
        self.kings.len()
    }

    /// The half of `local` and its kings (own, opponent's).
    #[inline]
    fn at(&self, local: usize) -> (&Half<'a>, &Half<'a>, u32, u32) {
        let (own, opp) = self.kings[local];
        if local < self.halves[1].start {
            (&self.halves[0], &self.halves[1], own, opp)
        } else {
            (&self.halves[1], &self.halves[0], own, opp)
        }
    }

    /// Where the position `local` lies in its pair.
    pub fn pair_index(&self, local: usize) -> PairIndex {
        let number = usize::from(local >= self.halves[1].start);
        let half = &self.halves[number];
        PairIndex { half: number, index: half.first + local - half.start }
    }

    /// The position `local` as its slice stores it: the side to move as
    /// White (positions with Black to move are flipped).
    pub fn slice_position(&self, local: usize) -> Position {
        let (half, _, own, opp) = self.at(local);
        half.index.position_with(half.config, own, opp).expect("enumerated kings fit the slice")
    }

    /// Appends to `out` the scan of each position of `locals`: what its
    /// moves that leave the unit are worth, and how many king moves it
    /// has. The captures of all of them are located first and judged
    /// after, so that their values are read from memory asked for ahead.
    fn scan_batch(&self, locals: Range<usize>, exits: &dyn Exits, scratch: &mut ScanScratch, out: &mut Vec<Scan>) {
        scratch.located.clear();
        scratch.captures.clear();
        scratch.man_moves.clear();
        for local in locals {
            match self.scan(local, exits, &mut scratch.moves, &mut scratch.man_moves, out.len()) {
                Ok(scan) => out.push(scan),
                Err(pos) => {
                    let start = scratch.located.len();
                    exits.locate_captures(&pos, &scratch.moves, &mut scratch.located);
                    scratch.captures.push((out.len(), local, start..scratch.located.len()));
                    out.push(Scan { capture: true, best: None, king_moves: 0 });
                }
            }
        }
        for (k, local, located) in scratch.captures.drain(..) {
            out[k].best = Some(exits.captures(&scratch.located[located], self.pair_index(local)));
        }
        for &(k, material, index, promotes) in &scratch.man_moves {
            let v = exits.man_move(material, index, promotes);
            out[k].best = Some(out[k].best.map_or(v, |b| better(b, v)));
        }
    }

    /// The scan of `local` ([`Unit::scan_batch`]), or, if it must capture
    /// and its captures are not known yet, the position with its captures
    /// in `moves`. Quiet positions are done on dense sets: no move list, no
    /// successor position, only the rank of the kings after a man move.
    fn scan(
        &self,
        local: usize,
        exits: &dyn Exits,
        moves: &mut Vec<Move>,
        man_moves: &mut Vec<(usize, Material, u64, bool)>,
        k: usize,
    ) -> Result<Scan, Position> {
        let (half, _, own, opp) = self.at(local);
        let at = self.pair_index(local);
        if let Some(best) = exits.known_captures(at) {
            return Ok(Scan { capture: true, best: Some(best), king_moves: 0 });
        }
        let pos = half.index.position_with(half.config, own, opp).expect("enumerated kings fit the slice");
        if capture_moves(&pos, self.variant, Routes::Merge, moves) {
            return Err(pos);
        }
        let occupied = half.men | own | opp;
        // Seen from the opponent, who moves next: the board turned.
        let their_kings = opp.reverse_bits();
        for mm in &half.man_moves {
            if mm.to & occupied != 0 {
                continue;
            }
            let mine = if mm.promotes { own | mm.to } else { own };
            let index = mm.base + mm.index.kings_rank(mm.men, their_kings, mine.reverse_bits());
            exits.prefetch_man_move(mm.material, index, mm.promotes);
            man_moves.push((k, mm.material, index, mm.promotes));
        }
        let flying = self.variant.rules().flying_kings;
        let mut king_moves = 0;
        for_each_bit(own, |sq| king_moves += self.rays.king_steps(sq, occupied, flying).count_ones());
        Ok(Scan { capture: false, best: None, king_moves: king_moves as u8 })
    }

    /// Calls `f` with the local number of every position a king move of
    /// the side to move at `local` leads to.
    fn king_successors(&self, local: usize, mut f: impl FnMut(usize)) {
        let (half, other, own, opp) = self.at(local);
        let occupied = half.men | own | opp;
        let flying = self.variant.rules().flying_kings;
        let their_kings = opp.reverse_bits();
        for_each_bit(own, |from| {
            let rest = own & !(1 << from);
            for_each_bit(self.rays.king_steps(from, occupied, flying), |to| {
                let mine = (rest | 1 << to).reverse_bits();
                f(other.start + other.index.kings_rank(other.men, their_kings, mine) as usize);
            });
        });
    }

    /// Calls `f` with the local number of every position from which the
    /// side that just moved reached `local` by a king move (it is to move
    /// there, so the position is in the other half, the board turned).
    fn king_predecessors(&self, local: usize, mut f: impl FnMut(usize)) {
        let (_, other, own, opp) = self.at(local);
        let movers = opp.reverse_bits();
        let stayed = own.reverse_bits();
        let occupied = other.men | movers | stayed;
        let flying = self.variant.rules().flying_kings;
        for_each_bit(movers, |to| {
            let rest = movers & !(1 << to);
            // A king move is its own reverse: it came from where it could go.
            for_each_bit(self.rays.king_steps(to, occupied, flying), |from| {
                let before = rest | 1 << from;
                f(other.start + other.index.kings_rank(other.men, before, stayed) as usize);
            });
        });
    }

    /// Solves by retrograde iteration; returns packed values (win, draw,
    /// loss with distances) and which positions must capture.
    pub fn retrograde(&self, exits: &dyn Exits) -> (Vec<u16>, Vec<bool>) {
        let n = self.positions();
        let mut fin = vec![UNSET; n];
        let mut pending = vec![Pending { open: 0, not_lost: false, longest_loss: 0 }; n];
        let mut capture = vec![false; n];
        let mut buckets: Vec<Vec<(u32, u16)>> = Vec::new();
        self.seed(exits, &mut fin, &mut pending, &mut capture, &mut buckets);
        self.iterate(&mut fin, &mut pending, &mut buckets);
        for v in &mut fin {
            if *v >= UNSET_CAPTURE {
                *v = Value::DRAW.pack();
            }
        }
        (fin, capture)
    }

    /// Resolves captures and every move that leaves the unit; positions
    /// whose value is settled (or has a best exit so far) go into the
    /// distance buckets.
    fn seed(
        &self,
        exits: &dyn Exits,
        fin: &mut [u16],
        pending: &mut [Pending],
        capture: &mut [bool],
        buckets: &mut Vec<Vec<(u32, u16)>>,
    ) {
        // Scans are independent: spread them over threads. This matters
        // for slices without men, which are one unit per pair (a unit of a
        // slice with men is small, and units already run in parallel).
        let n = self.positions();
        let scans: Vec<Scan> = (0..n.div_ceil(SCAN_BATCH))
            .into_par_iter()
            .with_min_len((1 << 14) / SCAN_BATCH)
            .map_init(ScanScratch::default, |scratch, b| {
                let mut out = Vec::with_capacity(SCAN_BATCH);
                self.scan_batch(b * SCAN_BATCH..n.min((b + 1) * SCAN_BATCH), exits, scratch, &mut out);
                out
            })
            .flatten_iter()
            .collect();
        for (local, Scan { capture: c, best, king_moves: open }) in scans.into_iter().enumerate() {
            capture[local] = c;
            if c {
                fin[local] = UNSET_CAPTURE;
            }
            let not_lost = best.is_some_and(|b| b.wdl != Wdl::Loss);
            pending[local] = Pending { open, not_lost, longest_loss: best.map_or(0, |b| b.plies.0) };
            match best {
                Some(b) if b.wdl == Wdl::Win => push(buckets, local, b),
                _ if open > 0 => {}
                Some(b) if b.wdl == Wdl::Draw => fin[local] = b.pack(),
                b => push(buckets, local, b.unwrap_or_else(|| exits.no_move())),
            }
        }
    }

    /// Finalises positions in order of distance and passes each result back
    /// to the positions that reach it by a king move.
    ///
    /// Most of a large unit's time goes to reading the state of those
    /// predecessors, scattered over the unit: so a batch of entries is
    /// finalised first, its predecessors listed and their state prefetched,
    /// and only then visited. The result does not depend on the order
    /// within a distance: a predecessor final already is skipped either way,
    /// and one finalised in the same batch only gains entries that are
    /// skipped when popped.
    fn iterate(&self, fin: &mut [u16], pending: &mut [Pending], buckets: &mut Vec<Vec<(u32, u16)>>) {
        let mut plies = 0;
        let mut predecessors: Vec<u32> = Vec::new();
        let mut spans: Vec<(usize, Value)> = Vec::new();
        while plies < buckets.len() {
            let bucket = std::mem::take(&mut buckets[plies]);
            for batch in bucket.chunks(BATCH) {
                predecessors.clear();
                spans.clear();
                for &(local, packed) in batch {
                    let local = local as usize;
                    if fin[local] < UNSET_CAPTURE {
                        continue;
                    }
                    fin[local] = packed;
                    let back = Value::unpack(packed).expect("packed by push").back_one_ply(false);
                    self.king_predecessors(local, |p| {
                        prefetch(&fin[p]);
                        if back.wdl == Wdl::Loss {
                            prefetch(&pending[p]);
                        }
                        predecessors.push(p as u32);
                    });
                    spans.push((predecessors.len(), back));
                }
                let mut start = 0;
                for &(end, back) in &spans {
                    for &p in &predecessors[start..end] {
                        let p = p as usize;
                        if fin[p] != UNSET {
                            continue;
                        }
                        match back.wdl {
                            Wdl::Win => push(buckets, p, back),
                            Wdl::Loss => {
                                let pend = &mut pending[p];
                                pend.open -= 1;
                                pend.longest_loss = pend.longest_loss.max(back.plies.0);
                                if pend.open == 0 && !pend.not_lost {
                                    push(buckets, p, Value::new(Wdl::Loss, pend.longest_loss));
                                }
                            }
                            _ => unreachable!("only wins and losses are propagated"),
                        }
                    }
                    start = end;
                }
            }
            plies += 1;
        }
    }

    /// Solves over (position, kings-only count) for counts below `limit`:
    /// a king move from count k leads to count k + 1, and reaching `limit`
    /// without a man move or capture draws. Returns the values at a fresh
    /// count and which positions must capture.
    pub fn layered(&self, exits: &dyn Exits, limit: u32) -> (Vec<u16>, Vec<bool>) {
        let n = self.positions();
        let (mut scratch, mut scans) = (ScanScratch::default(), Vec::with_capacity(SCAN_BATCH));
        let mut capture = Vec::with_capacity(n);
        // Per position: the best exit, and its king moves' successors.
        let mut best_exit: Vec<u16> = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n + 1);
        let mut succ: Vec<u32> = Vec::new();
        for local in 0..n {
            if local % SCAN_BATCH == 0 {
                scans.clear();
                self.scan_batch(local..n.min(local + SCAN_BATCH), exits, &mut scratch, &mut scans);
            }
            start.push(succ.len() as u32);
            let scan = scans[local % SCAN_BATCH];
            capture.push(scan.capture);
            if !scan.capture {
                self.king_successors(local, |s| succ.push(s as u32));
            }
            // Without a move that leaves, the position is worth no move at
            // all: below every king move (a loss in 2 plies or more), so it
            // stands only where there is none.
            best_exit.push(Score::of(scan.best.unwrap_or_else(|| exits.no_move())));
        }
        start.push(succ.len() as u32);
        // Who reaches each position by a king move: a position's value can
        // change from one count to the next only where a successor's did.
        let (pred_start, preds) = invert(&start, &succ);
        // `next[s]`: what moving to `s` is worth to the mover at the count
        // below. At the last count a king move reaches the limit: a draw.
        let mut next = vec![Score::DRAW; n];
        let mut values = vec![Score::NONE; n];
        // The positions to work out at this count, as bits: every one at
        // the last count; below it, those with a successor that changed.
        let mut dirty = vec![u64::MAX; n.div_ceil(64)];
        let mut updates: Vec<(u32, u16)> = Vec::new();
        for _ in 0..limit {
            updates.clear();
            for (word, bits) in dirty.iter_mut().enumerate() {
                for_each_bit64(std::mem::take(bits), |bit| {
                    let local = word * 64 + bit as usize;
                    if local < n {
                        let kings = &succ[start[local] as usize..start[local + 1] as usize];
                        let best = kings.iter().fold(best_exit[local], |b, &s| b.max(next[s as usize]));
                        if best != values[local] {
                            updates.push((local as u32, best));
                        }
                    }
                });
            }
            // Below the last count every layer is the same function of the
            // one above: once a layer repeats, so do all lower ones.
            if updates.is_empty() {
                break;
            }
            for &(local, best) in &updates {
                let local = local as usize;
                values[local] = best;
                let back = Score::back(best);
                if back != next[local] {
                    next[local] = back;
                    for &p in &preds[pred_start[local] as usize..pred_start[local + 1] as usize] {
                        dirty[p as usize / 64] |= 1 << (p % 64);
                    }
                }
            }
        }
        (values.iter().map(|&s| Score::value(s).pack()).collect(), capture)
    }
}

/// A move value as a number that grows with its worth to the mover (the
/// order of [`better`]), so that the best move is a maximum: losses by
/// length, then a draw, then wins, shortest first. Only pure results occur
/// in a solve.
struct Score;

impl Score {
    /// No move yet: below every real move value (a king move loses in 2
    /// plies or more).
    const NONE: u16 = 0;
    const DRAW: u16 = 0x4000;
    const WIN: u16 = 0x8000;
    const MAX: u16 = 0x3FFF;

    #[inline]
    fn of(v: Value) -> u16 {
        debug_assert!(v.plies.0 < Score::MAX);
        match v.wdl {
            Wdl::Win => Score::WIN | (Score::MAX - v.plies.0),
            Wdl::Loss => v.plies.0,
            _ => Score::DRAW,
        }
    }

    #[inline]
    fn value(s: u16) -> Value {
        match s {
            Score::DRAW => Value::DRAW,
            s if s >= Score::WIN => Value::new(Wdl::Win, Score::MAX - (s & Score::MAX)),
            s => Value::new(Wdl::Loss, s),
        }
    }

    /// [`Value::back_one_ply`] without a conversion.
    #[inline]
    fn back(s: u16) -> u16 {
        Score::of(Score::value(s).back_one_ply(false))
    }
}

/// The man moves of the side to move of `config` (in its slice's frame,
/// `material`) that no man blocks, with where each lands.
fn man_moves(config: MenConfig, material: Material, rays: &DenseRays) -> Vec<ManMove> {
    let (own, opp) = (config.white(), config.black());
    let mut out = Vec::new();
    for_each_bit(own, |from| {
        // A man steps like a short king, forward only (to higher numbers).
        let ahead = !((2u32 << from) - 1);
        for_each_bit(rays.king_steps(from, config.occupied(), false) & ahead, |to| {
            let promotes = to >= 28;
            let mut moved = own & !(1 << from);
            if !promotes {
                moved |= 1 << to;
            }
            // Seen from the opponent, who moves next.
            let after = MenConfig::new(opp.reverse_bits(), moved.reverse_bits());
            let material = if promotes {
                Material::new(material.opp_kings, material.opp_men, material.own_kings + 1, material.own_men - 1)
            } else {
                material.swap()
            };
            let index = SliceIndex::new(material);
            let base = index.config_rank(after) * index.kings_per_config();
            out.push(ManMove { to: 1 << to, promotes, material, index, base, men: after.occupied() });
        });
    });
    out
}

/// The reverse of a graph in compressed rows (`succ[start[v]..start[v +
/// 1]]` are the successors of `v`): the same form, predecessors in
/// ascending order.
fn invert(start: &[u32], succ: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = start.len() - 1;
    let mut pred_start = vec![0u32; n + 1];
    for &s in succ {
        pred_start[s as usize + 1] += 1;
    }
    for v in 0..n {
        pred_start[v + 1] += pred_start[v];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; succ.len()];
    for v in 0..n {
        for &s in &succ[start[v] as usize..start[v + 1] as usize] {
            preds[fill[s as usize] as usize] = v as u32;
            fill[s as usize] += 1;
        }
    }
    (pred_start, preds)
}

/// Calls `f` with each bit of `set`, lowest first.
#[inline]
fn for_each_bit64(mut set: u64, mut f: impl FnMut(u32)) {
    while set != 0 {
        f(set.trailing_zeros());
        set &= set - 1;
    }
}

/// Calls `f` with each square (dense number) of `set`, lowest first.
#[inline]
fn for_each_bit(set: u32, f: impl FnMut(u32)) {
    for_each_bit64(set.into(), f)
}

fn push(buckets: &mut Vec<Vec<(u32, u16)>>, local: usize, v: Value) {
    let d = v.plies.0 as usize;
    if buckets.len() <= d {
        buckets.resize(d + 1, Vec::new());
    }
    buckets[d].push((local as u32, v.pack()));
}
