//! One table directory, one build: `damka generate` refuses a directory of
//! another rule set or variant (or replaces it when told), two runs never
//! write into one directory at once, and a run rebuilds any file that does
//! not hold what its name says.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damka::directory::{Manifest, ManifestError};
use damka::format::{read_header, Kind};
use damka::{OpenOptions, ProbeError, RuleSet, RuleSetId, Tablebase, Variant};
use damka_generator::driver::{self, Job, Summary};
use damka_generator::verify::{self, Options};
use damka_generator::writer::table_path;

fn damka(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka")).args(args).output().expect("damka runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn generate(dir: &Path, pieces: u8, rules: &str) -> anyhow::Result<Summary> {
    let rules = Arc::new(RuleSet::preset(rules).expect("a preset"));
    let job = Job { variant: Variant::Russian, max_pieces: pieces, dir: dir.to_path_buf(), rules, progress: false, replace: false, memory: None, dont_care: Default::default() };
    driver::run(&job)
}

/// Every value of every table re-derived from its successors.
fn assert_verified(dir: &Path) {
    let report = verify::run(&Options { dir: dir.to_path_buf(), variant: None, slice: None, progress: false, rules: None }).expect("verify runs");
    assert!(report.is_ok() && report.positions > 0, "{:?}", report.problems);
}

/// The rule set names in the headers of every table of `dir`.
fn header_rules(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "wdl" || x == "dtc"))
        .map(|p| read_header(&p).expect("a table header").rules_name)
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn another_rule_set_or_variant_is_refused_unless_replaced() {
    let tables = support::TempDir::new("dir-rules");
    let dir = tables.path();
    generate(dir, 3, "russian").unwrap();
    let manifest = Manifest::read(dir).unwrap().expect("generate writes a manifest");
    assert_eq!((manifest.game, manifest.rules.name.as_str()), (Variant::Russian.into(), "russian"));
    assert_eq!(manifest.rules.text, RuleSet::preset("russian").unwrap().text);
    let before = std::fs::read(dir.join("russian-KKvK.dtc")).unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();

    let d = dir.to_str().unwrap();
    let refused = damka(&["generate", "--pieces", "3", "--rules", "none", "--dir", d, "--quiet"]);
    assert!(!refused.status.success());
    let message = text(&refused.stderr);
    for needle in ["russian tables with rule set russian", "rule set none", "--dir", "--replace"] {
        assert!(message.contains(needle), "'{needle}' not in: {message}");
    }
    let other_game = damka(&["generate", "--pieces", "3", "--variant", "english", "--dir", d, "--quiet"]);
    assert!(!other_game.status.success());
    assert!(text(&other_game.stderr).contains("this run builds english tables"), "{}", text(&other_game.stderr));
    assert_eq!(std::fs::read(dir.join("russian-KKvK.dtc")).unwrap(), before, "refused runs write nothing");
    assert_eq!(header_rules(dir), ["russian"]);

    // A directory written before manifests: the headers tell.
    std::fs::remove_file(Manifest::path(dir)).unwrap();
    let message = generate(dir, 3, "none").unwrap_err().to_string();
    assert!(message.contains("russian tables with rule set russian"), "{message}");
    assert_eq!(header_rules(dir), ["russian"]);

    // --replace deletes damka's tables (and a leftover temporary file) and
    // builds anew; other files stay.
    std::fs::write(dir.join("russian-KvK.wdl.tmp"), "half a table").unwrap();
    let out = damka(&["generate", "--pieces", "3", "--rules", "none", "--dir", d, "--quiet", "--replace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("16 slices solved, 0 slices already done"), "{}", text(&out.stdout));
    assert_eq!(header_rules(dir), ["none"]);
    assert_eq!(Manifest::read(dir).unwrap().unwrap().rules.name, "none");
    assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
    assert!(!dir.join("russian-KvK.wdl.tmp").exists());
    assert_verified(dir);
    // The same build again is no other build.
    assert_eq!(generate(dir, 3, "none").unwrap().skipped, 16);
}

#[test]
fn swapped_or_cut_files_are_rebuilt() {
    let tables = support::TempDir::new("dir-swapped");
    let dir = tables.path();
    generate(dir, 3, "russian").unwrap();
    let path = |m: &str, kind| table_path(dir, Variant::Russian, m.parse().unwrap(), kind);
    // The two files of KvK trade places; half of KMvK's result file is gone.
    let (wdl, dtc) = (path("KvK", Kind::Wdl), path("KvK", Kind::Distance));
    let swap = dir.join("swap");
    std::fs::rename(&wdl, &swap).unwrap();
    std::fs::rename(&dtc, &wdl).unwrap();
    std::fs::rename(&swap, &dtc).unwrap();
    let cut = path("KMvK", Kind::Wdl);
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();

    let summary = generate(dir, 3, "russian").unwrap();
    // KvK is its own twin; KMvK comes with KvKM.
    assert_eq!(summary.total().slices, 3, "{summary:?}");
    assert_eq!(read_header(&wdl).unwrap().kind, Kind::Wdl);
    assert_eq!(read_header(&dtc).unwrap().kind, Kind::Distance);
    assert_eq!(std::fs::read(&cut).unwrap().len(), bytes.len());
    assert_verified(dir);
}

/// Waits for `child` to end, at most a minute.
fn finish(mut child: std::process::Child) -> Output {
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "damka generate did not finish");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn spawn_generate(dir: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(["generate", "--pieces", "3", "--dir", dir, "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("damka starts")
}

#[test]
fn two_runs_at_once_one_builds_the_other_names_it() {
    // A pair of runs overlaps unless the first ends before the second
    // starts; a 3-piece build takes far longer than a process start, but
    // a busy machine is given a few tries.
    for _ in 0..5 {
        let tables = support::TempDir::new("dir-race");
        let d = tables.path().to_str().unwrap();
        let (a, b) = (spawn_generate(d), spawn_generate(d));
        let pids = [a.id(), b.id()];
        let outs = [finish(a), finish(b)];
        let verified = damka(&["verify", "--dir", d, "--quiet"]);
        assert!(verified.status.success(), "{}{}", text(&verified.stdout), text(&verified.stderr));
        let built: Vec<usize> = (0..2).filter(|&i| outs[i].status.success()).collect();
        match built[..] {
            [winner] => {
                let loser = 1 - winner;
                assert!(text(&outs[winner].stdout).starts_with("16 slices solved"), "{}", text(&outs[winner].stdout));
                let message = text(&outs[loser].stderr);
                assert!(message.contains("is being built by another damka generate"), "{message}");
                assert!(message.contains(&format!("process {}", pids[winner])), "{message}");
                assert!(message.contains("generate --pieces 3"), "{message}");
                return;
            }
            // One run ended before the other began: the second found
            // everything done.
            [_, _] => assert!(outs.iter().any(|o| text(&o.stdout).starts_with("0 slices solved, 16 slices already done"))),
            _ => panic!("both runs failed: {} / {}", text(&outs[0].stderr), text(&outs[1].stderr)),
        }
    }
    panic!("no two runs overlapped in five tries");
}

#[test]
fn a_killed_run_leaves_no_lock_behind() {
    let tables = support::TempDir::new("dir-killed");
    let d = tables.path().to_str().unwrap();
    let mut run = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(["generate", "--pieces", "5", "--dir", d, "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once it holds the lock (the lock file names it).
    let lock = tables.path().join("damka.lock");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&lock).unwrap_or_default().contains(&format!("pid = {}", run.id())) {
        assert!(Instant::now() < deadline, "the run never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    run.kill().unwrap();
    run.wait().unwrap();
    let out = damka(&["generate", "--pieces", "2", "--dir", d, "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_damaged_manifest_is_reported_not_guessed_around() {
    let tables = support::TempDir::new("dir-manifest");
    let dir = tables.path();
    generate(dir, 2, "russian").unwrap();
    let tb = Tablebase::open(dir, OpenOptions::new(Variant::Russian)).unwrap();
    assert_eq!(tb.rule_set().map(|r| r.name.as_str()), Some("russian"));
    // Asked for other rules than the manifest's, the tables refuse to open.
    let none = RuleSet::preset("none").unwrap();
    let asked = RuleSetId { name: none.name, hash: none.hash };
    match Tablebase::open(dir, OpenOptions::new(Variant::Russian).rules(asked)) {
        Err(ProbeError::WrongRules { found, .. }) => assert_eq!(found.name, "russian"),
        other => panic!("{:?}", other.map(|_| "opened")),
    }

    std::fs::write(Manifest::path(dir), "variant = \"russian\"\n").unwrap();
    match Tablebase::open(dir, OpenOptions::new(Variant::Russian)) {
        Err(e @ ProbeError::Manifest(ManifestError::Invalid { .. })) => assert!(e.to_string().contains("damka.toml"), "{e}"),
        other => panic!("{:?}", other.err()),
    }
    let message = generate(dir, 2, "russian").unwrap_err().to_string();
    assert!(message.contains("a manifest that cannot be read") && message.contains("--replace"), "{message}");
    let d = dir.to_str().unwrap();
    let out = damka(&["generate", "--pieces", "2", "--dir", d, "--quiet", "--replace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(Tablebase::open(dir, OpenOptions::new(Variant::Russian)).unwrap().rule_set().is_some());
}

/// Tables of an older format version are no build to protect: the next run
/// of the same variant and rule set rebuilds them in place.
#[test]
fn tables_of_an_older_format_are_rebuilt() {
    let tables = support::TempDir::new("dir-old-format");
    let dir = tables.path();
    generate(dir, 3, "russian").unwrap();
    let manifest_path = dir.join(damka::directory::MANIFEST_NAME);
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    let current = format!("format = {}", damka::format::FORMAT_VERSION);
    assert!(manifest.contains(&current), "{manifest}");
    std::fs::write(&manifest_path, manifest.replace(&current, "format = 2")).unwrap();
    let old = table_path(dir, Variant::Russian, "KKvK".parse().unwrap(), Kind::Wdl);
    let mut bytes = std::fs::read(&old).unwrap();
    bytes[8..10].copy_from_slice(&2u16.to_le_bytes());
    std::fs::write(&old, &bytes).unwrap();
    let err = Tablebase::open(dir, OpenOptions::new(Variant::Russian)).unwrap().probe_wdl(
        &damka::fen::parse("W:WKa1,Kc1:BKh8", Variant::Russian).unwrap(),
    );
    assert!(err.unwrap_err().to_string().contains("rebuild the tables with `damka generate`"));

    let summary = generate(dir, 3, "russian").expect("an older format is rebuilt, not refused");
    assert_eq!(summary.total().slices, 2, "KKvK and its twin are built again");
    assert!(std::fs::read_to_string(&manifest_path).unwrap().contains(&current));
    assert_verified(dir);
}
