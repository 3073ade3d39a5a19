//! Material signatures: which slice a position belongs to.

use std::fmt;
use std::str::FromStr;

use crate::position::Position;
use crate::board::Color;

/// The pieces of a slice, from the side to move: own kings and men, then the
/// opponent's. A position with Black to move belongs to the slice of its
/// colour-flipped position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    pub own_kings: u8,
    pub own_men: u8,
    pub opp_kings: u8,
    pub opp_men: u8,
}

impl Material {
    pub const fn new(own_kings: u8, own_men: u8, opp_kings: u8, opp_men: u8) -> Material {
        Material { own_kings, own_men, opp_kings, opp_men }
    }

    /// The slice of `pos`, seen from the side to move.
    pub fn of(pos: &Position) -> Material {
        let us = pos.turn();
        let them = us.opponent();
        Material {
            own_kings: pos.kings(us).count() as u8,
            own_men: pos.men(us).count() as u8,
            opp_kings: pos.kings(them).count() as u8,
            opp_men: pos.men(them).count() as u8,
        }
    }

    pub fn pieces(&self) -> u8 {
        self.own_kings + self.own_men + self.opp_kings + self.opp_men
    }

    pub fn men(&self) -> u8 {
        self.own_men + self.opp_men
    }

    /// The same material with the other side to move.
    pub fn swap(&self) -> Material {
        Material::new(self.opp_kings, self.opp_men, self.own_kings, self.own_men)
    }

    /// Both sides have pieces (otherwise the game is over and no table is
    /// needed).
    pub fn is_contested(&self) -> bool {
        self.own_kings + self.own_men > 0 && self.opp_kings + self.opp_men > 0
    }

    /// Every contested slice with 2..=`max_pieces` pieces, fewest pieces
    /// first.
    pub fn all_up_to(max_pieces: u8) -> Vec<Material> {
        let mut all = Vec::new();
        for n in 2..=max_pieces {
            for own in 1..n {
                let opp = n - own;
                if own > 12 || opp > 12 {
                    continue;
                }
                for ok in 0..=own {
                    for ak in 0..=opp {
                        all.push(Material::new(ok, own - ok, ak, opp - ak));
                    }
                }
            }
        }
        all
    }

    /// Kings of one side (White = the side to move, in slice terms).
    pub fn kings(&self, side: Color) -> u8 {
        match side {
            Color::White => self.own_kings,
            Color::Black => self.opp_kings,
        }
    }

    /// Men of one side (White = the side to move, in slice terms).
    pub fn men_of(&self, side: Color) -> u8 {
        match side {
            Color::White => self.own_men,
            Color::Black => self.opp_men,
        }
    }
}

impl fmt::Display for Material {
    /// `KKMvK`: the side to move's kings and men, `v`, the opponent's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |k: u8, m: u8| "K".repeat(k as usize) + &"M".repeat(m as usize);
        write!(f, "{}v{}", side(self.own_kings, self.own_men), side(self.opp_kings, self.opp_men))
    }
}

/// Material text that is not of the form `KKMvK`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("material '{0}': expected kings (K) then men (M) for each side, joined by 'v', e.g. KKMvK")]
pub struct BadMaterial(pub String);

impl FromStr for Material {
    type Err = BadMaterial;

    fn from_str(s: &str) -> Result<Material, BadMaterial> {
        let bad = || BadMaterial(s.to_string());
        let (own, opp) = s.split_once(['v', 'V']).ok_or_else(bad)?;
        let side = |t: &str| -> Option<(u8, u8)> {
            let kings = t.bytes().take_while(|&b| b == b'K').count();
            let men = t[kings..].bytes().take_while(|&b| b == b'M').count();
            (kings + men == t.len() && kings <= 12 && men <= 12).then_some((kings as u8, men as u8))
        };
        let (ok, om) = side(own).ok_or_else(bad)?;
        let (ak, am) = side(opp).ok_or_else(bad)?;
        Ok(Material::new(ok, om, ak, am))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        for m in Material::all_up_to(5) {
            assert_eq!(m.to_string().parse::<Material>().unwrap(), m);
        }
        assert_eq!(Material::new(2, 1, 1, 0).to_string(), "KKMvK");
        assert!("KMKvK".parse::<Material>().is_err());
        assert!("KK".parse::<Material>().is_err());
    }

    #[test]
    fn slice_counts() {
        // Own side 1..n-1 pieces, each split into kings and men.
        assert_eq!(Material::all_up_to(2).len(), 4);
        assert_eq!(Material::all_up_to(3).len(), 4 + 2 * 6);
    }
}
