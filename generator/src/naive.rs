//! A second, deliberately naive solver, to check [`crate::solver`] against.
//!
//! It shares only the rules (move generation, positions), the indexer and
//! the value types with the main solver; nothing of its method. Where the
//! main solver works backward (un-moves, one men configuration at a time,
//! distance buckets), this one works forward over a whole slice pair:
//!
//! 1. Slices are solved fewest pieces first, then fewest men (a promotion
//!    turns a man into a king), each together with its colour-swapped twin,
//!    since a quiet move leads from one to the other.
//! 2. Every position of the pair gets its moves once: moves that stay in the
//!    pair become edges; the others (captures and promotions) lead to
//!    slices solved before, so their values are summed up at once.
//! 3. Synchronous rounds `t = 0, 1, 2, ...`: every position not yet known
//!    is evaluated from the values known after the previous round. It
//!    becomes known in round `t` exactly when its value has distance `t`:
//!    a win when its best winning move (into a known loss, or a winning
//!    exit) takes `t` plies, a loss when every move leads into a known win
//!    and the longest takes `t` plies. A position whose candidate distance
//!    is larger waits for that round: a shorter win may still turn up.
//!    This is exact because a value of distance `t` depends only on values
//!    in the pair of distance `t - 1` or less.
//! 4. A round that changes nothing leaves the state as it is, so the next
//!    round that can change anything is the smallest candidate distance
//!    still waiting; the rounds in between are skipped. When nothing
//!    changes and nothing waits, every position still unknown is a draw.

use std::collections::HashMap;

use damka::movegen::{generate, Routes};
use damka::{Color, Material, Position, SliceIndex, Value, Variant, Wdl};
use rayon::prelude::*;

/// What a distance counts (the same two choices as the main solver's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Plies to the next capture or promotion, or to the end of the game.
    Conversion,
    /// Plies to the end of the game, through captures and promotions.
    End,
}

/// A slice's index and its values (packed with [`Value::pack`]) in index
/// order.
pub struct Table {
    pub index: SliceIndex,
    pub values: Vec<u16>,
}

/// The slices solved so far.
pub struct Tables {
    variant: Variant,
    metric: Metric,
    tables: HashMap<Material, Table>,
}

/// Slices, one per pair (the one that is not larger than its twin), in an
/// order where each comes after every slice it can reach by a capture
/// (fewer pieces) or a promotion (same pieces, one man fewer).
pub fn pairs_up_to(max_pieces: u8) -> Vec<Material> {
    let mut pairs = Vec::new();
    for pieces in 2..=max_pieces {
        for men in 0..=pieces {
            for own in 1..pieces {
                let opp = pieces - own;
                for own_men in 0..=own.min(men) {
                    let opp_men = men - own_men;
                    if opp_men > opp {
                        continue;
                    }
                    let m = Material::new(own - own_men, own_men, opp - opp_men, opp_men);
                    if m <= m.swap() {
                        pairs.push(m);
                    }
                }
            }
        }
    }
    pairs
}

impl Tables {
    /// No slice solved yet.
    pub fn new(variant: Variant, metric: Metric) -> Tables {
        Tables { variant, metric, tables: HashMap::new() }
    }

    /// Solves every slice of up to `max_pieces` pieces; `after_pair` sees
    /// the tables after each pair (the pair's first slice as argument).
    pub fn solve_up_to(
        variant: Variant,
        metric: Metric,
        max_pieces: u8,
        mut after_pair: impl FnMut(&Tables, Material),
    ) -> Tables {
        let mut tables = Tables::new(variant, metric);
        for m in pairs_up_to(max_pieces) {
            tables.solve_pair(m);
            after_pair(&tables, m);
        }
        tables
    }

    pub fn table(&self, material: Material) -> Option<&Table> {
        self.tables.get(&material)
    }

    /// Every slice solved so far.
    pub fn materials(&self) -> impl Iterator<Item = Material> + '_ {
        self.tables.keys().copied()
    }

    /// The value of `pos` (either side to move) for the side to move, if its
    /// slice is solved. A side without pieces has lost.
    pub fn value(&self, pos: &Position) -> Option<Value> {
        let pos = if pos.turn() == Color::Black { pos.flip() } else { *pos };
        let material = Material::of(&pos);
        if material.own_kings + material.own_men == 0 {
            return Some(Value::new(Wdl::Loss, 0));
        }
        let table = self.tables.get(&material)?;
        let i = table.index.index(&pos).expect("a White-to-move position of this slice");
        Some(Value::unpack(table.values[i as usize]).expect("packed by this solver"))
    }

    /// Solves `material` and its twin. Every slice they reach by a capture
    /// or a promotion must be solved already.
    pub fn solve_pair(&mut self, material: Material) {
        let mut slices = vec![material];
        if material.swap() != material {
            slices.push(material.swap());
        }
        let graph = Graph::build(&slices, self);
        let values = graph.solve();
        for (m, offset) in slices.iter().zip(&graph.offsets) {
            let index = SliceIndex::new(*m);
            let part = values[*offset..*offset + index.size() as usize].to_vec();
            self.tables.insert(*m, Table { index, values: part });
        }
    }

    /// The value of a move into `next` for the side that makes it.
    fn move_value(&self, next: &Position, converts: bool) -> Value {
        let reply = self.value(next).unwrap_or_else(|| {
            panic!("{} is reached by a capture or promotion but not solved yet", slice_of(next))
        });
        let plies = if converts && self.metric == Metric::Conversion { 1 } else { reply.plies.0 + 1 };
        match reply.wdl {
            Wdl::Win => Value::new(Wdl::Loss, plies),
            Wdl::Loss => Value::new(Wdl::Win, plies),
            Wdl::Draw => Value::DRAW,
            other => unreachable!("pure tables hold no {other}"),
        }
    }
}

fn slice_of(pos: &Position) -> Material {
    Material::of(&if pos.turn() == Color::Black { pos.flip() } else { *pos })
}

/// Not known yet (no packed value has all bits set: the result code 7 is
/// unused).
const UNKNOWN: u16 = u16::MAX;
/// No winning exit.
const NO_WIN: u16 = u16::MAX;

/// What the moves that leave the pair give the side to move.
#[derive(Clone, Copy)]
struct Exits {
    /// The shortest win among them, or [`NO_WIN`].
    shortest_win: u16,
    /// Some exit wins or draws: the position is not lost.
    saves: bool,
    /// The longest loss among them (0 if none).
    longest_loss: u16,
}

/// Positions per piece of work.
const CHUNK: usize = 1 << 14;

/// The positions of one slice pair, numbered slice after slice, with their
/// moves inside the pair and a summary of the moves that leave it.
struct Graph {
    offsets: Vec<usize>,
    len: usize,
    chunks: Vec<Chunk>,
}

/// The moves of positions `first .. first + exits.len()`: the successors of
/// position `first + i` are `next[start[i]..start[i + 1]]`.
struct Chunk {
    start: Vec<u32>,
    next: Vec<u32>,
    exits: Vec<Exits>,
}

impl Graph {
    fn build(slices: &[Material], tables: &Tables) -> Graph {
        let indexes: Vec<SliceIndex> = slices.iter().map(|m| SliceIndex::new(*m)).collect();
        let mut offsets = Vec::new();
        let mut len = 0usize;
        for index in &indexes {
            offsets.push(len);
            len += index.size() as usize;
        }
        assert!(len < u32::MAX as usize, "slice pair too large for the naive solver");
        let node = |pos: &Position| -> Option<u32> {
            let k = slices.iter().position(|m| *m == Material::of(pos))?;
            Some((offsets[k] + indexes[k].index(pos).expect("same slice") as usize) as u32)
        };
        let position = |n: usize| -> Position {
            let k = offsets.iter().rposition(|&o| o <= n).expect("offsets start at 0");
            indexes[k].position((n - offsets[k]) as u64)
        };
        let chunks = (0..len.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let range = c * CHUNK..len.min((c + 1) * CHUNK);
                let mut chunk = Chunk { start: vec![0], next: Vec::new(), exits: Vec::new() };
                let mut moves = Vec::new();
                for n in range {
                    let pos = position(n);
                    generate(&pos, tables.variant, Routes::Merge, &mut moves);
                    let mut exits = Exits { shortest_win: NO_WIN, saves: false, longest_loss: 0 };
                    for m in &moves {
                        let after = pos.play(m);
                        let converts = m.is_capture() || m.promotes();
                        // The successor, White to move, as its slice stores it.
                        match node(&after.flip()) {
                            Some(s) => {
                                assert!(!converts, "a capture or promotion changes the material");
                                chunk.next.push(s);
                            }
                            None => {
                                assert!(converts, "a quiet move keeps the material");
                                let v = tables.move_value(&after, converts);
                                match v.wdl {
                                    Wdl::Win => {
                                        exits.shortest_win = exits.shortest_win.min(v.plies.0);
                                        exits.saves = true;
                                    }
                                    Wdl::Draw => exits.saves = true,
                                    _ => exits.longest_loss = exits.longest_loss.max(v.plies.0),
                                }
                            }
                        }
                    }
                    chunk.start.push(chunk.next.len() as u32);
                    chunk.exits.push(exits);
                }
                chunk
            })
            .collect();
        Graph { offsets, len, chunks }
    }

    /// Runs the rounds; returns every position's packed value.
    fn solve(&self) -> Vec<u16> {
        let mut known = vec![UNKNOWN; self.len];
        let mut next = known.clone();
        let mut t: u16 = 0;
        loop {
            next.copy_from_slice(&known);
            let (changed, waiting) = next
                .par_chunks_mut(CHUNK)
                .zip(&self.chunks)
                .map(|(out, chunk)| round(chunk, out, &known, t))
                .reduce(|| (0, u16::MAX), |a, b| (a.0 + b.0, a.1.min(b.1)));
            std::mem::swap(&mut known, &mut next);
            if changed > 0 {
                t += 1;
            } else if waiting != u16::MAX {
                t = waiting;
            } else {
                break;
            }
        }
        for v in &mut known {
            if *v == UNKNOWN {
                *v = Value::DRAW.pack();
            }
        }
        known
    }
}

/// One round over one chunk: writes what becomes known in round `t` into
/// `out`; returns how many became known and the smallest round at which a
/// position still waits (`u16::MAX`: none).
fn round(chunk: &Chunk, out: &mut [u16], known: &[u16], t: u16) -> (usize, u16) {
    let mut changed = 0;
    let mut waiting = u16::MAX;
    for (i, slot) in out.iter_mut().enumerate() {
        if *slot != UNKNOWN {
            continue;
        }
        let exits = chunk.exits[i];
        let mut shortest_win = exits.shortest_win;
        let mut all_lose = !exits.saves;
        let mut longest_loss = exits.longest_loss;
        for &s in &chunk.next[chunk.start[i] as usize..chunk.start[i + 1] as usize] {
            let v = known[s as usize];
            if v == UNKNOWN {
                all_lose = false;
                continue;
            }
            let v = Value::unpack(v).expect("packed by this solver");
            // In the pair, every move is quiet: one more ply.
            match v.wdl {
                Wdl::Loss => shortest_win = shortest_win.min(v.plies.0 + 1),
                Wdl::Win => longest_loss = longest_loss.max(v.plies.0 + 1),
                other => unreachable!("only wins and losses become known in rounds, not {other}"),
            }
        }
        let candidate = if shortest_win != NO_WIN {
            Some(Value::new(Wdl::Win, shortest_win))
        } else if all_lose {
            Some(Value::new(Wdl::Loss, longest_loss))
        } else {
            None
        };
        if let Some(v) = candidate {
            let d = v.plies.0;
            assert!(d >= t, "a {v} should have been known before round {t}");
            if d == t {
                *slot = v.pack();
                changed += 1;
            } else {
                waiting = waiting.min(d);
            }
        }
    }
    (changed, waiting)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_cover_every_slice_once_after_what_they_reach() {
        let pairs = pairs_up_to(5);
        let mut covered: Vec<Material> = pairs.iter().flat_map(|m| [*m, m.swap()]).collect();
        covered.sort();
        covered.dedup();
        let mut all = Material::all_up_to(5);
        all.sort();
        assert_eq!(covered, all);
        for (i, m) in pairs.iter().enumerate() {
            for later in &pairs[i..] {
                for l in [*later, later.swap()] {
                    let reached_by_capture = l.pieces() < m.pieces();
                    let reached_by_promotion = l.pieces() == m.pieces() && l.men() + 1 == m.men();
                    assert!(!reached_by_capture && !reached_by_promotion, "{m} before {l}");
                }
            }
        }
    }

    #[test]
    fn king_against_king() {
        let tables = Tables::solve_up_to(Variant::Russian, Metric::Conversion, 2, |_, _| {});
        let value = |fen| tables.value(&damka::fen::parse(fen, Variant::Russian).unwrap()).unwrap();
        // The side to move captures at once.
        assert_eq!(value("W:WKa1:BKd4"), Value::new(Wdl::Win, 1));
        // Black on a1 may only go along the main road, where White on h8
        // takes it whichever square it chooses.
        assert_eq!(value("B:WKh8:BKa1"), Value::new(Wdl::Loss, 2));
        assert_eq!(value("W:WKa1:BKh2"), Value::DRAW);
    }
}
