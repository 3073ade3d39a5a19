//! One hand-made position per tricky rule of docs/RULES.md, each with
//! the exact set of legal moves worked out by hand, in every game where the
//! rule makes a difference.
//!
//! Squares in the comments are algebraic (a1 = White's left corner); moves
//! are written in each game's own notation: `c3:e5` in Russian and
//! Brazilian, PDN numbers in Pool and English (`22x15`), Italian numbers in
//! Italian (the mirror board: a1 is 32, h8 is 1).
//!
//! Every position is also checked turned around (`Position::flip`): Black's
//! moves there must be White's moves here, turned.

mod common;

use std::collections::BTreeSet;

use common::shape;
use damka::movegen::{count_moves, Routes};
use damka::{fen, notation, Color, Move, Position, Role, Square, Variant};
use Variant::{Brazilian, English, Italian, Pool, Russian};

fn position(fen: &str, variant: Variant) -> Position {
    fen::parse(fen, variant).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn moves(pos: &Position, variant: Variant, routes: Routes) -> Vec<Move> {
    let list = common::moves(pos, variant, routes);
    assert_eq!(count_moves(pos, variant, routes), list.len(), "count_moves {variant} {pos:?}");
    list
}

fn texts(moves: &[Move], variant: Variant) -> BTreeSet<String> {
    moves.iter().map(|m| notation::write(m, variant)).collect()
}

/// Asserts the legal moves of `fen` in each listed game (identical capture
/// routes merged), and that the flipped position has the flipped moves.
fn expect(fen: &str, cases: &[(Variant, &[&str])]) {
    for &(variant, expected) in cases {
        let pos = position(fen, variant);
        let list = moves(&pos, variant, Routes::Merge);
        let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(texts(&list, variant), expected, "{variant} {fen}");
        assert_eq!(list.len(), expected.len(), "{variant} {fen}: a move is listed twice");

        let here: BTreeSet<_> = list.iter().map(|m| shape(m, true)).collect();
        let there: BTreeSet<_> =
            moves(&pos.flip(), variant, Routes::Merge).iter().map(|m| shape(m, false)).collect();
        assert_eq!(here, there, "{variant} {fen} turned around");
    }
}

fn square(name: &str) -> Square {
    fen::parse_square(name, damka::variant::Numbering::Pdn).expect("square name")
}

/// The role of the piece on `to` after playing the move written `text`.
fn role_after(fen: &str, variant: Variant, text: &str, to: &str) -> Role {
    let pos = position(fen, variant);
    let m = notation::parse(text, &pos, variant).unwrap_or_else(|e| panic!("{e}"));
    let piece = pos.play(&m).piece_at(square(to)).expect("the mover stands there");
    assert_eq!(piece.color, Color::White);
    piece.role
}

#[test]
fn capture_is_compulsory() {
    // c3 must take d4; g3's quiet moves (f4, h4) and c3-b4 are not allowed.
    let fen = "W:Wc3,g3:Bd4";
    expect(
        fen,
        &[
            (Russian, &["c3:e5"]),
            (Brazilian, &["c3:e5"]),
            (Pool, &["22x15"]),
            (English, &["22x15"]),
            (Italian, &["23x14"]),
        ],
    );
}

#[test]
fn a_side_that_cannot_move_has_no_moves() {
    // The man on a1 is blocked by b2, and c3 behind it stops the capture.
    for variant in Variant::ALL {
        expect("W:Wa1:Bb2,c3", &[(variant, &[])]);
    }
}

#[test]
fn choice_among_captures_is_free_majority_or_italian() {
    // a3 takes one man (a3:c5); e3 takes two (e3:g5:e7, over f4 then f6).
    // Russian, Pool and English choose freely; Brazilian and Italian must
    // take the most pieces.
    let fen = "W:Wa3,e3:Bb4,f4,f6";
    expect(
        fen,
        &[
            (Russian, &["a3:c5", "e3:g5:e7"]),
            (Brazilian, &["e3:g5:e7"]),
            (Pool, &["21x14", "23x16x7"]),
            (English, &["21x14", "23x16x7"]),
            (Italian, &["22x13x6"]),
        ],
    );
}

#[test]
fn brazilian_majority_counts_kings_and_men_alike() {
    // The king on b8 can take the king on c7 and land on d6..h2 (nothing
    // follows from any of them); the man on a3 takes two men, b4 and b6.
    let fen = "W:Wa3,Kb8:Bb4,b6,Kc7";
    expect(
        fen,
        &[
            (Russian, &["a3:c5:a7", "b8:d6", "b8:e5", "b8:f4", "b8:g3", "b8:h2"]),
            (Brazilian, &["a3:c5:a7"]),
        ],
    );
}

#[test]
fn italian_prefers_capturing_with_a_king() {
    // Both take one man: the man c3 takes d4, the king h6 takes g7.
    let fen = "W:Wc3,Kh6:Bd4,g7";
    expect(fen, &[(English, &["22x15", "12x3"]), (Italian, &["9x2"])]);
}

#[test]
fn italian_prefers_taking_more_kings_before_meeting_a_king_first() {
    // Kings on a1 and h2 both take three pieces:
    // a1 over b2 (king), b4, b6: a king first, one king in all;
    // h2 over g3, g5 (king), g7 (king): two kings, but not first.
    let fen = "W:WKa1,Kh2:BKb2,b4,b6,g3,Kg5,Kg7";
    expect(fen, &[(English, &["29x22x13x6", "28x19x12x3"]), (Italian, &["25x18x9x2"])]);
}

#[test]
fn italian_prefers_meeting_a_king_first() {
    // Kings on a1 and h6 both take one king and one man: a1 over b2 (king)
    // then d4; h6 over g7 then e7 (king).
    let fen = "W:WKa1,Kh6:BKb2,d4,g7,Ke7";
    expect(fen, &[(English, &["29x22x15", "12x3x10"]), (Italian, &["32x23x14"])]);
}

#[test]
fn italian_men_cannot_capture_kings() {
    // An Italian man next to a king with an empty square behind it just
    // moves on.
    expect("W:Wc3:BKd4", &[(English, &["22x15"]), (Italian, &["23-20"])]);
    // ...and a capture stops before a king: a3 takes b4, then d6 is a king.
    expect("W:Wa3:Bb4,Kd6", &[(English, &["21x14x7"]), (Italian, &["24x15"])]);
}

#[test]
fn flying_kings_move_any_distance_short_kings_one_square() {
    // King d4 with its own man on f6 blocking the long diagonal at e5.
    let fen = "W:WKd4,f6:Bh2";
    let russian: &[&str] = &[
        "d4-e5", "d4-c5", "d4-b6", "d4-a7", "d4-e3", "d4-f2", "d4-g1", "d4-c3", "d4-b2", "d4-a1",
        "f6-e7", "f6-g7",
    ];
    expect(
        fen,
        &[
            (Russian, russian),
            (Brazilian, russian),
            (Pool, &["18-15", "18-14", "18-9", "18-5", "18-23", "18-27", "18-32", "18-22", "18-25", "18-29", "11-7", "11-8"]),
            (English, &["18-15", "18-14", "18-23", "18-22", "11-7", "11-8"]),
            (Italian, &["19-14", "19-15", "19-22", "19-23", "10-6", "10-5"]),
        ],
    );
}

#[test]
fn flying_kings_capture_at_a_distance_short_kings_do_not() {
    // King a1, man d4 three squares away on the long diagonal: a flying
    // king takes it and lands on any square behind it.
    let fen = "W:WKa1:Bd4";
    expect(
        fen,
        &[
            (Russian, &["a1:e5", "a1:f6", "a1:g7", "a1:h8"]),
            (Pool, &["29x15", "29x11", "29x8", "29x4"]),
            (English, &["29-25"]),
            (Italian, &["32-28"]),
        ],
    );
}

#[test]
fn flying_king_lands_where_the_capture_goes_on() {
    // After a1 takes c3 it could land on d4..h8, but only from e5 can it
    // go on (over d6), so it must land there; after d6 both c7 and b8 end
    // the move.
    let fen = "W:WKa1:Bc3,d6";
    let russian: &[&str] = &["a1:e5:c7", "a1:e5:b8"];
    expect(fen, &[(Russian, russian), (Brazilian, russian), (Pool, &["29x15x6", "29x15x1"])]);
}

#[test]
fn men_capture_backward_only_in_russian_brazilian_and_pool() {
    // White man e5, Black man d4 behind it with c3 empty.
    let fen = "W:We5:Bd4";
    expect(
        fen,
        &[
            (Russian, &["e5:c3"]),
            (Brazilian, &["e5:c3"]),
            (Pool, &["15x22"]),
            (English, &["15-10", "15-11"]),
            (Italian, &["14-11", "14-10"]),
        ],
    );
}

#[test]
fn turkish_strike_captured_pieces_block() {
    // King a1 takes c3 and must land on d4 or e5 (from both it goes on).
    // From d4 it takes f2 and ends on g1. From e5 it takes f4, lands on g3
    // (h2 would end it), takes f2 and lands on e1. There c3, already taken
    // but still on the board, stands between it and b4: the move ends.
    // Were taken pieces lifted at once it would go on over b4 to a5.
    let fen = "W:WKa1:Bb4,c3,f2,f4";
    expect(
        fen,
        &[
            (Russian, &["a1:d4:g1", "a1:e5:g3:e1"]),
            (Brazilian, &["a1:e5:g3:e1"]),
            (Pool, &["29x18x32", "29x15x24x31"]),
        ],
    );
}

#[test]
fn a_piece_is_jumped_once_and_identical_routes_merge() {
    // The man c3 takes the four men around e3 and comes back to c3, one way
    // round or the other. Back on c3 it may not jump d4 or d2 again. Both
    // routes start and end on c3 and take the same four men: one move, or
    // two when routes are counted.
    let fen = "W:Wc3:Bd2,d4,f2,f4";
    let routes = ["c3:e5:g3:e1:c3", "c3:e1:g3:e5:c3"];
    let pos = position(fen, Russian);
    let each = moves(&pos, Russian, Routes::Each);
    assert_eq!(texts(&each, Russian), routes.iter().map(|s| s.to_string()).collect());
    let merged = moves(&pos, Russian, Routes::Merge);
    assert_eq!(merged.len(), 1);
    assert!(routes.contains(&notation::write(&merged[0], Russian).as_str()));
    assert!(merged[0].same_outcome(&each[0]) && merged[0].same_outcome(&each[1]));
    assert_eq!(merged[0].captured().count(), 4);
    assert_eq!(pos.play(&merged[0]).pieces(Color::Black).count(), 0);

    // Men that capture only forward take d4 and stop on e5.
    expect(fen, &[(English, &["22x15"]), (Italian, &["23x14"])]);
}

#[test]
fn promotion_in_the_middle_of_a_capture() {
    // b6 takes c7 and reaches d8. A Russian man is crowned there and goes on
    // as a flying king over e7 to f6, g5 or h4. A Brazilian or Pool man goes
    // on as a man (over e7 to f6) and is not crowned, since it ends on f6.
    // An English or Italian man is crowned and the move ends.
    let fen = "W:Wb6:Bc7,e7";
    expect(
        fen,
        &[
            (Russian, &["b6:d8:f6", "b6:d8:g5", "b6:d8:h4"]),
            (Brazilian, &["b6:d8:f6"]),
            (Pool, &["9x2x11"]),
            (English, &["9x2"]),
            (Italian, &["12x3"]),
        ],
    );
    assert_eq!(role_after(fen, Russian, "b6:d8:f6", "f6"), Role::King);
    assert_eq!(role_after(fen, Russian, "b6:d8:h4", "h4"), Role::King);
    assert_eq!(role_after(fen, Brazilian, "b6:d8:f6", "f6"), Role::Man);
    assert_eq!(role_after(fen, Pool, "9x2x11", "f6"), Role::Man);
    assert_eq!(role_after(fen, English, "9x2", "d8"), Role::King);
    assert_eq!(role_after(fen, Italian, "12x3", "d8"), Role::King);

    // With nothing to take after c7, every game crowns the man on d8.
    let fen = "W:Wb6:Bc7";
    expect(fen, &[(Russian, &["b6:d8"]), (Brazilian, &["b6:d8"]), (Pool, &["9x2"])]);
    assert_eq!(role_after(fen, Brazilian, "b6:d8", "d8"), Role::King);
    assert_eq!(role_after(fen, Pool, "9x2", "d8"), Role::King);
}

#[test]
fn a_quiet_move_to_the_last_row_crowns_and_ends() {
    let fen = "W:Wc7:Bh2";
    expect(fen, &[(Russian, &["c7-b8", "c7-d8"])]);
    assert_eq!(role_after(fen, Russian, "c7-d8", "d8"), Role::King);
    assert_eq!(role_after(fen, Russian, "c7-b8", "b8"), Role::King);
}
