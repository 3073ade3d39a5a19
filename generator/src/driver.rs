//! The generation pipeline: choose the slices, solve them in dependency
//! order, write and check each table, skip what an earlier run finished.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use damka::{Material, RuleSet, Variant};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::claim;
use crate::graph::{self, Action};
use crate::memory::{self, Dropped};
use crate::plan::{human_bytes, human_seconds};
use crate::journal::{journal_path, Journal};
use crate::kept::{Finished, Kept, KeptSlices};
use crate::solver::{solve_pair, solve_pair_resumable, Keep, Known, Metric, Options, Solved};
use crate::spill;
use crate::writer::{self, RulesId};


/// What to generate.
pub struct Job {
    pub variant: Variant,
    pub max_pieces: u8,
    pub dir: PathBuf,
    /// The draw rules (an empty set for pure values).
    pub rules: Arc<RuleSet>,
    pub progress: bool,
    /// Delete the tables of another variant or rule set found in `dir`
    /// rather than refuse to build there.
    pub replace: bool,
    /// The memory budget, bytes: what the build keeps loaded is chosen to
    /// stay within it ([`memory::schedule`]); `None`: keep every slice
    /// until no later pair reads it.
    pub memory: Option<u64>,
    /// What the files leave "don't care" ([`graph::resolution_of`]).
    pub dont_care: graph::Leaving,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Slices an earlier run finished.
    pub skipped: usize,
    /// Levels of men configurations a pair interrupted earlier kept in its
    /// journal and this run did not solve again.
    pub resumed_levels: usize,
    /// Slices read back from their tables: those an earlier run finished,
    /// and, in a pair job, those dropped to keep the memory budget and
    /// needed again.
    pub read_back: usize,
    /// Slices a whole build dropped to keep the memory budget and restored
    /// from their working copies when needed again, and the bytes of the
    /// working copies it wrote.
    pub restored: usize,
    pub spilled_bytes: u64,
    /// Wall seconds spent writing and restoring working copies.
    pub spill_seconds: f64,
    pub seconds: f64,
    /// The slices solved in this run, by number of pieces.
    pub by_pieces: [PieceSummary; 8],
}

impl Summary {
    /// The slices solved in this run, all piece counts together.
    pub fn total(&self) -> PieceSummary {
        self.by_pieces.iter().fold(PieceSummary::default(), |a, p| PieceSummary {
            slices: a.slices + p.slices,
            positions: a.positions + p.positions,
            bytes: a.bytes + p.bytes,
            wdl_bytes: a.wdl_bytes + p.wdl_bytes,
            seconds: [0, 1, 2].map(|i| a.seconds[i] + p.seconds[i]),
        })
    }
}

/// The slices of one piece count solved in a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct PieceSummary {
    pub slices: usize,
    pub positions: u64,
    /// Bytes written, both files and `.wdl` alone.
    pub bytes: u64,
    pub wdl_bytes: u64,
    /// Wall seconds of the pure pass, of the rule pass, and of writing the
    /// files (finding what is "don't care", compressing).
    pub seconds: [f64; 3],
}

/// Builds every pair up to `job.max_pieces`, leaving the finished ones.
pub fn run(job: &Job) -> Result<Summary> {
    // A rule set built in code never met the reader's check of its name:
    // refuse it before touching the directory rather than when writing.
    check_rules_name(&job.rules)?;
    // Held until the run ends: no other run writes into the directory.
    let _claim = claim::claim(&job.dir, job.variant.into(), &job.rules, job.replace)?;
    // The directory is this run's alone: working copies left by a killed
    // run are nobody's.
    spill::remove_all(&job.dir)?;
    let summary = build(job, &graph::pairs_in_order(job.max_pieces), Dropped::Spilled);
    // Cleared whether the build ended well or not; its own error comes first.
    let cleared = spill::remove_all(&job.dir);
    let summary = summary?;
    cleared?;
    Ok(summary)
}

/// Builds only the pairs `pairs` (a cluster job: `damka generate --pair`),
/// beside other such jobs in the same directory. Every pair they need must
/// be finished; pairs already finished are left as they are. Solving goes
/// through the very steps of [`run`], so the files are the same bytes.
pub fn run_pairs(job: &Job, pairs: &[Material]) -> Result<Summary> {
    check_rules_name(&job.rules)?;
    let mut pairs: Vec<Material> = pairs.iter().map(|&p| graph::pair_of(p)).collect();
    pairs.sort();
    pairs.dedup();
    let _claim = claim::claim_pairs(&job.dir, job.variant, &job.rules, &pairs)?;
    build(job, &pairs, Dropped::ReadBack)
}

fn check_rules_name(rules: &RuleSet) -> Result<()> {
    RuleSet::check_name(&rules.name, rules.is_empty()).map_err(|why| anyhow!("rule set name '{}': {why}", rules.name))
}

/// Solves what of `targets` is not finished in the claimed directory,
/// reading back the finished slices it needs.
fn build(job: &Job, targets: &[Material], dropped: Dropped) -> Result<Summary> {
    let started = Instant::now();
    let rules_id = RulesId { name: job.rules.name.clone(), hash: job.rules.hash };
    let opts = Options { variant: job.variant, metric: Metric::Conversion, rules: Some(job.rules.clone()) };
    // Each pair's files are read whole to be judged: once.
    let judged: RefCell<HashMap<Material, bool>> = RefCell::new(HashMap::new());
    let finished = |pair: Material| {
        *judged.borrow_mut().entry(pair).or_insert_with(|| {
            graph::slices_of(pair).iter().all(|m| writer::is_finished(&job.dir, job.variant, &rules_id, *m))
        })
    };
    let mut summary = Summary::default();
    let mut to_solve = Vec::new();
    for &pair in targets {
        if finished(pair) {
            summary.skipped += graph::slices_of(pair).len();
            // Killed after writing the tables, before deleting the journal.
            let journal = journal_path(&job.dir, job.variant, pair);
            if journal.exists() {
                std::fs::remove_file(&journal).with_context(|| format!("cannot delete {}", journal.display()))?;
            }
        } else {
            to_solve.push(pair);
        }
    }
    let schedule = memory::schedule(&to_solve, finished, job.memory, dropped).map_err(|missing| {
        let names: Vec<String> = to_solve.iter().map(|p| format!("{}-{p}", job.variant)).collect();
        anyhow!(
            "cannot build {}: the pair {}-{} is not finished in {} (the pair {} reads it); build it first \
             (damka generate --pair {} --dir {})",
            names.join(", "),
            job.variant,
            missing.pair,
            job.dir.display(),
            missing.needed_by,
            missing.pair,
            job.dir.display()
        )
    })?;
    if let Some(budget) = job.memory {
        if let Some((pair, need)) = memory::largest_over(&to_solve, budget) {
            bail!(
                "--memory {}: the pair {}-{pair} ({} positions) needs an estimated {} (its inputs read back and kept \
                 while it is solved); give --memory {}M or more, or build it on a machine with more memory \
                 (damka plan --memory shows which pairs fit)",
                human_bytes(budget),
                job.variant,
                graph::pair_size(pair),
                human_bytes(need),
                need.div_ceil(1 << 20) + 1,
            );
        }
    }
    let bars = MultiProgress::new();
    if !job.progress {
        bars.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let overall = bars.add(ProgressBar::new(work(&to_solve, &opts)));
    overall.set_style(style("all slices"));
    let lines = LogLines {
        on: job.progress && !std::io::stderr().is_terminal(),
        variant: job.variant,
        passes: opts.passes(),
        pairs: to_solve.len(),
    };

    let mut known = KeptSlices::new();
    let mut solved_pairs = 0;
    for (at, step) in schedule.steps.iter().enumerate() {
        let material = step.pair;
        match &step.action {
            Action::Restore(slices) => {
                for &m in slices {
                    let started = Instant::now();
                    let path = spill::spill_path(&job.dir, job.variant, m);
                    known.insert(m, Arc::new(spill::read(&path, m)?));
                    summary.restored += 1;
                    let restored_later = schedule.steps[at + 1..]
                        .iter()
                        .any(|s| matches!(&s.action, Action::Restore(later) if later.contains(&m)));
                    if !restored_later {
                        std::fs::remove_file(&path).with_context(|| format!("cannot delete {}", path.display()))?;
                    }
                    summary.spill_seconds += started.elapsed().as_secs_f64();
                }
            }
            Action::Load(slices) => {
                for &m in slices {
                    // Minutes for a large slice: say what is going on.
                    let bar = bars.add(ProgressBar::new_spinner());
                    bar.set_message(format!("reading back {}-{m}", job.variant));
                    bar.enable_steady_tick(std::time::Duration::from_millis(200));
                    lines.say(format_args!("reading back {}-{m}", job.variant));
                    let solved = writer::load(&job.dir, job.variant, m, &known)?;
                    bar.finish_and_clear();
                    summary.read_back += 1;
                    known.insert(m, Arc::new(Kept::of(&solved)));
                }
            }
            Action::Solve => {
                solved_pairs += 1;
                let bar = bars.add(ProgressBar::new(work(&[material], &opts)));
                bar.set_style(style(&format!("{material} ({solved_pairs}/{})", to_solve.len())));
                bar.enable_steady_tick(std::time::Duration::from_millis(500));
                let mut journal = Journal::open(&job.dir, job.variant, material, &rules_id)?;
                let pair_started = Instant::now();
                lines.say(format_args!(
                    "[{solved_pairs}/{}] {}-{material}: solving {} positions",
                    to_solve.len(),
                    job.variant,
                    graph::pair_size(material)
                ));
                let solved = solve_pair_resumable(
                    material,
                    &opts,
                    &known,
                    &|n| {
                        bar.inc(n);
                        overall.inc(n);
                    },
                    &mut journal,
                    Keep::Finals,
                )?;
                bar.finish_and_clear();
                summary.resumed_levels += journal.restored();
                let by_pieces = &mut summary.by_pieces[material.pieces() as usize];
                by_pieces.seconds[0] += solved.seconds[0];
                by_pieces.seconds[1] += solved.seconds[1];
                let finals = solved.finals;
                let writing = Instant::now();
                let limits = |m| (!job.rules.is_empty()).then(|| writer::Limits::of(&job.rules, m));
                for s in &finals {
                    // A settled threat's moves lead into the pair's other
                    // slice and to slices solved before.
                    let lookup =
                        |m: Material| finals.iter().find(|f| f.index.material() == m).map(Solved::view).or_else(|| known.slice(m));
                    let [wdl, dtc] = writer::write(&job.dir, job.variant, &rules_id, limits(s.index.material()), s, graph::resolution_of(s.index.material(), job.dont_care), &lookup)?;
                    by_pieces.bytes += wdl + dtc;
                    by_pieces.wdl_bytes += wdl;
                    by_pieces.positions += s.index.size();
                    by_pieces.slices += 1;
                }
                by_pieces.seconds[2] += writing.elapsed().as_secs_f64();
                for s in finals {
                    known.insert(s.index.material(), Arc::new(Kept::of(&s)));
                }
                journal.finish()?;
                lines.pair_done(material, solved_pairs, pair_started.elapsed().as_secs_f64(), &overall);
            }
        }
        for m in &step.spill {
            let started = Instant::now();
            let slice = known.get(m).expect("a slice is spilled while loaded");
            summary.spilled_bytes += spill::write(&spill::spill_path(&job.dir, job.variant, *m), slice)?;
            summary.spill_seconds += started.elapsed().as_secs_f64();
        }
        for m in &step.release {
            known.remove(m);
        }
    }
    overall.finish_and_clear();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Progress as lines, where bars are not drawn (a log file, a batch
/// job's output): a line as each pair starts and ends, with the whole
/// run's rate and what remains.
struct LogLines {
    on: bool,
    variant: Variant,
    /// Passes over each position (the bars count each pass).
    passes: u64,
    pairs: usize,
}

impl LogLines {
    fn say(&self, what: std::fmt::Arguments) {
        if self.on {
            eprintln!("{what}");
        }
    }

    fn pair_done(&self, pair: Material, number: usize, seconds: f64, overall: &ProgressBar) {
        let positions = graph::pair_size(pair);
        let (done, all) = (overall.position() / self.passes, overall.length().unwrap_or(0) / self.passes);
        let rate = done as f64 / overall.elapsed().as_secs_f64().max(1e-9);
        let eta = if done == 0 { 0.0 } else { all.saturating_sub(done) as f64 / rate };
        self.say(format_args!(
            "[{number}/{}] {}-{pair}: {positions} positions in {seconds:.1} s ({:.2} M/s); this run: {done} of {all} positions \
             ({:.1}%), {:.2} M/s, {} to go",
            self.pairs,
            self.variant,
            positions as f64 / seconds.max(1e-9) / 1e6,
            100.0 * done as f64 / all.max(1) as f64,
            rate / 1e6,
            human_seconds(eta),
        ));
    }
}

/// Solves every slice up to `max_pieces` in memory (for tests and checks).
pub fn solve_in_memory(opts: &Options, max_pieces: u8) -> Known {
    let mut known = Known::new();
    for material in graph::pairs_in_order(max_pieces) {
        for s in solve_pair(material, opts, &known, &|_| {}) {
            known.insert(s.index.material(), Arc::new(s));
        }
    }
    known
}

/// The positions solving `pairs` reports through its progress callback:
/// each pair's once per pass. Progress bars count up to this.
pub fn work(pairs: &[Material], opts: &Options) -> u64 {
    pairs.iter().map(|&m| graph::pair_size(m) * opts.passes()).sum()
}

pub(crate) fn style(prefix: &str) -> ProgressStyle {
    ProgressStyle::with_template(&format!(
        "{prefix:>18} [{{bar:32}}] {{percent:>3}}% {{human_pos}}/{{human_len}} positions, {{per_sec}}, eta {{eta}}"
    ))
    .expect("valid template")
    .progress_chars("=> ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Progress bars end exactly full: solving a pair reports each of its
    /// positions once per pass, in symmetric slices (KvK, KKvKK) too.
    #[test]
    fn solving_reports_each_position_once_per_pass() {
        for (rules, passes) in [("none", 1), ("russian", 2)] {
            let rules = Arc::new(RuleSet::preset(rules).expect("a preset"));
            let opts = Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules) };
            assert_eq!(opts.passes(), passes);
            let mut known = Known::new();
            for material in graph::pairs_in_order(4) {
                let reported = AtomicU64::new(0);
                let solved = solve_pair(material, &opts, &known, &|n| {
                    reported.fetch_add(n, Ordering::Relaxed);
                });
                assert_eq!(reported.into_inner(), work(&[material], &opts), "{material}, {passes} passes");
                for s in solved {
                    known.insert(s.index.material(), Arc::new(s));
                }
            }
        }
    }
}
