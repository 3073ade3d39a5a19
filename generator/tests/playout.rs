//! Play-outs prove the tables' values under the rules: positions played to
//! the end with both sides choosing by the tables (`Tablebase::play_out`),
//! refereed by the arbiter (probe/src/arbiter.rs), which counts moves as
//! the rules do and shares nothing with the way the tables fold the limits
//! in. The tables only choose the moves; the result is the arbiter's.
//!
//! On a thousand random positions per game, each game with its default
//! rule set (`russian`, `brazilian`, `english`; `none` for Pool and
//! Italian, which have no confirmed limit) and tables up to 4 pieces: a win
//! is won (before any limit: the arbiter would have drawn the game), a loss
//! is lost, a draw is drawn, and a cursed win or blessed loss is drawn by a
//! limit. With Russian rules, random counters too: wherever a probe with
//! counters gives an exact result, the game from that state ends so.
//! A failure prints the game.

mod support;

use std::process::Command;

use damka::{
    fen, notation, Color, Counters, Ending, OpenOptions, Playout, Position, ProbeError, RuleSet, SliceIndex, Tablebase, Variant,
    Verdict, Wdl,
};

/// xorshift64*: reproducible positions without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random position: a slice drawn uniformly (so that small endings are
/// played as often as large ones), a position of it, either side to move.
fn random_position(slices: &[SliceIndex], rng: &mut Rng) -> Position {
    let slice = &slices[rng.below(slices.len() as u64) as usize];
    let pos = slice.position(rng.below(slice.size()));
    if rng.next() & 1 == 0 {
        pos
    } else {
        pos.flip()
    }
}

/// The game as text: FEN, counters at the start, each move with the
/// counters after it, and the ending.
fn game_text(game: &Playout, variant: Variant) -> String {
    let moves: Vec<String> = game
        .moves
        .iter()
        .map(|m| format!("{} [{}/{}]", notation::write(&m.mv, variant), m.counters.quiet, m.counters.kings_only))
        .collect();
    format!(
        "{} [{}/{}]: {} => {:?}",
        fen::write(&game.start, variant),
        game.counters.quiet,
        game.counters.kings_only,
        moves.join(" "),
        game.ending
    )
}

/// Whether the game's ending is what `expected` (for the side to move at
/// the start) says: a win or loss played to the end, a draw never lost, a
/// cursed win or blessed loss drawn by a limit.
fn ends_as(game: &Playout, expected: Wdl) -> bool {
    let result = game.ending.result_for(game.start.turn());
    match expected {
        Wdl::Win | Wdl::Loss | Wdl::Draw => result == expected,
        Wdl::CursedWin | Wdl::BlessedLoss => matches!(game.ending, Ending::DrawnByRule { .. }),
    }
}

/// What the play-outs of one game showed, by the tables' value.
#[derive(Debug, Default)]
struct Tally {
    by_value: [usize; 5],
    with_counters: usize,
    longest: usize,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, game: &Playout, expected: Wdl, variant: Variant) {
        self.by_value[(expected as i8 + 2) as usize] += 1;
        self.longest = self.longest.max(game.moves.len());
        if !ends_as(game, expected) {
            self.failures.push(format!("tables say {expected}: {}", game_text(game, variant)));
        }
    }

    fn count(&self, wdl: Wdl) -> usize {
        self.by_value[(wdl as i8 + 2) as usize]
    }

    fn assert_clean(&self, variant: Variant) {
        assert!(
            self.failures.is_empty(),
            "{variant}: {} play-outs end otherwise than the tables say:\n{}",
            self.failures.len(),
            self.failures.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

/// Counters a game can have reached at `pos` (the kings-only count never
/// above the quiet one, equal to it without men, at most 1 while a side
/// has no king and must move a man), below `most` quiet plies.
fn random_counters(pos: &Position, most: u16, rng: &mut Rng) -> Counters {
    let quiet = rng.below(most as u64 + 1) as u16;
    let men = (pos.men(Color::White) | pos.men(Color::Black)).has_any();
    let kings_both = pos.kings(Color::White).has_any() && pos.kings(Color::Black).has_any();
    let kings_only = match (men, kings_both) {
        (false, _) => quiet,
        (true, true) => rng.below(quiet as u64 + 1) as u16,
        (true, false) => quiet.min(rng.below(2) as u16),
    };
    Counters { quiet, kings_only }
}

/// Plays `n` random positions of `slices` whose value `keep` accepts out,
/// with fresh counters and, under a rule set, with random counters of up
/// to `most` quiet plies.
fn play_random(
    tb: &Tablebase,
    rules: &RuleSet,
    slices: &[SliceIndex],
    (n, keep): (usize, fn(Wdl) -> bool),
    most: u16,
    rng: &mut Rng,
) -> Tally {
    let variant = tb.variant();
    let mut tally = Tally::default();
    let mut played = 0;
    while played < n {
        let pos = random_position(slices, rng);
        let expected = tb.probe_wdl(&pos).expect("probe");
        if !keep(expected) {
            continue;
        }
        played += 1;
        let game = tb.play_out(&pos, rules, Counters::default()).expect("play out");
        tally.check(&game, expected, variant);
        if rules.is_empty() {
            continue;
        }
        // The same position in a game under way: an exact verdict must
        // hold. A count that has already passed a limit ends the game at
        // once (the verdict is for games still on).
        let counters = random_counters(&pos, most, rng);
        let game = tb.play_out(&pos, rules, counters).expect("play out");
        if let Verdict::Exact(expected) = tb.probe_counters(&pos, rules, counters).expect("probe") {
            if !(game.moves.is_empty() && matches!(game.ending, Ending::DrawnByRule { .. })) {
                tally.with_counters += 1;
                tally.check(&game, expected, variant);
            }
        }
    }
    eprintln!("{variant}: {tally:?}");
    tally
}

/// Tables of `variant` up to 4 pieces under the preset `rules`, opened.
fn tables(variant: Variant, rules: &str) -> (support::TempDir, Tablebase, RuleSet) {
    let dir = support::generate_with_rules(&format!("playout-{variant}"), variant, 4, rules);
    let tb = Tablebase::open(dir.path(), OpenOptions::new(variant).cache_bytes(16 << 20)).expect("open");
    (dir, tb, RuleSet::preset(rules).expect("preset"))
}

/// A thousand random positions of `variant` under the preset `rules`.
fn check_variant(variant: Variant, rules: &str, seed: u64) {
    let (_dir, tb, rules) = tables(variant, rules);
    let slices: Vec<SliceIndex> = tb.materials().into_iter().map(SliceIndex::new).collect();
    play_random(&tb, &rules, &slices, (1000, |_| true), 40, &mut Rng(seed)).assert_clean(variant);
}

fn play(tb: &Tablebase, rules: &RuleSet, text: &str) -> Playout {
    let pos = fen::parse(text, Variant::Russian).expect("FEN");
    tb.play_out(&pos, rules, Counters::default()).expect("play out")
}

fn damka(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_damka")).args(args).output().expect("damka runs");
    assert!(out.status.success(), "damka {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// One set of Russian tables for the random play-outs, the known games and
/// the command line (a 4-piece build takes seconds; one is enough).
#[test]
fn russian_play_outs_end_as_the_tables_say() {
    let (dir, tb, rules) = tables(Variant::Russian, "russian");
    let mut rng = Rng(0x5eed_0001);
    let all: Vec<SliceIndex> = tb.materials().into_iter().map(SliceIndex::new).collect();
    let random = play_random(&tb, &rules, &all, (1000, |_| true), 40, &mut rng);
    random.assert_clean(Variant::Russian);
    // Where a side has a lone king the 5- and 15-move limits bind: there,
    // the cursed wins and blessed losses (rare among random positions),
    // and counters close to those limits.
    let lone_king = |kings, men| kings == 1 && men == 0;
    let endings: Vec<SliceIndex> = tb
        .materials()
        .into_iter()
        .filter(|m| lone_king(m.own_kings, m.own_men) || lone_king(m.opp_kings, m.opp_men))
        .map(SliceIndex::new)
        .collect();
    let saved = |w| matches!(w, Wdl::CursedWin | Wdl::BlessedLoss);
    let limits = play_random(&tb, &rules, &endings, (300, saved), 30, &mut rng);
    limits.assert_clean(Variant::Russian);
    // Every kind of value was played.
    for wdl in [Wdl::Win, Wdl::Loss, Wdl::Draw, Wdl::CursedWin, Wdl::BlessedLoss] {
        let played = random.count(wdl) + limits.count(wdl);
        assert!(played >= 20, "only {played} play-outs of a {wdl}: {random:?} {limits:?}");
    }
    assert!(random.with_counters >= 500, "{random:?}");

    // Petrov's triangle (three kings holding the main road: c3, e3, d6)
    // and Petrov's own position (a1, c1, e1 against f8): the lone king is
    // caught by White's 13th move at the latest, within the 15 of the rule.
    for text in ["W:WKc3,Ke3,Kd6:BKd8", "B:WKc3,Ke3,Kd6:BKd8", "W:WKa1,Kc1,Ke1:BKf8", "B:WKa1,Kc1,Ke1:BKf8"] {
        let game = play(&tb, &rules, text);
        let plies = game.moves.len();
        let white_moves = if game.start.turn() == Color::White { plies.div_ceil(2) } else { plies / 2 };
        assert_eq!(
            game.ending,
            Ending::Won { winner: Color::White, no_pieces: true },
            "{}",
            game_text(&game, Variant::Russian)
        );
        assert!(white_moves <= 13, "{white_moves} moves: {}", game_text(&game, Variant::Russian));
    }
    // A king against a king: neither side can win; the rule of 5 moves
    // (of the side that would win) ends it after five moves each.
    let game = play(&tb, &rules, "W:WKc1:BKh8");
    assert_eq!(
        game.ending,
        Ending::DrawnByRule { rule: "small-endings".into() },
        "{}",
        game_text(&game, Variant::Russian)
    );
    assert_eq!(game.moves.len(), 10, "{}", game_text(&game, Variant::Russian));

    // Bad input is an error, never a game: counters no game reaches, and
    // a position beyond the tables (the error comes when the game gets
    // there, here at once).
    let pos = fen::parse("W:WKa1,Kc1,Ke1:BKf8", Variant::Russian).expect("FEN");
    let impossible = Counters { quiet: 2, kings_only: 3 };
    assert!(matches!(tb.play_out(&pos, &rules, impossible), Err(ProbeError::ImpossibleCounters { .. })));
    let six = fen::parse("W:Wa1,c1,e1:Bf8,h8,b8", Variant::Russian).expect("FEN");
    assert!(matches!(tb.play_out(&six, &rules, Counters::default()), Err(ProbeError::TooManyPieces { .. })));

    // The command line plays the same game and says so.
    let d = dir.path().to_str().expect("UTF-8 path");
    let text = damka(&["play", "W:WKa1,Kc1,Ke1:BKf8", "--dir", d]);
    let game = play(&tb, &rules, "W:WKa1,Kc1,Ke1:BKf8");
    assert!(
        text.contains(&format!("result: White wins after {} plies: Black has no piece left", game.moves.len())),
        "{text}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&damka(&["play", "W:WKa1,Kc1,Ke1:BKf8", "--dir", d, "--json"])).expect("JSON");
    let moves = report["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), game.moves.len());
    for (shown, played) in moves.iter().zip(&game.moves) {
        assert_eq!(shown["move"], notation::write(&played.mv, Variant::Russian));
        assert_eq!(
            (shown["quiet"].as_u64(), shown["kings_only"].as_u64()),
            (Some(played.counters.quiet.into()), Some(played.counters.kings_only.into()))
        );
    }
    assert_eq!(report["result"]["wdl"], "win", "{report}");
    assert_eq!(report["result"]["reason"], "no-pieces", "{report}");
    let drawn: serde_json::Value =
        serde_json::from_str(&damka(&["play", "W:WKc1:BKh8", "--dir", d, "--json"])).expect("JSON");
    assert_eq!(drawn["result"]["rule"], "small-endings", "{drawn}");
}

#[test]
fn brazilian_play_outs_end_as_the_tables_say() {
    check_variant(Variant::Brazilian, "brazilian", 0x5eed_0002);
}

#[test]
fn pool_play_outs_end_as_the_tables_say() {
    check_variant(Variant::Pool, "none", 0x5eed_0003);
}

#[test]
fn english_play_outs_end_as_the_tables_say() {
    check_variant(Variant::English, "english", 0x5eed_0004);
}

#[test]
fn italian_play_outs_end_as_the_tables_say() {
    check_variant(Variant::Italian, "none", 0x5eed_0005);
}
