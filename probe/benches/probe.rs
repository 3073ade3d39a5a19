//! Probe speed on a directory of tables (scripts/bench-probe builds the
//! 5-piece Russian ones): probes per second with the block in cache (one
//! and two threads), the cost of a cache miss, and the memory the cache
//! holds for a given budget. Prints one JSON object per line.
//!
//! `cargo bench -p damka-probe --bench probe -- <table dir> [memory,cached,hot,random,uncached,warm]`

use std::time::Instant;

use damka::movegen::has_capture;
use damka::{OpenOptions, Position, SliceIndex, Tablebase, Variant};

/// xorshift64*: reproducible positions without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// `n` positions drawn uniformly from all positions of the largest
/// slices in the directory, half of them with Black to move.
/// `n` random positions of the largest slices, either colour to move; with
/// `quiet`, only positions whose side to move has no capture (those the
/// tables store; the others are resolved through their captures).
fn random_positions(tb: &Tablebase, n: usize, quiet: bool, rng: &mut Rng) -> Vec<Position> {
    let slices: Vec<SliceIndex> = tb
        .materials()
        .into_iter()
        .filter(|m| m.pieces() == tb.max_pieces())
        .map(SliceIndex::new)
        .collect();
    let total: u64 = slices.iter().map(|s| s.size()).sum();
    std::iter::repeat_with(|| {
            let mut i = rng.next() % total;
            let mut slice = &slices[0];
            for s in &slices {
                slice = s;
                if i < s.size() {
                    break;
                }
                i -= s.size();
            }
            let pos = slice.position(i);
            if rng.next() & 1 == 0 { pos } else { pos.flip() }
        })
        .filter(|p| !quiet || !has_capture(p, Variant::Russian))
        .take(n)
        .collect()
}

fn report(bench: &str, fields: &[(&str, String)]) {
    let fields: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
    println!("{{\"bench\": \"{bench}\", {}}}", fields.join(", "));
}

/// Nanoseconds this thread has spent on a CPU (Linux schedstat), so that
/// figures stay meaningful on a machine shared with other work.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Per-probe cost over `rounds` passes over `positions` on `threads`
/// threads at once (each over all positions).
struct Timing {
    /// Wall-clock nanoseconds per probe, per thread.
    wall_ns: f64,
    /// CPU nanoseconds per probe (None where schedstat is missing).
    cpu_ns: Option<f64>,
    /// Probes per second, all threads together.
    per_second: f64,
}

fn time_probes(tb: &Tablebase, positions: &[Position], rounds: usize, threads: usize, value: bool) -> Timing {
    time_probes_on(&[tb], positions, rounds, threads, value)
}

/// As [`time_probes`], thread `t` probing handle `t % handles.len()`.
fn time_probes_on(handles: &[&Tablebase], positions: &[Position], rounds: usize, threads: usize, value: bool) -> Timing {
    let start = Instant::now();
    let cpu: Vec<Option<u64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let tb = handles[t % handles.len()];
                scope.spawn(move || {
                    let cpu_start = thread_cpu_ns();
                    let mut sink = 0i64;
                    for r in 0..rounds {
                        // Threads start at different places so they do not move in step.
                        let offset = (t * positions.len() / threads + r) % positions.len();
                        for k in 0..positions.len() {
                            let pos = &positions[(k + offset) % positions.len()];
                            sink += if value {
                                tb.probe_value(pos).expect("probe").plies.0 as i64
                            } else {
                                tb.probe_wdl(pos).expect("probe") as i64
                            };
                        }
                    }
                    std::hint::black_box(sink);
                    cpu_start.zip(thread_cpu_ns()).map(|(a, b)| b - a)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("bench thread")).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let probes = (rounds * positions.len() * threads) as f64;
    let cpu_total: Option<u64> = cpu.into_iter().sum();
    Timing {
        wall_ns: seconds * 1e9 * threads as f64 / probes,
        cpu_ns: cpu_total.map(|c| c as f64 / probes),
        per_second: probes / seconds,
    }
}

fn opt(v: Option<f64>, scale: f64) -> String {
    v.map_or("null".to_string(), |v| format!("{:.2}", v / scale))
}

/// The fields of a line about probes that read blocks: which table and
/// positions, microseconds per probe and blocks read per probe.
fn block_reading(kind: &str, set: &str, pieces: &str, t: &Timing, blocks: f64) -> Vec<(&'static str, String)> {
    vec![
        ("table", format!("\"{kind}\"")),
        ("positions", format!("\"{set}\"")),
        ("pieces", pieces.to_string()),
        ("cpu_us_per_probe", opt(t.cpu_ns, 1000.0)),
        ("wall_us_per_probe", format!("{:.2}", t.wall_ns / 1000.0)),
        ("blocks_per_probe", format!("{blocks:.2}")),
    ]
}

/// Resident anonymous memory of this process (the block cache lives there;
/// mapped table files count as file-backed), in bytes.
fn rss_anon() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("RssAnon:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let dir = args.first().cloned().unwrap_or_else(|| "data/tables/bench-russian5".into());
    // Optional second argument: run only the named parts (memory, cached,
    // uncached, warm; or hot or random, half of cached), comma-separated.
    let only = args.get(1).cloned();
    let run = |part: &str| only.as_ref().is_none_or(|o| o.split(',').any(|p| p == part));
    let open = |budget: usize| {
        Tablebase::open(&dir, OpenOptions::new(Variant::Russian).cache_bytes(budget))
            .unwrap_or_else(|e| panic!("{dir}: {e} (scripts/bench-probe builds the tables)"))
    };
    let probe_tb = open(0);
    if probe_tb.max_pieces() == 0 {
        panic!("{dir} holds no Russian tables (scripts/bench-probe builds them)");
    }
    let pieces = probe_tb.max_pieces().to_string();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);

    // Memory: fill caches of a few budgets with random probes.
    // Runs first, budgets in increasing order, so that memory freed by an
    // earlier run does not hide what a later one takes.
    let baseline = rss_anon();
    for budget_mib in [1usize, 16, 64].into_iter().filter(|_| run("memory")) {
        let tb = open(budget_mib << 20);
        let positions = random_positions(&tb, 20_000, false, &mut rng);
        for pos in &positions {
            tb.probe_value(pos).expect("probe");
            tb.probe_wdl(pos).expect("probe");
        }
        let s = tb.cache_stats();
        let grown = baseline.zip(rss_anon()).map(|(b, a)| a.saturating_sub(b) as f64 / (1 << 20) as f64);
        report(
            "cache_memory",
            &[
                ("budget_mib", budget_mib.to_string()),
                ("cached_mib", format!("{:.2}", s.bytes as f64 / (1 << 20) as f64)),
                ("blocks", s.blocks.to_string()),
                ("rss_anon_growth_mib", grown.map_or("null".into(), |g| format!("{g:.2}"))),
                ("hit_rate", format!("{:.3}", s.hits as f64 / (s.hits + s.misses).max(1) as f64)),
            ],
        );
    }

    // Cached: a set of random positions whose blocks all fit in the cache,
    // probed over and over after one pass to load them. "hot" is a set
    // small enough to stay in the CPU caches as well; "random" holds
    // capture positions too (resolved through their captures), "quiet"
    // only positions the tables store.
    let big = 1usize << 30;
    for (set, n, rounds, quiet) in [("hot", 64usize, 20_000usize, true), ("random", 4096, 300, false), ("quiet", 4096, 300, true)]
        .into_iter()
        .filter(|(set, _, _, _)| run("cached") || run(set))
    {
        let positions = random_positions(&probe_tb, n, quiet, &mut rng);
        for (kind, value) in [("wdl", false), ("value", true)] {
            let tb = open(big);
            time_probes(&tb, &positions, 1, 1, value);
            // The control: two threads with a handle each share nothing,
            // so what they cost over one thread is the machine's (two
            // busy cores share the last-level cache, memory and clock).
            let own = open(big);
            time_probes(&own, &positions, 1, 1, value);
            let mut one_thread_cpu = None;
            for (threads, handles) in [(1, vec![&tb]), (2, vec![&tb]), (2, vec![&tb, &own])] {
                let t = time_probes_on(&handles, &positions, rounds, threads, value);
                // CPU per probe against one thread's: 1.0 when probes
                // scale with threads.
                let ratio = if threads == 1 {
                    one_thread_cpu = t.cpu_ns;
                    None
                } else {
                    t.cpu_ns.zip(one_thread_cpu).map(|(n, one)| n / one)
                };
                report(
                    "probe_cached",
                    &[
                        ("table", format!("\"{kind}\"")),
                        ("positions", format!("\"{set} {n}\"")),
                        ("pieces", pieces.clone()),
                        ("threads", threads.to_string()),
                        ("handles", handles.len().to_string()),
                        ("cpu_ns_per_probe", opt(t.cpu_ns, 1.0)),
                        ("wall_ns_per_probe", format!("{:.1}", t.wall_ns)),
                        ("probes_per_second", format!("{:.0}", t.per_second)),
                        ("cpu_to_one_thread", opt(ratio, 1.0)),
                    ],
                );
            }
            // The set's blocks all stayed. (Misses are no measure of that:
            // a block whose key shares its slot among those read once with
            // another block's is read in place again and again, and without
            // a threat bound a position reads a few dozen blocks.)
            let s = tb.cache_stats();
            assert_eq!(s.evictions, 0, "blocks were evicted: {s:?}");
        }
    }

    // Uncached: no cache, so every probe reads, checks and decompresses
    // its blocks (the file itself is in the page cache after the first
    // pass): one for a quiet WDL probe, two for a value (result and
    // distance), one per slice reached for a capture position.
    for (set, quiet) in [("quiet", true), ("random", false)].into_iter().filter(|_| run("uncached")) {
        let positions = random_positions(&probe_tb, 2000, quiet, &mut rng);
        for (kind, value) in [("wdl", false), ("value", true)] {
            time_probes(&probe_tb, &positions, 1, 1, value);
            let misses = probe_tb.cache_stats().misses;
            let t = time_probes(&probe_tb, &positions, 2, 1, value);
            // Blocks a probe reads (each once: a result block through its
            // cursor, a distance block decompressed): exact where times are noisy.
            let blocks = (probe_tb.cache_stats().misses - misses) as f64 / (2 * positions.len()) as f64;
            report("probe_uncached", &block_reading(kind, set, &pieces, &t, blocks));
        }
    }

    // Warm: an engine's steady state. A cache of 64 MiB holds the blocks
    // (and the memo the resolved threats) of 20,000 earlier probes; each
    // timed position is new, so its own block is seldom there, while many
    // that its captures and threats reach in smaller slices are.
    for (set, quiet) in [("quiet", true), ("random", false)].into_iter().filter(|_| run("warm")) {
        for (kind, value) in [("wdl", false), ("value", true)] {
            let tb = open(64 << 20);
            let earlier = random_positions(&tb, 20_000, false, &mut rng);
            time_probes(&tb, &earlier, 1, 1, true);
            let positions = random_positions(&tb, 2000, quiet, &mut rng);
            let before = tb.cache_stats();
            let t = time_probes(&tb, &positions, 1, 1, value);
            let after = tb.cache_stats();
            let blocks = (after.misses - before.misses) as f64 / positions.len() as f64;
            // Every entry a probe reads is a lookup in the cache, hit or miss.
            let lookups = (after.hits + after.misses - before.hits - before.misses) as f64 / positions.len() as f64;
            let mut fields = block_reading(kind, set, &pieces, &t, blocks);
            fields.push(("entries_per_probe", format!("{lookups:.1}")));
            report("probe_warm", &fields);
        }
    }
}
