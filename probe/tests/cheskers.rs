//! Cheskers: the move generator against a naive one written apart
//! (tests/cheskers_naive), facts worked out by hand, FEN and move text.

mod cheskers_naive;

use std::collections::BTreeSet;

use cheskers_naive::{Board, Reading};
use damka::cheskers::{self, CheskersError, CheskersFenError, Kind, Position, Preference, Rules, START_FEN};
use damka::fen::{self, FenError};
use damka::movegen::Routes;
use damka::notation::MoveTextError;
use damka::{Color, Square, Variant};

fn reading(rules: Rules) -> Reading {
    let preference = match rules.preference {
        Preference::Free => "free",
        Preference::MultipleOverSingle => "multiple",
        Preference::Most => "most",
    };
    Reading { finish_jumps: rules.finish_jumps, preference }
}

/// The naive generator's board for a position (read square by square).
fn board(pos: &Position) -> Board {
    let mut cells = [[None; 8]; 8];
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            let letter = match p.kind {
                Kind::Man => 'M',
                Kind::King => 'K',
                Kind::Bishop => 'B',
                Kind::Camel => 'C',
            };
            let letter = if p.color == Color::White { letter } else { letter.to_ascii_lowercase() };
            cells[sq.file() as usize][sq.rank() as usize] = Some(letter);
        }
    }
    Board { cells, white_to_move: pos.turn() == Color::White }
}

fn position(fen: &str) -> Position {
    cheskers::parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn moves(fen: &str, rules: Rules) -> BTreeSet<String> {
    cheskers::legal_moves(&position(fen), rules).iter().map(cheskers::write_move).collect()
}

fn set(texts: &[&str]) -> BTreeSet<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

/// The counts of data/cheskers-perft.txt within `depths`, each checked
/// against both generators: damka's and the naive one.
fn check_perft(depths: std::ops::RangeInclusive<u32>) {
    let start = Position::start();
    let naive = Board::from_fen(START_FEN);
    assert_eq!(board(&start), naive);
    let mut checked = BTreeSet::new();
    for line in include_str!("../../data/cheskers-perft.txt").lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let [name, convention, depth, leaves] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            panic!("bad perft line '{line}'");
        };
        let rules: Rules = name.parse().expect("reading");
        let (depth, leaves): (u32, u64) = (depth.parse().expect("depth"), leaves.parse().expect("leaves"));
        if !depths.contains(&depth) {
            continue;
        }
        let (routes, paths) = match convention {
            "paths" => (Routes::Each, true),
            "positions" => (Routes::Merge, false),
            other => panic!("unknown convention '{other}'"),
        };
        assert_eq!(cheskers::perft(&start, rules, depth, routes), leaves, "{line}");
        assert_eq!(naive.perft(reading(rules), depth, paths), leaves, "naive: {line}");
        checked.insert((rules.to_string(), convention, depth));
    }
    assert_eq!(checked.len(), Rules::all().len() * 2 * depths.count(), "a case is missing from data/cheskers-perft.txt");
}

#[test]
fn perft_to_depth_6_by_both_generators() {
    check_perft(1..=6);
}

#[test]
#[ignore = "slow (the naive generator at depths 7 and 8): run by scripts/check-cheskers-perft"]
fn perft_depths_7_and_8_by_both_generators() {
    check_perft(7..=8);
}

/// A small deterministic random source (xorshift), so the games repeat.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Random games to their end, each position's moves compared with the
/// naive generator's (the boards they lead to, every route), and each
/// move's text and each position's FEN read back.
#[test]
fn random_games_agree_move_by_move() {
    let mut dice = Dice(0x9E37_79B9_7F4A_7C15);
    let mut promotions = 0;
    let mut multi_jumps = 0;
    for rules in Rules::all() {
        for _ in 0..60 {
            let mut pos = Position::start();
            for _ply in 0..300 {
                let mut list = Vec::new();
                cheskers::generate(&pos, rules, Routes::Each, &mut list);
                let ours: Vec<(Board, Vec<Square>)> = list.iter().map(|m| (board(&pos.play(m)), m.squares())).collect();
                let mut naive: Vec<(Board, Vec<Square>)> = board(&pos)
                    .moves(reading(rules))
                    .into_iter()
                    .map(|(route, _, b)| {
                        let squares = route.iter().map(|&(f, r)| Square::from_coords(f as u8, r as u8).unwrap()).collect();
                        (b, squares)
                    })
                    .collect();
                let mut sorted = ours.clone();
                sorted.sort();
                naive.sort();
                assert_eq!(sorted, naive, "{rules}: {pos:?}");
                assert_eq!(position(&cheskers::write_fen(&pos)), pos);
                let merged = cheskers::legal_moves(&pos, rules);
                for m in &merged {
                    let text = cheskers::write_move(m);
                    let back = cheskers::parse_move(&text, &pos, rules).unwrap_or_else(|e| panic!("{text}: {e}"));
                    assert_eq!(pos.play(&back), pos.play(m), "{text} in {pos:?}");
                }
                if list.is_empty() {
                    break;
                }
                let m = list[dice.roll(list.len())];
                promotions += m.promotion().is_some() as u32;
                multi_jumps += (m.captured().count() > 1) as u32;
                pos = pos.play(&m);
            }
        }
    }
    // The games must have reached the rules that matter most.
    assert!(promotions > 100 && multi_jumps > 20, "{promotions} promotions, {multi_jumps} multi-jumps");
}

#[test]
fn black_moves_first_from_the_start() {
    let start = Position::start();
    assert_eq!(start.turn(), Color::Black);
    assert_eq!(cheskers::write_fen(&start), START_FEN);
    // Worked out on a board: the men of rank 6 step down (h6 only to g5),
    // the camel b8 leaps to a5 or c5; everything else is blocked.
    let want = set(&["b6-a5", "b6-c5", "d6-c5", "d6-e5", "f6-e5", "f6-g5", "h6-g5", "b8-a5", "b8-c5"]);
    assert_eq!(moves(START_FEN, Rules::default()), want);
}

#[test]
fn a_man_on_the_last_row_becomes_a_king_bishop_or_camel() {
    let before = position("W:WKa1,g7:BKd8");
    let rules = Rules::default();
    assert_eq!(
        moves("W:WKa1,g7:BKd8", rules),
        set(&["a1-b2", "g7-f8=K", "g7-f8=B", "g7-f8=C", "g7-h8=K", "g7-h8=B", "g7-h8=C"])
    );
    let h8 = Square::from_coords(7, 7).unwrap();
    let mut after = BTreeSet::new();
    for text in ["g7-h8=K", "g7-h8=B", "g7-h8=C"] {
        let next = before.play(&cheskers::parse_move(text, &before, rules).unwrap());
        assert_eq!(next.turn(), Color::Black, "{text}: promotion ends the move");
        after.insert(format!("{:?}", next.piece_at(h8).unwrap().kind));
    }
    assert_eq!(after, set(&["Bishop", "Camel", "King"]));
    // Without its choice the move is not understood; with a wrong one either.
    for (text, why) in [("g7-h8", "say what it becomes"), ("g7-h8=Q", "becomes K (king)")] {
        match cheskers::parse_move(text, &before, rules) {
            Err(MoveTextError::BadPromotion { why: got, .. }) => assert!(got.contains(why), "{text}: {got}"),
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn a_bishop_takes_only_along_its_open_diagonals() {
    // White: a king on a1 (a side needs one) and a bishop; Black: a lone
    // king. Every placement: the bishop can take the king exactly when
    // they share a diagonal with nothing in between (by coordinates).
    let rules = Rules::default();
    for bishop in Square::all().filter(|s| s.name() != "a1") {
        for king in Square::all().filter(|s| *s != bishop && s.name() != "a1") {
            let fen = format!("W:WKa1,B{}:BK{}", bishop.name(), king.name());
            let (df, dr) = (king.file() as i8 - bishop.file() as i8, king.rank() as i8 - bishop.rank() as i8);
            let between_a1 = (1..df.abs()).any(|i| {
                let (f, r) = (bishop.file() as i8 + i * df.signum(), bishop.rank() as i8 + i * dr.signum());
                (f, r) == (0, 0)
            });
            let takes = df.abs() == dr.abs() && !between_a1;
            let capture = format!("{}x{}", bishop.name(), king.name());
            assert_eq!(moves(&fen, rules).contains(&capture), takes, "{fen}");
        }
    }
}

#[test]
fn the_camel_leaps_and_takes_by_landing() {
    // A camel on g1 hemmed in by its own men still leaps; it takes the
    // black man on h4 by landing there, and may as well leave it (no man or
    // king can jump, so capturing is optional).
    let got = moves("W:WKc1,Cg1,f2,h2,g3:BKd8,h4", Rules::default());
    for text in ["g1xh4", "g1-f4", "g3-f4", "c1-b2", "c1-d2"] {
        assert!(got.contains(text), "{text} missing from {got:?}");
    }
    assert!(!got.iter().any(|m| m.starts_with("g1-") && (m.ends_with("f2") || m.ends_with("h2"))));
}

#[test]
fn a_jump_forces_a_capture_with_any_piece() {
    // The man on c3 can jump d4; the bishop can take h6 instead; quiet moves
    // are gone. Without the man's jump the bishop's capture is optional.
    let rules = Rules::default();
    assert_eq!(moves("W:WKa1,Be3,c3:BKh8,d4,h6", rules), set(&["c3xe5", "e3xd4", "e3xh6"]));
    let free = moves("W:WKa1,Be3,b2:BKh8,h6", rules);
    assert!(free.contains("e3xh6") && free.contains("b2-c3"), "{free:?}");
}

#[test]
fn the_open_points_each_switch_as_documented() {
    // The man on a3 can take b4 and then d6; the bishop can take h6.
    let fen = "W:WKa1,Be3,a3:BKh8,b4,d6,h6";
    let with = |finish_jumps, preference| moves(fen, Rules { finish_jumps, preference });
    assert_eq!(with(true, Preference::Free), set(&["a3xc5xe7", "e3xh6"]));
    assert_eq!(with(false, Preference::Free), set(&["a3xc5", "a3xc5xe7", "e3xh6"]));
    assert_eq!(with(true, Preference::MultipleOverSingle), set(&["a3xc5xe7"]));
    assert_eq!(with(true, Preference::Most), set(&["a3xc5xe7"]));
    assert_eq!(with(false, Preference::Most), set(&["a3xc5xe7"]));
}

#[test]
fn reaching_the_last_row_ends_a_jump() {
    // The man jumps e7 onto f8 and stops there, though a king on f8 could
    // jump on over g7 to h6: reaching the last row ends a man's move.
    let got = moves("W:WKa1,d6:BKb8,e7,g7", Rules { finish_jumps: true, preference: Preference::Most });
    assert_eq!(got, set(&["d6xf8=B", "d6xf8=C", "d6xf8=K"]));
}

#[test]
fn taking_the_last_king_wins() {
    // King against king: whoever is to move and can jump takes the last king
    // and wins; the other side then has no move.
    let rules = Rules::default();
    let before = position("W:WKc3:BKd4");
    let only = cheskers::legal_moves(&before, rules);
    assert_eq!(only.iter().map(cheskers::write_move).collect::<Vec<_>>(), ["c3xe5"]);
    assert!(cheskers::legal_moves(&before.play(&only[0]), rules).is_empty());
    // A side without kings has lost, whatever else it has.
    assert!(cheskers::legal_moves(&position("B:WKa1:Bb8,Bh8,Cd8"), rules).is_empty());
    // The side that has just moved always has a king.
    assert_eq!(
        cheskers::parse_fen("W:WKa1:Bb8"),
        Err(CheskersFenError::Position(CheskersError::NoKingAfterMoving(Color::Black)))
    );
}

#[test]
fn fen_names_each_kind_and_other_games_refuse_its_letters() {
    let start = Position::start();
    assert_eq!(position(&cheskers::write_fen(&start)), start);
    // Numbers read as PDN squares: 29 = a1, 32 = g1, 1 = b8, 4 = h8.
    let numeric = "B:WK30,K31,B29,C32,21-28:BK2,K3,B4,C1,5-12";
    assert_eq!(position(numeric), start);
    for variant in Variant::ALL {
        match fen::parse(START_FEN, variant) {
            Err(FenError::BadPiece { letter, why, .. }) => {
                assert!(letter == 'B' || letter == 'C', "{variant}: {letter}");
                assert!(why.contains("Cheskers"), "{variant}: {why}");
            }
            other => panic!("{variant}: {other:?}"),
        }
    }
    match cheskers::parse_fen("B:WKc1,Qa1:BKd8") {
        Err(CheskersFenError::Fen(FenError::BadPiece { letter: 'Q', why, .. })) => assert!(why.contains("C (camel)")),
        other => panic!("{other:?}"),
    }
    // A draughts start position has no kings: not a Cheskers position.
    assert!(matches!(
        cheskers::parse_fen("W:W21-32:B1-12"),
        Err(CheskersFenError::Position(CheskersError::NoKingAfterMoving(Color::Black)))
    ));
}

#[test]
fn a_kings_ring_is_one_move_by_two_routes() {
    // The king on c3 jumps round d4, f4, f2 and d2 either way and comes
    // home: two routes, one position.
    let fen = "W:WKc3:BKh8,d2,f2,d4,f4";
    let rules = Rules::default();
    let mut routes = Vec::new();
    cheskers::generate(&position(fen), rules, Routes::Each, &mut routes);
    let texts: BTreeSet<String> = routes.iter().map(cheskers::write_move).collect();
    assert_eq!(texts, set(&["c3xe1xg3xe5xc3", "c3xe5xg3xe1xc3"]));
    assert_eq!(moves(fen, rules).len(), 1);
    let naive = Board::from_fen(fen);
    assert_eq!((naive.perft(reading(rules), 1, true), naive.perft(reading(rules), 1, false)), (2, 1));
}
