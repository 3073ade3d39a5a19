//! The `damka` command line.

use clap::Parser;
use damka_generator::cli;

fn main() {
    let args = cli::Cli::parse();
    if let Err(err) = cli::run(args) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
