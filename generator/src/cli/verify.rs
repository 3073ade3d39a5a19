//! `damka verify`.

use std::sync::Arc;

use anyhow::{bail, Result};
use clap::Args;

use super::generate::load_named_rules;
use super::TablesArgs;
use damka::Material;

use crate::verify::{self, Options};

#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    tables: TablesArgs,
    /// Only this slice, e.g. KKMvK or, for Cheskers, KBvKC (the tables it
    /// reads are not checked).
    #[arg(long)]
    slice: Option<String>,
    /// The rule file the tables were built with, if not a preset and not
    /// in the directory's manifest (tables built before manifests): their
    /// rule values and distances are then re-derived too.
    #[arg(long)]
    rules: Option<String>,
    /// Hide the progress bars.
    #[arg(long)]
    quiet: bool,
}

pub fn run(args: VerifyArgs) -> Result<()> {
    if args.tables.is_cheskers() {
        if args.rules.is_some() {
            bail!("--rules: Cheskers tables hold pure values, built with rule set none");
        }
        return super::cheskers::verify(&args.tables.dir, args.slice.as_deref(), !args.quiet);
    }
    let slice = args.slice.as_deref().map(str::parse::<Material>).transpose()?;
    let rules = args.rules.as_deref().map(load_named_rules).transpose()?.map(Arc::new);
    let opts =
        Options { variant: args.tables.draughts(), dir: args.tables.dir, slice, progress: !args.quiet, rules };
    let report = verify::run(&opts)?;
    for (variant, rules) in &report.results_only {
        println!(
            "note: {variant} tables, rule set '{rules}': only their win/draw/loss results were re-derived \
             (the rule set is no preset and the directory carries no copy of it: give its file with --rules)"
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
