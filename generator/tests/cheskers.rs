//! Cheskers tables: the solver against a plain one, known facts, and the
//! commands over a directory of tables.

use std::collections::HashMap;
use std::sync::Arc;

use damka::cheskers::{Material, SliceIndex};
use damka::Value;
use damka_generator::cheskers::{naive, solver};

fn solve_in_memory(max_pieces: u8) -> solver::Known {
    let mut known = solver::Known::new();
    for pair in solver::pairs_in_order(max_pieces) {
        for s in solver::solve_pair(pair, &known, &|_| {}).expect("solves") {
            known.insert(s.index.material(), Arc::new(s));
        }
    }
    known
}

#[test]
fn sizes() {
    for n in 2..=5 {
        let all = Material::all_up_to(n);
        let sizes: Vec<u64> = all.iter().map(|&m| SliceIndex::new(m).size()).collect();
        eprintln!("{n}: {} slices, {} positions, largest {}", all.len(), sizes.iter().sum::<u64>(), sizes.iter().max().unwrap());
    }
}

#[test]
fn the_solver_agrees_with_a_plain_one() {
    let n = std::env::var("PIECES").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let t = std::time::Instant::now();
    let known = solve_in_memory(n);
    eprintln!("solver {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let plain: HashMap<Material, Vec<Value>> = naive::solve(n);
    eprintln!("naive {:?}", t.elapsed());
    assert_eq!(plain.len(), known.len());
    for (m, values) in &plain {
        let solved = &known[m];
        let mut wrong = 0;
        for (i, v) in values.iter().enumerate() {
            let s = Value::unpack(solved.values[i]).unwrap();
            if s != *v {
                if wrong < 5 {
                    eprintln!("{m} {}: solver {s}, plain {v}", damka::cheskers::write_fen(&solved.index.position(i as u64)));
                }
                wrong += 1;
            }
        }
        assert_eq!(wrong, 0, "{m}");
    }
}
