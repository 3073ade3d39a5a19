//! `damka generate --memory`: the build keeps its budget, measured from
//! outside (the child's peak resident memory, from `wait4`), writes the
//! same bytes whatever the budget, and refuses before any work a budget
//! that a pair cannot fit in, naming the pair.

mod support;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use damka::Material;
use damka_generator::graph::pairs_in_order;
use damka_generator::memory;

/// What a damka run gave: exit code, stdout, stderr, and its peak
/// resident memory in bytes (0 if it ended before the first look).
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak: u64,
}

/// Runs damka, reading its peak resident memory (`VmHWM`) from /proc
/// every few milliseconds until it exits: the kernel's high-water mark of
/// that process alone. (`wait4`'s figure will not do: the kernel counts in
/// it the memory of the test process the child was forked from.)
fn run(args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("damka starts");
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).expect("read the child's output");
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("piped")));
    let stderr = read(Box::new(child.stderr.take().expect("piped")));
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let exit = loop {
        // Read before asking whether it ended: a process not yet reaped
        // still has its /proc entry.
        if let Some(kib) = std::fs::read_to_string(&status).ok().and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        }) {
            peak = peak.max(kib * 1024);
        }
        if let Some(exit) = child.try_wait().expect("wait for damka") {
            break exit;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Run { code: exit.code(), stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap(), peak }
}

/// The table files of a directory, by name.
fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().extension().is_some_and(|x| x == "wdl" || x == "dtc"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// The number before `what` on the memory line of a generate summary
/// ("...; N slices read back from their tables, M restored from working
/// copies ..."); 0 where the line does not say.
fn count(stdout: &str, what: &str) -> usize {
    let line = stdout.lines().find(|l| l.contains("slices read back")).unwrap_or_else(|| panic!("no memory line: {stdout}"));
    let Some((before, _)) = line.split_once(what) else { return 0 };
    before.rsplit(' ').next().unwrap().parse().unwrap_or_else(|_| panic!("{line}"))
}

/// The working copies in `dir`.
fn working_copies(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".spill"))
        .collect()
}

#[test]
fn a_tight_budget_is_kept_and_changes_no_byte() {
    let order = pairs_in_order(4);
    let unbudgeted = memory::schedule(&order, |_| false, None, memory::Dropped::Spilled).unwrap().peak_bytes;
    // The least a build can keep to: the pair that needs the most.
    let budget = order.iter().map(|&p| memory::least_memory(p)).max().unwrap();
    assert!(budget < unbudgeted, "at 4 pieces the budget binds: {budget} against {unbudgeted}");
    let free = support::TempDir::new("memory-free");
    let tight = support::TempDir::new("memory-tight");
    let build = |dir: &Path, memory: &str| {
        let r = run(&["generate", "--pieces", "4", "--quiet", "--threads", "2", "--memory", memory, "--dir", dir.to_str().unwrap()]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        r
    };
    let f = build(free.path(), "1T");
    // A working copy a killed run left: the next whole build deletes it.
    std::fs::write(tight.path().join("russian-KKvK.spill"), b"left by a killed run").unwrap();
    let t = build(tight.path(), &format!("{}K", budget.div_ceil(1024)));
    assert_eq!(count(&f.stdout, " slices read back") + count(&f.stdout, " restored"), 0, "{}", f.stdout);
    // Every slice is solved in the run: dropped ones come back from the
    // working copies it spilled, none from the tables.
    assert_eq!(count(&t.stdout, " slices read back"), 0, "{}", t.stdout);
    assert!(count(&t.stdout, " restored") > 0, "the budget made it drop slices and restore them: {}", t.stdout);
    assert_eq!(working_copies(tight.path()), Vec::<String>::new(), "working copies left behind");
    assert!(f.peak > 0 && t.peak > 0, "no VmHWM in /proc/PID/status: this test needs Linux's /proc");
    assert!(t.peak <= budget, "peak {} over the budget {budget}", t.peak);
    eprintln!("peak resident: {} bytes without a budget, {} within {budget}", f.peak, t.peak);
    let (a, b) = (tables(free.path()), tables(tight.path()));
    assert_eq!(a.len(), 2 * Material::all_up_to(4).len());
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs with a budget");
    }
}

#[test]
fn a_pair_that_cannot_fit_is_named_before_any_work() {
    let budget: u64 = 20 << 20;
    let (pair, need) = memory::largest_over(&pairs_in_order(4), budget).expect("4-piece pairs need more than 20 MiB");
    // No pair needs more than the one named.
    assert!(pairs_in_order(4).into_iter().all(|p| memory::least_memory(p) <= need), "{pair} needs {need}");
    let named = format!("the pair russian-{pair}");
    let dir = support::TempDir::new("memory-refused");
    let d = dir.path().to_str().unwrap();
    let refused = |args: &[&str]| {
        let r = run(args);
        assert_eq!(r.code, Some(1), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(&named) && r.stderr.contains("--memory 20.0 MiB"), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(&format!("{}M or more", need.div_ceil(1 << 20) + 1)), "{}", r.stderr);
        assert!(tables(dir.path()).is_empty(), "{args:?} wrote tables");
    };
    refused(&["generate", "--pieces", "4", "--memory", "20M", "--dir", d]);
    // A pair job, its inputs finished: refused all the same.
    let r = run(&["generate", "--pieces", "3", "--dir", d, "--quiet"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let three = tables(dir.path());
    // KKvKK reads only three-piece slices.
    let refused_pair = run(&["generate", "--pair", "KKvKK", "--pieces", "4", "--memory", "20M", "--dir", d]);
    assert_eq!(refused_pair.code, Some(1), "{}", refused_pair.stderr);
    assert!(refused_pair.stderr.contains("the pair russian-KKvKK ("), "{}", refused_pair.stderr);
    assert_eq!(tables(dir.path()), three, "the refused pair job wrote tables");
    // The plan names every pair that does not fit, the largest first.
    let plan = run(&["plan", "--pieces", "4", "--memory", "20M", "--dir", d]);
    assert_eq!(plan.code, Some(0), "{}", plan.stderr);
    let line = plan.stdout.lines().find(|l| l.contains("do not fit in 20.0 MiB")).unwrap_or_else(|| panic!("{}", plan.stdout));
    assert!(line.starts_with(&format!("{} of {} pairs", pairs_in_order(4).len(), pairs_in_order(4).len())), "{line}");
    assert!(line.contains(&format!(": {pair} (")), "{line}");
    // Sizes without a unit or with an unknown one are refused by clap.
    for (bad, why) in [("12", "give a unit"), ("12Q", "unknown unit"), ("lots", "is not a size")] {
        let r = run(&["generate", "--pieces", "2", "--memory", bad, "--dir", d]);
        assert_eq!(r.code, Some(2), "{bad}: {}", r.stderr);
        assert!(r.stderr.contains(why) && !r.stderr.contains("panicked"), "{bad}: {}", r.stderr);
    }
}
