//! Board geometry: squares, bitboards and diagonal rays.
//!
//! Squares are stored as 8x8 indices (`rank * 8 + file`, a1 = 0, h8 = 63);
//! only the 32 dark squares (file + rank even) are ever used. With that
//! layout every diagonal step is a constant shift (+9, +7, -7, -9), and a
//! step that wraps around the board edge always lands on a light square,
//! which masking with [`Bitboard::DARK`] removes. Turning the board 180
//! degrees is `63 - square`, i.e. reversing the bits.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White,
    Black,
}

impl Color {
    #[inline]
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Index for arrays: White 0, Black 1.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The rank index (0..8) where this side's men become kings.
    #[inline]
    pub fn promotion_rank(self) -> u8 {
        match self {
            Color::White => 7,
            Color::Black => 0,
        }
    }
}

/// One of the 32 dark squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at `file` (0 = a) and `rank` (0 = 1), if it is dark.
    pub fn from_coords(file: u8, rank: u8) -> Option<Square> {
        (file < 8 && rank < 8 && (file + rank).is_multiple_of(2)).then_some(Square(rank * 8 + file))
    }

    /// The square from an 8x8 index (a1 = 0, h8 = 63), if it is dark.
    pub fn from_index64(index: u8) -> Option<Square> {
        Square::from_coords(index % 8, index / 8)
    }

    /// The n-th dark square counted from a1 along ranks (a1 = 0, c1 = 1, ...,
    /// h8 = 31). This is the dense numbering the indexer uses.
    #[inline]
    pub fn from_dense(n: u8) -> Square {
        debug_assert!(n < 32);
        let rank = n / 4;
        Square(rank * 8 + (n % 4) * 2 + (rank & 1))
    }

    /// Inverse of [`Square::from_dense`].
    #[inline]
    pub fn dense(self) -> u8 {
        (self.0 / 8) * 4 + (self.0 % 8) / 2
    }

    /// The PDN square number (1..=32): row by row from the top, left to right
    /// as White sees the board (1 = b8, 29 = a1, 32 = g1).
    pub fn from_pdn(n: u8) -> Option<Square> {
        if !(1..=32).contains(&n) {
            return None;
        }
        let row = (n - 1) / 4;
        Some(Square::from_dense((7 - row) * 4 + (n - 1) % 4))
    }

    /// This square's PDN number (1..=32).
    pub fn pdn(self) -> u8 {
        let d = self.dense();
        (7 - d / 4) * 4 + d % 4 + 1
    }

    #[inline]
    pub fn index64(self) -> u8 {
        self.0
    }

    #[inline]
    pub fn file(self) -> u8 {
        self.0 % 8
    }

    #[inline]
    pub fn rank(self) -> u8 {
        self.0 / 8
    }

    #[inline]
    pub fn bb(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }

    /// The square halfway between this one and `other`, two steps away
    /// along a diagonal (the square a short jump passes over).
    #[inline]
    pub(crate) fn midpoint(self, other: Square) -> Square {
        Square((self.0 + other.0) / 2)
    }

    /// The previous square in `dir`, which the caller knows is on the board.
    #[inline]
    pub(crate) fn behind(self, dir: Direction) -> Square {
        Square(self.0.wrapping_add_signed(-dir.offset()))
    }

    /// The same square seen from the other side (board turned 180 degrees).
    #[inline]
    pub fn flip(self) -> Square {
        Square(63 - self.0)
    }

    /// Algebraic name, e.g. `c3`.
    pub fn name(self) -> String {
        format!("{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }

    /// Every dark square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..32).map(Square::from_dense)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A set of squares.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    /// The 32 dark squares.
    pub const DARK: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

    /// The dark squares of one rank (0 = rank 1).
    #[inline]
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard((0xFFu64 << (rank * 8)) & Bitboard::DARK.0)
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub fn has_any(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub fn contains(self, sq: Square) -> bool {
        self.0 & (1u64 << sq.0) != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<Square> {
        (self.0 != 0).then(|| Square(self.0.trailing_zeros() as u8))
    }

    /// The board turned 180 degrees.
    #[inline]
    pub fn flip(self) -> Bitboard {
        Bitboard(self.0.reverse_bits())
    }

    #[inline]
    pub fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1u64 << sq.0)
    }

    #[inline]
    pub fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u64 << sq.0))
    }

    /// Squares one diagonal step away in `dir`, kept on dark squares.
    ///
    /// A rotation by the direction's offset, then a mask: branch-free, so
    /// that a loop over directions costs no mispredicted jumps. The mask
    /// drops what wrapped around the ends of the 64 bits (squares a step in
    /// that direction never reaches) and the light squares that a step
    /// over the board's edge lands on.
    #[inline]
    pub fn shift(self, dir: Direction) -> Bitboard {
        const ROTATION: [u32; 4] = [9, 7, 64 - 7, 64 - 9];
        const KEEP: [u64; 4] = [
            Bitboard::DARK.0 & !((1 << 9) - 1),
            Bitboard::DARK.0 & !((1 << 7) - 1),
            Bitboard::DARK.0 & (u64::MAX >> 7),
            Bitboard::DARK.0 & (u64::MAX >> 9),
        ];
        let d = dir.index();
        Bitboard(self.0.rotate_left(ROTATION[d]) & KEEP[d])
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

macro_rules! bit_ops {
    ($($tr:ident $f:ident $tra:ident $fa:ident $op:tt),*) => {$(
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard { Bitboard(self.0 $op rhs.0) }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) { self.0 = self.0 $op rhs.0; }
        }
    )*};
}
bit_ops!(BitAnd bitand BitAndAssign bitand_assign &, BitOr bitor BitOrAssign bitor_assign |,
         BitXor bitxor BitXorAssign bitxor_assign ^);

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the dark squares.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::DARK.0)
    }
}

/// A diagonal direction, as White sees the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    NorthEast,
    NorthWest,
    SouthEast,
    SouthWest,
}

impl Direction {
    pub const ALL: [Direction; 4] =
        [Direction::NorthEast, Direction::NorthWest, Direction::SouthEast, Direction::SouthWest];

    /// The two directions in which `color`'s men move.
    #[inline]
    pub fn forward(color: Color) -> [Direction; 2] {
        match color {
            Color::White => [Direction::NorthEast, Direction::NorthWest],
            Color::Black => [Direction::SouthEast, Direction::SouthWest],
        }
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The change of square index for one step.
    #[inline]
    fn offset(self) -> i8 {
        match self {
            Direction::NorthEast => 9,
            Direction::NorthWest => 7,
            Direction::SouthEast => -7,
            Direction::SouthWest => -9,
        }
    }

    /// Towards rank 8 (square indices grow).
    #[inline]
    pub fn is_northward(self) -> bool {
        matches!(self, Direction::NorthEast | Direction::NorthWest)
    }

    #[inline]
    pub fn reverse(self) -> Direction {
        match self {
            Direction::NorthEast => Direction::SouthWest,
            Direction::NorthWest => Direction::SouthEast,
            Direction::SouthEast => Direction::NorthWest,
            Direction::SouthWest => Direction::NorthEast,
        }
    }

    #[inline]
    fn delta(self) -> (i8, i8) {
        match self {
            Direction::NorthEast => (1, 1),
            Direction::NorthWest => (-1, 1),
            Direction::SouthEast => (1, -1),
            Direction::SouthWest => (-1, -1),
        }
    }
}

/// The squares from a square to the board edge in one direction, nearest
/// first.
#[derive(Clone, Copy)]
pub struct Ray {
    squares: [Square; 7],
    len: u8,
    bits: Bitboard,
}

impl Ray {
    #[inline]
    pub fn squares(&self) -> &[Square] {
        &self.squares[..self.len as usize]
    }

    /// The same squares as a set.
    #[inline]
    pub fn bitboard(&self) -> Bitboard {
        self.bits
    }
}

struct Rays([[Ray; 4]; 64]);

const fn build_rays() -> Rays {
    let empty = Ray { squares: [Square(0); 7], len: 0, bits: Bitboard::EMPTY };
    let mut rays = [[empty; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let (df, dr): (i8, i8) = match d {
                0 => (1, 1),
                1 => (-1, 1),
                2 => (1, -1),
                _ => (-1, -1),
            };
            let mut f = (sq % 8) as i8 + df;
            let mut r = (sq / 8) as i8 + dr;
            let mut len = 0;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                rays[sq][d].squares[len] = Square((r * 8 + f) as u8);
                rays[sq][d].bits.0 |= 1u64 << (r * 8 + f) as u32;
                len += 1;
                f += df;
                r += dr;
            }
            rays[sq][d].len = len as u8;
            d += 1;
        }
        sq += 1;
    }
    Rays(rays)
}

static RAYS: Rays = build_rays();

/// The ray from `sq` in direction `dir` (excluding `sq`).
#[inline]
pub fn ray(sq: Square, dir: Direction) -> &'static Ray {
    &RAYS.0[sq.0 as usize][dir.index()]
}

/// The nearest occupied square from `sq` (excluded) along `dir`, if any.
#[inline]
pub fn first_blocker(sq: Square, dir: Direction, occupied: Bitboard) -> Option<Square> {
    let blockers = ray(sq, dir).bits.0 & occupied.0;
    if blockers == 0 {
        None
    } else if dir.is_northward() {
        // Northward squares have higher indices: the nearest is the lowest.
        Some(Square(blockers.trailing_zeros() as u8))
    } else {
        Some(Square(63 - blockers.leading_zeros() as u8))
    }
}

/// The empty squares from `sq` (excluded) along `dir`, up to the first
/// occupied one: where a flying king can move, or land behind a piece.
#[inline]
pub fn open_ray(sq: Square, dir: Direction, occupied: Bitboard) -> Bitboard {
    let all = ray(sq, dir).bits;
    match first_blocker(sq, dir, occupied) {
        None => all,
        Some(b) => Bitboard(all.0 & !ray(b, dir).bits.0 & !b.bb().0),
    }
}

/// The square one step from `sq` in `dir`, if on the board.
#[inline]
pub fn step(sq: Square, dir: Direction) -> Option<Square> {
    let (df, dr) = dir.delta();
    let f = sq.file() as i8 + df;
    let r = sq.rank() as i8 + dr;
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| Square((r * 8 + f) as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_matches_pdn() {
        assert_eq!(Square::from_pdn(1).unwrap().name(), "b8");
        assert_eq!(Square::from_pdn(4).unwrap().name(), "h8");
        assert_eq!(Square::from_pdn(5).unwrap().name(), "a7");
        assert_eq!(Square::from_pdn(29).unwrap().name(), "a1");
        assert_eq!(Square::from_pdn(32).unwrap().name(), "g1");
        for n in 1..=32 {
            assert_eq!(Square::from_pdn(n).unwrap().pdn(), n);
        }
        assert!(Square::from_pdn(0).is_none() && Square::from_pdn(33).is_none());
    }

    #[test]
    fn dense_numbering_is_a_bijection_onto_dark_squares() {
        let mut all = Bitboard::EMPTY;
        for n in 0..32 {
            let sq = Square::from_dense(n);
            assert_eq!(sq.dense(), n);
            assert!(Bitboard::DARK.contains(sq));
            all = all.with(sq);
        }
        assert_eq!(all, Bitboard::DARK);
    }

    #[test]
    fn shifts_never_wrap_onto_dark_squares() {
        for sq in Square::all() {
            for dir in Direction::ALL {
                let expected = step(sq, dir).map_or(Bitboard::EMPTY, Square::bb);
                assert_eq!(sq.bb().shift(dir), expected, "{sq} {dir:?}");
            }
        }
    }

    #[test]
    fn main_road_is_a_ray() {
        let a1 = Square::from_coords(0, 0).unwrap();
        let names: Vec<String> =
            ray(a1, Direction::NorthEast).squares().iter().map(|s| s.name()).collect();
        assert_eq!(names, ["b2", "c3", "d4", "e5", "f6", "g7", "h8"]);
    }

    #[test]
    fn open_rays_stop_at_the_first_piece() {
        let at = |name: &str| Square::all().find(|s| s.name() == name).unwrap();
        for dir in Direction::ALL {
            for sq in Square::all() {
                for blocker in ray(sq, dir).squares() {
                    let occupied = blocker.bb() | sq.bb();
                    assert_eq!(first_blocker(sq, dir, occupied), Some(*blocker));
                    let before: Bitboard =
                        ray(sq, dir).squares().iter().take_while(|s| *s != blocker).fold(Bitboard::EMPTY, |b, s| b.with(*s));
                    assert_eq!(open_ray(sq, dir, occupied), before, "{sq} {dir:?} {blocker}");
                }
                assert_eq!(open_ray(sq, dir, Bitboard::EMPTY).count(), ray(sq, dir).squares().len() as u32);
            }
        }
        let occupied = at("f6").bb() | at("b2").bb();
        assert_eq!(open_ray(at("d4"), Direction::NorthEast, occupied), at("e5").bb());
        assert_eq!(open_ray(at("d4"), Direction::SouthWest, occupied), at("c3").bb());
    }

    #[test]
    fn flip_turns_the_board() {
        let a1 = Square::from_coords(0, 0).unwrap();
        assert_eq!(a1.flip().name(), "h8");
        assert_eq!(a1.bb().flip(), a1.flip().bb());
    }
}
