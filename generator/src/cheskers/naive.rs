//! A deliberately plain Cheskers solver, to check the tables against.
//!
//! It shares the rules (move generation, positions), the indexer and the
//! value types with [`super::solver`], nothing of its method: no slice
//! order, no un-moves, no counts. Every stored position of every slice up
//! to N pieces is one node; its successors are found once by playing its
//! legal moves. Then all values start as draws and every round computes
//! every position afresh from the previous round's values (the value of
//! the game cut off after that many plies, a draw at the cut), until a
//! round changes nothing: that is the value of the game.

use std::collections::HashMap;

use damka::cheskers::{legal_moves, Kind, Material, Move, Position, Rules, SliceIndex};
use damka::{Color, Value, Wdl};
use rayon::prelude::*;

/// A successor: a stored position (a number across all slices) or the end
/// of the game (the side to move there has no king left).
#[derive(Clone, Copy)]
struct Successor {
    node: Option<u32>,
    /// A capture or promotion: the distance starts again.
    converts: bool,
}

/// Better for the side to move is greater: a win sooner, a loss later.
fn rank(v: Value) -> (i8, i32) {
    match v.wdl {
        Wdl::Win => (1, -(v.plies.0 as i32)),
        Wdl::Loss => (-1, v.plies.0 as i32),
        _ => (0, 0),
    }
}

/// The value of every position of every stored slice with up to
/// `max_pieces` pieces, by slice, in index order.
pub fn solve(max_pieces: u8) -> HashMap<Material, Vec<Value>> {
    let slices: Vec<(Material, SliceIndex)> =
        Material::all_up_to(max_pieces).into_iter().map(|m| (m, SliceIndex::new(m))).collect();
    // Each slice's first node and indexer.
    let mut first: HashMap<Material, (u64, &SliceIndex)> = HashMap::new();
    let mut starts = Vec::new();
    let mut nodes = 0u64;
    for (m, index) in &slices {
        first.insert(*m, (nodes, index));
        starts.push(nodes);
        nodes += index.size();
    }
    let node_of = |pos: &Position| -> Option<u32> {
        if pos.of(pos.turn(), Kind::King).is_empty() {
            return None;
        }
        let white = if pos.turn() == Color::White { *pos } else { pos.flipped() };
        let (start, index) = first[&Material::of(&white)];
        Some((start + index.index(&white).expect("in its slice")) as u32)
    };
    let successors: Vec<Vec<Successor>> = (0..nodes)
        .into_par_iter()
        .map(|n| {
            let slice = starts.partition_point(|&s| s <= n) - 1;
            let pos = slices[slice].1.position(n - starts[slice]);
            let moves = legal_moves(&pos, Rules::default());
            let successor = |mv: &Move| Successor {
                node: node_of(&pos.play(mv)),
                converts: mv.is_capture() || mv.promotion().is_some(),
            };
            moves.iter().map(successor).collect()
        })
        .collect();

    let mut values = vec![Value::DRAW; nodes as usize];
    loop {
        let next: Vec<Value> = successors
            .par_iter()
            .map(|moves| {
                let after = |s: &Successor| {
                    let there = s.node.map_or(Value::new(Wdl::Loss, 0), |n| values[n as usize]);
                    match there.wdl {
                        Wdl::Draw => Value::DRAW,
                        wdl => Value::new(wdl.negate(), if s.converts { 1 } else { there.plies.0 + 1 }),
                    }
                };
                moves.iter().map(after).max_by_key(|v| rank(*v)).unwrap_or(Value::new(Wdl::Loss, 0))
            })
            .collect();
        if next == values {
            break;
        }
        values = next;
    }
    slices
        .iter()
        .map(|(m, index)| {
            let from = first[m].0 as usize;
            (*m, values[from..from + index.size() as usize].to_vec())
        })
        .collect()
}
