//! The solver of one slice pair.
//!
//! A slice and its colour-swapped twin (KKMvK and KvKKM) are solved
//! together: a quiet move leads from one to the other. The work is split by
//! men configuration ([`crate::unit`]); configurations are solved most
//! advanced first, since man moves only go forward, and all those of one
//! level in parallel.
//!
//! Under a rule set a pair is solved twice: once for pure values, once for
//! the distance to the next counter reset with exits valued under the rules.
//! [`Verdicts`] then sets each position's rule value from the two: a win
//! whose reset comes within the limit is a win, a longer one a cursed win.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use damka::index::{MenConfig, SliceIndex};
use damka::resolve::{of_best, white_to_move};
use damka::rules::{lone_kings_on_main_road, Binding};
use damka::{Material, Move, Position, RuleSet, Value, Variant, Wdl};
use anyhow::{bail, Result};
use rayon::prelude::*;

use crate::graph;
use crate::kept::{Finished, SliceValues, Values};
use crate::unit::{better, Exits, Located, PairIndex, Unit};

/// A solved slice: packed [`Value`]s in index order, and which positions
/// must capture (the files leave those "don't care").
pub struct Solved {
    pub index: SliceIndex,
    pub values: Vec<u16>,
    pub captures: Captures,
}

impl Solved {
    pub(crate) fn new(material: Material) -> Solved {
        let index = SliceIndex::new(material);
        let values = vec![0; index.size() as usize];
        Solved { captures: Captures::new(values.len()), index, values }
    }

    /// A copy (the audit keeps pure values where no rule set makes others).
    pub fn copy(&self) -> Solved {
        Solved { index: self.index.clone(), values: self.values.clone(), captures: self.captures.clone() }
    }

    /// The value of `pos`, White to move and of this slice.
    #[inline]
    pub fn value(&self, pos: &Position) -> Value {
        self.at(self.index.index_unchecked(pos))
    }

    /// The value at `index`.
    #[inline]
    pub fn at(&self, index: u64) -> Value {
        Value::unpack(self.values[index as usize]).expect("solver writes valid values")
    }
}

/// One bit per position of a slice: its side to move must capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captures(Vec<u64>);

impl Captures {
    pub fn new(positions: usize) -> Captures {
        Captures(vec![0; positions.div_ceil(64)])
    }

    /// From bits, position 0 the lowest bit of the first word.
    pub fn from_words(words: Vec<u64>) -> Captures {
        Captures(words)
    }

    /// The bits, position 0 the lowest bit of the first word.
    pub fn words(&self) -> &[u64] {
        &self.0
    }

    #[inline]
    pub fn get(&self, index: usize) -> bool {
        self.0[index / 64] >> (index % 64) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, index: usize) {
        self.0[index / 64] |= 1 << (index % 64);
    }
}

/// Slices solved so far, by material, with their whole values (in-memory
/// builds and tests; a build keeps results alone, [`crate::kept`]).
pub type Known = HashMap<Material, Arc<Solved>>;

/// What a distance counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Plies to the next counter reset (capture or promotion; also a man
    /// move where only a kings-only limit applies) or the end of the game:
    /// what the tables store.
    Conversion,
    /// Plies to the end of the game, through conversions: what endgame books
    /// quote ("wins in 13 moves"). Pure values only; used to check
    /// published figures.
    End,
}

/// How to solve.
#[derive(Clone, Debug)]
pub struct Options {
    pub variant: Variant,
    pub metric: Metric,
    /// The draw rules; `None` (or an empty set) for pure values.
    pub rules: Option<Arc<RuleSet>>,
}

impl Options {
    pub fn pure(variant: Variant) -> Options {
        Options { variant, metric: Metric::Conversion, rules: None }
    }

    /// The rules of the second pass; `None` for pure values.
    fn rule_pass(&self) -> Option<&Arc<RuleSet>> {
        self.rules.as_ref().filter(|r| !r.is_empty())
    }

    /// How often a pair is solved: the pure pass, and the rule pass under
    /// a rule set. Each pass reports every position of the pair once.
    pub fn passes(&self) -> u64 {
        1 + self.rule_pass().is_some() as u64
    }
}

/// Solves `material` and its twin. Returns one or two solved slices with
/// their final values (rule values under a rule set).
pub fn solve_pair(material: Material, opts: &Options, known: &dyn Finished, on_level: &(dyn Fn(u64) + Sync)) -> Vec<Solved> {
    solve_pair_resumable(material, opts, known, on_level, &mut NoCheckpoint, Keep::Finals)
        .expect("solving in memory cannot fail")
        .finals
}

/// What a pair's solution keeps of its pure pass under a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The final values alone. The rule pass needs only the pure results
    /// (two bits a position, not a packed value of two bytes), so the pure
    /// values are dropped before it: a third less memory in flight.
    Finals,
    /// The pure values too (the audit compares them with the rule values).
    Both,
}

/// The solution of a slice pair.
pub struct PairSolution {
    /// The values the tables store: rule values under a rule set, pure
    /// values (distances to conversion) otherwise.
    pub finals: Vec<Solved>,
    /// Pure values beside the rule values: only under a rule set, with
    /// [`Keep::Both`].
    pub pure: Option<Vec<Solved>>,
    /// Wall seconds of the pure pass and of the rule pass (0 without one):
    /// what rule-aware generation costs over pure.
    pub seconds: [f64; 2],
}

/// Solves `material` and its twin for pure values and, under a rule set,
/// for rule values too (the audit compares the two).
pub fn solve_pair_both(material: Material, opts: &Options, known: &dyn Finished, on_level: &(dyn Fn(u64) + Sync)) -> PairSolution {
    solve_pair_resumable(material, opts, known, on_level, &mut NoCheckpoint, Keep::Both).expect("solving in memory cannot fail")
}

/// Solves `material` and its twin, keeping each finished level in
/// `checkpoint` and taking the levels an earlier, interrupted run kept
/// there instead of solving them again. Fails only where the checkpoint
/// does.
pub fn solve_pair_resumable(
    material: Material,
    opts: &Options,
    known: &dyn Finished,
    on_level: &(dyn Fn(u64) + Sync),
    checkpoint: &mut dyn Checkpoint,
    keep: Keep,
) -> Result<PairSolution> {
    let started = Instant::now();
    let captures = (opts.rule_pass().is_some() && opts.metric == Metric::Conversion).then(|| CaptureResults::new(material));
    let captures = captures.as_ref();
    let pure = solve(material, opts, known, None, Binding::Quiet, captures, on_level, Pass::Pure, checkpoint)?;
    let pure_seconds = started.elapsed().as_secs_f64();
    Ok(match opts.rule_pass() {
        None => PairSolution { finals: pure, pure: None, seconds: [pure_seconds, 0.0] },
        Some(rules) => {
            let started = Instant::now();
            let results: Vec<PureResults> = pure.iter().map(PureResults::of).collect();
            let pure = (keep == Keep::Both).then_some(pure);
            let binding = rules.binding(material);
            let verdicts = Verdicts { rules, pure: &results, binding };
            let finals = solve(material, opts, known, Some(&verdicts), binding, captures, on_level, Pass::Rules, checkpoint)?;
            PairSolution { finals, pure, seconds: [pure_seconds, started.elapsed().as_secs_f64()] }
        }
    })
}

/// A slice's pure results, two bits a position: all the rule pass needs of
/// its pure values (whether a position is won or lost at all).
struct PureResults {
    bits: Vec<u64>,
}

impl PureResults {
    const PER_WORD: usize = 32;

    fn of(solved: &Solved) -> PureResults {
        let bits = solved
            .values
            .par_chunks(Self::PER_WORD)
            .map(|chunk| {
                chunk.iter().enumerate().fold(0u64, |word, (i, &packed)| {
                    word | two_bits(Value::unpack(packed).expect("solver writes valid values").wdl.pure()) << (2 * i)
                })
            })
            .collect();
        PureResults { bits }
    }

    /// The pure result at `index`: a win, a loss or a draw.
    #[inline]
    fn at(&self, index: usize) -> Wdl {
        of_two_bits(self.bits[index / Self::PER_WORD] >> (2 * (index % Self::PER_WORD))).expect("every position has a result")
    }
}

/// A win, a draw or a loss in two bits (0 is none of them).
#[inline]
fn two_bits(wdl: Wdl) -> u64 {
    match wdl {
        Wdl::Win => 1,
        Wdl::Loss => 2,
        _ => 3,
    }
}

/// The result of the low two bits of `bits`, if they hold one.
#[inline]
fn of_two_bits(bits: u64) -> Option<Wdl> {
    match bits & 3 {
        1 => Some(Wdl::Win),
        2 => Some(Wdl::Loss),
        3 => Some(Wdl::Draw),
        _ => None,
    }
}

/// What the rule pass makes of each capture position of a pair, worked out
/// by the pure pass. A capture leaves the pair for a slice solved before,
/// which both passes read alike but for its cursed wins and blessed losses
/// (a win or a loss in one, a draw in the other), and a capture resets the
/// distance. So the rule pass takes a capture position's value from here
/// instead of generating its captures and indexing where they lead again:
/// two thirds of the time of a pass over a pair of kings alone. Two bits
/// a position (0 where not known: a level restored from a checkpoint, or
/// a quiet position), a quarter byte beside the pair's values.
pub struct CaptureResults {
    /// The pair's slices, White to move first; words of 32 positions.
    slices: Vec<Vec<AtomicU64>>,
}

impl CaptureResults {
    const PER_WORD: usize = 32;

    fn new(material: Material) -> CaptureResults {
        let words = |m| (0..(SliceIndex::new(m).size() as usize).div_ceil(Self::PER_WORD)).map(|_| AtomicU64::new(0)).collect();
        CaptureResults { slices: graph::slices_of(material).into_iter().map(words).collect() }
    }

    fn word(&self, at: PairIndex) -> (&AtomicU64, usize) {
        let slice = &self.slices[at.half.min(self.slices.len() - 1)];
        (&slice[at.index / Self::PER_WORD], 2 * (at.index % Self::PER_WORD))
    }

    /// The best result of the captures of position `at` for the mover
    /// under the rules, if the pure pass found it.
    #[inline]
    fn get(&self, at: PairIndex) -> Option<Wdl> {
        let (word, shift) = self.word(at);
        of_two_bits(word.load(Relaxed) >> shift)
    }

    fn set(&self, at: PairIndex, wdl: Wdl) {
        // Units in work side by side may share a word at their edges.
        let (word, shift) = self.word(at);
        word.fetch_or(two_bits(wdl) << shift, Relaxed);
    }
}

/// The two passes over a pair under a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pass {
    Pure = 0,
    Rules = 1,
}

/// What solving one men configuration gave: its positions' values (raw
/// distances), which of them must capture, and under a rule set their rule
/// values; White to move first, then Black to move (see [`store`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigResult {
    pub raw: Vec<u16>,
    pub captures: Vec<bool>,
    pub fin: Option<Vec<u16>>,
}

/// Where the finished levels of a pair in work are kept, so that a run
/// interrupted inside a pair loses only the level in flight
/// ([`crate::journal`]). Levels are numbered by men progress; their
/// results come in the order of the level's configurations.
pub trait Checkpoint {
    /// The results of `level` of `pass`, if an earlier run finished it.
    fn restore(&mut self, pass: Pass, level: usize) -> Result<Option<Vec<ConfigResult>>>;
    /// Keeps the results of a finished level.
    fn save(&mut self, pass: Pass, level: usize, results: &[ConfigResult]) -> Result<()>;
}

/// Keeps nothing: solving in memory.
pub struct NoCheckpoint;

impl Checkpoint for NoCheckpoint {
    fn restore(&mut self, _: Pass, _: usize) -> Result<Option<Vec<ConfigResult>>> {
        Ok(None)
    }

    fn save(&mut self, _: Pass, _: usize, _: &[ConfigResult]) -> Result<()> {
        Ok(())
    }
}

/// Turns a pair's rule distances into rule values, position by position.
struct Verdicts<'a> {
    rules: &'a RuleSet,
    /// The pure results of the pair.
    pure: &'a [PureResults],
    binding: Binding,
}

impl Verdicts<'_> {
    /// The rule values of the positions of `unit` (configuration `config`)
    /// from their rule distances `raw`, in the unit's order.
    fn judge_unit(&self, unit: &Unit, raw: &[u16]) -> Vec<u16> {
        // A limit depends on a position only through its material (one per
        // half) and the lone kings on the main road: worked out once per
        // half and road, not per position.
        let mut limits: [[Option<[Option<u32>; 2]>; 4]; 2] = [[None; 4]; 2];
        raw.iter()
            .enumerate()
            .map(|(local, &packed)| {
                let raw = Value::unpack(packed).expect("unit packs values");
                let at = unit.pair_index(local);
                let pure = self.pure[at.half.min(self.pure.len() - 1)].at(at.index);
                let pos = unit.slice_position(local);
                let limit = *limits[at.half][usize::from(lone_kings_on_main_road(&pos))]
                    .get_or_insert_with(|| [true, false].map(|wins| self.rules.reset_limit(self.binding, &pos, wins)));
                Verdicts::judge(raw, pure, limit).pack()
            })
            .collect()
    }

    /// The rule value of a position from its rule distance `raw`, its pure
    /// result and its reset limits (for the side to move winning, losing).
    fn judge(raw: Value, pure: Wdl, limit: [Option<u32>; 2]) -> Value {
        let within = |wins: bool| limit[usize::from(!wins)].is_none_or(|l| u32::from(raw.plies.0) <= l);
        // A saved result keeps the rule distance that was too long, or 0
        // where no reset can be forced at all (docs/FORMAT.md).
        let over = if raw.wdl == Wdl::Draw { 0 } else { raw.plies.0 };
        match (raw.wdl, pure) {
            (Wdl::Win, _) if within(true) => raw,
            (Wdl::Loss, _) if within(false) => raw,
            (_, Wdl::Win) => Value::new(Wdl::CursedWin, over),
            (_, Wdl::Loss) => Value::new(Wdl::BlessedLoss, over),
            _ => Value::DRAW,
        }
    }
}

/// Values of the pair being solved: `raw` distances (for quiet man moves,
/// which keep the count running) and, under rules, final rule values. Those
/// take arrays of their own (`fin`) only where man moves read them (they
/// reset the count, [`Binding::KingsOnly`]); elsewhere a level's rule
/// values are written over its distances once the level below it, whose
/// man moves lead there, is solved: two bytes a position less in flight.
struct Pair {
    raw: Vec<Solved>,
    fin: Option<Vec<Solved>>,
}

impl Pair {
    fn finals(&self) -> &[Solved] {
        self.fin.as_deref().unwrap_or(&self.raw)
    }
}

#[allow(clippy::too_many_arguments)]
fn solve(
    material: Material,
    opts: &Options,
    known: &dyn Finished,
    verdicts: Option<&Verdicts>,
    binding: Binding,
    captures: Option<&CaptureResults>,
    on_level: &(dyn Fn(u64) + Sync),
    pass: Pass,
    checkpoint: &mut dyn Checkpoint,
) -> Result<Vec<Solved>> {
    let distinct = graph::slices_of(material);
    let separate = verdicts.is_some() && binding == Binding::KingsOnly;
    let mut pair = Pair {
        raw: distinct.iter().map(|&m| Solved::new(m)).collect(),
        fin: separate.then(|| distinct.iter().map(|&m| Solved::new(m)).collect()),
    };
    // The rule values of the level solved last, waiting for their place.
    let mut waiting: Vec<(MenConfig, Vec<u16>)> = Vec::new();
    for (level, configs) in levels(material).iter().enumerate().rev().filter(|(_, l)| !l.is_empty()) {
        let (white, black) = (&pair.raw[0].index, &pair.raw[pair.raw.len() - 1].index);
        let unit_len = |config: MenConfig| Unit::new(config, white, black, opts.variant).positions();
        let results = match checkpoint.restore(pass, level)? {
            Some(results) => {
                let fits = results.len() == configs.len()
                    && results.iter().zip(configs).all(|(r, &c)| {
                        r.raw.len() == unit_len(c)
                            && r.captures.len() == r.raw.len()
                            && r.fin.as_ref().map(Vec::len) == verdicts.map(|_| r.raw.len())
                    });
                if !fits {
                    bail!("the kept results of level {level} do not fit slice pair {material}");
                }
                results
            }
            None => {
                let captures = captures.map(|c| (c, pass));
                let results = solve_level(configs, &pair, opts, known, verdicts, binding, captures);
                checkpoint.save(pass, level, &results)?;
                results
            }
        };
        let mut positions = 0;
        let mut judged = Vec::new();
        for (&config, result) in configs.iter().zip(results) {
            positions += store(&mut pair.raw, config, &result.raw, Some(&result.captures));
            match (pair.fin.as_mut(), result.fin) {
                (Some(slices), Some(fin)) => _ = store(slices, config, &fin, Some(&result.captures)),
                (None, Some(fin)) => judged.push((config, fin)),
                (_, None) => {}
            }
        }
        // Man moves lead one level up: no level left reads the one above.
        for (config, fin) in std::mem::replace(&mut waiting, judged) {
            store(&mut pair.raw, config, &fin, None);
        }
        on_level(positions);
    }
    for (config, fin) in waiting {
        store(&mut pair.raw, config, &fin, None);
    }
    Ok(pair.fin.unwrap_or(pair.raw))
}

/// Solves the configurations of one level, in parallel.
fn solve_level(
    configs: &[MenConfig],
    pair: &Pair,
    opts: &Options,
    known: &dyn Finished,
    verdicts: Option<&Verdicts>,
    binding: Binding,
    captures: Option<(&CaptureResults, Pass)>,
) -> Vec<ConfigResult> {
    let material = pair.raw[0].index.material();
    let tables = Tables::new(material, known, pair, opts, verdicts.is_some(), binding, captures);
    let (white, black) = (&pair.raw[0].index, &pair.raw[pair.raw.len() - 1].index);
    // A unit a job: a unit can take a second or more, and rayon's leaves of
    // several left one core working alone at the end of a level.
    configs
        .par_iter()
        .with_max_len(1)
        .map(|&config| {
            let unit = Unit::new(config, white, black, opts.variant);
            let (raw, captures) = match binding {
                Binding::Both(limit) => unit.layered(&tables, limit),
                _ => unit.retrograde(&tables),
            };
            let fin = verdicts.map(|v| v.judge_unit(&unit, &raw));
            ConfigResult { raw, captures, fin }
        })
        .collect()
}

/// Writes a unit's values and capture flags, if given, into the pair: White
/// to move into the first slice, Black to move (flipped) into the last.
/// Returns the positions settled: in a symmetric slice, a configuration
/// that is its own flip gets the same positions twice.
fn store(slices: &mut [Solved], config: MenConfig, values: &[u16], captures: Option<&[bool]>) -> u64 {
    let white_len = slices[0].index.kings_per_config() as usize;
    let b = slices.len() - 1;
    let starts = half_starts(&slices[0].index, &slices[b].index, config);
    for (half, (slice, start)) in [(0, starts[0]), (b, starts[1])].into_iter().enumerate() {
        let local = if half == 0 { 0..white_len } else { white_len..values.len() };
        let s = &mut slices[slice];
        s.values[start..start + local.len()].copy_from_slice(&values[local.clone()]);
        for (i, &c) in captures.map_or(&[][..], |c| &c[local]).iter().enumerate() {
            if c {
                s.captures.set(start + i);
            }
        }
    }
    if b == 0 && starts[0] == starts[1] {
        white_len as u64
    } else {
        values.len() as u64
    }
}

/// Where the two halves of the unit of `config` start in the pair's
/// slices: White to move in the first slice, Black to move (flipped) in
/// the last.
fn half_starts(first: &SliceIndex, last: &SliceIndex, config: MenConfig) -> [usize; 2] {
    let start = |index: &SliceIndex, c: MenConfig| (index.config_rank(c) * index.kings_per_config()) as usize;
    [start(first, config), start(last, config.flip())]
}

/// The configurations of a slice by progress level. A symmetric slice holds
/// each unit twice (as a configuration and as its flip); it is listed once.
fn levels(material: Material) -> Vec<Vec<MenConfig>> {
    let index = SliceIndex::new(material);
    let symmetric = material == material.swap();
    let mut levels: Vec<Vec<MenConfig>> = Vec::new();
    for r in 0..index.configs() {
        let config = index.config(r);
        if symmetric && index.config_rank(config.flip()) < r {
            continue;
        }
        let level = config.progress() as usize;
        if levels.len() <= level {
            levels.resize(level + 1, Vec::new());
        }
        levels[level].push(config);
    }
    levels
}

/// The positions of the largest level of pair `material`, both halves: the
/// most a pass holds the results of at once beside the pair's values.
/// Counted square by square over how many men of each side stand below it
/// and how far they have come ([`MenConfig::progress`]), not by listing
/// the configurations (millions at 7 pieces).
pub fn largest_level(material: Material) -> u64 {
    let (white, black) = (material.own_men as usize, material.opp_men as usize);
    let most = 7 * (white + black);
    // configs[w][b][p]: placements of w white and b black men on the
    // squares so far whose progress is p.
    let mut configs = vec![vec![vec![0u64; most + 1]; black + 1]; white + 1];
    configs[0][0][0] = 1;
    for square in 0..32 {
        let row = square / 4;
        for w in (0..=white).rev() {
            for b in (0..=black).rev() {
                for p in (0..=most).rev() {
                    // White men stand below the last row, black men above
                    // the first; each counts the rows it has come.
                    let as_white = if w > 0 && row < 7 && p >= row { configs[w - 1][b][p - row] } else { 0 };
                    let as_black = if b > 0 && row > 0 && p >= 7 - row { configs[w][b - 1][p + row - 7] } else { 0 };
                    configs[w][b][p] += as_white + as_black;
                }
            }
        }
    }
    let kings = SliceIndex::new(material).kings_per_config();
    if material != material.swap() {
        let largest = configs[white][black].iter().copied().max().unwrap_or(0);
        return largest * (kings + SliceIndex::new(material.swap()).kings_per_config());
    }
    // A pass lists a symmetric slice's configurations once with their flip,
    // each a unit of both halves: (n + own flips) / 2 units of 2 * kings a
    // level. An own flip is set by the first 16 squares: a man there, the
    // other side's on the square it turns to, together 2 * its rows come.
    let mut own_flips = vec![vec![0u64; most + 1]; white + 1];
    own_flips[0][0] = 1;
    for square in 0..16 {
        let row = square / 4;
        for w in (1..=white).rev() {
            for p in (0..=most).rev() {
                let white_here = if p >= 2 * row { own_flips[w - 1][p - 2 * row] } else { 0 };
                let black_here = if row > 0 && p >= 2 * (7 - row) { own_flips[w - 1][p - 2 * (7 - row)] } else { 0 };
                own_flips[w][p] += white_here + black_here;
            }
        }
    }
    (0..=most).map(|p| configs[white][black][p] + own_flips[white][p]).max().unwrap_or(0) * kings
}

/// Solved slices by a dense material code, for lookups in the hot loop.
struct Tables<'a> {
    /// Final values of every slice the pair reads, its own included.
    finals: Vec<Option<SliceValues<'a>>>,
    /// Distances of the pair being solved, for man moves that do not reset.
    raw: Vec<Option<&'a Solved>>,
    rules: bool,
    man_moves_reset: bool,
    metric: Metric,
    /// Capture positions' values under the rules: written by the pure
    /// pass, read by the rule pass.
    captures: Option<(&'a CaptureResults, Pass)>,
}

/// Materials numbered densely (each count below 13), so that solved slices
/// are found by a plain array index in hot loops: a hash per lookup showed
/// in profiles.
pub const MATERIAL_CODES: usize = 13 * 13 * 13 * 13;

/// The dense number of `m` (below [`MATERIAL_CODES`]).
#[inline]
pub fn material_code(m: Material) -> usize {
    let c = |n: u8| n as usize;
    ((c(m.own_kings) * 13 + c(m.own_men)) * 13 + c(m.opp_kings)) * 13 + c(m.opp_men)
}

impl<'a> Tables<'a> {

    fn new(
        material: Material,
        known: &'a dyn Finished,
        pair: &'a Pair,
        opts: &Options,
        rules: bool,
        binding: Binding,
        captures: Option<(&'a CaptureResults, Pass)>,
    ) -> Tables<'a> {
        let mut finals = vec![None; MATERIAL_CODES];
        for m in graph::solve_reads(material) {
            finals[material_code(m)] = known.slice(m);
        }
        for s in pair.finals() {
            finals[material_code(s.index.material())] = Some(s.view());
        }
        let mut raw = vec![None; MATERIAL_CODES];
        for s in &pair.raw {
            raw[material_code(s.index.material())] = Some(s);
        }
        Tables { finals, raw, rules, man_moves_reset: binding == Binding::KingsOnly, metric: opts.metric, captures }
    }
}

impl Tables<'_> {
    /// The value for the mover of a move into position `index` of slice
    /// `material` (seen from the opponent); `converts` if it is a capture
    /// or a promotion.
    #[inline]
    fn after(&self, material: Material, index: u64, converts: bool) -> Value {
        let (values, from_finals) = self.successor_values(material, converts);
        self.worth(values.at(index), from_finals && self.metric == Metric::Conversion)
    }

    /// Where a move into slice `material` finds its successor's value, and
    /// whether that is a final value: for a move that resets the count
    /// (`converts`, or any man move where man moves reset it), else the
    /// distances of the pair in work.
    #[inline]
    fn successor_values(&self, material: Material, converts: bool) -> (Values<'_>, bool) {
        if converts || self.man_moves_reset {
            let (_, values) = self.finals[material_code(material)].unwrap_or_else(|| panic!("slice {material} is solved before it is needed"));
            (values, true)
        } else {
            let (_, values) = self.raw[material_code(material)].expect("a quiet man move stays in the pair").view();
            (values, false)
        }
    }

    /// What a successor's stored `value` is worth to the mover in this
    /// pass; `resets`: the move resets the distance.
    #[inline]
    fn worth(&self, value: Value, resets: bool) -> Value {
        Value { wdl: as_read(value.wdl, self.rules), plies: value.plies }.back_one_ply(resets)
    }

    /// The value of a located capture for the mover in this pass, and the
    /// stored result of where it leads (for the side to move there).
    fn capture(&self, located: Located) -> (Value, Wdl) {
        let stored = match located.slice {
            NOTHING_LEFT => Value::new(Wdl::Loss, 0),
            slice => self.finals[slice as usize].expect("located in a solved slice").1.at(located.index),
        };
        (self.worth(stored, self.metric == Metric::Conversion), stored.wdl)
    }
}

/// Where a capture leads when the side to move there has nothing left.
const NOTHING_LEFT: u32 = u32::MAX;

/// What a pass makes of a stored result: under the `rules`, a cursed win
/// or a blessed loss is a draw; without, every result is its pure one.
#[inline]
fn as_read(wdl: Wdl, rules: bool) -> Wdl {
    match wdl {
        Wdl::CursedWin | Wdl::BlessedLoss if rules => Wdl::Draw,
        wdl => wdl.pure(),
    }
}

impl Exits for Tables<'_> {
    fn known_captures(&self, at: PairIndex) -> Option<Value> {
        match self.captures {
            Some((results, Pass::Rules)) => results.get(at).map(of_best),
            _ => None,
        }
    }

    fn locate_captures(&self, pos: &Position, moves: &[Move], out: &mut Vec<Located>) {
        for m in moves {
            let after = white_to_move(&pos.play(m));
            let material = Material::of(&after);
            if material.own_kings + material.own_men == 0 {
                out.push(Located { slice: NOTHING_LEFT, index: 0 });
                continue;
            }
            let code = material_code(material);
            // Any slice's indexer ranks the same way: the one of `material`.
            let (index, values) = self.finals[code].unwrap_or_else(|| panic!("slice {material} is solved before it is needed"));
            let index = index.index_unchecked(&after);
            values.prefetch(index);
            out.push(Located { slice: code as u32, index });
        }
    }

    fn captures(&self, located: &[Located], at: PairIndex) -> Value {
        let mut best: Option<Value> = None;
        let mut under_rules = Wdl::Loss;
        for &l in located {
            let (value, stored) = self.capture(l);
            best = Some(best.map_or(value, |b| better(b, value)));
            under_rules = under_rules.max(as_read(stored, true).negate());
        }
        if let Some((results, Pass::Pure)) = self.captures {
            results.set(at, under_rules);
        }
        best.expect("a capture position has a capture")
    }

    fn man_move(&self, material: Material, index: u64, promotes: bool) -> Value {
        self.after(material, index, promotes)
    }

    fn prefetch_man_move(&self, material: Material, index: u64, promotes: bool) {
        self.successor_values(material, promotes).0.prefetch(index);
    }

    fn no_move(&self) -> Value {
        // Rule distances run to a reset; the loser's missing move is one.
        Value::new(Wdl::Loss, if self.rules { 1 } else { 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As the levels a pass goes through hold them, symmetric slices too.
    #[test]
    fn the_largest_level_is_counted_as_the_passes_list_it() {
        for text in ["KvK", "MvK", "KMvK", "MMvKM", "KMMvKM", "MMMvMM", "MvMMM", "MMvMM", "KMvKM", "MMMvKK", "KKvKK", "KKMvKKM", "MMMvMMM"] {
            let material: Material = text.parse().unwrap();
            let unit = SliceIndex::new(material).kings_per_config() + SliceIndex::new(material.swap()).kings_per_config();
            let listed = levels(material).iter().map(Vec::len).max().unwrap() as u64 * unit;
            let counted = largest_level(material);
            assert_eq!(counted, listed, "{text}");
        }
    }

    #[test]
    fn capture_results_keep_each_position_apart_and_the_halves_of_a_pair() {
        // A pair of two slices, and one that is its own twin.
        for (material, slices) in [("KMvK", 2), ("KvK", 1)] {
            let results = CaptureResults::new(material.parse().unwrap());
            assert_eq!(results.slices.len(), slices);
            let at = |half, index| PairIndex { half, index };
            // Neighbours within a word and across its edge, in both halves.
            let set = [(0, 0, Wdl::Win), (0, 1, Wdl::Loss), (0, 31, Wdl::Draw), (0, 32, Wdl::Win), (1, 33, Wdl::Loss)];
            for &(half, index, wdl) in &set {
                results.set(at(half, index), wdl);
            }
            for &(half, index, wdl) in &set {
                assert_eq!(results.get(at(half, index)), Some(wdl), "{material} {half} {index}");
            }
            assert_eq!(results.get(at(0, 2)), None);
            assert_eq!(results.get(at(0, 30)), None);
            // The second half reads the first slice where the pair has one.
            assert_eq!(results.get(at(1, 0)), if slices == 1 { Some(Wdl::Win) } else { None });
        }
    }
}
