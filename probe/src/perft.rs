//! perft: the number of leaves of the legal-move tree, the standard test of
//! a move generator.

use crate::movegen::{generate, Routes};
use crate::position::Position;
use crate::variant::Variant;

/// Leaves at `depth` plies. The last ply is counted from the move list
/// rather than played out.
pub fn perft(pos: &Position, variant: Variant, depth: u32, routes: Routes) -> u64 {
    let mut lists = vec![Vec::with_capacity(64); depth as usize + 1];
    walk(pos, variant, depth, routes, &mut lists)
}

fn walk(pos: &Position, variant: Variant, depth: u32, routes: Routes, lists: &mut [Vec<crate::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, rest) = lists.split_first_mut().expect("one list per ply");
    generate(pos, variant, routes, list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter().map(|m| walk(&pos.play(m), variant, depth - 1, routes, rest)).sum()
}
