//! `damka stats` (being written).

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

#[derive(Args)]
pub struct StatsArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
}

pub fn run(args: StatsArgs) -> Result<()> {
    bail!("damka stats is not built yet ({})", args.dir.display())
}
