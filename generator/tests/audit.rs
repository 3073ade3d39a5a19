//! `damka audit` on the Russian rules up to four pieces: its counts agree
//! with the rule tables, the limits it reports are those of the rule set,
//! and the share of counter states a probe leaves ambiguous is where the
//! exhaustive counter solver says it is (none at three pieces; the main-road
//! rule's slices at four).

use std::sync::Arc;

use damka::{Material, RuleSet, SliceIndex, Variant, Wdl};
use damka_generator::audit::{self, SliceAudit};
use damka_generator::driver::solve_in_memory;
use damka_generator::solver::{Metric, Options};

fn find<'a>(slices: &'a [SliceAudit], material: &str) -> &'a SliceAudit {
    slices.iter().find(|s| s.material == material).unwrap_or_else(|| panic!("no {material} in the audit"))
}

#[test]
fn audit_of_four_pieces_agrees_with_the_tables() {
    let rules = Arc::new(RuleSet::preset("russian").expect("preset"));
    let result = audit::run(Variant::Russian, rules.clone(), 4, &|_| {});
    let opts = Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules) };
    let tables = solve_in_memory(&opts, 4);
    assert_eq!(result.slices.len(), tables.len());
    for s in &result.slices {
        let m: Material = s.material.parse().expect("material");
        let t = &tables[&m];
        let count = |w: Wdl| (0..t.index.size()).filter(|&i| t.at(i).wdl == w).count() as u64;
        assert_eq!((s.rule_wins, s.cursed_wins, s.blessed_losses), (count(Wdl::Win), count(Wdl::CursedWin), count(Wdl::BlessedLoss)), "{m}");
        assert_eq!(s.pure_wins, s.rule_wins + s.cursed_wins, "{m}");
        assert_eq!(s.pure_win_lengths.iter().map(|(_, n)| n).sum::<u64>(), s.pure_wins, "{m}");
        assert_eq!(s.positions, SliceIndex::new(m).size());
        assert!(s.ambiguous_states <= s.counter_states, "{m}");
        if m.pieces() <= 3 {
            assert_eq!(s.ambiguous_states, 0, "{m}: the exhaustive solver finds no ambiguous state at 3 pieces");
        }
    }
    // Two kings against one: the 5-move rule, 10 plies, one count (no men).
    let kkvk = find(&result.slices, "KKvK");
    assert_eq!(kkvk.limit_plies, Some(9));
    assert_eq!(kkvk.counter_states, 10 * kkvk.positions);
    // Three kings against a lone king: whether the king stood on the main
    // road when the count began is not in the counters.
    let kkkvk = find(&result.slices, "KvKKK");
    assert!(kkkvk.ambiguous_states > 0);
    assert!(kkkvk.cursed_wins == 0 || kkkvk.cursed_win_fen.is_some());
    let report = audit::report(&result);
    assert!(report.contains("ambiguous"), "{report}");
    let svg = audit::plot(&result);
    assert!(svg.starts_with("<svg") && svg.contains("KKKvK"), "{}", &svg[..200]);
}
