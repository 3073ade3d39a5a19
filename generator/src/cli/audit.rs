//! `damka audit`: how long the wins of each ending are against the limits.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use damka::game::Game;
use indicatif::{ProgressBar, ProgressStyle};

use super::generate::load_rules;
use crate::audit;
use crate::driver::work;
use crate::graph::pairs_in_order;

#[derive(Args)]
pub struct AuditArgs {
    /// Game: russian, brazilian, pool, english, italian or cheskers.
    #[arg(long, default_value = "russian")]
    variant: Game,
    /// Cheskers only: the directory of its tables, which the audit reads
    /// (the draughts audit solves in memory under any rule set; Cheskers
    /// has no rules to try).
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
    /// Draw rules: a preset (russian, brazilian, english, none) or a .toml
    /// file. Default: the game's own preset.
    #[arg(long)]
    rules: Option<String>,
    /// Largest number of pieces.
    #[arg(long, default_value_t = 5)]
    pieces: u8,
    /// Print JSON instead of the report.
    #[arg(long)]
    json: bool,
    /// Write the distribution of win lengths per slice as an SVG picture.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Hide the progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run(args: AuditArgs) -> Result<()> {
    if !(2..=6).contains(&args.pieces) {
        bail!("--pieces {}: the audit solves in memory, for 2 to 6 pieces", args.pieces);
    }
    if args.variant == Game::Cheskers && args.rules.as_deref().is_some_and(|r| r != damka::cheskers::RULES) {
        bail!("--rules: Cheskers has no move-limit rules; its tables hold pure values (rule set none)");
    }
    // Open the picture's file now: a path that cannot be written should
    // fail before the long audit, not after it.
    let plot = match &args.plot {
        Some(path) => Some((path, File::create(path).with_context(|| format!("cannot write {}", path.display()))?)),
        None => None,
    };
    let result = match args.variant {
        Game::Cheskers => super::cheskers::audit(&args.dir, args.pieces)?,
        Game::Draughts(variant) => {
            let rules = Arc::new(load_rules(args.rules.as_deref(), variant)?);
            let total = work(&pairs_in_order(args.pieces), &audit::options(variant, rules.clone()));
            let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
            bar.set_style(
                ProgressStyle::with_template(
                    "auditing [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions, eta {eta}",
                )
                .expect("valid template"),
            );
            let result = audit::run(variant, rules, args.pieces, &|n| bar.inc(n));
            bar.finish_and_clear();
            result
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", audit::report(&result));
    }
    if let Some((path, mut file)) = plot {
        file.write_all(audit::plot(&result).as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
