//! perft: the number of leaves of the legal-move tree, the standard test of
//! a move generator.

use crate::movegen::{count_moves_with, generate, Routes};
use crate::moves::Move;
use crate::position::Position;
use crate::variant::Variant;

/// How the last ply is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Leaves {
    /// Count the moves of the last ply without playing them ("bulk
    /// counting"); quiet moves are counted without being built.
    #[default]
    Counted,
    /// Build and play every leaf move: the figure to compare with programs
    /// that make every move.
    Made,
}

/// Leaves at `depth` plies, the last ply counted from the move list.
pub fn perft(pos: &Position, variant: Variant, depth: u32, routes: Routes) -> u64 {
    perft_with(pos, variant, depth, routes, Leaves::Counted)
}

/// Leaves at `depth` plies, the last ply counted as `leaves` says.
pub fn perft_with(pos: &Position, variant: Variant, depth: u32, routes: Routes, leaves: Leaves) -> u64 {
    let mut lists = vec![Vec::with_capacity(64); depth as usize + 1];
    Walk { variant, routes, leaves }.count(pos, depth, &mut lists)
}

struct Walk {
    variant: Variant,
    routes: Routes,
    leaves: Leaves,
}

impl Walk {
    /// `lists` holds one move list per remaining ply.
    fn count(&self, pos: &Position, depth: u32, lists: &mut [Vec<Move>]) -> u64 {
        let (list, rest) = lists.split_first_mut().expect("one list per ply");
        match (depth, self.leaves) {
            (0, _) => {
                // Keep the played leaf from being optimised away.
                std::hint::black_box(pos);
                1
            }
            (1, Leaves::Counted) => count_moves_with(pos, self.variant, self.routes, list) as u64,
            _ => {
                generate(pos, self.variant, self.routes, list);
                list.iter().map(|m| self.count(&pos.play(m), depth - 1, rest)).sum()
            }
        }
    }
}
