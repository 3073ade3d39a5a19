//! A move: where a piece starts and ends, the route it takes and what it
//! captures.

use crate::board::{Bitboard, Square};

/// The longest route a capture can take: one landing per captured piece.
pub const MAX_ROUTE: usize = 12;

/// One legal move. Two capture routes with the same start, end, captured
/// set and promotion lead to the same position; move generation keeps one
/// of them unless asked to count routes.
///
/// Moves are equal when their start, route, captured set and promotion
/// are; whatever the route array holds past its length does not count.
#[derive(Clone, Copy)]
pub struct Move {
    from: Square,
    to: Square,
    captured: Bitboard,
    promotes: bool,
    /// Landing squares after each capture; the last one is `to`. Empty for a
    /// quiet move.
    route: [Square; MAX_ROUTE],
    route_len: u8,
}

impl Move {
    pub(crate) fn quiet(from: Square, to: Square, promotes: bool) -> Move {
        Move { from, to, captured: Bitboard::EMPTY, promotes, route: [from; MAX_ROUTE], route_len: 0 }
    }

    /// A capture whose landings are the first `len` squares of `route`.
    /// The whole array is taken (a fixed-size copy); the rest is ignored.
    #[inline]
    pub(crate) fn capture(
        from: Square,
        route: [Square; MAX_ROUTE],
        len: usize,
        captured: Bitboard,
        promotes: bool,
    ) -> Move {
        debug_assert!((1..=MAX_ROUTE).contains(&len));
        Move { from, to: route[len - 1], captured, promotes, route, route_len: len as u8 }
    }

    #[inline]
    pub fn from(&self) -> Square {
        self.from
    }

    #[inline]
    pub fn to(&self) -> Square {
        self.to
    }

    /// The pieces this move removes.
    #[inline]
    pub fn captured(&self) -> Bitboard {
        self.captured
    }

    #[inline]
    pub fn is_capture(&self) -> bool {
        self.captured.has_any()
    }

    /// A man that ends the move as a king.
    #[inline]
    pub fn promotes(&self) -> bool {
        self.promotes
    }

    /// A capture or promotion: a conversion, which restarts the quiet
    /// count of the move-limit rules.
    #[inline]
    pub fn converts(&self) -> bool {
        self.is_capture() || self.promotes
    }

    /// Landing squares after each capture (empty for a quiet move).
    pub fn route(&self) -> &[Square] {
        &self.route[..self.route_len as usize]
    }

    /// The squares a move is written with: start, then each landing.
    pub fn squares(&self) -> Vec<Square> {
        let mut v = vec![self.from];
        if self.is_capture() {
            v.extend_from_slice(self.route());
        } else {
            v.push(self.to);
        }
        v
    }

    /// Same start, end, captured set and promotion: the same resulting
    /// position.
    #[inline]
    pub fn same_outcome(&self, other: &Move) -> bool {
        self.from == other.from
            && self.to == other.to
            && self.captured == other.captured
            && self.promotes == other.promotes
    }
}

impl PartialEq for Move {
    fn eq(&self, other: &Move) -> bool {
        self.same_outcome(other) && self.route() == other.route()
    }
}

impl Eq for Move {}

impl std::hash::Hash for Move {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.from, self.to, self.captured, self.promotes, self.route()).hash(state);
    }
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sep = if self.is_capture() { ":" } else { "-" };
        let text: Vec<String> = self.squares().iter().map(|s| s.name()).collect();
        f.write_str(&text.join(sep))
    }
}
