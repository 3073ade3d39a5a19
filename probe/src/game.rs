//! Which game a directory of tables, or a table file, is for: one of the
//! draughts family ([`Variant`]) or Cheskers, whose pieces and slices are
//! of another kind ([`crate::cheskers`]).

use std::fmt;
use std::str::FromStr;

use crate::variant::{UnknownVariant, Variant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Game {
    Draughts(Variant),
    Cheskers,
}

/// The header byte of Cheskers tables: far from the draughts variants'
/// numbers, which count up from 0.
const CHESKERS_ID: u8 = 0x40;

impl Game {
    /// A stable number for file headers.
    pub fn id(self) -> u8 {
        match self {
            Game::Draughts(v) => v.id(),
            Game::Cheskers => CHESKERS_ID,
        }
    }

    pub fn from_id(id: u8) -> Option<Game> {
        match id {
            CHESKERS_ID => Some(Game::Cheskers),
            _ => Variant::from_id(id).map(Game::Draughts),
        }
    }
}

impl From<Variant> for Game {
    fn from(v: Variant) -> Game {
        Game::Draughts(v)
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Game::Draughts(v) => v.fmt(f),
            Game::Cheskers => f.write_str("cheskers"),
        }
    }
}

impl FromStr for Game {
    type Err = UnknownVariant;

    /// A variant's name or `cheskers`.
    fn from_str(s: &str) -> Result<Game, UnknownVariant> {
        if s.eq_ignore_ascii_case("cheskers") {
            return Ok(Game::Cheskers);
        }
        s.parse().map(Game::Draughts)
    }
}
