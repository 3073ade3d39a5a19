//! Helpers shared by the integration tests: temporary directories and
//! small generated tables.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use damka::{RuleSet, Variant};
use damka_generator::driver::{self, Job, Summary};
use damka_generator::graph::{DontCare, Leaving};

/// A directory under the system's temporary directory, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("damka-test-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Generates the tables of `variant` with up to `pieces` pieces and pure
/// values (rule set `none`) into a new temporary directory.
pub fn generate(name: &str, variant: Variant, pieces: u8) -> TempDir {
    generate_with_rules(name, variant, pieces, "none")
}

/// Generates tables under the preset rule set `rules`.
pub fn generate_with_rules(name: &str, variant: Variant, pieces: u8, rules: &str) -> TempDir {
    let dir = TempDir::new(name);
    generate_into(dir.path(), variant, pieces, rules);
    dir
}

/// Generates (or resumes) tables in `dir`; returns what the run did.
pub fn generate_into(dir: &Path, variant: Variant, pieces: u8, rules: &str) -> Summary {
    generate_storing(dir, variant, pieces, rules, DontCare::default())
}

/// [`generate_into`], the files leaving "don't care" what `dont_care` says.
pub fn generate_storing(dir: &Path, variant: Variant, pieces: u8, rules: &str, dont_care: impl Into<Leaving>) -> Summary {
    let rules = Arc::new(RuleSet::preset(rules).expect("a preset rule set"));
    let job = Job { variant, max_pieces: pieces, dir: dir.to_path_buf(), rules, progress: false, replace: false, memory: None, dont_care: dont_care.into() };
    driver::run(&job).expect("generate tables")
}

/// The directory of the profile this test was built in
/// (`<target dir>/<profile>`), whatever CARGO_TARGET_DIR says: the test
/// executable lives in its `deps` folder, next to which cargo puts
/// libdamka.a and libdamka.so.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory");
    deps.parent().expect("profile directory").to_path_buf()
}

/// The newest file called `name` in the profile directory or its `deps`.
pub fn find_library(name: &str) -> PathBuf {
    let profile = profile_dir();
    [profile.join(name), profile.join("deps").join(name)]
        .into_iter()
        .filter(|p| p.is_file())
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| panic!("{name} not found in {} or its deps/", profile.display()))
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}


/// The system libraries a program linked with libdamka.a needs.
pub const STATIC_LIB_DEPS: &[&str] = &["-lpthread", "-ldl", "-lm", "-lrt", "-lutil", "-lgcc_s", "-lc"];

pub mod http;

/// What `damka args...` prints and its exit status.
pub fn damka(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_damka")).args(args).output().expect("damka runs")
}

/// What `damka args...` prints; fails the test if it fails.
pub fn damka_stdout(args: &[&str]) -> String {
    let out = damka(args);
    assert!(out.status.success(), "damka {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A path as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
