//! FEN and move text: round trips in every game's notation, and every kind
//! of bad input turned into an error that names it.

use damka::fen::{self, FenError};
use damka::movegen::legal_moves;
use damka::notation::{self, MoveTextError};
use damka::{Color, Position, PositionError, Setup, Square, Variant};
use Variant::{Brazilian, English, Italian, Pool, Russian};

fn sq(name: &str) -> Square {
    fen::parse_square(name, damka::variant::Numbering::Pdn).expect("square name")
}

#[test]
fn fen_round_trips_in_each_game_notation() {
    // The writer's own form: pieces sorted by square number, kings marked.
    let cases = [
        (Russian, "W:WKd4,c3,a1:Bb8,Kh8"),
        (Brazilian, "B:Wg1:Bd8,Ka5,e3"),
        (Pool, "B:W18,22,K29:B1,K4,12"),
        (English, "W:WK5,21,32:B9,10,K28"),
        (Italian, "W:W21,K22,30:BK1,4,12"),
    ];
    for (variant, text) in cases {
        let pos = fen::parse(text, variant).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(fen::write(&pos, variant), text, "{variant}");
    }
}

#[test]
fn fen_reads_numbers_names_and_ranges_alike() {
    let by_names = fen::parse("W:Wa1,c3,Kd4:Bb8,Kh8", Russian).unwrap();
    assert_eq!(fen::parse("W:W29,22,K18:B1,K4", Russian).unwrap(), by_names);
    assert_eq!(fen::parse(" w : wK18, 22 ,29 : b1,k4. ", Russian).unwrap(), by_names);
    let start = Position::start(Color::White);
    for variant in Variant::ALL {
        assert_eq!(fen::parse("W:W21-32:B1-12", variant).unwrap(), start, "{variant}");
    }
    // The numeric form of Display is PDN whatever the game.
    assert_eq!(damka::fen::Fen::from(by_names).to_string(), "W:WK18,22,29:B1,K4");
}

#[test]
fn italian_numbers_follow_the_mirrored_board() {
    // docs/RULES.md: the Italian board is the mirror image, so its square 1 is
    // damka's h8 and 32 is a1 (the dark corners at each player's right).
    let pos = fen::parse("W:WK32:B1", Italian).unwrap();
    assert!(pos.kings(Color::White).contains(sq("a1")));
    assert!(pos.men(Color::Black).contains(sq("h8")));
    assert_eq!(fen::write(&pos, Italian), "W:WK32:B1");
    assert_eq!(fen::write(&pos, English), "W:WK29:B4");
}

#[test]
fn fen_errors_name_what_is_wrong() {
    let bad_square = |text: &str, why_part: &str| match fen::parse(text, Russian) {
        Err(FenError::BadSquare { why, .. }) => assert!(why.contains(why_part), "{text}: {why}"),
        other => panic!("{text}: expected a bad square, got {other:?}"),
    };
    bad_square("W:W33:B1", "1 to 32");
    bad_square("W:W0:B1", "1 to 32");
    bad_square("W:Wz9:B1", "not a square");
    bad_square("W:W2x:B1", "not a square number");
    bad_square("W:Wa2:B1", "light square");
    bad_square("W:W21,21:B1", "used twice");
    bad_square("W:W21:B21", "used twice");
    bad_square("W:W32-21:B1", "upward");

    assert_eq!(
        fen::parse("W:Wb8:B5", Russian),
        Err(FenError::Position(PositionError::ManOnPromotionRow(Color::White, sq("b8"))))
    );
    assert_eq!(
        fen::parse("W:W21:Ba1", Russian),
        Err(FenError::Position(PositionError::ManOnPromotionRow(Color::Black, sq("a1"))))
    );
    assert_eq!(
        fen::parse("W:W5-17:B1", Russian),
        Err(FenError::Position(PositionError::TooManyPieces(Color::White, 13)))
    );
    assert_eq!(fen::parse("W:X21:B1", Russian), Err(FenError::BadSide("X21".into())));
    assert_eq!(fen::parse("W::B1", Russian), Err(FenError::BadSide("".into())));
    assert_eq!(fen::parse("X:W21:B1", Russian), Err(FenError::BadTurn("X".into())));
    assert_eq!(fen::parse("", Russian), Err(FenError::Empty));
    assert_eq!(fen::parse("W:W21:W22", Russian), Err(FenError::SideTwice(Color::White)));
    assert_eq!(fen::parse("W:W21:B1:B2", Russian), Err(FenError::TrailingPart("B2".into())));

    // The position's own words, said once: not also as the error's source,
    // which error chains would print after it.
    let err = fen::parse("W:Wb8:B5", Russian).unwrap_err();
    assert!(std::error::Error::source(&err).is_none(), "{err}");
    // Echoed input is cut short.
    let long = format!("W:X{}", "1".repeat(10_000));
    match fen::parse(&long, Russian) {
        Err(FenError::BadSide(part)) => {
            assert!(part.starts_with("X111") && part.ends_with("... (10001 characters)") && part.len() < 100, "{part}")
        }
        other => panic!("expected a bad piece list, got {other:?}"),
    }
}

#[test]
fn setup_errors_name_what_is_wrong() {
    let a1 = sq("a1");
    let twice = Setup { white_men: a1.bb(), black_kings: a1.bb(), turn: Some(Color::White), ..Setup::default() };
    assert_eq!(Position::from_setup(&twice), Err(PositionError::SquareUsedTwice(a1)));
    let no_turn = Setup { white_men: a1.bb(), ..Setup::default() };
    assert_eq!(Position::from_setup(&no_turn), Err(PositionError::NoSideToMove));
}

/// Every position of the first plies of each game, with its variant.
fn early_positions(variant: Variant, depth: u32) -> Vec<Position> {
    let mut all = vec![Position::start(variant.rules().first_to_move)];
    let mut frontier = all.clone();
    for _ in 0..depth {
        frontier = frontier.iter().flat_map(|p| legal_moves(p, variant).into_iter().map(|m| p.play(&m))).collect();
        all.extend(&frontier);
    }
    all
}

#[test]
fn move_text_round_trips() {
    let mut checked = 0;
    for variant in Variant::ALL {
        let mut positions = early_positions(variant, 4);
        // Positions with long captures, kings and promotions.
        for text in ["W:WKa1:Bb4,c3,f2,f4", "W:Wc3:Bd2,d4,f2,f4", "W:Wb6:Bc7,e7", "W:WKa1,Kh2:BKb2,b4,b6,g3,Kg5,Kg7"] {
            positions.push(fen::parse(text, variant).unwrap());
        }
        for pos in &positions {
            for m in legal_moves(pos, variant) {
                let text = notation::write(&m, variant);
                assert_eq!(notation::parse(&text, pos, variant), Ok(m), "{variant} {pos:?} {text}");
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} moves checked");
}

#[test]
fn a_capture_may_be_written_by_its_ends() {
    let pos = fen::parse("W:WKa1:Bc3,d6", Russian).unwrap();
    let full = notation::parse("a1:e5:c7", &pos, Russian).unwrap();
    assert_eq!(notation::parse("a1:c7", &pos, Russian), Ok(full));
    assert_eq!(notation::parse("a1xc7", &pos, Russian), Ok(full));
}

#[test]
fn move_text_errors_name_what_is_wrong() {
    let pos = fen::parse("W:Wc3,g3:Bd4", Russian).unwrap();
    assert!(matches!(notation::parse("c3-z9", &pos, Russian), Err(MoveTextError::BadSquare { .. })));
    assert!(matches!(notation::parse("c3", &pos, Russian), Err(MoveTextError::TooShort(_))));
    // Quiet moves are illegal while a capture is possible.
    assert_eq!(notation::parse("g3-f4", &pos, Russian), Err(MoveTextError::Illegal("g3-f4".into())));
    assert_eq!(notation::parse("c3:e5:g7", &pos, Russian), Err(MoveTextError::Illegal("c3:e5:g7".into())));
}
