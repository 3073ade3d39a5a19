//! Probing with move-limit counters, in the library and in `damka probe`:
//! each move is valued with the counters as they stand after it, so the
//! move list agrees with the position's verdict; impossible counters are
//! refused; a position without a legal move reads as lost; the rules come
//! from the directory's manifest, or from `--rules` for older directories.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use damka::{
    fen, Color, Counters, Material, OpenOptions, Position, ProbeError, RuleSet, SliceIndex, Tablebase, Variant, Verdict,
    Wdl,
};
use serde_json::Value as Json;

fn damka(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka")).args(args).output().expect("damka runs")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "damka failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn probe_json(dir: &Path, fen: &str, extra: &[&str]) -> Json {
    let mut args = vec!["probe", fen, "--dir", dir.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&stdout(&damka(&args))).expect("JSON")
}

fn open(dir: &Path) -> Tablebase {
    Tablebase::open(dir, OpenOptions::new(Variant::Russian).cache_bytes(16 << 20)).expect("open the tables")
}

/// Every position (White to move; Black to move is the same entry turned
/// round) of the slices where a side has a lone king: where the Russian
/// quiet limits bind at 3 pieces.
fn lone_king_positions(tb: &Tablebase) -> Vec<Position> {
    let lone_king = |kings, men| kings == 1 && men == 0;
    let mut all = Vec::new();
    for m in tb.materials() {
        if lone_king(m.own_kings, m.own_men) || lone_king(m.opp_kings, m.opp_men) {
            let index = SliceIndex::new(m);
            all.extend((0..index.size()).map(|i| index.position(i)));
        }
    }
    all
}

fn sort_key(v: Verdict) -> i8 {
    match v {
        Verdict::Exact(w) => 2 * w as i8,
        Verdict::Ambiguous(a, b) => a as i8 + b as i8,
    }
}

/// States of a game: without men both counts restarted together when the
/// last man went, so they are equal; below every limit of the 3-piece
/// Russian slices (5 moves: 9 plies), so the game is still on.
fn game_counters(pos: &Position) -> Vec<Counters> {
    let men = (pos.men(Color::White) | pos.men(Color::Black)).has_any();
    (0..=8u16)
        .flat_map(|q| if men { vec![(q, 0), (q, q)] } else { vec![(q, q)] })
        .map(|(quiet, kings_only)| Counters { quiet, kings_only })
        .collect()
}

#[test]
fn moves_are_valued_with_the_counters_after_them() {
    let tables = support::generate_with_rules("probe-counters", Variant::Russian, 3, "russian");
    let tb = open(tables.path());
    let rules = RuleSet::preset("russian").unwrap();
    // Positions where the old move list (fresh counters after each move)
    // showed a win while the position, with its counters, is a cursed win.
    let mut misleading_before = 0;
    for pos in lone_king_positions(&tb) {
        let fresh_moves = tb.rank_moves(&pos).unwrap();
        for counters in game_counters(&pos) {
            let verdict = tb.probe_counters(&pos, &rules, counters).unwrap();
            let judged = tb.rank_moves_with_counters(&pos, &rules, counters).unwrap();
            assert_eq!(judged.len(), fresh_moves.len());
            for m in &judged {
                // The counters after the move, from the rules' words.
                let man = pos.men(pos.turn()).contains(m.mv.from());
                let expected = match (m.mv.is_capture(), m.mv.promotes(), man) {
                    (true, _, _) | (_, true, _) => Counters::default(),
                    (false, false, true) => Counters { quiet: counters.quiet + 1, kings_only: 0 },
                    (false, false, false) => Counters { quiet: counters.quiet + 1, kings_only: counters.kings_only + 1 },
                };
                assert_eq!(m.counters, expected, "{}: {counters:?}", fen::write(&pos, Variant::Russian));
            }
            assert!(judged.windows(2).all(|w| sort_key(w[0].verdict) >= sort_key(w[1].verdict)), "best first");
            // Where the position and all its moves are decided, the best
            // move is worth what the position is.
            let Some(best) = judged.first() else { continue };
            if let Verdict::Exact(w) = verdict {
                if judged.iter().all(|m| matches!(m.verdict, Verdict::Exact(_))) {
                    assert_eq!(
                        best.verdict,
                        verdict,
                        "{} with {counters:?}: {judged:?}",
                        fen::write(&pos, Variant::Russian)
                    );
                }
                if w == Wdl::CursedWin && fresh_moves.iter().any(|m| m.value.wdl == Wdl::Win) {
                    misleading_before += 1;
                }
            }
        }
    }
    assert!(misleading_before > 100, "the case of the issue occurs: {misleading_before}");
}

#[test]
fn impossible_counters_are_refused() {
    let tables = support::generate_with_rules("probe-impossible", Variant::Russian, 2, "russian");
    let tb = open(tables.path());
    let rules = RuleSet::preset("russian").unwrap();
    let pos = fen::parse("W:WKa1:BKh2", Variant::Russian).unwrap();
    let counters = Counters { quiet: 5, kings_only: 10 };
    for err in [
        tb.probe_counters(&pos, &rules, counters).unwrap_err(),
        tb.rank_moves_with_counters(&pos, &rules, counters).unwrap_err(),
    ] {
        assert!(matches!(err, ProbeError::ImpossibleCounters { quiet: 5, kings_only: 10 }), "{err:?}");
    }
    assert!(tb.probe_counters(&pos, &rules, Counters { quiet: 10, kings_only: 10 }).is_ok());

    let dir = tables.path().to_str().unwrap();
    let out = damka(&["probe", "W:WKa1:BKh2", "--dir", dir, "--quiet-plies", "5", "--kings-only-plies", "10"]);
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("--kings-only-plies 10") && message.contains("--quiet-plies 5"), "{message}");
    // The old flags are gone: `--quiet` belongs to `generate` only.
    assert!(!damka(&["probe", "W:WKa1:BKh2", "--dir", dir, "--quiet", "5"]).status.success());
}

#[test]
fn the_cli_values_each_move_with_the_counters_after_it() {
    let tables = support::generate_with_rules("probe-cli-counters", Variant::Russian, 3, "russian");
    let tb = open(tables.path());
    let rules = RuleSet::preset("russian").unwrap();
    // A position that is a cursed win with its counters, where a move's
    // stored (fresh-counter) value is a win: the "e5-g3 win 2".
    let (pos, counters) = lone_king_positions(&tb)
        .into_iter()
        .flat_map(|p| game_counters(&p).into_iter().map(move |c| (p, c)))
        .find(|(p, c)| {
            tb.probe_counters(p, &rules, *c).unwrap() == Verdict::Exact(Wdl::CursedWin)
                && tb.rank_moves(p).unwrap().iter().any(|m| m.value.wdl == Wdl::Win)
        })
        .expect("such a position");
    let fen = fen::write(&pos, Variant::Russian);
    let (q, k) = (counters.quiet.to_string(), counters.kings_only.to_string());
    let report = probe_json(tables.path(), &fen, &["--quiet-plies", &q, "--kings-only-plies", &k]);
    assert_eq!(report["counters"]["wdl"], "cursed-win", "{report}");
    let moves = report["moves"].as_array().unwrap();
    assert!(moves.iter().any(|m| m["wdl"] == "win"), "the stored values still say win: {report}");
    for m in moves {
        assert_ne!(m["with_counters"]["wdl"], "win", "{fen} {q}/{k}: {m}");
    }
    assert_eq!(moves[0]["with_counters"]["wdl"], "cursed-win", "{report}");

    let dir = tables.path().to_str().unwrap();
    let text = stdout(&damka(&["probe", &fen, "--dir", dir, "--quiet-plies", &q, "--kings-only-plies", &k]));
    assert!(text.contains(&format!("with --quiet-plies {q} --kings-only-plies {k}: cursed-win")), "{text}");
    let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("move")).skip(1).collect();
    assert_eq!(rows.len(), moves.len(), "{text}");
    assert!(rows.iter().all(|r| r.split_whitespace().nth(1) != Some("win")), "{text}");
}

#[test]
fn a_position_without_a_legal_move_is_lost() {
    let tables = support::generate_with_rules("probe-no-move", Variant::Russian, 3, "russian");
    // White's man on a1 is blocked by b2, which c3 covers.
    let fen = "W:Wa1:Bb2,c3";
    let pos = fen::parse(fen, Variant::Russian).unwrap();
    assert!(open(tables.path()).rank_moves(&pos).unwrap().is_empty());
    let text = stdout(&damka(&["probe", fen, "--dir", tables.path().to_str().unwrap()]));
    assert!(text.contains("value: lost: no legal move"), "{text}");
    assert!(!text.contains("plies to the next"), "{text}");
    let report = probe_json(tables.path(), fen, &[]);
    assert_eq!(report["no_legal_move"], true);
    assert_eq!(report["moves"].as_array().map(Vec::len), Some(0));
}

#[test]
fn the_directory_carries_a_custom_rule_set() {
    // The Russian rules with a shorter small-endings limit, under another name.
    let russian = RuleSet::preset("russian").unwrap().text;
    let custom = russian.replacen("name = \"russian\"", "name = \"custom\"", 1).replace("limit_moves = 5", "limit_moves = 4");
    let rules = RuleSet::parse(&custom).unwrap();
    let work = support::TempDir::new("probe-custom");
    let rule_file = work.path().join("custom.toml");
    std::fs::write(&rule_file, &custom).unwrap();
    let dir = work.path().join("tables");
    let (rule_file, dir_s) = (rule_file.to_str().unwrap(), dir.to_str().unwrap());
    stdout(&damka(&["generate", "--pieces", "3", "--rules", rule_file, "--dir", dir_s, "--quiet"]));

    let tb = open(&dir);
    assert_eq!(tb.rule_set().map(|r| (r.name.as_str(), r.hash)), Some(("custom", rules.hash)));
    // A king and a man against a king: the small-endings rule binds.
    let pos = lone_king_positions(&tb)
        .into_iter()
        .find(|p| Material::of(p).to_string() == "KMvK" && tb.probe_value(p).unwrap().wdl == Wdl::Win)
        .expect("a won KMvK position");
    let fen = fen::write(&pos, Variant::Russian);
    let counted = ["--quiet-plies", "4", "--kings-only-plies", "4"];
    let with_manifest = probe_json(&dir, &fen, &counted);
    assert_eq!(with_manifest["rules"]["name"], "custom");
    let expected = tb.probe_counters(&pos, &rules, Counters { quiet: 4, kings_only: 4 }).unwrap();
    assert_eq!(with_manifest["counters"]["exact"], matches!(expected, Verdict::Exact(_)));
    assert!(with_manifest["moves"][0]["with_counters"].is_object());

    // Rules other than the tables' stay an error.
    let out = damka(&["probe", &fen, "--dir", dir_s, "--rules", "russian", "--quiet-plies", "4", "--kings-only-plies", "4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("custom"), "{}", String::from_utf8_lossy(&out.stderr));

    // A directory written before manifests probes as before: fresh values
    // need no rules, counters need the rule file.
    std::fs::remove_file(dir.join("damka.toml")).unwrap();
    assert!(open(&dir).rule_set().is_none());
    let fresh = probe_json(&dir, &fen, &[]);
    assert_eq!(fresh["value"], with_manifest["value"]);
    assert!(fresh["moves"][0]["with_counters"].is_null());
    let out = damka(&["probe", &fen, "--dir", dir_s, "--quiet-plies", "4", "--kings-only-plies", "4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rules FILE"), "{}", String::from_utf8_lossy(&out.stderr));
    let given = probe_json(&dir, &fen, &[&counted[..], &["--rules", rule_file]].concat());
    assert_eq!(given["counters"], with_manifest["counters"]);
    assert_eq!(given["moves"], with_manifest["moves"]);
}
