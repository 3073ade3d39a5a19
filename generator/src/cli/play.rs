//! `damka play`: a position played out to the end of the game with both
//! sides choosing by the tables, the draw rules counted as an arbiter
//! counts them (`Tablebase::play_out`).

use anyhow::Result;
use clap::Args;
use damka::{fen, notation, resolve, Color, Ending, Material, Playout, RuleSet, Value, Variant, Wdl};
use serde_json::json;

use super::probe::{describe, unknown_rules, value_json, verdict_text, Game, GameArgs};

#[derive(Args)]
pub struct PlayArgs {
    /// The position and the counters at the start.
    #[command(flatten)]
    game: GameArgs,
    /// Print JSON (keys: fen, variant, material, rules, counters, value,
    /// moves, result).
    #[arg(long)]
    json: bool,
}

pub fn run(args: PlayArgs) -> Result<()> {
    let Game { pos, counters, tb, rules } = args.game.open("play")?;
    let variant = tb.variant();
    let Some(rules) = rules else { return Err(unknown_rules(&tb)) };
    let value = tb.probe_value(&pos)?;
    let game = tb.play_out(&pos, &rules, counters)?;
    if args.json {
        print!("{}", json_text(&game, &rules, value, variant));
        return Ok(());
    }
    let material = Material::of(&resolve::white_to_move(&pos));
    let fen = fen::write(&pos, variant);
    println!("{fen}  ({}, {material}, rule set {})", variant, rules.name);
    println!(
        "tables: {} with fresh counters; played from quiet {} / kings-only {}",
        describe(value),
        counters.quiet,
        counters.kings_only
    );
    print_game(&game, variant);
    println!("{}", result_text(&game, &rules));
    Ok(())
}

/// `damka play --json`, to the last byte (the explorer's /api/playout
/// answers with it): `value` is the start's stored value.
pub(crate) fn json_text(game: &Playout, rules: &RuleSet, value: Value, variant: Variant) -> String {
    let (pos, counters) = (game.start, game.counters);
    let material = Material::of(&resolve::white_to_move(&pos));
    let fen = fen::write(&pos, variant);
    let side_name = |c: Color| if c == Color::White { "white" } else { "black" };
    let mut side = pos.turn();
    let moves: Vec<_> = game
        .moves
        .iter()
        .zip(game.positions())
        .map(|(m, after)| {
            let row = json!({
                "side": side_name(side),
                "move": notation::write(&m.mv, variant),
                "capture": m.mv.is_capture(),
                "promotion": m.mv.promotes(),
                "quiet": m.counters.quiet,
                "kings_only": m.counters.kings_only,
                "wdl": verdict_text(m.verdict),
                "plies": m.value.plies.0,
                "fen": fen::write(&after, variant),
            });
            side = side.opponent();
            row
        })
        .collect();
    let (winner, reason, rule) = match &game.ending {
        Ending::Won { winner, no_pieces } => {
            (Some(side_name(*winner)), if *no_pieces { "no-pieces" } else { "no-move" }, None)
        }
        Ending::DrawnByRule { rule } => (None, "rule", Some(rule.as_str())),
        Ending::DrawnByRepetition => (None, "repetition", None),
    };
    let report = json!({
        "fen": fen,
        "variant": variant.name(),
        "material": material.to_string(),
        "rules": { "name": rules.name, "hash": format!("{:016x}", rules.hash) },
        "counters": { "quiet": counters.quiet, "kings_only": counters.kings_only },
        "value": value_json(value),
        "moves": moves,
        "result": {
            "wdl": game.ending.result_for(pos.turn()).name(),
            "winner": winner,
            "reason": reason,
            "rule": rule,
            "plies": game.moves.len(),
            "fen": fen::write(&game.positions().last().unwrap_or(pos), variant),
        },
    });
    format!("{}\n", serde_json::to_string_pretty(&report).expect("JSON values serialize"))
}

/// One line per ply: the move number, the move, the counters after it and
/// what the tables said the move was worth to the mover.
fn print_game(game: &Playout, variant: Variant) {
    if game.moves.is_empty() {
        return;
    }
    let width = game.moves.iter().map(|m| notation::write(&m.mv, variant).len()).max().unwrap_or(4).max(4);
    println!("{:<6} {:<width$}  quiet/kings-only  tables", "", "move");
    for (ply, m) in game.moves.iter().enumerate() {
        let number = if ply % 2 == 0 { format!("{}.", ply / 2 + 1) } else { format!("{}...", ply / 2 + 1) };
        let counts = format!("{}/{}", m.counters.quiet, m.counters.kings_only);
        let value = match m.value.wdl {
            Wdl::Draw => verdict_text(m.verdict),
            _ => format!("{} ({} plies)", verdict_text(m.verdict), m.value.plies.0),
        };
        println!("{number:<6} {:<width$}  {counts:<16}  {value}", notation::write(&m.mv, variant));
    }
}

/// "result: White wins ...", or which rule drew the game.
fn result_text(game: &Playout, rules: &RuleSet) -> String {
    let colour = |c: Color| if c == Color::White { "White" } else { "Black" };
    let plies = game.moves.len();
    match &game.ending {
        Ending::Won { winner, no_pieces } => format!(
            "result: {} wins after {plies} plies: {} has {}",
            colour(*winner),
            colour(winner.opponent()),
            if *no_pieces { "no piece left" } else { "no legal move" }
        ),
        Ending::DrawnByRule { rule } => {
            let source =
                rules.rules.iter().find(|r| &r.name == rule).map_or(String::new(), |r| format!(" ({})", r.source));
            format!("result: draw after {plies} plies: the limit of rule {rule}{source} is reached")
        }
        Ending::DrawnByRepetition => format!("result: draw after {plies} plies: threefold repetition"),
    }
}
