//! Working copies: a slice dropped to keep the memory budget, kept on disk
//! as the solver holds it, so that bringing it back is a read, not a
//! read-back from its tables.
//!
//! Reading a slice back from its tables resolves every "don't care" entry
//! by searching captures into the slices they lead to, which must be
//! loaded first: at 7 pieces with a 17 GiB budget the schedule would read
//! back more positions than the build solves. A working copy holds what
//! the build keeps of the slice ([`Kept`]: results, two positions a
//! byte), zstd-compressed in chunks, each with its checksum; restoring one
//! needs no other slice.
//!
//! `<variant>-<material>.spill` sits beside the tables. Only a whole build
//! writes them (it holds the directory alone), and it deletes them: each
//! after its last restore, all that are left when it ends, and at its start
//! any a killed run left. A pair job never writes one, so no two processes
//! share a name.
//!
//! The file: [`MAGIC`], the slice's material (4 bytes: own kings, own men,
//! opponent's kings, opponent's men) and its position count (8 bytes, LE),
//! then the chunks in order, each framed by its compressed length (8 bytes)
//! and its checksum ([`block_checksum`], 8 bytes). A chunk holds [`CHUNK`]
//! bytes of results ([`Kept::codes`]), the last one the rest.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use damka::directory::temporary_path;
use damka::format::block_checksum;
use damka::{Material, SliceIndex, Variant};
use rayon::prelude::*;

use crate::kept::Kept;

const MAGIC: &[u8; 8] = b"damkaS02";

/// Bytes of results per chunk (two positions a byte).
const CHUNK: usize = 1 << 19;

/// Chunks compressed or decompressed at once: what is in flight beside the
/// slice stays at a few tens of MiB.
const BATCH: usize = 16;

/// Working copies are written once and read once or twice: speed first.
const ZSTD_LEVEL: i32 = 1;

/// What restoring a slice needs beside its results, bytes: a batch of
/// chunks, compressed and not.
pub const RESTORING_BYTES: f64 = (BATCH * CHUNK * 2) as f64;

pub fn spill_path(dir: &Path, variant: Variant, material: Material) -> PathBuf {
    dir.join(format!("{variant}-{material}.spill"))
}

/// Whether a file name is a working copy's (`russian-KKvK.spill`).
pub fn is_spill_name(name: &str) -> bool {
    crate::writer::is_slice_file(name, ".spill")
}

/// Deletes every working copy in `dir` (and its temporary file).
pub fn remove_all(dir: &Path) -> Result<()> {
    crate::claim::remove_files(dir, |name| is_spill_name(name) || name.strip_suffix(".tmp").is_some_and(is_spill_name))
}

fn material_bytes(m: Material) -> [u8; 4] {
    [m.own_kings, m.own_men, m.opp_kings, m.opp_men]
}

/// Writes the working copy of `kept` to `path` (under its temporary name,
/// then renamed); returns its size in bytes.
pub fn write(path: &Path, kept: &Kept) -> Result<u64> {
    let tmp = temporary_path(path);
    let written = write_to(&tmp, kept).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
    Ok(written)
}

fn write_to(tmp: &Path, kept: &Kept) -> Result<u64> {
    let mut out = BufWriter::new(File::create(tmp)?);
    out.write_all(MAGIC)?;
    out.write_all(&material_bytes(kept.index.material()))?;
    out.write_all(&kept.index.size().to_le_bytes())?;
    let mut written = (MAGIC.len() + 12) as u64;
    let chunks: Vec<&[u8]> = kept.codes().chunks(CHUNK).collect();
    for batch in chunks.chunks(BATCH) {
        let compressed: Vec<Vec<u8>> = batch
            .par_iter()
            .map(|codes| zstd::bulk::compress(codes, ZSTD_LEVEL).expect("compressing to memory cannot fail"))
            .collect();
        for chunk in compressed {
            out.write_all(&(chunk.len() as u64).to_le_bytes())?;
            out.write_all(&block_checksum(&chunk).to_le_bytes())?;
            out.write_all(&chunk)?;
            written += 16 + chunk.len() as u64;
        }
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(written)
}

/// Reads the working copy of slice `material` at `path`, checking that it
/// is that slice's, whole and undamaged.
pub fn read(path: &Path, material: Material) -> Result<Kept> {
    read_from(path, material).with_context(|| format!("working copy {}", path.display()))
}

fn read_from(path: &Path, material: Material) -> Result<Kept> {
    let mut input = BufReader::new(File::open(path).context("cannot open it")?);
    let mut head = [0u8; 20];
    input.read_exact(&mut head).context("shorter than its header")?;
    if &head[..8] != MAGIC {
        bail!("not a working copy of this version of damka");
    }
    let index = SliceIndex::new(material);
    let positions = u64::from_le_bytes(head[12..20].try_into().expect("8 bytes"));
    if head[8..12] != material_bytes(material) || positions != index.size() {
        bail!("it holds another slice, not {material}");
    }
    let mut codes = vec![0u8; positions.div_ceil(2) as usize];
    for (b, codes) in codes.chunks_mut(CHUNK * BATCH).enumerate() {
        let mut compressed = Vec::with_capacity(BATCH);
        for c in 0..codes.len().div_ceil(CHUNK) {
            let chunk = b * BATCH + c;
            let mut frame = [0u8; 16];
            input.read_exact(&mut frame).with_context(|| format!("chunk {chunk} is missing: the file is cut short"))?;
            let len = u64::from_le_bytes(frame[..8].try_into().expect("8 bytes"));
            if len > 2 * CHUNK as u64 {
                bail!("chunk {chunk} claims {len} bytes: the file is damaged");
            }
            let mut bytes = vec![0u8; len as usize];
            input.read_exact(&mut bytes).with_context(|| format!("chunk {chunk} is cut short"))?;
            if block_checksum(&bytes) != u64::from_le_bytes(frame[8..].try_into().expect("8 bytes")) {
                bail!("chunk {chunk} fails its checksum: the file is damaged");
            }
            compressed.push(bytes);
        }
        codes.par_chunks_mut(CHUNK).zip(compressed).enumerate().try_for_each(|(c, (codes, bytes))| {
            let chunk = b * BATCH + c;
            let raw = zstd::bulk::decompress(&bytes, codes.len()).with_context(|| format!("chunk {chunk} does not decompress"))?;
            if raw.len() != codes.len() {
                bail!("chunk {chunk} holds {} bytes, not {}", raw.len(), codes.len());
            }
            codes.copy_from_slice(&raw);
            Ok(())
        })?;
    }
    if input.read(&mut [0u8])? != 0 {
        bail!("it runs on past its last chunk");
    }
    Ok(Kept::from_codes(index, codes).expect("as many bytes as the slice has positions in pairs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slice of more than one batch of chunks, its last chunk partial,
    /// with results that differ from position to position.
    fn sample() -> Kept {
        let material: Material = "KKKvKKK".parse().unwrap();
        let index = SliceIndex::new(material);
        let n = index.size().div_ceil(2) as usize;
        assert!(n > CHUNK * BATCH && !n.is_multiple_of(CHUNK), "{n} bytes");
        let codes = (0..n).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8 & 0x77).collect();
        Kept::from_codes(index, codes).unwrap()
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("damka-spill-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("russian-KKKvKKK.spill")
    }

    #[test]
    fn a_working_copy_gives_back_what_was_spilled_and_refuses_damage() {
        let kept = sample();
        let m = kept.index.material();
        let path = temp("round");
        let bytes = write(&path, &kept).unwrap();
        assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
        assert!(!temporary_path(&path).exists());
        let back = read(&path, m).unwrap();
        assert!(back.codes() == kept.codes(), "results differ");
        let fails = |bytes: &[u8], want: &str| {
            std::fs::write(&path, bytes).unwrap();
            let err = format!("{:#}", read(&path, m).err().unwrap_or_else(|| panic!("accepted: {want}")));
            assert!(err.contains(&path.display().to_string()) && err.contains(want), "{err}");
        };
        let good = std::fs::read(&path).unwrap();
        let mut damaged = good.clone();
        damaged[good.len() / 2] ^= 0x10;
        fails(&damaged, "fails its checksum");
        fails(&good[..good.len() - 100], "cut short");
        fails(&good[..good.len() / 3], "cut short");
        fails(&[good.as_slice(), b"x"].concat(), "runs on past its last chunk");
        fails(&good[..10], "shorter than its header");
        let mut other = good.clone();
        other[9] = 2;
        fails(&other, "another slice, not KKKvKKK");
        let mut version = good;
        version[7] = b'0';
        fails(&version, "not a working copy");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn only_working_copies_are_removed() {
        let path = temp("remove");
        let dir = path.parent().unwrap();
        for name in ["russian-KvK.spill", "russian-KvK.spill.tmp", "russian-KvK.wdl", "notes.spill"] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        remove_all(dir).unwrap();
        let mut left: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, ["notes.spill", "russian-KvK.wdl"]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
