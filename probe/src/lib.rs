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
//!
//! Probing a directory of tables (`damka generate` writes them); a
//! [`Tablebase`] is `Send + Sync`, so one can serve every search thread:
//!
//! ```no_run
//! use damka::{fen, OpenOptions, Tablebase, Variant, Wdl};
//!
//! let tb = Tablebase::open("data/tables", OpenOptions::new(Variant::Russian).cache_bytes(64 << 20))?;
//! // White's king takes the last black man at once.
//! let pos = fen::parse("W:WKc3:Bf6", Variant::Russian).unwrap();
//! println!("{}", tb.probe_value(&pos)?); // "win in 1 plies"
//! for ranked in tb.rank_moves(&pos)? {
//!     println!("{} {}", damka::notation::write(&ranked.mv, Variant::Russian), ranked.value);
//! }
//! assert_eq!(tb.probe_wdl(&pos)?, Wdl::Win);
//! # Ok::<(), damka::ProbeError>(())
//! ```

pub mod arbiter;
pub mod board;
pub mod cheskers;
mod cache;
mod capi;
mod egdb;
pub mod directory;
pub mod fen;
pub mod format;
pub mod game;
pub mod index;
pub mod layout;
pub mod material;
mod memo;
mod mmap;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
mod playout;
pub mod rules;
mod probe;
mod tally;
pub mod resolve;
pub mod runs;
pub mod value;
pub mod position;
pub mod variant;

pub use arbiter::{Arbiter, Ending};
pub use board::{Bitboard, Color, Square};
pub use index::SliceIndex;
pub use material::Material;
pub use cache::CacheStats;
pub use moves::Move;
pub use playout::{PlayedMove, Playout};
pub use position::{Piece, Position, PositionError, Role, Setup};
pub use probe::{Cached, JudgedMove, OpenOptions, ProbeError, RankedMove, RuleSetId, TableName, Tablebase};
pub use rules::{Counters, RuleSet, Verdict};
pub use value::{Plies, Value, Wdl};
pub use variant::Variant;
