//! The `damka` command line as people meet it: what it says when there is
//! nothing to work on or the input is bad, its exit status, and how it
//! behaves at the end of a pipe.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use damka::{Material, Variant};
use support::TempDir;

fn damka(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka")).args(args).output().expect("damka runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

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
