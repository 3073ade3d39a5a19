//! Each rule of data/rules/russian.toml on concrete positions: one where it
//! bites (a pure win it turns into a cursed win, or a pure loss into a
//! blessed loss) and one where it does not.
//!
//! The positions are found by searching the main solver's tables; what is
//! asserted about them is cross-checked with the exhaustive solver over game
//! states (generator/src/counters.rs), which solves the rules as a game and
//! shares none of the main solver's method. Rule sets that differ from
//! russian in one rule (removed, or a tighter limit) show which rule bites.
//!
//! What the tables show up to four pieces (and these tests pin down): only
//! the main-road rule changes a fresh value there. Every win of two kings
//! (or a king and a man) against a king takes at most 7 plies, within the
//! 5-move limit; three kings win within 22 plies, within 15 moves; no win in
//! a 4-piece ending with kings on both sides takes more than 60 plies, and
//! none needs more than 30 plies of king moves only. Those rules bite in
//! game states with counters (shown here), in larger endings, or with
//! tighter limits (shown here too).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use damka::{fen, Color, Counters, Material, Position, RuleSet, SliceIndex, Value, Variant, Verdict, Wdl};
use damka_generator::counters::{PairStates, Solver};
use damka_generator::graph::pairs_in_order;
use damka_generator::solver::{solve_pair, Known, Metric, Options};

const RUSSIAN: &str = include_str!("../../data/rules/russian.toml");

/// The russian rule file with `edit` applied to the rule `name`'s block
/// (`None` removes the rule).
fn russian_with(name: &str, edit: impl Fn(&str) -> Option<String>) -> Arc<RuleSet> {
    let (head, blocks) = RUSSIAN.split_once("\n[[rule]]").expect("rules");
    // A rule set name holds 16 bytes.
    let mut text = head.replacen("name = \"russian\"", &format!("name = \"ru-{name}\""), 1);
    let mut found = false;
    for block in blocks.split("\n[[rule]]") {
        let block = if block.contains(&format!("name = \"{name}\"")) {
            found = true;
            edit(block)
        } else {
            Some(block.to_string())
        };
        if let Some(b) = block {
            text += "\n[[rule]]";
            text += &b;
        }
    }
    assert!(found, "russian.toml has no rule {name}");
    Arc::new(RuleSet::parse(&text).expect("edited rule file"))
}

fn russian() -> Arc<RuleSet> {
    Arc::new(RuleSet::preset("russian").expect("preset"))
}

/// The 4-piece endings the tests look at, with kings on both sides.
const ENDINGS: [&str; 5] = ["KKKvK", "KKMvK", "KMMvK", "KKvKM", "KMvKM"];

/// The main solver's tables under russian, solved once for all tests.
fn russian_tables() -> &'static Known {
    static TABLES: OnceLock<Known> = OnceLock::new();
    TABLES.get_or_init(|| tables(&russian(), &ENDINGS))
}

/// The same without the balance rule.
fn no_balance_tables() -> &'static Known {
    static TABLES: OnceLock<Known> = OnceLock::new();
    TABLES.get_or_init(|| tables(&without("balance-4-5"), &ENDINGS))
}

fn without(name: &str) -> Arc<RuleSet> {
    russian_with(name, |_| None)
}

/// `name` with `from` (e.g. "limit_moves = 5") replaced by `to`.
fn retuned(name: &str, from: &str, to: &str) -> Arc<RuleSet> {
    russian_with(name, |b| {
        assert!(b.contains(from), "rule {name} has no '{from}'");
        Some(b.replace(from, to))
    })
}

/// The slice pairs to solve for `targets`: every pair of up to three
/// pieces, then each target's pair and the pairs its promotions reach.
fn closure(targets: &[&str]) -> Vec<Material> {
    let mut pairs = pairs_in_order(3);
    let mut four: Vec<Material> = Vec::new();
    for t in targets {
        let m: Material = t.parse().expect("material");
        for i in 0..=m.own_men {
            for j in 0..=m.opp_men {
                let p = Material::new(m.own_kings + i, m.own_men - i, m.opp_kings + j, m.opp_men - j);
                let p = if p <= p.swap() { p } else { p.swap() };
                if p.pieces() > 3 && !four.contains(&p) {
                    four.push(p);
                }
            }
        }
    }
    four.sort_by_key(|m| (m.pieces(), m.men(), *m));
    pairs.extend(four);
    pairs
}

/// The main solver's tables for `targets` under `rules`.
fn tables(rules: &Arc<RuleSet>, targets: &[&str]) -> Known {
    let opts = Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules.clone()) };
    let mut known = Known::new();
    for pair in closure(targets) {
        for s in solve_pair(pair, &opts, &known, &|_| {}) {
            known.insert(s.index.material(), Arc::new(s));
        }
    }
    known
}

/// The exhaustive solver over `targets` under `rules`; the states of the
/// pairs of `targets`.
fn exhaustive(rules: &Arc<RuleSet>, targets: &[&str]) -> (Solver, HashMap<Material, PairStates>) {
    let mut solver = Solver::new(Variant::Russian, rules.clone());
    let mut states = HashMap::new();
    for pair in closure(targets) {
        let s = solver.solve_pair(pair);
        for m in s.slices().to_vec() {
            if targets.contains(&m.to_string().as_str()) {
                states.insert(m, s);
                break;
            }
        }
    }
    (solver, states)
}

fn slice(text: &str) -> Material {
    text.parse().expect("material")
}

fn value(known: &Known, pos: &Position) -> Value {
    known[&Material::of(pos)].value(pos)
}

/// The exhaustive solver's fresh value of `pos` (White to move).
fn fresh(solver: &Solver, pos: &Position) -> Value {
    let f = solver.fresh(Material::of(pos)).expect("solved slice");
    f.values[f.index.index(pos).expect("slice position") as usize]
}

/// The positions of a slice (White to move) with their values, in index
/// order.
fn positions<'a>(known: &'a Known, material: &str) -> impl Iterator<Item = (Position, Value)> + 'a {
    let solved = &known[&slice(material)];
    (0..solved.index.size()).map(move |i| (solved.index.position(i), solved.at(i)))
}

fn text(pos: &Position) -> String {
    fen::write(pos, Variant::Russian)
}

/// The lone king of `color` stands on the main road a1-h8.
fn on_main_road(pos: &Position, color: Color) -> bool {
    pos.kings(color).into_iter().any(|sq| sq.file() == sq.rank())
}

/// States of `pair` for a quiet period started at `start`.
fn state(states: &PairStates, start: &Position, pos: &Position, quiet: u16, kings_only: u16) -> Option<Wdl> {
    states.state_value(start, pos, Counters { quiet, kings_only })
}

/// The 5-move rule for two kings against one never bites: every win is
/// faster. With a 3-move limit the longest wins become cursed.
#[test]
fn small_endings_two_kings_against_one() {
    let rules = russian();
    let known = russian_tables();
    let (solver, _) = exhaustive(&rules, &[]);
    // The stronger side to move has 9 plies (its 5th move is ply 9).
    let kk = slice("KKvK");
    let limit = rules.quiet_limit(&SliceIndex::new(kk).position(0), true);
    assert_eq!(limit, Some(9));
    let (longest, v) = positions(known, "KKvK").filter(|(_, v)| v.wdl == Wdl::Win).max_by_key(|(_, v)| v.plies).unwrap();
    assert_eq!(fresh(&solver, &longest), v, "{}", text(&longest));
    assert!(v.plies.0 <= 9, "{}: {v}", text(&longest));
    for m in ["KvK", "KKvK", "KvKK", "KMvK", "KvKM"] {
        assert!(positions(known, m).all(|(_, v)| !matches!(v.wdl, Wdl::CursedWin | Wdl::BlessedLoss)), "{m}");
    }
    eprintln!("longest KKvK win: {} {v}", text(&longest));

    // Three moves: 5 plies for the stronger side to move, 6 for the other.
    let tight = retuned("small-endings", "limit_moves = 5", "limit_moves = 3");
    assert_eq!(tight.quiet_limit(&longest, true), Some(5));
    let (known3, solver3) = cut_and_kept(&tight, &[], known, "KKvK", 5);
    // And the other side to move: the lone king's loss counts the stronger
    // side's third move, ply 6.
    let (lost, lv) = positions(known, "KvKK").filter(|(_, v)| v.wdl == Wdl::Loss).max_by_key(|(_, v)| v.plies).unwrap();
    assert_eq!(tight.quiet_limit(&lost, false), Some(6));
    let expected = if lv.plies.0 <= 6 { lv } else { Value::new(Wdl::BlessedLoss, lv.plies.0) };
    assert_eq!(value(&known3, &lost), expected, "{}", text(&lost));
    assert_eq!(fresh(&solver3, &lost), expected);
}

/// Three kings against a lone king: on the main road the 5-move rule, off
/// it the 15-move rule. With the lone king to move on the road, losses it
/// would suffer within 15 moves are saved; off the road they are not.
#[test]
fn three_kings_against_a_lone_king_on_and_off_the_main_road() {
    let rules = russian();
    let known = russian_tables();
    let plain = without("main-road");
    let known_plain = tables(&plain, &["KKKvK"]);
    let (solver, states) = exhaustive(&rules, &["KvKKK"]);
    let pair = &states[&slice("KvKKK")];

    // On the road, the lone king (White) to move: the stronger side moves
    // second, its 5th move is ply 10.
    let (on, v) = positions(known, "KvKKK").find(|(_, v)| v.wdl == Wdl::BlessedLoss).unwrap();
    eprintln!("on the main road: {} {v}", text(&on));
    assert!(on_main_road(&on, Color::White));
    assert_eq!(rules.quiet_limit(&on, false), Some(10));
    let lifted = value(&known_plain, &on);
    assert_eq!(lifted.wdl, Wdl::Loss, "without the main-road rule: {lifted}");
    assert!(lifted.plies.0 > 10 && lifted.plies.0 <= 30, "{lifted}");
    assert_eq!(v.plies, lifted.plies, "a blessed loss keeps the too-long distance");
    assert_eq!(fresh(&solver, &on), v);

    // Off the road: a loss longer than 10 plies stays a loss (15 moves).
    let (off, w) = positions(known, "KvKKK")
        .find(|(p, v)| v.wdl == Wdl::Loss && v.plies.0 > 10 && !on_main_road(p, Color::White))
        .unwrap();
    eprintln!("off the main road: {} {w}", text(&off));
    assert_eq!(rules.quiet_limit(&off, false), Some(30));
    assert_eq!(fresh(&solver, &off), w);

    // The stronger side to move never has a win the 5-move rule cuts: with
    // the lone king on the road its wins are short.
    assert!(positions(known, "KKKvK").all(|(_, v)| v.wdl != Wdl::CursedWin));

    // Where the king stood when the count began decides, and the counters do
    // not say it: two plies into a count that began with the king off the
    // road, `on` is lost; in one that began on it, saved.
    let start_off = positions(known, "KvKKK").map(|(p, _)| p).find(|p| !on_main_road(p, Color::White)).unwrap();
    assert_eq!(state(pair, &start_off, &on, 2, 2), Some(Wdl::Loss));
    assert_eq!(state(pair, &on, &on, 2, 2), Some(Wdl::BlessedLoss));
    assert_eq!(rules.judge(&on, v, Counters { quiet: 2, kings_only: 2 }), Verdict::Ambiguous(Wdl::Loss, Wdl::BlessedLoss));
    // Past the 5-move limit only a start off the road is still a game.
    assert_eq!(state(pair, &on, &on, 10, 10), None);
    assert_eq!(state(pair, &start_off, &on, 10, 10), Some(Wdl::Loss));
    assert_eq!(rules.judge(&on, v, Counters { quiet: 10, kings_only: 10 }), Verdict::Exact(Wdl::Loss));
}

/// The 15-move rule for three kings never bites at four pieces: every win
/// takes at most 22 plies. A 10-move limit cuts the longest.
#[test]
fn three_kings_fifteen_moves() {
    let rules = russian();
    let known = russian_tables();
    let (longest, v) = positions(known, "KKKvK").filter(|(_, v)| v.wdl == Wdl::Win).max_by_key(|(_, v)| v.plies).unwrap();
    eprintln!("longest KKKvK win: {} {v}", text(&longest));
    assert!(!on_main_road(&longest, Color::Black));
    assert_eq!(rules.quiet_limit(&longest, true), Some(29));
    assert!(v.plies.0 <= 29);

    let tight = retuned("three-kings", "limit_moves = 15", "limit_moves = 10");
    assert_eq!(tight.quiet_limit(&longest, true), Some(19));
    cut_and_kept(&tight, &["KKKvK"], known, "KKKvK", 19);
}

/// Under `tight`, whose limit for the stronger side to move in `material`
/// is `limit` plies, in both solvers: the longest win (longer than that)
/// becomes a cursed win that keeps its distance, and the longest win within
/// it, off the main road, stays a win.
fn cut_and_kept(tight: &Arc<RuleSet>, targets: &[&str], known: &Known, material: &str, limit: u16) -> (Known, Solver) {
    let (solver, _) = exhaustive(tight, targets);
    let tightened = tables(tight, targets);
    let wins = || positions(known, material).filter(|(_, v)| v.wdl == Wdl::Win);
    let (long, v) = wins().max_by_key(|(_, v)| v.plies).unwrap();
    assert!(v.plies.0 > limit, "{}: {v}", text(&long));
    assert_eq!(value(&tightened, &long), Value::new(Wdl::CursedWin, v.plies.0), "{}", text(&long));
    assert_eq!(fresh(&solver, &long), Value::new(Wdl::CursedWin, v.plies.0));
    let (short, sv) = wins()
        .filter(|(p, v)| v.plies.0 <= limit && !on_main_road(p, Color::Black))
        .max_by_key(|(_, v)| v.plies)
        .unwrap();
    assert_eq!(value(&tightened, &short), sv, "{}", text(&short));
    assert_eq!(fresh(&solver, &short), sv);
    (tightened, solver)
}

/// Two kings and a man against a lone king on the main road: 5 moves
/// (9 plies with the stronger side to move). Off the road only the
/// balance rule's 30 moves.
#[test]
fn main_road_two_kings_and_a_man() {
    let rules = russian();
    let known = russian_tables();
    let known_plain = tables(&without("main-road"), &["KKMvK"]);
    let (on, v) = positions(known, "KKMvK").find(|(_, v)| v.wdl == Wdl::CursedWin).unwrap();
    eprintln!("on the main road: {} {v}", text(&on));
    assert!(on_main_road(&on, Color::Black));
    assert_eq!(rules.quiet_limit(&on, true), Some(9));
    let lifted = value(&known_plain, &on);
    assert_eq!(lifted.wdl, Wdl::Win);
    assert!(lifted.plies.0 > 9);
    assert_eq!(v.plies, lifted.plies);
    let (off, w) =
        positions(known, "KKMvK").find(|(p, v)| v.wdl == Wdl::Win && v.plies.0 > 9 && !on_main_road(p, Color::Black)).unwrap();
    eprintln!("off the main road: {} {w}", text(&off));
    // Off the road only the 30-move balance rule limits the count.
    assert_eq!(rules.quiet_limit(&off, true), Some(60));
}

/// The kings-only rule in a 4-piece ending with men (KMMvK: kings on both
/// sides, so the solver works over (position, kings-only count)). The
/// longest win takes more than 30 plies to its conversion: it is still a
/// win because the men move on the way. Reached with a high kings-only
/// count, the same position is drawn by the rule.
///
/// The states are solved without the balance rule (which changes no fresh
/// value at four pieces, checked first): off the main road only the
/// kings-only count is left to solve over, seconds instead of minutes, and
/// the quiet count cannot bite instead of the kings-only one.
#[test]
fn kings_only_fifteen_moves_with_men_on_the_board() {
    let rules = russian();
    let no_balance = without("balance-4-5");
    let known = russian_tables();
    for m in ["KMMvK", "KvKMM", "KKMvK", "KvKKM", "KKvKM", "KMvKK", "KMvKM", "KKKvK", "KvKKK", "KKvKK"] {
        assert_eq!(known[&slice(m)].values, no_balance_tables()[&slice(m)].values, "{m}: the balance rule bites");
    }
    let (solver, states) = exhaustive(&no_balance, &["KMMvK"]);
    let pair = &states[&slice("KMMvK")];

    let (p, v) = positions(known, "KMMvK").filter(|(_, v)| v.wdl == Wdl::Win).max_by_key(|(_, v)| v.plies).unwrap();
    eprintln!("longest KMMvK win: {} {v}", text(&p));
    assert!(!on_main_road(&p, Color::Black));
    assert_eq!(rules.kings_only_limit(&p), Some(30));
    assert!(v.plies.0 > 30, "{v}");
    assert_eq!(fresh(&solver, &p), v);

    // The same position with a kings-only count k (the quiet count even, so
    // that the side to move began the count): a win while k is low, drawn
    // once too few king plies are left before a man must move.
    let at = |k: u16| state(pair, &p, &p, k + k % 2, k).expect("a live state");
    let results: Vec<Wdl> = (0..30).map(at).collect();
    let flip = results.iter().position(|&w| w != Wdl::Win).expect("the kings-only rule bites at some count");
    assert!(flip > 0);
    assert!(results[flip..].iter().all(|&w| w == Wdl::CursedWin), "{results:?}");
    eprintln!("kings-only count: a win up to {}, drawn from {flip}", flip - 1);
    // The fresh value alone cannot tell where the count bites, but the probe
    // never claims a wrong result.
    for (k, &truth) in results.iter().enumerate() {
        let k = k as u16;
        match no_balance.judge(&p, v, Counters { quiet: k + k % 2, kings_only: k }) {
            Verdict::Exact(w) => assert_eq!(w, truth, "kings-only {k}"),
            Verdict::Ambiguous(a, b) => assert!(truth == a || truth == b, "kings-only {k}"),
        }
    }

    // A win by king moves alone: the count bites where the capture no
    // longer comes by the 30th king ply, d + k <= 30.
    let (q, qv) = positions(known, "KKvKM").find(|(p, v)| v.wdl == Wdl::Win && v.plies.0 == 3 && p.men(Color::Black).has_any()).unwrap();
    let (_, states_kk) = exhaustive(&no_balance, &["KKvKM"]);
    let pair = &states_kk[&slice("KKvKM")];
    let at = |k: u16| state(pair, &q, &q, k + k % 2, k).expect("a live state");
    eprintln!("KKvKM win in 3: {} {qv}", text(&q));
    assert_eq!(at(0), Wdl::Win);
    let last = (0..30).rev().find(|&k| at(k) == Wdl::Win).unwrap();
    assert!(last + qv.plies.0 <= 30, "a win with kings-only count {last}");
    assert!((last + 1..30).all(|k| at(k) == Wdl::CursedWin));
}

/// The 30-move balance rule (both sides have kings, 4 or 5 pieces) never
/// bites at four pieces (see above: the tables with and without it agree);
/// with a 20-move limit the longest KMMvK win is cut.
#[test]
fn balance_of_forces_thirty_moves() {
    let rules = russian();
    let known = russian_tables();
    let (p, v) = positions(known, "KMMvK").filter(|(_, v)| v.wdl == Wdl::Win).max_by_key(|(_, v)| v.plies).unwrap();
    assert_eq!(rules.quiet_limit(&p, true), Some(60));
    assert!(v.plies.0 <= 60);
    let tight = retuned("balance-4-5", "limit_plies = 60", "limit_plies = 40");
    let known40 = tables(&tight, &["KMMvK"]);
    assert!(v.plies.0 > 40, "{v}");
    assert_eq!(value(&known40, &p), Value::new(Wdl::CursedWin, v.plies.0), "{}", text(&p));
    let (short, sv) =
        positions(known, "KMMvK").find(|(p, v)| v.wdl == Wdl::Win && v.plies.0 > 30 && v.plies.0 <= 40 && !on_main_road(p, Color::Black)).unwrap();
    assert_eq!(value(&known40, &short), sv, "{}", text(&short));
}

/// Which limit applies where, by material: the 60-move balance rule from
/// six pieces on, none from eight; the small-endings rule counts the
/// winning side's moves with a king against a king.
#[test]
fn limits_by_material() {
    let rules = russian();
    let pos = |s: &str| fen::parse(s, Variant::Russian).expect("test FEN");
    // 5 pieces, both sides with kings: 30 moves.
    assert_eq!(rules.quiet_limit(&pos("W:WKa1,c3,e3:BKh8,g7"), true), Some(60));
    // 6 and 7 pieces: 60 moves.
    assert_eq!(rules.quiet_limit(&pos("W:WKa1,c3,e3:BKh8,g7,e7"), true), Some(120));
    assert_eq!(rules.quiet_limit(&pos("W:WKa1,c3,e3,a3:BKh8,g7,e7"), true), Some(120));
    // 8 pieces: none; nor without kings on both sides.
    assert_eq!(rules.quiet_limit(&pos("W:WKa1,c3,e3,a3:BKh8,g7,e7,c7"), true), None);
    assert_eq!(rules.quiet_limit(&pos("W:WKa1,c3,e3:Bh6,g7,e7"), true), None);
    // Kings only, 15 moves of each side, everywhere.
    assert_eq!(rules.kings_only_limit(&pos("W:WKa1,c3,e3,a3:BKh8,g7,e7,c7")), Some(30));
    // A king against a king: the winner's 5th move, ply 9 if it moves
    // first, else 10.
    let kk = pos("W:WKa1:BKh6");
    assert_eq!((rules.quiet_limit(&kk, true), rules.quiet_limit(&kk, false)), (Some(9), Some(10)));
    // Three kings against a king on the main road: the 5-move rule is the
    // tighter; off the road, the 15-move rule.
    assert_eq!(rules.quiet_limit(&pos("W:WKa3,Kc1,Ke1:BKd4"), true), Some(9));
    assert_eq!(rules.quiet_limit(&pos("W:WKa3,Kc1,Ke1:BKd6"), true), Some(29));
    assert_eq!(rules.quiet_limit(&pos("B:WKa3,Kc1,Ke1:BKd6"), false), Some(30));
}

/// A move that leaves the opponent without a move wins, but not on the ply
/// that reaches a limit: the limit comes first. The tables count the
/// missing move as the reset, one ply after the blocking move, so the probe
/// with counters tells the two apart exactly.
#[test]
fn a_block_on_the_limit_ply_draws() {
    let rules = russian();
    let known = russian_tables();
    // Black's king on a1 is shut in by its own man on b2, which cannot
    // move: any king move of White's leaves Black without a move.
    let p = fen::parse("W:WKa3,c1:Bb2,Ka1", Variant::Russian).expect("test FEN");
    assert_eq!(rules.quiet_limit(&p, true), Some(60));
    let v = value(known, &p);
    assert_eq!(v, Value::new(Wdl::Win, 2), "{}", text(&p));
    let (_, states) = exhaustive(&rules, &["KMvKM"]);
    let pair = &states[&slice("KMvKM")];
    for (quiet, expected) in [(0, Wdl::Win), (58, Wdl::Win), (59, Wdl::CursedWin)] {
        let counters = Counters { quiet, kings_only: 0 };
        assert_eq!(state(pair, &p, &p, quiet, 0), Some(expected), "exhaustive at quiet {quiet}");
        assert_eq!(rules.judge(&p, v, counters), Verdict::Exact(expected), "judge at quiet {quiet}");
    }
}
