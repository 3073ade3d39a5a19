//! Helpers shared by the integration tests.

use damka::movegen::{generate, Routes};
use damka::{Bitboard, Move, Position, Square, Variant};

pub fn moves(pos: &Position, variant: Variant, routes: Routes) -> Vec<Move> {
    let mut list = Vec::new();
    generate(pos, variant, routes, &mut list);
    list
}

/// A move's squares (start, then each landing or the target), captured set
/// and promotion.
pub type Shape = (Vec<Square>, Bitboard, bool);

/// A move's shape, seen from the other side of the board if `flip`.
pub fn shape(m: &Move, flip: bool) -> Shape {
    let turn = |sq: Square| if flip { sq.flip() } else { sq };
    let captured = if flip { m.captured().flip() } else { m.captured() };
    (m.squares().into_iter().map(turn).collect(), captured, m.promotes())
}
