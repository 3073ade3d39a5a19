//! Cheskers (Golomb, 1948): the chess and checkers hybrid on the 32 dark
//! squares, each side with men, kings, a bishop and a camel.
//!
//! A game of its own beside the draughts family ([`crate::Variant`]): it
//! shares the board and the FEN grammar, and has its own pieces
//! ([`Kind`]), rules ([`Rules`], with a switch for each point the
//! published rules leave open), move generator, notation, perft, and the
//! indexer of its slices ([`SliceIndex`]) and the reader of its tables
//! ([`Tables`]; damka-generator builds them).
//! docs/RULES.md, "Cheskers", gives the rules.
//!
//! ```
//! use damka::cheskers::{self, Position, Rules};
//!
//! let start = Position::start();
//! assert_eq!(cheskers::legal_moves(&start, Rules::default()).len(), 9);
//! ```

mod index;
mod movegen;
mod notation;
mod position;
mod rules;
mod tables;

use crate::board::{Bitboard, Square};

pub use index::{BadMaterial, Material, SliceIndex};
pub use movegen::{generate, legal_moves, must_capture, perft, quiet_predecessors};
pub use notation::{parse_fen, parse_move, write_fen, write_move, CheskersFenError};
pub use position::{CheskersError, Kind, Piece, Position, Setup};
pub use rules::{Preference, Rules, UnknownRules, FIRST_TO_MOVE};
pub use tables::{parse_table_name, table_path, Tables, TablesError, RULES};

/// The start position: White's kings c1 and e1, bishop a1, camel g1 and
/// men on a3-h2; Black's the same turned round; Black to move.
pub const START_FEN: &str =
    "B:WKc1,Ke1,Ba1,Cg1,a3,b2,c3,d2,e3,f2,g3,h2:BKd8,Kf8,Bh8,Cb8,a7,b6,c7,d6,e7,f6,g7,h6";

/// One legal Cheskers move: a draughts move (start, landings, captured
/// pieces) and what a man that reaches the last row becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    step: crate::Move,
    promotion: Option<Kind>,
}

impl Move {
    #[inline]
    pub fn from(&self) -> Square {
        self.step.from()
    }

    #[inline]
    pub fn to(&self) -> Square {
        self.step.to()
    }

    /// The pieces this move removes: those jumped, or the one a bishop or
    /// camel lands on.
    #[inline]
    pub fn captured(&self) -> Bitboard {
        self.step.captured()
    }

    #[inline]
    pub fn is_capture(&self) -> bool {
        self.step.is_capture()
    }

    /// The kind a man becomes on the last row, if this move takes it there.
    #[inline]
    pub fn promotion(&self) -> Option<Kind> {
        self.promotion
    }

    /// The squares the move is written with: start, then each landing.
    pub fn squares(&self) -> Vec<Square> {
        self.step.squares()
    }
}
