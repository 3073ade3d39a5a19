//! Results from the endgame literature and hand-checked positions, against
//! the main solver (Russian rules, pure values).

use std::sync::{Arc, OnceLock};

use damka::movegen::has_capture;
use damka::{fen, Color, Material, Position, Value, Variant, Wdl};
use damka_generator::solver::{solve_pair, Known, Metric, Options};

/// Lone kings, then two and three kings against one (solved once per
/// metric for all tests).
fn kings_against_a_king(metric: Metric) -> &'static Known {
    static CONVERSION: OnceLock<Known> = OnceLock::new();
    static END: OnceLock<Known> = OnceLock::new();
    let cell = match metric {
        Metric::Conversion => &CONVERSION,
        Metric::End => &END,
    };
    cell.get_or_init(|| solve_kings(metric))
}

/// Each pair after the ones its captures reach.
fn solve_kings(metric: Metric) -> Known {
    let opts = Options { variant: Variant::Russian, metric, rules: None };
    let mut known = Known::new();
    for text in ["KvK", "KKvK", "KKKvK"] {
        for solved in solve_pair(text.parse().expect("material"), &opts, &known, &|_| {}) {
            known.insert(solved.index.material(), Arc::new(solved));
        }
    }
    known
}

fn value(known: &Known, text: &str) -> Value {
    let pos = fen::parse(text, Variant::Russian).expect("test FEN");
    let pos = if pos.turn() == Color::Black { pos.flip() } else { pos };
    known[&Material::of(&pos)].value(&pos)
}

/// Every position of a slice (White to move) with its value.
fn slice(known: &Known, material: &str) -> Vec<(Position, Value)> {
    let solved = &known[&material.parse::<Material>().expect("material")];
    (0..solved.index.size())
        .map(|i| (solved.index.position(i), Value::unpack(solved.values[i as usize]).expect("valid value")))
        .collect()
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    wins: usize,
    draws: usize,
    losses: usize,
}

impl Counts {
    fn of<'a>(values: impl IntoIterator<Item = &'a (Position, Value)>) -> Counts {
        let mut c = Counts::default();
        for (_, v) in values {
            match v.wdl {
                Wdl::Win => c.wins += 1,
                Wdl::Draw => c.draws += 1,
                Wdl::Loss => c.losses += 1,
                other => panic!("pure tables hold no {other}"),
            }
        }
        c
    }

    fn total(&self) -> usize {
        self.wins + self.draws + self.losses
    }
}

/// The main road: a1 b2 c3 d4 e5 f6 g7 h8.
fn on_main_road(pos: &Position, side: Color) -> Vec<bool> {
    pos.pieces(side).into_iter().map(|sq| sq.file() == sq.rank()).collect()
}

/// The lone (Black) king stands on the main road and no White king does.
fn holds_main_road(pos: &Position) -> bool {
    on_main_road(pos, Color::Black) == [true] && !on_main_road(pos, Color::White).contains(&true)
}

#[test]
fn a_king_against_a_king_is_mostly_a_draw() {
    let known = kings_against_a_king(Metric::Conversion);
    let kvk = slice(known, "KvK");
    let counts = Counts::of(&kvk);
    assert_eq!(counts, Counts { wins: 194, draws: 796, losses: 2 });
    assert!(counts.draws * 10 > counts.total() * 8, "{counts:?}");
    // The only losses: the side to move stands in a corner of the main road,
    // the other king in the opposite corner; every move along the road is
    // taken.
    let mut lost: Vec<String> =
        kvk.iter().filter(|(_, v)| v.wdl == Wdl::Loss).map(|(p, _)| fen::write(p, Variant::Russian)).collect();
    lost.sort();
    assert_eq!(lost, ["W:WKa1:BKh8", "W:WKh8:BKa1"]);
    // A win in one ply takes the other king.
    for (pos, v) in &kvk {
        if v.wdl == Wdl::Win && v.plies.0 == 1 {
            assert!(has_capture(pos, Variant::Russian), "{}", fen::write(pos, Variant::Russian));
        }
    }
}

#[test]
fn three_kings_beat_a_king_off_the_main_road() {
    let known = kings_against_a_king(Metric::Conversion);
    let kkkvk = slice(known, "KKKvK");
    let off: Vec<_> = kkkvk.iter().filter(|(p, _)| on_main_road(p, Color::Black) == [false]).copied().collect();
    let counts = Counts::of(&off);
    assert_eq!(counts, Counts { wins: 106_984, draws: 896, losses: 0 });
    assert!(counts.wins * 100 > counts.total() * 99, "{counts:?}");
}

#[test]
fn a_king_holding_the_main_road_draws_against_three_kings() {
    let known = kings_against_a_king(Metric::End);
    let kkkvk = slice(known, "KKKvK");
    let holding: Vec<_> = kkkvk.iter().filter(|(p, _)| holds_main_road(p)).copied().collect();
    let counts = Counts::of(&holding);
    assert_eq!(counts, Counts { wins: 5488, draws: 10_704, losses: 0 });
    assert!(counts.draws * 100 > counts.total() * 60, "{counts:?}");
    // Most of those wins take the king at once; without a capture on the
    // board, nearly all are draws, and the stronger side wins by its 5th
    // move or not at all (hence the 5-move rule for this ending).
    let quiet = Counts::of(holding.iter().filter(|(p, _)| !has_capture(p, Variant::Russian)));
    assert_eq!(quiet, Counts { wins: 468, draws: 10_704, losses: 0 });
    let longest = holding.iter().filter(|(_, v)| v.wdl == Wdl::Win).map(|(_, v)| v.plies).max().unwrap();
    assert_eq!(longest.0, 9);
    assert_eq!(longest.moves(), 5);
}

#[test]
fn the_longest_three_kings_win_takes_thirteen_moves() {
    let known = kings_against_a_king(Metric::End);
    let kkkvk = slice(known, "KKKvK");
    let longest = kkkvk.iter().filter(|(_, v)| v.wdl == Wdl::Win).map(|(_, v)| v.plies).max().unwrap();
    // Petrov's triangle: within the 15 moves Russian rule 7.2.4 allows.
    assert_eq!(longest.0, 25);
    assert_eq!(longest.moves(), 13);
    assert_eq!(value(known, "W:WKa3,Kd2,Kc1:BKe1"), Value::new(Wdl::Win, 25));
}

#[test]
fn hand_checked_positions() {
    for metric in [Metric::Conversion, Metric::End] {
        let known = kings_against_a_king(metric);
        // a1 takes d4, the last Black piece.
        assert_eq!(value(known, "W:WKa1:BKd4"), Value::new(Wdl::Win, 1));
        // a1 has one diagonal: b2 is taken and c3 behind it too; no move.
        assert_eq!(value(known, "W:WKa1:BKb2,Kc3"), Value::new(Wdl::Loss, 0));
        // Black on a1 may only go along the main road, where h8 takes it.
        assert_eq!(value(known, "B:WKh8:BKa1"), Value::new(Wdl::Loss, 2));
        // ... so White goes to h8 first.
        assert_eq!(value(known, "W:WKc3:BKa1"), Value::new(Wdl::Win, 3));
        // Far apart, nothing to force.
        assert_eq!(value(known, "W:WKc1:BKh6"), Value::DRAW);
    }
}
