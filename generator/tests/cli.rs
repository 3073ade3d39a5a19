//! The `damka` command line as people meet it: what it says when there is
//! nothing to work on or the input is bad, its exit status, and how it
//! behaves at the end of a pipe.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use damka::Material;
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
