//! Working copies: a slice dropped to keep the memory budget, kept on disk
//! as the solver holds it, so that bringing it back is a read, not a
//! read-back from its tables.
//!
//! Reading a slice back from its tables resolves every "don't care" entry
//! by searching captures into the slices they lead to, which must be
//! loaded first: at 7 pieces with a 17 GiB budget the schedule would read
//! back more positions than the build solves. A working copy holds the
//! values and capture bits themselves, zstd-compressed in chunks, each
//! with its checksum; restoring one needs no other slice.
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
//! and its checksum ([`block_checksum`], 8 bytes). A chunk of n positions
//! holds their packed values (2 bytes each, LE), then their capture bits
//! (n / 64 words of 8 bytes, LE).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use damka::directory::temporary_path;
use damka::format::block_checksum;
use damka::{Material, SliceIndex, Variant};
use rayon::prelude::*;

use crate::solver::{Captures, Solved};

const MAGIC: &[u8; 8] = b"damkaS01";

/// Positions per chunk: a multiple of 64, so that capture bits split at
/// words.
const CHUNK: usize = 1 << 20;

/// Chunks compressed or decompressed at once: what is in flight beside the
/// slice stays at a few tens of MiB.
const BATCH: usize = 16;

/// Working copies are written once and read once or twice: speed first.
const ZSTD_LEVEL: i32 = 1;

/// What restoring a slice needs beside its values, bytes: a batch of
/// chunks, compressed and not.
pub const RESTORING_BYTES: f64 = (BATCH * CHUNK) as f64 * 2.125 * 2.0;

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

/// Writes the working copy of `solved` to `path` (under its temporary name,
/// then renamed); returns its size in bytes.
pub fn write(path: &Path, solved: &Solved) -> Result<u64> {
    let tmp = temporary_path(path);
    let written = write_to(&tmp, solved).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
    Ok(written)
}

fn write_to(tmp: &Path, solved: &Solved) -> Result<u64> {
    let mut out = BufWriter::new(File::create(tmp)?);
    out.write_all(MAGIC)?;
    out.write_all(&material_bytes(solved.index.material()))?;
    out.write_all(&(solved.values.len() as u64).to_le_bytes())?;
    let mut written = (MAGIC.len() + 12) as u64;
    let words = solved.captures.words();
    let chunks: Vec<usize> = (0..solved.values.len().div_ceil(CHUNK)).collect();
    for batch in chunks.chunks(BATCH) {
        let compressed: Vec<Vec<u8>> = batch
            .par_iter()
            .map(|&c| {
                let values = &solved.values[c * CHUNK..((c + 1) * CHUNK).min(solved.values.len())];
                let bits = &words[c * CHUNK / 64..(c * CHUNK + values.len()).div_ceil(64)];
                let mut raw = Vec::with_capacity(values.len() * 2 + bits.len() * 8);
                raw.extend(values.iter().flat_map(|v| v.to_le_bytes()));
                raw.extend(bits.iter().flat_map(|w| w.to_le_bytes()));
                zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("compressing to memory cannot fail")
            })
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
pub fn read(path: &Path, material: Material) -> Result<Solved> {
    read_from(path, material).with_context(|| format!("working copy {}", path.display()))
}

fn read_from(path: &Path, material: Material) -> Result<Solved> {
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
    let mut values = vec![0u16; positions as usize];
    let mut words = vec![0u64; values.len().div_ceil(64)];
    for (b, (values, words)) in values.chunks_mut(CHUNK * BATCH).zip(words.chunks_mut(CHUNK * BATCH / 64)).enumerate() {
        let mut compressed = Vec::with_capacity(BATCH);
        for c in 0..values.len().div_ceil(CHUNK) {
            let chunk = b * BATCH + c;
            let mut frame = [0u8; 16];
            input.read_exact(&mut frame).with_context(|| format!("chunk {chunk} is missing: the file is cut short"))?;
            let len = u64::from_le_bytes(frame[..8].try_into().expect("8 bytes"));
            if len > 3 * CHUNK as u64 {
                bail!("chunk {chunk} claims {len} bytes: the file is damaged");
            }
            let mut bytes = vec![0u8; len as usize];
            input.read_exact(&mut bytes).with_context(|| format!("chunk {chunk} is cut short"))?;
            if block_checksum(&bytes) != u64::from_le_bytes(frame[8..].try_into().expect("8 bytes")) {
                bail!("chunk {chunk} fails its checksum: the file is damaged");
            }
            compressed.push(bytes);
        }
        values
            .par_chunks_mut(CHUNK)
            .zip(words.par_chunks_mut(CHUNK / 64))
            .zip(compressed)
            .enumerate()
            .try_for_each(|(c, ((values, words), bytes))| {
                let chunk = b * BATCH + c;
                let want = values.len() * 2 + words.len() * 8;
                let raw = zstd::bulk::decompress(&bytes, want).with_context(|| format!("chunk {chunk} does not decompress"))?;
                if raw.len() != want {
                    bail!("chunk {chunk} holds {} bytes, not {want}", raw.len());
                }
                let (v, w) = raw.split_at(values.len() * 2);
                for (value, b) in values.iter_mut().zip(v.chunks_exact(2)) {
                    *value = u16::from_le_bytes([b[0], b[1]]);
                }
                for (word, b) in words.iter_mut().zip(w.chunks_exact(8)) {
                    *word = u64::from_le_bytes(b.try_into().expect("8 bytes"));
                }
                Ok(())
            })?;
    }
    if input.read(&mut [0u8])? != 0 {
        bail!("it runs on past its last chunk");
    }
    Ok(Solved { index, values, captures: Captures::from_words(words) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slice of more than one batch of chunks, its last chunk partial,
    /// with values and capture bits that differ from position to position.
    fn sample() -> Solved {
        let material: Material = "KKKvKKK".parse().unwrap();
        let index = SliceIndex::new(material);
        let n = index.size() as usize;
        assert!(n > CHUNK * BATCH && !n.is_multiple_of(CHUNK), "{n} positions");
        let values = (0..n).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u16 % 4000).collect();
        let mut captures = Captures::new(n);
        for i in (0..n).filter(|i| i % 3 == 0 || i % 7 == 1) {
            captures.set(i);
        }
        Solved { index, values, captures }
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("damka-spill-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("russian-KKKvKKK.spill")
    }

    #[test]
    fn a_working_copy_gives_back_what_was_spilled_and_refuses_damage() {
        let solved = sample();
        let m = solved.index.material();
        let path = temp("round");
        let bytes = write(&path, &solved).unwrap();
        assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
        assert!(!temporary_path(&path).exists());
        let back = read(&path, m).unwrap();
        assert!(back.values == solved.values && back.captures == solved.captures, "values or capture bits differ");
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
