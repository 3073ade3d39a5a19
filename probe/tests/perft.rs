//! perft from the start position of every game, against the figures in
//! data/perft.txt (the table in docs/RULES.md).
//!
//! Depths up to 7 run in every `cargo test`; depths 8 and 9 take longer and
//! run with `--ignored` (scripts/test-slow).

use std::ops::RangeInclusive;

use damka::movegen::Routes;
use damka::perft::{perft_with, Leaves};
use damka::{Position, Variant};

struct Case {
    variant: Variant,
    routes: Routes,
    depth: u32,
    leaves: u64,
}

fn cases() -> Vec<Case> {
    include_str!("../../data/perft.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| match line.split_whitespace().collect::<Vec<_>>()[..] {
            [variant, routes, depth, leaves] => Case {
                variant: variant.parse().expect("variant"),
                routes: match routes {
                    "paths" => Routes::Each,
                    "positions" => Routes::Merge,
                    other => panic!("unknown convention '{other}'"),
                },
                depth: depth.parse().expect("depth"),
                leaves: leaves.parse().expect("leaf count"),
            },
            _ => panic!("bad perft line '{line}'"),
        })
        .collect()
}

/// Runs every case within `depths`, counting the last ply both from the
/// move list and by playing every leaf.
fn check(depths: RangeInclusive<u32>) {
    let mut checked = 0;
    for case in cases().iter().filter(|c| depths.contains(&c.depth)) {
        let start = Position::start(case.variant.rules().first_to_move);
        for leaves in [Leaves::Counted, Leaves::Made] {
            let got = perft_with(&start, case.variant, case.depth, case.routes, leaves);
            assert_eq!(
                got, case.leaves,
                "{} {:?} depth {} ({leaves:?})",
                case.variant, case.routes, case.depth
            );
        }
        checked += 1;
    }
    assert_eq!(checked, depths.count() * Variant::ALL.len() * 2, "a case is missing from data/perft.txt");
}

#[test]
fn perft_to_depth_7() {
    check(1..=7);
}

#[test]
#[ignore = "slow (depths 8 and 9): run by scripts/test-slow"]
fn perft_depths_8_and_9() {
    check(8..=9);
}
