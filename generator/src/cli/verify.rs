//! `damka verify`.


use anyhow::{bail, Result};
use clap::Args;

use super::TablesArgs;
use damka::Material;

use crate::verify::{self, Options};

#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    tables: TablesArgs,
    /// Only this slice, e.g. KKMvK (the tables it reads are not checked).
    #[arg(long)]
    slice: Option<Material>,
    /// Hide the progress bars.
    #[arg(long)]
    quiet: bool,
}

pub fn run(args: VerifyArgs) -> Result<()> {
    let opts = Options { dir: args.tables.dir, variant: args.tables.variant, slice: args.slice, progress: !args.quiet };
    let report = verify::run(&opts)?;
    for (variant, rules) in &report.results_only {
        println!(
            "note: {variant} tables, rule set '{rules}': only their win/draw/loss results were re-derived \
             (the rule set is not a preset, so its limits are unknown here)"
        );
    }
    for p in &report.problems {
        println!("FAILED {p}");
    }
    println!(
        "{} slices, {} positions re-derived in {:.1} s",
        report.slices, report.positions, report.seconds
    );
    match report.problems.first() {
        None => {
            println!("all tables verified");
            Ok(())
        }
        Some(first) => {
            bail!("verify found {} problem(s) in {}; the first: {first}", report.problems.len(), opts.dir.display())
        }
    }
}
