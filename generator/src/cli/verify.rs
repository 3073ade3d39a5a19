//! `damka verify` (being written).

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

#[derive(Args)]
pub struct VerifyArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
}

pub fn run(args: VerifyArgs) -> Result<()> {
    bail!("damka verify is not built yet ({})", args.dir.display())
}
