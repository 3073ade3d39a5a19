//! `damka probe`: a position's value and every legal move's, from the
//! tables.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;
use damka::{
    notation, Counters, Material, Move, OpenOptions, Position, RuleSet, RuleSetId, Tablebase, Value, Variant, Verdict, Wdl,
};
use serde_json::json;

use super::generate::load_rules;
use super::parse_fen;

/// A game state and the tables to judge it with (`probe`, `play`).
#[derive(Args)]
pub(super) struct GameArgs {
    /// The position as FEN: `W:W21,22,K5:B1,2` or, in Russian and
    /// Brazilian, `W:WKc3:Bf6`.
    fen: String,
    /// Game: russian, brazilian, pool, english, italian or (for `probe`)
    /// cheskers.
    #[arg(long, default_value = "russian")]
    pub variant: damka::game::Game,
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
    /// The rule set the tables must have been built with (a preset name
    /// or a .toml file). Default: whatever the tables record.
    #[arg(long)]
    rules: Option<String>,
    /// Plies since the last capture or promotion.
    #[arg(long, value_name = "N", default_value_t = 0)]
    quiet_plies: u16,
    /// Plies since the last man move or capture (at most --quiet-plies).
    #[arg(long, value_name = "N", default_value_t = 0)]
    kings_only_plies: u16,
}

/// A game state read from the command line, and the tables.
pub(super) struct Game {
    pub pos: Position,
    pub counters: Counters,
    pub tb: Tablebase,
    /// The rule set the tables were built with, where it is known without
    /// a rule file.
    pub rules: Option<RuleSet>,
}

impl GameArgs {
    /// Checks the counters and the FEN, then opens the tables (for
    /// `damka command`).
    pub fn open(&self, command: &str) -> Result<Game> {
        let counters = Counters { quiet: self.quiet_plies, kings_only: self.kings_only_plies };
        if !counters.is_possible() {
            bail!(
                "--kings-only-plies {} is more than --quiet-plies {}: a capture or promotion restarts both counts, \
                 so the kings-only count is never the larger",
                counters.kings_only,
                counters.quiet
            );
        }
        let variant = super::draughts_only(self.variant, command)?;
        let pos = parse_fen(&self.fen, variant)?;
        let asked = self.rules.as_deref().map(|name| load_rules(Some(name), variant)).transpose()?;
        let mut options = OpenOptions::new(variant).cache_bytes(4 << 20);
        if let Some(rules) = &asked {
            options = options.rules(RuleSetId { name: rules.name.clone(), hash: rules.hash });
        }
        // The error names the directory already.
        let tb = Tablebase::open(&self.dir, options)?;
        let rules = asked.or_else(|| known_rules(&tb));
        Ok(Game { pos, counters, tb, rules })
    }
}

#[derive(Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Print JSON (keys: fen, variant, material, rules, value, counters,
    /// no_legal_move, moves).
    #[arg(long)]
    json: bool,
}

/// A legal move as the report shows it: its stored value and, where the
/// rule set is known, its verdict with the counters after it.
pub(crate) struct Row {
    mv: Move,
    value: Value,
    judged: Option<(Counters, Verdict)>,
}

/// What a probe finds: the position's value and every legal move's. The
/// command line prints it and `damka serve` answers with it, so the two
/// cannot disagree.
pub(crate) struct Report {
    pub fen: String,
    pub variant: Variant,
    pub material: Material,
    pub rules: Option<RuleSetId>,
    /// The stored value: for fresh counters.
    pub value: Value,
    /// The verdict with the counters asked for, unless they are fresh.
    pub verdict: Option<(Counters, Verdict)>,
    /// Best first; empty when the side to move cannot move.
    pub rows: Vec<Row>,
    /// Whether the counters change anything (a non-empty known rule set).
    pub with_counters: bool,
}

pub fn run(args: ProbeArgs) -> Result<()> {
    let g = &args.game;
    if g.variant == damka::game::Game::Cheskers {
        if g.quiet_plies != 0 || g.kings_only_plies != 0 {
            bail!("Cheskers has no move limits: --quiet-plies and --kings-only-plies do not apply");
        }
        if g.rules.as_deref().is_some_and(|r| r != damka::cheskers::RULES) {
            bail!("--rules: Cheskers tables hold pure values, built with rule set none");
        }
        return super::cheskers::probe(&g.fen, &g.dir, args.json);
    }
    let Game { pos, counters, tb, rules } = args.game.open("probe")?;
    let report = probe(&tb, rules.as_ref(), &pos, counters)?;
    if args.json {
        print!("{}", report.json_text());
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

/// Probes `pos` with `counters` in `tb`, whose rule set is `rules` where
/// known.
pub(crate) fn probe(tb: &Tablebase, rules: Option<&RuleSet>, pos: &Position, counters: Counters) -> Result<Report> {
    let value = tb.probe_value(pos)?;
    let (verdict, rows) = match rules {
        Some(rules) => {
            let verdict = (counters != Counters::default()).then(|| tb.probe_counters(pos, rules, counters)).transpose()?;
            let moves = tb.rank_moves_with_counters(pos, rules, counters)?;
            let rows = moves.into_iter().map(|m| Row { mv: m.mv, value: m.value, judged: Some((m.counters, m.verdict)) });
            (verdict.map(|v| (counters, v)), rows.collect::<Vec<_>>())
        }
        // Tables of a rule file, in a directory written before manifests:
        // fresh values need no rules.
        None if counters == Counters::default() => {
            (None, tb.rank_moves(pos)?.into_iter().map(|m| Row { mv: m.mv, value: m.value, judged: None }).collect())
        }
        None => return Err(unknown_rules(tb)),
    };
    let variant = tb.variant();
    Ok(Report {
        fen: damka::fen::write(pos, variant),
        variant,
        material: Material::of(&if pos.turn() == damka::Color::Black { pos.flip() } else { *pos }),
        rules: tb.rules().cloned(),
        value,
        verdict,
        rows,
        with_counters: rules.is_some_and(|r| !r.is_empty()),
    })
}

impl Report {
    /// `damka probe --json`: keys fen, variant, material, rules, value,
    /// counters, no_legal_move, moves.
    pub(crate) fn json(&self) -> serde_json::Value {
        json!({
            "fen": self.fen,
            "variant": self.variant.name(),
            "material": self.material.to_string(),
            "rules": self.rules.as_ref().map(|r| json!({ "name": r.name, "hash": format!("{:016x}", r.hash) })),
            "value": value_json(self.value),
            "counters": self.verdict.map(|(c, v)| verdict_json(c, v)),
            "no_legal_move": self.rows.is_empty(),
            "moves": self.rows.iter().map(|m| move_json(m, self.variant)).collect::<Vec<_>>(),
        })
    }

    /// The JSON as `damka probe --json` prints it, to the last byte.
    pub(crate) fn json_text(&self) -> String {
        format!("{}\n", serde_json::to_string_pretty(&self.json()).expect("JSON values serialize"))
    }

    /// The report for a person.
    fn text(&self) -> String {
        let mut out = String::new();
        let rules_name = self.rules.as_ref().map_or("unknown".to_string(), |r| r.name.clone());
        out += &format!("{}  ({}, {}, rule set {rules_name}, fresh counters)\n", self.fen, self.variant, self.material);
        if self.rows.is_empty() {
            out += "value: lost: no legal move\n";
        } else {
            out += &format!("value: {}\n", describe(self.value));
        }
        if let Some((c, v)) = self.verdict {
            out += &format!("with --quiet-plies {} --kings-only-plies {}: {}\n", c.quiet, c.kings_only, verdict_text(v));
        }
        if self.rows.is_empty() {
            return out;
        }
        // A move's value: with the counters as they stand after it, where the
        // rule set is known; the plies are the stored distance.
        let value_text = |m: &Row| match m.judged {
            Some((_, v)) => verdict_text(v),
            None => m.value.wdl.name().to_string(),
        };
        let width = self.rows.iter().map(|m| notation::write(&m.mv, self.variant).len()).max().unwrap_or(4).max(4);
        let value_width = self.rows.iter().map(|m| value_text(m).len()).max().unwrap_or(5).max(12);
        // Under pure values the counters change nothing: no column for them.
        let after_column = if self.with_counters { "  quiet/kings-only after" } else { "" };
        out += &format!("{:<width$}  {:<value_width$}  {:<5}{after_column}\n", "move", "value", "plies");
        for m in &self.rows {
            let mv = notation::write(&m.mv, self.variant);
            let plies = if m.value.wdl == Wdl::Draw { "-".to_string() } else { m.value.plies.0.to_string() };
            let after = match m.judged {
                Some((after, _)) if self.with_counters => format!("  {}/{}", after.quiet, after.kings_only),
                _ => String::new(),
            };
            out += &format!("{mv:<width$}  {:<value_width$}  {plies:<5}{after}\n", value_text(m));
        }
        out
    }
}

/// Why counters cannot be judged: the rule set is not known.
pub(crate) fn unknown_rules(tb: &Tablebase) -> anyhow::Error {
    anyhow::anyhow!(
        "the tables were built with rule set {}, which is no preset, and {} carries no copy of it \
         (built before damka.toml): give the rule file with --rules FILE",
        tb.rules().map_or("unknown".to_string(), |r| r.to_string()),
        tb.dir().display()
    )
}

/// The rule set the tables were built with, where no rule file is needed:
/// the directory's manifest carries it, or it is a preset.
pub(crate) fn known_rules(tb: &Tablebase) -> Option<RuleSet> {
    if let Some(rules) = tb.rule_set() {
        return Some(rules.clone());
    }
    let id = tb.rules()?;
    RuleSet::preset(&id.name).ok().filter(|preset| preset.hash == id.hash)
}

/// `win`, or `ambiguous: win or cursed-win`.
pub(super) fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Exact(wdl) => wdl.name().to_string(),
        Verdict::Ambiguous(a, b) => format!("ambiguous: {a} or {b}"),
    }
}

fn verdict_json(counters: Counters, v: Verdict) -> serde_json::Value {
    json!({
        "quiet": counters.quiet,
        "kings_only": counters.kings_only,
        "exact": matches!(v, Verdict::Exact(_)),
        "wdl": verdict_text(v),
    })
}

/// "win, 7 plies to the next capture, promotion or end of the game" (the
/// count that resets the binding limit; docs/FORMAT.md).
pub(super) fn describe(v: Value) -> String {
    match v.wdl {
        Wdl::Draw => "draw".to_string(),
        wdl if v.plies.0 == 0 => format!("{wdl} (game over)"),
        wdl => format!("{wdl}, {} plies to the next capture, promotion or end of the game", v.plies.0),
    }
}

/// The value under the rule set, the pure value (no move limits) and the
/// distance in plies and in moves of the side to move.
pub(super) fn value_json(v: Value) -> serde_json::Value {
    json!({ "wdl": v.wdl.name(), "pure": v.wdl.pure().name(), "plies": v.plies.0, "moves": v.plies.moves() })
}

/// A move: its stored value (fresh counters after it) and, where the rule
/// set is known, its verdict with the counters after it.
fn move_json(m: &Row, variant: Variant) -> serde_json::Value {
    json!({
        "move": notation::write(&m.mv, variant),
        "wdl": m.value.wdl.name(),
        "plies": m.value.plies.0,
        "capture": m.mv.is_capture(),
        "promotion": m.mv.promotes(),
        "with_counters": m.judged.map(|(after, v)| verdict_json(after, v)),
    })
}
