//! The journal of a slice pair in work, so that a run killed inside a pair
//! resumes from the pair's last finished level instead of its start (a
//! 7-piece pair takes many minutes).
//!
//! `<variant>-<material>.journal` sits beside the tables. It starts with a
//! line naming what it belongs to (variant, pair, rule set, damka version),
//! then one record per finished level of men configurations, appended as
//! the solver finishes it: the pass, the level, and the level's results,
//! zstd-compressed, framed by their length and checksum. A record cut short
//! or damaged (the process died while appending it) ends the journal: it
//! and everything after it are solved again. Levels are solved in a fixed
//! order from the same inputs, so a resumed pair gets the very values, and
//! its tables the very bytes, of an uninterrupted run. The journal is
//! deleted once both tables of the pair are written.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use damka::format::block_checksum;
use damka::{Material, Variant};
use rayon::prelude::*;

use crate::solver::{Checkpoint, ConfigResult, Pass};
use crate::writer::RulesId;

/// The first bytes of a journal, then the length of the line that follows.
const MAGIC: &[u8; 8] = b"damkaJ01";

/// Records compress fast: a journal is written once and read at most once.
const ZSTD_LEVEL: i32 = 1;

/// A record: payload length and checksum, pass and level, payload.
const FRAME_LEN: usize = 8 + 8 + 1 + 4;

pub fn journal_path(dir: &Path, variant: Variant, material: Material) -> PathBuf {
    dir.join(format!("{variant}-{material}.journal"))
}

/// Whether a file name is a journal's (`russian-KKvK.journal`).
pub fn is_journal_name(name: &str) -> bool {
    crate::writer::is_slice_file(name, ".journal")
}

/// An open journal: the levels an earlier run kept, and the file new ones
/// are appended to.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Kept levels not yet taken back, compressed.
    kept: HashMap<(Pass, usize), Vec<u8>>,
    restored: usize,
}

impl Journal {
    /// Opens the journal of the pair of `material`, keeping what an earlier
    /// run of this same build wrote; a journal of anything else, or none, is
    /// started afresh.
    pub fn open(dir: &Path, variant: Variant, material: Material, rules: &RulesId) -> Result<Journal> {
        let path = journal_path(dir, variant, material);
        let id = format!(
            "{variant} {material} rules {} {:016x} damka {}",
            rules.name,
            rules.hash,
            env!("CARGO_PKG_VERSION")
        );
        let mut head = MAGIC.to_vec();
        head.extend_from_slice(&(id.len() as u32).to_le_bytes());
        head.extend_from_slice(id.as_bytes());

        let bytes = match File::open(&path) {
            Ok(mut f) => {
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes).with_context(|| format!("cannot read {}", path.display()))?;
                bytes
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let (kept, good_len) = if bytes.starts_with(&head) { records(&bytes, head.len()) } else { (HashMap::new(), 0) };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut journal = Journal { path, file, kept, restored: 0 };
        if good_len == 0 {
            journal.file.set_len(0).and_then(|_| journal.file.write_all(&head))
        } else {
            // Drops a record cut short; appends go after the last good one.
            journal.file.set_len(good_len as u64).and_then(|_| {
                use std::io::Seek;
                journal.file.seek(std::io::SeekFrom::End(0)).map(|_| ())
            })
        }
        .with_context(|| format!("cannot write {}", journal.path.display()))?;
        Ok(journal)
    }

    /// How many levels came from the journal rather than the solver.
    pub fn restored(&self) -> usize {
        self.restored
    }

    /// The pair's tables are written: the journal has served.
    pub fn finish(self) -> Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path).with_context(|| format!("cannot delete {}", self.path.display()))
    }
}

/// The records of a journal after its head, up to the first damaged one,
/// and the length of the good part.
fn records(bytes: &[u8], mut at: usize) -> (HashMap<(Pass, usize), Vec<u8>>, usize) {
    let mut kept = HashMap::new();
    while let Some(frame) = bytes.get(at..at + FRAME_LEN) {
        let len = u64::from_le_bytes(frame[0..8].try_into().expect("8 bytes")) as usize;
        let checksum = u64::from_le_bytes(frame[8..16].try_into().expect("8 bytes"));
        let pass = match frame[16] {
            0 => Pass::Pure,
            1 => Pass::Rules,
            _ => break,
        };
        let level = u32::from_le_bytes(frame[17..21].try_into().expect("4 bytes")) as usize;
        let Some(payload) = at.checked_add(FRAME_LEN).and_then(|s| bytes.get(s..s.checked_add(len)?)) else { break };
        if block_checksum(&bytes[at + 16..at + FRAME_LEN + len]) != checksum {
            break;
        }
        kept.insert((pass, level), payload.to_vec());
        at += FRAME_LEN + len;
    }
    (kept, at)
}

impl Checkpoint for Journal {
    fn restore(&mut self, pass: Pass, level: usize) -> Result<Option<Vec<ConfigResult>>> {
        let Some(compressed) = self.kept.remove(&(pass, level)) else { return Ok(None) };
        let payload = zstd::decode_all(&compressed[..]).with_context(|| format!("{}: level {level}", self.path.display()))?;
        let results = decode(&payload).with_context(|| format!("{}: level {level} is damaged", self.path.display()))?;
        self.restored += 1;
        Ok(Some(results))
    }

    fn save(&mut self, pass: Pass, level: usize, results: &[ConfigResult]) -> Result<()> {
        let payload = compress(&encode(results)).context("compressing a journal record")?;
        let mut record = Vec::with_capacity(FRAME_LEN + payload.len());
        record.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        record.extend_from_slice(&[0; 8]);
        record.push(pass as u8);
        record.extend_from_slice(&(level as u32).to_le_bytes());
        record.extend_from_slice(&payload);
        let checksum = block_checksum(&record[16..]);
        record[8..16].copy_from_slice(&checksum.to_le_bytes());
        // One write per record: a kill leaves it whole or cut short, and a
        // cut record fails its checksum on the next run.
        self.file.write_all(&record).with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// Bytes of a record compressed as one zstd frame, about: the frames of a
/// record are compressed in parallel (one core compressing a level's
/// record while the other waited cost 2.6% of a 5-piece build) and read
/// back as one stream, frame after frame.
const FRAME_BYTES: usize = 1 << 20;

/// The record of `pieces`, coded one after the other, compressed frame by
/// frame. A frame gathers pieces (a configuration can be a few bytes) and
/// splits those larger than a frame; only a frame's bytes are copied
/// together, never the whole level's beside its pieces.
fn compress(pieces: &[Vec<u8>]) -> std::io::Result<Vec<u8>> {
    let mut frames: Vec<Vec<&[u8]>> = vec![Vec::new()];
    let mut filled = 0;
    for part in pieces.iter().flat_map(|p| p.chunks(FRAME_BYTES)) {
        if filled + part.len() > FRAME_BYTES {
            frames.push(Vec::new());
            filled = 0;
        }
        frames.last_mut().expect("a frame").push(part);
        filled += part.len();
    }
    let frames = frames
        .par_iter()
        .with_max_len(1)
        .map(|parts| zstd::bulk::compress(&parts.concat(), ZSTD_LEVEL))
        .collect::<std::io::Result<Vec<_>>>()?;
    Ok(frames.concat())
}

/// A level's results, in pieces coded in parallel: the count of
/// configurations, then per configuration its length, the raw values, the
/// capture bits, and the rule values if any.
fn encode(results: &[ConfigResult]) -> Vec<Vec<u8>> {
    let mut pieces = vec![(results.len() as u32).to_le_bytes().to_vec()];
    pieces.par_extend(results.par_iter().map(encode_config));
    pieces
}

fn encode_config(r: &ConfigResult) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + r.raw.len() * 4 + r.captures.len().div_ceil(8));
    out.extend_from_slice(&(r.raw.len() as u32).to_le_bytes());
    out.push(r.fin.is_some() as u8);
    out.extend(r.raw.iter().flat_map(|v| v.to_le_bytes()));
    out.extend(r.captures.chunks(8).map(|c| c.iter().rev().fold(0u8, |b, &x| b << 1 | x as u8)));
    for v in r.fin.iter().flatten() {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn decode(bytes: &[u8]) -> Result<Vec<ConfigResult>> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8]> {
        let Some(b) = at.checked_add(n).and_then(|end| bytes.get(at..end)) else { bail!("cut short") };
        at += n;
        Ok(b)
    };
    let u16s = |b: &[u8]| b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect::<Vec<_>>();
    let count = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
    let mut results = Vec::new();
    for _ in 0..count {
        let len = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
        let has_fin = take(1)?[0] == 1;
        let raw = u16s(take(2 * len)?);
        let bits = take(len.div_ceil(8))?;
        let captures = (0..len).map(|i| bits[i / 8] >> (i % 8) & 1 == 1).collect();
        let fin = if has_fin { Some(u16s(take(2 * len)?)) } else { None };
        results.push(ConfigResult { raw, captures, fin });
    }
    if at != bytes.len() {
        bail!("{} bytes too many", bytes.len() - at);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize, fin: bool) -> ConfigResult {
        let raw: Vec<u16> = (0..n).map(|i| (i as u16).wrapping_mul(7919)).collect();
        let captures = (0..n).map(|i| i % 3 == 1).collect();
        ConfigResult { fin: fin.then(|| raw.iter().map(|v| v ^ 5).collect()), raw, captures }
    }

    #[test]
    fn results_survive_the_coding() {
        let results = vec![sample(0, true), sample(13, true), sample(64, true)];
        assert_eq!(decode(&encode(&results).concat()).unwrap(), results);
        let results = vec![sample(9, false)];
        assert_eq!(decode(&encode(&results).concat()).unwrap(), results);
        assert!(decode(&encode(&results).concat()[..20]).is_err());
    }

    /// A record larger than a frame comes back whole, frame after frame,
    /// whether its configurations are larger than a frame or many small.
    #[test]
    fn a_record_of_many_frames_decompresses_whole() {
        let small = FRAME_BYTES / 40;
        let results: Vec<_> = [sample(FRAME_BYTES, true), sample(5, false)].into_iter().chain((0..100).map(|_| sample(small, false))).collect();
        let pieces = encode(&results);
        let payload = pieces.concat();
        assert!(payload.len() > 2 * FRAME_BYTES, "three frames at least");
        let compressed = compress(&pieces).unwrap();
        assert_eq!(zstd::decode_all(&compressed[..]).unwrap(), payload);
        assert_eq!(decode(&payload).unwrap(), results);
    }

    /// Levels come back after reopening; a record cut short is dropped and
    /// the journal goes on after the last good one.
    #[test]
    fn a_reopened_journal_keeps_whole_records_only() {
        let dir = tempfile::tempdir().unwrap();
        let rules = RulesId { name: "russian".into(), hash: 7 };
        let m: Material = "KKvK".parse().unwrap();
        let mut j = Journal::open(dir.path(), Variant::Russian, m, &rules).unwrap();
        j.save(Pass::Pure, 3, &[sample(10, false)]).unwrap();
        j.save(Pass::Rules, 3, &[sample(10, true)]).unwrap();
        drop(j);
        let path = journal_path(dir.path(), Variant::Russian, m);
        let len = std::fs::metadata(&path).unwrap().len();
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 3).unwrap();
        drop(f);

        let mut j = Journal::open(dir.path(), Variant::Russian, m, &rules).unwrap();
        assert_eq!(j.restore(Pass::Rules, 3).unwrap(), None);
        assert_eq!(j.restore(Pass::Pure, 3).unwrap(), Some(vec![sample(10, false)]));
        j.save(Pass::Rules, 3, &[sample(10, true)]).unwrap();
        drop(j);
        let mut j = Journal::open(dir.path(), Variant::Russian, m, &rules).unwrap();
        assert_eq!(j.restore(Pass::Rules, 3).unwrap(), Some(vec![sample(10, true)]));
        assert_eq!(j.restored(), 1);

        // Another rule set's journal is not taken.
        let other = RulesId { name: "none".into(), hash: 0 };
        let mut j = Journal::open(dir.path(), Variant::Russian, m, &other).unwrap();
        assert_eq!(j.restore(Pass::Pure, 3).unwrap(), None);
        j.finish().unwrap();
        assert!(!path.exists());
    }
}
