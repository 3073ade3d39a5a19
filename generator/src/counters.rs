//! An exhaustive solver over game states (position, quiet, kings_only), to
//! check the rule tables and [`RuleSet::judge`] against.
//!
//! Written apart from [`crate::solver`] and [`crate::unit`]: it shares only
//! move generation, positions, the indexer, the value types and the rule
//! set's limit functions. The main solver solves positions and folds the
//! counters in afterwards; this one solves the game states themselves, for
//! small slices:
//!
//! 1. Explicit graph. For a slice pair (a slice and its colour-swapped twin)
//!    every position gets its moves once. Quiet moves stay in the pair and
//!    become edges, each marked as a king or a man move; conversions
//!    (captures, promotions) lead to slices solved before, and only the
//!    best of them for the mover is kept.
//! 2. Classes. Which quiet limits apply is fixed when the quiet count
//!    starts, at the fresh position `P0`: material, where a lone king stood
//!    (the main-road rule), who moved first. A class is
//!    (`quiet_limit(P0, true)`, `quiet_limit(P0, false)`): the last ply on
//!    which the side to move at `P0`, and the other side, may convert. The
//!    game is drawn once the count reaches the larger of the two. States of
//!    different classes never meet (a conversion ends the class), so each
//!    class is solved on its own.
//! 3. A class with a quiet limit: the count rises by one every ply, so the
//!    states (position, q, k) form layers by q, solved from the limit down
//!    to q = 0 in one pass each, no iteration. A class without one (only the
//!    kings-only limit applies): states (position, k); a king move raises k,
//!    a man move goes to a more advanced men configuration, so solving
//!    configurations most advanced first, k from the limit down, needs no
//!    iteration either. Without any limit, plain retrograde analysis over
//!    the graph (pure values are solved that way too).
//! 4. A result depends on k monotonically (a higher count only takes
//!    chances away, from both sides): each (position, q) is stored as "wins
//!    for k < t", "loses for k < t" or "draw", which the solver asserts.
//! 5. [`PairStates::for_each_state`] walks forward from every fresh state
//!    and reports each reachable live state with every result it can have
//!    (one per class it can be reached in: the counters alone do not say
//!    where a lone king stood when the count started).
//!
//! Threefold repetition is a draw; a forced win never needs to repeat a
//! position, so it only matters where no limit applies.
//!
//! A move that leaves the opponent without a move ends the game, but it is
//! no reset: on the ply that reaches a limit it draws, since the limit is
//! reached before the opponent's turn comes. Rule distances count the
//! missing move as the reset, one ply on, as the rule tables do (a position
//! without a move is lost in 1 ply there, in 0 in pure values).

use std::collections::HashMap;
use std::sync::Arc;

use damka::index::MenConfig;
use damka::movegen::{generate, Routes};
use damka::{Counters, Material, Position, RuleSet, SliceIndex, Value, Variant, Wdl};

/// A result as one number, best for the side to move is largest:
/// win in d plies = `BIG - d`, loss in d plies = `d - BIG`, draw = 0.
type Score = i16;
const BIG: Score = 16_000;
/// No move seen yet.
const NONE: Score = Score::MIN;
/// No move at all, in pure values: lost at once.
const STUCK_PURE: Score = -BIG;
/// No move at all, in rule values: lost, the reset one ply on.
const STUCK_RULE: Score = 1 - BIG;

/// The score of a move into a state worth `s` to the opponent.
#[inline]
fn back(s: Score) -> Score {
    match s {
        0 => 0,
        s if s > 0 => 1 - s,
        s => -1 - s,
    }
}

fn to_value(s: Score) -> Value {
    match s {
        0 => Value::DRAW,
        s if s > 0 => Value::new(Wdl::Win, (BIG - s) as u16),
        s => Value::new(Wdl::Loss, (s + BIG) as u16),
    }
}

/// The score of a conversion into a fresh position worth `v` to the
/// opponent (one ply to the reset). Cursed wins and blessed losses are
/// draws under the rules.
fn exit_score(v: Wdl) -> Score {
    match v {
        Wdl::Win => 1 - BIG,
        Wdl::Loss => BIG - 1,
        _ => 0,
    }
}

/// Every slice pair up to `max_pieces` (the slice not larger than its
/// twin), each after the pairs its conversions lead to: fewer pieces first,
/// then fewer men (a promotion keeps the pieces and turns a man into a
/// king).
pub fn pairs_up_to(max_pieces: u8) -> Vec<Material> {
    let mut pairs: Vec<Material> = Material::all_up_to(max_pieces).into_iter().filter(|m| *m <= m.swap()).collect();
    pairs.sort_by_key(|m| (m.pieces(), m.men(), *m));
    pairs
}

/// Fresh-count values of one slice, in index order (White to move).
pub struct Fresh {
    pub index: SliceIndex,
    /// Rule values as the tables define them: win and loss with the plies
    /// to the next conversion (or the end of the game) in optimal play
    /// under the rules; cursed win and blessed loss with those plies once
    /// the quiet limit is lifted (without men, where the two counts are one,
    /// the kings-only limit too), 0 where no conversion can be forced at
    /// all.
    pub values: Vec<Value>,
    /// Pure values.
    pub pure: Vec<Wdl>,
}

/// The exhaustive solver: fresh values of every slice solved so far.
pub struct Solver {
    variant: Variant,
    rules: Arc<RuleSet>,
    fresh: HashMap<Material, Fresh>,
}

impl Solver {
    pub fn new(variant: Variant, rules: Arc<RuleSet>) -> Solver {
        Solver { variant, rules, fresh: HashMap::new() }
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The fresh values of a slice solved so far.
    pub fn fresh(&self, material: Material) -> Option<&Fresh> {
        self.fresh.get(&material)
    }

    /// Solves every pair up to `max_pieces`, calling `f` with each.
    pub fn solve_up_to(&mut self, max_pieces: u8, mut f: impl FnMut(&Solver, &PairStates)) {
        for pair in pairs_up_to(max_pieces) {
            let states = self.solve_pair(pair);
            f(self, &states);
        }
    }

    /// Solves `material` and its twin over every game state. The slices
    /// its conversions lead to must be solved already.
    pub fn solve_pair(&mut self, material: Material) -> PairStates {
        let graph = Graph::build(material, self);
        let n = graph.len();
        let pure = retrograde(&graph, &graph.exit_pure, STUCK_PURE);
        let men = material.men() > 0;

        let kings_only_plies = self.rules.kings_only_limit(&graph.positions[0]);
        let kings_only = kings_only_plies.map(|l| count_limit(material, l));
        let mut class_of = Vec::with_capacity(n);
        let mut classes: Vec<Class> = Vec::new();
        for (local, pos) in graph.positions.iter().enumerate() {
            assert_eq!(self.rules.kings_only_limit(pos), kings_only_plies, "{material}: one kings-only limit per pair");
            let class = match (self.rules.quiet_limit(pos, true), self.rules.quiet_limit(pos, false)) {
                (Some(first), Some(second)) => Class::Tracked {
                    slice: graph.slice_of(local),
                    first: count_limit(material, first),
                    second: count_limit(material, second),
                },
                (None, None) => Class::Untracked,
                other => panic!("{material}: a quiet limit for one side only {other:?}"),
            };
            let id = classes.iter().position(|c| *c == class).unwrap_or_else(|| {
                classes.push(class);
                classes.len() - 1
            });
            class_of.push(id as u8);
        }
        if let Some(limit) = kings_only {
            assert!((1..=64).contains(&limit), "kings-only limit {limit}: counts up to 64 plies are supported");
        }

        let mut kings_only_solved: Option<Vec<Score>> = None;
        let mut fresh_score = vec![NONE; n];
        let solved: Vec<ClassStates> = classes
            .iter()
            .enumerate()
            .map(|(id, &class)| {
                let states = match class {
                    Class::Tracked { slice, first, second } => {
                        layered(&graph, slice, first, second, kings_only, men)
                    }
                    Class::Untracked => match kings_only {
                        Some(limit) => {
                            let states = kings_only_states(&graph, limit);
                            kings_only_solved = Some(states.fresh.clone());
                            states
                        }
                        None => ClassStates::free(retrograde(&graph, &graph.exit_rule, STUCK_RULE)),
                    },
                };
                for local in (0..n).filter(|&l| class_of[l] as usize == id) {
                    fresh_score[local] = states.fresh[local];
                }
                states
            })
            .collect();

        // Cursed wins and blessed losses keep the distance with the quiet
        // limit lifted: the kings-only limit alone where men are on the
        // board (it restarts at man moves), no limit at all without men (the
        // two counts are one, and the quiet limit binds it first).
        let saved = (0..n).any(|l| fresh_score[l] == 0 && pure[l] != 0);
        let lifted: Option<Vec<Score>> = saved.then(|| match (men, kings_only) {
            (true, Some(limit)) => kings_only_solved.take().unwrap_or_else(|| kings_only_states(&graph, limit).fresh),
            _ => retrograde(&graph, &graph.exit_rule, STUCK_RULE),
        });

        for (s, &slice) in graph.slices.iter().enumerate() {
            let index = SliceIndex::new(slice);
            let range = graph.offsets[s]..graph.offsets[s] + index.size() as usize;
            let values = range
                .clone()
                .map(|local| {
                    let rule = fresh_score[local];
                    assert!(rule != NONE, "{slice}: local {local} not solved");
                    let over = |wdl: Wdl| {
                        let d = lifted.as_ref().map_or(0, |l| l[local]);
                        Value::new(wdl, if d == 0 { 0 } else { to_value(d).plies.0 })
                    };
                    match (rule, pure[local]) {
                        (0, p) if p > 0 => over(Wdl::CursedWin),
                        (0, p) if p < 0 => over(Wdl::BlessedLoss),
                        (r, _) => to_value(r),
                    }
                })
                .collect();
            let pure_wdl = range.map(|local| to_value(pure[local]).wdl).collect();
            self.fresh.insert(slice, Fresh { index, values, pure: pure_wdl });
        }

        let check_layers = solved
            .iter()
            .map(|c| match c.class {
                Class::Tracked { .. } => c.layers,
                // Any count: as far as any limit of the pair reaches.
                Class::Untracked => {
                    let tracked = solved.iter().map(|c| c.layers).max().unwrap_or(0);
                    tracked.max(kings_only.unwrap_or(0)) + 2
                }
            })
            .max()
            .unwrap_or(0);
        PairStates { graph, pure, class_of, classes: solved, kings_only, check_layers }
    }
}

/// A limit in plies as the counters (16 bits) count it; the reader keeps
/// limits within what a table stores, far inside that.
fn count_limit(material: Material, plies: u32) -> u16 {
    u16::try_from(plies)
        .ok()
        .filter(|&l| l <= damka::format::MAX_PLIES)
        .unwrap_or_else(|| panic!("{material}: a limit of {plies} plies is beyond what a table stores"))
}

/// Which quiet limits bind a quiet period, fixed at its fresh position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// `slice`: the slice of the pair (0 or 1) of the fresh position; the
    /// side to move there may convert up to ply `first`, the other side up
    /// to ply `second`.
    Tracked { slice: u8, first: u16, second: u16 },
    /// No quiet limit applies.
    Untracked,
}

/// A slice pair as an explicit graph of positions.
struct Graph {
    slices: Vec<Material>,
    /// First local number of each slice.
    offsets: Vec<usize>,
    /// Every position of the pair, White to move (the twin's positions are
    /// the Black-to-move positions of the first slice, flipped).
    positions: Vec<Position>,
    /// Quiet moves of local `i`: `succ[start[i]..start[i + 1]]`, each
    /// `local << 1 | man_move`.
    start: Vec<u32>,
    succ: Vec<u32>,
    /// The best conversion for the mover, under the rules and pure.
    exit_rule: Vec<Score>,
    exit_pure: Vec<Score>,
    /// How far the men have come (man moves raise it).
    progress: Vec<u32>,
}

impl Graph {
    fn build(material: Material, solver: &Solver) -> Graph {
        let slices = if material == material.swap() { vec![material] } else { vec![material, material.swap()] };
        let indexes: Vec<SliceIndex> = slices.iter().map(|&m| SliceIndex::new(m)).collect();
        let mut offsets = vec![0];
        for index in &indexes {
            offsets.push(offsets.last().unwrap() + index.size() as usize);
        }
        let n = *offsets.last().unwrap();
        let positions: Vec<Position> =
            indexes.iter().flat_map(|index| (0..index.size()).map(move |i| index.position(i))).collect();
        let local_of = |pos: &Position| {
            let s = if Material::of(pos) == slices[0] { 0 } else { 1 };
            offsets[s] + indexes[s].index_unchecked(pos) as usize
        };
        let mut g = Graph {
            slices: slices.clone(),
            offsets: offsets.clone(),
            start: Vec::with_capacity(n + 1),
            succ: Vec::new(),
            exit_rule: vec![NONE; n],
            exit_pure: vec![NONE; n],
            progress: positions.iter().map(|p| MenConfig::of(p).progress()).collect(),
            positions,
        };
        let mut moves = Vec::with_capacity(64);
        for local in 0..n {
            g.start.push(g.succ.len() as u32);
            let pos = g.positions[local];
            generate(&pos, solver.variant, Routes::Merge, &mut moves);
            for m in &moves {
                // Black to move after White's move: turn it back to White.
                let after = pos.play(m).flip();
                if m.is_capture() || m.promotes() {
                    let (rule, pure) = solver.exit(&after);
                    g.exit_rule[local] = g.exit_rule[local].max(exit_score(rule));
                    g.exit_pure[local] = g.exit_pure[local].max(exit_score(pure));
                } else {
                    let man = !pos.all_kings().contains(m.from());
                    g.succ.push((local_of(&after) as u32) << 1 | man as u32);
                }
            }
        }
        g.start.push(g.succ.len() as u32);
        g
    }

    fn len(&self) -> usize {
        self.positions.len()
    }

    fn slice_of(&self, local: usize) -> u8 {
        (local >= self.offsets[1]) as u8
    }

    #[inline]
    fn moves(&self, local: usize) -> impl Iterator<Item = (usize, bool)> + '_ {
        self.succ[self.start[local] as usize..self.start[local + 1] as usize]
            .iter()
            .map(|&e| ((e >> 1) as usize, e & 1 == 1))
    }

    /// Whether the side to move has no move at all.
    fn stuck(&self, local: usize) -> bool {
        self.start[local] == self.start[local + 1] && self.exit_rule[local] == NONE
    }
}

impl Solver {
    /// The value, rule and pure, of a fresh position (White to move) for
    /// its side to move, after a conversion.
    fn exit(&self, pos: &Position) -> (Wdl, Wdl) {
        let m = Material::of(pos);
        if m.own_kings + m.own_men == 0 {
            return (Wdl::Loss, Wdl::Loss);
        }
        let fresh = self.fresh.get(&m).unwrap_or_else(|| panic!("slice {m} is needed before it is solved"));
        let i = fresh.index.index_unchecked(pos) as usize;
        (fresh.values[i].wdl, fresh.pure[i])
    }
}

/// Retrograde analysis over the whole graph without counters: wins spread
/// back in order of distance, a position whose every move loses is lost,
/// whatever is never reached is a draw. `exits`: the best conversion of
/// each position; `stuck`: the score of a position without a move.
fn retrograde(g: &Graph, exits: &[Score], stuck: Score) -> Vec<Score> {
    let n = g.len();
    let mut pred_start = vec![0u32; n + 1];
    for &e in &g.succ {
        pred_start[(e >> 1) as usize + 1] += 1;
    }
    for i in 0..n {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; g.succ.len()];
    for local in 0..n {
        for (to, _) in g.moves(local) {
            preds[fill[to] as usize] = local as u32;
            fill[to] += 1;
        }
    }

    let mut value = vec![NONE; n];
    let mut best = exits.to_vec();
    let mut open: Vec<u32> = (0..n).map(|i| g.start[i + 1] - g.start[i]).collect();
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let push = |buckets: &mut Vec<Vec<u32>>, local: usize, s: Score| {
        let d = to_value(s).plies.0 as usize;
        if buckets.len() <= d {
            buckets.resize(d + 1, Vec::new());
        }
        buckets[d].push(local as u32);
    };
    for local in 0..n {
        match exits[local] {
            s if s > 0 => push(&mut buckets, local, s),
            _ if open[local] > 0 => {}
            0 => value[local] = 0,
            NONE => {
                best[local] = stuck;
                push(&mut buckets, local, stuck);
            }
            s => push(&mut buckets, local, s),
        }
    }
    let mut d = 0;
    while d < buckets.len() {
        for local in std::mem::take(&mut buckets[d]) {
            let local = local as usize;
            if value[local] != NONE {
                continue;
            }
            value[local] = best[local];
            let s = back(best[local]);
            for &p in &preds[pred_start[local] as usize..pred_start[local + 1] as usize] {
                let p = p as usize;
                if value[p] != NONE {
                    continue;
                }
                if s > 0 {
                    if s > best[p] {
                        best[p] = s;
                        push(&mut buckets, p, s);
                    }
                } else {
                    open[p] -= 1;
                    best[p] = best[p].max(s);
                    if open[p] == 0 && best[p] < 0 {
                        push(&mut buckets, p, best[p]);
                    }
                }
            }
        }
        d += 1;
    }
    value.iter().map(|&v| if v == NONE { 0 } else { v }).collect()
}

/// The solved states of one class.
struct ClassStates {
    class: Class,
    /// Layers q = 0..layers (a tracked class), else 0.
    layers: u16,
    /// Per (q, local) of a tracked class, per local otherwise: the result
    /// as a function of k ([`Threshold`]).
    thresholds: Vec<u8>,
    /// The score at (local, 0, 0): valid for the locals whose fresh state
    /// is of this class (and for every local of an untracked class).
    fresh: Vec<Score>,
}

impl ClassStates {
    /// A class with no counter at all: values from retrograde analysis.
    fn free(scores: Vec<Score>) -> ClassStates {
        let thresholds = scores.iter().map(|&s| Threshold::of(&[s], 0)).collect();
        ClassStates { class: Class::Untracked, layers: 0, thresholds, fresh: scores }
    }

    /// The rule result (win, draw or loss) of a state of this class.
    fn result(&self, n: usize, local: usize, q: u16, k: u16) -> Wdl {
        let t = match self.class {
            Class::Tracked { .. } => self.thresholds[q as usize * n + local],
            Class::Untracked => self.thresholds[local],
        };
        Threshold::result(t, k)
    }
}

/// A result as a function of the kings-only count k, in a byte: 0 = draw
/// for every k; `t` = a win for k < t, a draw from there; `0x80 | t` = a
/// loss for k < t, a draw from there.
struct Threshold;

impl Threshold {
    /// From the scores `row[i]` at counts `k = first + i`; panics if the
    /// result is not of that shape (a higher count helping one side).
    fn of(row: &[Score], first: usize) -> u8 {
        let sign = |s: Score| s.signum();
        let end = row.iter().position(|&s| sign(s) != sign(row[0])).unwrap_or(row.len());
        assert!(row[end..].iter().all(|&s| s == 0), "results not monotone in the kings-only count: {row:?} from {first}");
        match sign(row[0]) {
            0 => 0,
            1 => (first + end) as u8,
            _ => 0x80 | (first + end) as u8,
        }
    }

    fn result(t: u8, k: u16) -> Wdl {
        match t {
            0 => Wdl::Draw,
            t if (k as u8) < t & 0x7f => {
                if t & 0x80 == 0 {
                    Wdl::Win
                } else {
                    Wdl::Loss
                }
            }
            _ => Wdl::Draw,
        }
    }
}

/// The kings-only counts a state of layer `q` can have: `0..=q` with men
/// on the board (the count restarts at man moves), just `q` without.
fn ks(q: u16, men: bool, kings_only: Option<u16>) -> std::ops::Range<usize> {
    match kings_only {
        None => 0..1,
        Some(_) if !men => q as usize..q as usize + 1,
        Some(limit) => 0..(q + 1).min(limit) as usize,
    }
}

/// Solves a class with a quiet limit: layers q from the last live one down
/// to 0. In layer q the side to move is the one to move at the fresh
/// position if q is even, else the other; only positions of that slice
/// are states of the layer.
fn layered(g: &Graph, slice: u8, first: u16, second: u16, kings_only: Option<u16>, men: bool) -> ClassStates {
    let n = g.len();
    let end = first.max(second);
    // Without men the two counts are one: the kings-only limit ends it too.
    let layers = match kings_only {
        Some(limit) if !men => end.min(limit),
        _ => end,
    };
    // A row per position holds its counts k of the layer: 0..=q with men,
    // just q without (stored at 0).
    let width = if men { kings_only.unwrap_or(1) as usize } else { 1 };
    let mut next = vec![0 as Score; n * width];
    let mut cur = vec![0 as Score; n * width];
    let mut thresholds = vec![0u8; layers as usize * n];
    let mut fresh = vec![NONE; n];
    let symmetric = g.slices.len() == 1;
    for q in (0..layers).rev() {
        let mover_first = q % 2 == 0;
        let in_layer = |local: usize| symmetric || (g.slice_of(local) == slice) == mover_first;
        // A conversion on ply q + 1 counts if the mover's limit allows it.
        let converts = q < if mover_first { first } else { second };
        let ks = ks(q, men, kings_only);
        let first_k = ks.start;
        let slots = 0..ks.len();
        for local in (0..n).filter(|&l| in_layer(l)) {
            let row = &mut cur[local * width..(local + 1) * width];
            let exit = match g.exit_rule[local] {
                NONE => NONE,
                s if converts => s,
                _ => 0,
            };
            row[slots.clone()].fill(exit);
            for (to, man) in g.moves(local) {
                let succ = &next[to * width..(to + 1) * width];
                for slot in slots.clone() {
                    // Without a kings-only limit the count is not kept (0).
                    let k2 = if man || kings_only.is_none() { 0 } else { first_k + slot + 1 };
                    let s = if q + 1 >= layers || kings_only.is_some_and(|l| k2 >= l as usize) {
                        0
                    } else {
                        // The next layer's rows start at its own first count.
                        back(succ[if men { k2 } else { 0 }])
                    };
                    row[slot] = row[slot].max(s);
                }
            }
            if g.stuck(local) {
                row[slots.clone()].fill(STUCK_RULE);
            }
            thresholds[q as usize * n + local] = Threshold::of(&row[slots.clone()], first_k);
            if q == 0 {
                fresh[local] = row[0];
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    ClassStates { class: Class::Tracked { slice, first, second }, layers, thresholds, fresh }
}

/// Solves the states (position, k) where only the kings-only limit applies:
/// men configurations most advanced first (man moves lead there), k from
/// the limit down (king moves raise it).
fn kings_only_states(g: &Graph, limit: u16) -> ClassStates {
    let n = g.len();
    let width = limit as usize;
    // Row k holds every position's score at count k: a pass over one count
    // reads the next row only.
    let mut scores = vec![NONE; n * width];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&l| std::cmp::Reverse(g.progress[l]));
    let mut thresholds = vec![0u8; n];
    let mut base = vec![NONE; n];
    let mut row = vec![0 as Score; width];
    for level in order.chunk_by(|a, b| g.progress[*a] == g.progress[*b]) {
        // Conversions and man moves (to a fresh count, in a level done
        // before) do not depend on k.
        for &local in level {
            base[local] = g
                .moves(local)
                .filter(|&(_, man)| man)
                .map(|(to, _)| back(scores[to]))
                .fold(g.exit_rule[local], Score::max);
        }
        for k in (0..width).rev() {
            for &local in level {
                let best = if g.stuck(local) {
                    STUCK_RULE
                } else if k + 1 >= width {
                    // Every king move reaches the limit: a draw.
                    g.moves(local).filter(|&(_, man)| !man).fold(base[local], |b, _| b.max(0))
                } else {
                    let next = &scores[(k + 1) * n..(k + 2) * n];
                    g.moves(local).filter(|&(_, man)| !man).fold(base[local], |b, (to, _)| b.max(back(next[to])))
                };
                scores[k * n + local] = best;
            }
        }
        for &local in level {
            for (k, s) in row.iter_mut().enumerate() {
                *s = scores[k * n + local];
            }
            thresholds[local] = Threshold::of(&row, 0);
        }
    }
    let fresh = scores[..n].to_vec();
    ClassStates { class: Class::Untracked, layers: 0, thresholds, fresh }
}

/// The results a state can have: one per quiet period it can be reached in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Truth(u8);

impl Truth {
    fn bit(w: Wdl) -> u8 {
        1 << (w as i8 + 2)
    }

    pub fn insert(&mut self, w: Wdl) {
        self.0 |= Truth::bit(w);
    }

    pub fn contains(self, w: Wdl) -> bool {
        self.0 & Truth::bit(w) != 0
    }

    /// The one result, if there is exactly one.
    pub fn only(self) -> Option<Wdl> {
        (self.0.count_ones() == 1).then(|| self.iter().next().expect("one bit"))
    }

    pub fn iter(self) -> impl Iterator<Item = Wdl> {
        [Wdl::Loss, Wdl::BlessedLoss, Wdl::Draw, Wdl::CursedWin, Wdl::Win].into_iter().filter(move |&w| self.contains(w))
    }
}

/// A solved slice pair: every state's result.
pub struct PairStates {
    graph: Graph,
    pure: Vec<Score>,
    class_of: Vec<u8>,
    classes: Vec<ClassStates>,
    kings_only: Option<u16>,
    check_layers: u16,
}

impl PairStates {
    /// The slices of the pair (one if it is its own twin).
    pub fn slices(&self) -> &[Material] {
        &self.graph.slices
    }

    /// Positions of the pair: every position of the first slice in index
    /// order, then the second's.
    pub fn len(&self) -> usize {
        self.graph.len()
    }

    pub fn is_empty(&self) -> bool {
        self.graph.len() == 0
    }

    pub fn position(&self, local: usize) -> &Position {
        &self.graph.positions[local]
    }

    /// The quiet counts [`PairStates::for_each_state`] goes through.
    pub fn quiet_range(&self) -> u16 {
        self.check_layers
    }

    /// The result of the state (`pos`, `counters`) in a quiet period that
    /// started at `start` (both White to move, of this pair): rule result
    /// and pure value together. `None` if no such state is live (a counter
    /// at its limit, or the side to move not the one `counters.quiet` says).
    /// Whether the state is reachable from `start` is not checked.
    pub fn state_value(&self, start: &Position, pos: &Position, counters: Counters) -> Option<Wdl> {
        let local = self.local_of(pos)?;
        let start = self.local_of(start)?;
        let class = &self.classes[self.class_of[start] as usize];
        let (q, k) = (counters.quiet, counters.kings_only);
        let men = !(pos.men(damka::Color::White) | pos.men(damka::Color::Black)).is_empty();
        if k > q || (!men && k != q) || self.kings_only.is_some_and(|l| k >= l) || (self.kings_only.is_none() && k > 0) {
            return None;
        }
        if let Class::Tracked { .. } = class.class {
            // In a symmetric pair either side may have begun the count at a
            // position like `start`; otherwise `start` says which.
            let symmetric = self.graph.slices.len() == 1;
            let same_side = self.graph.slice_of(local) == self.graph.slice_of(start);
            if q >= class.layers || (!symmetric && same_side != (q % 2 == 0)) {
                return None;
            }
        }
        Some(self.with_pure(local, class.result(self.len(), local, q, k)))
    }

    fn local_of(&self, pos: &Position) -> Option<usize> {
        let m = Material::of(pos);
        let s = self.graph.slices.iter().position(|&x| x == m)?;
        let index = SliceIndex::new(m);
        Some(self.graph.offsets[s] + index.index(pos)? as usize)
    }

    fn with_pure(&self, local: usize, rule: Wdl) -> Wdl {
        match (rule, self.pure[local]) {
            (Wdl::Draw, p) if p > 0 => Wdl::CursedWin,
            (Wdl::Draw, p) if p < 0 => Wdl::BlessedLoss,
            (r, _) => r,
        }
    }

    /// Walks forward from every fresh state of the pair, quiet count 0 up
    /// to [`PairStates::quiet_range`], and calls
    /// `f(local, position, quiet, states)` for each (position, quiet count)
    /// that has reachable live states: `states` holds each kings-only count
    /// with every result the state can have. Returns the number of states.
    pub fn for_each_state(&self, mut f: impl FnMut(usize, &Position, u16, &[(u16, Truth)])) -> u64 {
        let n = self.len();
        let g = &self.graph;
        let live_k: u64 = match self.kings_only {
            Some(l) => if l >= 64 { u64::MAX } else { (1 << l) - 1 },
            None => 1,
        };
        let mut cur: Vec<Vec<u64>> = self
            .classes
            .iter()
            .enumerate()
            .map(|(id, _)| (0..n).map(|l| (self.class_of[l] as usize == id) as u64).collect())
            .collect();
        let mut next = vec![vec![0u64; n]; self.classes.len()];
        let mut states = Vec::with_capacity(64);
        let mut count = 0;
        for q in 0..self.check_layers {
            for local in 0..n {
                let union = cur.iter().fold(0, |u, c| u | c[local]);
                if union == 0 {
                    continue;
                }
                states.clear();
                let mut bits = union;
                while bits != 0 {
                    let k = bits.trailing_zeros() as u16;
                    bits &= bits - 1;
                    let mut truth = Truth::default();
                    for (c, class) in cur.iter().zip(&self.classes) {
                        if c[local] >> k & 1 == 1 {
                            truth.insert(self.with_pure(local, class.result(n, local, q, k)));
                        }
                    }
                    states.push((k, truth));
                }
                count += states.len() as u64;
                f(local, &g.positions[local], q, &states);
            }
            // One ply on: quiet moves only (a capture or promotion ends the
            // quiet period), while the class's count is live.
            for ((c, nx), class) in cur.iter().zip(next.iter_mut()).zip(&self.classes) {
                nx.fill(0);
                if matches!(class.class, Class::Tracked { .. }) && q + 1 >= class.layers {
                    continue;
                }
                for local in (0..n).filter(|&l| c[l] != 0) {
                    for (to, man) in g.moves(local) {
                        nx[to] |= if man { 1 } else if self.kings_only.is_some() { c[local] << 1 & live_k } else { 1 };
                    }
                }
            }
            std::mem::swap(&mut cur, &mut next);
        }
        count
    }
}
