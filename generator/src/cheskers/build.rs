//! `damka generate --variant cheskers`: every Cheskers slice pair up to N
//! pieces, in order, each solved, written and checked; slices an earlier
//! run finished are left as they are.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use damka::cheskers::{self, Material, SliceIndex, Tables};
use damka::format::{Distances, TableSlice};
use damka::game::Game;
use damka::layout::EntryOrder;
use damka::resolve::Resolution;
use damka::RuleSet;
use indicatif::{MultiProgress, ProgressBar};

use super::solver::{pair_of, pairs_in_order, solve_pair, Known, Solved};
use crate::claim;
use crate::driver::{style, Summary};
use crate::writer::{self, RulesId};

/// What to generate.
pub struct Job {
    pub max_pieces: u8,
    pub dir: PathBuf,
    pub progress: bool,
    /// Delete the tables of another game or rule set found in `dir`.
    pub replace: bool,
}

/// Whether a pair's captures and promotions may reach `slice`: a capture
/// takes pieces away, a promotion turns one man into another piece.
fn may_reach(pair: Material, slice: Material) -> bool {
    let men = |m: Material| m.own[0] + m.opp[0];
    slice.pieces() < pair.pieces() || (slice.pieces() == pair.pieces() && men(slice) + 1 == men(pair))
}

pub fn run(job: &Job) -> Result<Summary> {
    let started = Instant::now();
    let rules = RuleSet::preset(cheskers::RULES)?;
    let rules_id = RulesId { name: rules.name.clone(), hash: rules.hash };
    // Held until the run ends: no other run writes into the directory.
    let _claim = claim::claim(&job.dir, Game::Cheskers, &rules, job.replace)?;
    let pairs = pairs_in_order(job.max_pieces);
    let written = |m: Material| {
        let path = |kind| cheskers::table_path(&job.dir, m, kind);
        writer::is_written(path, TableSlice::Cheskers(m), SliceIndex::new(m).size(), &rules_id)
    };
    let (done, to_solve): (Vec<Material>, Vec<Material>) =
        pairs.iter().partition(|&&p| pair_of(p).into_iter().all(written));
    let mut summary = Summary { skipped: done.iter().map(|&p| pair_of(p).len()).sum(), ..Summary::default() };

    let bars = MultiProgress::new();
    if !job.progress {
        bars.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let size = |p: &Material| pair_of(*p).into_iter().map(|m| SliceIndex::new(m).size()).sum::<u64>();
    let overall = bars.add(ProgressBar::new(to_solve.iter().map(size).sum()));
    overall.set_style(style("all slices"));
    let mut known = Known::new();
    let mut finished: Option<Tables> = None;
    for (n, &pair) in to_solve.iter().enumerate() {
        // Keep only what this pair and those after it may read.
        known.retain(|&m, _| to_solve[n..].iter().any(|&p| may_reach(p, m)));
        let wanted: Vec<Material> = done.iter().flat_map(|&p| pair_of(p)).filter(|&m| may_reach(pair, m)).collect();
        for m in wanted {
            if let std::collections::hash_map::Entry::Vacant(e) = known.entry(m) {
                let tables = match &mut finished {
                    Some(t) => t,
                    None => finished.insert(Tables::open(&job.dir)?),
                };
                let values = tables.slice_values(m).with_context(|| format!("reading back cheskers-{m}"))?;
                e.insert(Arc::new(Solved { index: SliceIndex::new(m), values }));
                summary.read_back += 1;
            }
        }
        let bar = bars.add(ProgressBar::new(size(&pair)));
        bar.set_style(style(&format!("{pair} ({}/{})", n + 1, to_solve.len())));
        bar.enable_steady_tick(std::time::Duration::from_millis(500));
        let pair_started = Instant::now();
        let solved = solve_pair(pair, &known, &|k| {
            bar.inc(k);
            overall.inc(k);
        })?;
        bar.finish_and_clear();
        let by_pieces = &mut summary.by_pieces[pair.pieces() as usize];
        by_pieces.seconds[0] += pair_started.elapsed().as_secs_f64();
        for s in solved {
            let m = s.index.material();
            let path = |kind| cheskers::table_path(&job.dir, m, kind);
            let [wdl, dtc] = writer::write_slice(path, TableSlice::Cheskers(m), &rules_id, Distances::Own, Resolution::NONE, &s.values, &|_| writer::Stored::Plain, &[EntryOrder::INDEX])?;
            by_pieces.bytes += wdl + dtc;
            by_pieces.wdl_bytes += wdl;
            by_pieces.positions += s.index.size();
            by_pieces.slices += 1;
            known.insert(m, Arc::new(s));
        }
    }
    overall.finish_and_clear();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}
