//! `damka info` (being written).

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

#[derive(Args)]
pub struct InfoArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
}

pub fn run(args: InfoArgs) -> Result<()> {
    bail!("damka info is not built yet ({})", args.dir.display())
}
