//! perft speed from the start position: one JSON line per run.
//!
//! `cargo bench -p damka-probe --bench perft [-- VARIANT [DEPTH [counted|made]]]`
//! (default: russian 11, both), or scripts/bench-perft. Each run is timed
//! on one core, counting the last ply from the move list ("counted") and
//! playing every leaf ("made"). `seconds` is wall time; `cpu_seconds`, the
//! CPU time the process got, tells how much a busy machine slowed it.

use std::time::Instant;

use damka::movegen::Routes;
use damka::perft::{perft_with, Leaves};
use damka::{Position, Variant};

fn main() {
    // `cargo bench` passes `--bench`; everything else is ours.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let variant: Variant = args.first().map_or(Ok(Variant::Russian), |v| v.parse()).expect("variant");
    let depth: u32 = args.get(1).map_or(11, |d| d.parse().expect("depth"));
    let only = args.get(2).map(String::as_str);
    let start = Position::start(variant.rules().first_to_move);
    for (leaves, name) in [(Leaves::Counted, "counted"), (Leaves::Made, "made")] {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let (cpu_before, started) = (cpu_seconds(), Instant::now());
        let n = perft_with(&start, variant, depth, Routes::Merge, leaves);
        let seconds = started.elapsed().as_secs_f64();
        let cpu = match (cpu_before, cpu_seconds()) {
            (Some(before), Some(after)) => format!("{:.2}", after - before),
            _ => "null".to_string(),
        };
        println!(
            "{{\"variant\":\"{variant}\",\"depth\":{depth},\"routes\":\"positions\",\"last_ply\":\"{name}\",\
             \"leaves\":{n},\"seconds\":{seconds:.3},\"leaves_per_sec\":{:.0},\"cpu_seconds\":{cpu}}}",
            n as f64 / seconds
        );
    }
}

/// User plus system CPU time of this process, from /proc (Linux; the
/// clock ticks 100 times a second there), or None elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses: state first,
    // then utime and stime at positions 11 and 12.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}
