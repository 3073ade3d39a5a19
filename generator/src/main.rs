//! The `damka` command line.

use clap::Parser;
use damka_generator::cli;

fn main() {
    end_quietly_on_a_closed_pipe();
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
