//! Claiming a directory for a build (docs/FORMAT.md, "Directory"): one
//! `damka generate` at a time, by an exclusive lock on `damka.lock`, and
//! one variant and rule set per directory, by the manifest `damka.toml`.
//! Table file names do not carry the rule set, so without these a second
//! run, or a run with other rules, would overwrite a finished build.
//!
//! Pair jobs (`damka generate --pair`, one per cluster job) share the
//! directory instead: each holds `damka.lock` shared, which keeps a whole
//! build out while any runs and lets them run side by side, and the
//! exclusive lock of its own pair (`russian-KKvK.lock`), which keeps a
//! second job for the same pair waiting until the first is done. They
//! never replace tables, and the first of them to find no manifest writes
//! it by a hard link, which fails if another got there first; the others
//! check that it names their build.

use std::fs::{File, TryLockError};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use damka::directory::{Manifest, MANIFEST_NAME};
use damka::format::{read_header, FORMAT_VERSION, OLDEST_READ_VERSION};
use damka::game::Game;
use damka::{Material, RuleSet, RuleSetId, TableName, Variant};
use serde::{Deserialize, Serialize};

/// The lock file's name in a directory of tables.
pub const LOCK_NAME: &str = "damka.lock";

/// A directory claimed for a build. Dropping it releases the lock; so does
/// the end of the process, however it ends (the lock goes with the open
/// file), so a killed run leaves no lock that blocks the next one.
#[derive(Debug)]
pub struct Claim {
    /// `damka.lock`, exclusive for a whole build, shared for pair jobs.
    directory: File,
    exclusive: bool,
    /// The locks of the pairs a pair job builds.
    pairs: Vec<File>,
}

impl Drop for Claim {
    fn drop(&mut self) {
        // The files themselves stay: a run that opened one just before a
        // removal would lock a file no later run sees. Emptied, a lock file
        // names no one. (Shared holders never write `damka.lock`.)
        if self.exclusive {
            let _ = self.directory.set_len(0);
        }
        for lock in &self.pairs {
            let _ = lock.set_len(0);
        }
    }
}

/// The lock file of one pair's build in `dir`.
pub fn pair_lock_path(dir: &Path, variant: Variant, pair: Material) -> std::path::PathBuf {
    dir.join(format!("{variant}-{pair}.lock"))
}

/// Locks `dir` (creating it) for a build of `variant` tables under `rules`,
/// and makes sure the directory holds no tables of another variant, rule
/// set or a newer format: refused, unless `replace`, in which case those
/// tables are deleted first. Writes the manifest.
pub fn claim(dir: &Path, game: Game, rules: &RuleSet, replace: bool) -> Result<Claim> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let claim = lock_directory(dir, Mode::Exclusive)?;
    let wanted = Manifest::new(game, rules.clone());
    if let Some(there) = other_build(dir, &wanted)? {
        if !replace {
            bail!(
                "{} holds {there}; this run builds {}. A directory holds the tables of one variant and one rule set: \
                 give another --dir, or add --replace to delete the tables there and build anew",
                dir.display(),
                describe(game, &wanted.rules_id(), FORMAT_VERSION)
            );
        }
        remove_tables(dir)?;
    }
    wanted.write(dir)?;
    Ok(claim)
}

/// Claims the pairs `pairs` of `dir` for a pair job building `variant`
/// tables under `rules` (see the module's doc): waits while another job
/// builds one of them; refuses a directory a whole build holds, and one of
/// another variant, rule set or format (a pair job never replaces tables).
pub fn claim_pairs(dir: &Path, variant: Variant, rules: &RuleSet, pairs: &[Material]) -> Result<Claim> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut claim = lock_directory(dir, Mode::Shared)?;
    let wanted = Manifest::new(variant, rules.clone());
    agree_on_manifest(dir, &wanted)?;
    // In one order, so that two jobs of overlapping pairs cannot each wait
    // for the other.
    let mut pairs = pairs.to_vec();
    pairs.sort();
    pairs.dedup();
    for pair in pairs {
        let path = pair_lock_path(dir, variant, pair);
        let mut file = open_lock(&path)?;
        if let Err(TryLockError::WouldBlock) = file.try_lock() {
            eprintln!("{pair} is being built by {}; waiting for it to finish", holder(&path));
            file.lock().with_context(|| format!("cannot lock {}", path.display()))?;
        }
        say_who_holds(&mut file, &path)?;
        claim.pairs.push(file);
    }
    Ok(claim)
}

/// Refuses `dir` if it holds another build than `wanted` (another
/// variant, rule set or format: a pair job never replaces tables); tells
/// whether it has a manifest. Reads only.
pub fn check_for_pairs(dir: &Path, wanted: &Manifest) -> Result<bool> {
    let refuse = |there: String| {
        anyhow!(
            "{} holds {there}; this pair job builds {}. A directory holds the tables of one variant, rule set and \
             format, and a pair job never replaces tables: give another --dir, or run damka generate --replace there",
            dir.display(),
            describe(wanted.game, &wanted.rules_id(), FORMAT_VERSION)
        )
    };
    if !dir.exists() {
        return Ok(false);
    }
    match Manifest::read(dir) {
        Ok(Some(m)) => {
            // Tables of an older format that this reader takes are kept.
            let readable = (OLDEST_READ_VERSION..=wanted.format).contains(&m.format);
            let same = m.game == wanted.game && readable && m.rules_id() == wanted.rules_id();
            if same { Ok(true) } else { Err(refuse(describe(m.game, &m.rules_id(), m.format))) }
        }
        Err(e) => Err(refuse(format!("a manifest that cannot be read ({e})"))),
        Ok(None) => match other_build(dir, wanted)? {
            Some(there) => Err(refuse(there)),
            None => Ok(false),
        },
    }
}

/// Makes sure the manifest of `dir` is `wanted`: writes it where there is
/// none, atomically and only if no other job wrote one meanwhile; refuses
/// any other.
fn agree_on_manifest(dir: &Path, wanted: &Manifest) -> Result<()> {
    while !check_for_pairs(dir, wanted)? {
        // A name of this process's own (jobs on several machines share the
        // directory), linked to the manifest's name: the link fails if
        // another job wrote the manifest first, and then that one counts.
        let path = Manifest::path(dir);
        let tmp = dir.join(format!("{MANIFEST_NAME}.{}.tmp", Holder::this_process().tag()));
        damka::directory::write_atomically(&tmp, wanted.to_text().as_bytes())
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot write {}", path.display())),
        }
    }
    Ok(())
}

/// What `dir` holds if it is not the build `wanted`: its manifest says so
/// or, in a directory written before manifests, a table header does.
fn other_build(dir: &Path, wanted: &Manifest) -> Result<Option<String>> {
    match Manifest::read(dir) {
        Ok(Some(m)) => {
            // Tables of an older format are kept where this reader takes
            // them, else rebuilt in place; a newer format is another
            // program's build.
            let same = m.game == wanted.game && m.format <= wanted.format && m.rules_id() == wanted.rules_id();
            Ok((!same).then(|| describe(m.game, &m.rules_id(), m.format)))
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
                if h.slice.game() != wanted.game || rules != wanted.rules_id() {
                    return Ok(Some(describe(h.slice.game(), &rules, FORMAT_VERSION)));
                }
            }
            Ok(None)
        }
    }
}

fn describe(game: Game, rules: &RuleSetId, format: u16) -> String {
    let format = if format == FORMAT_VERSION { String::new() } else { format!(" in table format {format}") };
    format!("{game} tables with rule set {rules}{format}")
}

/// Deletes damka's table files, their temporary files and the manifest
/// from `dir`; nothing else.
fn remove_tables(dir: &Path) -> Result<()> {
    remove_files(dir, is_damka_file)
}

/// Deletes the files of `dir` whose names `ours` accepts.
pub(crate) fn remove_files(dir: &Path, ours: impl Fn(&str) -> bool) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        if entry.file_name().to_str().is_some_and(&ours) {
            std::fs::remove_file(entry.path()).with_context(|| format!("cannot delete {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// A table, the manifest, a pair's journal, a working copy, or the
/// temporary file of either; also the shared temporary name older runs
/// gave both files of a slice (`russian-KvK.tmp`).
fn is_damka_file(name: &str) -> bool {
    let table = |n: &str| n.parse::<TableName>().is_ok() || damka::cheskers::parse_table_name(n).is_some();
    let own = |n: &str| {
        n == MANIFEST_NAME || table(n) || crate::journal::is_journal_name(n) || crate::spill::is_spill_name(n)
    };
    // A pair job's manifest before it is linked: damka.toml.<host>-<pid>.
    let jobs = |n: &str| n.strip_prefix(MANIFEST_NAME).is_some_and(|r| r.starts_with('.'));
    own(name) || name.strip_suffix(".tmp").is_some_and(|s| own(s) || jobs(s) || table(&format!("{s}.wdl")))
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

    /// `host-pid`, unique among the processes sharing a directory.
    fn tag(&self) -> String {
        format!("{}-{}", self.host.as_deref().unwrap_or("localhost"), self.pid)
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

/// How a build holds `damka.lock`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A whole build: no other build and no pair job.
    Exclusive,
    /// A pair job: other pair jobs too, no whole build.
    Shared,
}

fn open_lock(path: &Path) -> Result<File> {
    File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

fn lock_directory(dir: &Path, mode: Mode) -> Result<Claim> {
    let path = dir.join(LOCK_NAME);
    let mut file = open_lock(&path)?;
    // A process that another thread of this program starts shares the open
    // file, and with it the lock, from its fork to its exec: a short wait
    // rides that out.
    let deadline = Instant::now() + Duration::from_millis(100);
    loop {
        let tried = match mode {
            Mode::Exclusive => file.try_lock(),
            Mode::Shared => file.try_lock_shared(),
        };
        match tried {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Err(TryLockError::WouldBlock) => bail!(
                "{} is being built by {}; wait for it to finish, or give another --dir",
                dir.display(),
                match (mode, pair_jobs(dir)) {
                    (Mode::Exclusive, jobs) if !jobs.is_empty() => format!("pair jobs (damka generate --pair): {}", jobs.join("; ")),
                    _ => format!("another damka generate, {}", holder(&path)),
                }
            ),
            Err(TryLockError::Error(e)) => return Err(e).with_context(|| format!("cannot lock {}", path.display())),
        }
    }
    if mode == Mode::Exclusive {
        say_who_holds(&mut file, &path)?;
    }
    Ok(Claim { directory: file, exclusive: mode == Mode::Exclusive, pairs: Vec::new() })
}

/// Writes who holds the lock `file` (at `path`) into it.
fn say_who_holds(file: &mut File, path: &Path) -> Result<()> {
    let text = toml::to_string(&Holder::this_process()).expect("numbers and strings serialize");
    file.set_len(0).and_then(|_| file.write_all(text.as_bytes())).with_context(|| format!("cannot write {}", path.display()))
}

/// The pair jobs that hold a pair's lock in `dir`, as their lock files say.
fn pair_jobs(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut jobs = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pair) = name.strip_suffix(".lock").filter(|_| name != LOCK_NAME) else { continue };
        // Free locks are taken for a moment and let go at once.
        let held = File::open(entry.path()).is_ok_and(|f| matches!(f.try_lock_shared(), Err(TryLockError::WouldBlock)));
        if held {
            jobs.push(format!("{pair} by {}", holder(&entry.path())));
        }
    }
    jobs.sort();
    jobs
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
        for ours in ["russian-KvK.wdl", "english-KMvK.dtc", "russian-KvK.wdl.tmp", "russian-KvK.tmp", "damka.toml", "damka.toml.tmp", "russian-KKvK.journal", "damka.toml.node7-42.tmp", "russian-KKvK.spill", "russian-KKvK.spill.tmp"] {
            assert!(is_damka_file(ours), "{ours}");
        }
        for theirs in ["damka.lock", "russian-KvK.lock", "damka.toml.bak", "notes.txt", "russian-KvK.wdl.bak", "russian.tmp", "chess-KvK.wdl", "russian-Kv.wdl", "x.toml", "x.journal", "x.spill", "russian-Kv.spill"] {
            assert!(!is_damka_file(theirs), "{theirs}");
        }
    }
}
