//! perft speed from the start position: one JSON line per run.
//!
//! `cargo bench -p damka-probe --bench perft [-- VARIANT [DEPTH [counted|made]]]`
//! (default: russian 11, both), or scripts/bench-perft. Each run is timed
//! on one core, counting the last ply from the move list ("counted") and
//! playing every leaf ("made").

use std::time::Instant;

use damka::movegen::Routes;
use damka::perft::{perft_with, Leaves};
use damka::{Position, Variant};

fn main() {
    // `cargo bench` passes `--bench`; everything else is ours.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let variant: Variant = args.first().map_or(Ok(Variant::Russian), |v| v.parse()).expect("variant");
    let depth: u32 = args.get(1).map_or(11, |d| d.parse().expect("depth"));
    let start = Position::start(variant.rules().first_to_move);
    let only = args.get(2).map(String::as_str);
    for (leaves, name) in [(Leaves::Counted, "counted"), (Leaves::Made, "made")] {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let started = Instant::now();
        let n = perft_with(&start, variant, depth, Routes::Merge, leaves);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{{\"variant\":\"{variant}\",\"depth\":{depth},\"routes\":\"positions\",\"last_ply\":\"{name}\",\
             \"leaves\":{n},\"seconds\":{seconds:.3},\"leaves_per_sec\":{:.0}}}",
            n as f64 / seconds
        );
    }
}
