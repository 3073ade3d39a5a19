//! The cluster build for real: scripts/test-slurm starts a Slurm cluster of
//! one node on this machine, builds every Russian slice up to 3 pieces
//! through `damka plan --slurm` jobs (one per pair, afterok edges), cancels
//! a running job and submits again, and compares every file with a local
//! build, then runs `damka verify`. It tests this very binary. Needs root
//! and slurm-wlm and munge (the script installs them with apt-get where
//! missing; .ci/run does so first). At 5 pieces, run the script by hand.

use std::path::Path;
use std::process::Command;

#[test]
fn a_slurm_cluster_builds_the_bytes_of_a_local_build() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/test-slurm");
    let out = Command::new("bash")
        .arg(&script)
        .args(["--pieces", "3", "--damka", env!("CARGO_BIN_EXE_damka")])
        .output()
        .expect("bash runs scripts/test-slurm");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "scripts/test-slurm --pieces 3 failed (it needs root and the packages slurm-wlm and munge: \
         apt-get install --no-install-recommends slurm-wlm munge):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("byte-identical to the local one") && stdout.contains("damka verify passed"), "{stdout}");
}
