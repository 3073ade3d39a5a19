//! The draw-rule audit: for each slice, how long its wins are against the
//! limits of a rule set, how many wins a limit turns into draws, and an
//! example of each.
//!
//! The audit solves the slices in memory for both pure and rule values, so
//! any rule set can be audited without writing tables for it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use damka::rules::{lone_kings_on_main_road, Counter};
use damka::{fen, Counters, Position, RuleSet, SliceIndex, Value, Variant, Verdict, Wdl};
use rayon::prelude::*;
use serde::Serialize;

use crate::graph::pairs_in_order;
use crate::memory;
use crate::solver::{solve_pair_both, Known, Metric, Options, Solved};

mod plot;
pub use plot::{plot, plot_slice};

/// A rule that applies to some winning position of a slice.
#[derive(Debug, Clone, Serialize)]
pub struct AppliedRule {
    pub name: String,
    /// The limit in plies, smallest and largest over the slice's positions
    /// (moves-of-the-stronger-side limits differ by who moves first).
    pub min_plies: u32,
    pub max_plies: u32,
}

/// What the audit finds in one slice (side to move's view).
#[derive(Debug, Clone, Serialize)]
pub struct SliceAudit {
    pub material: String,
    pub positions: u64,
    pub pure_wins: u64,
    pub rule_wins: u64,
    /// Pure wins the rules turn into draws.
    pub cursed_wins: u64,
    /// Pure losses the rules save.
    pub blessed_losses: u64,
    /// Plies to the next conversion in the longest pure win.
    pub longest_pure_win: u16,
    pub longest_pure_win_fen: Option<String>,
    /// Plies to the next reset in the longest win under the rules.
    pub longest_rule_win: u16,
    pub longest_rule_win_fen: Option<String>,
    /// The cursed win with the longest pure distance.
    pub cursed_win_fen: Option<String>,
    /// The limit on the rule distance that binds most of the slice's pure
    /// wins, in plies (where a kings-only limit binds beside a quiet one,
    /// the quiet one: the kings-only count is part of the solved state).
    pub limit_plies: Option<u32>,
    pub rules: Vec<AppliedRule>,
    /// Pure wins by plies to conversion: (plies, count).
    pub pure_win_lengths: Vec<(u16, u64)>,
    /// Rule wins by plies to reset: (plies, count).
    pub rule_win_lengths: Vec<(u16, u64)>,
    /// Cursed wins by pure plies to conversion: (plies, count).
    pub cursed_win_lengths: Vec<(u16, u64)>,
    /// The (position, counter) states a probe with counters can be asked
    /// about, and how many of them it answers "ambiguous" ([`ambiguity`]).
    pub counter_states: u64,
    pub ambiguous_states: u64,
}

/// The audit of every slice up to `max_pieces`.
#[derive(Debug, Clone, Serialize)]
pub struct Audit {
    pub variant: String,
    pub rules: String,
    pub rules_hash: String,
    pub slices: Vec<SliceAudit>,
}

/// How the audit solves: pure values, then values under `rules`.
pub fn options(variant: Variant, rules: Arc<RuleSet>) -> Options {
    Options { variant, metric: Metric::Conversion, rules: Some(rules) }
}

/// Solves and audits every slice with up to `max_pieces` pieces.
/// `on_pair` is told the positions of each step solved, each pass's
/// separately: [`crate::driver::work`] in all.
pub fn run(variant: Variant, rules: Arc<RuleSet>, max_pieces: u8, on_pair: &(dyn Fn(u64) + Sync)) -> Audit {
    let opts = options(variant, rules.clone());
    let mut known = Known::new();
    let mut slices = Vec::new();
    let schedule = memory::schedule(&pairs_in_order(max_pieces), |_| false, None, memory::Dropped::ReadBack).expect("every pair is solved");
    for step in schedule.steps {
        let material = step.pair;
        let both = solve_pair_both(material, &opts, &known, on_pair);
        let finals = both.finals;
        let pure = both.pure.unwrap_or_else(|| finals.iter().map(Solved::copy).collect());
        for (pure, fin) in pure.iter().zip(&finals) {
            slices.push(audit_slice(variant, &rules, pure, fin));
        }
        for s in finals {
            known.insert(s.index.material(), Arc::new(s));
        }
        for m in &step.release {
            known.remove(m);
        }
    }
    Audit { variant: variant.to_string(), rules: rules.name.clone(), rules_hash: format!("{:016x}", rules.hash), slices }
}

fn audit_slice(variant: Variant, rules: &RuleSet, pure: &Solved, fin: &Solved) -> SliceAudit {
    let material = pure.index.material();
    let mut a = SliceAudit {
        material: material.to_string(),
        positions: pure.index.size(),
        pure_wins: 0,
        rule_wins: 0,
        cursed_wins: 0,
        blessed_losses: 0,
        longest_pure_win: 0,
        longest_pure_win_fen: None,
        longest_rule_win: 0,
        longest_rule_win_fen: None,
        cursed_win_fen: None,
        limit_plies: None,
        rules: Vec::new(),
        pure_win_lengths: Vec::new(),
        rule_win_lengths: Vec::new(),
        cursed_win_lengths: Vec::new(),
        counter_states: 0,
        ambiguous_states: 0,
    };
    (a.counter_states, a.ambiguous_states) = ambiguity(rules, &fin.index, &fin.values);
    let (mut pure_hist, mut rule_hist, mut cursed_hist) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let mut limits: BTreeMap<u32, u64> = BTreeMap::new();
    let binding = rules.binding(material);
    let both_kings = material.own_kings > 0 && material.opp_kings > 0;
    let mut applied: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let (mut longest_pure, mut longest_rule, mut longest_cursed) = (None, None, None::<(u16, u64)>);
    for (i, (&p, &f)) in pure.values.iter().zip(&fin.values).enumerate() {
        let (p, f) = (unpack(p), unpack(f));
        match f.wdl {
            Wdl::CursedWin => a.cursed_wins += 1,
            Wdl::BlessedLoss => a.blessed_losses += 1,
            _ => {}
        }
        if p.wdl != Wdl::Win {
            continue;
        }
        let i = i as u64;
        a.pure_wins += 1;
        *pure_hist.entry(p.plies.0).or_insert(0u64) += 1;
        if longest_pure.is_none_or(|(d, _)| p.plies.0 > d) {
            longest_pure = Some((p.plies.0, i));
        }
        if f.wdl == Wdl::Win {
            a.rule_wins += 1;
            *rule_hist.entry(f.plies.0).or_insert(0u64) += 1;
            if longest_rule.is_none_or(|(d, _)| f.plies.0 > d) {
                longest_rule = Some((f.plies.0, i));
            }
        } else {
            *cursed_hist.entry(p.plies.0).or_insert(0u64) += 1;
            if longest_cursed.is_none_or(|(d, _)| p.plies.0 > d) {
                longest_cursed = Some((p.plies.0, i));
            }
        }
        let pos = pure.index.position(i);
        if let Some(l) = rules.reset_limit(binding, &pos, true) {
            *limits.entry(l).or_insert(0) += 1;
        }
        // A kings-only count cannot grow while a side has no king to move.
        let here = rules.applicable(&pos, true).into_iter().filter(|(r, _)| r.counter == Counter::Quiet || both_kings);
        for (rule, l) in here {
            let e = applied.entry(rule.name.clone()).or_insert((l, l));
            *e = (e.0.min(l), e.1.max(l));
        }
    }
    let fen_of = |i: u64| fen::write(&pure.index.position(i), variant);
    (a.longest_pure_win, a.longest_pure_win_fen) = longest_pure.map_or((0, None), |(d, i)| (d, Some(fen_of(i))));
    (a.longest_rule_win, a.longest_rule_win_fen) = longest_rule.map_or((0, None), |(d, i)| (d, Some(fen_of(i))));
    a.cursed_win_fen = longest_cursed.map(|(_, i)| fen_of(i));
    a.limit_plies = limits.iter().max_by_key(|(_, n)| **n).map(|(l, _)| *l);
    a.rules = applied.into_iter().map(|(name, (lo, hi))| AppliedRule { name, min_plies: lo, max_plies: hi }).collect();
    a.pure_win_lengths = pure_hist.into_iter().collect();
    a.rule_win_lengths = rule_hist.into_iter().collect();
    a.cursed_win_lengths = cursed_hist.into_iter().collect();
    a
}

/// How many (position, counter) states of a slice [`RuleSet::judge`]
/// leaves ambiguous, given the slice's stored values: (states, ambiguous).
///
/// The states of a position are the live counter pairs (quiet q, kings-only
/// k): q below the largest quiet limit of the slice (both parities of a
/// limit in moves), and k up to q and below the kings-only limit (at most 1
/// where a side has no king), or k = q without men (the two counts are one
/// then). Without a quiet limit, q = k; without any limit, the fresh state
/// only. `judge` reads of a position
/// only its stored value and where a lone king stands
/// ([`lone_kings_on_main_road`]), so positions alike in both are judged
/// once.
pub fn ambiguity(rules: &RuleSet, index: &SliceIndex, values: &[u16]) -> (u64, u64) {
    let material = index.material();
    let lone = |kings: u8, men: u8| kings == 1 && men == 0;
    let roads_matter = lone(material.own_kings, material.own_men) || lone(material.opp_kings, material.opp_men);
    const CHUNK: u64 = 1 << 16;
    // (stored value, lone kings on the road) -> (positions, first index).
    let classes = (0..index.size().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut classes: HashMap<(u16, u8), (u64, u64)> = HashMap::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(index.size()) {
                let road = if roads_matter { lone_kings_on_main_road(&index.position(i)) } else { 0 };
                classes.entry((values[i as usize], road)).or_insert((0, i)).0 += 1;
            }
            classes
        })
        .reduce(HashMap::new, |mut a, b| {
            for (key, (n, first)) in b {
                let e = a.entry(key).or_insert((0, first));
                *e = (e.0 + n, e.1.min(first));
            }
            a
        });
    let reps: Vec<(Position, Value, u64)> =
        classes.into_iter().map(|((v, _), (n, first))| (index.position(first), unpack(v), n)).collect();
    let both_kings = material.own_kings > 0 && material.opp_kings > 0;
    let states = counter_states(rules, reps.iter().map(|(p, _, _)| p), material.men() > 0, both_kings);
    let ambiguous = reps
        .par_iter()
        .map(|(pos, fresh, n)| {
            let judged = states.iter().filter(|&&c| matches!(rules.judge(pos, *fresh, c), Verdict::Ambiguous(..)));
            judged.count() as u64 * n
        })
        .sum();
    (states.len() as u64 * index.size(), ambiguous)
}

/// The live counter states of a slice's positions (see [`ambiguity`]).
fn counter_states<'a>(
    rules: &RuleSet,
    positions: impl Iterator<Item = &'a Position>,
    men: bool,
    both_kings: bool,
) -> Vec<Counters> {
    let (mut quiet, mut kings_only) = (0, None);
    for pos in positions {
        for wins in [true, false] {
            for (rule, l) in rules.applicable(pos, wins) {
                if rule.counter == Counter::Quiet {
                    // A limit in moves ends on ply 2N - 1 or 2N.
                    quiet = quiet.max(if rule.limit_moves.is_some() { l + l % 2 } else { l });
                }
            }
        }
        kings_only = kings_only.or(rules.kings_only_limit(pos));
    }
    // A side without a king moves a man or captures every turn.
    if !both_kings {
        kings_only = kings_only.map(|l| l.min(2));
    }
    let at = |q: u16, k: u16| Counters { quiet: q, kings_only: k };
    // The counts below a limit that a counter can hold.
    let below = |l: u32| (0..=u16::MAX).take_while(move |&c| u32::from(c) < l);
    match (quiet, kings_only) {
        (0, None) => vec![Counters::default()],
        (0, Some(lk)) => below(lk).map(|k| at(k, k)).collect(),
        (lq, None) => below(lq).map(|q| at(q, 0)).collect(),
        (lq, Some(lk)) if !men => below(lq.min(lk)).map(|q| at(q, q)).collect(),
        (lq, Some(lk)) => below(lq).flat_map(|q| below(lk.min(u32::from(q) + 1)).map(move |k| at(q, k))).collect(),
    }
}

fn unpack(v: u16) -> Value {
    Value::unpack(v).expect("solver packs values")
}

/// The report as text: one line a slice with its wins against its limit.
pub fn report(audit: &Audit) -> String {
    let mut out = format!("damka audit: {} with rule set {} ({})\n", audit.variant, audit.rules, audit.rules_hash);
    out.push_str(&format!(
        "{:<9} {:>11} {:>11} {:>9} {:>9} {:>16} {:>16} {:>12} {:>10}  {}\n",
        "slice", "pure wins", "rule wins", "cursed", "blessed", "longest pure", "longest rule", "limit", "ambiguous", "rules"
    ));
    let share = |part: u64, whole: u64| format!("{:.2}%", 100.0 * part as f64 / whole.max(1) as f64);
    let moves = |plies: u32| format!("{} ({}m)", plies, plies.div_ceil(2));
    for s in &audit.slices {
        let rules: Vec<String> = s.rules.iter().map(|r| r.name.clone()).collect();
        out.push_str(&format!(
            "{:<9} {:>11} {:>11} {:>9} {:>9} {:>16} {:>16} {:>12} {:>10}  {}\n",
            s.material,
            s.pure_wins,
            s.rule_wins,
            s.cursed_wins,
            s.blessed_losses,
            moves(s.longest_pure_win.into()),
            moves(s.longest_rule_win.into()),
            s.limit_plies.map_or("-".to_string(), moves),
            share(s.ambiguous_states, s.counter_states),
            rules.join(", ")
        ));
        if let Some(f) = &s.cursed_win_fen {
            // No limit here: the win needed a conversion into a slice
            // where the rules draw it.
            let why = if s.rules.is_empty() { " (drawn after its conversion)" } else { "" };
            out.push_str(&format!("          cursed win, e.g. {f}{why}\n"));
        }
    }
    let cursed: u64 = audit.slices.iter().map(|s| s.cursed_wins).sum();
    let wins: u64 = audit.slices.iter().map(|s| s.pure_wins).sum();
    let states: u64 = audit.slices.iter().map(|s| s.counter_states).sum();
    let ambiguous: u64 = audit.slices.iter().map(|s| s.ambiguous_states).sum();
    out.push_str(&format!(
        "{} slices; {cursed} of {wins} pure wins ({:.3}%) are drawn by the rules; \
         a probe with counters is ambiguous in {ambiguous} of {states} (position, counter) states ({})\n",
        audit.slices.len(),
        100.0 * cursed as f64 / wins.max(1) as f64,
        share(ambiguous, states)
    ));
    out
}
