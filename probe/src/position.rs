//! Positions: a free arrangement (`Setup`) and a legal one (`Position`).

use std::fmt;

use crate::board::{Bitboard, Color, Square};
use crate::moves::Move;

/// The most pieces one side can have.
pub const MAX_PIECES_PER_SIDE: u32 = 12;

/// A kind of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Man,
    King,
}

/// A piece of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

/// Any arrangement of pieces and a side to move, legal or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Setup {
    pub white_men: Bitboard,
    pub white_kings: Bitboard,
    pub black_men: Bitboard,
    pub black_kings: Bitboard,
    pub turn: Option<Color>,
}

/// Why a setup is not a position. Each names the offending square or side.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("square {0} holds two pieces")]
    SquareUsedTwice(Square),
    #[error("a {0:?} man stands on {1}, its own promotion row")]
    ManOnPromotionRow(Color, Square),
    #[error("{0:?} has {1} pieces; at most 12 are possible")]
    TooManyPieces(Color, u32),
    #[error("no side to move given")]
    NoSideToMove,
}

/// A legal arrangement: pieces on distinct dark squares, no man on its own
/// promotion row, at most 12 pieces a side, and a side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    white: Bitboard,
    black: Bitboard,
    kings: Bitboard,
    turn: Color,
}

impl Position {
    /// The start position of every game in the family, `turn` to move.
    pub fn start(turn: Color) -> Position {
        let white = Bitboard::rank(0) | Bitboard::rank(1) | Bitboard::rank(2);
        Position { white, black: white.flip(), kings: Bitboard::EMPTY, turn }
    }

    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        check_arrangement(&[
            (Color::White, true, setup.white_men),
            (Color::White, false, setup.white_kings),
            (Color::Black, true, setup.black_men),
            (Color::Black, false, setup.black_kings),
        ])?;
        let turn = setup.turn.ok_or(PositionError::NoSideToMove)?;
        let white = setup.white_men | setup.white_kings;
        let black = setup.black_men | setup.black_kings;
        Ok(Position { white, black, kings: setup.white_kings | setup.black_kings, turn })
    }

    /// Builds a position from parts already known to be legal (the indexer's
    /// unranking). Checked in debug builds.
    pub(crate) fn from_parts_unchecked(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        turn: Color,
    ) -> Position {
        let pos = Position { white, black, kings, turn };
        debug_assert!(Position::from_setup(&pos.setup()).is_ok(), "{pos:?}");
        pos
    }

    pub fn setup(&self) -> Setup {
        Setup {
            white_men: self.white & !self.kings,
            white_kings: self.white & self.kings,
            black_men: self.black & !self.kings,
            black_kings: self.black & self.kings,
            turn: Some(self.turn),
        }
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    #[inline]
    pub fn pieces(&self, color: Color) -> Bitboard {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    #[inline]
    pub fn men(&self, color: Color) -> Bitboard {
        Bitboard(self.pieces(color).0 & !self.kings.0)
    }

    #[inline]
    pub fn kings(&self, color: Color) -> Bitboard {
        self.pieces(color) & self.kings
    }

    /// All kings of both sides.
    #[inline]
    pub fn all_kings(&self) -> Bitboard {
        self.kings
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.white | self.black
    }

    #[inline]
    pub fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.white.contains(sq) {
            Color::White
        } else if self.black.contains(sq) {
            Color::Black
        } else {
            return None;
        };
        let role = if self.kings.contains(sq) { Role::King } else { Role::Man };
        Some(Piece { color, role })
    }

    /// The same position with colours swapped and the board turned 180
    /// degrees; the side to move swaps too. Every game value is unchanged.
    #[inline]
    pub fn flip(&self) -> Position {
        Position {
            white: self.black.flip(),
            black: self.white.flip(),
            kings: self.kings.flip(),
            turn: self.turn.opponent(),
        }
    }

    /// The position before the side that just moved took its king from
    /// `from` to `to` (both known to be legal squares for it).
    pub(crate) fn unplay_king_move(&self, from: Square, to: Square) -> Position {
        let mover = self.turn.opponent();
        let shift = |bb: Bitboard| bb.without(to).with(from);
        let (white, black) = match mover {
            Color::White => (shift(self.white), self.black),
            Color::Black => (self.white, shift(self.black)),
        };
        Position { white, black, kings: shift(self.kings), turn: mover }
    }

    /// The position after `m`, which must be legal here.
    #[inline]
    pub fn play(&self, m: &Move) -> Position {
        let us = self.turn;
        let was_king = self.kings.contains(m.from());
        let own = self.pieces(us).without(m.from()).with(m.to());
        let mut kings = self.kings.without(m.from());
        if was_king || m.promotes() {
            kings = kings.with(m.to());
        }
        let opp = Bitboard(self.pieces(us.opponent()).0 & !m.captured().0);
        kings = Bitboard(kings.0 & !m.captured().0);
        let (white, black) = match us {
            Color::White => (own, opp),
            Color::Black => (opp, own),
        };
        Position { white, black, kings, turn: us.opponent() }
    }
}

/// The checks every game of the board makes on an arrangement, given as
/// (side, whether these are men, squares) parts: no square used twice, no
/// man on its own promotion row, at most 12 pieces a side.
pub(crate) fn check_arrangement(parts: &[(Color, bool, Bitboard)]) -> Result<(), PositionError> {
    let mut seen = Bitboard::EMPTY;
    let mut per_side = [0; 2];
    for &(color, men, part) in parts {
        if let Some(sq) = (seen & part).first() {
            return Err(PositionError::SquareUsedTwice(sq));
        }
        seen |= part;
        if let Some(sq) = (part & Bitboard::rank(color.promotion_rank())).first().filter(|_| men) {
            return Err(PositionError::ManOnPromotionRow(color, sq));
        }
        per_side[color.index()] += part.count();
    }
    for color in [Color::White, Color::Black] {
        if per_side[color.index()] > MAX_PIECES_PER_SIDE {
            return Err(PositionError::TooManyPieces(color, per_side[color.index()]));
        }
    }
    Ok(())
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", crate::fen::Fen::from(*self))
    }
}
