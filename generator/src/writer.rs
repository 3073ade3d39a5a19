//! Compression and writing of table files (docs/FORMAT.md).
//!
//! Each solved slice becomes two files: `.wdl` (one result code per
//! position, what engines probe in search) and `.dtc` (result and distance
//! to conversion). Blocks are compressed in parallel; a file is written
//! under a temporary name of its own (`russian-KvK.wdl.tmp`) and renamed
//! into place, so a finished name always holds a finished file.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use damka::directory::{temporary_path, write_atomically};
use damka::format::{block_checksum, pack_entries, BlockEntry, Counts, Header, Kind, TableFile, BLOCK_ENTRY_LEN, HEADER_LEN};
use damka::{Material, SliceIndex, Value, Variant, Wdl};
use rayon::prelude::*;

use crate::solver::Solved;

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
        Kind::Value => 8 * 1024,
    }
}

/// zstd level per kind: the small result tables are worth a slow level,
/// the distance tables (six times larger before compression) are not.
fn zstd_level(kind: Kind) -> i32 {
    match kind {
        Kind::Wdl => 9,
        Kind::Value => 3,
    }
}

pub fn table_path(dir: &Path, variant: Variant, material: Material, kind: Kind) -> PathBuf {
    dir.join(format!("{variant}-{material}.{}", kind.extension()))
}

/// Writes both files of `solved`; returns the bytes written.
pub fn write(dir: &Path, variant: Variant, rules: &RulesId, solved: &Solved) -> Result<u64> {
    let mut counts = Counts::default();
    let (mut longest_win, mut longest_loss) = (0u16, 0u16);
    for &packed in &solved.values {
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
    let mut bytes = 0;
    for kind in [Kind::Wdl, Kind::Value] {
        let header = Header {
            variant,
            kind,
            material: solved.index.material(),
            rules_name: rules.name.clone(),
            rules_hash: rules.hash,
            positions: solved.index.size(),
            block_positions: block_positions(kind),
            blocks: solved.index.size().div_ceil(block_positions(kind) as u64) as u32,
            counts,
            longest_win,
            longest_loss,
        };
        let raw: Vec<u8> = match kind {
            Kind::Wdl => solved.values.iter().map(|&v| (v & 7) as u8).collect(),
            Kind::Value => solved.values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let path = table_path(dir, variant, solved.index.material(), kind);
        bytes += write_file(&path, &header, &raw)?;
    }
    Ok(bytes)
}

fn write_file(path: &Path, header: &Header, raw: &[u8]) -> Result<u64> {
    let chunk = header.block_positions as usize * header.kind.entry_bytes();
    let blocks: Vec<Vec<u8>> = raw
        .par_chunks(chunk.max(1))
        .map(|c| zstd::bulk::compress(&pack_entries(header.kind, c), zstd_level(header.kind)).expect("in-memory compression"))
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
    let positions = SliceIndex::new(material).size();
    [Kind::Wdl, Kind::Value].iter().all(|&kind| {
        let Ok(file) = open(&table_path(dir, variant, material, kind)) else { return false };
        let h = file.header();
        h.kind == kind
            && h.variant == variant
            && h.material == material
            && h.positions == positions
            && h.rules_name == rules.name
            && h.rules_hash == rules.hash
            && file.check_all().is_ok()
    })
}

/// Loads a finished slice back into memory (to resume a run).
pub fn load(dir: &Path, variant: Variant, material: Material) -> Result<Solved> {
    let path = table_path(dir, variant, material, Kind::Value);
    let file = open(&path)?;
    let index = SliceIndex::new(material);
    if file.header().positions != index.size() {
        bail!("{}: {} positions, expected {}", path.display(), file.header().positions, index.size());
    }
    let mut values = Vec::with_capacity(index.size() as usize);
    for b in 0..file.header().blocks {
        let raw = file.read_block(b).with_context(|| format!("{}", path.display()))?;
        values.extend(raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])));
    }
    Ok(Solved { index, values })
}
