//! Move text in each game's notation: `c3-d4`, `c3:e5:g7` (Russian,
//! Brazilian), `9-14`, `11x18x25` (numeric games).

use crate::board::Square;
use crate::fen::{parse_square, square_text};
use crate::movegen::legal_moves;
use crate::moves::Move;
use crate::position::Position;
use crate::variant::{Numbering, Variant};

/// Why move text does not name a legal move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    #[error("move '{text}': square '{token}': {why}")]
    BadSquare { text: String, token: String, why: &'static str },
    #[error("move '{0}': expected at least two squares, like c3-d4 or 9-14")]
    TooShort(String),
    #[error("move '{0}' is not legal here")]
    Illegal(String),
    #[error("move '{0}' is ambiguous: give every landing square")]
    Ambiguous(String),
    #[error("move '{text}': {why}")]
    BadPromotion { text: String, why: &'static str },
}

/// Writes a move in the variant's notation, every landing square included.
pub fn write(m: &Move, variant: Variant) -> String {
    let sep = match (m.is_capture(), variant.rules().algebraic_notation) {
        (false, _) => "-",
        (true, true) => ":",
        (true, false) => "x",
    };
    let squares: Vec<String> = m.squares().into_iter().map(|s| square_text(s, variant)).collect();
    squares.join(sep)
}

/// Finds the legal move that `text` names. Squares may be separated by `-`,
/// `:` or `x`; a capture may be written by its start and end alone when
/// that is unambiguous.
pub fn parse(text: &str, pos: &Position, variant: Variant) -> Result<Move, MoveTextError> {
    let trimmed = text.trim();
    let squares = read_squares(trimmed, variant.rules().numbering)?;
    select(trimmed, &squares, &legal_moves(pos, variant), |m| m).copied()
}

/// The squares of move text, separated by `-`, `:` or `x`.
pub(crate) fn read_squares(text: &str, numbering: Numbering) -> Result<Vec<Square>, MoveTextError> {
    let squares = text
        .split(['-', ':', 'x', 'X'])
        .map(|token| {
            parse_square(token.trim(), numbering).map_err(|why| MoveTextError::BadSquare {
                text: text.to_string(),
                token: token.to_string(),
                why,
            })
        })
        .collect::<Result<Vec<Square>, _>>()?;
    if squares.len() < 2 {
        return Err(MoveTextError::TooShort(text.to_string()));
    }
    Ok(squares)
}

/// The one move among `moves` (each seen through `step`) written with
/// `squares`, or by its start and end alone; routes to the same outcome
/// count as one.
pub(crate) fn select<'m, M>(
    text: &str,
    squares: &[Square],
    moves: &'m [M],
    step: impl Fn(&M) -> &Move,
) -> Result<&'m M, MoveTextError> {
    let exact: Vec<&M> = moves.iter().filter(|m| step(m).squares() == squares).collect();
    let candidates: Vec<&M> = if exact.is_empty() && squares.len() == 2 {
        moves.iter().filter(|m| step(m).from() == squares[0] && step(m).to() == squares[1]).collect()
    } else {
        exact
    };
    match candidates.as_slice() {
        [] => Err(MoveTextError::Illegal(text.to_string())),
        [m] => Ok(m),
        [first, rest @ ..] if rest.iter().all(|m| step(m).same_outcome(step(first))) => Ok(first),
        _ => Err(MoveTextError::Ambiguous(text.to_string())),
    }
}
