//! An interrupted build resumes to the very bytes of an uninterrupted one.
//! The slices a resumed run reads back come from their files, capture
//! positions resolved through their captures (they are "don't care" on
//! disk); every later slice is solved from those values, so a resolution
//! that differed from the solver in a single position would change bytes.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use damka::Variant;

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
