//! Thread safety under load: 8 threads probe one tablebase whose cache is
//! far smaller than the tables (so blocks are evicted all the time) and
//! must answer exactly as a single-threaded run did, while the process's
//! memory stays within the cache budget. 5 seconds here;
//! `scripts/stress-probe` runs it for a minute (DAMKA_STRESS_SECONDS).

mod support;

use std::time::{Duration, Instant};

use damka::{Cached, OpenOptions, Position, SliceIndex, Tablebase, Value, Variant, Wdl};

const THREADS: usize = 8;
const BUDGET: usize = 2 << 20;

/// Resident anonymous memory of this process in bytes (the cache lives
/// there; mapped table files are file-backed).
fn rss_anon() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("RssAnon:")).expect("RssAnon line");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("a size in kB") * 1024
}

/// `n` positions spread over every slice (a fixed stride through each),
/// either side to move: quiet and capture positions alike.
fn sample(tb: &Tablebase, n: usize) -> Vec<Position> {
    let slices: Vec<SliceIndex> = tb.materials().into_iter().map(SliceIndex::new).collect();
    let total: u64 = slices.iter().map(|s| s.size()).sum();
    let step = (total / n as u64).max(1);
    let mut out = Vec::new();
    for s in &slices {
        let mut i = (s.size() * 7919) % step.min(s.size());
        while i < s.size() && out.len() < n {
            let pos = s.position(i);
            out.push(if out.len() % 2 == 0 { pos } else { pos.flip() });
            i += step;
        }
    }
    out
}

#[test]
fn eight_threads_under_load_answer_as_one_within_the_budget() {
    let seconds: u64 = std::env::var("DAMKA_STRESS_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let tables = support::generate("stress", Variant::Russian, 4);
    let open = |budget| Tablebase::open(tables.path(), OpenOptions::new(Variant::Russian).cache_bytes(budget)).unwrap();
    let single = open(64 << 20);
    let positions = sample(&single, 40_000);
    let expected: Vec<(Value, Wdl)> =
        positions.iter().map(|p| (single.probe_value(p).unwrap(), single.probe_wdl(p).unwrap())).collect();
    drop(single);

    let shared = open(BUDGET);
    let start_rss = rss_anon();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let halfway = Instant::now() + Duration::from_secs(seconds) / 2;
    let mut rss_halfway = 0;
    let probes: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (shared, positions, expected) = (&shared, &positions, &expected);
                scope.spawn(move || {
                    let n = positions.len();
                    let mut done = 0;
                    let mut k = t * n / THREADS;
                    while Instant::now() < deadline {
                        for _ in 0..1000 {
                            let (p, want) = (&positions[k % n], expected[k % n]);
                            assert_eq!(shared.probe_value(p).unwrap(), want.0, "thread {t}: {p:?}");
                            assert_eq!(shared.probe_wdl(p).unwrap(), want.1, "thread {t}: {p:?}");
                            if let Cached::Answer(w) = shared.probe_wdl_cached(p).unwrap() {
                                assert_eq!(w, want.1, "thread {t}, conditional: {p:?}");
                            }
                            k += 1;
                            done += 3;
                        }
                    }
                    done
                })
            })
            .collect();
        std::thread::sleep(halfway.saturating_duration_since(Instant::now()));
        rss_halfway = rss_anon();
        workers.into_iter().map(|w| w.join().expect("probe thread")).sum()
    });
    let end_rss = rss_anon();
    let stats = shared.cache_stats();
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    eprintln!(
        "{THREADS} threads, {seconds} s: {probes} probes, all as one thread answered; cache {:.2} of {:.2} MiB, \
         {} evictions; anonymous memory +{:.2} MiB at half time, +{:.2} MiB at the end",
        mib(stats.bytes as u64),
        mib(BUDGET as u64),
        stats.evictions,
        mib(rss_halfway.saturating_sub(start_rss)),
        mib(end_rss.saturating_sub(start_rss)),
    );
    assert!(stats.bytes <= BUDGET && stats.evictions > 0, "{stats:?}");
    // The cache within its budget, plus the threads' stacks and the
    // allocator's per-thread arenas; and no growth in the second half.
    assert!(end_rss <= start_rss + BUDGET as u64 + (16 << 20), "{start_rss} -> {end_rss}");
    assert!(end_rss <= rss_halfway + (4 << 20), "memory grew from {rss_halfway} to {end_rss}");
}
