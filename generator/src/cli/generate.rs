//! `damka generate`.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use std::sync::Arc;

use damka::game::Game;
use damka::{Material, RuleSet, Variant};

use crate::driver::{self, Job};
use crate::graph::{DontCare, Leaving, ThreatReads, MAX_PIECES};
use crate::memory;
use crate::plan::human_bytes;

/// A rule set by preset name or file path; by default the game's own.
pub fn load_rules(name: Option<&str>, variant: Variant) -> Result<RuleSet> {
    load_named_rules(name.unwrap_or(match variant {
        Variant::Russian => "russian",
        Variant::Brazilian => "brazilian",
        Variant::English => "english",
        Variant::Pool | Variant::Italian => "none",
    }))
}

/// A rule set by preset name or file path.
pub fn load_named_rules(name: &str) -> Result<RuleSet> {
    if name.ends_with(".toml") {
        let text = std::fs::read_to_string(name).with_context(|| format!("cannot read rule file {name}"))?;
        return RuleSet::parse(&text).with_context(|| format!("rule file {name}"));
    }
    Ok(RuleSet::preset(name)?)
}

#[derive(Args)]
pub struct GenerateArgs {
    /// Game: russian, brazilian, pool, english, italian or cheskers.
    #[arg(long, default_value = "russian")]
    variant: Game,
    /// Largest number of pieces on the board.
    #[arg(long, default_value_t = 5)]
    pieces: u8,
    /// Directory for the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
    /// Draw rules: a preset (russian, brazilian, english, none) or a .toml
    /// file. Default: the game's own preset (none for pool and italian).
    #[arg(long)]
    rules: Option<String>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Hide the progress bars, and the lines that take their place when
    /// stderr is not a terminal (a log file, a batch job).
    #[arg(long)]
    quiet: bool,
    /// Delete the tables of another variant or rule set found in --dir
    /// (damka's table files and manifest only) and build anew; without it,
    /// such a directory is refused.
    #[arg(long, conflicts_with = "pair")]
    replace: bool,
    /// Build only this slice pair (KKMvK: the slice and its colour-swapped
    /// twin), once every pair it needs is finished in --dir; may be given
    /// more than once. Other pair jobs may build other pairs in the same
    /// directory at the same time (a cluster job: see damka plan --slurm).
    #[arg(long, value_name = "MATERIAL")]
    pair: Vec<String>,
    /// Memory budget (e.g. 12G, 512M, 1.5GiB; powers of 1024). The build
    /// keeps to it by dropping finished slices and bringing them back when
    /// needed again: from working copies it writes beside the tables
    /// (*.spill, deleted as it goes), or, in a --pair job, by reading their
    /// tables back; a pair that cannot fit is named
    /// before any work. Default: three quarters of the memory available at
    /// the start (MemAvailable in /proc/meminfo), leaving the rest to the
    /// machine's other programs and the page cache; no budget where the
    /// system does not say. In a container or a batch job with a memory
    /// limit of its own, give it: /proc/meminfo does not know that limit.
    #[arg(long, value_name = "SIZE", value_parser = memory::parse_size)]
    memory: Option<u64>,
    /// What the files leave "don't care", for a probe to resolve by a
    /// search: all it can (the smallest files), none (every result stored:
    /// a probe reads one entry, the files are larger), or auto: all, but in
    /// the slices of kings alone of 7 pieces or more, where that search
    /// reads hundreds of entries. Slices already finished are kept as they
    /// were written.
    #[arg(long, value_enum, default_value_t = DontCare::Auto)]
    dont_care: DontCare,
    /// How many entries a probe's resolution of a settled threat may read
    /// at most, as damka counts them; a threat that would read more is
    /// stored (larger files, faster probes without a cache). A multiple of
    /// 8 up to 248; 0: no bound (the smallest files); auto: no bound below
    /// 7 pieces, 32 from 7 pieces on.
    #[arg(long, value_name = "N", default_value = "auto", value_parser = parse_threat_reads)]
    threat_reads: ThreatReads,
}

/// A bound on a threat's reads as a header can record it, or auto.
fn parse_threat_reads(s: &str) -> Result<ThreatReads, String> {
    let (step, most) = (damka::resolve::READS_STEP, damka::resolve::MOST_THREAT_READS);
    if s == "auto" {
        return Ok(ThreatReads::Auto);
    }
    let n: u32 = s.parse().map_err(|e| format!("{s:?}: {e} (a number, or auto)"))?;
    if !n.is_multiple_of(step) || n > most {
        return Err(format!("{n}: a multiple of {step} up to {most}, 0 for no bound, or auto"));
    }
    Ok(ThreatReads::Every((n > 0).then_some(n)))
}

/// The pairs `--pair` names, each checked against `--pieces`.
fn pairs(names: &[String], pieces: u8) -> Result<Vec<Material>> {
    names
        .iter()
        .map(|name| {
            let m: Material = name.parse()?;
            if !m.is_contested() {
                bail!("--pair {name}: a side without pieces has lost; there is no such slice");
            }
            if m.pieces() > pieces {
                bail!("--pair {name}: {} pieces, more than --pieces {pieces}", m.pieces());
            }
            Ok(m)
        })
        .collect()
}


pub fn run(args: GenerateArgs) -> Result<()> {
    if !(2..=MAX_PIECES).contains(&args.pieces) {
        bail!("--pieces {}: damka builds slices of 2 to {MAX_PIECES} pieces", args.pieces);
    }
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("cannot start worker threads")?;
    }
    let variant = match args.variant {
        Game::Draughts(v) => v,
        Game::Cheskers => return generate_cheskers(&args),
    };
    let pairs = pairs(&args.pair, args.pieces)?;
    memory::return_freed_arrays();
    let rules = Arc::new(load_rules(args.rules.as_deref(), variant)?);
    let job = Job {
        variant,
        max_pieces: args.pieces,
        dir: args.dir,
        rules,
        progress: !args.quiet,
        replace: args.replace,
        memory: args.memory.or_else(memory::default_budget),
        dont_care: Leaving { policy: args.dont_care, threat_reads: args.threat_reads },
    };
    let s = if pairs.is_empty() { driver::run(&job)? } else { driver::run_pairs(&job, &pairs)? };
    let total = s.total();
    if total.slices == 0 && !pairs.is_empty() {
        let names: Vec<String> = pairs.iter().map(|p| format!("{}-{p}", args.variant)).collect();
        println!("{} already finished in {}: nothing to do", names.join(", "), job.dir.display());
        return Ok(());
    }
    print_summary(&s, job.memory);
    Ok(())
}

/// `--variant cheskers`: pure values (no move limits), the whole build
/// held in memory as it goes (no budget, no pair jobs).
fn generate_cheskers(args: &GenerateArgs) -> Result<()> {
    if args.pieces > 5 {
        bail!("--pieces {}: Cheskers tables are built up to 5 pieces", args.pieces);
    }
    if args.rules.as_deref().is_some_and(|r| r != damka::cheskers::RULES) {
        bail!("--rules: Cheskers has no move-limit rules; its tables hold pure values (rule set none)");
    }
    if !args.pair.is_empty() || args.memory.is_some() {
        bail!("--pair and --memory are for draughts builds; a Cheskers build runs whole, up to 5 pieces");
    }
    let s = super::cheskers::generate(args.pieces, &args.dir, !args.quiet, args.replace)?;
    print_summary(&s, None);
    Ok(())
}

/// What a build did: in all, per piece count, and its peak memory.
fn print_summary(s: &driver::Summary, memory_budget: Option<u64>) {
    let total = s.total();
    let mut done = format!("{} slices solved, {} slices already done", total.slices, s.skipped);
    if s.resumed_levels > 0 {
        done += &format!(" ({} levels of men configurations taken from an interrupted run)", s.resumed_levels);
    }
    if total.slices == 0 {
        println!("{done}");
        return;
    }
    println!(
        "{done}; {} positions in {:.1} s ({:.2} M positions/s); {} bytes ({:.1} positions/byte)",
        total.positions,
        s.seconds,
        total.positions as f64 / s.seconds.max(1e-9) / 1e6,
        total.bytes,
        total.positions as f64 / (total.bytes.max(1)) as f64,
    );
    // The cost of the rules, piece count by piece count.
    for (pieces, p) in s.by_pieces.iter().enumerate().filter(|(_, p)| p.slices > 0) {
        let seconds = p.seconds.iter().sum::<f64>();
        // Pure values alone (no rules, or Cheskers) have one pass.
        let passes = match p.seconds {
            [pure, rules, writing] if rules > 0.0 => format!("; pure pass {pure:.1} s, rule pass {rules:.1} s, writing {writing:.1} s"),
            [_, _, writing] if writing > 0.0 => format!("; writing {writing:.1} s"),
            _ => String::new(),
        };
        println!(
            "  {pieces} pieces: {} slices, {} positions in {seconds:.1} s ({:.2} M positions/s{passes}), {} bytes ({:.1} positions/byte; .wdl {:.1}, .dtc {:.1})",
            p.slices,
            p.positions,
            p.positions as f64 / seconds.max(1e-9) / 1e6,
            p.bytes,
            p.positions as f64 / p.bytes.max(1) as f64,
            p.positions as f64 / p.wdl_bytes.max(1) as f64,
            p.positions as f64 / (p.bytes - p.wdl_bytes).max(1) as f64,
        );
    }
    let budget = memory_budget.map_or("no budget".to_string(), |b| format!("budget {}", human_bytes(b)));
    let peak = memory::peak_resident().map_or("unknown".to_string(), human_bytes);
    let spilled = if s.restored > 0 {
        format!(
            ", {} restored from working copies ({} written; {:.1} s writing and restoring)",
            s.restored,
            human_bytes(s.spilled_bytes),
            s.spill_seconds
        )
    } else {
        String::new()
    };
    println!("  memory: peak {peak} resident ({budget}); {} slices read back from their tables{spilled}", s.read_back);
}
