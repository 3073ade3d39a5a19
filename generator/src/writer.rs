//! Compression and writing of table files (docs/FORMAT.md).
//!
//! Each solved slice becomes two files: `.wdl` (one result code per
//! position, what engines probe in search) and `.dtc` (the distance to the
//! next conversion of each win and loss). Capture positions are "don't
//! care" in both, and so are draws in `.dtc`: they repeat the entry before
//! them, which extends a run and costs next to nothing after compression
//! (docs/COMPRESSION.md has the measurements). So is the result of a
//! settled threat, unless the one-ply resolution a reader makes would not
//! give it: the `.wdl` file lists those. Of a slice and its twin, one
//! takes its distances from the other ([`graph::distances_of`]): its
//! distances are "don't care" too but those its one-ply value would miss,
//! which its `.dtc` file lists. Blocks are compressed in
//! parallel; a file is written under a temporary name of its own
//! (`russian-KvK.wdl.tmp`) and renamed into place, so a finished name always
//! holds a finished file.

use std::cell::RefCell;
use std::convert::Infallible;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use damka::directory::{temporary_path, write_atomically};
use damka::format::{compress_code_table, encode_stored_entries, file_bytes, Distances, Header, Kind, TableFile, TableSlice};
use damka::runs::{self, BlockRuns};
use damka::layout::{EntryLayout, EntryOrder};
use damka::movegen::{generate, Routes};
use damka::resolve::{best_one_ply_back, is_settled_threat_counting, white_to_move, CaptureCounts, Resolution};
use damka::rules::Binding;
use damka::{Material, Move, Position, RuleSet, Value, Variant, Wdl};
use rayon::prelude::*;

use crate::catalog::{self, SliceId};
use crate::graph;
use crate::kept::{half_byte, prefetch, set_half_byte, KeptSlices, SliceValues, Values};
use crate::solver::{material_code, Solved, MATERIAL_CODES};
use crate::stats::Tally;

/// The rule set a table was built with, as recorded in its header.
#[derive(Clone, Debug)]
pub struct RulesId {
    pub name: String,
    pub hash: u64,
}

/// Positions per block: small enough that one block decodes in a few
/// microseconds when a probe misses the cache; result blocks three times a
/// power of two (format::code_planes).
fn block_positions(kind: Kind) -> u32 {
    match kind {
        Kind::Wdl => 12 * 1024,
        Kind::Distance => 8 * 1024,
    }
}

/// Whether `name` is `<variant>-<material><suffix>`: a slice's file beside
/// its tables, such as its journal (`.journal`) or working copy (`.spill`).
pub fn is_slice_file(name: &str, suffix: &str) -> bool {
    name.strip_suffix(suffix).is_some_and(|s| format!("{s}.wdl").parse::<damka::TableName>().is_ok())
}

pub fn table_path(dir: &Path, variant: Variant, material: Material, kind: Kind) -> PathBuf {
    dir.join(format!("{variant}-{material}.{}", kind.extension()))
}

/// How a position's entries are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// As they are (the `.dtc` entry of a draw is "don't care").
    Plain,
    /// A capture position: both entries "don't care", but its result where
    /// the slice stores captures' results (`result`; its distance follows
    /// from it).
    Capture { result: bool },
    /// A settled threat: its result is "don't care" unless it `stands` (the
    /// one-ply resolution would give another), its distance unless the
    /// `value_stands` (the one-ply value would be another, and it is no
    /// draw); each listed in its file then.
    Threat { stands: bool, value_stands: bool },
    /// A settled threat of a slice whose twin takes its distances from it
    /// ([`Distances::ForTwin`]): its result as a [`Stored::Threat`]'s, its
    /// distance stored unlisted (a draw's is "don't care").
    ThreatForTwin { stands: bool },
    /// Any other quiet position of a slice that takes its distances from
    /// its twin ([`Distances::FromTwin`]): its result stored, its distance
    /// "don't care" unless the `value_stands` (as a threat's), listed then.
    FromTwin { value_stands: bool },
}

impl Stored {
    /// In half a byte: 0 plain, 1 capture (10 with its result), 2 to 5 a
    /// threat (+1 if it stands, +2 if its value does), 6 or 7 a threat for
    /// the twin (+1 if it stands), 8 or 9 from the twin (+1 if its value
    /// stands).
    fn code(self) -> u8 {
        match self {
            Stored::Plain => 0,
            Stored::Capture { result } => if result { 10 } else { 1 },
            Stored::Threat { stands, value_stands } => 2 + u8::from(stands) + 2 * u8::from(value_stands),
            Stored::ThreatForTwin { stands } => 6 + u8::from(stands),
            Stored::FromTwin { value_stands } => 8 + u8::from(value_stands),
        }
    }

    fn of_code(code: u8) -> Stored {
        match code {
            0 => Stored::Plain,
            1 | 10 => Stored::Capture { result: code == 10 },
            6 | 7 => Stored::ThreatForTwin { stands: code == 7 },
            8 | 9 => Stored::FromTwin { value_stands: code == 9 },
            c => Stored::Threat { stands: (c - 2) & 1 == 1, value_stands: (c - 2) & 2 == 2 },
        }
    }
}

/// How each position of a slice is stored, two positions a byte (the first
/// in the low half): a slice being written holds this beside its values,
/// a quarter of what a [`Stored`] a position took.
struct HowStored(Vec<u8>);

impl HowStored {
    /// Sets the way of position `i` of `bytes` (its half byte still 0).
    fn put(bytes: &mut [u8], i: usize, how: Stored) {
        set_half_byte(bytes, i, how.code());
    }
}

/// How each position of a slice is stored, by index.
pub trait Ways: Sync {
    fn get(&self, i: usize) -> Stored;

    /// Asks for what [`Self::get`] of `i` will read.
    fn prefetch(&self, _i: usize) {}
}

impl Ways for HowStored {
    fn get(&self, i: usize) -> Stored {
        Stored::of_code(half_byte(&self.0, i))
    }

    fn prefetch(&self, i: usize) {
        if let Some(byte) = self.0.get(i / 2) {
            prefetch(byte);
        }
    }
}

/// Any function of the index (a game without settled threats or captures
/// left to the reader stores every position plainly).
impl<F: Fn(usize) -> Stored + Sync> Ways for F {
    fn get(&self, i: usize) -> Stored {
        self(i)
    }
}

/// Entries placed before the one at hand whose lines are asked for: a few
/// hundred nanoseconds of work ahead.
const PREFETCH_AHEAD: usize = 16;

/// Writes both files of `solved`, leaving "don't care" what `resolution`
/// says; `lookup` gives every slice its positions' moves lead to (the
/// pair's other slice, promotions, captures), solved. `limits`: the move
/// limits of the slice, if the rule set has any (without, a settled
/// threat's one-ply value is its value: no entry is stored). Returns the
/// bytes written, `.wdl` and `.dtc`.
pub fn write<'a>(
    dir: &Path,
    variant: Variant,
    rules: &RulesId,
    limits: Option<Limits>,
    solved: &Solved,
    resolution: Resolution,
    lookup: &(dyn Fn(Material) -> Option<SliceValues<'a>> + Sync),
) -> Result<[u64; 2]> {
    let material = solved.index.material();
    let distances = graph::distances_of(material);
    let stored = how_stored(solved, variant, limits, distances, resolution, lookup)?;
    let orders = EntryOrder::distinct(&solved.index);
    write_slice(
        |kind| table_path(dir, variant, material, kind),
        TableSlice::Draughts(variant, material),
        rules,
        distances,
        resolution,
        &solved.values,
        &stored,
        &orders,
    )
}

/// How each position of `solved` is stored: settled threats found, and
/// whether their result and value stand, from the solved values of their
/// successors; so for every position whose distance comes from the twin
/// (`distances`) but those the `limits` cannot touch. Without move limits
/// neither does: a value is then the best of its moves' one ply back, by
/// definition (`damka verify` checks every stored one that way, and the
/// tests every probed one against the solver).
fn how_stored<'a>(
    solved: &Solved,
    variant: Variant,
    limits: Option<Limits>,
    distances: Distances,
    resolution: Resolution,
    lookup: &(dyn Fn(Material) -> Option<SliceValues<'a>> + Sync),
) -> Result<HowStored> {
    const CHUNK: usize = 1 << 14;
    let material = solved.index.material();
    let n = solved.values.len();
    let mut stored = vec![0u8; n.div_ceil(2)];
    // A chunk a job: rayon's leaves of many chunks left one core working
    // alone for the last seconds of a 6-piece slice.
    stored.par_chunks_mut(CHUNK / 2).enumerate().with_max_len(1).try_for_each(|(c, out)| {
        let mut moves = Vec::new();
        let lookup = catalog::remembering_last(lookup);
        let mut pending = Pending::default();
        let range = c * CHUNK..n.min((c + 1) * CHUNK);
        let positions = solved.index.positions(range.start as u64..range.end as u64);
        with_capture_counts(variant, |counts| {
            for (i, pos) in range.zip(positions) {
                let capture = solved.captures.get(i);
                let threat = !capture && is_settled_threat_counting(&pos, resolution, &mut moves, counts);
                let how = match (capture, threat, distances) {
                    (true, ..) => Stored::Capture { result: !resolution.captures },
                    (false, false, Distances::FromTwin) => Stored::FromTwin { value_stands: false },
                    (false, false, _) => Stored::Plain,
                    (false, true, Distances::ForTwin) => Stored::ThreatForTwin { stands: false },
                    (false, true, _) => Stored::Threat { stands: false, value_stands: false },
                };
                // Under move limits a one-ply value may miss the position's own
                // (a draw's distance is "don't care"): judged from the values
                // its moves lead to.
                let judged = limits.is_some_and(|limits| match how {
                    Stored::Threat { .. } | Stored::ThreatForTwin { .. } => true,
                    Stored::FromTwin { .. } => !limits.keep_one_ply(unpacked(solved.values[i])),
                    Stored::Plain | Stored::Capture { .. } => false,
                });
                if !judged {
                    HowStored::put(out, i - c * CHUNK, how);
                    continue;
                }
                if let Stored::FromTwin { .. } = how {
                    // Only a settled threat's moves are generated above.
                    generate(&pos, variant, Routes::Merge, &mut moves);
                }
                let full = pending.locate(i - c * CHUNK, how, &pos, &moves, |after| {
                    let after = white_to_move(after);
                    let m = Material::of(&after);
                    let (index, values) = lookup(m)
                        .ok_or_else(|| anyhow::anyhow!("{variant}-{material}: its moves lead to {variant}-{m}, not solved"))?;
                    Ok((values, index.index_unchecked(&after)))
                })?;
                if full {
                    pending.judge(&solved.values[c * CHUNK..], out);
                }
            }
            Ok::<_, anyhow::Error>(())
        })?;
        pending.judge(&solved.values[c * CHUNK..], out);
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(HowStored(stored))
}

/// The move limits of a slice, as far as they decide whether a position's
/// one-ply value is its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Wins and losses of at most these plies keep their one-ply value.
    exact_within: u16,
}

impl Limits {
    /// The limits of `rules` (not empty) in slice `material`.
    ///
    /// A win or loss of `d` plies (2 or more: a position without a move is
    /// a loss in 1, against a one-ply value of 0) is its one-ply value where
    /// every limit leaves more than `d + 1` plies, whoever wins and moves
    /// first. Its lines reset within `d` plies, so from one ply on (a
    /// successor's count) within every limit: a successor's stored value,
    /// from a fresh count, is then its value from that ply too (a fresh count
    /// only gives the winner more room, and the lines that win within it fit
    /// the tighter count), and so the best of them one ply back is the
    /// position's own, as without limits. Where a man move resets the
    /// distance ([`Binding::KingsOnly`]) a one-ply value, which counts on to
    /// the next conversion, is no distance of its: none is kept.
    pub fn of(rules: &RuleSet, material: Material) -> Limits {
        let exact_within = match rules.binding(material) {
            Binding::KingsOnly => 0,
            _ => rules.fewest_plies(material).map_or(u32::MAX, |p| p.saturating_sub(2)),
        };
        Limits { exact_within: exact_within.min(u16::MAX.into()) as u16 }
    }

    /// Whether a quiet position worth `own` has the distance of its one-ply
    /// value, with nothing to judge (a draw's distance is "don't care").
    fn keep_one_ply(self, own: Value) -> bool {
        match own.wdl {
            Wdl::Draw => true,
            Wdl::Win | Wdl::Loss => (2..=self.exact_within).contains(&own.plies.0),
            Wdl::CursedWin | Wdl::BlessedLoss => false,
        }
    }
}

/// Runs `f` with this thread's capture counts for searches of settled
/// threats in `variant` ([`CaptureCounts`]): kept from one chunk of
/// positions to the next, where the same positions come back (reading
/// slices back, which also searches for settled threats, ran 6% slower
/// with them: its searches are fewer and farther apart).
fn with_capture_counts<R>(variant: Variant, f: impl FnOnce(&mut CaptureCounts) -> R) -> R {
    thread_local! {
        static COUNTS: RefCell<Option<CaptureCounts>> = const { RefCell::new(None) };
    }
    COUNTS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut counts) => match &mut *counts {
            Some(c) if c.variant() == variant => f(c),
            slot => f(slot.insert(CaptureCounts::new(variant))),
        },
        // Called again inside `f` (no caller does): counts of its own.
        Err(_) => f(&mut CaptureCounts::new(variant)),
    })
}

/// Positions whose one-ply values wait to be judged (settled threats, and
/// the quiet positions whose distance comes from the twin), and where
/// their moves lead, located (and the lines asked for) ahead: the moves
/// lead all over the slice and the slices beside it, and reading each
/// successor as it is found waited on memory for most of the writing
/// (two thirds of it for a 7-piece slice of kings).
#[derive(Default)]
struct Pending<'a> {
    /// Each position's place within the chunk, how it is stored so far,
    /// and its successors' end.
    positions: Vec<(usize, Stored, usize)>,
    /// The values and index of each successor, and whether its move converts.
    successors: Vec<(Values<'a>, u64, bool)>,
}

impl<'a> Pending<'a> {
    /// Successors located before they are read: enough to keep the lines of
    /// the first in cache until then, and the memory busy meanwhile.
    const BATCH: usize = 256;

    /// Locates the successors of `pos` (at `at` of the chunk, stored `how`
    /// until judged) and asks for their lines; whether the batch is full.
    fn locate(
        &mut self,
        at: usize,
        how: Stored,
        pos: &Position,
        moves: &[Move],
        mut successor: impl FnMut(&Position) -> Result<(Values<'a>, u64)>,
    ) -> Result<bool> {
        for m in moves {
            let (values, index) = successor(&pos.play(m))?;
            values.prefetch(index);
            self.successors.push((values, index, m.converts()));
        }
        self.positions.push((at, how, self.successors.len()));
        Ok(self.successors.len() >= Self::BATCH)
    }

    /// Stores how each position is stored, given its own `values` (those
    /// of the chunk, from its first position), and empties the batch.
    fn judge(&mut self, values: &[u16], out: &mut [u8]) {
        let mut from = 0;
        for &(at, how, to) in &self.positions {
            let successors = self.successors[from..to].iter().map(|&(v, i, converts)| Ok::<_, Infallible>((v.at(i), converts)));
            let Ok(one_ply) = best_one_ply_back(successors);
            let own = unpacked(values[at]);
            let stands = one_ply.wdl != own.wdl;
            let value_stands = one_ply != own && own.wdl != Wdl::Draw;
            let how = match how {
                Stored::ThreatForTwin { .. } => Stored::ThreatForTwin { stands },
                Stored::FromTwin { .. } => Stored::FromTwin { value_stands },
                _ => Stored::Threat { stands, value_stands },
            };
            HowStored::put(out, at, how);
            from = to;
        }
        self.positions.clear();
        self.successors.clear();
    }
}

fn unpacked(packed: u16) -> Value {
    Value::unpack(packed).expect("solver writes valid values")
}

/// Writes both files of a slice of any game from its packed values (one
/// per position, index order), the files at `path(kind)`; `stored.get(i)`:
/// how position `i`'s entries are stored, as `resolution` allows; the
/// entries in whichever of `orders` compresses the results best. Returns
/// the bytes written, `.wdl` and `.dtc`.
#[allow(clippy::too_many_arguments)]
pub fn write_slice(
    path: impl Fn(Kind) -> PathBuf,
    slice: TableSlice,
    rules: &RulesId,
    distances: Distances,
    resolution: Resolution,
    values: &[u16],
    stored: &impl Ways,
    orders: &[EntryOrder],
) -> Result<[u64; 2]> {
    let tally = Tally::of(values);
    assert_eq!(tally.invalid, 0, "solver writes valid values");
    let (counts, (longest_win, longest_loss)) = (tally.counts, tally.longest_plies());
    let layout = |order| slice.layout(order);
    let best = best_orders(orders, values, stored, layout);
    let positions = values.len() as u64;
    let widest = (0..values.len())
        .into_par_iter()
        .filter(|&i| kept(stored.get(i), values[i])[1])
        .map(|i| values[i] >> 3)
        .max()
        .unwrap_or(0);
    let distance_bytes = if widest > u8::MAX as u16 { 2 } else { 1 };
    // One pass for both files where they share an order.
    let files = if best[0] == best[1] {
        encode(values, stored, layout(best[0]), &[Kind::Wdl, Kind::Distance], distance_bytes)
    } else {
        let mut files = encode(values, stored, layout(best[0]), &[Kind::Wdl], distance_bytes);
        files.extend(encode(values, stored, layout(best[1]), &[Kind::Distance], distance_bytes));
        files
    };
    let mut bytes = [0; 2];
    for (i, (kind, file)) in [Kind::Wdl, Kind::Distance].into_iter().zip(files).enumerate() {
        let order = best[i];
        let entry_bytes = if kind == Kind::Distance { distance_bytes } else { 1 };
        let list = encode_stored_entries(&file.listed);
        let header = Header {
            slice,
            kind,
            rules_name: rules.name.clone(),
            rules_hash: rules.hash,
            positions,
            entry_bytes,
            order,
            block_positions: block_positions(kind),
            blocks: positions.div_ceil(block_positions(kind) as u64) as u32,
            counts,
            longest_win,
            longest_loss,
            stored_entries: file.listed.len() as u32,
            // Set as the file is put together.
            stored_entries_len: 0,
            stored_entries_checksum: 0,
            code_table_len: 0,
            code_table_checksum: 0,
            distances: if kind == Kind::Distance { distances } else { Distances::Own },
            resolution,
        };
        bytes[i] = write_file(&path(kind), &header, &list, &file.table, &file.blocks)?;
    }
    Ok(bytes)
}

/// Positions a range, encoded at once: a whole number of blocks of either
/// file (16 and 24), so that beside the values about 2 MiB a range are in
/// flight, whatever the size of the slice.
const RANGE_POSITIONS: u64 = 3 << 16;

/// Ranges laid out at a time: two a thread keep the threads busy; at most
/// 16, some tens of MiB on a machine of many cores.
fn ranges_at_once() -> usize {
    (2 * rayon::current_num_threads()).min(16)
}

/// A file's compressed blocks, its table of code words (`.wdl`), and the
/// indices of the settled threats whose entry it lists.
#[derive(Default)]
struct Encoded {
    blocks: Vec<Vec<u8>>,
    table: Vec<u8>,
    listed: Vec<u64>,
}

/// A file's blocks as they are laid out: a `.wdl` block's runs wait until
/// the whole file's are counted (one table of code words serves them all).
enum Laid {
    Runs(Vec<BlockRuns>),
    Compressed(Vec<Vec<u8>>),
}

/// The files of `kinds`, their entries laid out by `layout`, encoded range
/// by range, several ranges at once; `.dtc` entries of `distance_bytes`
/// each.
fn encode(values: &[u16], stored: &impl Ways, layout: EntryLayout, kinds: &[Kind], distance_bytes: u8) -> Vec<Encoded> {
    let n = values.len() as u64;
    let mut files: Vec<Encoded> = kinds.iter().map(|_| Encoded::default()).collect();
    let mut runs: Vec<Vec<BlockRuns>> = kinds.iter().map(|_| Vec::new()).collect();
    let mut carry = Carry::default();
    let ranges: Vec<u64> = (0..n).step_by(RANGE_POSITIONS as usize).collect();
    for group in ranges.chunks(ranges_at_once()) {
        let mut parts: Vec<Entries> = group
            .par_iter()
            .map(|&start| stored_entries(values, stored, layout, start..n.min(start + RANGE_POSITIONS)))
            .collect();
        for entries in &mut parts {
            entries.follow(&mut carry);
        }
        let laid: Vec<Vec<(Laid, Vec<u64>)>> = parts
            .into_par_iter()
            .map(|mut entries| {
                kinds
                    .iter()
                    .map(|&kind| match kind {
                        Kind::Wdl => (Laid::Runs(result_runs(&entries.codes)), std::mem::take(&mut entries.stored_results)),
                        Kind::Distance => {
                            let raw = distance_entries(&entries.distances, distance_bytes);
                            (Laid::Compressed(compress_distances(&raw, distance_bytes)), std::mem::take(&mut entries.stored_distances))
                        }
                    })
                    .collect()
            })
            .collect();
        for part in laid {
            for (k, (laid, listed)) in part.into_iter().enumerate() {
                match laid {
                    Laid::Runs(r) => runs[k].extend(r),
                    Laid::Compressed(blocks) => files[k].blocks.extend(blocks),
                }
                files[k].listed.extend(listed);
            }
        }
    }
    for (file, runs) in files.iter_mut().zip(runs) {
        if !runs.is_empty() {
            let encoder = runs::Encoder::new(&frequencies(&runs));
            file.blocks = runs.par_iter().map(|r| encoder.encode(r)).collect();
            file.table = compress_code_table(encoder.table());
        }
        file.listed.sort_unstable();
    }
    files
}

/// How often each run of `blocks` occurs.
fn frequencies(blocks: &[BlockRuns]) -> runs::Frequencies {
    blocks
        .par_iter()
        .fold(runs::Frequencies::default, |mut f, r| {
            f.add_block(r);
            f
        })
        .reduce(runs::Frequencies::default, |a, b| a.merge(&b))
}

/// The runs of each block of result `codes`.
fn result_runs(codes: &[u8]) -> Vec<BlockRuns> {
    codes.chunks(block_positions(Kind::Wdl) as usize).map(runs::block_runs).collect()
}

thread_local! {
    // A compression context per thread, not per block: each new one
    // allocates and fills its tables again (2% of a pure build's CPU).
    static COMPRESSOR: RefCell<zstd::bulk::Compressor<'static>> = RefCell::new(damka::format::distance_compressor());
}

/// The compressed blocks of `raw`, distances of `width` bytes.
fn compress_distances(raw: &[u8], width: u8) -> Vec<Vec<u8>> {
    let chunk = block_positions(Kind::Distance) as usize * width as usize;
    raw.par_chunks(chunk).map(|c| COMPRESSOR.with(|z| z.borrow_mut().compress(c).expect("in-memory compression"))).collect()
}

/// The entries of both files in a range of slots, and the settled threats
/// whose result, and whose distance, is stored. The entries before the
/// range's first kept result (distance) are left to [`Entries::follow`].
struct Entries {
    codes: Vec<u8>,
    distances: Vec<u16>,
    stored_results: Vec<u64>,
    stored_distances: Vec<u64>,
    /// Entries before the first kept result, and before the first kept
    /// distance.
    leading: [usize; 2],
    /// The last kept entries, if any was kept.
    last: Carry,
}

impl Entries {
    /// Fills the leading "don't care" entries from `carry`, what the ranges
    /// before left, and leaves in it what this range leaves.
    fn follow(&mut self, carry: &mut Carry) {
        self.codes[..self.leading[0]].fill(carry.code);
        self.distances[..self.leading[1]].fill(carry.distance);
        if self.leading[0] < self.codes.len() {
            carry.code = self.last.code;
        }
        if self.leading[1] < self.distances.len() {
            carry.distance = self.last.distance;
        }
    }
}

/// Of `orders` (the index's own first), the one whose `.wdl` blocks
/// compress smallest and the one whose `.dtc` blocks do, judged on one
/// `.wdl` block in 8 spread over the slice, at most 64 or so (the entropy
/// of their runs, what the run coding comes within a few percent of), and
/// the same positions of the `.dtc`, compressed at zstd's fastest level
/// (within half a percent of compressing every block in every order as
/// written; docs/COMPRESSION.md).
fn best_orders(
    orders: &[EntryOrder],
    values: &[u16],
    stored: &impl Ways,
    layout: impl Fn(EntryOrder) -> EntryLayout + Sync,
) -> [EntryOrder; 2] {
    if orders.len() < 2 {
        return [orders.first().copied().unwrap_or(EntryOrder::INDEX); 2];
    }
    let per = block_positions(Kind::Wdl) as u64;
    let n = values.len() as u64;
    let wide = values.iter().any(|&v| v >> 3 > u8::MAX as u16);
    let blocks = n.div_ceil(per);
    let step = (blocks / 64).max(8);
    let sizes: Vec<[usize; 2]> = orders
        .par_iter()
        .map(|&order| {
            let layout = layout(order);
            let (results, distance_bytes) = (0..blocks.div_ceil(step))
                .into_par_iter()
                .map_init(
                    || zstd::bulk::Compressor::new(1).expect("a zstd context"),
                    |z, b| {
                        let slots = b * step * per..n.min((b * step + 1) * per);
                        let mut entries = stored_entries(values, stored, layout, slots);
                        entries.follow(&mut Carry::default());
                        let mut results = runs::Frequencies::default();
                        results.add_block(&runs::block_runs(&entries.codes));
                        let distances = distance_entries(&entries.distances, if wide { 2 } else { 1 });
                        let dtc_chunk = block_positions(Kind::Distance) as usize * if wide { 2 } else { 1 };
                        let size = distances.chunks(dtc_chunk).map(|c| z.compress(c).expect("in-memory compression").len()).sum::<usize>();
                        (results, size)
                    },
                )
                .reduce(|| (runs::Frequencies::default(), 0), |a, b| (a.0.merge(&b.0), a.1 + b.1));
            [(results.entropy_bits() / 8.0) as usize, distance_bytes]
        })
        .collect();
    // Another order must save 5% of the samples' bytes: smaller gains are
    // within the sampling's error, and the index's own order keeps the
    // positions a settled threat's moves reach closer together (fewer
    // blocks for a probe that misses the cache).
    [0, 1].map(|k| {
        let best = (0..orders.len()).min_by_key(|&o| (sizes[o][k], o)).expect("an order");
        if sizes[best][k] * 20 < sizes[0][k] * 19 { orders[best] } else { orders[0] }
    })
}

/// Distances as a `.dtc` file's entries of `width` bytes.
fn distance_entries(distances: &[u16], width: u8) -> Vec<u8> {
    match width {
        1 => distances.iter().map(|&d| d as u8).collect(),
        _ => distances.iter().flat_map(|d| d.to_le_bytes()).collect(),
    }
}

/// Which of a position's entries the files keep: its result, its
/// distance (a draw's is "don't care").
fn kept(stored: Stored, packed: u16) -> [bool; 2] {
    match stored {
        Stored::Plain => [true, packed & 7 != 0],
        Stored::Capture { result } => [result, false],
        Stored::Threat { stands, value_stands } => [stands, value_stands],
        Stored::ThreatForTwin { stands } => [stands, packed & 7 != 0],
        Stored::FromTwin { value_stands } => [true, value_stands],
    }
}

/// The last entries kept before the slots in work: what a "don't care"
/// entry repeats.
#[derive(Clone, Copy, Default)]
struct Carry {
    code: u8,
    distance: u16,
}

/// The result codes and distances as the files store them in `slots`
/// under `layout`: a "don't care" entry repeats the one before it (those
/// before the first kept one wait for [`Entries::follow`]). The lists of
/// stored entries hold indices in the order of the slots ([`encode`] sorts
/// them).
fn stored_entries(values: &[u16], stored: &impl Ways, layout: EntryLayout, slots: std::ops::Range<u64>) -> Entries {
    let n = (slots.end - slots.start) as usize;
    let (mut codes, mut distances) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut stored_results, mut stored_distances) = (Vec::new(), Vec::new());
    let (mut last, mut leading) = (Carry::default(), [n; 2]);
    // Another order than the index's own strides over the values, a page
    // or more a step: each entry waited on memory until its line was asked
    // for ahead.
    let indices: Vec<usize> = layout.indices(slots).map(|i| i as usize).collect();
    for (k, &i) in indices.iter().enumerate() {
        if let Some(&ahead) = indices.get(k + PREFETCH_AHEAD) {
            prefetch(&values[ahead]);
            stored.prefetch(ahead);
        }
        let packed = values[i];
        let how = stored.get(i);
        let [result, distance] = kept(how, packed);
        // What the reader would otherwise resolve is listed.
        match how {
            Stored::Threat { .. } | Stored::ThreatForTwin { .. } if result => stored_results.push(i as u64),
            _ => {}
        }
        match how {
            Stored::Threat { .. } | Stored::FromTwin { .. } if distance => stored_distances.push(i as u64),
            _ => {}
        }
        if result {
            last.code = (packed & 7) as u8;
            leading[0] = leading[0].min(k);
        }
        if distance {
            last.distance = packed >> 3;
            leading[1] = leading[1].min(k);
        }
        codes.push(last.code);
        distances.push(last.distance);
    }
    Entries { codes, distances, stored_results, stored_distances, leading, last }
}

/// Writes a table file: `header`, the block index, `list` (the stored
/// entries), `table` (the code words) and the compressed `blocks`.
fn write_file(path: &Path, header: &Header, list: &[u8], table: &[u8], blocks: &[Vec<u8>]) -> Result<u64> {
    let out = file_bytes(header, list, table, blocks).with_context(|| format!("cannot write {}", path.display()))?;
    write_atomically(path, &out).with_context(|| format!("cannot write {}", temporary_path(path).display()))?;
    Ok(out.len() as u64)
}

/// Reads and checks a whole table file.
fn open(path: &Path) -> Result<TableFile<Vec<u8>>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    TableFile::new(bytes).with_context(|| format!("{}", path.display()))
}

/// Both files of the slice exist, each holds what its name says (kind,
/// variant, material, every position of the slice) under this rule set,
/// and every block of its whole block index checks out: an earlier run
/// finished this slice. Anything else (a swapped or half-written file, one
/// of another build) is built again.
pub fn is_finished(dir: &Path, variant: Variant, rules: &RulesId, material: Material) -> bool {
    let positions = damka::SliceIndex::new(material).size();
    let path = |kind| table_path(dir, variant, material, kind);
    is_written(path, TableSlice::Draughts(variant, material), positions, rules)
}

/// Both files of a slice of any game, at `path(kind)`, are whole and hold
/// what is asked (see [`is_finished`]).
pub fn is_written(path: impl Fn(Kind) -> PathBuf, slice: TableSlice, positions: u64, rules: &RulesId) -> bool {
    [Kind::Wdl, Kind::Distance].iter().all(|&kind| {
        let Ok(file) = open(&path(kind)) else { return false };
        let h = file.header();
        h.kind == kind
            && h.slice == slice
            && h.positions == positions
            && h.rules_name == rules.name
            && h.rules_hash == rules.hash
            && file.check_all().is_ok()
    })
}

/// Loads a finished slice back into memory (to resume a run): its files,
/// with capture positions resolved from the slices in `known`.
pub fn load(dir: &Path, variant: Variant, material: Material, known: &KeptSlices) -> Result<Solved> {
    let mut dense = vec![None; MATERIAL_CODES];
    for k in known.values() {
        dense[material_code(k.index.material())] = Some(k.view());
    }
    let lookup = |m: Material| dense[material_code(m)];
    Ok(catalog::read_slice(dir, SliceId { variant, material }, &lookup, catalog::Want::Results)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every quiet position whose one-ply value the limits keep (the
    /// writer judges it no further) has its own value one ply back from
    /// its moves, under each game's rule set, in every slice up to 4 pieces:
    /// rules counted in plies and in moves, of one counter and of two, and
    /// the main-road rule that looks at more than material. And the limits
    /// keep some in each game: a bound that kept none would pass the check.
    #[test]
    fn limits_keep_only_one_ply_values() {
        use crate::solver::{Metric, Options};
        use std::sync::Arc;
        for (variant, rules) in [(Variant::Russian, "russian"), (Variant::Brazilian, "brazilian"), (Variant::English, "english")] {
            let rules = Arc::new(RuleSet::preset(rules).expect("a preset"));
            let opts = Options { variant, metric: Metric::Conversion, rules: Some(rules.clone()) };
            let known = crate::driver::solve_in_memory(&opts, 4);
            let (mut kept, mut judged) = (0u64, 0u64);
            let mut moves = Vec::new();
            for (&material, solved) in &known {
                let limits = Limits::of(&rules, material);
                for i in 0..solved.values.len() {
                    let own = unpacked(solved.values[i]);
                    if solved.captures.get(i) || own.wdl == Wdl::Draw {
                        continue;
                    }
                    if !limits.keep_one_ply(own) {
                        judged += 1;
                        continue;
                    }
                    kept += 1;
                    let pos = solved.index.position(i as u64);
                    generate(&pos, variant, Routes::Merge, &mut moves);
                    let successors = moves.iter().map(|m| {
                        let after = white_to_move(&pos.play(m));
                        Ok::<_, Infallible>((known[&Material::of(&after)].value(&after), m.converts()))
                    });
                    let Ok(one_ply) = best_one_ply_back(successors);
                    assert_eq!(one_ply, own, "{variant}-{material}, position {i}: {limits:?}");
                }
            }
            assert!(kept > 0, "{variant}: {kept} kept, {judged} judged");
        }
    }

    /// Each way of storing keeps its own half byte, next to any other.
    #[test]
    fn how_stored_gives_back_each_position_s_way() {
        let ways: Vec<Stored> = [Stored::Plain, Stored::Capture { result: false }, Stored::Capture { result: true }]
            .into_iter()
            .chain([false, true].into_iter().flat_map(|s| [false, true].map(|v| Stored::Threat { stands: s, value_stands: v })))
            .chain([false, true].map(|stands| Stored::ThreatForTwin { stands }))
            .chain([false, true].map(|value_stands| Stored::FromTwin { value_stands }))
            .collect();
        assert_eq!(ways.iter().map(|w| w.code()).collect::<std::collections::BTreeSet<_>>().len(), ways.len());
        let all: Vec<Stored> = ways.iter().flat_map(|&a| ways.iter().map(move |&b| [a, b])).flatten().collect();
        let mut codes = vec![0u8; all.len().div_ceil(2)];
        for (i, &how) in all.iter().enumerate() {
            HowStored::put(&mut codes, i, how);
        }
        let stored = HowStored(codes);
        for (i, &how) in all.iter().enumerate() {
            assert_eq!(stored.get(i), how, "position {i}");
        }
    }

    /// Ranges laid out apart, each followed by the one before, give the
    /// entries of the whole laid out at once, in every order: cuts inside
    /// runs of "don't care" entries, a range of nothing but those, and a
    /// range of one.
    #[test]
    fn ranges_laid_out_apart_and_followed_in_order_are_the_whole() {
        let material: Material = "KMvKM".parse().unwrap();
        let index = damka::SliceIndex::new(material);
        let n = index.size() as usize;
        let wdls = [Wdl::Win, Wdl::Draw, Wdl::Loss, Wdl::CursedWin, Wdl::BlessedLoss];
        let values: Vec<u16> = (0..n)
            .map(|i| {
                let wdl = wdls[(i / 7 + i / 300) % wdls.len()];
                Value::new(wdl, if wdl == Wdl::Draw { 0 } else { (i % 97) as u16 }).pack()
            })
            .collect();
        let mut codes = vec![0u8; n.div_ceil(2)];
        for i in 0..n {
            let how = match i {
                _ if (i / 700) % 3 == 0 => Stored::Capture { result: i % 7 == 3 },
                _ if i % 5 == 0 => Stored::Threat { stands: i % 2 == 0, value_stands: i % 3 == 0 },
                _ => Stored::Plain,
            };
            HowStored::put(&mut codes, i, how);
        }
        let stored = HowStored(codes);
        let cuts = [0, 1, 650, 699, 2100, 2101, n / 2, n];
        for order in EntryOrder::distinct(&index) {
            let layout = TableSlice::Draughts(Variant::Russian, material).layout(order);
            let mut whole = stored_entries(&values, &stored, layout, 0..n as u64);
            whole.follow(&mut Carry::default());
            let (mut carry, mut codes, mut distances) = (Carry::default(), Vec::new(), Vec::new());
            for cut in cuts.windows(2) {
                let mut part = stored_entries(&values, &stored, layout, cut[0] as u64..cut[1] as u64);
                part.follow(&mut carry);
                codes.extend(part.codes);
                distances.extend(part.distances);
            }
            assert_eq!(codes, whole.codes, "{order:?}");
            assert_eq!(distances, whole.distances, "{order:?}");
            assert!(whole.leading[0] > 0 && whole.codes.iter().any(|&c| c != whole.codes[0]), "{order:?}");
        }
    }
}
