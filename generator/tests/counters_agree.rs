//! The exhaustive solver over game states (generator/src/counters.rs)
//! against the main solver's rule tables and against `RuleSet::judge`:
//! (a) fresh values agree (result, and distance where the tables keep
//! one); (b) for every reachable live state (position, quiet, kings-only),
//! `judge` on the stored fresh value is exact and right, or ambiguous
//! between two results one of which is right. Never wrong.

use std::sync::Arc;
use std::time::Instant;

use damka::{fen, Counters, Material, RuleSet, Value, Variant, Verdict};
use damka_generator::counters::{PairStates, Solver};
use damka_generator::driver::solve_in_memory;
use damka_generator::solver::{Known, Metric, Options};

/// What one run checked.
#[derive(Debug, Default)]
struct Tally {
    slices: usize,
    positions: u64,
    /// Reachable live states with a nonzero count.
    states: u64,
    ambiguous: u64,
    /// Ambiguous states whose result the counters do not decide either:
    /// the same counters reached from different starts of the count.
    undecided: u64,
    problems: Vec<String>,
}

/// (a): the exhaustive solver's fresh values against the tables.
fn compare_fresh(solver: &Solver, known: &Known, pair: &PairStates, tally: &mut Tally) {
    for &m in pair.slices() {
        let ours = solver.fresh(m).expect("solved pair");
        let theirs = known.get(&m).unwrap_or_else(|| panic!("tables have no {m}"));
        let mut differ = 0;
        for (i, (a, &b)) in ours.values.iter().zip(&theirs.values).enumerate() {
            let b = Value::unpack(b).expect("valid value");
            if *a != b {
                differ += 1;
                if differ <= 5 {
                    let pos = ours.index.position(i as u64);
                    tally.problems.push(format!(
                        "{m} {}: exhaustive {a}, tables {b} (pure {:?})",
                        fen::write(&pos, Variant::Russian),
                        ours.pure[i]
                    ));
                }
            }
        }
        if differ > 0 {
            tally.problems.push(format!("{m}: {differ} fresh values differ"));
        }
        tally.slices += 1;
        tally.positions += ours.values.len() as u64;
    }
}

/// (b): `judge` with every reachable counter state.
fn check_judge(rules: &RuleSet, known: &Known, pair: &PairStates, tally: &mut Tally) {
    let stored: Vec<Value> = (0..pair.len())
        .map(|local| {
            let pos = pair.position(local);
            known[&Material::of(pos)].value(pos)
        })
        .collect();
    let mut wrong = 0u64;
    pair.for_each_state(|local, pos, quiet, states| {
        for &(kings_only, truth) in states {
            let counters = Counters { quiet, kings_only };
            if counters == Counters::default() {
                continue;
            }
            tally.states += 1;
            let ok = match rules.judge(pos, stored[local], counters) {
                Verdict::Exact(w) => truth.only() == Some(w),
                Verdict::Ambiguous(a, b) => {
                    tally.ambiguous += 1;
                    tally.undecided += (truth.only().is_none()) as u64;
                    truth.iter().all(|t| t == a || t == b)
                }
            };
            if !ok {
                wrong += 1;
                if wrong <= 8 {
                    tally.problems.push(format!(
                        "{} {} quiet {quiet} kings-only {kings_only}: stored {}, judge {:?}, exhaustive {:?}",
                        Material::of(pos),
                        fen::write(pos, Variant::Russian),
                        stored[local],
                        rules.judge(pos, stored[local], counters),
                        truth.iter().collect::<Vec<_>>()
                    ));
                }
            }
        }
    });
    if wrong > 0 {
        tally.problems.push(format!("{}: judge wrong in {wrong} states", pair.slices()[0]));
    }
}

fn check(max_pieces: u8, verbose: bool) -> Tally {
    let rules = Arc::new(RuleSet::preset("russian").expect("preset"));
    let started = Instant::now();
    let opts = Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules.clone()) };
    let known = solve_in_memory(&opts, max_pieces);
    let main_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let mut tally = Tally::default();
    // DAMKA_CHECK_PAIRS=KMvKK,KKvKM: check only these pairs (all are solved).
    let only: Option<Vec<String>> =
        std::env::var("DAMKA_CHECK_PAIRS").ok().map(|v| v.split(',').map(str::to_string).collect());
    Solver::new(Variant::Russian, rules.clone()).solve_up_to(max_pieces, |solver, pair| {
        if only.as_ref().is_some_and(|o| !o.contains(&pair.slices()[0].to_string())) {
            return;
        }
        let t = Instant::now();
        let before = (tally.states, tally.ambiguous, tally.undecided);
        compare_fresh(solver, &known, pair, &mut tally);
        check_judge(&rules, &known, pair, &mut tally);
        if verbose {
            eprintln!(
                "{:>7.1} s  {}: {} positions, {} states ({} ambiguous, {} undecided by the counters), {:.1} s",
                started.elapsed().as_secs_f64(),
                pair.slices()[0],
                pair.len(),
                tally.states - before.0,
                tally.ambiguous - before.1,
                tally.undecided - before.2,
                t.elapsed().as_secs_f64()
            );
        }
    });
    eprintln!(
        "russian up to {max_pieces} pieces: {} slices, {} positions, {} states with counters, \
         {} ambiguous ({:.4}%; of them {} where the counters alone do not decide the result); main solver {main_seconds:.1} s, exhaustive and checks {:.1} s",
        tally.slices,
        tally.positions,
        tally.states,
        tally.ambiguous,
        100.0 * tally.ambiguous as f64 / tally.states.max(1) as f64,
        tally.undecided,
        started.elapsed().as_secs_f64()
    );
    tally
}

fn assert_clean(tally: &Tally) {
    assert!(tally.problems.is_empty(), "{} problems:\n{}", tally.problems.len(), tally.problems.join("\n"));
}

#[test]
fn russian_up_to_three_pieces() {
    let tally = check(3, false);
    assert_eq!(tally.slices, 16);
    assert_clean(&tally);
}

/// All 4-piece slices: minutes. Run by scripts/check-counters-4.
#[test]
#[ignore]
fn russian_up_to_four_pieces() {
    let tally = check(4, true);
    assert_clean(&tally);
}
