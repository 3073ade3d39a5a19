//! Building pair by pair (`damka generate --pair`, what a cluster job runs):
//! the pair graph names every slice the solver reads and orders the work as
//! the local build does; a pair job refuses missing inputs and bad input,
//! writes the very bytes of a whole build, does nothing for a finished
//! pair, and shares its directory with jobs of other pairs but not with a
//! whole build.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damka::{Material, RuleSet, Variant};
use damka_generator::claim::{pair_lock_path, LOCK_NAME};
use damka_generator::driver::{self, Job};
use damka_generator::graph::{self, Action};
use damka_generator::memory;
use damka_generator::solver::{solve_pair, Known, Metric, Options};

fn damka(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_damka"));
    c.args(args);
    c
}

fn run(args: &[&str]) -> Output {
    damka(args).output().expect("damka runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn m(text: &str) -> Material {
    text.parse().expect("material")
}

fn job(dir: &Path, pieces: u8, rules: &str) -> Job {
    let rules = Arc::new(RuleSet::preset(rules).expect("a preset"));
    Job { variant: Variant::Russian, max_pieces: pieces, dir: dir.to_path_buf(), rules, progress: false, replace: false, memory: None, dont_care: Default::default() }
}

/// Every file of `dir` but the locks, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".lock"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn assert_same_files(a: &Path, b: &Path) {
    let (a, b) = (files(a), files(b));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs");
    }
}

/// The solver, given only the slices the graph says a pair reads, finds
/// every one it looks up (it panics naming a slice it lacks), and the order
/// the local build follows puts each input before the pair.
#[test]
fn the_graph_names_every_slice_the_solver_reads_in_the_builds_order() {
    for (variant, rules) in [(Variant::Russian, "russian"), (Variant::Italian, "none"), (Variant::English, "english")] {
        let rules = Arc::new(RuleSet::preset(rules).unwrap());
        let opts = Options { variant, metric: Metric::Conversion, rules: Some(rules) };
        let order = graph::pairs_in_order(4);
        let at: HashMap<Material, usize> = order.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        let mut all = Known::new();
        for &pair in &order {
            for input in graph::inputs(pair) {
                assert!(at[&input] < at[&pair], "{variant}: {pair} before its input {input}");
            }
            let only: Known = graph::solve_reads(pair).into_iter().map(|s| (s, all[&s].clone())).collect();
            for s in solve_pair(pair, &opts, &only, &|_| {}) {
                all.insert(s.index.material(), Arc::new(s));
            }
        }
        // A whole build solves the pairs in that order.
        let solved: Vec<Material> = memory::schedule(&order, |_| false, None, memory::Dropped::ReadBack)
            .unwrap()
            .steps
            .into_iter()
            .filter(|s| s.action == Action::Solve)
            .map(|s| s.pair)
            .collect();
        assert_eq!(solved, order);
    }
}

#[test]
fn a_pair_job_refuses_missing_inputs_and_bad_input() {
    let tables = support::TempDir::new("pairs-refuse");
    let dir = tables.path().to_str().unwrap();
    let refused = |args: &[&str], needle: &str| {
        let out = run(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    // Nothing built yet: KKvK reads KvK.
    refused(&["generate", "--pair", "KKvK", "--pieces", "3", "--dir", dir], "the pair russian-KvK is not finished");
    support::generate_into(tables.path(), Variant::Russian, 2, "russian");
    // KKMvK (four pieces) reads three-piece pairs: the first is named.
    refused(&["generate", "--pair", "KKMvK", "--pieces", "4", "--dir", dir], "is not finished");
    refused(&["generate", "--pair", "KKMvK", "--dir", dir, "--pieces", "3"], "4 pieces, more than --pieces 3");
    refused(&["generate", "--pair", "KXvK", "--dir", dir], "material 'KXvK'");
    refused(&["generate", "--pair", "KKv", "--dir", dir], "there is no such slice");
    refused(&["generate", "--pair", "KvK", "--dir", dir, "--rules", "none"], "holds russian tables with rule set russian");
    refused(&["generate", "--pair", "KvK", "--dir", dir, "--variant", "english"], "this pair job builds english tables");
    refused(&["plan", "--pieces", "3", "--dir", dir, "--variant", "english"], "holds russian tables");
    refused(&["plan", "--pieces", "9", "--dir", dir], "--pieces 9");
    // Nothing was written by the refused jobs.
    assert_eq!(files(tables.path()).len(), 4 * 2 + 1, "{:?}", files(tables.path()).keys().collect::<Vec<_>>());
}

#[test]
fn pair_jobs_write_the_bytes_of_a_whole_build_and_skip_finished_pairs() {
    let whole = support::generate_with_rules("pairs-whole", Variant::Russian, 4, "russian");
    let parts = support::TempDir::new("pairs-parts");
    let job = job(parts.path(), 4, "russian");
    for pair in graph::pairs_in_order(4) {
        let s = driver::run_pairs(&job, &[pair.swap()]).expect("a pair job");
        assert_eq!((s.total().slices, s.skipped), (graph::slices_of(pair).len(), 0), "{pair}");
    }
    assert_same_files(whole.path(), parts.path());
    // Again: every pair is finished, nothing is written.
    let out = run(&["generate", "--pair", "KKvKK", "--pieces", "4", "--dir", parts.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("russian-KKvKK already finished"), "{}", text(&out.stdout));
    assert_same_files(whole.path(), parts.path());
}

fn spawn_pair(dir: &Path, pair: &str) -> Child {
    damka(&["generate", "--quiet", "--pair", pair, "--pieces", "4", "--dir", dir.to_str().unwrap(), "--rules", "none"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("damka starts")
}

fn finish(child: Child) -> Output {
    let out = child.wait_with_output().expect("damka ends");
    assert!(out.status.success(), "{}", text(&out.stderr));
    out
}

#[test]
fn pair_jobs_share_a_directory_but_never_a_pair_and_a_whole_build_waits_for_none() {
    let whole = support::generate_with_rules("pairs-shared-whole", Variant::Russian, 4, "none");
    let shared = support::generate_with_rules("pairs-shared", Variant::Russian, 3, "none");
    let dir = shared.path();
    // Side by side: the two pairs of four kings, which need only three pieces.
    let pairs = ["KKvKK", "KKKvK"];
    let children: Vec<Child> = pairs.iter().map(|p| spawn_pair(dir, p)).collect();
    for child in children {
        finish(child);
    }
    // A job of a pair whose lock another holds waits for it.
    let lock = File::create(pair_lock_path(dir, Variant::Russian, graph::pair_of(m("KKvKM")))).unwrap();
    lock.lock().unwrap();
    let waiting = spawn_pair(dir, "KKvKM");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!graph::slices_of(m("KKvKM")).iter().any(|s| dir.join(format!("russian-{s}.wdl")).exists()), "built under another's lock");
    lock.unlock().unwrap();
    let out = finish(waiting);
    assert!(text(&out.stderr).contains("waiting for it to finish"), "{}", text(&out.stderr));
    // A whole build is refused while a pair job holds the directory, and a
    // pair job while a whole build does.
    let directory = File::open(dir.join(LOCK_NAME)).unwrap();
    directory.lock_shared().unwrap();
    let held = pair_lock_path(dir, Variant::Russian, graph::pair_of(m("KKMvK")));
    let pair_lock = File::create(&held).unwrap();
    pair_lock.lock().unwrap();
    std::fs::write(&held, "pid = 1\nstarted = 0\ncommand = \"damka generate --pair KKMvK\"\n").unwrap();
    let started = Instant::now();
    let out = run(&["generate", "--pieces", "4", "--rules", "none", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("pair jobs (damka generate --pair): russian-KvKKM by process 1"), "{}", text(&out.stderr));
    assert!(started.elapsed() < Duration::from_secs(20));
    directory.unlock().unwrap();
    drop(pair_lock);
    directory.lock().unwrap();
    let out = run(&["generate", "--pair", "KKMvK", "--pieces", "4", "--rules", "none", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is being built by another damka generate"), "{}", text(&out.stderr));
    directory.unlock().unwrap();
    // The rest as a whole build: the same bytes as one never split.
    driver::run(&job(dir, 4, "none")).expect("the whole build");
    assert_same_files(whole.path(), dir);
}
