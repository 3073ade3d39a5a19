//! Compiles tests/c/probe_test.c against the C library built from
//! damka-probe (static, then shared) and runs it on generated 3-piece
//! Russian tables.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use damka::Variant;

/// The directory of the profile this test was built in
/// (`<target dir>/<profile>`), whatever CARGO_TARGET_DIR says: the test
/// executable lives in its `deps` folder, next to which cargo puts
/// libdamka.a and libdamka.so.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory");
    deps.parent().expect("profile directory").to_path_buf()
}

/// The newest file called `name` in the profile directory or its `deps`.
fn find_library(name: &str) -> PathBuf {
    let profile = profile_dir();
    [profile.join(name), profile.join("deps").join(name)]
        .into_iter()
        .filter(|p| p.is_file())
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| panic!("{name} not found in {} or its deps/", profile.display()))
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

fn compile(out: &Path, link: &[&str]) {
    let root = workspace_root();
    let status = Command::new("cc")
        .arg("-std=c99")
        .arg("-Wall")
        .arg("-Werror")
        .arg(root.join("tests/c/probe_test.c"))
        .arg("-I")
        .arg(root.join("probe/include"))
        .arg("-o")
        .arg(out)
        .args(link)
        .status()
        .expect("run cc (a C compiler is needed for this test)");
    assert!(status.success(), "cc failed: {status}");
}

fn run(exe: &Path, tables: &Path) {
    let output = Command::new(exe).arg(tables).arg("3").output().expect("run the C test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "C test failed ({}):\n{stdout}\n{stderr}", output.status);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn c_program_probes_through_the_static_and_shared_library() {
    let tables = support::generate("capi", Variant::Russian, 3);
    let build = support::TempDir::new("capi-build");

    let static_lib = find_library("libdamka.a");
    let exe = build.path().join("probe_test_static");
    let lib = static_lib.to_str().expect("UTF-8 path");
    compile(&exe, &[lib, "-lpthread", "-ldl", "-lm", "-lrt", "-lutil", "-lgcc_s", "-lc"]);
    run(&exe, tables.path());

    let shared_lib = find_library("libdamka.so");
    let exe = build.path().join("probe_test_shared");
    let lib_dir = shared_lib.parent().expect("library directory").to_str().expect("UTF-8 path");
    compile(&exe, &[shared_lib.to_str().expect("UTF-8 path"), &format!("-Wl,-rpath,{lib_dir}")]);
    run(&exe, tables.path());
}
