//! PDN FEN: `W:W21,22,K5:B1,2,3`, with numeric squares (`21`, ranges
//! `21-32`) or algebraic ones (`W:Wa1,c3,Kd4:Bh8`).

use std::fmt;

use crate::board::{Bitboard, Color, Square};
use crate::position::{Position, PositionError, Role, Setup};
use crate::variant::{Numbering, Variant};

/// What is wrong with a FEN, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("empty FEN")]
    Empty,
    #[error("side to move '{0}': expected W or B")]
    BadTurn(String),
    #[error("piece list '{0}': expected it to start with W or B")]
    BadSide(String),
    #[error("the {0:?} piece list is given twice")]
    SideTwice(Color),
    #[error("piece '{letter}' in the {side:?} list ('{token}'): {why}")]
    BadPiece { side: Color, token: String, letter: char, why: String },
    #[error("square '{token}' in the {side:?} list: {why}")]
    BadSquare { side: Color, token: String, why: &'static str },
    #[error("too many parts: '{0}' after the two piece lists")]
    TrailingPart(String),
    /// Its own message only: as a source too, chains would say it twice.
    #[error(transparent)]
    Position(#[from] PositionError),
}

/// Input to echo in a message, cut short when long (a FEN pasted by
/// mistake may run to megabytes): the first 60 characters and the length.
pub fn excerpt(text: &str) -> String {
    const KEEP: usize = 60;
    match text.char_indices().nth(KEEP) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}... ({} characters)", &text[..cut], text.chars().count()),
    }
}

/// Parses a square written as a number (in `numbering`) or algebraically.
pub fn parse_square(text: &str, numbering: Numbering) -> Result<Square, &'static str> {
    let bytes = text.as_bytes();
    if bytes.first().is_some_and(u8::is_ascii_digit) {
        let n: u8 = text.parse().map_err(|_| "not a square number")?;
        return square_from_number(n, numbering).ok_or("square numbers run from 1 to 32");
    }
    match bytes {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Square::from_coords(f - b'a', r - b'1')
            .ok_or("a light square: pieces stand only on dark squares"),
        _ => Err("not a square: expected a number 1-32 or a name like c3"),
    }
}

/// A square from its number on the game's board.
pub fn square_from_number(n: u8, numbering: Numbering) -> Option<Square> {
    let sq = Square::from_pdn(n)?;
    Some(match numbering {
        Numbering::Pdn => sq,
        // The Italian board is the mirror image: its square n is the mirror of
        // PDN square n within the same row.
        Numbering::Italian => Square::from_pdn(mirror_in_row(n))?,
    })
}

/// A square's number on the game's board.
pub fn square_number(sq: Square, numbering: Numbering) -> u8 {
    let n = sq.pdn();
    match numbering {
        Numbering::Pdn => n,
        Numbering::Italian => mirror_in_row(n),
    }
}

/// The square number at the same place counted from the other edge of its
/// row (the Italian board is the mirror image of the PDN board).
fn mirror_in_row(n: u8) -> u8 {
    let k = (n - 1) % 4;
    n - k + (3 - k)
}

/// A square as the variant writes it: `c3` (Russian, Brazilian) or `22`.
pub fn square_text(sq: Square, variant: Variant) -> String {
    let rules = variant.rules();
    if rules.algebraic_notation {
        sq.name()
    } else {
        square_number(sq, rules.numbering).to_string()
    }
}

/// Parses a FEN for `variant` (which decides how square numbers read).
pub fn parse(text: &str, variant: Variant) -> Result<Position, FenError> {
    let mut setup = Setup::default();
    let turn = parse_pieces(
        text,
        variant.rules().numbering,
        |letter| match letter {
            None => Ok(Role::Man),
            Some('K') => Ok(Role::King),
            Some(other) => {
                let cheskers = matches!(other, 'B' | 'C')
                    .then_some(" (B and C are Cheskers' bishop and camel: --variant cheskers)")
                    .unwrap_or_default();
                Err(format!("{variant} has men (a plain square) and kings (K) only{cheskers}"))
            }
        },
        |side, role, sq| {
            let target = match (side, role) {
                (Color::White, Role::Man) => &mut setup.white_men,
                (Color::White, Role::King) => &mut setup.white_kings,
                (Color::Black, Role::Man) => &mut setup.black_men,
                (Color::Black, Role::King) => &mut setup.black_kings,
            };
            *target = target.with(sq);
        },
    )?;
    setup.turn = Some(turn);
    Ok(Position::from_setup(&setup)?)
}

/// Reads a FEN's side to move and its two piece lists, the grammar every
/// game shares. Each piece goes to `place` with its side, its kind as
/// `kind` reads the piece letter (None: a plain square, a man; letters
/// are upper-cased) and its square. A square given twice is refused here.
pub(crate) fn parse_pieces<K: Copy>(
    text: &str,
    numbering: Numbering,
    kind: impl Fn(Option<char>) -> Result<K, String>,
    mut place: impl FnMut(Color, K, Square),
) -> Result<Color, FenError> {
    let text = text.trim().trim_end_matches('.');
    let mut parts = text.split(':');
    let turn = match parts.next().map(str::trim) {
        None | Some("") => return Err(FenError::Empty),
        Some("W" | "w") => Color::White,
        Some("B" | "b") => Color::Black,
        Some(other) => return Err(FenError::BadTurn(excerpt(other))),
    };
    let mut given = [false; 2];
    let mut seen = Bitboard::EMPTY;
    for (i, part) in parts.enumerate() {
        let part = part.trim();
        if i >= 2 {
            return Err(FenError::TrailingPart(excerpt(part)));
        }
        let side = match part.chars().next() {
            Some('W' | 'w') => Color::White,
            Some('B' | 'b') => Color::Black,
            _ => return Err(FenError::BadSide(excerpt(part))),
        };
        if std::mem::replace(&mut given[side.index()], true) {
            return Err(FenError::SideTwice(side));
        }
        for token in part[1..].split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let bad = |why| FenError::BadSquare { side, token: excerpt(token), why };
            // An upper-case letter is a piece letter (`k` too: FEN writers
            // differ); lower case a-h begins a square name.
            let (letter, squares) = match token.chars().next() {
                Some(c) if c.is_ascii_uppercase() || c == 'k' => {
                    (Some(c.to_ascii_uppercase()), &token[1..])
                }
                _ => (None, token),
            };
            let kind = kind(letter).map_err(|why| FenError::BadPiece {
                side,
                token: excerpt(token),
                letter: letter.unwrap_or(' '),
                why,
            })?;
            let mut add = |sq: Square| -> Result<(), FenError> {
                if seen.contains(sq) {
                    return Err(bad("the square is used twice"));
                }
                seen = seen.with(sq);
                place(side, kind, sq);
                Ok(())
            };
            match squares.split_once('-') {
                Some((a, b)) => {
                    let a = parse_square(a, numbering).map_err(bad)?;
                    let b = parse_square(b, numbering).map_err(bad)?;
                    let (lo, hi) = (square_number(a, numbering), square_number(b, numbering));
                    if lo > hi {
                        return Err(bad("a range must run upward"));
                    }
                    for n in lo..=hi {
                        add(square_from_number(n, numbering).expect("within 1..=32"))?;
                    }
                }
                None => add(parse_square(squares, numbering).map_err(bad)?)?,
            }
        }
    }
    Ok(turn)
}

/// Writes a position as FEN in the variant's square notation.
pub fn write(pos: &Position, variant: Variant) -> String {
    write_with(pos, |sq| (square_number(sq, variant.rules().numbering), square_text(sq, variant)))
}

/// `square` gives each square's sort key and text.
fn write_with(pos: &Position, square: impl Fn(Square) -> (u8, String)) -> String {
    write_pieces(pos.turn(), |color| vec![("", pos.men(color)), ("K", pos.kings(color))], |_, sq| square(sq))
}

/// Writes FEN from each side's pieces, given as (letter, squares) groups;
/// `square` gives each square's sort key and text from its group's place
/// and the square. Pieces are listed in the order of their keys, each
/// with its letter.
pub(crate) fn write_pieces<K: Ord>(
    turn: Color,
    groups: impl Fn(Color) -> Vec<(&'static str, Bitboard)>,
    square: impl Fn(usize, Square) -> (K, String),
) -> String {
    let mut out = String::from(match turn {
        Color::White => "W",
        Color::Black => "B",
    });
    for (color, letter) in [(Color::White, 'W'), (Color::Black, 'B')] {
        out.push(':');
        out.push(letter);
        let mut items: Vec<(K, String)> = Vec::new();
        for (group, (prefix, pieces)) in groups(color).into_iter().enumerate() {
            for sq in pieces {
                let (key, text) = square(group, sq);
                items.push((key, format!("{prefix}{text}")));
            }
        }
        items.sort();
        out.push_str(&items.into_iter().map(|(_, s)| s).collect::<Vec<_>>().join(","));
    }
    out
}

/// A position shown as numeric PDN FEN (`W:W21,K5:B1`), whatever the game.
pub struct Fen(Position);

impl From<Position> for Fen {
    fn from(pos: Position) -> Fen {
        Fen(pos)
    }
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write_with(&self.0, |sq| (sq.pdn(), sq.pdn().to_string())))
    }
}
