//! The `damka` command line as people meet it: what it says when there is
//! nothing to work on or the input is bad, its exit status, and how it
//! behaves at the end of a pipe.

mod support;

use std::process::{Command, Output, Stdio};

use damka::{Material, Variant};
use support::{arg, damka, text, TempDir};

/// Runs `damka args` with its standard output going into a pipe nobody
/// reads any more, as `damka ... | head` after `head` has quit.
#[cfg(unix)]
fn into_closed_pipe(args: &[&str]) -> Output {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe() writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: pipe() just opened both descriptors; each is owned once.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("damka runs")
}

#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let tables = support::generate("pipe", Variant::Russian, 3);
    let dir = arg(tables.path());
    let commands: [&[&str]; 6] = [
        &["perft", "--depth", "6"],
        &["perft", "--depth", "4", "--divide"],
        &["moves", "W:Wc3,e3:Bf6"],
        &["info", "--dir", dir],
        &["stats", "--dir", dir],
        &["probe", "W:WKc3,Kd4:Bf6", "--dir", dir],
    ];
    for args in commands {
        let out = into_closed_pipe(args);
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        // Ended by the signal, as `cat` or `grep` are: quietly.
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{args:?}: {:?}", out.status);
    }
}

/// A bound on a threat's reads that no header can hold is refused before
/// anything is built, saying what would do.
#[test]
fn a_threat_bound_a_header_cannot_hold_is_refused() {
    let dir = TempDir::new("threat-reads");
    for bad in ["12", "256", "-8", "many"] {
        let out = damka(&["generate", "--pieces", "2", "--dir", arg(dir.path()), &format!("--threat-reads={bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("--threat-reads") && !stderr.contains("panicked"), "{bad}: {stderr}");
        if bad.parse::<u32>().is_ok() {
            assert!(stderr.contains("a multiple of 8 up to 248, 0 for no bound, or auto"), "{bad}: {stderr}");
        } else {
            assert!(stderr.contains("or auto"), "{bad}: {stderr}");
        }
    }
    assert_eq!(std::fs::read_dir(dir.path()).map_or(0, |d| d.count()), 0, "nothing written");
}

#[test]
fn a_directory_without_tables_of_the_game_says_so() {
    let empty = TempDir::new("no-tables");
    let brazilian = support::generate("brazilian-only", Variant::Brazilian, 2);
    for (dir, variant) in [(empty.path(), "russian"), (brazilian.path(), "russian"), (empty.path(), "pool")] {
        let out = damka(&["probe", "W:WKa1,Kc3,Ke5:BKh2", "--dir", arg(dir), "--variant", variant]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&format!("no {variant} tables in {}", dir.display())), "{stderr}");
        assert!(!stderr.contains("at most 0"), "{stderr}");

        let out = damka(&["stats", "--dir", arg(dir), "--variant", variant]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&format!("no {variant} tables in {}", dir.display())), "{stderr}");

        let out = damka(&["info", "--dir", arg(dir), "--variant", variant]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{}: no {variant} tables\n", dir.display()));
    }
    let out = damka(&["info", "--dir", arg(empty.path())]);
    assert_eq!(text(&out.stdout), format!("{}: no tables\n", empty.path().display()));
    // No directory at all: named once.
    let nowhere = empty.path().join("nowhere");
    let out = damka(&["probe", "W:WKc3:Bf6", "--dir", arg(&nowhere)]);
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches(&nowhere.display().to_string()).count(), 1, "{stderr}");
    // The library's own error says the same to engines.
    let tb = damka::Tablebase::open(brazilian.path(), damka::OpenOptions::new(Variant::Russian)).expect("open");
    let pos = damka::fen::parse("W:WKc3:Bf6", Variant::Russian).unwrap();
    assert!(matches!(tb.probe_wdl(&pos), Err(damka::ProbeError::NoTables { variant: Variant::Russian, .. })));
}

#[test]
fn a_bad_fen_is_explained_once_and_a_huge_one_is_not_echoed_whole() {
    let out = damka(&["moves", "W:Wb8:Ba1"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("man stands on b8").count(), 1, "{stderr}");
    assert!(stderr.contains("W:Wb8:Ba1"), "{stderr}");

    let huge = format!("W:W{}:Bh8", "c3,".repeat(30_000));
    let out = damka(&["moves", &huge]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.len() < 300, "{} bytes: {stderr}", stderr.len());
    assert!(stderr.contains(&format!("{} characters", huge.len())), "{stderr}");
    // Every part that echoes input is cut: here the piece list.
    let out = damka(&["moves", &format!("W:X{}", "7".repeat(100_000))]);
    let stderr = text(&out.stderr);
    assert!(stderr.len() < 300 && stderr.contains("piece list"), "{stderr}");
}

#[test]
fn an_audit_plot_that_cannot_be_written_fails_before_the_audit() {
    let dir = TempDir::new("plot");
    let plot = dir.path().join("no-such-directory").join("audit.svg");
    let out = damka(&["audit", "--pieces", "3", "--quiet", "--plot", arg(&plot)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "", "no report when the picture cannot be written");
    assert!(text(&out.stderr).contains(&plot.display().to_string()), "{}", text(&out.stderr));

    let plot = dir.path().join("audit.svg");
    let out = damka(&["audit", "--pieces", "2", "--quiet", "--plot", arg(&plot)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&plot).expect("the picture").starts_with("<svg"));
}

#[test]
fn info_names_a_missing_file_and_fails() {
    let tables = support::generate("info-missing", Variant::Russian, 3);
    let dir = arg(tables.path());
    let out = damka(&["info", "--dir", dir]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("problems"), "{}", text(&out.stdout));

    std::fs::remove_file(tables.path().join("russian-KvK.wdl")).unwrap();
    let out = damka(&["info", "--dir", dir]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let problems = stdout.split_once("problems:").map(|p| p.1).unwrap_or_default();
    assert!(problems.lines().any(|l| l.contains("russian-KvK.wdl: missing")), "{stdout}");
    assert!(text(&out.stderr).contains("1 problem"), "{}", text(&out.stderr));

    let out = damka(&["info", "--dir", dir, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["problems"][0]["file"], "russian-KvK.wdl");
}

#[test]
fn stats_refuses_a_misnamed_file_and_counts_the_rest() {
    let tables = support::generate("stats-names", Variant::Russian, 3);
    let dir = tables.path();
    let slices = Material::all_up_to(3).len();
    // A KKvM table under the name of its twin MvKK: same size, other
    // values. It is refused, and so is every slice whose settled threats'
    // moves lead there (no slice of three pieces captures into another).
    std::fs::copy(dir.join("russian-KKvM.dtc"), dir.join("russian-MvKK.dtc")).unwrap();
    let out = damka(&["stats", "--dir", arg(dir)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("russian-MvKK.dtc") && stderr.contains("header describes russian-KKvM.dtc"), "{stderr}");
    let stdout = text(&out.stdout);
    let misnamed: Material = "MvKK".parse().unwrap();
    let refused: Vec<Material> = Material::all_up_to(3)
        .into_iter()
        .filter(|&m| m == misnamed || damka_generator::graph::threats_reach(m).contains(&misnamed))
        .collect();
    assert!(refused.len() > 1 && refused.len() < slices, "{refused:?}");
    for m in &refused {
        assert!(!stdout.lines().any(|l| l.starts_with(&format!("{m} "))), "no row for {m}: {stdout}");
        assert!(*m == misnamed || stderr.contains(&format!("russian-{m}: its moves lead to MvKK")), "{m}: {stderr}");
    }
    assert!(stdout.contains(&format!("{} slices", slices - refused.len())), "{stdout}");
}

/// A damaged block in a slice that other slices' settled threats reach,
/// read block by block: the slices that read it are refused, naming the
/// file and the block; every slice still counted has the counts of an
/// intact directory.
#[test]
fn stats_refuses_slices_that_resolve_through_a_damaged_block() {
    use damka::format::{Header, TableFile};
    let tables = support::generate("stats-damaged", Variant::Russian, 3);
    let dir = tables.path();
    let intact = damka(&["stats", "--dir", arg(dir)]);
    assert_eq!(intact.status.code(), Some(0), "{}", text(&intact.stderr));
    let damaged = dir.join("russian-KKvM.dtc");
    let mut bytes = std::fs::read(&damaged).unwrap();
    assert!(Header::decode(&bytes).unwrap().blocks >= 2, "a table with more than one block");
    let block = TableFile::new(&bytes[..]).unwrap().block_range(1);
    bytes[block.start + block.len() / 2] ^= 0x10;
    std::fs::write(&damaged, bytes).unwrap();

    let out = damka(&["stats", "--dir", arg(dir)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let refused: Vec<&str> = stderr.lines().filter(|l| l.contains("russian-KKvM.dtc: blocks 0-") && l.contains("checksum mismatch")).collect();
    assert!(refused.iter().any(|l| l.contains("russian-KKvM.dtc") && !l.contains("its moves lead to")), "{stderr}");
    assert!(refused.iter().any(|l| l.contains("its moves lead to KKvM")), "a slice reading through it: {stderr}");
    let rows = |stdout: &str| -> Vec<String> { stdout.lines().filter(|l| l.contains('v') && l.split_whitespace().count() > 5).map(str::to_owned).collect() };
    let (before, after) = (rows(&text(&intact.stdout)), rows(&text(&out.stdout)));
    assert!(after.len() < before.len(), "{after:?}");
    for row in &after {
        assert!(before.contains(row), "{row} differs from the intact count");
    }
}

#[test]
fn a_stray_file_of_another_game_does_not_hide_the_rest() {
    let tables = support::generate("stats-stray", Variant::Russian, 3);
    let dir = tables.path();
    let slices = Material::all_up_to(3).len();
    std::fs::copy(dir.join("russian-KvK.wdl"), dir.join("pool-KvK.wdl")).unwrap();
    let out = damka(&["stats", "--dir", arg(dir), "--json"]);
    assert_eq!(out.status.code(), Some(1), "the stray file is reported");
    assert!(text(&out.stderr).contains("pool-KvK.dtc: missing"), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json.as_array().map(Vec::len), Some(slices), "every Russian slice is counted");

    let out = damka(&["stats", "--dir", arg(dir), "--variant", "russian"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&format!("{slices} slices")), "{}", text(&out.stdout));
}

#[test]
fn the_generate_summary_counts_slices() {
    let dir = TempDir::new("summary");
    let slices = Material::all_up_to(3).len();
    let run = || damka(&["generate", "--pieces", "3", "--dir", arg(dir.path()), "--quiet"]);
    let first = run();
    assert!(first.status.success(), "{}", text(&first.stderr));
    let line = text(&first.stdout).lines().next().unwrap_or_default().to_string();
    assert!(line.starts_with(&format!("{slices} slices solved, 0 slices already done;")), "{line}");
    let again = run();
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), format!("0 slices solved, {slices} slices already done\n"));
}

/// Where no bar can be drawn (stderr is a file or pipe, as in a batch job),
/// each pair gets a line as it starts and one as it ends, the last saying
/// the whole run is done; `--quiet` says nothing.
#[test]
fn generate_into_a_log_says_each_pair_in_lines() {
    let dir = TempDir::new("log-lines");
    let pairs = damka::Material::all_up_to(3).iter().filter(|m| **m <= m.swap()).count();
    let out = damka(&["generate", "--pieces", "3", "--dir", arg(dir.path())]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let log = text(&out.stderr);
    let lines: Vec<&str> = log.lines().collect();
    let started = lines.iter().filter(|l| l.contains(": solving ")).count();
    let ended: Vec<&&str> = lines.iter().filter(|l| l.contains(" M/s); this run: ")).collect();
    assert_eq!((started, ended.len()), (pairs, pairs), "{log}");
    assert!(ended[0].starts_with(&format!("[1/{pairs}] russian-KvK: 992 positions in ")), "{log}");
    let last = ended[pairs - 1];
    assert!(last.starts_with(&format!("[{pairs}/{pairs}] russian-")), "{last}");
    assert!(last.contains("(100.0%)") && last.ends_with(", 0 s to go"), "{last}");
    let quiet = damka(&["generate", "--pieces", "2", "--dir", arg(TempDir::new("log-quiet").path()), "--quiet"]);
    assert!(quiet.status.success() && quiet.stderr.is_empty(), "{}", text(&quiet.stderr));
}

#[test]
fn cheskers_is_played_by_perft_and_moves_and_refused_by_the_draughts_only_commands() {
    let start = damka::cheskers::START_FEN;
    let perft = damka(&["perft", "--variant", "cheskers", "--depth", "3"]);
    assert!(perft.status.success(), "{}", text(&perft.stderr));
    assert_eq!(text(&perft.stdout).trim(), "652");
    let perft = damka(&["perft", "--variant", "cheskers+may-stop", "--depth", "4", "--fen", start]);
    assert_eq!(text(&perft.stdout).trim(), "4408");
    let moves = damka(&["moves", "--variant", "cheskers", start]);
    assert_eq!(text(&moves.stdout).lines().count(), 9, "{}", text(&moves.stdout));
    // The game's FEN given to another game: the piece letter is named.
    let russian = damka(&["moves", start]);
    assert_eq!(russian.status.code(), Some(1));
    assert!(text(&russian.stderr).contains("piece 'B'") && text(&russian.stderr).contains("cheskers"));
    let bad = damka(&["moves", "--variant", "cheskers", "B:WKa1,Qc3:BKh8"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("piece 'Q'"), "{}", text(&bad.stderr));
    let bad = damka(&["perft", "--variant", "cheskers+sideways", "--depth", "1"]);
    assert_eq!(bad.status.code(), Some(2), "a usage error");
    assert!(text(&bad.stderr).contains("+may-stop"), "{}", text(&bad.stderr));
    // The commands of draughts tables alone say so and exit 1 or 2 (a usage
    // error), never panic.
    let dir = TempDir::new("cheskers");
    let commands: [&[&str]; 3] = [
        &["play", "--variant", "cheskers", start],
        &["plan", "--variant", "cheskers", "--pieces", "3"],
        &["serve", "--variant", "cheskers"],
    ];
    for args in commands {
        let args: Vec<&str> = args.iter().copied().chain(["--dir", arg(dir.path())]).collect();
        let out = damka(&args);
        let stderr = text(&out.stderr);
        assert!(matches!(out.status.code(), Some(1 | 2)), "{args:?}: {stderr}");
        assert!(stderr.contains("Cheskers") && stderr.contains("generate, verify, stats, probe, info and audit"), "{args:?}: {stderr}");
    }
}
