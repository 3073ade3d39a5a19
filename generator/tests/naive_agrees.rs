//! The main solver and the naive one (generator/src/naive.rs) agree on every
//! position: result and distance.

use std::time::Instant;

use damka::{fen, Material, Value, Variant};
use damka_generator::driver::solve_in_memory;
use damka_generator::naive::{self, Tables};
use damka_generator::solver::{Known, Metric, Options};

fn naive_metric(metric: Metric) -> naive::Metric {
    match metric {
        Metric::Conversion => naive::Metric::Conversion,
        Metric::End => naive::Metric::End,
    }
}

/// Compares the slices of one naive pair with the main solver's; returns
/// the number of positions compared. Panics naming the first positions
/// where they differ.
fn compare_pair(main: &Known, naive: &Tables, pair: Material, variant: Variant) -> u64 {
    let mut slices = vec![pair];
    if pair.swap() != pair {
        slices.push(pair.swap());
    }
    let mut compared = 0;
    for m in slices {
        let ours = naive.table(m).unwrap_or_else(|| panic!("naive solver has no {m}"));
        let theirs = main.get(&m).unwrap_or_else(|| panic!("main solver has no {m}"));
        assert_eq!(ours.values.len(), theirs.values.len(), "{m}: table sizes");
        let mut differences = Vec::new();
        for (i, (&a, &b)) in ours.values.iter().zip(&theirs.values).enumerate() {
            if a != b && differences.len() < 10 {
                let pos = ours.index.position(i as u64);
                differences.push(format!(
                    "  {}: naive {}, main {}",
                    fen::write(&pos, variant),
                    Value::unpack(a).expect("naive packs values"),
                    Value::unpack(b).map_or("(bad bits)".to_string(), |v| v.to_string()),
                ));
            }
        }
        let total = ours.values.iter().zip(&theirs.values).filter(|(a, b)| a != b).count();
        assert!(total == 0, "{variant} {m}: {total} positions differ, e.g.\n{}", differences.join("\n"));
        compared += ours.values.len() as u64;
    }
    compared
}

/// Solves every slice up to `max_pieces` both ways and compares them;
/// `verbose`: a line per slice pair.
fn check(variant: Variant, metric: Metric, max_pieces: u8, verbose: bool) -> u64 {
    let started = Instant::now();
    let main = solve_in_memory(&Options { variant, metric, rules: None }, max_pieces);
    let main_seconds = started.elapsed().as_secs_f64();
    if verbose {
        eprintln!("main solver: {main_seconds:.1} s");
    }
    let started = Instant::now();
    let mut compared = 0;
    Tables::solve_up_to(variant, naive_metric(metric), max_pieces, |naive, pair| {
        let n = compare_pair(&main, naive, pair, variant);
        compared += n;
        if verbose {
            eprintln!("{:>8.1} s  {pair} and its twin: {n} positions agree", started.elapsed().as_secs_f64());
        }
    });
    let expected: u64 = main.values().map(|s| s.index.size()).sum();
    assert_eq!(compared, expected, "every slice compared once");
    eprintln!(
        "{variant} {metric:?} up to {max_pieces} pieces: {compared} positions agree \
         (main {main_seconds:.1} s, naive and compare {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    compared
}

#[test]
fn russian_up_to_four_pieces_distance_to_conversion() {
    assert_eq!(check(Variant::Russian, Metric::Conversion, 4, false), 6_408_836);
}

#[test]
fn russian_up_to_three_pieces_distance_to_end() {
    check(Variant::Russian, Metric::End, 3, false);
}

#[test]
fn brazilian_and_english_up_to_three_pieces() {
    for variant in [Variant::Brazilian, Variant::English] {
        for metric in [Metric::Conversion, Metric::End] {
            check(variant, metric, 3, false);
        }
    }
}

/// Distance to the end up to 4 pieces: a minute on two cores. Run by
/// scripts/check-naive-5.
#[test]
#[ignore]
fn russian_up_to_four_pieces_distance_to_end() {
    assert_eq!(check(Variant::Russian, Metric::End, 4, false), 6_408_836);
}

/// All Russian 5-piece slices (and the smaller ones they need): minutes on
/// two cores. Run by scripts/check-naive-5.
#[test]
#[ignore]
fn russian_up_to_five_pieces_distance_to_conversion() {
    assert_eq!(check(Variant::Russian, Metric::Conversion, 5, true), 6_408_836 + 139_450_808);
}
