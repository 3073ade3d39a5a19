//! Rule files from the outside: a name of 16 bytes goes through generate,
//! the table headers, resume, `probe --rules` and `verify --rules` whole;
//! names and limits tables cannot hold are refused before anything is
//! built.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use damka::format::{Kind, TableFile};
use damka::{Material, RuleSet, Variant};
use damka_generator::driver::{self, Job};
use damka_generator::writer::table_path;

/// A rule file whose name fills the header's 16 bytes.
const SIXTEEN: &str = "name = \"russian-extended\"\n\n[[rule]]\nname = \"two-kings\"\ncounter = \"quiet\"\n\
                       limit_moves = 15\nwhen = { strong = [\"KK\"], weak = \"lone-king\" }\n";

fn damka(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka")).args(args).output().expect("damka runs")
}

fn write_rules(dir: &Path, text: &str) -> String {
    let path = dir.join("rules.toml");
    std::fs::write(&path, text).expect("write rule file");
    path.to_str().expect("a UTF-8 path").to_string()
}

fn build(dir: &Path, rules: &Arc<RuleSet>) -> driver::Summary {
    let job = Job { variant: Variant::Russian, max_pieces: 3, dir: dir.to_path_buf(), rules: rules.clone(), progress: false, replace: false, memory: None, dont_care: Default::default() };
    driver::run(&job).expect("generation")
}

#[test]
fn a_sixteen_byte_name_round_trips_through_generate_resume_and_probe() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let tables = dir.path().join("tables");
    let file = write_rules(dir.path(), SIXTEEN);
    let rules = Arc::new(RuleSet::parse(SIXTEEN).expect("a valid rule file"));

    let first = build(&tables, &rules);
    assert!(first.total().slices > 0 && first.skipped == 0);
    let kkvk = table_path(&tables, Variant::Russian, Material::new(2, 0, 1, 0), Kind::Distance);
    let file_bytes = std::fs::read(kkvk).expect("KKvK table");
    let header = TableFile::new(file_bytes).expect("a sound table").header().clone();
    assert_eq!((header.rules_name.as_str(), header.rules_hash), ("russian-extended", rules.hash));

    // Resume finds every slice finished: the header names the same set.
    let again = build(&tables, &rules);
    assert_eq!((again.total().slices, again.skipped), (0, first.total().slices));

    let dir_arg = tables.to_str().unwrap();
    let probed = damka(&["probe", "--dir", dir_arg, "--rules", &file, "W:WKa1,Kc3:BKe5"]);
    assert!(probed.status.success(), "{}", String::from_utf8_lossy(&probed.stderr));
    // Rule values re-derived too: with the rule file, and with the copy the
    // directory's manifest carries.
    for rules in [&["--rules", file.as_str()][..], &[]] {
        let verified = damka(&[&["verify", "--dir", dir_arg, "--quiet"], rules].concat());
        let stdout = String::from_utf8_lossy(&verified.stdout);
        assert!(verified.status.success() && !stdout.contains("note:"), "{rules:?}: {stdout}");
    }
    let other = damka(&["verify", "--dir", dir_arg, "--rules", "russian", "--quiet"]);
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert!(!other.status.success() && stderr.contains("no tables") && stderr.contains("russian-extended"), "{stderr}");
}

/// A rule set built in code never met the reader: generate still refuses
/// a name the reader refuses, before it solves or writes anything.
#[test]
fn generate_refuses_a_name_built_in_code() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let tables = dir.path().join("tables");
    for name in ["none", "russian-extended2"] {
        let mut rules = RuleSet::parse(SIXTEEN).expect("a valid rule file");
        rules.name = name.to_string();
        let job = Job { variant: Variant::Russian, max_pieces: 3, dir: tables.clone(), rules: Arc::new(rules), progress: false, replace: false, memory: None, dont_care: Default::default() };
        let error = driver::run(&job).expect_err("a name the reader refuses").to_string();
        assert!(error.starts_with(&format!("rule set name '{name}'")), "{error}");
        assert!(!tables.exists(), "{name}: nothing written");
    }
}

/// Names a header cannot hold whole, `none` with rules, and a limit beyond
/// what a table stores: `generate` stops with the reason, having written
/// nothing.
#[test]
fn rule_files_tables_cannot_hold_are_refused_before_building() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let tables = dir.path().join("tables");
    let cases = [
        (SIXTEEN.replace("russian-extended", "russian-extended2"), "1 to 16 characters"),
        (SIXTEEN.replace("russian-extended", "русские-правила"), "1 to 16 characters"),
        (SIXTEEN.replace("russian-extended", ""), "1 to 16 characters"),
        (SIXTEEN.replace("russian-extended", "none"), "kept for the rule set without rules"),
        ("name = \"pure\"\n".to_string(), "named 'none'"),
        (SIXTEEN.replace("limit_moves = 15", "limit_moves = 32768"), "above 4095"),
    ];
    for (text, reason) in cases {
        let file = write_rules(dir.path(), &text);
        let out = damka(&["generate", "--pieces", "3", "--quiet", "--rules", &file, "--dir", tables.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(reason), "{text}: {stderr}");
        assert!(!tables.exists(), "{text}: nothing written");
    }
}
