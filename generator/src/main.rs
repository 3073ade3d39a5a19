//! The `damka` command line.

use clap::Parser;
use damka_generator::cli;

fn main() {
    end_quietly_on_a_closed_pipe();
    keep_freed_memory();
    let args = cli::Cli::parse();
    if let Err(err) = cli::run(args) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

/// `damka info | head`: when the reader quits, stop as other command-line
/// tools do, by the default action of SIGPIPE. Rust ignores the signal, so
/// every later print would panic on the failed write instead. Tables are
/// renamed into place whole, so stopping at any write leaves none half
/// written.
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any other thread exists;
    // SIG_DFL is a valid action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Keeps memory freed by the solver in the process: glibc returns large
/// vectors (a unit's state, a level's results) to the kernel when they are
/// freed, and the next one faults every page in again, zeroed. Side by
/// side at 5 pieces, one thread, this took 0.96x the time (page faults
/// 2.00 M -> 0.85 M); at 6 pieces 1.00x (24.7 M -> 20.9 M): there most
/// vectors are above the largest threshold glibc takes, and still mapped
/// afresh. Every table byte-identical.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called in main before any other thread exists; mallopt only
    // sets glibc's thresholds and reports whether it took them.
    unsafe {
        // The largest threshold glibc takes on 64-bit systems; the trim
        // threshold as large as a c_int holds.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
    }
}
