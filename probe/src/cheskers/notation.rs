//! Cheskers FEN and move text.
//!
//! FEN is the draughts family's with two more piece letters: `K` king,
//! `B` bishop, `C` camel, a plain square a man, e.g.
//! `B:WKc1,Ba1,Cg1,b2:BKd8,Bh8,Cb8,a7`. Squares are written by name and
//! read by name or PDN number. Moves are `c3-d4`, jumps `c3xe5xg7`, a
//! bishop's or camel's capture by replacement `a1xd4`, and a man reaching
//! the last row names what it becomes: `b2-a1=C`.

use crate::board::Square;
use crate::fen::{self, excerpt, FenError};
use crate::notation::{read_squares, select, MoveTextError};
use crate::variant::Numbering;

use super::position::{CheskersError, Kind, Piece, Position, Setup};
use super::rules::Rules;
use super::{legal_moves, Move};

/// What is wrong with a Cheskers FEN.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheskersFenError {
    #[error(transparent)]
    Fen(#[from] FenError),
    #[error(transparent)]
    Position(#[from] CheskersError),
}

/// Parses a Cheskers FEN.
pub fn parse_fen(text: &str) -> Result<Position, CheskersFenError> {
    let mut setup = Setup::default();
    let turn = fen::parse_pieces(
        text,
        Numbering::Pdn,
        |letter| {
            Kind::from_letter(letter)
                .ok_or_else(|| "Cheskers pieces are K (king), B (bishop), C (camel) and a plain square (man)".to_string())
        },
        |color, kind, sq| setup.put(Piece { color, kind }, sq),
    )?;
    setup.turn = Some(turn);
    Ok(Position::from_setup(&setup)?)
}

/// Writes a position as FEN with square names: kings, bishops, camels,
/// then men, each kind from the a-file on (the form of [`super::START_FEN`]).
pub fn write_fen(pos: &Position) -> String {
    const ORDER: [(Kind, &str); 4] = [(Kind::King, "K"), (Kind::Bishop, "B"), (Kind::Camel, "C"), (Kind::Man, "")];
    fen::write_pieces(
        pos.turn(),
        |color| ORDER.into_iter().map(|(kind, letter)| (letter, pos.of(color, kind))).collect(),
        |group, sq: Square| ((group, sq.file(), sq.rank()), sq.name()),
    )
}

/// Writes a move: `c3-d4`, `c3xe5xg7`, `a1xd4`, `b2-a1=C`.
pub fn write_move(m: &Move) -> String {
    let sep = if m.is_capture() { "x" } else { "-" };
    let mut text = m.squares().into_iter().map(Square::name).collect::<Vec<_>>().join(sep);
    if let Some(letter) = m.promotion().and_then(Kind::letter) {
        text.push('=');
        text.push(letter);
    }
    text
}

/// Finds the legal move that `text` names (squares by name or number,
/// separated by `-`, `:` or `x`, a jump's start and end enough when
/// unambiguous; `=K`, `=B` or `=C` when a man reaches the last row).
pub fn parse_move(text: &str, pos: &Position, rules: Rules) -> Result<Move, MoveTextError> {
    let trimmed = text.trim();
    let bad = |why| MoveTextError::BadPromotion { text: excerpt(trimmed), why };
    let (squares, promotion) = match trimmed.split_once('=') {
        None => (trimmed, None),
        Some((squares, kind)) => {
            let mut letters = kind.trim().chars().map(|c| c.to_ascii_uppercase());
            match (letters.next(), letters.next()) {
                (Some(c @ ('K' | 'B' | 'C')), None) => (squares, Kind::from_letter(Some(c))),
                _ => return Err(bad("a man becomes K (king), B (bishop) or C (camel): write =K, =B or =C")),
            }
        }
    };
    let squares = read_squares(squares.trim(), Numbering::Pdn)?;
    let all = legal_moves(pos, rules);
    let moves: Vec<Move> = all.iter().filter(|m| m.promotion() == promotion).copied().collect();
    match select(trimmed, &squares, &moves, |m| &m.step) {
        // Without its promotion, a promoting move is not "illegal": say what is missing.
        Err(MoveTextError::Illegal(_))
            if !matches!(select(trimmed, &squares, &all, |m| &m.step), Err(MoveTextError::Illegal(_))) =>
        {
            Err(bad("the man reaches the last row: say what it becomes, =K, =B or =C"))
        }
        other => other.copied(),
    }
}
