//! `damka stats`.

use anyhow::{bail, Result};
use clap::Args;

use super::TablesArgs;

use crate::stats;

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    tables: TablesArgs,
    /// Print a JSON array, one object per slice (keys: docs/STATS.md).
    #[arg(long)]
    json: bool,
}

pub fn run(args: StatsArgs) -> Result<()> {
    let dir = &args.tables.dir;
    if args.tables.is_cheskers() {
        return super::cheskers::stats(dir, args.json);
    }
    let found = stats::collect(dir, args.tables.draughts())?;
    if found.slices.is_empty() && found.problems.is_empty() {
        match args.tables.draughts() {
            Some(variant) => bail!("no {variant} tables in {}", dir.display()),
            None => bail!("no tables in {}", dir.display()),
        }
    }
    if args.json {
        println!("{}", stats::to_json(&found.slices));
    } else {
        print!("{}", stats::to_table(&found.slices));
    }
    for e in &found.problems {
        eprintln!("not counted: {e:#}");
    }
    match found.problems.len() {
        0 => Ok(()),
        n => bail!("{n} slice(s) in {} not counted", dir.display()),
    }
}
