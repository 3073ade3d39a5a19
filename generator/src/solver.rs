//! The retrograde solver of one slice pair.
//!
//! A slice and its colour-swapped twin (KKMvK and KvKKM) are solved
//! together: a quiet move leads from one to the other. The work is split by
//! men configuration. Within a configuration only kings move, and those
//! moves can be undone, so each configuration is solved by retrograde
//! iteration over its king placements with both sides to move (a *unit*).
//! Everything that leaves the unit is an exit whose value is already known:
//! captures and promotions lead to solved slices, man moves to
//! configurations that are further advanced and solved first.
//!
//! Stages per unit: [`Unit::seed`] resolves captures and exits,
//! [`Unit::iterate`] propagates wins and losses back along king moves in
//! order of distance; what is never reached is a draw.

use std::collections::HashMap;
use std::sync::Arc;

use damka::index::{MenConfig, SliceIndex};
use damka::movegen::{generate, has_capture, king_retractions, Routes};
use damka::{Color, Material, Position, Value, Variant, Wdl};
use rayon::prelude::*;

/// A solved slice: packed [`Value`]s in index order.
pub struct Solved {
    pub index: SliceIndex,
    pub values: Vec<u16>,
}

impl Solved {
    /// The value of `pos`, White to move and of this slice.
    #[inline]
    pub fn value(&self, pos: &Position) -> Value {
        let i = self.index.index_unchecked(pos);
        Value::unpack(self.values[i as usize]).expect("solver writes valid values")
    }
}

/// Slices solved so far, by material.
pub type Known = HashMap<Material, Arc<Solved>>;

/// Solved slices by a dense material code, for lookups in the hot loop.
struct Tables<'a> {
    slots: Vec<Option<&'a Solved>>,
}

impl<'a> Tables<'a> {
    fn code(m: Material) -> usize {
        let c = |n: u8| n as usize;
        ((c(m.own_kings) * 13 + c(m.own_men)) * 13 + c(m.opp_kings)) * 13 + c(m.opp_men)
    }

    /// `known`, with the pair being solved on top.
    fn new(known: &'a Known, pair: &[&'a Solved]) -> Tables<'a> {
        let mut slots = vec![None; 13 * 13 * 13 * 13];
        for s in known.values().map(|s| &**s).chain(pair.iter().copied()) {
            slots[Tables::code(s.index.material())] = Some(s);
        }
        Tables { slots }
    }

    /// The value for the side to move of any position reached from the
    /// slice being solved.
    #[inline]
    fn lookup(&self, pos: &Position) -> Value {
        let pos = if pos.turn() == Color::Black { pos.flip() } else { *pos };
        let material = Material::of(&pos);
        if material.own_kings + material.own_men == 0 {
            return Value::new(Wdl::Loss, 0);
        }
        self.slots[Tables::code(material)]
            .unwrap_or_else(|| panic!("slice {material} is solved before it is needed"))
            .value(&pos)
    }
}

/// What a distance counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Plies to the next conversion (capture or promotion) or the end of the
    /// game: what the tables store.
    Conversion,
    /// Plies to the end of the game, through conversions: what endgame books
    /// quote ("wins in 13 moves"). Used to check published figures.
    End,
}

/// How to solve.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub variant: Variant,
    pub metric: Metric,
}

/// Solves `material` and its twin. Returns one or two solved slices.
pub fn solve_pair(material: Material, opts: Options, known: &Known, on_level: &(dyn Fn(u64) + Sync)) -> Vec<Solved> {
    let twin = material.swap();
    let mut slices = vec![new_solved(material)];
    if twin != material {
        slices.push(new_solved(twin));
    }
    let index = SliceIndex::new(material);

    // Units by progress level, most advanced first: man moves only go up.
    let mut levels: Vec<Vec<MenConfig>> = Vec::new();
    for r in 0..index.configs() {
        let config = index.config(r);
        // A symmetric slice holds each unit twice (as a configuration and
        // as its flip); solve it once.
        if twin == material && index.config_rank(config.flip()) < r {
            continue;
        }
        let level = config.progress() as usize;
        if levels.len() <= level {
            levels.resize(level + 1, Vec::new());
        }
        levels[level].push(config);
    }

    for configs in levels.iter().rev().filter(|l| !l.is_empty()) {
        let results: Vec<(MenConfig, Vec<u16>)> = {
            let pair: Vec<&Solved> = slices.iter().collect();
            let tables = Tables::new(known, &pair);
            configs
                .par_iter()
                .map(|&config| {
                    let unit = Unit::new(config, &pair, opts);
                    let values = unit.solve(&tables);
                    (config, values)
                })
                .collect()
        };
        let mut positions = 0;
        for (config, values) in results {
            let white_len = slices[0].index.kings_per_config() as usize;
            let w_start = slices[0].index.config_rank(config) as usize * white_len;
            slices[0].values[w_start..w_start + white_len].copy_from_slice(&values[..white_len]);
            let b = slices.len() - 1;
            let flipped = config.flip();
            let black_len = slices[b].index.kings_per_config() as usize;
            let b_start = slices[b].index.config_rank(flipped) as usize * black_len;
            slices[b].values[b_start..b_start + black_len].copy_from_slice(&values[white_len..]);
            positions += values.len() as u64;
        }
        on_level(positions);
    }
    slices
}

fn new_solved(material: Material) -> Solved {
    let index = SliceIndex::new(material);
    let values = vec![0; index.size() as usize];
    Solved { index, values }
}

/// Bookkeeping of a position in a unit that is not yet final.
#[derive(Clone, Copy)]
struct Pending {
    /// King moves whose successor is not yet known to win for the opponent.
    open: u8,
    /// Some move is known not to lose (a drawing move, or a winning exit
    /// that is waiting in its bucket): the position is no loss.
    not_lost: bool,
    /// The longest loss among the moves resolved so far.
    longest_loss: u16,
}

const UNSET: u16 = u16::MAX;

/// One men configuration with both sides to move: White to move first (in
/// the order of the first slice of the pair), then Black to move (in the
/// order of the second slice, i.e. flipped).
struct Unit<'a> {
    config: MenConfig,
    /// The kings of each position, in the frame of its slice (White to move;
    /// the second half flipped).
    kings: Vec<(u32, u32)>,
    white: &'a SliceIndex,
    black: &'a SliceIndex,
    white_len: usize,
    variant: Variant,
    metric: Metric,
}

impl<'a> Unit<'a> {
    fn new(config: MenConfig, pair: &[&'a Solved], opts: Options) -> Unit<'a> {
        let white = &pair[0].index;
        let black = &pair[pair.len() - 1].index;
        let mut kings = Vec::with_capacity(white.kings_per_config() as usize + black.kings_per_config() as usize);
        white.for_each_kings(config.occupied(), |w, b| kings.push((w, b)));
        black.for_each_kings(config.flip().occupied(), |w, b| kings.push((w, b)));
        Unit {
            config,
            kings,
            white,
            black,
            white_len: white.kings_per_config() as usize,
            variant: opts.variant,
            metric: opts.metric,
        }
    }

    fn len(&self) -> usize {
        self.kings.len()
    }

    fn position(&self, local: usize) -> Position {
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

    fn solve(&self, tables: &Tables) -> Vec<u16> {
        let n = self.len();
        let mut fin = vec![UNSET; n];
        let mut pending = vec![Pending { open: 0, not_lost: false, longest_loss: 0 }; n];
        let mut capture = vec![false; n];
        let mut buckets: Vec<Vec<(u32, u16)>> = Vec::new();
        self.seed(tables, &mut fin, &mut pending, &mut capture, &mut buckets);
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
        tables: &Tables,
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
            let mut best_win: Option<u16> = None;
            let mut draw = false;
            let mut longest_loss = 0;
            let mut open = 0;
            for m in &moves {
                let is_king = pos.all_kings().contains(m.from());
                if is_king && !m.is_capture() {
                    open += 1;
                    continue;
                }
                let converts = (m.is_capture() || m.promotes()) && self.metric == Metric::Conversion;
                let v = tables.lookup(&pos.play(m)).back_one_ply(converts);
                match v.wdl {
                    Wdl::Win => best_win = Some(best_win.map_or(v.plies.0, |b| b.min(v.plies.0))),
                    Wdl::Draw => draw = true,
                    Wdl::Loss => longest_loss = longest_loss.max(v.plies.0),
                    _ => unreachable!("pure values only"),
                }
            }
            pending[local] = Pending { open, not_lost: draw || best_win.is_some(), longest_loss };
            let settled = if let Some(w) = best_win {
                Some(Value::new(Wdl::Win, w))
            } else if open > 0 {
                None
            } else if draw {
                fin[local] = Value::DRAW.pack();
                None
            } else {
                Some(Value::new(Wdl::Loss, longest_loss))
            };
            if let Some(v) = settled {
                push(buckets, local, v);
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
                let value = Value::unpack(packed).expect("packed by push");
                let pos = self.position(local);
                king_retractions(&pos, self.variant, &mut preds);
                for pred in &preds {
                    let p = self.local(pred);
                    if fin[p] != UNSET || capture[p] {
                        continue;
                    }
                    let back = value.back_one_ply(false);
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
}

fn push(buckets: &mut Vec<Vec<(u32, u16)>>, local: usize, v: Value) {
    let d = v.plies.0 as usize;
    if buckets.len() <= d {
        buckets.resize(d + 1, Vec::new());
    }
    buckets[d].push((local as u32, v.pack()));
}
