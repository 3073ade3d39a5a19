//! Compiles tests/c/probe_test.c against the C library built from
//! damka-probe (static, then shared) and runs it on generated 3-piece
//! Russian tables.

mod support;

use std::path::Path;
use std::process::Command;

use damka::Variant;

fn compile(out: &Path, link: &[&str]) {
    let root = support::workspace_root();
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

    let static_lib = support::find_library("libdamka.a");
    let exe = build.path().join("probe_test_static");
    let lib = static_lib.to_str().expect("UTF-8 path");
    compile(&exe, &[&[lib], support::STATIC_LIB_DEPS].concat());
    run(&exe, tables.path());

    let shared_lib = support::find_library("libdamka.so");
    let exe = build.path().join("probe_test_shared");
    let lib_dir = shared_lib.parent().expect("library directory").to_str().expect("UTF-8 path");
    compile(&exe, &[shared_lib.to_str().expect("UTF-8 path"), &format!("-Wl,-rpath,{lib_dir}")]);
    run(&exe, tables.path());
}
