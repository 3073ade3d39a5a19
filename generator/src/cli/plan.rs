//! `damka plan`: the build as cluster jobs (see [`crate::plan`]).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use damka::directory::Manifest;
use damka::Variant;

use super::generate::load_rules;
use crate::graph::MAX_PIECES;
use crate::memory;
use crate::plan::{self, shell_quote, Slurm, GROUP_CORE_SECONDS};

#[derive(Args)]
pub struct PlanArgs {
    /// Game: russian, brazilian, pool, english or italian.
    #[arg(long, default_value = "russian")]
    variant: Variant,
    /// Largest number of pieces on the board.
    #[arg(long)]
    pieces: u8,
    /// Draw rules: a preset or a .toml file (default: the game's own).
    #[arg(long)]
    rules: Option<String>,
    /// The shared directory the jobs build into (seen at the same path from
    /// every node).
    #[arg(long)]
    dir: PathBuf,
    /// Write the plan to this file rather than print it.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The plan as JSON (keys: pieces, passes, pairs, jobs, totals).
    #[arg(long)]
    json: bool,
    /// Write a Slurm submission script, OUTDIR/submit.sh, and the plan
    /// beside it; the jobs' logs go to OUTDIR/logs.
    #[arg(long, value_name = "OUTDIR")]
    slurm: Option<PathBuf>,
    /// Cores per job: the threads of its solver, each working on one men
    /// configuration at a time, which the memory estimates count
    #[arg(long, default_value_t = 1)]
    cpus: u32,
    /// Group consecutive pairs into one job until it is estimated at this
    /// many core-seconds (0: one job per pair).
    #[arg(long, default_value_t = GROUP_CORE_SECONDS)]
    group_seconds: f64,
    /// Check the plan against this memory budget (e.g. 12G, 512M, 1.5GiB;
    /// powers of 1024): which pairs do not fit, and what a local build
    /// within it peaks at. Jobs are planned within it too.
    #[arg(long, value_name = "SIZE", value_parser = memory::parse_size)]
    memory: Option<u64>,
}

pub fn run(args: PlanArgs) -> Result<()> {
    if !(2..=MAX_PIECES).contains(&args.pieces) {
        bail!("--pieces {}: damka builds slices of 2 to {MAX_PIECES} pieces", args.pieces);
    }
    if args.cpus == 0 {
        bail!("--cpus 0: a job needs a core");
    }
    if !(args.group_seconds >= 0.0 && args.group_seconds.is_finite()) {
        bail!("--group-seconds {}: give a number of seconds, 0 or more", args.group_seconds);
    }
    let rules = load_rules(args.rules.as_deref(), args.variant)?;
    // A directory of another build is refused now, not by the first job.
    crate::claim::check_for_pairs(&args.dir, &Manifest::new(args.variant, rules.clone()))?;
    let passes = 1 + !rules.is_empty() as u64;
    // Memory is estimated for the threads a job runs (each solves a unit
    // at a time): the estimates run in a pool of that many.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.cpus as usize).build().context("cannot start worker threads")?;
    let plan = pool.install(|| plan::plan(args.pieces, passes, args.group_seconds, args.memory));
    let text = if args.json {
        serde_json::to_string_pretty(&plan).expect("plain data serializes") + "\n"
    } else {
        plan.to_text()
    };
    if let Some(outdir) = &args.slurm {
        std::fs::create_dir_all(outdir).with_context(|| format!("cannot create {}", outdir.display()))?;
        let outdir = absolute(outdir)?;
        let damka = std::env::current_exe().context("cannot find the damka binary")?;
        // A rule file is read by every job: by its absolute path.
        let rules_arg = match &args.rules {
            Some(r) if r.ends_with(".toml") => absolute(Path::new(r))?.display().to_string(),
            Some(r) => r.clone(),
            None => rules.name.clone(),
        };
        let generate_args = [
            "--variant".to_string(),
            args.variant.to_string(),
            "--rules".to_string(),
            shell_quote(&rules_arg),
            "--pieces".to_string(),
            args.pieces.to_string(),
            "--dir".to_string(),
            shell_quote(&absolute(&args.dir)?.display().to_string()),
        ]
        .join(" ");
        let slurm = Slurm {
            damka: damka.display().to_string(),
            generate_args,
            cpus: args.cpus,
            logs: outdir.join("logs").display().to_string(),
        };
        let script = outdir.join("submit.sh");
        write(&script, &plan.slurm_script(&slurm))?;
        make_executable(&script)?;
        let plan_file = outdir.join(if args.json { "plan.json" } else { "plan.txt" });
        write(&plan_file, &text)?;
        println!(
            "{}: {} jobs for {} pairs; {}: the plan. Submit with: {}",
            script.display(),
            plan.jobs.len(),
            plan.pairs.len(),
            plan_file.display(),
            script.display()
        );
        return Ok(());
    }
    match &args.out {
        Some(path) => write(path, &text),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn make_executable(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", path.display()))?;
    }
    Ok(())
}
