//! One men configuration with both sides to move: the solver's unit of work.
//!
//! Inside a unit only kings move. Every other move is an exit whose value
//! is known before the unit is solved ([`Exits`]). Two ways to solve:
//! - [`Unit::retrograde`]: wins and losses spread back along king moves in
//!   order of distance; what is never reached is a draw.
//! - [`Unit::layered`]: when a kings-only limit binds beside a quiet limit,
//!   the state is (position, kings-only count): king moves raise the count,
//!   so the states form layers solved from the limit down to a fresh count.

use damka::index::{MenConfig, SliceIndex};
use damka::movegen::{generate, has_capture, king_retractions, Routes};
use damka::{Color, Move, Position, Value, Variant, Wdl};

/// Where the values of moves that leave a unit come from.
pub trait Exits: Sync {
    /// The value, for the side to move, of the position after the move `m`
    /// from `pos` (not a quiet king move), as seen by the mover.
    fn exit(&self, pos: &Position, m: &Move) -> Value;
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

/// No legal move: lost at once.
const NO_MOVE: Value = Value { wdl: Wdl::Loss, plies: damka::Plies(0) };

pub struct Unit<'a> {
    config: MenConfig,
    /// The kings of each position, in the frame of its slice (White to move;
    /// the second half flipped).
    kings: Vec<(u32, u32)>,
    white: &'a SliceIndex,
    black: &'a SliceIndex,
    white_len: usize,
    variant: Variant,
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

const UNSET: u16 = u16::MAX;

impl<'a> Unit<'a> {
    /// The unit of `config` (White's men, Black's men) in a slice pair:
    /// `white` indexes positions with White to move, `black` the flipped
    /// positions with Black to move.
    pub fn new(config: MenConfig, white: &'a SliceIndex, black: &'a SliceIndex, variant: Variant) -> Unit<'a> {
        let mut kings = Vec::with_capacity(white.kings_per_config() as usize + black.kings_per_config() as usize);
        white.for_each_kings(config.occupied(), |w, b| kings.push((w, b)));
        black.for_each_kings(config.flip().occupied(), |w, b| kings.push((w, b)));
        Unit { config, kings, white, black, white_len: white.kings_per_config() as usize, variant }
    }

    pub fn len(&self) -> usize {
        self.kings.len()
    }

    /// Positions with White to move come first.
    pub fn white_len(&self) -> usize {
        self.white_len
    }

    pub fn position(&self, local: usize) -> Position {
        let (w, b) = self.kings[local];
        if local < self.white_len {
            self.white.position_with(self.config, w, b)
        } else {
            self.black.position_with(self.config.flip(), w, b).map(|p| p.flip())
        }
        .expect("enumerated kings fit the slice")
    }

    fn local(&self, pos: &Position) -> usize {
        match pos.turn() {
            Color::White => self.white.kings_rank_of(pos) as usize,
            Color::Black => self.white_len + self.black.kings_rank_of(&pos.flip()) as usize,
        }
    }

    /// Solves by retrograde iteration; returns packed values (win, draw,
    /// loss with distances).
    pub fn retrograde(&self, exits: &dyn Exits) -> Vec<u16> {
        let n = self.len();
        let mut fin = vec![UNSET; n];
        let mut pending = vec![Pending { open: 0, not_lost: false, longest_loss: 0 }; n];
        let mut capture = vec![false; n];
        let mut buckets: Vec<Vec<(u32, u16)>> = Vec::new();
        self.seed(exits, &mut fin, &mut pending, &mut capture, &mut buckets);
        self.iterate(&mut fin, &mut pending, &capture, &mut buckets);
        for v in &mut fin {
            if *v == UNSET {
                *v = Value::DRAW.pack();
            }
        }
        fin
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
        let mut moves = Vec::with_capacity(64);
        for local in 0..self.len() {
            let pos = self.position(local);
            capture[local] = has_capture(&pos, self.variant);
            generate(&pos, self.variant, Routes::Merge, &mut moves);
            let mut best: Option<Value> = None;
            let mut open = 0;
            for m in &moves {
                if is_king_move(&pos, m) {
                    open += 1;
                } else {
                    let v = exits.exit(&pos, m);
                    best = Some(best.map_or(v, |b| better(b, v)));
                }
            }
            let not_lost = best.is_some_and(|b| b.wdl != Wdl::Loss);
            pending[local] = Pending { open, not_lost, longest_loss: best.map_or(0, |b| b.plies.0) };
            match best {
                Some(b) if b.wdl == Wdl::Win => push(buckets, local, b),
                _ if open > 0 => {}
                Some(b) if b.wdl == Wdl::Draw => fin[local] = b.pack(),
                b => push(buckets, local, b.unwrap_or(NO_MOVE)),
            }
        }
    }

    /// Finalises positions in order of distance and passes each result back
    /// to the positions that reach it by a king move.
    fn iterate(&self, fin: &mut [u16], pending: &mut [Pending], capture: &[bool], buckets: &mut Vec<Vec<(u32, u16)>>) {
        let mut preds = Vec::with_capacity(64);
        let mut plies = 0;
        while plies < buckets.len() {
            let bucket = std::mem::take(&mut buckets[plies]);
            for (local, packed) in bucket {
                let local = local as usize;
                if fin[local] != UNSET {
                    continue;
                }
                fin[local] = packed;
                let back = Value::unpack(packed).expect("packed by push").back_one_ply(false);
                king_retractions(&self.position(local), self.variant, &mut preds);
                for pred in &preds {
                    let p = self.local(pred);
                    if fin[p] != UNSET || capture[p] {
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
            }
            plies += 1;
        }
    }

    /// Solves over (position, kings-only count) for counts below `limit`:
    /// a king move from count k leads to count k + 1, and reaching `limit`
    /// without a man move or capture draws. Returns the values at a fresh
    /// count.
    pub fn layered(&self, exits: &dyn Exits, limit: u16) -> Vec<u16> {
        let n = self.len();
        let mut moves = Vec::with_capacity(64);
        // Per position: the best exit, and its king moves' successors.
        let mut best_exit: Vec<Option<Value>> = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n + 1);
        let mut succ: Vec<u32> = Vec::new();
        for local in 0..n {
            let pos = self.position(local);
            generate(&pos, self.variant, Routes::Merge, &mut moves);
            start.push(succ.len());
            let mut best: Option<Value> = None;
            for m in &moves {
                if is_king_move(&pos, m) {
                    succ.push(self.local(&pos.play(m)) as u32);
                } else {
                    let v = exits.exit(&pos, m);
                    best = Some(best.map_or(v, |b| better(b, v)));
                }
            }
            best_exit.push(best);
        }
        start.push(succ.len());
        let mut next = vec![Value::DRAW; n];
        let mut cur = vec![Value::DRAW; n];
        for k in (0..limit).rev() {
            for local in 0..n {
                let kings = &succ[start[local]..start[local + 1]];
                let mut best = best_exit[local];
                for &s in kings {
                    // The move that reaches the limit draws.
                    let v = if k + 1 >= limit { Value::DRAW } else { next[s as usize].back_one_ply(false) };
                    best = Some(best.map_or(v, |b| better(b, v)));
                }
                cur[local] = best.unwrap_or(NO_MOVE);
            }
            std::mem::swap(&mut cur, &mut next);
        }
        next.iter().map(|v| v.pack()).collect()
    }
}

/// A quiet move of a king: the only moves that stay inside a unit.
#[inline]
fn is_king_move(pos: &Position, m: &Move) -> bool {
    !m.is_capture() && pos.all_kings().contains(m.from())
}

fn push(buckets: &mut Vec<Vec<(u32, u16)>>, local: usize, v: Value) {
    let d = v.plies.0 as usize;
    if buckets.len() <= d {
        buckets.resize(d + 1, Vec::new());
    }
    buckets[d].push((local as u32, v.pack()));
}
