//! Cheskers positions: four kinds of piece a side.

use std::fmt;

use crate::board::{Bitboard, Color, Square};
use crate::position::{check_arrangement, PositionError};

/// A kind of Cheskers piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Man,
    King,
    Bishop,
    Camel,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Man, Kind::King, Kind::Bishop, Kind::Camel];
    /// What a man may become on the last row.
    pub const PROMOTIONS: [Kind; 3] = [Kind::King, Kind::Bishop, Kind::Camel];

    /// The letter FEN and move text use: none for a man.
    pub fn letter(self) -> Option<char> {
        match self {
            Kind::Man => None,
            Kind::King => Some('K'),
            Kind::Bishop => Some('B'),
            Kind::Camel => Some('C'),
        }
    }

    /// The kind an upper-case letter names (None: a plain square, a man).
    pub fn from_letter(letter: Option<char>) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.letter() == letter)
    }

    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

/// A piece of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

/// Any arrangement of pieces and a side to move, legal or not:
/// `pieces[color][kind]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Setup {
    pub pieces: [[Bitboard; 4]; 2],
    pub turn: Option<Color>,
}

impl Setup {
    pub fn put(&mut self, piece: Piece, sq: Square) {
        let bb = &mut self.pieces[piece.color.index()][piece.kind.index()];
        *bb = bb.with(sq);
    }
}

/// Why a setup is not a Cheskers position: the checks of every game of
/// the board, and one of Cheskers' own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheskersError {
    #[error(transparent)]
    Arrangement(#[from] PositionError),
    /// The game ends when a side's last king is captured, so the side that
    /// has just moved still has one. (The side to move may have none: it
    /// has lost, and the position has no moves.)
    #[error("{0:?} has no king but has just moved: the game ended when its last king was taken")]
    NoKingAfterMoving(Color),
}

/// A legal Cheskers arrangement: pieces on distinct dark squares, no man
/// on its own promotion row, at most 12 pieces a side, a side to move,
/// and a king for the side that has just moved.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    sides: [Bitboard; 2],
    kinds: [Bitboard; 4],
    turn: Color,
}

impl Position {
    /// The start position (docs/RULES.md, "Cheskers"), Black to move.
    pub fn start() -> Position {
        super::notation::parse_fen(super::START_FEN).expect("the start position is legal")
    }

    pub fn from_setup(setup: &Setup) -> Result<Position, CheskersError> {
        let mut parts = Vec::with_capacity(8);
        for color in [Color::White, Color::Black] {
            for kind in Kind::ALL {
                parts.push((color, kind == Kind::Man, setup.pieces[color.index()][kind.index()]));
            }
        }
        check_arrangement(&parts)?;
        let turn = setup.turn.ok_or(PositionError::NoSideToMove)?;
        let mover = turn.opponent();
        if setup.pieces[mover.index()][Kind::King.index()].is_empty() {
            return Err(CheskersError::NoKingAfterMoving(mover));
        }
        let side = |c: Color| setup.pieces[c.index()].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
        let kinds = Kind::ALL.map(|k| setup.pieces[0][k.index()] | setup.pieces[1][k.index()]);
        Ok(Position { sides: [side(Color::White), side(Color::Black)], kinds, turn })
    }

    pub fn setup(&self) -> Setup {
        let mut setup = Setup { turn: Some(self.turn), ..Setup::default() };
        for color in [Color::White, Color::Black] {
            for kind in Kind::ALL {
                setup.pieces[color.index()][kind.index()] = self.of(color, kind);
            }
        }
        setup
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    #[inline]
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.sides[color.index()]
    }

    /// `color`'s pieces of one kind.
    #[inline]
    pub fn of(&self, color: Color, kind: Kind) -> Bitboard {
        self.sides[color.index()] & self.kinds[kind.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.sides[0] | self.sides[1]
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = [Color::White, Color::Black].into_iter().find(|c| self.pieces(*c).contains(sq))?;
        let kind = Kind::ALL.into_iter().find(|k| self.kinds[k.index()].contains(sq))?;
        Some(Piece { color, kind })
    }

    /// The position after `m`, which must be legal here.
    pub fn play(&self, m: &super::Move) -> Position {
        let us = self.turn.index();
        let (from, to) = (m.from(), m.to());
        let captured = m.captured().0;
        let mut next = *self;
        let moving = self.piece_at(from).expect("a legal move starts on a piece").kind;
        let after = m.promotion().unwrap_or(moving);
        for bb in &mut next.kinds {
            *bb = Bitboard(bb.0 & !captured).without(from);
        }
        next.kinds[after.index()] = next.kinds[after.index()].with(to);
        next.sides[1 - us] = Bitboard(self.sides[1 - us].0 & !captured);
        next.sides[us] = self.sides[us].without(from).with(to);
        next.turn = self.turn.opponent();
        next
    }
}

impl Position {
    /// The same position seen from the other side: the board turned round
    /// and the colours swapped (a table stores White to move only).
    pub fn flipped(&self) -> Position {
        Position {
            sides: [self.sides[1].flip(), self.sides[0].flip()],
            kinds: self.kinds.map(Bitboard::flip),
            turn: self.turn.opponent(),
        }
    }

    /// A position from its parts, which the caller (the indexer) knows to
    /// make a legal one.
    pub(super) fn from_parts(sides: [Bitboard; 2], kinds: [Bitboard; 4], turn: Color) -> Position {
        let pos = Position { sides, kinds, turn };
        debug_assert!(Position::from_setup(&pos.setup()).is_ok_and(|p| p == pos), "{pos:?}");
        pos
    }

    /// This position with the piece on `from` moved to the empty square
    /// `to` and `turn` to move: an un-move's predecessor, which the caller
    /// checks is a position.
    pub(super) fn shifted(&self, from: Square, to: Square, turn: Color) -> Position {
        let mut next = *self;
        for bb in next.sides.iter_mut().chain(&mut next.kinds) {
            if bb.contains(from) {
                *bb = bb.without(from).with(to);
            }
        }
        next.turn = turn;
        next
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", super::notation::write_fen(self))
    }
}
