//! An interrupted build resumes to the very bytes of an uninterrupted one.
//! The slices a resumed run reads back come from their files, capture
//! positions resolved through their captures (they are "don't care" on
//! disk); every later slice is solved from those values, so a resolution
//! that differed from the solver in a single position would change bytes.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damka::{Material, RuleSet, Variant};
use damka_generator::graph::{pairs_in_order, resolution_of, Leaving};
use damka_generator::journal::Journal;
use damka_generator::solver::{
    solve_pair_both, solve_pair_resumable, Checkpoint, ConfigResult, Keep, Known, Metric, Options, Pass,
};
use damka_generator::writer::RulesId;

/// Every file of `dir` but the lock, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "damka.lock")
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn resumes_to_the_same_bytes(variant: Variant, rules: &str) {
    let whole = support::generate_with_rules("resume-whole", variant, 4, rules);
    // A run stopped after the 3-piece slices, then run again to 4 pieces.
    let resumed = support::generate_with_rules("resume-parts", variant, 3, rules);
    let summary = support::generate_into(resumed.path(), variant, 4, rules);
    assert!(summary.skipped > 0 && summary.total().slices > 0, "{summary:?}");
    let (a, b) = (files(whole.path()), files(resumed.path()));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs after resuming");
    }
}

#[test]
fn a_resumed_russian_build_with_rules_is_byte_identical() {
    resumes_to_the_same_bytes(Variant::Russian, "russian");
}

#[test]
fn a_resumed_english_build_is_byte_identical() {
    resumes_to_the_same_bytes(Variant::English, "none");
}

/// A checkpoint that dies after `left` levels, as a killed run would: the
/// journal keeps what was saved before.
struct Dies {
    journal: Journal,
    left: usize,
}

impl Checkpoint for Dies {
    fn restore(&mut self, pass: Pass, level: usize) -> anyhow::Result<Option<Vec<ConfigResult>>> {
        self.journal.restore(pass, level)
    }

    fn save(&mut self, pass: Pass, level: usize, results: &[ConfigResult]) -> anyhow::Result<()> {
        if self.left == 0 {
            anyhow::bail!("killed");
        }
        self.left -= 1;
        self.journal.save(pass, level, results)
    }
}

/// A pair interrupted after any number of its levels, in either pass,
/// resumes from its journal to the values of an uninterrupted solve.
#[test]
fn a_pair_interrupted_inside_resumes_to_the_same_values() {
    let rules = Arc::new(RuleSet::preset("russian").unwrap());
    let opts = Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules.clone()) };
    let rules_id = RulesId { name: rules.name.clone(), hash: rules.hash };
    let target: Material = "KMvKM".parse().unwrap();
    let mut known = Known::new();
    for material in pairs_in_order(4) {
        let whole = solve_pair_both(material, &opts, &known, &|_| {});
        if material == target {
            let dir = support::TempDir::new("journal-pair");
            let total = (0..).find(|&n| {
                let journal = Journal::open(dir.path(), Variant::Russian, material, &rules_id).unwrap();
                let mut dies = Dies { journal, left: n };
                solve_pair_resumable(material, &opts, &known, &|_| {}, &mut dies, Keep::Both).is_ok()
            });
            // Each run above died one level later than the one before and
            // resumed from it; the last one finished. Once more from a
            // journal cut after every possible level:
            let total = total.unwrap();
            assert!(total > 4, "{material} has {total} levels over both passes");
            for cut in [1, total / 2, total - 1] {
                let dir = support::TempDir::new("journal-cut");
                let journal = Journal::open(dir.path(), Variant::Russian, material, &rules_id).unwrap();
                let mut dies = Dies { journal, left: cut };
                assert!(solve_pair_resumable(material, &opts, &known, &|_| {}, &mut dies, Keep::Both).is_err());
                let mut journal = Journal::open(dir.path(), Variant::Russian, material, &rules_id).unwrap();
                let resumed = solve_pair_resumable(material, &opts, &known, &|_| {}, &mut journal, Keep::Both).unwrap();
                assert_eq!(journal.restored(), cut, "levels taken from the journal");
                let (a, b) = (whole.pure.as_ref().unwrap(), resumed.pure.as_ref().unwrap());
                for (x, y) in whole.finals.iter().zip(&resumed.finals).chain(a.iter().zip(b)) {
                    assert!(x.values == y.values && x.captures == y.captures, "{material} cut after {cut} levels");
                }
            }
        }
        for s in whole.finals {
            known.insert(s.index.material(), Arc::new(s));
        }
    }
}

/// Every file of `dir` named `*.journal` holding at least one level.
fn journals_with_levels(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".journal"))
                .filter(|e| e.metadata().is_ok_and(|m| m.len() > 80))
                .count()
        })
        .unwrap_or(0)
}

/// The real thing: `damka generate` killed (SIGKILL) while a pair is in
/// work, then run again, takes the pair's finished levels from its journal
/// and writes the very bytes of an uninterrupted build.
#[test]
fn a_build_killed_inside_a_pair_resumes_to_the_same_bytes() {
    let whole = support::generate_with_rules("kill-whole", Variant::Russian, 4, "russian");
    let dir = support::TempDir::new("kill-parts");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_damka"))
            .args(["generate", "--pieces", "4", "--quiet", "--dir"])
            .arg(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut resumed_levels = false;
    for _ in 0..6 {
        let mut child = run();
        let started = Instant::now();
        // Kill as soon as a pair has a finished level in its journal.
        while journals_with_levels(dir.path()) == 0 && started.elapsed() < Duration::from_secs(60) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().ok();
        let out = child.wait_with_output().unwrap();
        if journals_with_levels(dir.path()) > 0 {
            let info = Command::new(env!("CARGO_BIN_EXE_damka")).arg("info").arg("--dir").arg(dir.path()).output().unwrap();
            let info = String::from_utf8_lossy(&info.stdout);
            assert!(info.contains("in work (a build was interrupted"), "damka info names the pair in work:\n{info}");
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        resumed_levels |= stdout.contains("taken from an interrupted run");
        if out.status.success() {
            break;
        }
    }
    let out = run().wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    resumed_levels |= String::from_utf8_lossy(&out.stdout).contains("taken from an interrupted run");
    assert!(resumed_levels, "no run took levels from a journal");
    assert_eq!(journals_with_levels(dir.path()), 0, "journals are deleted once their pair is written");
    let (a, b) = (files(whole.path()), files(dir.path()));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs after resuming");
    }
}

/// A slice read back for its results alone (as resumed runs and pair jobs
/// read their inputs: settled threats searched for results, no distance
/// file read) has the results of the same slice read back for its values,
/// position by position.
#[test]
fn a_slice_read_for_its_results_has_the_results_of_its_values() {
    use damka_generator::catalog::{read_slice, slices, Want};
    use damka_generator::solver::Solved;
    let dir = support::generate_with_rules("read-results", Variant::Russian, 4, "russian");
    let mut known: BTreeMap<Material, Solved> = BTreeMap::new();
    let mut threats = 0u64;
    for id in slices(dir.path(), None).unwrap() {
        let lookup = |m: Material| known.get(&m).map(Solved::view);
        let (values, _) = read_slice(dir.path(), id, &lookup, Want::Values).unwrap();
        let (results, _) = read_slice(dir.path(), id, &lookup, Want::Results).unwrap();
        assert_eq!(values.values.len(), results.values.len());
        for (i, (v, r)) in values.values.iter().zip(&results.values).enumerate() {
            assert_eq!(v & 7, r & 7, "{id}: position {i}");
        }
        let mut moves = Vec::new();
        threats += values
            .index
            .positions(0..values.index.size())
            .filter(|p| damka::resolve::is_settled_threat(p, Variant::Russian, resolution_of(id.material, Leaving::default()), &mut moves))
            .count() as u64;
        known.insert(id.material, values);
    }
    // The results' own search ran.
    assert!(threats > 1000, "{threats} settled threats");
}
