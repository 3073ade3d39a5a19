//! A deliberately plain Cheskers solver, to check the tables against.
//!
//! It shares the rules (move generation, positions), the indexer and the
//! value types with [`super::solver`], nothing of its method: no slice
//! order, no un-moves, no counts. Every stored position of every slice up
//! to N pieces is one node; its successors are found once by playing its
//! legal moves. Then all values start as draws and every round computes
//! positions afresh from the previous round's values (the value of the
//! game cut off after that many plies, a draw at the cut), until a round
//! changes nothing: that is the value of the game.
//!
//! A round recomputes only the positions with a successor that changed in
//! the round before: the others would come out as they were, since a
//! value is a function of its successors' values alone. The predecessors
//! this needs are the successor lists turned around, not un-moves.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use damka::cheskers::{legal_moves, Kind, Material, Position, Rules, SliceIndex};
use damka::{Color, Value, Wdl};
use rayon::prelude::*;

/// A successor, packed: the node's number, or [`GAME_OVER`] (the side to
/// move there has no king left), with [`CONVERTS`] set for a capture or a
/// promotion, after which the distance starts again.
type Successor = u32;
const CONVERTS: u32 = 1 << 31;
const GAME_OVER: u32 = CONVERTS - 1;

/// Positions per task when listing successors.
const CHUNK: u64 = 1 << 16;

/// Better for the side to move is greater: a win sooner, a loss later.
fn rank(v: Value) -> (i8, i32) {
    match v.wdl {
        Wdl::Win => (1, -(v.plies.0 as i32)),
        Wdl::Loss => (-1, v.plies.0 as i32),
        _ => (0, 0),
    }
}

/// A directed graph in two flat arrays: node n's edges are
/// `edges[starts[n]..starts[n + 1]]`.
struct Graph {
    starts: Vec<usize>,
    edges: Vec<u32>,
}

impl Graph {
    fn of(&self, n: usize) -> &[u32] {
        &self.edges[self.starts[n]..self.starts[n + 1]]
    }

    /// The same edges pointing the other way, without the flags and the
    /// game's end.
    fn reversed(&self) -> Graph {
        let nodes = self.starts.len() - 1;
        let mut starts = vec![0usize; nodes + 1];
        let targets = || self.edges.iter().map(|&e| e & !CONVERTS).filter(|&t| t != GAME_OVER);
        for t in targets() {
            starts[t as usize + 1] += 1;
        }
        for n in 0..nodes {
            starts[n + 1] += starts[n];
        }
        let mut fill = starts.clone();
        let mut edges = vec![0u32; starts[nodes]];
        for n in 0..nodes {
            for &e in self.of(n) {
                let t = e & !CONVERTS;
                if t != GAME_OVER {
                    edges[fill[t as usize]] = n as u32;
                    fill[t as usize] += 1;
                }
            }
        }
        Graph { starts, edges }
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
    assert!(nodes < GAME_OVER as u64, "{nodes} positions: too many for the plain solver");
    let node_of = |pos: &Position| -> u32 {
        if pos.of(pos.turn(), Kind::King).is_empty() {
            return GAME_OVER;
        }
        let white = if pos.turn() == Color::White { *pos } else { pos.flipped() };
        let (start, index) = first[&Material::of(&white)];
        (start + index.index(&white).expect("in its slice")) as u32
    };
    let chunks: Vec<(Vec<u32>, Vec<Successor>)> = (0..nodes.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut counts, mut edges) = (Vec::new(), Vec::new());
            for n in c * CHUNK..nodes.min((c + 1) * CHUNK) {
                let slice = starts.partition_point(|&s| s <= n) - 1;
                let pos = slices[slice].1.position(n - starts[slice]);
                let moves = legal_moves(&pos, Rules::default());
                counts.push(moves.len() as u32);
                for mv in moves.iter() {
                    let converts = mv.is_capture() || mv.promotion().is_some();
                    edges.push(node_of(&pos.play(mv)) | if converts { CONVERTS } else { 0 });
                }
            }
            (counts, edges)
        })
        .collect();
    let mut successors = Graph { starts: vec![0], edges: Vec::new() };
    for (counts, edges) in chunks {
        for c in counts {
            successors.starts.push(successors.starts.last().unwrap() + c as usize);
        }
        successors.edges.extend(edges);
    }
    let predecessors = successors.reversed();

    let mut values = vec![Value::DRAW; nodes as usize];
    let mut due: Vec<u32> = (0..nodes as u32).collect();
    let marked: Vec<AtomicBool> = (0..nodes).map(|_| AtomicBool::new(false)).collect();
    while !due.is_empty() {
        let changed: Vec<(u32, Value)> = due
            .par_iter()
            .filter_map(|&n| {
                let after = |&s: &Successor| {
                    let there = match s & !CONVERTS {
                        GAME_OVER => Value::new(Wdl::Loss, 0),
                        t => values[t as usize],
                    };
                    match there.wdl {
                        Wdl::Draw => Value::DRAW,
                        wdl => Value::new(wdl.negate(), if s & CONVERTS != 0 { 1 } else { there.plies.0 + 1 }),
                    }
                };
                let moves = successors.of(n as usize);
                let v = moves.iter().map(after).max_by_key(|v| rank(*v)).unwrap_or(Value::new(Wdl::Loss, 0));
                (v != values[n as usize]).then_some((n, v))
            })
            .collect();
        for &(n, v) in &changed {
            values[n as usize] = v;
        }
        due = changed
            .par_iter()
            .flat_map_iter(|&(n, _)| predecessors.of(n as usize).iter().copied())
            .filter(|&p| !marked[p as usize].swap(true, Ordering::Relaxed))
            .collect();
        due.par_iter().for_each(|&p| marked[p as usize].store(false, Ordering::Relaxed));
    }
    slices
        .iter()
        .map(|(m, index)| {
            let from = first[m].0 as usize;
            (*m, values[from..from + index.size() as usize].to_vec())
        })
        .collect()
}
