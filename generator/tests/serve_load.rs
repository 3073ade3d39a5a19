//! A load test of `damka serve`'s API on loopback: 32 clients, each on its
//! own kept-alive connection, probe random positions (a third with running
//! counters) for a fixed time; every answer must be a 200 with the
//! position's report. Prints requests per second and latency percentiles.
//!
//! In the test suite it runs 2 s over 3-piece tables; scripts/bench-serve
//! runs it for 20 s over 4-piece tables (DAMKA_LOAD_SECONDS,
//! DAMKA_LOAD_PIECES).

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use damka::{fen, Material, SliceIndex, Variant};
use damka_generator::graph::pairs_in_order;
use support::http::{encode, Client, Server};
use support::generate_with_rules;

const CLIENTS: usize = 32;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}={v}: expected a number")))
}

/// Request targets for positions spread over every slice, White and Black
/// to move.
fn targets(pieces: u8, count: usize) -> Vec<String> {
    let slices: Vec<SliceIndex> = pairs_in_order(pieces)
        .into_iter()
        .flat_map(|m| [m, Material::new(m.opp_kings, m.opp_men, m.own_kings, m.own_men)])
        .map(SliceIndex::new)
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    (0..count)
        .map(|n| {
            // xorshift: the same positions every run.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let index = &slices[n % slices.len()];
            let pos = index.position(seed % index.size());
            let pos = if n % 2 == 1 { pos.flip() } else { pos };
            let counters = if n % 3 == 0 { "&quiet=6&kings_only=4" } else { "" };
            format!("/api/probe?fen={}{counters}", encode(&fen::write(&pos, Variant::Russian)))
        })
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn thirty_two_clients_probe_for_a_while() {
    let seconds = setting("DAMKA_LOAD_SECONDS", 2);
    let pieces = setting("DAMKA_LOAD_PIECES", 3) as u8;
    let tables = generate_with_rules("serve-load", Variant::Russian, pieces, "russian");
    let mut server = Server::start(tables.path());
    let addr = server.addr;
    let targets = Arc::new(targets(pieces, 4096));
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let targets = targets.clone();
            std::thread::spawn(move || {
                let mut client = Client::connect(addr).expect("connect");
                let mut latencies = Vec::new();
                let mut n = c * 131;
                while Instant::now() < end {
                    let target = &targets[n % targets.len()];
                    let sent = Instant::now();
                    let answer = client.get(target).expect("an answer");
                    latencies.push(sent.elapsed());
                    assert_eq!(answer.status, 200, "{target}: {}", answer.body);
                    assert!(answer.body.contains("\"moves\""), "{target}: {}", answer.body);
                    n += 1;
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = clients.into_iter().flat_map(|c| c.join().expect("the client ran")).collect();
    let elapsed = start.elapsed().as_secs_f64();
    latencies.sort();
    assert!(server.alive());
    assert!(latencies.len() > CLIENTS, "{} requests", latencies.len());
    println!(
        "damka serve, {CLIENTS} clients, {seconds} s, {pieces}-piece tables: {} requests, {:.0} requests/s; \
         latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        latencies.len(),
        latencies.len() as f64 / elapsed,
        percentile(&latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&latencies, 0.90).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().unwrap().as_secs_f64() * 1e3,
    );
}
