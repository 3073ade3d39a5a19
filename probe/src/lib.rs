//! damka: endgame tablebases for Russian draughts and the other 8x8 games.
//!
//! This crate is what engines link: the board and the rules of each game,
//! move generation, notation, the slice indexer, the table file reader and
//! the probing API.
//!
//! ```
//! use damka::{fen, movegen, Variant};
//!
//! let pos = fen::parse("W:Wc3:Bf6", Variant::Russian).unwrap();
//! assert_eq!(movegen::legal_moves(&pos, Variant::Russian).len(), 2);
//! ```

pub mod board;
pub mod fen;
pub mod format;
pub mod index;
pub mod material;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod value;
pub mod position;
pub mod variant;

pub use board::{Bitboard, Color, Square};
pub use index::SliceIndex;
pub use material::Material;
pub use moves::Move;
pub use position::{Piece, Position, PositionError, Role, Setup};
pub use value::{Plies, Value, Wdl};
pub use variant::Variant;
