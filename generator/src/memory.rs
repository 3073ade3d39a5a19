//! Memory: what a build keeps loaded and what each of its steps costs,
//! estimated per position from measured constants; the budget a build
//! keeps (`damka generate --memory`); and the schedule of steps that keeps
//! it.
//!
//! A build keeps the values of finished slices that later pairs read
//! (captures and promotions lead there). Under a budget, the schedule
//! drops a kept slice when the next step would not fit, the one read again
//! latest first, and reads it back from its written tables when a pair
//! needs it again. Reading a slice back resolves its capture positions
//! from the slices its captures lead to, so those are loaded first. A whole
//! build spills a dropped slice to a working copy instead
//! ([`crate::spill`]) and restores it from there, which needs no other
//! slice and takes seconds where reading back takes minutes.
//! Pairs are solved one at a time (the threads share the levels of one
//! pair), so the steps never run side by side.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};

use damka::{Material, SliceIndex};

use crate::graph::{self, pair_of, read_back_reads, slices_of, solve_reads, Action, Missing, Step};

/// Memory of a slice kept for later steps: its results, half a byte a
/// position ([`crate::kept::Kept`]).
pub const KEPT_BYTES_PER_POSITION: f64 = 0.5;

/// Memory of a slice's values as the solver and the reader of a file give
/// them, until they are written and kept as results: a packed value (two
/// bytes) and a capture bit a position ([`crate::solver::Solved`]).
pub const SOLVED_BYTES_PER_POSITION: f64 = 2.125;

/// Memory in flight while a pair is solved, per position of the pair,
/// beside its own values: the pure results and the capture results the
/// pure pass leaves the rule pass (two bits each), or while the pair is
/// written, how each position of a slice is stored (half a byte).
pub const SOLVING_BYTES_PER_POSITION: f64 = 0.5;

/// Memory in flight while a pair is solved, per position of its largest
/// level ([`crate::solver::largest_level`]): the results of the level in
/// work until it is stored (a distance, a capture flag and a rule value:
/// 5 bytes), and the rule values of the level before it, waiting to be
/// written over its distances (2 bytes); with room. The 6-piece pair
/// KKMvKKM (2 threads) peaks at 515 MB, estimated at 559.
pub const LEVEL_BYTES_PER_POSITION: f64 = 8.0;

/// Memory of a unit in work (one men configuration of both halves of a
/// pair), per position of the unit: its kings, successor lists and
/// bookkeeping, and its results until its level is stored. A thread works
/// on one unit at a time. The kings-only pairs KvKKKK and KKvKKK (5
/// pieces, a unit each, 1 thread) peak at 27 and 19 bytes a position
/// beyond the values above: a pair of kings alone is all one unit, which
/// is what a flat rate per position of the pair underestimated by 40%.
pub const UNIT_BYTES_PER_POSITION: f64 = 28.0;

/// Memory of a unit solved count by count ([`crate::unit::Unit::layered`]:
/// a kings-only limit beside a quiet one, with kings on both sides and
/// men), per position of the unit, beside the king moves it lists: the
/// unit's kings (8 bytes), the rows of the move lists both ways (4 bytes
/// each, and 4 while they are inverted), the updates of a count (8), three
/// scores (2 bytes each) and a capture flag; with room for two units
/// peaking at once.
pub const LAYERED_UNIT_BYTES_PER_POSITION: f64 = 56.0;

/// Memory of a layered unit per king move of its positions: the move's
/// successor and, inverted, its predecessor (4 bytes each). With
/// [`Shape::king_moves`], 7-piece pairs on 2 threads (units of 8.8 M
/// positions) peak in their rule pass at: KvKKKKKM (8.6 king moves a
/// position) 2.41 GiB, estimated at 2.9 (1.1 with the flat
/// [`UNIT_BYTES_PER_POSITION`]); KMvKKKKK (4.7) 2.45 GiB, estimated at 2.5.
pub const LAYERED_BYTES_PER_KING_MOVE: f64 = 8.0;

/// Memory in flight while a slice is read back, per position: both files
/// decompressed beside the values they become (one byte each, two for
/// wide distances, and the two-byte value).
pub const LOADING_BYTES_PER_POSITION: f64 = 5.0;

/// Memory in flight while a slice is read back, per position of the slices
/// its settled threats' moves lead to ([`graph::threats_reach`]): both
/// their files, kept compressed (at 6 pieces a sixteenth of a byte a
/// position for both; the blocks being read add a few MiB).
pub const REACHED_BYTES_PER_POSITION: f64 = 0.1;

/// The process itself (a job whose pair is finished peaks at 5 MB), with
/// room for the thread pool and the allocator's slack: with it the
/// estimates of those five jobs come within -10% to +25% of their peaks.
pub const BASE_BYTES: f64 = 24.0 * 1024.0 * 1024.0;

/// The share of the memory available at the start (`MemAvailable` in
/// /proc/meminfo) that `damka generate` keeps to without `--memory`: the
/// rest stays for the other programs of the machine and for the page cache
/// the tables are read back through.
pub const DEFAULT_SHARE: f64 = 0.75;

fn size(slice: Material) -> f64 {
    SliceIndex::new(slice).size() as f64
}

/// Memory of a slice kept loaded.
fn kept(slice: Material) -> f64 {
    size(slice) * KEPT_BYTES_PER_POSITION
}

/// Memory in flight while solving `pair`, its values included, on the
/// threads of the current rayon pool (`damka plan` runs its estimates in
/// a pool of the jobs' cores).
fn solving(pair: Material) -> f64 {
    let index = SliceIndex::new(pair);
    let unit = index.kings_per_config() + SliceIndex::new(pair.swap()).kings_per_config();
    let units = (rayon::current_num_threads() as u64).min(index.configs());
    let shape = shape(pair);
    // Whether a pair is solved layered depends on the rule set: assume it
    // is wherever a rule set can make it so (Russian's does).
    let layered = pair.own_kings > 0 && pair.opp_kings > 0 && pair.men() > 0;
    let unit_bytes = if layered {
        LAYERED_UNIT_BYTES_PER_POSITION + LAYERED_BYTES_PER_KING_MOVE * shape.king_moves
    } else {
        UNIT_BYTES_PER_POSITION
    };
    // A pair without men is one unit, whose results its bytes count.
    let level = if pair.men() == 0 { 0 } else { shape.largest_level };
    graph::pair_size(pair) as f64 * (SOLVED_BYTES_PER_POSITION + SOLVING_BYTES_PER_POSITION)
        + level as f64 * LEVEL_BYTES_PER_POSITION
        + (units * unit) as f64 * unit_bytes
}

/// What the memory of solving a pair depends on beyond its size.
#[derive(Clone, Copy)]
struct Shape {
    /// [`crate::solver::largest_level`].
    largest_level: u64,
    /// The king moves a layered unit lists per position, on average over
    /// both slices (none where the side to move must capture): counted on
    /// 4096 positions scattered over each slice, with Russian kings (they
    /// fly: no other game's kings have more moves).
    king_moves: f64,
}

/// The shape of `pair`, worked out once: schedules ask again and again (a
/// plan, for every pair), and both take a second at 7 pieces.
fn shape(pair: Material) -> Shape {
    static SHAPES: Mutex<BTreeMap<Material, Shape>> = Mutex::new(BTreeMap::new());
    let shapes = || SHAPES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&shape) = shapes().get(&pair) {
        return shape;
    }
    const SAMPLES: u64 = 4096;
    const SCATTER: u64 = 0x9E37_79B9_7F4A_7C15;
    let (moves, samples) = [pair, pair.swap()].iter().fold((0, 0), |(moves, samples), &m| {
        let index = SliceIndex::new(m);
        // Scattered, not evenly spaced: in index order the kings of evenly
        // spaced positions stand alike (every 4096th sits on low squares).
        let counted: Vec<usize> = (0..SAMPLES.min(index.size()))
            .map(|k| king_moves_at(&index.position(k.wrapping_mul(SCATTER) % index.size())))
            .collect();
        (moves + counted.iter().sum::<usize>(), samples + counted.len())
    });
    let shape = Shape { largest_level: crate::solver::largest_level(pair), king_moves: moves as f64 / samples as f64 };
    shapes().insert(pair, shape);
    shape
}

fn king_moves_at(pos: &damka::Position) -> usize {
    let moves = damka::movegen::legal_moves(pos, damka::Variant::Russian);
    if moves.iter().any(damka::Move::is_capture) {
        return 0;
    }
    moves.iter().filter(|m| pos.piece_at(m.from()).is_some_and(|p| p.role == damka::Role::King)).count()
}

/// Memory in flight while reading `slice` back, its values included.
fn loading(slice: Material) -> f64 {
    let reached: f64 = graph::threats_reach(slice).into_iter().filter(|&m| m != slice).map(size).sum();
    size(slice) * (SOLVED_BYTES_PER_POSITION + LOADING_BYTES_PER_POSITION) + reached * REACHED_BYTES_PER_POSITION
}

/// What becomes of a slice dropped to make room that a later step reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// It is read back from its tables (a pair job: other jobs share the
    /// directory, so it keeps no working copies).
    ReadBack,
    /// It is spilled to a working copy and restored from there (a whole
    /// build).
    Spilled,
}

/// Memory in flight while a slice is restored from its working copy, its
/// values included.
fn restoring(slice: Material) -> f64 {
    kept(slice) + crate::spill::RESTORING_BYTES
}

/// The steps of a build and the peak memory they are estimated at.
#[derive(Clone, Debug)]
pub struct Schedule {
    pub steps: Vec<Step>,
    /// Estimated peak resident memory, bytes, the process included.
    pub peak_bytes: u64,
}

/// The steps that solve the pairs `solve` (any order) when the pairs for
/// which `finished` holds are on disk, within `budget` bytes if one is
/// given. Finished slices a pair reads are read back first, with the
/// slices their captures lead to; each slice leaves memory once no later
/// step reads it, or earlier, to make room, when the budget is tight (it
/// is read back or restored when needed again, as `dropped` says). Fails
/// naming a needed pair that is neither finished nor solved before it. The
/// schedule can exceed the budget only where a single step cannot fit (see
/// [`least_memory`]).
pub fn schedule(
    solve: &[Material],
    finished: impl Fn(Material) -> bool,
    budget: Option<u64>,
    dropped: Dropped,
) -> Result<Schedule, Missing> {
    let mut order: Vec<Material> = solve.iter().map(|&m| pair_of(m)).collect();
    graph::sort_in_order(&mut order);
    order.dedup();
    // A first run without dropping anything finds when each slice is read
    // (its uses), which the real run needs to choose what to drop.
    let mut dry = Scheduler::new(&order, &finished, None, dropped, None);
    dry.run()?;
    let mut real = Scheduler::new(&order, &finished, budget, dropped, Some(dry.uses));
    real.run()?;
    Ok(Schedule { steps: real.steps, peak_bytes: (real.peak + BASE_BYTES).ceil() as u64 })
}

/// The least memory a job of `pair` alone needs, bytes: its inputs read
/// back and kept while it is solved, everything else dropped as soon as
/// it can be. A budget below it cannot build the pair.
pub fn least_memory(pair: Material) -> u64 {
    schedule(&[pair], |_| true, Some(0), Dropped::ReadBack).expect("finished pairs are never missing").peak_bytes
}

/// The pair of `pairs` that needs the most memory, if that is more than
/// `budget`: the pair and its [`least_memory`].
pub fn largest_over(pairs: &[Material], budget: u64) -> Option<(Material, u64)> {
    pairs.iter().map(|&p| (p, least_memory(p))).filter(|&(_, need)| need > budget).max_by_key(|&(p, need)| (need, p))
}

struct Scheduler<'a, F: Fn(Material) -> bool> {
    order: &'a [Material],
    finished: &'a F,
    budget: Option<u64>,
    dropped: Dropped,
    /// The slices with a working copy on disk.
    spilled: BTreeSet<Material>,
    /// The steps (indices into `order`) at which each slice is read, once
    /// per read, still to come; recorded by the dry run when `None`.
    uses: HashMap<Material, VecDeque<usize>>,
    recording: bool,
    /// The slices loaded, and how many reads in progress hold each.
    loaded: BTreeMap<Material, u32>,
    kept_bytes: f64,
    peak: f64,
    /// The pair being solved (index into `order`).
    now: usize,
    steps: Vec<Step>,
}

impl<'a, F: Fn(Material) -> bool> Scheduler<'a, F> {
    fn new(
        order: &'a [Material],
        finished: &'a F,
        budget: Option<u64>,
        dropped: Dropped,
        uses: Option<HashMap<Material, VecDeque<usize>>>,
    ) -> Scheduler<'a, F> {
        Scheduler {
            order,
            finished,
            budget,
            dropped,
            spilled: BTreeSet::new(),
            recording: uses.is_none(),
            uses: uses.unwrap_or_default(),
            loaded: BTreeMap::new(),
            kept_bytes: 0.0,
            peak: 0.0,
            now: 0,
            steps: Vec::new(),
        }
    }

    fn run(&mut self) -> Result<(), Missing> {
        for (now, &pair) in self.order.iter().enumerate() {
            self.now = now;
            for slice in solve_reads(pair) {
                self.ensure(slice, pair)?;
            }
            self.step(solving(pair), Step { pair, action: Action::Solve, release: Vec::new(), spill: Vec::new() });
            for s in slices_of(pair) {
                self.loaded.insert(s, 0);
                self.kept_bytes += kept(s);
            }
            // Reads still to come of this step were never made (a slice
            // found loaded needs no slices read for it).
            for uses in self.uses.values_mut().filter(|_| !self.recording) {
                while uses.front().is_some_and(|&u| u <= now) {
                    uses.pop_front();
                }
            }
            for held in self.loaded.values_mut() {
                *held = 0;
            }
            self.release_unread();
        }
        Ok(())
    }

    /// Makes `slice` loaded and holds it until the pair is solved, reading
    /// it back (after the slices it resolves its entries from) if it is not;
    /// `reader` is the pair that needs it.
    fn ensure(&mut self, slice: Material, reader: Material) -> Result<(), Missing> {
        if self.recording {
            self.uses.entry(slice).or_default().push_back(self.now);
        } else if let Some(uses) = self.uses.get_mut(&slice) {
            if uses.front() == Some(&self.now) {
                uses.pop_front();
            }
        }
        if let Some(held) = self.loaded.get_mut(&slice) {
            *held += 1;
        } else if self.spilled.contains(&slice) {
            let pair = pair_of(slice);
            self.step(restoring(slice), Step { pair, action: Action::Restore(vec![slice]), release: Vec::new(), spill: Vec::new() });
            self.loaded.insert(slice, 1);
            self.kept_bytes += kept(slice);
        } else {
            let pair = pair_of(slice);
            let solved_before = self.order[..self.now].contains(&pair);
            if !solved_before && !(self.finished)(pair) {
                return Err(Missing { pair, needed_by: reader });
            }
            let leads_to = read_back_reads(slice);
            for &s in &leads_to {
                self.ensure(s, pair)?;
            }
            self.step(loading(slice), Step { pair, action: Action::Load(vec![slice]), release: Vec::new(), spill: Vec::new() });
            self.loaded.insert(slice, 1);
            self.kept_bytes += kept(slice);
            for s in &leads_to {
                *self.loaded.get_mut(s).expect("held while read") -= 1;
            }
            self.release_unread();
        }
        Ok(())
    }

    /// Adds `step`, which needs `bytes` on top of what is kept, after
    /// dropping what the budget makes room for.
    fn step(&mut self, bytes: f64, step: Step) {
        if let Some(budget) = self.budget {
            while BASE_BYTES + self.kept_bytes + bytes > budget as f64 {
                // The slice read again latest (never, first), the larger
                // first among equals.
                let next_read = |s: &Material| self.uses.get(s).and_then(|u| u.front().copied()).unwrap_or(usize::MAX);
                let Some(victim) = self
                    .loaded
                    .iter()
                    .filter(|&(_, &held)| held == 0)
                    .map(|(&s, _)| s)
                    .max_by_key(|s| (next_read(s), SliceIndex::new(*s).size(), *s))
                else {
                    break;
                };
                self.drop_slice(victim);
            }
        }
        self.peak = self.peak.max(self.kept_bytes + bytes);
        self.steps.push(step);
    }

    /// Drops every slice no later step reads (none while recording: the
    /// dry run keeps everything, so that its reads are those of a build
    /// that never reads a slice back twice).
    fn release_unread(&mut self) {
        if self.recording {
            return;
        }
        let unread: Vec<Material> = self
            .loaded
            .iter()
            .filter(|&(s, &held)| held == 0 && self.uses.get(s).is_none_or(VecDeque::is_empty))
            .map(|(&s, _)| s)
            .collect();
        for s in unread {
            self.drop_slice(s);
        }
    }

    /// Drops `slice` after the last step, spilling it first if a later
    /// step reads it and the build keeps working copies.
    fn drop_slice(&mut self, slice: Material) {
        self.loaded.remove(&slice);
        self.kept_bytes -= kept(slice);
        let read_later = self.uses.get(&slice).is_some_and(|u| !u.is_empty());
        let step = self.steps.last_mut().expect("a slice is loaded by a step");
        step.release.push(slice);
        if self.dropped == Dropped::Spilled && read_later && self.spilled.insert(slice) {
            step.spill.push(slice);
        }
    }
}

/// Gives every large array (a slice's values, a pair's state) a mapping of
/// its own, returned to the system when it is freed, so that the memory
/// of a dropped slice is free for the next step as the budget counts on.
/// Without it glibc raises its mapping threshold to the size of the first
/// large array freed (up to 32 MiB) and serves later ones from its heap,
/// where freed arrays stay resident: the five-piece build peaked at
/// 273 MiB resident against 196 MiB with it.
pub fn return_freed_arrays() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator; 1 MiB is a
    // valid threshold.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// The memory available to new programs now (`MemAvailable` in
/// /proc/meminfo), bytes; `None` where the system does not say.
pub fn available() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemAvailable:").map(|kib| kib * 1024)
}

/// The peak resident memory of this process so far (`VmHWM` in
/// /proc/self/status), bytes; `None` where the system does not say.
pub fn peak_resident() -> Option<u64> {
    proc_kib("/proc/self/status", "VmHWM:").map(|kib| kib * 1024)
}

/// The number of kB on the line `key` of a /proc file.
fn proc_kib(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].trim().strip_suffix("kB")?.trim().parse().ok()
}

/// The budget without `--memory`: [`DEFAULT_SHARE`] of [`available`].
pub fn default_budget() -> Option<u64> {
    available().map(|a| (a as f64 * DEFAULT_SHARE) as u64)
}

/// A size of memory as people write it: a number and a unit, `512M`,
/// `12G`, `1.5GiB`, `64 MB`. Units are powers of 1024 whichever way they
/// are spelt (K, KB, KiB, M, MB, MiB, G, GB, GiB, T, TB, TiB), as in
/// Slurm's `--mem`; a bare number is refused rather than guessed at.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim());
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| format!("'{text}' is not a size: give a number and a unit, e.g. 512M, 12G or 1.5GiB"))?;
    let shift = match unit.to_ascii_lowercase().as_str() {
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        "" => return Err(format!("'{text}': give a unit (K, M, G or T), e.g. {number}G")),
        _ => return Err(format!("'{text}': unknown unit '{unit}' (use K, M, G or T, e.g. 512M, 12G, 1.5GiB)")),
    };
    let bytes = value * (1u64 << shift) as f64;
    if bytes < 1.0 || bytes >= u64::MAX as f64 {
        return Err(format!("'{text}': a budget must be at least one byte and less than 16 EiB"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn m(text: &str) -> Material {
        text.parse().expect("material")
    }

    #[test]
    fn sizes_are_read_with_their_units_and_bad_ones_refused() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("12G"), Ok(12 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size(" 64 mb "), Ok(64 << 20));
        assert_eq!(parse_size("2T"), Ok(2 << 40));
        for bad in ["", "12", "G", "1.2.3G", "12Q", "-1G", "0G", "1e3G", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_missing_input_is_named() {
        let err = schedule(&[m("KKvK")], |p| p != m("KvK"), None, Dropped::ReadBack).unwrap_err();
        assert_eq!(err, Missing { pair: m("KvK"), needed_by: m("KvKK") });
        // Its promotion (KKvKKK, five pieces) or a four-piece capture.
        let err = schedule(&[m("KKMvKK")], |p| p.pieces() < 4, None, Dropped::ReadBack).unwrap_err();
        assert!(err.pair.pieces() >= 4 && graph::needed_by(&[m("KKMvKK")]).contains(&err.pair), "{err:?}");
    }

    #[test]
    fn steps_read_back_only_what_is_read_and_release_everything() {
        let steps = schedule(&[m("KKvKK")], |_| true, None, Dropped::ReadBack).unwrap().steps;
        assert_eq!(steps.last().unwrap().action, Action::Solve);
        let mut loaded = BTreeSet::new();
        let mut released = BTreeSet::new();
        for s in &steps {
            if let Action::Load(slices) = &s.action {
                loaded.extend(slices.iter().copied());
            }
            released.extend(s.release.iter().copied());
        }
        // KKvKK takes a king: KvKK, whose captures lead to KvK.
        let want: BTreeSet<Material> = [m("KvKK"), m("KvK")].into_iter().collect();
        assert_eq!(loaded, want);
        assert!(loaded.iter().all(|s| released.contains(s)), "every slice read back leaves memory");
    }

    /// Replays `steps`, checking that every slice a step reads is loaded
    /// then, and that a slice is restored only from a working copy spilled
    /// before; returns the estimated peak and how many slices were read
    /// back and restored.
    fn replay(steps: &[Step]) -> (f64, usize, usize) {
        let mut loaded: BTreeSet<Material> = BTreeSet::new();
        let mut spilled: BTreeSet<Material> = BTreeSet::new();
        let (mut kept_bytes, mut peak, mut loads, mut restores) = (0.0f64, 0.0f64, 0, 0);
        for step in steps {
            match &step.action {
                Action::Load(slices) => {
                    for &s in slices {
                        assert!(read_back_reads(s).iter().all(|t| loaded.contains(t)), "{s} read back before what it reads");
                        peak = peak.max(kept_bytes + loading(s));
                        loaded.insert(s);
                        kept_bytes += kept(s);
                        loads += 1;
                    }
                }
                Action::Restore(slices) => {
                    for &s in slices {
                        assert!(spilled.contains(&s) && !loaded.contains(&s), "{s} restored without a working copy");
                        peak = peak.max(kept_bytes + restoring(s));
                        loaded.insert(s);
                        kept_bytes += kept(s);
                        restores += 1;
                    }
                }
                Action::Solve => {
                    assert!(solve_reads(step.pair).iter().all(|t| loaded.contains(t)), "{} solved without its inputs", step.pair);
                    peak = peak.max(kept_bytes + solving(step.pair));
                    for s in slices_of(step.pair) {
                        loaded.insert(s);
                        kept_bytes += kept(s);
                    }
                }
            }
            for s in &step.spill {
                assert!(step.release.contains(s) && spilled.insert(*s), "{s} spilled twice or kept loaded");
            }
            for s in &step.release {
                assert!(loaded.remove(s), "{s} released but not loaded");
                kept_bytes -= kept(*s);
            }
        }
        assert!(loaded.is_empty(), "left loaded: {loaded:?}");
        (peak + BASE_BYTES, loads, restores)
    }

    #[test]
    fn a_budget_is_kept_by_reading_slices_back_or_restoring_them() {
        let order = graph::pairs_in_order(5);
        let free = schedule(&order, |_| false, None, Dropped::Spilled).unwrap();
        let (peak, loads, restores) = replay(&free.steps);
        assert_eq!((loads, restores), (0, 0), "a build with room reads nothing back");
        assert_eq!(peak.ceil() as u64, free.peak_bytes);
        let least = order.iter().map(|&p| least_memory(p)).max().unwrap();
        assert!(least < free.peak_bytes, "{least} against {}", free.peak_bytes);
        for budget in [least, (least + free.peak_bytes) / 2] {
            let mut read_back = [0; 2];
            for (i, dropped) in [Dropped::ReadBack, Dropped::Spilled].into_iter().enumerate() {
                let tight = schedule(&order, |_| false, Some(budget), dropped).unwrap();
                let (peak, loads, restores) = replay(&tight.steps);
                assert!(peak <= budget as f64 && tight.peak_bytes <= budget, "{peak} over {budget}");
                read_back[i] = loads + restores;
                match dropped {
                    Dropped::ReadBack => assert!(loads > 0 && restores == 0, "{budget}: {loads} read back, {restores} restored"),
                    // Every slice is solved in the run: none comes from its tables.
                    Dropped::Spilled => assert!(loads == 0 && restores > 0, "{budget}: {loads} read back, {restores} restored"),
                }
                let solved: Vec<Material> =
                    tight.steps.iter().filter(|s| s.action == Action::Solve).map(|s| s.pair).collect();
                assert_eq!(solved, order, "the order of the pairs");
            }
            // A restore needs no slice loaded for it: fewer are dropped.
            assert!(read_back[1] < read_back[0], "{budget}: {read_back:?}");
        }
        assert_eq!(largest_over(&order, least), None);
        // The pairs that need the most read the same large slice back
        // (resolving its settled threats reads the slices two plies away);
        // the greatest of them is named.
        let (pair, need) = largest_over(&order, least - 1).unwrap();
        let neediest = order.iter().copied().filter(|&p| least_memory(p) == least).max();
        assert_eq!((Some(pair), need), (neediest, least), "the pair that needs the most");
    }
}
