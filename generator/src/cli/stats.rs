//! `damka stats`.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use damka::Variant;

use crate::stats;

#[derive(Args)]
pub struct StatsArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
    /// Only this game's tables (default: every game in the directory).
    #[arg(long)]
    variant: Option<Variant>,
    /// Print a JSON array, one object per slice (keys: docs/STATS.md).
    #[arg(long)]
    json: bool,
}

pub fn run(args: StatsArgs) -> Result<()> {
    let all = stats::collect(&args.dir, args.variant)?;
    if all.is_empty() {
        anyhow::bail!("no tables in {}", args.dir.display());
    }
    if args.json {
        println!("{}", stats::to_json(&all));
    } else {
        print!("{}", stats::to_table(&all));
    }
    Ok(())
}
