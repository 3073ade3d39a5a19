//! The generation pipeline: choose the slices, solve them in dependency
//! order, write and check each table, skip what an earlier run finished.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use damka::{Material, RuleSet, Variant};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::claim;
use crate::journal::{journal_path, Journal};
use crate::solver::{solve_pair, solve_pair_resumable, Known, Metric, Options};
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
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Slices an earlier run finished.
    pub skipped: usize,
    /// Levels of men configurations a pair interrupted earlier kept in its
    /// journal and this run did not solve again.
    pub resumed_levels: usize,
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
            seconds: [a.seconds[0] + p.seconds[0], a.seconds[1] + p.seconds[1]],
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
    /// Wall seconds of the pure pass and of the rule pass.
    pub seconds: [f64; 2],
}

/// Slice pairs (a slice and its colour-swapped twin) in an order where
/// every pair comes after those it depends on: fewer pieces first (captures),
/// then fewer men (promotions turn a man into a king).
pub fn pairs_in_order(max_pieces: u8) -> Vec<Material> {
    let mut pairs: Vec<Material> =
        Material::all_up_to(max_pieces).into_iter().filter(|m| *m <= m.swap()).collect();
    pairs.sort_by_key(|m| (m.pieces(), m.men(), *m));
    pairs
}

pub fn run(job: &Job) -> Result<Summary> {
    // A rule set built in code never met the reader's check of its name:
    // refuse it before touching the directory rather than when writing.
    RuleSet::check_name(&job.rules.name, job.rules.is_empty())
        .map_err(|why| anyhow!("rule set name '{}': {why}", job.rules.name))?;
    // Held until the run ends: no other run writes into the directory.
    let _claim = claim::claim(&job.dir, job.variant, &job.rules, job.replace)?;
    let started = Instant::now();
    let pairs = pairs_in_order(job.max_pieces);
    let rules_id = RulesId { name: job.rules.name.clone(), hash: job.rules.hash };
    let opts = Options { variant: job.variant, metric: Metric::Conversion, rules: Some(job.rules.clone()) };
    let bars = MultiProgress::new();
    if !job.progress {
        bars.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let finished: Vec<bool> = pairs
        .iter()
        .map(|&m| distinct(m).iter().all(|m| writer::is_finished(&job.dir, job.variant, &rules_id, *m)))
        .collect();
    // The overall bar counts the work of this run only, so that its rate
    // and ETA are those of solving.
    let to_do: Vec<Material> = pairs.iter().zip(&finished).filter(|(_, done)| !**done).map(|(m, _)| *m).collect();
    let overall = bars.add(ProgressBar::new(work(&to_do, &opts)));
    overall.set_style(style("all slices"));

    let mut known = Known::new();
    let mut summary = Summary::default();
    for (i, &material) in pairs.iter().enumerate() {
        if finished[i] {
            // Read back only what a pair still to solve reaches: reading
            // resolves every capture position, which costs minutes at six
            // pieces. (What a needed slice's captures reach is needed too.)
            for m in distinct(material).into_iter().filter(|m| needed(*m, &pairs[i + 1..])) {
                let solved = writer::load(&job.dir, job.variant, m, &known)?;
                known.insert(m, Arc::new(solved));
            }
            summary.skipped += distinct(material).len();
            // Killed after writing the tables, before deleting the journal.
            let journal = journal_path(&job.dir, job.variant, material);
            if journal.exists() {
                std::fs::remove_file(&journal).with_context(|| format!("cannot delete {}", journal.display()))?;
            }
            continue;
        }
        let bar = bars.add(ProgressBar::new(work(&[material], &opts)));
        bar.set_style(style(&format!("{material} ({}/{})", i + 1, pairs.len())));
        bar.enable_steady_tick(std::time::Duration::from_millis(500));
        let mut journal = Journal::open(&job.dir, job.variant, material, &rules_id)?;
        let solved = solve_pair_resumable(
            material,
            &opts,
            &known,
            &|n| {
                bar.inc(n);
                overall.inc(n);
            },
            &mut journal,
        )?;
        bar.finish_and_clear();
        summary.resumed_levels += journal.restored();
        let by_pieces = &mut summary.by_pieces[material.pieces() as usize];
        by_pieces.seconds[0] += solved.seconds[0];
        by_pieces.seconds[1] += solved.seconds[1];
        for s in solved.finals() {
            let m = s.index.material();
            let [wdl, dtc] = writer::write(&job.dir, job.variant, &rules_id, &s)?;
            by_pieces.bytes += wdl + dtc;
            by_pieces.wdl_bytes += wdl;
            by_pieces.positions += s.index.size();
            by_pieces.slices += 1;
            known.insert(m, Arc::new(s));
        }
        journal.finish()?;
        release_unneeded(&mut known, &pairs[i + 1..]);
    }
    overall.finish_and_clear();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Solves every slice up to `max_pieces` in memory (for tests and checks).
pub fn solve_in_memory(opts: &Options, max_pieces: u8) -> Known {
    let mut known = Known::new();
    for material in pairs_in_order(max_pieces) {
        for s in solve_pair(material, opts, &known, &|_| {}) {
            known.insert(s.index.material(), Arc::new(s));
        }
    }
    known
}

fn distinct(material: Material) -> Vec<Material> {
    if material == material.swap() {
        vec![material]
    } else {
        vec![material, material.swap()]
    }
}

fn pair_size(material: Material) -> u64 {
    distinct(material).iter().map(|m| damka::SliceIndex::new(*m).size()).sum()
}

/// The positions solving `pairs` reports through its progress callback:
/// each pair's once per pass. Progress bars count up to this.
pub fn work(pairs: &[Material], opts: &Options) -> u64 {
    pairs.iter().map(|&m| pair_size(m) * opts.passes()).sum()
}

/// Drops solved slices that no remaining pair can reach: a pair only
/// reaches slices with fewer pieces (captures) or with one man fewer
/// (promotions); the swapped twin of each remaining pair counts too.
pub(crate) fn release_unneeded(known: &mut Known, remaining: &[Material]) {
    known.retain(|m, _| needed(*m, remaining));
}

/// Whether a pair of `remaining` can reach slice `m`.
fn needed(m: Material, remaining: &[Material]) -> bool {
    remaining.iter().any(|r| m.pieces() < r.pieces() || (m.pieces() == r.pieces() && m.men() + 1 == r.men()))
}

fn style(prefix: &str) -> ProgressStyle {
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
            for material in pairs_in_order(4) {
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
