//! `damka probe`: a position's value and every legal move's, from the
//! tables.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use damka::{notation, Counters, Material, Verdict, OpenOptions, RankedMove, RuleSetId, Tablebase, Value, Variant, Wdl};
use serde_json::json;

use super::generate::load_rules;
use super::parse_fen;

#[derive(Args)]
pub struct ProbeArgs {
    /// The position as FEN: `W:W21,22,K5:B1,2` or, in Russian and
    /// Brazilian, `W:WKc3:Bf6`.
    fen: String,
    /// Game: russian, brazilian, pool, english or italian.
    #[arg(long, default_value = "russian")]
    variant: Variant,
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
    /// The rule set the tables must have been built with (a preset name
    /// or a .toml file). Default: whatever the tables record.
    #[arg(long)]
    rules: Option<String>,
    /// Plies since the last capture or promotion.
    #[arg(long, default_value_t = 0)]
    quiet: u16,
    /// Plies since the last man move or capture.
    #[arg(long, default_value_t = 0)]
    kings_only: u16,
    /// Print JSON (keys: fen, variant, material, rules, value, moves).
    #[arg(long)]
    json: bool,
}

pub fn run(args: ProbeArgs) -> Result<()> {
    let pos = parse_fen(&args.fen, args.variant)?;
    let mut options = OpenOptions::new(args.variant).cache_bytes(4 << 20);
    if let Some(name) = &args.rules {
        let rules = load_rules(Some(name), args.variant)?;
        options = options.rules(RuleSetId { name: rules.name, hash: rules.hash });
    }
    // The error names the directory already.
    let tb = Tablebase::open(&args.dir, options)?;
    let value = tb.probe_value(&pos)?;
    let counters = Counters { quiet: args.quiet, kings_only: args.kings_only };
    let verdict = if counters == Counters::default() {
        None
    } else {
        // The rule set named, else the one the tables record (a preset).
        let name = args.rules.clone().or_else(|| tb.rules().map(|r| r.name.clone()));
        let rules = load_rules(name.as_deref(), args.variant)?;
        Some(tb.probe_counters(&pos, &rules, counters)?)
    };
    let moves = tb.rank_moves(&pos)?;
    let material = Material::of(&if pos.turn() == damka::Color::Black { pos.flip() } else { pos });
    let fen = damka::fen::write(&pos, args.variant);
    if args.json {
        let report = json!({
            "fen": fen,
            "variant": args.variant.name(),
            "material": material.to_string(),
            "rules": tb.rules().map(|r| json!({ "name": r.name, "hash": format!("{:016x}", r.hash) })),
            "value": value_json(value),
            "counters": verdict.map(|v| json!({
                "quiet": counters.quiet,
                "kings_only": counters.kings_only,
                "exact": matches!(v, Verdict::Exact(_)),
                "wdl": verdict_text(v),
            })),
            "moves": moves.iter().map(|m| move_json(m, args.variant)).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let rules = tb.rules().map_or("unknown".to_string(), |r| r.name.clone());
    println!("{fen}  ({}, {material}, rule set {rules}, fresh counters)", args.variant);
    println!("value: {}", describe(value));
    if let Some(v) = verdict {
        println!("with --quiet {} --kings-only {}: {}", counters.quiet, counters.kings_only, verdict_text(v));
    }
    if moves.is_empty() {
        println!("no legal move: the side to move has lost");
        return Ok(());
    }
    let width = moves.iter().map(|m| notation::write(&m.mv, args.variant).len()).max().unwrap_or(4).max(4);
    println!("{:<width$}  {:<12}  plies", "move", "value");
    for m in &moves {
        let plies = if m.value.wdl == Wdl::Draw { "-".to_string() } else { m.value.plies.0.to_string() };
        println!("{:<width$}  {:<12}  {plies}", notation::write(&m.mv, args.variant), m.value.wdl.name());
    }
    Ok(())
}

/// `win`, or `ambiguous: win or cursed-win`.
fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Exact(wdl) => wdl.name().to_string(),
        Verdict::Ambiguous(a, b) => format!("ambiguous: {a} or {b}"),
    }
}

/// "win, 7 plies to the next capture, promotion or end of the game" (the
/// count that resets the binding limit; docs/FORMAT.md).
fn describe(v: Value) -> String {
    match v.wdl {
        Wdl::Draw => "draw".to_string(),
        wdl if v.plies.0 == 0 => format!("{wdl} (game over)"),
        wdl => format!("{wdl}, {} plies to the next capture, promotion or end of the game", v.plies.0),
    }
}

fn value_json(v: Value) -> serde_json::Value {
    json!({ "wdl": v.wdl.name(), "plies": v.plies.0 })
}

fn move_json(m: &RankedMove, variant: Variant) -> serde_json::Value {
    json!({
        "move": notation::write(&m.mv, variant),
        "wdl": m.value.wdl.name(),
        "plies": m.value.plies.0,
        "capture": m.mv.is_capture(),
        "promotion": m.mv.promotes(),
    })
}
