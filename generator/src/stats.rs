//! `damka stats`: what each slice's table holds, counted from the written
//! files with capture positions resolved, as an engine reads them (not from
//! their headers; `damka verify` checks that the two agree). The JSON keys
//! are documented in docs/STATS.md.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Result};
use damka::format::Counts;
use damka::{fen, Material, Value, Variant};
use rayon::prelude::*;
use serde::Serialize;

use crate::catalog::{self, SliceId};
use crate::solver::Solved;

/// The figures of one slice, from the side to move's view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SliceStats {
    pub variant: String,
    /// Material from the side to move: `KKMvK`.
    pub material: String,
    pub pieces: u8,
    /// The rule set the table was built with.
    pub rules: String,
    pub positions: u64,
    pub wins: u64,
    pub cursed_wins: u64,
    pub draws: u64,
    pub blessed_losses: u64,
    pub losses: u64,
    /// The longest win (plies to conversion) and the first position in
    /// index order that has it; `None` if the slice has no win.
    pub longest_win: Option<Example>,
    /// The same for losses.
    pub longest_loss: Option<Example>,
}

/// A distance and a position (FEN, White to move) at that distance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Example {
    pub plies: u16,
    pub fen: String,
}

/// What a table's packed values hold: the count of each result, the
/// longest win and loss, and the entries that are no value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub counts: Counts,
    /// The longest win in plies and the first index that has it.
    pub longest_win: Option<(u16, u64)>,
    /// The same for losses.
    pub longest_loss: Option<(u16, u64)>,
    /// Entries that unpack to no value, and the first of them (index, bits).
    pub invalid: u64,
    pub first_invalid: Option<(u64, u16)>,
}

impl Tally {
    /// Chunks tallied apart, in parallel, and merged.
    pub fn of(values: &[u16]) -> Tally {
        const CHUNK: usize = 1 << 16;
        values
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| Tally::of_run(chunk, (c * CHUNK) as u64))
            .reduce(Tally::default, Tally::merged)
    }

    /// The tally of `values`, the first at index `first`.
    fn of_run(values: &[u16], first: u64) -> Tally {
        // By result, Loss (-2) first: count, longest distance, where.
        let mut by_result = [(0u64, None::<(u16, u64)>); 5];
        let mut tally = Tally::default();
        for (i, &bits) in (first..).zip(values) {
            let Some(v) = Value::unpack(bits) else {
                tally.invalid += 1;
                tally.first_invalid.get_or_insert((i, bits));
                continue;
            };
            let (count, longest) = &mut by_result[(v.wdl as i8 + 2) as usize];
            *count += 1;
            if longest.is_none_or(|(plies, _)| v.plies.0 > plies) {
                *longest = Some((v.plies.0, i));
            }
        }
        let [loss, blessed, draw, cursed, win] = by_result;
        tally.counts =
            Counts { wins: win.0, cursed_wins: cursed.0, draws: draw.0, blessed_losses: blessed.0, losses: loss.0 };
        (tally.longest_win, tally.longest_loss) = (win.1, loss.1);
        tally
    }

    /// Both tallies as one, in whichever order: the longest distances and
    /// the invalid entry found first by index.
    fn merged(self, other: Tally) -> Tally {
        let (a, b) = (self.counts, other.counts);
        // The longer distance; of equal ones, the lower index.
        let longer = |x: Option<(u16, u64)>, y: Option<(u16, u64)>| match (x, y) {
            (Some(x), Some(y)) => Some(if (y.0, std::cmp::Reverse(y.1)) > (x.0, std::cmp::Reverse(x.1)) { y } else { x }),
            (x, y) => x.or(y),
        };
        Tally {
            counts: Counts {
                wins: a.wins + b.wins,
                cursed_wins: a.cursed_wins + b.cursed_wins,
                draws: a.draws + b.draws,
                blessed_losses: a.blessed_losses + b.blessed_losses,
                losses: a.losses + b.losses,
            },
            longest_win: longer(self.longest_win, other.longest_win),
            longest_loss: longer(self.longest_loss, other.longest_loss),
            invalid: self.invalid + other.invalid,
            first_invalid: match (self.first_invalid, other.first_invalid) {
                (Some(x), Some(y)) => Some(if y.0 < x.0 { y } else { x }),
                (x, y) => x.or(y),
            },
        }
    }

    /// The longest win and loss in plies, 0 where there is none (as table
    /// headers record them).
    pub fn longest_plies(&self) -> (u16, u16) {
        (self.longest_win.map_or(0, |w| w.0), self.longest_loss.map_or(0, |l| l.0))
    }
}

/// What `damka stats` found in a directory.
#[derive(Debug, Default)]
pub struct Collected {
    /// The slices counted, in dependency order.
    pub slices: Vec<SliceStats>,
    /// The slices that could not be counted, each error naming the file:
    /// one stray or damaged file does not hide the figures of the others.
    pub problems: Vec<anyhow::Error>,
}

/// The statistics of every slice in `dir` (of `variant` only, if given).
pub fn collect(dir: &Path, variant: Option<Variant>) -> Result<Collected> {
    let slices = catalog::slices(dir, variant)?;
    let mut collected = Collected::default();
    // Slices come fewest pieces first, so the slices a capture leads to are
    // read (and kept) before the slices that need them.
    let mut known: HashMap<SliceId, Solved> = HashMap::new();
    for (i, &id) in slices.iter().enumerate() {
        let read = {
            let lookup = |m: Material| known.get(&SliceId { variant: id.variant, material: m }).map(Solved::view);
            catalog::read_slice(dir, id, &lookup, catalog::Want::Values)
        };
        match read.and_then(|(solved, header)| Ok((of_slice(id, &header.rules_name, &solved)?, solved))) {
            Ok((stats, solved)) => {
                collected.slices.push(stats);
                known.insert(id, solved);
            }
            Err(e) => collected.problems.push(e),
        }
        // A later slice's captures reach only slices of fewer pieces.
        let most = slices[i + 1..].iter().filter(|s| s.variant == id.variant).map(|s| s.material.pieces()).max();
        known.retain(|k, _| k.variant == id.variant && k.material.pieces() < most.unwrap_or(0));
    }
    Ok(collected)
}

/// The statistics of one slice from its values (capture positions resolved).
fn of_slice(id: SliceId, rules: &str, solved: &Solved) -> Result<SliceStats> {
    let tally = Tally::of(&solved.values);
    if let Some((i, bits)) = tally.first_invalid {
        bail!("{id}: entry {i} is not a value ({bits:#06x})");
    }
    let index = &solved.index;
    let example = |found: Option<(u16, u64)>| {
        found.map(|(plies, i)| Example { plies, fen: fen::write(&index.position(i), id.variant) })
    };
    let slice = (id.variant.to_string(), id.material.to_string(), id.material.pieces());
    Ok(SliceStats::of(slice, rules, index.size(), &tally, example))
}

impl SliceStats {
    /// The figures of a slice (game, material, pieces) from the tally of
    /// its values; `example` makes the example of a longest distance.
    pub fn of(
        (variant, material, pieces): (String, String, u8),
        rules: &str,
        positions: u64,
        tally: &Tally,
        example: impl Fn(Option<(u16, u64)>) -> Option<Example>,
    ) -> SliceStats {
        let c = tally.counts;
        SliceStats {
            variant,
            material,
            pieces,
            rules: rules.to_string(),
            positions,
            wins: c.wins,
            cursed_wins: c.cursed_wins,
            draws: c.draws,
            blessed_losses: c.blessed_losses,
            losses: c.losses,
            longest_win: example(tally.longest_win),
            longest_loss: example(tally.longest_loss),
        }
    }
}

/// The statistics as JSON: an array with one object per slice.
pub fn to_json(stats: &[SliceStats]) -> String {
    serde_json::to_string_pretty(stats).expect("plain data serialises")
}

/// The statistics as a table for people, one block per variant and rule
/// set, with a total line.
pub fn to_table(stats: &[SliceStats]) -> String {
    let mut out = String::new();
    let mut rest = stats;
    while let Some(first) = rest.first() {
        let n = rest.iter().take_while(|s| s.variant == first.variant && s.rules == first.rules).count();
        let (group, tail) = rest.split_at(n);
        rest = tail;
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "{}, rule set {}", first.variant, first.rules);
        let _ = writeln!(
            out,
            "{:<10} {:>12} {:>12} {:>9} {:>12} {:>9} {:>12}  {:>8}  {:>9}  longest win, example",
            "slice", "positions", "wins", "cursed", "draws", "blessed", "losses", "max win", "max loss"
        );
        for s in group {
            let plies = |e: &Option<Example>| e.as_ref().map_or("-".to_string(), |e| e.plies.to_string());
            let example = s.longest_win.as_ref().map_or("", |e| e.fen.as_str());
            let _ = writeln!(
                out,
                "{:<10} {:>12} {:>12} {:>9} {:>12} {:>9} {:>12}  {:>8}  {:>9}  {example}",
                s.material,
                s.positions,
                s.wins,
                s.cursed_wins,
                s.draws,
                s.blessed_losses,
                s.losses,
                plies(&s.longest_win),
                plies(&s.longest_loss),
            );
        }
        let sum = |f: fn(&SliceStats) -> u64| group.iter().map(f).sum::<u64>();
        let _ = writeln!(
            out,
            "{:<10} {:>12} {:>12} {:>9} {:>12} {:>9} {:>12}",
            format!("{} slices", group.len()),
            sum(|s| s.positions),
            sum(|s| s.wins),
            sum(|s| s.cursed_wins),
            sum(|s| s.draws),
            sum(|s| s.blessed_losses),
            sum(|s| s.losses),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tallied in parallel chunks, a slice gives what one pass in index
    /// order gives: the longest distances at their first index, the first
    /// invalid entry, whichever chunk holds them.
    #[test]
    fn chunks_merged_are_one_tally() {
        let n = 5 * (1 << 16) + 17;
        let mut values: Vec<u16> = (0..n).map(|i| Value::new(damka::Wdl::Win, (i % 40) as u16).pack()).collect();
        for at in [70_000, 200_000, 300_000] {
            values[at] = Value::new(damka::Wdl::Win, 90).pack();
            values[at + 1] = Value::new(damka::Wdl::Loss, 33).pack();
        }
        values[250_000] = u16::MAX;
        values[140_000] = u16::MAX - 1;
        let t = Tally::of(&values);
        assert_eq!(t, Tally::of_run(&values, 0));
        assert_eq!((t.longest_win, t.longest_loss), (Some((90, 70_000)), Some((33, 70_001))));
        assert_eq!((t.invalid, t.first_invalid), (2, Some((140_000, u16::MAX - 1))));
        assert_eq!(t.counts.wins + t.counts.losses, n as u64 - 2);
    }
    use damka::Wdl;

    #[test]
    fn tally_counts_each_result_and_keeps_the_first_longest() {
        let values: Vec<u16> = [
            Value::new(Wdl::Win, 3),
            Value::DRAW,
            Value::new(Wdl::Loss, 4),
            Value::new(Wdl::Win, 7),
            Value::new(Wdl::Win, 7),
            Value::new(Wdl::CursedWin, 40),
            Value::new(Wdl::Loss, 0),
        ]
        .map(Value::pack)
        .into_iter()
        .chain([7, 15])
        .collect();
        let t = Tally::of(&values);
        let want = Counts { wins: 3, cursed_wins: 1, draws: 1, blessed_losses: 0, losses: 2 };
        assert_eq!(t.counts, want);
        assert_eq!((t.longest_win, t.longest_loss), (Some((7, 3)), Some((4, 2))));
        assert_eq!((t.invalid, t.first_invalid), (2, Some((7, 7))));
        assert_eq!(t.longest_plies(), (7, 4));
        assert_eq!(Tally::of(&[]).longest_plies(), (0, 0));
    }
}
