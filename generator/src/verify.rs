//! `damka verify`: an independent check of written tables.
//!
//! Two passes over a directory:
//!
//! 1. Files. Every `.wdl` and `.dtc` file: header (magic, versions,
//!    checksum, and that variant, material, kind and position count fit the
//!    file name and the indexer), every block's checksum, every result code
//!    valid, and both files of a slice built with one rule set.
//! 2. Values. Each slice is read as an engine reads it: codes from the
//!    `.wdl` file, distances from the `.dtc` file, and the "don't care"
//!    capture positions resolved through their captures
//!    ([`catalog::read_slice`]); the slices its moves lead to are read
//!    the same way, for their results alone but for its twin, since every
//!    other move starts the count again ([`Store::open`]). The header's
//!    counts and longest distances,
//!    which the writer took from the solver's values, must equal what the
//!    resolved data holds. Then every value, capture positions included,
//!    is re-derived by a one-ply search: the legal moves of the position,
//!    each successor's value read from the written tables, combined by the
//!    rule in [`derive`]. Tables
//!    built with draw rules (rule set other than `none`) get their pure
//!    results re-derived, and then, for a preset rule set, their rule
//!    values and rule distances: the running distance one ply on, read
//!    through docs/FORMAT.md's encoding, and the result it gives against
//!    the limit ([`rule_result`]). A rule set given in [`Options::rules`]
//!    (a rule file), or else carried by the directory's manifest, is used
//!    like a preset where the tables name it. Before
//!    a rule set is used, verify checks its limits itself, in plies and
//!    wide integers ([`limits_beyond_the_format`]): it never met the reader
//!    if it was built in code. Slices where a kings-only limit binds
//!    beside a quiet one store values for a fresh kings-only count only, so
//!    there is no one-ply rule for them: each men configuration is
//!    re-derived over (position, kings-only count) instead, one count at a
//!    time from the limit down ([`check_layered`]), from the full move list
//!    of every position and the written values of what leaves it.
//!
//! The check shares only move generation, positions, the indexer, the value
//! types, the file reader and the rule set's limit functions (in `u32`,
//! which no limit wraps) with the generator: it never calls the solver, so
//! a solver bug cannot hide behind itself. Values are only
//! re-derived once every file passed the first pass.
//!
//! Why one ply is enough (for pure tables, where distances are checked
//! too): results alone could be wrong in a consistent way
//! (a ring of won positions all marked drawn agrees with itself), but
//! distances cannot. Take, among the wrongly stored wins and losses, one
//! with the shortest true distance: its best move leads to a position with
//! a shorter true distance, hence stored right, or converts into another
//! slice, checked the same way; so its own one-ply value is the true one
//! and differs from what is stored. A wrong win or loss likewise leads,
//! along moves of ever shorter stored distance, to one whose successors
//! contradict it. So a directory that passes holds exactly the values the
//! rules give, as far as move generation is right. Distances a `.dtc` file
//! takes from the twin (docs/FORMAT.md) are one-ply values by
//! construction, so the argument runs over a slice and its twin together:
//! the wrong position with the shortest true distance gets its one-ply
//! value right, so it is one whose distance is stored, and its stored
//! value contradicts its successors.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Result};
use damka::directory::Manifest;
use damka::format::{Counts, Header, Kind, MAX_PLIES};
use damka::movegen::{generate, Routes};
use damka::rules::{Binding, NO_RULES};
use damka::{fen, Color, Material, Move, Position, RuleSet, SliceIndex, Value, Variant, Wdl};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::catalog::{self, LoadError, SliceId, Want};
use crate::kept::Values;
use crate::stats::Tally;

/// What to verify.
#[derive(Clone, Debug)]
pub struct Options {
    pub dir: PathBuf,
    /// Only this variant's tables (default: every variant in the directory).
    pub variant: Option<Variant>,
    /// Only this slice: its files and values. The tables its moves lead to
    /// are read but not checked themselves.
    pub slice: Option<Material>,
    /// Show progress bars on the terminal.
    pub progress: bool,
    /// The rule set the tables were built with where it is not a preset (a
    /// rule file): where their headers name it (name and hash), their rule
    /// values and distances are re-derived too. Default: the rule set the
    /// directory's manifest carries.
    pub rules: Option<Arc<RuleSet>>,
}

/// What a run checked and what it found.
#[derive(Debug, Default)]
pub struct Report {
    /// Slices checked.
    pub slices: usize,
    /// Positions whose value was re-derived.
    pub positions: u64,
    pub seconds: f64,
    /// Everything wrong, in the order found; empty if the tables are sound.
    pub problems: Vec<Problem>,
    /// Variants (and rule set) whose rule values and distances could not be
    /// re-derived: tables of a rule set that is not a preset. Their pure
    /// results (win, draw, loss) are still checked.
    pub results_only: Vec<(Variant, String)>,
}

impl Report {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// One thing wrong with the tables.
#[derive(Debug)]
pub enum Problem {
    /// A file is missing, unreadable or damaged (bad header or blocks).
    File { path: PathBuf, error: LoadError },
    /// A header field disagrees with the file name, the indexer, the other
    /// file of the slice or the data.
    Header { path: PathBuf, what: String },
    /// Entries that are not valid values (first one shown).
    BadEntry { path: PathBuf, index: u64, bits: u16, count: u64 },
    /// A stored value differs from the one re-derived from the successors
    /// (the first position in index order shown). With `results_only`,
    /// only the pure results were compared (`expected` has no distance).
    Inconsistent {
        slice: SliceId,
        index: u64,
        fen: String,
        expected: Value,
        stored: Value,
        count: u64,
        results_only: bool,
    },
    /// The values of a slice cannot be re-derived.
    Unverifiable { slice: SliceId, reason: String },
    /// The rule set a variant's tables were built with cannot be what they
    /// hold: a limit beyond what a table stores.
    Rules { variant: Variant, name: String, what: String },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::File { path, error } => write!(f, "{}: {error}", path.display()),
            Problem::Header { path, what } => write!(f, "{}: header: {what}", path.display()),
            Problem::BadEntry { path, index, bits, count } => {
                write!(f, "{}: {count} invalid entries, first at index {index} ({bits:#06x})", path.display())
            }
            Problem::Inconsistent { slice, index, fen, expected, stored, count, results_only } => {
                let expected = if *results_only { expected.wdl.to_string() } else { expected.to_string() };
                write!(
                    f,
                    "{slice}: {count} stored values differ from their successors; first at index {index}: \
                     {fen}: expected {expected}, stored {stored}"
                )
            }
            Problem::Unverifiable { slice, reason } => write!(f, "{slice}: cannot re-derive values: {reason}"),
            Problem::Rules { variant, name, what } => write!(f, "{variant} tables, rule set '{name}': {what}"),
        }
    }
}

/// Checks every table in `opts.dir` (see the module docs).
pub fn run(opts: &Options) -> Result<Report> {
    let started = Instant::now();
    let mut slices = catalog::slices(&opts.dir, opts.variant)?;
    if let Some(m) = opts.slice {
        slices.retain(|id| id.material == m);
    }
    if slices.is_empty() {
        bail!("no tables to verify in {}", opts.dir.display());
    }
    let mut report = Report { slices: slices.len(), ..Report::default() };

    let bar = progress_bar(opts.progress, slices.iter().map(|id| size(id.material)).sum(), "files");
    let mut rules: HashMap<Variant, (String, u64, SliceId)> = HashMap::new();
    let mut headers: HashMap<SliceId, [Header; 2]> = HashMap::new();
    for id in &slices {
        if let Some((r, h)) = check_files(&opts.dir, *id, &mut report.problems) {
            headers.insert(*id, h);
            let first = rules.entry(id.variant).or_insert((r.0.clone(), r.1, *id));
            if (first.0.as_str(), first.1) != (r.0.as_str(), r.1) {
                report.problems.push(Problem::Header {
                    path: id.path(&opts.dir, Kind::Distance),
                    what: format!(
                        "built with rule set '{}' ({:016x}), but {} with '{}' ({:016x})",
                        r.0, r.1, first.2, first.0, first.1
                    ),
                });
            }
        }
        bar.inc(size(id.material));
    }
    bar.finish_and_clear();
    if !report.is_ok() {
        report.seconds = started.elapsed().as_secs_f64();
        return Ok(report);
    }

    // The rule set to re-derive each variant's rule values with, where the
    // headers name it: the rule file given, else the one the directory's
    // manifest carries, else a preset.
    let from_file = match &opts.rules {
        Some(r) => Some(r.clone()),
        None => Manifest::read(&opts.dir)?.map(|m| Arc::new(m.rules)),
    };
    let mut known: HashMap<Variant, Option<Arc<RuleSet>>> = HashMap::new();
    for (&variant, (name, hash, _)) in &rules {
        let named = |r: &RuleSet| r.name == *name && r.hash == *hash;
        let given = from_file.clone().filter(|r| named(r));
        let set = given.or_else(|| RuleSet::preset(name).ok().filter(|r| named(r)).map(Arc::new));
        if let Some(what) = set.as_deref().and_then(limits_beyond_the_format) {
            report.problems.push(Problem::Rules { variant, name: name.clone(), what });
        }
        known.insert(variant, set);
    }
    if let Some(r) = opts.rules.as_ref().filter(|r| !known.values().flatten().any(|k| Arc::ptr_eq(k, r))) {
        let built: Vec<String> =
            rules.values().map(|(name, hash, id)| format!("{} with '{name}' ({hash:016x})", id.variant)).collect();
        bail!("no tables in {} were built with rule set {r}: {}", opts.dir.display(), built.join(", "));
    }

    let bar = progress_bar(opts.progress, slices.iter().map(|id| size(id.material)).sum(), "values");
    let mut cache: HashMap<SliceId, Arc<Table>> = HashMap::new();
    for id in &slices {
        let rule_set = &rules[&id.variant].0;
        let results_only = rule_set != NO_RULES;
        let with_rules = known[&id.variant].clone().filter(|_| results_only).map(|r| {
            let binding = r.binding(id.material);
            (r, binding)
        });
        let layered = matches!(with_rules, Some((_, Binding::Both(_))));
        let mut store = Store::open(&opts.dir, *id, results_only, layered, &mut cache);
        store.rules = with_rules;
        if let Some(Ok(own)) = store.table(id.material) {
            let tally = Tally::of(&own.values);
            let (longest_win, longest_loss) = tally.longest_plies();
            for (h, kind) in headers[id].iter().zip([Kind::Wdl, Kind::Distance]) {
                let path = id.path(&opts.dir, kind);
                header_matches_data(h, &tally.counts, longest_win, longest_loss, &path, &mut report.problems);
            }
        }
        if results_only && store.rules.is_none() && !report.results_only.iter().any(|(v, _)| *v == id.variant) {
            report.results_only.push((id.variant, rule_set.clone()));
        }
        if let Some(p) = check_values(*id, &store, &bar) {
            report.problems.push(p);
        }
        report.positions += size(id.material);
    }
    bar.finish_and_clear();
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

fn size(material: Material) -> u64 {
    SliceIndex::new(material).size()
}

fn progress_bar(show: bool, len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if !show {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "verify {what:>6} [{{bar:40}}] {{percent:>3}}% {{human_pos}}/{{human_len}} positions, eta {{eta}}"
        ))
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

// ---------------------------------------------------------------------------
// Pass 1: files.

/// Checks both files of one slice; returns its rule set (name, hash) and
/// the two headers if both files could be read.
fn check_files(dir: &Path, id: SliceId, problems: &mut Vec<Problem>) -> Option<((String, u64), [Header; 2])> {
    let expected_positions = size(id.material);
    let mut open = |kind: Kind| -> Option<catalog::Loaded> {
        let path = id.path(dir, kind);
        let loaded = match catalog::load(&path) {
            Ok(l) => l,
            Err(error) => {
                problems.push(Problem::File { path, error });
                return None;
            }
        };
        let h = &loaded.header;
        let mut wrong = |what: String| problems.push(Problem::Header { path: path.clone(), what });
        let misnamed = catalog::misnamed(h, id.table(kind));
        if let Some(described) = &misnamed {
            wrong(format!("describes {described}, not the table its name stands for"));
        }
        if h.positions != expected_positions {
            wrong(format!("{} positions, the slice has {expected_positions}", h.positions));
            return None;
        }
        misnamed.is_none().then_some(loaded)
    };
    let wdl = open(Kind::Wdl);
    let dtc = open(Kind::Distance);
    let (wdl, dtc) = (wdl?, dtc?);
    let wdl_path = id.path(dir, Kind::Wdl);

    // Every entry a result code; no cursed or blessed result without rules.
    let invalid: Vec<usize> = wdl.raw.iter().enumerate().filter(|(_, &c)| c >= 5).map(|(i, _)| i).collect();
    if let Some(&first) = invalid.first() {
        let (index, bits, count) = (first as u64, wdl.raw[first] as u16, invalid.len() as u64);
        problems.push(Problem::BadEntry { path: wdl_path.clone(), index, bits, count });
    }
    let rule_set = (wdl.header.rules_name.clone(), wdl.header.rules_hash);
    if rule_set.0 == NO_RULES && wdl.raw.iter().any(|&c| c == 3 || c == 4) {
        problems.push(Problem::Header {
            path: wdl_path,
            what: "rule set 'none' but the data holds cursed wins or blessed losses".to_string(),
        });
    }
    let dtc_path = id.path(dir, Kind::Distance);
    if (dtc.header.rules_name.as_str(), dtc.header.rules_hash) != (rule_set.0.as_str(), rule_set.1) {
        problems.push(Problem::Header {
            path: dtc_path.clone(),
            what: format!("rule set '{}', the .wdl file says '{}'", dtc.header.rules_name, rule_set.0),
        });
    }
    // A reader takes what is "don't care" from the .wdl file alone.
    if dtc.header.resolution != wdl.header.resolution {
        problems.push(Problem::Header {
            path: dtc_path,
            what: format!("leaves don't care: {}; the .wdl file: {}", dtc.header.resolution, wdl.header.resolution),
        });
    }
    Some((rule_set, [wdl.header, dtc.header]))
}

fn header_matches_data(
    h: &Header,
    counts: &Counts,
    longest_win: u16,
    longest_loss: u16,
    path: &Path,
    problems: &mut Vec<Problem>,
) {
    let mut wrong = |what: String| problems.push(Problem::Header { path: path.to_path_buf(), what });
    if h.counts != *counts {
        wrong(format!("counts {:?}, the data holds {:?}", h.counts, counts));
    }
    if h.longest_win != longest_win {
        wrong(format!("longest win {} plies, the data's is {longest_win}", h.longest_win));
    }
    if h.longest_loss != longest_loss {
        wrong(format!("longest loss {} plies, the data's is {longest_loss}", h.longest_loss));
    }
}

// ---------------------------------------------------------------------------
// Pass 2: values.

/// One slice's values as written, read back through the file reader: all
/// of them, or its results alone (distances 0).
struct Table {
    index: SliceIndex,
    values: Vec<u16>,
    read_for: Want,
}

/// The tables one slice's moves can reach, loaded from the written files.
struct Store {
    variant: Variant,
    /// Compare pure results only (tables built with draw rules).
    results_only: bool,
    /// Under draw rules, the rule set (a preset whose hash matches) and how
    /// it binds in this slice: rule values and distances are re-derived too.
    rules: Option<(Arc<RuleSet>, Binding)>,
    /// The slices, those of all the pieces (where quiet moves and
    /// promotions lead) first: looked up for every successor, so by a short
    /// scan rather than a hash (a tenth of a check's time went to hashing).
    tables: Vec<(Material, Result<Arc<Table>, String>)>,
}

impl Store {
    /// Loads the slice and every slice its moves can lead to, and with
    /// `layered` its twin's too (for [`check_layered`]), keeping what
    /// `cache` already holds and dropping from it what this slice does not
    /// need (tables are loaded whole: at most five pieces fit in memory many
    /// times over; larger slices want a block cache here). Capture
    /// positions are resolved from the slices their captures lead to,
    /// loaded first. Only the slice and its twin are read for their
    /// values: every other move captures or promotes, and so starts its
    /// count again, and a capture position is worth its best capture's
    /// result, so the others are read for their results alone (at 7
    /// pieces reading a slice's settled threats for their values took
    /// most of a check).
    fn open(dir: &Path, id: SliceId, results_only: bool, layered: bool, cache: &mut HashMap<SliceId, Arc<Table>>) -> Store {
        let mut needed = reachable(id.material);
        needed.push(id.material);
        if layered {
            let twin = id.material.swap();
            for m in reachable(twin).into_iter().chain([twin]) {
                if !needed.contains(&m) {
                    needed.push(m);
                }
            }
        }
        cache.retain(|k, _| k.variant == id.variant && needed.contains(&k.material));
        needed.sort_by_key(|m| std::cmp::Reverse(m.pieces()));
        let tables = needed
            .into_iter()
            .map(|m| {
                let want = if m == id.material || m == id.material.swap() { Want::Values } else { Want::Results };
                (m, load_table(dir, SliceId { variant: id.variant, material: m }, want, results_only, cache))
            })
            .collect();
        Store { variant: id.variant, results_only, rules: None, tables }
    }

    /// The slice `m`, if this slice's moves can reach it.
    fn table(&self, m: Material) -> Option<&Result<Arc<Table>, String>> {
        self.tables.iter().find(|(t, _)| *t == m).map(|(_, t)| t)
    }

    /// The stored value of a position (White to move) for the side to move
    /// (only its pure result, distance 0, if `results_only`).
    fn value(&self, at: Located) -> Value {
        let v = self.stored(at);
        if self.results_only {
            Value::new(v.wdl.pure(), 0)
        } else {
            v
        }
    }

    /// Under draw rules: what a move into a position sees. After a reset,
    /// the rule result of a fresh count (cursed wins and blessed losses are
    /// draws); otherwise the running rule distance.
    fn rule_value(&self, at: Located, resets: bool) -> Value {
        let v = self.stored(at);
        match (resets, v.wdl) {
            (true, Wdl::Win | Wdl::Loss) => v,
            (true, _) => Value::DRAW,
            (false, _) => rule_distance(v),
        }
    }

    /// Where `pos` (White to move) is stored, its line asked for ahead of
    /// [`Store::stored`] (successors lie all over slices far larger than
    /// the processor's caches), or why it cannot be had.
    fn locate(&self, pos: &Position) -> Result<Located<'_>, &str> {
        let material = Material::of(pos);
        if material.own_kings + material.own_men == 0 {
            return Ok(Located::NoPieces);
        }
        let table = match self.table(material) {
            Some(Ok(t)) => t,
            Some(Err(e)) => return Err(e),
            None => return Err("a move leads to a slice the verifier did not expect"),
        };
        let i = table.index.index(pos).expect("a White-to-move position of the table's slice");
        crate::kept::prefetch(&table.values[i as usize]);
        Ok(Located::At(table, i as usize))
    }

    /// The stored value at `at` as written.
    fn stored(&self, at: Located) -> Value {
        match at {
            // Nothing left to move: lost, and no table holds it.
            Located::NoPieces => Value::new(Wdl::Loss, 0),
            Located::At(table, i) => Value::unpack(table.values[i]).expect("checked when loaded"),
        }
    }
}

/// Where a successor's value is stored.
#[derive(Clone, Copy)]
enum Located<'s> {
    /// The side to move has no pieces left.
    NoPieces,
    At(&'s Table, usize),
}

/// Slices a move from `m` can lead to, from the view of the side to move
/// there: the twin (quiet moves), the twin with a man promoted, and every
/// capture of some of the opponent's pieces, with or without a promotion.
fn reachable(m: Material) -> Vec<Material> {
    let mut movers = vec![(m.own_kings, m.own_men)];
    if m.own_men > 0 {
        movers.push((m.own_kings + 1, m.own_men - 1));
    }
    let mut out = Vec::new();
    for (k, men) in movers {
        for ok in 0..=m.opp_kings {
            for om in 0..=m.opp_men {
                let next = Material::new(ok, om, k, men);
                if ok + om > 0 && !out.contains(&next) {
                    out.push(next);
                }
            }
        }
    }
    out
}

/// The slice `key` as an engine reads it, for what `want`s, from `cache`
/// or its files, with the slices it resolves its entries from loaded (into
/// `cache`) before it: for their results, all a capture's value takes.
fn load_table(
    dir: &Path,
    key: SliceId,
    want: Want,
    results_only: bool,
    cache: &mut HashMap<SliceId, Arc<Table>>,
) -> Result<Arc<Table>, String> {
    if let Some(t) = cache.get(&key).filter(|t| t.read_for == Want::Values || want == Want::Results) {
        return Ok(t.clone());
    }
    let m = key.material;
    for target in crate::graph::read_back_reads(m) {
        load_table(dir, SliceId { variant: key.variant, material: target }, Want::Results, results_only, cache)?;
    }
    let lookup = |m: Material| cache.get(&SliceId { variant: key.variant, material: m }).map(|t| (&t.index, Values::Packed(&t.values)));
    let (solved, _) = catalog::read_slice(dir, key, &lookup, want).map_err(|e| format!("needs {key}: {e:#}"))?;
    let bad = |b: u16| Value::unpack(b).is_none_or(|v| !results_only && v.wdl != v.wdl.pure());
    if let Some(i) = solved.values.iter().position(|&b| bad(b)) {
        return Err(format!("needs {key}: entry {i} is not a pure value"));
    }
    let table = Arc::new(Table { index: solved.index, values: solved.values, read_for: want });
    cache.insert(key, table.clone());
    Ok(table)
}

/// The value of `pos` (White to move) by a one-ply search over its legal
/// `moves` and the stored values of their successors, which `successor`
/// gives by the move's place in `moves` and whether it resets the count:
///
/// - no legal move: lost, in 0 plies for pure values, in 1 for rule
///   values (the missing move is the reset: a move that blocks on the
///   limit ply draws);
/// - each move is worth its successor's value for the opponent, turned
///   around: a win there is a loss here and the reverse, a draw a draw;
///   the distance is 1 if the move captures or promotes (the count starts
///   again), else the successor's distance plus one;
/// - the side to move takes the best: the shortest win, else a draw, else
///   the longest loss.
fn derive<E>(
    pos: &Position,
    moves: &[Move],
    distances: Distances,
    successor: &dyn Fn(usize, bool) -> Result<Value, E>,
) -> Result<Value, E> {
    let man_moves_reset = matches!(distances, Distances::Rule { man_moves_reset: true });
    debug_assert_eq!(pos.turn(), Color::White);
    let mut best: Option<Value> = None;
    for (k, m) in moves.iter().enumerate() {
        let man_move = !pos.all_kings().contains(m.from());
        let resets = m.is_capture() || m.promotes() || (man_moves_reset && man_move);
        best = Some(better(best, successor(k, resets)?.back_one_ply(resets)));
    }
    Ok(best.unwrap_or(distances.no_move()))
}

/// What the distances of a derivation count.
#[derive(Clone, Copy, Debug)]
enum Distances {
    /// Plies to the next capture or promotion.
    Pure,
    /// Plies to the next reset of the binding counter: a man move too if
    /// `man_moves_reset`.
    Rule { man_moves_reset: bool },
}

impl Distances {
    /// A position without a legal move: lost, at once for pure values; one
    /// ply on for rule values, where the missing move is the reset.
    fn no_move(self) -> Value {
        Value::new(Wdl::Loss, if matches!(self, Distances::Pure) { 0 } else { 1 })
    }
}

/// Why a rule set cannot be what tables hold, if it cannot: a limit, in
/// plies (N moves of the stronger side reach ply 2N), that is 0 or beyond
/// the longest distance a table stores. Verify's own check, apart from the
/// reader's, in integers no limit overflows.
fn limits_beyond_the_format(rules: &RuleSet) -> Option<String> {
    rules.rules.iter().find_map(|r| {
        let (given, plies) = match (r.limit_plies, r.limit_moves) {
            (Some(p), None) => (format!("{p} plies"), u32::from(p)),
            (None, Some(m)) => (format!("{m} moves"), 2 * u32::from(m)),
            _ => return Some(format!("rule '{}' does not give exactly one limit", r.name)),
        };
        (plies == 0 || plies > u32::from(MAX_PLIES)).then(|| {
            let name = &r.name;
            format!("rule '{name}': a limit of {given} ({plies} plies) is not within the 1 to {MAX_PLIES} plies a table stores")
        })
    })
}

/// The running rule distance a stored value holds (docs/FORMAT.md): a
/// cursed win or blessed loss keeps the too-long distance, 0 for none.
fn rule_distance(v: Value) -> Value {
    match v.wdl {
        Wdl::CursedWin if v.plies.0 > 0 => Value::new(Wdl::Win, v.plies.0),
        Wdl::BlessedLoss if v.plies.0 > 0 => Value::new(Wdl::Loss, v.plies.0),
        Wdl::Win | Wdl::Loss => v,
        _ => Value::DRAW,
    }
}

/// The rule value a position must hold given its re-derived rule distance
/// `raw` and pure result: a reset within the limit keeps the result, a
/// longer one (or none) leaves a cursed win or blessed loss.
fn rule_result(rules: &RuleSet, binding: Binding, pos: &Position, raw: Value, pure: Wdl) -> Value {
    let within = |wins| rules.reset_limit(binding, pos, wins).is_none_or(|l| u32::from(raw.plies.0) <= l);
    let over = if raw.wdl == Wdl::Draw { 0 } else { raw.plies.0 };
    match (raw.wdl, pure) {
        (Wdl::Win, _) if within(true) => raw,
        (Wdl::Loss, _) if within(false) => raw,
        (_, Wdl::Win) => Value::new(Wdl::CursedWin, over),
        (_, Wdl::Loss) => Value::new(Wdl::BlessedLoss, over),
        _ => Value::DRAW,
    }
}

/// Orders values from the side to move's view: shorter wins first, then
/// draws, then longer losses.
fn rank(v: Value) -> (u8, i32) {
    match v.wdl {
        Wdl::Win => (2, -(v.plies.0 as i32)),
        Wdl::Loss => (0, v.plies.0 as i32),
        _ => (1, 0),
    }
}

/// What one chunk of positions found: inconsistent positions (count, and
/// the first), or the reason it could not check.
#[derive(Default)]
struct Found {
    count: u64,
    first: Option<(u64, Value, Value)>,
    unverifiable: Option<String>,
}

impl Found {
    fn merge(mut self, other: Found) -> Found {
        self.count += other.count;
        self.first = match (self.first, other.first) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        self.unverifiable = self.unverifiable.or(other.unverifiable);
        self
    }
}

const CHUNK: u64 = 4096;

/// Re-derives every value of slice `id` against `store`.
fn check_values(id: SliceId, store: &Store, bar: &ProgressBar) -> Option<Problem> {
    let own = match store.table(id.material) {
        Some(Ok(t)) => t.clone(),
        Some(Err(e)) => return Some(Problem::Unverifiable { slice: id, reason: e.clone() }),
        None => unreachable!("the store holds the slice itself"),
    };
    let index = &own.index;
    let chunks = index.size().div_ceil(CHUNK);
    let found = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let start = c * CHUNK;
            let end = (start + CHUNK).min(index.size());
            let found = check_range(index, &own.values, store, start..end);
            bar.inc(end - start);
            found
        })
        .reduce(Found::default, Found::merge);
    let found = match &store.rules {
        Some((rules, Binding::Both(limit))) => (0..index.configs())
            .into_par_iter()
            .map(|rank| check_layered(index, &own.values, store, rules, *limit, rank))
            .reduce(Found::default, Found::merge)
            .merge(found),
        _ => found,
    };
    if let Some(reason) = found.unverifiable {
        return Some(Problem::Unverifiable { slice: id, reason });
    }
    found.first.map(|(i, expected, stored)| Problem::Inconsistent {
        slice: id,
        index: i,
        fen: fen::write(&index.position(i), store.variant),
        expected,
        stored,
        count: found.count,
        results_only: store.results_only && store.rules.is_none(),
    })
}

fn check_range(index: &SliceIndex, values: &[u16], store: &Store, range: std::ops::Range<u64>) -> Found {
    let mut found = Found::default();
    let mut moves = Vec::with_capacity(64);
    let per_config = index.kings_per_config();
    let mut config = (u64::MAX, index.config(range.start / per_config));
    // A batch of positions: their moves and where these lead, located (and
    // the lines asked for) before any is read.
    let mut batch: Vec<(u64, Position, usize)> = Vec::with_capacity(BATCH);
    let (mut batch_moves, mut located) = (Vec::new(), Vec::new());
    let mut start = range.start;
    while start < range.end {
        let end = range.end.min(start + BATCH as u64);
        batch.clear();
        batch_moves.clear();
        located.clear();
        for i in start..end {
            let rank = i / per_config;
            if rank != config.0 {
                config = (rank, index.config(rank));
            }
            let pos = index.position_in(config.1, i % per_config);
            generate(&pos, store.variant, Routes::Merge, &mut moves);
            for m in &moves {
                located.push(store.locate(&pos.play(m).flip()));
            }
            batch_moves.extend_from_slice(&moves);
            batch.push((i, pos, batch_moves.len()));
        }
        let mut from = 0;
        for &(i, pos, to) in &batch {
            if let Err(reason) = check_position(i, &pos, &batch_moves[from..to], &located[from..to], values, store, &mut found) {
                found.unverifiable = Some(reason.to_string());
                return found;
            }
            from = to;
        }
        start = end;
    }
    found
}

/// Positions a batch of [`check_range`].
const BATCH: usize = 64;

/// Re-derives position `i`, `pos`, from its `moves` and where they lead,
/// against the value stored; adds it to `found` if it differs.
fn check_position<'s>(
    i: u64,
    pos: &Position,
    moves: &[Move],
    located: &[Result<Located<'s>, &'s str>],
    values: &[u16],
    store: &'s Store,
    found: &mut Found,
) -> Result<(), &'s str> {
    let expected = derive(pos, moves, Distances::Pure, &|k, _| located[k].map(|l| store.value(l)))?;
    let stored = Value::unpack(values[i as usize]).expect("checked when loaded");
    let differs = if store.results_only { stored.wdl.pure() != expected.wdl } else { stored != expected };
    // Where two limits bind, rule values are re-derived per men
    // configuration by check_layered.
    let one_ply_rules = store.rules.as_ref().filter(|(_, b)| !matches!(b, Binding::Both(_)));
    if let (false, Some((rules, binding))) = (differs, one_ply_rules) {
        let distances = Distances::Rule { man_moves_reset: *binding == Binding::KingsOnly };
        let raw = derive(pos, moves, distances, &|k, resets| located[k].map(|l| store.rule_value(l, resets)))?;
        let rule = rule_result(rules, *binding, pos, raw, expected.wdl);
        if rule != stored {
            found.count += 1;
            found.first.get_or_insert((i, rule, stored));
        }
    } else if differs {
        found.count += 1;
        found.first.get_or_insert((i, expected, stored));
    }
    Ok(())
}

/// Re-derives the rule values of one men configuration of a slice where a
/// kings-only limit of `limit` plies binds beside a quiet limit. The state
/// is (position, kings-only count k): a king move raises k by one, and a
/// king move that reaches the limit draws; every other move (capture,
/// promotion, man move) leaves the configuration at a fresh kings-only
/// count and is read from the written tables. The configuration's
/// positions with White to move and their twins with Black to move (the
/// board turned) are solved together, since king moves lead from one to the
/// other: layer k from layer k + 1, from the limit down; once a layer
/// repeats, every lower one does. Layer 0, after [`rule_result`], is what
/// the table must hold.
fn check_layered(index: &SliceIndex, values: &[u16], store: &Store, rules: &RuleSet, limit: u32, rank: u64) -> Found {
    let mut found = Found::default();
    let config = index.config(rank);
    let twin = SliceIndex::new(index.material().swap());
    let halves = [(index, config), (&twin, config.flip())];
    let sizes = [index.kings_per_config() as usize, twin.kings_per_config() as usize];
    let bases = [rank * sizes[0] as u64, twin.config_rank(config.flip()) * sizes[1] as u64];
    let n = sizes[0] + sizes[1];
    // Per position: the best move that leaves the configuration (`None` if
    // there is none), and the local numbers its king moves lead to.
    let mut exits: Vec<Option<Value>> = Vec::with_capacity(n);
    let mut king_moves: Vec<Vec<u32>> = Vec::with_capacity(n);
    let mut moves = Vec::with_capacity(64);
    for local in 0..n {
        let (h, k) = if local < sizes[0] { (0, local) } else { (1, local - sizes[0]) };
        let pos = halves[h].0.position_in(halves[h].1, k as u64);
        let (other, other_start) = if h == 0 { (1, sizes[0]) } else { (0, 0) };
        generate(&pos, store.variant, Routes::Merge, &mut moves);
        let mut best: Option<Value> = None;
        let mut succ = Vec::new();
        for m in moves.iter() {
            let next = pos.play(m).flip();
            if !m.is_capture() && pos.all_kings().contains(m.from()) {
                let at = halves[other].0.index(&next).and_then(|i| i.checked_sub(bases[other]));
                match at.filter(|&i| i < sizes[other] as u64) {
                    Some(i) => succ.push((other_start + i as usize) as u32),
                    None => {
                        found.unverifiable = Some("a king move leaves its men configuration".into());
                        return found;
                    }
                }
                continue;
            }
            let resets = m.is_capture() || m.promotes();
            match store.locate(&next) {
                Ok(at) => best = Some(better(best, store.rule_value(at, resets).back_one_ply(resets))),
                Err(reason) => {
                    found.unverifiable = Some(reason.to_string());
                    return found;
                }
            }
        }
        exits.push(best);
        king_moves.push(succ);
    }
    // `above`: layer k + 1; above the last layer every king move draws.
    let mut above = vec![Value::DRAW; n];
    let mut layer = vec![Value::DRAW; n];
    for _ in 0..limit {
        for local in 0..n {
            let kings = king_moves[local].iter().map(|&s| above[s as usize].back_one_ply(false));
            let best = kings.fold(exits[local], |b, v| Some(better(b, v)));
            layer[local] = best.unwrap_or_else(|| Distances::Rule { man_moves_reset: false }.no_move());
        }
        let repeats = layer == above;
        std::mem::swap(&mut layer, &mut above);
        if repeats {
            break;
        }
    }
    for (local, &raw) in above[..sizes[0]].iter().enumerate() {
        let i = bases[0] + local as u64;
        let stored = Value::unpack(values[i as usize]).expect("checked when loaded");
        let pos = index.position_in(config, local as u64);
        let expected = rule_result(rules, Binding::Both(limit), &pos, raw, stored.wdl.pure());
        if expected != stored {
            found.count += 1;
            found.first.get_or_insert((i, expected, stored));
        }
    }
    found
}

/// The better of two move values for the mover.
fn better(best: Option<Value>, v: Value) -> Value {
    match best {
        Some(b) if rank(b) >= rank(v) => b,
        _ => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Position {
        fen::parse(text, Variant::Russian).expect("test FEN")
    }

    /// [`derive`] over every legal move of `p`, `successor` given the
    /// position each leads to (colours flipped) and whether it resets.
    fn derive_all<E>(p: &Position, distances: Distances, successor: &dyn Fn(&Position, bool) -> Result<Value, E>) -> Result<Value, E> {
        let mut moves = Vec::new();
        generate(p, Variant::Russian, Routes::Merge, &mut moves);
        derive(p, &moves, distances, &|k, resets| successor(&p.play(&moves[k]).flip(), resets))
    }

    #[test]
    fn every_move_leads_to_a_slice_the_store_loads() {
        let mut moves = Vec::new();
        for m in Material::all_up_to(3).into_iter().chain(["KMvMM", "MMvKM", "MMvMM"].map(|t| t.parse().unwrap())) {
            let index = SliceIndex::new(m);
            let expected = reachable(m);
            for i in 0..index.size() {
                let p = index.position(i);
                generate(&p, Variant::Russian, Routes::Merge, &mut moves);
                for mv in &moves {
                    let next = Material::of(&p.play(mv).flip());
                    assert!(
                        next.own_kings + next.own_men == 0 || expected.contains(&next),
                        "{m}: {} leads to {next}",
                        fen::write(&p, Variant::Russian)
                    );
                }
            }
        }
    }

    #[test]
    fn no_move_is_lost_at_once_or_one_ply_before_the_reset() {
        // The man on a1 is blocked and cannot take (c3 is occupied).
        let blocked = pos("W:W29:B25,22");
        let v = derive_all(&blocked, Distances::Pure, &|_, _| Err::<Value, ()>(()));
        assert_eq!(v, Ok(Value::new(Wdl::Loss, 0)));
        let rule = Distances::Rule { man_moves_reset: false };
        let v = derive_all(&blocked, rule, &|_, _| Err::<Value, ()>(()));
        assert_eq!(v, Ok(Value::new(Wdl::Loss, 1)));
    }

    #[test]
    fn the_longest_loss_and_the_shortest_win_are_chosen() {
        // Kings in opposite corners of the main road: every White move is
        // taken at once (a win in 1 for Black), so White loses in 2.
        let corner = pos("W:WKa1:BKh8");
        let v = derive_all(&corner, Distances::Pure, &|_, _| Ok::<_, ()>(Value::new(Wdl::Win, 1)));
        assert_eq!(v, Ok(Value::new(Wdl::Loss, 2)));
        // Successors of distinct values: the best for the side to move wins.
        let values = [Value::new(Wdl::Win, 3), Value::new(Wdl::Loss, 6), Value::new(Wdl::Loss, 4), Value::DRAW];
        let best = values.iter().copied().max_by_key(|v| rank(*v)).unwrap();
        assert_eq!(best, Value::new(Wdl::Win, 3));
        assert!(rank(Value::new(Wdl::Loss, 9)) > rank(Value::new(Wdl::Loss, 2)));
        assert!(rank(Value::DRAW) > rank(Value::new(Wdl::Loss, 90)));
    }

    #[test]
    fn a_quiet_move_adds_a_ply_and_a_conversion_restarts_the_count() {
        // c7 promotes on b8 or d8; e3 moves quietly. In the successor (seen
        // from Black, colours flipped) a promotion shows as a Black king.
        let p = pos("W:Wc7,e3:BKa1");
        let promoted = |next: &Position| next.kings(Color::Black).has_any();
        let quiet_wins = derive_all(&p, Distances::Pure, &|next, _| {
            Ok::<_, ()>(if promoted(next) { Value::DRAW } else { Value::new(Wdl::Loss, 3) })
        });
        assert_eq!(quiet_wins, Ok(Value::new(Wdl::Win, 4)));
        let both_win = derive_all(&p, Distances::Pure, &|next, _| {
            Ok::<_, ()>(Value::new(Wdl::Loss, if promoted(next) { 7 } else { 3 }))
        });
        assert_eq!(both_win, Ok(Value::new(Wdl::Win, 1)));
    }
}
