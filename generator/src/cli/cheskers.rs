//! The table commands for Cheskers (`--variant cheskers`): generate,
//! verify, stats, probe and audit, with the draughts commands' output.

use std::path::Path;

use anyhow::{bail, Context, Result};
use damka::cheskers::{self, Material, Position, SliceIndex, Tables};
use damka::{Value, Wdl};
use serde_json::json;

use super::probe::{describe, value_json};
use crate::audit::{Audit, SliceAudit};
use crate::cheskers::{build, solver, verify};
use crate::stats::{Example, SliceStats, Tally};

/// The slice of `--slice` or `--pair`, read as Cheskers material.
fn material(text: &str) -> Result<Material> {
    let m: Material = text.parse()?;
    if !m.is_stored() {
        bail!("{text}: a side without a king has lost; there is no such slice");
    }
    Ok(m)
}

pub fn generate(pieces: u8, dir: &Path, progress: bool, replace: bool) -> Result<crate::driver::Summary> {
    build::run(&build::Job { max_pieces: pieces, dir: dir.to_path_buf(), progress, replace })
}

pub fn verify(dir: &Path, slice: Option<&str>, progress: bool) -> Result<()> {
    let started = std::time::Instant::now();
    let only = slice.map(material).transpose()?;
    let report = verify::verify(dir, only, progress)?;
    for p in &report.problems {
        println!("FAILED cheskers-{}: {}", p.material, p.what);
    }
    println!(
        "{} slices, {} positions re-derived in {:.1} s",
        report.slices,
        report.positions,
        started.elapsed().as_secs_f64()
    );
    match report.problems.first() {
        None => {
            println!("all tables verified");
            Ok(())
        }
        Some(p) => bail!(
            "verify found {} problem(s) in {}; the first: cheskers-{}: {}",
            report.problems.len(),
            dir.display(),
            p.material,
            p.what
        ),
    }
}

/// Every slice with tables in `dir`, fewest pieces first, and its values.
fn each_slice(dir: &Path, mut f: impl FnMut(Material, &SliceIndex, &[u16]) -> Result<()>) -> Result<()> {
    let tables = Tables::open(dir)?;
    if tables.materials().is_empty() {
        bail!("no cheskers tables in {}", dir.display());
    }
    for m in solver::pairs_in_order(tables.max_pieces()).into_iter().flat_map(solver::pair_of) {
        if !tables.materials().contains(&m) {
            continue;
        }
        let values = tables.slice_values(m).with_context(|| format!("cheskers-{m}"))?;
        f(m, &SliceIndex::new(m), &values)?;
    }
    Ok(())
}

pub fn stats(dir: &Path, json: bool) -> Result<()> {
    let mut all = Vec::new();
    each_slice(dir, |m, index, values| {
        let tally = Tally::of(values);
        if let Some((i, bits)) = tally.first_invalid {
            bail!("cheskers-{m}: entry {i} is not a value ({bits:#06x})");
        }
        let example =
            |found: Option<(u16, u64)>| found.map(|(plies, i)| Example { plies, fen: cheskers::write_fen(&index.position(i)) });
        let slice = ("cheskers".to_string(), m.to_string(), m.pieces());
        all.push(SliceStats::of(slice, cheskers::RULES, index.size(), &tally, example));
        Ok(())
    })?;
    if json {
        println!("{}", crate::stats::to_json(&all));
    } else {
        print!("{}", crate::stats::to_table(&all));
    }
    Ok(())
}

/// The longest win of each slice and how long its wins are: pure values,
/// no limits, so the rule columns repeat the pure ones and nothing is
/// cursed or blessed.
pub fn audit(dir: &Path, pieces: u8) -> Result<Audit> {
    let none = damka::RuleSet::preset(cheskers::RULES)?;
    let mut slices = Vec::new();
    each_slice(dir, |m, index, values| {
        if m.pieces() > pieces {
            return Ok(());
        }
        let mut lengths = std::collections::BTreeMap::new();
        let mut longest: Option<(u16, u64)> = None;
        for (i, &bits) in values.iter().enumerate() {
            let v = Value::unpack(bits).with_context(|| format!("cheskers-{m}: entry {i} is not a value"))?;
            if v.wdl == Wdl::Win {
                *lengths.entry(v.plies.0).or_insert(0u64) += 1;
                if longest.is_none_or(|(p, _)| v.plies.0 > p) {
                    longest = Some((v.plies.0, i as u64));
                }
            }
        }
        let wins = lengths.values().sum();
        let fen = longest.map(|(_, i)| cheskers::write_fen(&index.position(i)));
        let lengths: Vec<(u16, u64)> = lengths.into_iter().collect();
        slices.push(SliceAudit {
            material: m.to_string(),
            positions: index.size(),
            pure_wins: wins,
            rule_wins: wins,
            cursed_wins: 0,
            blessed_losses: 0,
            longest_pure_win: longest.map_or(0, |l| l.0),
            longest_pure_win_fen: fen.clone(),
            longest_rule_win: longest.map_or(0, |l| l.0),
            longest_rule_win_fen: fen,
            cursed_win_fen: None,
            limit_plies: None,
            rules: Vec::new(),
            pure_win_lengths: lengths.clone(),
            rule_win_lengths: lengths,
            cursed_win_lengths: Vec::new(),
            counter_states: 0,
            ambiguous_states: 0,
        });
        Ok(())
    })?;
    Ok(Audit {
        variant: "cheskers".to_string(),
        rules: none.name.clone(),
        rules_hash: format!("{:016x}", none.hash),
        slices,
    })
}

pub fn probe(fen: &str, dir: &Path, json: bool) -> Result<()> {
    let pos: Position =
        cheskers::parse_fen(fen).with_context(|| format!("cannot read FEN '{}'", damka::fen::excerpt(fen)))?;
    let tables = Tables::open(dir)?;
    let value = tables.probe_value(&pos)?;
    let moves = tables.rank_moves(&pos)?;
    let white = if pos.turn() == damka::Color::White { pos } else { pos.flipped() };
    let material = Material::of(&white);
    let none = damka::RuleSet::preset(cheskers::RULES)?;
    let fen = cheskers::write_fen(&pos);
    if json {
        let report = json!({
            "fen": fen,
            "variant": "cheskers",
            "material": material.to_string(),
            "rules": { "name": none.name, "hash": format!("{:016x}", none.hash) },
            "value": value_json(value),
            "counters": null,
            "no_legal_move": moves.is_empty(),
            "moves": moves.iter().map(|(m, v)| json!({
                "move": cheskers::write_move(m),
                "wdl": v.wdl.name(),
                "plies": v.plies.0,
                "capture": m.is_capture(),
                "promotion": m.promotion().is_some(),
                "with_counters": null,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("{fen}  (cheskers, {material}, rule set none, fresh counters)");
    if moves.is_empty() {
        println!("value: lost: no legal move");
        return Ok(());
    }
    println!("value: {}", describe(value));
    let width = moves.iter().map(|(m, _)| cheskers::write_move(m).len()).max().unwrap_or(4).max(4);
    println!("{:<width$}  {:<12}  plies", "move", "value");
    for (m, v) in &moves {
        let plies = if v.wdl == Wdl::Draw { "-".to_string() } else { v.plies.0.to_string() };
        println!("{:<width$}  {:<12}  {plies}", cheskers::write_move(m), v.wdl.name());
    }
    Ok(())
}
