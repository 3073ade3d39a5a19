//! `damka verify` for Cheskers tables: every block's checksum, then every
//! stored value re-derived from its successors' values as the table files
//! give them (through the probe library's reader), without the solver.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use anyhow::Result;
use damka::cheskers::{legal_moves, table_path, Material, Rules, SliceIndex, Tables};
use damka::format::{Kind as TableKind, TableFile};
use damka::{Value, Wdl};
use indicatif::ProgressBar;
use rayon::prelude::*;

use super::solver::{pair_of, pairs_in_order};
use crate::driver::style;

/// What is wrong with one slice.
#[derive(Debug)]
pub struct Problem {
    pub material: Material,
    pub what: String,
}

/// What verifying a directory found.
#[derive(Debug, Default)]
pub struct Report {
    pub slices: usize,
    pub positions: u64,
    pub problems: Vec<Problem>,
}

/// The value a position has by its moves: the best over them of the
/// value after the move, a ply further (back to one ply after a capture or
/// a promotion); lost at once without a move.
fn by_moves(tables: &Tables, pos: &damka::cheskers::Position) -> Result<Value, damka::cheskers::TablesError> {
    let mut best: Option<Value> = None;
    for m in legal_moves(pos, Rules::default()) {
        let after = tables.probe_value(&pos.play(&m))?;
        let plies = if m.is_capture() || m.promotion().is_some() { 1 } else { after.plies.0 + 1 };
        let mine = match after.wdl {
            Wdl::Draw => Value::DRAW,
            wdl => Value::new(wdl.negate(), plies),
        };
        // Wins: the shortest; losses: the longest; a draw between.
        let key = |v: Value| match v.wdl {
            Wdl::Win => 1_000_000 - v.plies.0 as i64,
            Wdl::Loss => -1_000_000 + v.plies.0 as i64,
            _ => 0,
        };
        if best.is_none_or(|b| key(mine) > key(b)) {
            best = Some(mine);
        }
    }
    Ok(best.unwrap_or(Value::new(Wdl::Loss, 0)))
}

/// Checks every slice (or only `only`) up to the most pieces in `dir`.
pub fn verify(dir: &Path, only: Option<Material>, progress: bool) -> Result<Report> {
    let tables = Tables::open(dir)?;
    let mut report = Report::default();
    let all = tables.materials();
    let wanted: Vec<Material> = match only {
        Some(m) => vec![m],
        None => pairs_in_order(tables.max_pieces()).into_iter().flat_map(pair_of).collect(),
    };
    let total: u64 = wanted.iter().map(|&m| SliceIndex::new(m).size()).sum();
    let bar = if progress { ProgressBar::new(total) } else { ProgressBar::hidden() };
    bar.set_style(style("verifying"));
    drop(tables);
    for material in wanted {
        let mut problem = |what: String| report.problems.push(Problem { material, what });
        if !all.contains(&material) {
            problem(format!("missing: expected {}", table_path(dir, material, TableKind::Wdl).display()));
            continue;
        }
        if let Some(e) = check_blocks(dir, material) {
            problem(e);
            continue;
        }
        // A reader of its own per slice: the blocks it decodes go with it.
        let tables = Tables::open(dir)?;
        let index = SliceIndex::new(material);
        let wrong = AtomicU64::new(0);
        let first: Mutex<Option<String>> = Mutex::new(None);
        (0..index.size()).into_par_iter().for_each(|i| {
            let pos = index.position(i);
            let found = match (tables.probe_value(&pos), by_moves(&tables, &pos)) {
                (Ok(stored), Ok(derived)) if stored == derived => None,
                (Ok(stored), Ok(derived)) => Some(format!("{}: stored {stored}, its moves give {derived}", damka::cheskers::write_fen(&pos))),
                (Err(e), _) | (_, Err(e)) => Some(format!("{}: {e}", damka::cheskers::write_fen(&pos))),
            };
            if let Some(what) = found {
                wrong.fetch_add(1, Ordering::Relaxed);
                first.lock().expect("no panics while held").get_or_insert(what);
            }
            if i % 4096 == 0 {
                bar.inc(4096.min(index.size() - i));
            }
        });
        let wrong = wrong.into_inner();
        if wrong > 0 {
            let example = first.into_inner().expect("no panics while held").unwrap_or_default();
            problem(format!("{wrong} positions whose value their moves do not give, e.g. {example}"));
        }
        report.slices += 1;
        report.positions += index.size();
    }
    bar.finish_and_clear();
    Ok(report)
}

/// Every block of both files decompresses and matches its checksum.
fn check_blocks(dir: &Path, material: Material) -> Option<String> {
    for kind in [TableKind::Wdl, TableKind::Distance] {
        let path: PathBuf = table_path(dir, material, kind);
        let result = std::fs::read(&path).map_err(|e| e.to_string()).and_then(|bytes| {
            TableFile::new(bytes).and_then(|f| f.check_all()).map_err(|e| e.to_string())
        });
        if let Err(e) = result {
            return Some(format!("{}: {e}", path.display()));
        }
    }
    None
}
