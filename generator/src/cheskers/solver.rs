//! The Cheskers solver: retrograde analysis of one slice pair (a slice and
//! its colour-swapped twin, which quiet moves go back and forth between).
//!
//! Every position's legal moves are generated once: quiet moves (steps,
//! slides, leaps that capture and promote nothing) are counted, and the
//! others (captures, promotions), which leave the pair, are valued at once
//! from the slices solved before. Then values go backwards level by level,
//! a level a ply: a lost position makes its quiet predecessors won one ply
//! later; a won one takes one off each predecessor's count of open quiet
//! moves, and the predecessor whose count reaches zero is lost (unless a
//! capture or promotion saves it). What is never decided is a draw.
//! Distances are to the next conversion (capture or promotion), as in the
//! draughts tables' pure values (docs/TABLEBASE.md).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};
use damka::cheskers::{generate, quiet_predecessors, Kind, Material, Position, Rules, SliceIndex};
use damka::movegen::Routes;
use damka::format::MAX_PLIES;
use damka::{Color, Value, Wdl};
use rayon::prelude::*;

use crate::unit::better;

/// A solved slice: a packed [`Value`] per position, in index order.
pub struct Solved {
    pub index: SliceIndex,
    pub values: Vec<u16>,
}

/// The slices solved so far, by material.
pub type Known = HashMap<Material, Arc<Solved>>;

/// A position not decided yet (no value packs to it: its code is 7).
const UNDECIDED: u16 = u16::MAX;

/// The colour-swapped twin of a slice: where its quiet moves lead.
pub fn twin(m: Material) -> Material {
    Material { own: m.opp, opp: m.own }
}

/// The pair of `m` named by its smaller slice, and its slices.
pub fn pair_of(m: Material) -> Vec<Material> {
    let (a, b) = (m.min(twin(m)), m.max(twin(m)));
    if a == b { vec![a] } else { vec![a, b] }
}

/// Every pair up to `max_pieces` in an order where what a pair's captures
/// and promotions lead to comes first: fewer pieces, then fewer men (a
/// promotion turns a man into another piece).
pub fn pairs_in_order(max_pieces: u8) -> Vec<Material> {
    let mut pairs: Vec<Material> = Material::all_up_to(max_pieces).into_iter().filter(|&m| m <= twin(m)).collect();
    pairs.sort_by_key(|m| (m.pieces(), m.own[0] + m.opp[0], *m));
    pairs
}

/// The value of a position after a capture or promotion, for its side to
/// move: from a slice solved before, or lost at once when it has no king.
pub fn value_after(pos: &Position, known: &Known) -> Value {
    if pos.of(pos.turn(), Kind::King).is_empty() {
        return Value::new(Wdl::Loss, 0);
    }
    let white = if pos.turn() == Color::White { *pos } else { pos.flipped() };
    let solved = &known[&Material::of(&white)];
    let i = solved.index.index(&white).expect("a position of the slice");
    Value::unpack(solved.values[i as usize]).expect("solved values are values")
}

/// Solves the pair of `material`; `progress` hears of each position once
/// when its moves are generated. Every slice its captures and promotions
/// reach must be in `known`.
pub fn solve_pair(material: Material, known: &Known, progress: &(dyn Fn(u64) + Sync)) -> Result<Vec<Solved>> {
    let slices: Vec<SliceIndex> = pair_of(material).into_iter().map(SliceIndex::new).collect();
    // Positions are numbered across the pair: the second slice after the first.
    let offsets = [0, slices[0].size()];
    let total: u64 = slices.iter().map(SliceIndex::size).sum();
    let locate = |g: u64| if g < offsets[1] { (0, g) } else { (1, g - offsets[1]) };
    let twin_of = |s: usize| if slices.len() == 1 { 0 } else { 1 - s };

    let values: Vec<AtomicU16> = (0..total).map(|_| AtomicU16::new(UNDECIDED)).collect();
    let open: Vec<AtomicU8> = (0..total).map(|_| AtomicU8::new(0)).collect();
    // The best capture or promotion of an undecided position, if any.
    let mut exits: Vec<u16> = vec![UNDECIDED; total as usize];

    // Moves once: count the quiet ones, value the others; seed the levels.
    let seeds: Vec<(u64, u16)> = exits
        .par_chunks_mut(1 << 12)
        .enumerate()
        .flat_map_iter(|(chunk, exits)| {
            let first = (chunk << 12) as u64;
            let mut seeds = Vec::new();
            let mut moves = Vec::with_capacity(64);
            for (k, exit) in exits.iter_mut().enumerate() {
                let g = first + k as u64;
                let (s, i) = locate(g);
                let pos = slices[s].position(i);
                let (mut quiet, mut best) = (0u8, None);
                generate(&pos, Rules::default(), Routes::Merge, &mut moves);
                for m in &moves {
                    if m.is_capture() || m.promotion().is_some() {
                        let v = value_after(&pos.play(m), known).back_one_ply(true);
                        best = Some(best.map_or(v, |b| better(b, v)));
                    } else {
                        quiet += 1;
                    }
                }
                let decided = match best {
                    _ if quiet == 0 => Some(best.unwrap_or(Value::new(Wdl::Loss, 0))),
                    Some(v) if v.wdl == Wdl::Win => Some(v),
                    _ => None,
                };
                // Every quiet move counted, decided or not: each is taken
                // off once at most, when the position it leads to is won.
                open[g as usize].store(quiet, Ordering::Relaxed);
                match decided {
                    Some(v) => {
                        values[g as usize].store(v.pack(), Ordering::Relaxed);
                        if v.wdl != Wdl::Draw {
                            seeds.push((g, v.plies.0));
                        }
                    }
                    None => *exit = best.map_or(UNDECIDED, Value::pack),
                }
            }
            progress(exits.len() as u64);
            seeds
        })
        .collect();
    let exits = exits;

    // Decided values go back a ply a level.
    let mut level: Vec<u64> = seeds.iter().filter(|s| s.1 == 0).map(|s| s.0).collect();
    let mut later: Vec<u64> = seeds.iter().filter(|s| s.1 == 1).map(|s| s.0).collect();
    let mut plies: u16 = 0;
    while !level.is_empty() || !later.is_empty() {
        if plies >= MAX_PLIES {
            bail!("{material}: a distance longer than a table entry holds ({MAX_PLIES} plies)");
        }
        let next_plies = plies + 1;
        let reached: Vec<u64> = level
            .par_chunks(1 << 10)
            .flat_map_iter(|chunk| {
                let mut reached = Vec::new();
                let mut before = Vec::with_capacity(64);
                let (mut places, mut undecided) = (Vec::with_capacity(64), Vec::with_capacity(64));
                for &g in chunk {
                    let (s, i) = locate(g);
                    let lost = Value::unpack(values[g as usize].load(Ordering::Relaxed)).map(|v| v.wdl) == Some(Wdl::Loss);
                    let t = twin_of(s);
                    quiet_predecessors(&slices[s].position(i), &mut before);
                    // A quiet un-move keeps the material: the twin slice's.
                    places.clear();
                    places.extend(before.iter().map(|q| (offsets[t] + slices[t].index_unchecked(&q.flipped())) as usize));
                    // Plain loads first, which the processor overlaps (a
                    // locked update waits for each miss in turn); only the
                    // undecided predecessors need one.
                    undecided.clear();
                    undecided.extend(places.iter().map(|&p| values[p].load(Ordering::Relaxed) == UNDECIDED));
                    for (&p, _) in places.iter().zip(&undecided).filter(|(_, open)| **open) {
                        let decide = if lost {
                            Some(Value::new(Wdl::Win, next_plies))
                        } else if open[p].fetch_sub(1, Ordering::Relaxed) == 1 {
                            // Its last quiet move lets the opponent win: lost,
                            // unless a capture or promotion draws.
                            (exits[p] == UNDECIDED || Value::unpack(exits[p]).is_some_and(|e| e.wdl == Wdl::Loss))
                                .then(|| Value::new(Wdl::Loss, next_plies))
                        } else {
                            None
                        };
                        if let Some(v) = decide {
                            let swapped = values[p].compare_exchange(UNDECIDED, v.pack(), Ordering::Relaxed, Ordering::Relaxed);
                            if swapped.is_ok() {
                                reached.push(p as u64);
                            }
                        }
                    }
                }
                reached
            })
            .collect();
        level = std::mem::take(&mut later);
        level.extend(reached);
        plies = next_plies;
    }

    let mut values: Vec<u16> = values
        .into_iter()
        .map(|v| match v.into_inner() {
            UNDECIDED => Value::DRAW.pack(),
            packed => packed,
        })
        .collect();
    let second = values.split_off(offsets[1] as usize);
    Ok(slices.into_iter().zip([values, second]).map(|(index, values)| Solved { index, values }).collect())
}
