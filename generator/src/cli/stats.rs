//! `damka stats`.


use anyhow::Result;
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
    let all = stats::collect(&args.tables.dir, args.tables.variant)?;
    if all.is_empty() {
        anyhow::bail!("no tables in {}", args.tables.dir.display());
    }
    if args.json {
        println!("{}", stats::to_json(&all));
    } else {
        print!("{}", stats::to_table(&all));
    }
    Ok(())
}
