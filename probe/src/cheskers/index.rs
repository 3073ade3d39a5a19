//! Cheskers slices: material with four kinds a side, and the indexer.
//!
//! The indexer builds on the draughts one ([`crate::SliceIndex`]): the men
//! are placed as there (a man never stands on its own last row), and the
//! other pieces, kings, bishops and camels alike, as its kings, anywhere
//! free. Last, each side's non-men are split into kings, bishops and
//! camels. So an index is `config * per_config + officers * splits +
//! split`: each men configuration stays one contiguous range, as the
//! solver's units want.

use std::fmt;
use std::str::FromStr;

use crate::board::{Bitboard, Color};
use crate::index::{binomial, dense, sparse, MenConfig};

use super::position::{Kind, Position};

/// The pieces of a Cheskers slice by kind ([`Kind`] order: men, kings,
/// bishops, camels), the side to move's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    pub own: [u8; 4],
    pub opp: [u8; 4],
}

/// The order pieces are named in: `KBCM`.
const NAMED: [(Kind, char); 4] = [(Kind::King, 'K'), (Kind::Bishop, 'B'), (Kind::Camel, 'C'), (Kind::Man, 'M')];

impl Material {
    /// The slice of `pos`, seen from the side to move.
    pub fn of(pos: &Position) -> Material {
        let count = |c: Color| Kind::ALL.map(|k| pos.of(c, k).count() as u8);
        Material { own: count(pos.turn()), opp: count(pos.turn().opponent()) }
    }

    pub fn pieces(&self) -> u8 {
        self.own.iter().chain(&self.opp).sum()
    }

    /// Both sides have a king: a side without one has lost, so only such
    /// slices need tables.
    pub fn is_stored(&self) -> bool {
        self.own[Kind::King as usize] > 0 && self.opp[Kind::King as usize] > 0
    }

    /// Every stored slice with 2..=`max_pieces` pieces, fewest first.
    pub fn all_up_to(max_pieces: u8) -> Vec<Material> {
        fn sides(n: u8) -> Vec<[u8; 4]> {
            let mut all = Vec::new();
            for men in 0..=n {
                for kings in 1..=n - men {
                    for bishops in 0..=n - men - kings {
                        all.push([men, kings, bishops, n - men - kings - bishops]);
                    }
                }
            }
            all
        }
        let mut all = Vec::new();
        for n in 2..=max_pieces {
            for own_count in 1..n {
                if own_count > 12 || n - own_count > 12 {
                    continue;
                }
                for own in sides(own_count) {
                    all.extend(sides(n - own_count).into_iter().map(|opp| Material { own, opp }));
                }
            }
        }
        all
    }
}

impl fmt::Display for Material {
    /// `KBMvKC`: the side to move's kings, bishops, camels and men, `v`,
    /// the opponent's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |counts: &[u8; 4]| -> String {
            NAMED.iter().map(|&(kind, c)| c.to_string().repeat(counts[kind as usize] as usize)).collect()
        };
        write!(f, "{}v{}", side(&self.own), side(&self.opp))
    }
}

/// Material text that is not of the form `KBMvKC`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "Cheskers material '{0}': expected kings (K), bishops (B), camels (C) then men (M) for each side, \
     joined by 'v', e.g. KBMvKC"
)]
pub struct BadMaterial(pub String);

impl FromStr for Material {
    type Err = BadMaterial;

    fn from_str(text: &str) -> Result<Material, BadMaterial> {
        let bad = || BadMaterial(crate::fen::excerpt(text));
        let side = |t: &str| -> Option<[u8; 4]> {
            let mut counts = [0u8; 4];
            let mut rest = t;
            for (kind, c) in NAMED {
                let n = rest.chars().take_while(|&x| x == c).count();
                counts[kind as usize] = u8::try_from(n).ok().filter(|&n| n <= 12)?;
                rest = &rest[n..];
            }
            (rest.is_empty() && counts.iter().sum::<u8>() <= 12).then_some(counts)
        };
        let (own, opp) = text.split_once('v').ok_or_else(bad)?;
        Ok(Material { own: side(own).ok_or_else(bad)?, opp: side(opp).ok_or_else(bad)? })
    }
}

/// The indexer of one Cheskers slice: a bijection between its positions
/// with White to move and `0..size()`.
#[derive(Clone, Debug)]
pub struct SliceIndex {
    material: Material,
    /// Men and non-men placed as draughts men and kings.
    placement: crate::SliceIndex,
    /// Ways to split each side's non-men into kings, bishops and camels.
    splits: [u64; 2],
}

impl SliceIndex {
    pub fn new(material: Material) -> SliceIndex {
        let officers = |side: &[u8; 4]| side[1] + side[2] + side[3];
        let placement = crate::SliceIndex::new(crate::Material::new(
            officers(&material.own),
            material.own[0],
            officers(&material.opp),
            material.opp[0],
        ));
        let split = |side: &[u8; 4]| {
            let n = officers(side) as u32;
            binomial(n, side[1] as u32) * binomial(n - side[1] as u32, side[2] as u32)
        };
        SliceIndex { material, placement, splits: [split(&material.own), split(&material.opp)] }
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Positions in the slice.
    pub fn size(&self) -> u64 {
        self.placement.size() * self.splits[0] * self.splits[1]
    }

    /// Men configurations in the slice (each a contiguous range of indices).
    pub fn configs(&self) -> u64 {
        self.placement.configs()
    }

    /// The index of `pos` if it has White to move and this slice's material.
    pub fn index(&self, pos: &Position) -> Option<u64> {
        if pos.turn() != Color::White || Material::of(pos) != self.material {
            return None;
        }
        Some(self.index_unchecked(pos))
    }

    /// [`SliceIndex::index`] of a position the caller knows has White to
    /// move and this slice's material (a solver's inner loop).
    #[inline]
    pub fn index_unchecked(&self, pos: &Position) -> u64 {
        debug_assert!(pos.turn() == Color::White && Material::of(pos) == self.material, "{pos:?}");
        let set = |c: Color, k: Kind| dense(pos.of(c, k));
        let (white_men, black_men) = (set(Color::White, Kind::Man), set(Color::Black, Kind::Man));
        let white = dense(pos.pieces(Color::White)) & !white_men;
        let black = dense(pos.pieces(Color::Black)) & !black_men;
        let config = MenConfig::new(white_men, black_men);
        let officers_rank = self.placement.kings_rank(config.occupied(), white, black);
        // Kings among the non-men, then bishops among the rest.
        let split = |c: Color, all: u32| {
            let kings = set(c, Kind::King);
            let ways = binomial(all.count_ones(), kings.count_ones());
            rank_within(kings, all) + ways * rank_within(set(c, Kind::Bishop), all & !kings)
        };
        let splits = split(Color::White, white) * self.splits[1] + split(Color::Black, black);
        let placement = self.placement.config_rank(config) * self.placement.kings_per_config() + officers_rank;
        placement * self.splits[0] * self.splits[1] + splits
    }

    /// The position (White to move) at `index`, which must be below
    /// [`SliceIndex::size`].
    pub fn position(&self, index: u64) -> Position {
        let both = self.splits[0] * self.splits[1];
        let placement = index / both;
        let per_config = self.placement.kings_per_config();
        let config = self.placement.config(placement / per_config);
        let officers = self.placement.kings(config.occupied(), placement % per_config);
        let (white_split, black_split) = ((index % both) / self.splits[1], index % self.splits[1]);
        let mut sides = [Bitboard::EMPTY; 2];
        let mut kinds = [Bitboard::EMPTY; 4];
        for (color, split, counts, officers, men) in [
            (Color::White, white_split, self.material.own, officers.0, config.white()),
            (Color::Black, black_split, self.material.opp, officers.1, config.black()),
        ] {
            let (kings_count, bishops_count) = (counts[1] as u32, counts[2] as u32);
            let ways = binomial(officers.count_ones(), kings_count);
            let kings = unrank_within(split % ways, kings_count, officers);
            let bishops = unrank_within(split / ways, bishops_count, officers & !kings);
            let camels = officers & !kings & !bishops;
            sides[color.index()] = sparse(officers | men);
            for (kind, set) in [(Kind::Man, men), (Kind::King, kings), (Kind::Bishop, bishops), (Kind::Camel, camels)] {
                kinds[kind as usize] |= sparse(set);
            }
        }
        Position::from_parts(sides, kinds, Color::White)
    }
}

/// The colex rank of `subset` among the subsets of `set` of its size.
fn rank_within(subset: u32, set: u32) -> u64 {
    let (mut rank, mut i, mut place, mut rest) = (0, 1, 0, set);
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        if subset & bit != 0 {
            rank += binomial(place, i);
            i += 1;
        }
        place += 1;
        rest &= rest - 1;
    }
    rank
}

/// The `k`-subset of `set` of colex rank `rank`.
fn unrank_within(mut rank: u64, k: u32, set: u32) -> u32 {
    // The member of `set` at place `n` (0 = the lowest).
    let member = |n: u32| {
        let mut rest = set;
        for _ in 0..n {
            rest &= rest - 1;
        }
        rest & rest.wrapping_neg()
    };
    let mut subset = 0;
    let mut top = set.count_ones();
    for i in (1..=k).rev() {
        let mut c = top - 1;
        while binomial(c, i) > rank {
            c -= 1;
        }
        rank -= binomial(c, i);
        subset |= member(c);
        top = c;
    }
    subset
}

#[cfg(test)]
mod tests {
    use super::super::position::{Piece, Setup};
    use super::*;
    use crate::board::Square;

    #[test]
    fn material_text_round_trips() {
        for m in Material::all_up_to(4) {
            assert_eq!(m.to_string().parse::<Material>(), Ok(m), "{m}");
            assert!(m.is_stored());
        }
        assert_eq!("KBMvKC".parse::<Material>().map(|m| (m.own, m.opp)), Ok(([1, 1, 1, 0], [0, 1, 0, 1])));
        for bad in ["KMBvK", "KvKX", "KK", "vK"] {
            assert!(bad.parse::<Material>().map_or(true, |m| !m.is_stored()), "{bad}");
        }
        // Two pieces: a king each. Three: one side has a second piece of
        // any of the four kinds (4 each way).
        assert_eq!(Material::all_up_to(2).len(), 1);
        assert_eq!(Material::all_up_to(3).len(), 1 + 8);
    }

    /// Every arrangement of the slice's pieces, counted the slow way: each
    /// piece on each square, Position deciding what is legal.
    fn brute_force_count(material: Material) -> u64 {
        let mut pieces = Vec::new();
        for (color, counts) in [(Color::White, material.own), (Color::Black, material.opp)] {
            for kind in Kind::ALL {
                pieces.extend(std::iter::repeat_n(Piece { color, kind }, counts[kind as usize] as usize));
            }
        }
        fn place(pieces: &[Piece], i: usize, from: u8, setup: &mut Setup, used: Bitboard) -> u64 {
            let Some(piece) = pieces.get(i) else {
                return Position::from_setup(setup).is_ok() as u64;
            };
            // Pieces of one kind in increasing square order: each set once.
            let same = i > 0 && pieces[i - 1] == *piece;
            let mut n = 0;
            for d in if same { from } else { 0 }..32 {
                let sq = Square::from_dense(d);
                if used.contains(sq) {
                    continue;
                }
                let before = *setup;
                setup.put(*piece, sq);
                n += place(pieces, i + 1, d + 1, setup, used.with(sq));
                *setup = before;
            }
            n
        }
        place(&pieces, 0, 0, &mut Setup { turn: Some(Color::White), ..Setup::default() }, Bitboard::EMPTY)
    }

    #[test]
    fn every_index_is_one_position_and_back() {
        for text in ["KvK", "KBvK", "KvKC", "KMvK", "KvKM", "KKBvK", "KBCvK", "KMvKM"] {
            let material: Material = text.parse().unwrap();
            let index = SliceIndex::new(material);
            assert_eq!(index.size(), brute_force_count(material), "{text}");
            for i in 0..index.size() {
                let pos = index.position(i);
                assert_eq!(Material::of(&pos), material, "{text} {i}");
                assert_eq!(index.index(&pos), Some(i), "{text} {pos:?}");
            }
        }
        // Only White to move, only the slice's own material.
        let index = SliceIndex::new("KBvK".parse().unwrap());
        let black_to_move = super::super::parse_fen("B:WKa1,Bc3:BKh8").unwrap();
        assert_eq!(index.index(&black_to_move), None);
        assert_eq!(index.index(&super::super::parse_fen("W:WKa1,Cc3:BKh8").unwrap()), None);
        assert!(index.index(&super::super::parse_fen("W:WKa1,Bc3:BKh8").unwrap()).is_some());
    }
}
