//! `damka probe` (being written).

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

#[derive(Args)]
pub struct ProbeArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
}

pub fn run(args: ProbeArgs) -> Result<()> {
    bail!("damka probe is not built yet ({})", args.dir.display())
}
