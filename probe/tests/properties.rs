//! Properties of the move generator over random legal positions of every
//! game: it agrees with a plain reference generator, counting agrees with
//! generating, turning the board around changes nothing, and FEN and move
//! text read back what was written.

mod common;
mod reference;

use std::collections::BTreeSet;

use common::{moves, shape, Shape};
use damka::movegen::{capture_moves, count_moves, has_capture, is_threatened, Routes};
use damka::{fen, notation, Bitboard, Color, Move, Position, Setup, Square, Variant};
use proptest::prelude::*;

/// A random legal position: each square empty or holding a piece, men on
/// their own last row made kings, at most 12 pieces a side. `sparse`
/// positions look like endgames, the others are crowded with captures.
fn positions() -> impl Strategy<Value = Position> {
    let cells = |empty_weight: u8| prop::collection::vec(0..empty_weight + 4, 32);
    (prop_oneof![cells(4), cells(28)], any::<bool>()).prop_map(|(cells, white_to_move)| {
        let mut setup = Setup {
            turn: Some(if white_to_move { Color::White } else { Color::Black }),
            ..Setup::default()
        };
        let mut counts = [0; 2];
        for (n, &cell) in cells.iter().enumerate() {
            let sq = Square::from_dense(n as u8);
            let (color, king) = match cell {
                0 => (Color::White, false),
                1 => (Color::White, true),
                2 => (Color::Black, false),
                3 => (Color::Black, true),
                _ => continue,
            };
            if counts[color.index()] == 12 {
                continue;
            }
            counts[color.index()] += 1;
            let king = king || sq.rank() == color.promotion_rank();
            let part = match (color, king) {
                (Color::White, false) => &mut setup.white_men,
                (Color::White, true) => &mut setup.white_kings,
                (Color::Black, false) => &mut setup.black_men,
                (Color::Black, true) => &mut setup.black_kings,
            };
            *part = part.with(sq);
        }
        Position::from_setup(&setup).expect("built legal")
    })
}

fn reference_shape(m: &reference::RefMove) -> Shape {
    let squares = std::iter::once(m.from).chain(m.route.iter().copied()).collect();
    let captured = m.captured.iter().fold(Bitboard::EMPTY, |b, &sq| b.with(sq));
    (squares, captured, m.promotes)
}

fn sorted(mut shapes: Vec<Shape>) -> Vec<Shape> {
    shapes.sort();
    shapes
}

/// Checks every property of one position in one game.
fn check(pos: &Position, variant: Variant) -> Result<(), TestCaseError> {
    let each = moves(pos, variant, Routes::Each);
    let merged = moves(pos, variant, Routes::Merge);

    // Against the reference: every route, then one move per outcome.
    let expected = sorted(reference::moves(pos, variant).iter().map(reference_shape).collect());
    prop_assert_eq!(sorted(each.iter().map(|m| shape(m, false)).collect()), expected, "{} {:?}", variant, pos);
    for m in &merged {
        prop_assert!(each.iter().any(|e| e == m), "{} {:?}: merged move {:?} is not a route", variant, pos, m);
    }
    let outcomes: BTreeSet<_> = each.iter().map(|m| (m.from(), m.to(), m.captured(), m.promotes())).collect();
    prop_assert_eq!(merged.len(), outcomes.len(), "{} {:?}", variant, pos);

    prop_assert_eq!(count_moves(pos, variant, Routes::Each), each.len());
    prop_assert_eq!(count_moves(pos, variant, Routes::Merge), merged.len());
    prop_assert_eq!(has_capture(pos, variant), each.first().is_some_and(Move::is_capture));
    let mut captures = each.clone(); // not empty: the call clears it
    let must = capture_moves(pos, variant, Routes::Merge, &mut captures);
    prop_assert_eq!(must, has_capture(pos, variant));
    prop_assert_eq!(&captures, if must { &merged } else { &Vec::new() }, "{} {:?}", variant, pos);
    // A threat is a capture the other side would have, were it its turn.
    let other_turn = Position::from_setup(&Setup { turn: Some(pos.turn().opponent()), ..pos.setup() }).expect("same pieces");
    let threatened = reference::moves(&other_turn, variant).first().is_some_and(|m| !m.captured.is_empty());
    prop_assert_eq!(is_threatened(pos, variant), threatened, "{} {:?}", variant, pos);

    // Turned around, Black's moves are White's moves turned.
    let turned = sorted(moves(&pos.flip(), variant, Routes::Each).iter().map(|m| shape(m, true)).collect());
    prop_assert_eq!(turned, sorted(each.iter().map(|m| shape(m, false)).collect()), "{} {:?} flipped", variant, pos);
    prop_assert_eq!(pos.flip().flip(), *pos);
    for m in &merged {
        let after = pos.play(m).flip();
        let twin = moves(&pos.flip(), variant, Routes::Merge)
            .into_iter()
            .find(|t| {
                (t.from().flip(), t.to().flip(), t.captured().flip(), t.promotes())
                    == (m.from(), m.to(), m.captured(), m.promotes())
            })
            .expect("the turned move");
        prop_assert_eq!(pos.flip().play(&twin), after);
    }

    // Text: FEN and every move read back as written.
    prop_assert_eq!(fen::parse(&fen::write(pos, variant), variant), Ok(*pos));
    for m in &merged {
        let text = notation::write(m, variant);
        prop_assert_eq!(notation::parse(&text, pos, variant), Ok(*m), "{} {:?} {}", variant, pos, text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn generator_properties_hold(start in positions(), picks in prop::collection::vec(any::<prop::sample::Index>(), 0..6)) {
        for variant in Variant::ALL {
            // The position itself, then a few plies of a random game from it.
            let mut pos = start;
            check(&pos, variant)?;
            for pick in &picks {
                let list = moves(&pos, variant, Routes::Merge);
                if list.is_empty() {
                    break;
                }
                pos = pos.play(&list[pick.index(list.len())]);
                check(&pos, variant)?;
            }
        }
    }

    #[test]
    fn fen_never_panics(text in "[WBKwbk0-9a-hx:,. -]{0,40}") {
        for variant in Variant::ALL {
            let _ = fen::parse(&text, variant);
        }
    }

    #[test]
    fn move_text_never_panics(text in "[0-9a-hxX:, -]{0,20}") {
        let pos = Position::start(Color::White);
        for variant in Variant::ALL {
            let _ = notation::parse(&text, &pos, variant);
        }
    }
}

/// A bound on a settled threat's reads only ever takes threats away: one
/// settled within a bound is settled within any larger one and without
/// one; small bounds take some away, large ones few (probe/src/resolve.rs).
#[test]
fn a_bound_on_a_threat_s_reads_only_takes_threats_away() {
    use damka::resolve::{is_settled_threat, Resolution, READS_STEP};
    let index = damka::SliceIndex::new("KMvKMM".parse().expect("a material"));
    let bounds = [Some(READS_STEP), Some(4 * READS_STEP), Some(31 * READS_STEP), None];
    let mut settled = [0u32; 4];
    let mut moves = Vec::new();
    for i in (0..index.size()).step_by(7) {
        let pos = index.position(i);
        let within = bounds.map(|threat_reads| {
            is_settled_threat(&pos, Variant::Russian, Resolution { threat_reads, ..Resolution::FULL }, &mut moves)
        });
        for k in 1..bounds.len() {
            assert!(!within[k - 1] || within[k], "{}: settled within {:?}, not {:?}", fen::write(&pos, Variant::Russian), bounds[k - 1], bounds[k]);
        }
        for (n, s) in settled.iter_mut().zip(within) {
            *n += u32::from(s);
        }
    }
    assert!(0 < settled[0] && settled[0] < settled[1] && settled[1] < settled[2], "{settled:?}");
    assert!(settled[3] - settled[2] < settled[3] / 100, "{settled:?}");
}
