//! What a table says about a position.

use std::fmt;

/// Game-theoretic result for the side to move, with the move-limit rules
/// folded in.
///
/// | value          | repr | meaning                                          |
/// |----------------|------|--------------------------------------------------|
/// | `Loss`         | -2   | lost, also under the rule set                    |
/// | `BlessedLoss`  | -1   | lost with perfect play, but a move limit saves it |
/// | `Draw`         |  0   | drawn                                            |
/// | `CursedWin`    |  1   | won with perfect play, but a move limit draws it  |
/// | `Win`          |  2   | won, also under the rule set                     |
///
/// Pure tables (rule set `none`) only hold `Loss`, `Draw` and `Win`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i8)]
pub enum Wdl {
    Loss = -2,
    BlessedLoss = -1,
    Draw = 0,
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    /// The value for the other side.
    pub fn negate(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The value with perfect play and no move limits.
    pub fn pure(self) -> Wdl {
        match self {
            Wdl::Loss | Wdl::BlessedLoss => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin | Wdl::Win => Wdl::Win,
        }
    }

    pub fn from_i8(v: i8) -> Option<Wdl> {
        Some(match v {
            -2 => Wdl::Loss,
            -1 => Wdl::BlessedLoss,
            0 => Wdl::Draw,
            1 => Wdl::CursedWin,
            2 => Wdl::Win,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::BlessedLoss => "blessed-loss",
            Wdl::Draw => "draw",
            Wdl::CursedWin => "cursed-win",
            Wdl::Win => "win",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A distance in plies (half-moves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Plies(pub u16);

impl Plies {
    /// Moves of the side that moves first in the count, rounded up.
    pub fn moves(self) -> u16 {
        self.0.div_ceil(2)
    }
}

impl fmt::Display for Plies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} plies", self.0)
    }
}

/// A result and, for wins and losses, the plies to the next conversion
/// (capture or promotion) or the end of the game with best play: the winner
/// shortens it, the loser stretches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    pub wdl: Wdl,
    pub plies: Plies,
}

impl Value {
    pub const DRAW: Value = Value { wdl: Wdl::Draw, plies: Plies(0) };

    pub fn new(wdl: Wdl, plies: u16) -> Value {
        Value { wdl, plies: Plies(plies) }
    }

    /// Packs into 16 bits: the distance (at most
    /// [`crate::format::MAX_PLIES`]) above three bits of result.
    #[inline]
    pub fn pack(self) -> u16 {
        debug_assert!(self.plies.0 <= crate::format::MAX_PLIES, "{self} does not fit a table entry");
        let code = match self.wdl {
            Wdl::Draw => 0,
            Wdl::Win => 1,
            Wdl::Loss => 2,
            Wdl::CursedWin => 3,
            Wdl::BlessedLoss => 4,
        };
        (self.plies.0 << 3) | code
    }

    /// The inverse of [`Value::pack`]; `None` for bits no value packs to.
    #[inline]
    pub fn unpack(bits: u16) -> Option<Value> {
        let wdl = match bits & 7 {
            0 => Wdl::Draw,
            1 => Wdl::Win,
            2 => Wdl::Loss,
            3 => Wdl::CursedWin,
            4 => Wdl::BlessedLoss,
            _ => return None,
        };
        Some(Value { wdl, plies: Plies(bits >> 3) })
    }

    /// The value of a move into a position worth `self` to the opponent.
    /// `converts`: the move is a capture or promotion, which restarts the
    /// count.
    #[inline]
    pub fn back_one_ply(self, converts: bool) -> Value {
        let plies = if converts { 1 } else { self.plies.0 + 1 };
        match self.wdl {
            Wdl::Draw => Value::DRAW,
            wdl => Value { wdl: wdl.negate(), plies: Plies(plies) },
        }
    }
}

/// A sort key: better values for the side to move are greater. Wins by
/// shortest distance, then cursed wins, draws, blessed losses, and losses
/// by longest distance.
pub fn value_order(v: Value) -> (i8, i32) {
    let d = v.plies.0 as i32;
    match v.wdl {
        Wdl::Win | Wdl::CursedWin => (v.wdl as i8, -d),
        Wdl::Draw => (0, 0),
        Wdl::BlessedLoss | Wdl::Loss => (v.wdl as i8, d),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.wdl {
            Wdl::Draw => f.write_str("draw"),
            wdl => write!(f, "{wdl} in {}", self.plies),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trip() {
        for wdl in [Wdl::Loss, Wdl::BlessedLoss, Wdl::Draw, Wdl::CursedWin, Wdl::Win] {
            for plies in [0, 1, 77, crate::format::MAX_PLIES] {
                let v = Value::new(wdl, plies);
                assert_eq!(Value::unpack(v.pack()), Some(v));
            }
            assert_eq!(Wdl::from_i8(wdl as i8), Some(wdl));
            assert_eq!(wdl.negate().negate(), wdl);
        }
        assert_eq!(Value::unpack(7), None);
    }

    #[test]
    fn one_ply_back() {
        let lost = Value::new(Wdl::Loss, 4);
        assert_eq!(lost.back_one_ply(false), Value::new(Wdl::Win, 5));
        assert_eq!(lost.back_one_ply(true), Value::new(Wdl::Win, 1));
        assert_eq!(Value::DRAW.back_one_ply(false), Value::DRAW);
    }
}
