//! Claiming a directory for a build (docs/FORMAT.md, "Directory"): one
//! `damka generate` at a time, by an exclusive lock on `damka.lock`, and
//! one variant and rule set per directory, by the manifest `damka.toml`.
//! Table file names do not carry the rule set, so without these a second
//! run, or a run with other rules, would overwrite a finished build.

use std::fs::{File, TryLockError};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use damka::directory::{Manifest, MANIFEST_NAME};
use damka::format::{read_header, FORMAT_VERSION};
use damka::{RuleSet, RuleSetId, TableName, Variant};
use serde::{Deserialize, Serialize};

/// The lock file's name in a directory of tables.
pub const LOCK_NAME: &str = "damka.lock";

/// A directory claimed for a build. Dropping it releases the lock; so does
/// the end of the process, however it ends (the lock goes with the open
/// file), so a killed run leaves no lock that blocks the next one.
#[derive(Debug)]
pub struct Claim {
    lock: File,
}

impl Drop for Claim {
    fn drop(&mut self) {
        // The file itself stays: a run that opened it just before a removal
        // would lock a file no later run sees. Emptied, it names no one.
        let _ = self.lock.set_len(0);
    }
}

/// Locks `dir` (creating it) for a build of `variant` tables under `rules`,
/// and makes sure the directory holds no tables of another variant, rule
/// set or a newer format: refused, unless `replace`, in which case those
/// tables are deleted first. Writes the manifest.
pub fn claim(dir: &Path, variant: Variant, rules: &RuleSet, replace: bool) -> Result<Claim> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let claim = lock(dir)?;
    let wanted = Manifest::new(variant, rules.clone());
    if let Some(there) = other_build(dir, &wanted)? {
        if !replace {
            bail!(
                "{} holds {there}; this run builds {}. A directory holds the tables of one variant and one rule set: \
                 give another --dir, or add --replace to delete the tables there and build anew",
                dir.display(),
                describe(variant, &wanted.rules_id(), FORMAT_VERSION)
            );
        }
        remove_tables(dir)?;
    }
    wanted.write(dir)?;
    Ok(claim)
}

/// What `dir` holds if it is not the build `wanted`: its manifest says so
/// or, in a directory written before manifests, a table header does.
fn other_build(dir: &Path, wanted: &Manifest) -> Result<Option<String>> {
    match Manifest::read(dir) {
        Ok(Some(m)) => {
            // Tables of an older format are rebuilt in place (no reader
            // takes them); a newer format is another program's build.
            let same = m.variant == wanted.variant && m.format <= wanted.format && m.rules_id() == wanted.rules_id();
            Ok((!same).then(|| describe(m.variant, &m.rules_id(), m.format)))
        }
        Err(e) => Ok(Some(format!("a manifest that cannot be read ({e})"))),
        Ok(None) => {
            for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
                let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
                if entry.file_name().to_str().and_then(|n| n.parse::<TableName>().ok()).is_none() {
                    continue;
                }
                // An unreadable file is rebuilt in any case.
                let Ok(h) = read_header(&entry.path()) else { continue };
                let rules = RuleSetId { name: h.rules_name, hash: h.rules_hash };
                if h.variant != wanted.variant || rules != wanted.rules_id() {
                    return Ok(Some(describe(h.variant, &rules, FORMAT_VERSION)));
                }
            }
            Ok(None)
        }
    }
}

fn describe(variant: Variant, rules: &RuleSetId, format: u16) -> String {
    let format = if format == FORMAT_VERSION { String::new() } else { format!(" in table format {format}") };
    format!("{variant} tables with rule set {rules}{format}")
}

/// Deletes damka's table files, their temporary files and the manifest
/// from `dir`; nothing else.
fn remove_tables(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        if entry.file_name().to_str().is_some_and(is_damka_file) {
            std::fs::remove_file(entry.path()).with_context(|| format!("cannot delete {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// A table, the manifest, a pair's journal, or the temporary file of
/// either; also the shared temporary name older runs gave both files of a
/// slice (`russian-KvK.tmp`).
fn is_damka_file(name: &str) -> bool {
    let table = |n: &str| n.parse::<TableName>().is_ok();
    let own = |n: &str| n == MANIFEST_NAME || table(n) || crate::journal::is_journal_name(n);
    own(name) || name.strip_suffix(".tmp").is_some_and(|s| own(s) || table(&format!("{s}.wdl")))
}

/// Who holds a directory's lock, as the lock file says (TOML).
#[derive(Serialize, Deserialize)]
struct Holder {
    pid: u32,
    host: Option<String>,
    /// Seconds since the Unix epoch.
    started: u64,
    command: String,
}

impl Holder {
    fn this_process() -> Holder {
        Holder {
            pid: std::process::id(),
            // Cheap where there is a /proc; elsewhere the pid has to do.
            host: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty()),
            started: unix_seconds(),
            command: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" "),
        }
    }

    fn describe(&self) -> String {
        let host = self.host.as_ref().map(|h| format!(" on {h}")).unwrap_or_default();
        let ago = unix_seconds().saturating_sub(self.started);
        format!("process {}{host}, started {ago} s ago (Unix time {}): {}", self.pid, self.started, self.command)
    }
}

fn unix_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn lock(dir: &Path) -> Result<Claim> {
    let path = dir.join(LOCK_NAME);
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    // A process that another thread of this program starts shares the open
    // file, and with it the lock, from its fork to its exec: a short wait
    // rides that out.
    let deadline = Instant::now() + Duration::from_millis(100);
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Err(TryLockError::WouldBlock) => bail!(
                "{} is being built by another damka generate, {}; wait for it to finish, or give another --dir",
                dir.display(),
                holder(&path)
            ),
            Err(TryLockError::Error(e)) => return Err(e).with_context(|| format!("cannot lock {}", path.display())),
        }
    }
    let text = toml::to_string(&Holder::this_process()).expect("numbers and strings serialize");
    file.set_len(0)
        .and_then(|_| file.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Claim { lock: file })
}

/// Who holds the lock at `path`. The holder writes it right after taking
/// the lock: give it a moment.
fn holder(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if let Ok(holder) = toml::from_str::<Holder>(&text) {
            return holder.describe();
        }
        if Instant::now() >= deadline {
            return "a process that has not said which".to_string();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_damka_files_are_damka_files() {
        for ours in ["russian-KvK.wdl", "english-KMvK.dtc", "russian-KvK.wdl.tmp", "russian-KvK.tmp", "damka.toml", "damka.toml.tmp", "russian-KKvK.journal"] {
            assert!(is_damka_file(ours), "{ours}");
        }
        for theirs in ["damka.lock", "notes.txt", "russian-KvK.wdl.bak", "russian.tmp", "chess-KvK.wdl", "russian-Kv.wdl", "x.toml", "x.journal"] {
            assert!(!is_damka_file(theirs), "{theirs}");
        }
    }
}
