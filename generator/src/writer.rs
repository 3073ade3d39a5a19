//! Compression and writing of table files (docs/FORMAT.md).
//!
//! Each solved slice becomes two files: `.wdl` (one result code per
//! position, what engines probe in search) and `.dtc` (the distance to the
//! next conversion of each win and loss). Capture positions are "don't
//! care" in both, and so are draws in `.dtc`: they repeat the entry before
//! them, which extends a run and costs next to nothing after compression
//! (docs/COMPRESSION.md has the measurements). Blocks are compressed in
//! parallel; a file is written under a temporary name of its own
//! (`russian-KvK.wdl.tmp`) and renamed into place, so a finished name always
//! holds a finished file.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use damka::directory::{temporary_path, write_atomically};
use damka::format::{
    block_checksum, pack_entries, BlockEntry, Counts, Header, Kind, TableFile, TableSlice, BLOCK_ENTRY_LEN, HEADER_LEN,
};
use damka::{Material, Value, Variant, Wdl};
use rayon::prelude::*;

use crate::catalog::{self, SliceId};
use crate::solver::{Known, Solved};

/// The rule set a table was built with, as recorded in its header.
#[derive(Clone, Debug)]
pub struct RulesId {
    pub name: String,
    pub hash: u64,
}

/// Positions per block: small enough that one block decompresses in a few
/// microseconds when a probe misses the cache.
fn block_positions(kind: Kind) -> u32 {
    match kind {
        Kind::Wdl => 16 * 1024,
        Kind::Distance => 8 * 1024,
    }
}

/// zstd level: 9 gives 10-15% smaller blocks than 3 at a write speed that
/// keeps writing a small part of generation (docs/COMPRESSION.md).
const ZSTD_LEVEL: i32 = 9;

pub fn table_path(dir: &Path, variant: Variant, material: Material, kind: Kind) -> PathBuf {
    dir.join(format!("{variant}-{material}.{}", kind.extension()))
}

/// Writes both files of `solved`; returns the bytes written, `.wdl` and
/// `.dtc`.
pub fn write(dir: &Path, variant: Variant, rules: &RulesId, solved: &Solved) -> Result<[u64; 2]> {
    let material = solved.index.material();
    write_slice(
        |kind| table_path(dir, variant, material, kind),
        TableSlice::Draughts(variant, material),
        rules,
        &solved.values,
        |i| solved.captures.get(i),
    )
}

/// Writes both files of a slice of any game from its packed values (one
/// per position, index order), the files at `path(kind)`; `dont_care(i)`:
/// position `i`'s entries may hold anything. Returns the bytes written,
/// `.wdl` and `.dtc`.
pub fn write_slice(
    path: impl Fn(Kind) -> PathBuf,
    slice: TableSlice,
    rules: &RulesId,
    values: &[u16],
    dont_care: impl Fn(usize) -> bool,
) -> Result<[u64; 2]> {
    let mut counts = Counts::default();
    let (mut longest_win, mut longest_loss) = (0u16, 0u16);
    for &packed in values {
        let v = Value::unpack(packed).expect("solver writes valid values");
        match v.wdl {
            Wdl::Win => {
                counts.wins += 1;
                longest_win = longest_win.max(v.plies.0);
            }
            Wdl::CursedWin => counts.cursed_wins += 1,
            Wdl::Draw => counts.draws += 1,
            Wdl::BlessedLoss => counts.blessed_losses += 1,
            Wdl::Loss => {
                counts.losses += 1;
                longest_loss = longest_loss.max(v.plies.0);
            }
        }
    }
    let (codes, distances) = stored_entries(values, dont_care);
    let widest = distances.iter().copied().max().unwrap_or(0);
    let positions = values.len() as u64;
    let mut bytes = [0; 2];
    for (i, kind) in [Kind::Wdl, Kind::Distance].into_iter().enumerate() {
        let entry_bytes = if kind == Kind::Distance && widest > u8::MAX as u16 { 2 } else { 1 };
        let header = Header {
            slice,
            kind,
            rules_name: rules.name.clone(),
            rules_hash: rules.hash,
            positions,
            entry_bytes,
            block_positions: block_positions(kind),
            blocks: positions.div_ceil(block_positions(kind) as u64) as u32,
            counts,
            longest_win,
            longest_loss,
        };
        let raw: Vec<u8> = match (kind, entry_bytes) {
            (Kind::Wdl, _) => codes.clone(),
            (_, 1) => distances.iter().map(|&d| d as u8).collect(),
            _ => distances.iter().flat_map(|d| d.to_le_bytes()).collect(),
        };
        bytes[i] = write_file(&path(kind), &header, &raw)?;
    }
    Ok(bytes)
}

/// The result codes and distances as the files store them: a "don't care"
/// entry (any code of a `dont_care` position, the distance of such a
/// position or a draw) repeats the one before it.
fn stored_entries(values: &[u16], dont_care: impl Fn(usize) -> bool) -> (Vec<u8>, Vec<u16>) {
    let n = values.len();
    let (mut codes, mut distances) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut code, mut distance) = (0u8, 0u16);
    for (i, &packed) in values.iter().enumerate() {
        if !dont_care(i) {
            code = (packed & 7) as u8;
            if code != 0 {
                distance = packed >> 3;
            }
        }
        codes.push(code);
        distances.push(distance);
    }
    (codes, distances)
}

fn write_file(path: &Path, header: &Header, raw: &[u8]) -> Result<u64> {
    let chunk = header.block_positions as usize * header.entry_bytes as usize;
    let blocks: Vec<Vec<u8>> = raw
        .par_chunks(chunk.max(1))
        .map(|c| zstd::bulk::compress(&pack_entries(header.kind, c), ZSTD_LEVEL).expect("in-memory compression"))
        .collect();
    let mut offset = (HEADER_LEN + blocks.len() * BLOCK_ENTRY_LEN) as u64;
    let mut out = Vec::with_capacity(offset as usize + blocks.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(&header.encode().with_context(|| format!("cannot write {}", path.display()))?);
    for b in &blocks {
        let entry = BlockEntry { offset, len: b.len() as u32, checksum: block_checksum(b) };
        out.extend_from_slice(&entry.encode());
        offset += b.len() as u64;
    }
    for b in &blocks {
        out.extend_from_slice(b);
    }
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
pub fn load(dir: &Path, variant: Variant, material: Material, known: &Known) -> Result<Solved> {
    let lookup = |m: Material| known.get(&m).map(|s| (&s.index, &s.values[..]));
    Ok(catalog::read_slice(dir, SliceId { variant, material }, &lookup)?.0)
}
