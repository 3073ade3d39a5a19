//! Helpers shared by the integration tests: temporary directories and
//! small generated tables.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use damka::{RuleSet, Variant};
use damka_generator::driver::{self, Job, Summary};

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
    let rules = Arc::new(RuleSet::preset(rules).expect("a preset rule set"));
    let job = Job { variant, max_pieces: pieces, dir: dir.to_path_buf(), rules, progress: false, replace: false };
    driver::run(&job).expect("generate tables")
}
