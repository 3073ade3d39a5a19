//! Move-limit draw rules as data (data/rules/*.toml).
//!
//! A rule set is a list of rules. Each names the material it applies to,
//! the counter it watches (`quiet`: plies since the last capture or
//! promotion; `kings_only`: plies since the last man move or capture) and
//! its limit, in plies or in moves of the stronger side. When a counter
//! passes a limit that applies, the game is drawn; a conversion on the very
//! ply that reaches the limit still counts.
//!
//! Limits are computed in plies as `u32`: no limit a rule can hold (built
//! in code, past the reader's checks) wraps.

use std::fmt;

use serde::{Deserialize, Deserializer};

use crate::board::{Bitboard, Color, Direction, Square};
use crate::format::{MAX_PLIES, RULES_NAME_LEN};
use crate::moves::Move;
use crate::position::Position;

/// The largest `limit_plies`: a win within the limit must fit a table's
/// distance.
pub const MAX_LIMIT_PLIES: u16 = MAX_PLIES;
/// The largest `limit_moves`: N moves of the stronger side reach ply 2N.
pub const MAX_LIMIT_MOVES: u16 = MAX_PLIES / 2;
/// The name of the empty rule set (pure values), and of no other.
pub const NO_RULES: &str = "none";

/// The counter a rule watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    /// Plies since the last conversion (capture or promotion).
    Quiet,
    /// Plies since the last man move or capture.
    KingsOnly,
}

/// The counters of a game state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub quiet: u16,
    pub kings_only: u16,
}

impl Counters {
    /// Whether a game can reach these counters: a capture or promotion
    /// restarts both counts, so the kings-only count never exceeds the
    /// quiet count.
    pub fn is_possible(self) -> bool {
        self.kings_only <= self.quiet
    }

    /// The counters once `mv` is played in `pos`: a capture or promotion
    /// restarts the quiet count, a man move or capture the kings-only
    /// count; any other move adds a ply to each.
    pub fn after(self, pos: &Position, mv: &Move) -> Counters {
        let man_moves = pos.men(pos.turn()).contains(mv.from());
        Counters {
            quiet: if mv.converts() { 0 } else { self.quiet.saturating_add(1) },
            kings_only: if mv.is_capture() || man_moves { 0 } else { self.kings_only.saturating_add(1) },
        }
    }
}

/// What one side has, as a rule condition reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Side {
    kings: u8,
    men: u8,
}

/// The material a rule applies to. Every given field must hold.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// The stronger side's material, any of these (`KKM` = two kings and a
    /// man).
    #[serde(default)]
    pub strong: Vec<String>,
    /// The stronger side has at least this many kings (men are allowed).
    pub strong_kings_min: Option<u8>,
    /// `"lone-king"`: the other side has one king and nothing else.
    pub weak: Option<String>,
    /// Both sides have at least one king.
    #[serde(default)]
    pub both_have_kings: bool,
    /// Total pieces on the board.
    pub pieces_min: Option<u8>,
    pub pieces_max: Option<u8>,
    /// The lone king stood on the main road (a1-h8) when the balance of
    /// forces arose.
    #[serde(default)]
    pub lone_king_on_main_road: bool,
}

/// One draw rule.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Short name, e.g. `three-kings`.
    pub name: String,
    /// Where the rule comes from (article of the federation rules).
    #[serde(default)]
    pub source: String,
    /// The rule in words.
    #[serde(default)]
    pub text: String,
    /// How damka reads the rule where texts differ, and how to switch.
    #[serde(default)]
    pub interpretation: String,
    pub counter: Counter,
    /// At most [`MAX_LIMIT_PLIES`].
    #[serde(default, deserialize_with = "limit_plies")]
    pub limit_plies: Option<u16>,
    /// Moves of the stronger side: counted from the moment the balance
    /// arose, its N-th move is ply 2N-1 if it moved first, else 2N. At most
    /// [`MAX_LIMIT_MOVES`].
    #[serde(default, deserialize_with = "limit_moves")]
    pub limit_moves: Option<u16>,
    #[serde(default)]
    pub when: Condition,
    #[serde(skip)]
    strong: Vec<Side>,
}

/// A set of draw rules.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSet {
    /// What tables record the rule set by, with its hash: see
    /// [`RuleSet::check_name`].
    pub name: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub source: String,
    #[serde(default, rename = "rule")]
    pub rules: Vec<Rule>,
    /// xxh3 of the file's text: tables record it.
    #[serde(skip)]
    pub hash: u64,
    /// The file's exact text: a table directory's manifest keeps it, so
    /// that the rules travel with the tables (probe/src/directory.rs).
    #[serde(skip)]
    pub text: String,
}

/// A rule file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("line {line}: rule '{rule}': {message}")]
    Rule { line: usize, rule: String, message: String },
    #[error("line {line}: rule set name '{name}': {message}")]
    Name { line: usize, name: String, message: String },
    #[error("unknown rule set '{0}' (presets: russian, brazilian, english, none; or give a .toml file)")]
    Unknown(String),
}

const PRESETS: [(&str, &str); 4] = [
    ("russian", include_str!("../../data/rules/russian.toml")),
    ("brazilian", include_str!("../../data/rules/brazilian.toml")),
    ("english", include_str!("../../data/rules/english.toml")),
    ("none", include_str!("../../data/rules/none.toml")),
];

impl RuleSet {
    /// A preset by name.
    pub fn preset(name: &str) -> Result<RuleSet, RulesError> {
        let (_, text) =
            PRESETS.iter().find(|(n, _)| *n == name).ok_or_else(|| RulesError::Unknown(name.to_string()))?;
        RuleSet::parse(text)
    }

    /// The names of the presets.
    pub fn preset_names() -> impl Iterator<Item = &'static str> {
        PRESETS.iter().map(|(n, _)| *n)
    }

    /// Parses and checks a rule file.
    pub fn parse(text: &str) -> Result<RuleSet, RulesError> {
        let mut set: RuleSet = toml::from_str(text).map_err(|e| RulesError::Syntax {
            line: e.span().map_or(0, |s| line_of(text, s.start)),
            message: e.message().to_string(),
        })?;
        set.hash = crate::format::content_hash(text.as_bytes());
        set.text = text.to_string();
        RuleSet::check_name(&set.name, set.rules.is_empty()).map_err(|message| RulesError::Name {
            line: top_level_line(text, "name"),
            name: set.name.clone(),
            message,
        })?;
        // The line of each rule, for errors: its `name = "..."` entry, looked
        // for from the rule's own `[[rule]]` header (an earlier rule's text
        // may quote the name).
        let headers: Vec<usize> = text
            .split_inclusive('\n')
            .scan(0, |offset, line| {
                let at = *offset;
                *offset += line.len();
                Some((at, line.trim()))
            })
            .filter(|(_, line)| line.starts_with("[[rule]]"))
            .map(|(at, _)| at)
            .collect();
        let mut search_from = 0;
        for (n, rule) in set.rules.iter_mut().enumerate() {
            let from = headers.get(n).copied().unwrap_or(search_from).max(search_from);
            let at = text[from..].find(&format!("\"{}\"", rule.name)).map_or(from, |i| i + from);
            search_from = at;
            let line = line_of(text, at);
            rule.check().map_err(|message| RulesError::Rule { line, rule: rule.name.clone(), message })?;
        }
        Ok(set)
    }

    /// Whether `name` may name a rule set, with `empty` telling whether the
    /// set has no rules: 1 to [`RULES_NAME_LEN`] ASCII letters, digits, `-`,
    /// `_` or `.`, so that a table header holds it whole and it reads back
    /// the same; [`NO_RULES`] for the empty set and only for it, since
    /// `none` is how tables of pure values are told apart. Else why not.
    pub fn check_name(name: &str, empty: bool) -> Result<(), String> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
        if name.is_empty() || name.len() > RULES_NAME_LEN || !name.chars().all(allowed) {
            return Err(format!(
                "a name is 1 to {RULES_NAME_LEN} characters, each an ASCII letter, digit, '-', '_' or '.' \
                 (tables record it in {RULES_NAME_LEN} bytes)"
            ));
        }
        match (name == NO_RULES, empty) {
            (true, false) => Err(format!(
                "'{NO_RULES}' is kept for the rule set without rules (pure values): give this one another name"
            )),
            (false, true) => Err(format!("a rule set without rules holds pure values and is named '{NO_RULES}'")),
            _ => Ok(()),
        }
    }

    /// The plies the side to move has for a conversion that keeps a win (or,
    /// for `loser`, that the opponent has), from a fresh count at `pos`:
    /// the tightest quiet limit that applies. `None`: no quiet limit.
    pub fn quiet_limit(&self, pos: &Position, side_to_move_wins: bool) -> Option<u32> {
        self.limits(pos, Counter::Quiet, side_to_move_wins, MainRoad::Now, true)
    }

    /// The rules that apply to `pos` (a fresh count) with their limits in
    /// plies, for the side to move winning or losing.
    pub fn applicable(&self, pos: &Position, side_to_move_wins: bool) -> Vec<(&Rule, u32)> {
        self.rules.iter().filter_map(|r| r.limit_for(pos, side_to_move_wins, MainRoad::Now, true).map(|l| (r, l))).collect()
    }

    /// The kings-only limit in plies, if a rule for it applies to `pos`.
    pub fn kings_only_limit(&self, pos: &Position) -> Option<u32> {
        self.limits(pos, Counter::KingsOnly, true, MainRoad::Now, true)
    }

    /// The tightest limit on `counter` at `pos`, for a fresh count (the
    /// side to move moved first if `us_first`).
    fn limits(&self, pos: &Position, counter: Counter, side_to_move_wins: bool, road: MainRoad, us_first: bool) -> Option<u32> {
        self.rules
            .iter()
            .filter(|r| r.counter == counter)
            .filter_map(|r| r.limit_for(pos, side_to_move_wins, road, us_first))
            .min()
    }

    /// Whether some rule's answer depends on where the lone king stood when
    /// the balance arose (unknown once the quiet count is under way).
    fn depends_on_main_road(&self, pos: &Position) -> bool {
        self.rules
            .iter()
            .any(|r| r.when.lone_king_on_main_road && r.limit_for(pos, true, MainRoad::Assume(true), true).is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The fewest plies any limit leaves a line in slice `material` or its
    /// twin, from a fresh count, whichever side wins and moves first; `None`:
    /// no limit applies. 0 where a rule looks at more than material (where
    /// the lone king stood when the balance arose): no line is safe from it.
    pub fn fewest_plies(&self, material: crate::material::Material) -> Option<u32> {
        let pos = crate::index::SliceIndex::new(material).position(0);
        let twins = [pos, pos.flip()];
        if twins.iter().any(|p| self.depends_on_main_road(p)) {
            return Some(0);
        }
        let cases = [(true, true), (true, false), (false, true), (false, false)];
        let counters = [Counter::Quiet, Counter::KingsOnly];
        twins
            .iter()
            .flat_map(|p| cases.iter().flat_map(move |&(wins, first)| counters.map(|c| self.limits(p, c, wins, MainRoad::Now, first))))
            .flatten()
            .min()
    }
}

/// How the limits of a rule set bind in a slice; this decides what a
/// stored distance counts and how a slice is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// No limit, or only limits that reset at conversions (captures and
    /// promotions): distances count plies to the next conversion.
    Quiet,
    /// Only a kings-only limit applies and men are on the board: a man move
    /// resets the count too, so distances count plies to the next man move
    /// or capture.
    KingsOnly,
    /// A kings-only limit binds beside a quiet one: the state is (position,
    /// kings-only count) with this limit; distances count plies to the next
    /// conversion from a fresh count.
    Both(u32),
}

impl RuleSet {
    /// How this rule set binds in slice `material`.
    pub fn binding(&self, material: crate::material::Material) -> Binding {
        // Any position of the slice tells which kings-only limit applies:
        // the conditions that depend on more than material only touch quiet
        // limits.
        let pos = crate::index::SliceIndex::new(material).position(0);
        let kings_only = self.kings_only_limit(&pos);
        let quiet = self.rules.iter().any(|r| r.counter == Counter::Quiet);
        let both_kings = material.own_kings > 0 && material.opp_kings > 0;
        match kings_only {
            Some(_) if material.men() > 0 && !quiet => Binding::KingsOnly,
            Some(limit) if material.men() > 0 && both_kings => Binding::Both(limit),
            _ => Binding::Quiet,
        }
    }

    /// The plies within which the next reset must come at `pos` (a fresh
    /// count) for the side to move to win (`wins`), or for its opponent to
    /// win, under `binding`. `None`: no limit.
    pub fn reset_limit(&self, binding: Binding, pos: &Position, wins: bool) -> Option<u32> {
        let no_men = (pos.men(Color::White) | pos.men(Color::Black)).is_empty();
        let quiet = match binding {
            Binding::KingsOnly => None,
            _ => self.quiet_limit(pos, wins),
        };
        // Without men the two counts are one: both limits bind it. With men
        // and a quiet limit the kings-only count lives in the solved state.
        let kings = match binding {
            Binding::KingsOnly => self.kings_only_limit(pos),
            _ if no_men => self.kings_only_limit(pos),
            _ => None,
        };
        match (quiet, kings) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Where the lone king stood when the balance arose.
#[derive(Clone, Copy)]
enum MainRoad {
    /// Where it stands now (a fresh count).
    Now,
    Assume(bool),
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The line of the top-level `key = ...` entry (before the first table);
/// 1 if there is none.
fn top_level_line(text: &str, key: &str) -> usize {
    text.lines()
        .map(str::trim_start)
        .take_while(|line| !line.starts_with('['))
        .position(|line| line.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('=')))
        .map_or(1, |i| i + 1)
}

/// Why `value`, outside 1..=`max`, cannot be the limit `field`.
fn limit_error(field: &str, value: i64, max: u16) -> String {
    if value < 1 {
        format!("{field} = {value}: a limit is at least 1 (a limit of 0 would draw every game at once)")
    } else {
        format!("{field} = {value} is above {max}, the largest limit a table can store (its distances hold {MAX_PLIES} plies)")
    }
}

/// Reads a limit as any TOML integer, so that one beyond 16 bits (beyond
/// the largest limit too, or below 1) gets the message of one beyond the
/// largest limit rather than a type error.
fn wide_limit<'de, D: Deserializer<'de>>(d: D, field: &str, max: u16) -> Result<Option<u16>, D::Error> {
    let value = i64::deserialize(d)?;
    u16::try_from(value).map(Some).map_err(|_| serde::de::Error::custom(limit_error(field, value, max)))
}

fn limit_plies<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    wide_limit(d, "limit_plies", MAX_LIMIT_PLIES)
}

fn limit_moves<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    wide_limit(d, "limit_moves", MAX_LIMIT_MOVES)
}

fn parse_side(s: &str) -> Option<Side> {
    let kings = s.bytes().take_while(|&b| b == b'K').count();
    let men = s[kings..].bytes().take_while(|&b| b == b'M').count();
    (kings + men == s.len() && kings + men > 0 && kings + men <= 12).then_some(Side { kings: kings as u8, men: men as u8 })
}

impl Rule {
    fn check(&mut self) -> Result<(), String> {
        match (self.limit_plies, self.limit_moves) {
            (Some(_), Some(_)) => return Err("give limit_plies or limit_moves, not both".into()),
            (None, None) => return Err("no limit: give limit_plies or limit_moves".into()),
            (Some(p), None) if !(1..=MAX_LIMIT_PLIES).contains(&p) => {
                return Err(limit_error("limit_plies", p.into(), MAX_LIMIT_PLIES))
            }
            (None, Some(m)) if !(1..=MAX_LIMIT_MOVES).contains(&m) => {
                return Err(limit_error("limit_moves", m.into(), MAX_LIMIT_MOVES))
            }
            _ => {}
        }
        let w = &self.when;
        self.strong = w
            .strong
            .iter()
            .map(|s| parse_side(s).ok_or_else(|| format!("strong: '{s}' is not material like KKM")))
            .collect::<Result<_, _>>()?;
        if let Some(weak) = &w.weak {
            if weak != "lone-king" {
                return Err(format!("weak: '{weak}': the only weak side known is \"lone-king\""));
            }
        }
        if self.limit_moves.is_some() && self.strong.is_empty() && w.strong_kings_min.is_none() {
            return Err("limit_moves counts moves of the stronger side: say which side that is (strong or strong_kings_min)".into());
        }
        if let (Some(lo), Some(hi)) = (w.pieces_min, w.pieces_max) {
            if lo > hi {
                return Err(format!("pieces_min {lo} is above pieces_max {hi}"));
            }
        }
        if w.lone_king_on_main_road && w.weak.is_none() {
            return Err("lone_king_on_main_road needs weak = \"lone-king\"".into());
        }
        Ok(())
    }

    /// The limit in plies this rule sets at `pos`, if it applies; `us_first`:
    /// the side to move at `pos` moved first in the count (as at a fresh
    /// count).
    fn limit_for(&self, pos: &Position, side_to_move_wins: bool, road: MainRoad, us_first: bool) -> Option<u32> {
        let strong_is_us = match self.stronger(pos, road)? {
            Stronger::Unnamed => None,
            Stronger::Us => Some(true),
            Stronger::Them => Some(false),
            // Symmetric material (a king against a king): count the moves
            // of whichever side is winning.
            Stronger::Either => Some(side_to_move_wins),
        };
        let strong_first = strong_is_us == Some(us_first);
        match (self.limit_plies, self.limit_moves) {
            (Some(p), _) => Some(p.into()),
            // A limit of 0 moves (only a rule built in code holds one) is
            // reached at once.
            (None, Some(m)) => Some((2 * u32::from(m)).saturating_sub(u32::from(strong_first))),
            (None, None) => None,
        }
    }

    /// Whether the rule applies at `pos` and which side it takes for the
    /// stronger one; `None`: it does not apply.
    fn stronger(&self, pos: &Position, road: MainRoad) -> Option<Stronger> {
        let us = pos.turn();
        let side = |c: Color| Side { kings: pos.kings(c).count() as u8, men: pos.men(c).count() as u8 };
        let (own, opp) = (side(us), side(us.opponent()));
        let w = &self.when;
        let pieces = own.kings + own.men + opp.kings + opp.men;
        if w.pieces_min.is_some_and(|n| pieces < n) || w.pieces_max.is_some_and(|n| pieces > n) {
            return None;
        }
        if w.both_have_kings && (own.kings == 0 || opp.kings == 0) {
            return None;
        }
        let has_strong_side = !self.strong.is_empty() || w.strong_kings_min.is_some() || w.weak.is_some();
        if !has_strong_side {
            return Some(Stronger::Unnamed);
        }
        let fits = |strong: Side, weak: Side, weak_color: Color| {
            (self.strong.is_empty() || self.strong.contains(&strong))
                && w.strong_kings_min.is_none_or(|k| strong.kings >= k)
                && (w.weak.is_none() || (weak.kings == 1 && weak.men == 0))
                && (!w.lone_king_on_main_road
                    || match road {
                        MainRoad::Now => on_main_road(pos.kings(weak_color)),
                        MainRoad::Assume(b) => b,
                    })
        };
        match (fits(own, opp, us.opponent()), fits(opp, own, us)) {
            (false, false) => None,
            (true, false) => Some(Stronger::Us),
            (false, true) => Some(Stronger::Them),
            (true, true) => Some(Stronger::Either),
        }
    }

    /// The limit this rule sets while the balance of forces of `balance`
    /// (the position right after the last capture or promotion) lasts, as
    /// an arbiter counts it; `None`: the rule does not apply. Material does
    /// not change until the next capture or promotion, and the lone king of
    /// the main-road rule is judged where it stands at `balance`.
    pub fn limit_at(&self, balance: &Position) -> Option<Limit> {
        let stronger = self.stronger(balance, MainRoad::Now)?;
        let us = balance.turn();
        Some(match (self.limit_plies, self.limit_moves) {
            (Some(plies), _) => Limit::Plies(plies),
            (None, moves) => Limit::Moves {
                moves: moves.unwrap_or(0),
                strong: match stronger {
                    Stronger::Us => Some(us),
                    Stronger::Them => Some(us.opponent()),
                    Stronger::Unnamed | Stronger::Either => None,
                },
            },
        })
    }
}

/// Which side a rule takes for the stronger one, at a position it applies to.
#[derive(Clone, Copy)]
enum Stronger {
    /// The rule names no stronger side.
    Unnamed,
    /// The side to move.
    Us,
    Them,
    /// Both sides fit (a king against a king).
    Either,
}

/// A rule's limit as an arbiter counts it (see [`Rule::limit_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Reached on this ply of the count.
    Plies(u16),
    /// Reached on the stronger side's N-th move of the count. `strong`:
    /// `None` where either side fits (a king against a king): the count
    /// is of the side that wins, so the limit is reached once both sides
    /// have made N moves.
    Moves { moves: u16, strong: Option<Color> },
}

/// What [`RuleSet::judge`] reads of a position beyond its material and its
/// stored value: which side's lone king (a king and nothing else) stands on
/// the main road, as bits (1: White's, 2: Black's). Positions of one slice
/// alike in this and in their stored value get the same answer from `judge`
/// for every counter state.
pub fn lone_kings_on_main_road(pos: &Position) -> u8 {
    let lone = |c: Color| pos.men(c).is_empty() && pos.kings(c).count() == 1 && on_main_road(pos.kings(c));
    lone(Color::White) as u8 | (lone(Color::Black) as u8) << 1
}

fn on_main_road(kings: Bitboard) -> bool {
    let a1 = Square::from_coords(0, 0).expect("a1 is dark");
    let road = crate::board::ray(a1, Direction::NorthEast).squares().iter().fold(a1.bb(), |bb, s| bb.with(*s));
    (kings & road).has_any()
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} rules, hash {:016x})", self.name, self.rules.len(), self.hash)
    }
}

/// What a probe with counters can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The result for the side to move under the rule set, from this state.
    Exact(crate::Wdl),
    /// The stored data cannot decide between these two results.
    Ambiguous(crate::Wdl, crate::Wdl),
}

impl Verdict {
    /// The verdict for the other side.
    pub fn negate(self) -> Verdict {
        match self {
            Verdict::Exact(w) => Verdict::Exact(w.negate()),
            Verdict::Ambiguous(a, b) => Verdict::Ambiguous(a.negate(), b.negate()),
        }
    }
}

impl RuleSet {
    /// The result of the state (`pos`, `counters`) of a game still in
    /// progress (no limit reached yet), given the stored fresh value of
    /// `pos` (result under this rule set and plies to the next reset; for a
    /// cursed win or blessed loss the plies with the quiet limit lifted, 0
    /// where no reset can be forced). Exact where the stored data decides
    /// it, else [`Verdict::Ambiguous`], never a wrong answer.
    ///
    /// What stays open: where the lone king stood when the count started
    /// (the main-road rule), and, with men on the board, whether a winning
    /// line that passes a man move fits the kings-only count. A line that
    /// ends by leaving the opponent without a move is stored one ply longer
    /// (the missing move is its reset), so that a line of exactly the plies
    /// left always fits.
    pub fn judge(&self, pos: &Position, fresh: crate::Value, counters: Counters) -> Verdict {
        use crate::Wdl;
        if counters == Counters::default() {
            return Verdict::Exact(fresh.wdl);
        }
        let (good, saved) = match fresh.wdl {
            // Counters only take chances away: a draw stays a draw.
            Wdl::Draw => return Verdict::Exact(Wdl::Draw),
            Wdl::Win | Wdl::CursedWin => (Wdl::Win, Wdl::CursedWin),
            Wdl::Loss | Wdl::BlessedLoss => (Wdl::Loss, Wdl::BlessedLoss),
        };
        let d = fresh.plies.0 as u32;
        if fresh.wdl == saved && d == 0 {
            // No reset can be forced even without the quiet limit.
            return Verdict::Exact(saved);
        }
        let wins = good == Wdl::Win;
        let (q, k) = (counters.quiet as u32, counters.kings_only as u32);
        // Whether the winner's line of d plies fits a count at `c` with limit
        // `l` (a reset on the limit ply counts).
        let fits = |c: u32, l: u32| d + c <= l;
        // The side that moved first since the count started is the side to
        // move now if the count is even.
        let first_mover_is_us = q % 2 == 0;
        let quiet_limit = |road: MainRoad| self.limits(pos, Counter::Quiet, wins, road, first_mover_is_us);
        let no_men = (pos.men(Color::White) | pos.men(Color::Black)).is_empty();
        let kings_ok = match self.kings_only_limit(pos) {
            None => Some(true),
            // Without men both counters restart together: the count is the
            // same, and the stored distance was judged against both.
            Some(l) if no_men => Some(fits(q.max(k), l)),
            // A side without a king moves a man or captures every turn: the
            // count never passes 1.
            Some(_) if pos.kings(Color::White).is_empty() || pos.kings(Color::Black).is_empty() => Some(true),
            // The winning line reaches its reset before the kings-only count
            // runs out: the count cannot matter. Otherwise the stored
            // distance (for a fresh kings-only count) cannot say whether
            // another line, with a man move on the way, fits.
            Some(l) => fits(k, l).then_some(true),
        };
        let depends_on_road = self.depends_on_main_road(pos);
        // The result if the count started with the lone king on the main road
        // (`Assume(true)`) or not; `None` inside: undecided; outer `None`:
        // such a start would have drawn the game by now.
        let answer = |road: MainRoad| -> Option<Option<Wdl>> {
            let quiet_ok = match quiet_limit(road) {
                None => Some(true),
                // The main-road rule's material has one stronger side: its
                // limit ends the game.
                Some(l) if depends_on_road && q >= l => return None,
                Some(l) => Some(fits(q, l)),
            };
            Some(match (quiet_ok, kings_ok) {
                (Some(false), _) | (_, Some(false)) => Some(saved),
                (Some(true), Some(true)) => Some(good),
                _ => None,
            })
        };
        let answers = if depends_on_road {
            [answer(MainRoad::Assume(true)), answer(MainRoad::Assume(false))]
        } else {
            [answer(MainRoad::Now), None]
        };
        match answers {
            [None, None] => Verdict::Exact(saved),
            [Some(Some(a)), None] | [None, Some(Some(a))] => Verdict::Exact(a),
            [Some(Some(a)), Some(Some(b))] if a == b => Verdict::Exact(a),
            _ => Verdict::Ambiguous(good, saved),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fewest plies a Russian limit leaves, slice by slice: the tightest
    /// rule whichever side is stronger and moves first (15 moves of the
    /// three kings: ply 29 when they move first), 0 where the main-road
    /// rule may apply, and nothing without a rule.
    #[test]
    fn fewest_plies_takes_the_tightest_rule_of_a_slice_and_its_twin() {
        let russian = RuleSet::preset("russian").expect("a preset");
        let fewest = |m: &str| russian.fewest_plies(m.parse().expect("material"));
        assert_eq!(fewest("KKvKK"), Some(30));
        assert_eq!(fewest("KvKKKKK"), Some(29));
        assert_eq!(fewest("KKMvK"), Some(0));
        assert_eq!(fewest("KvKKM"), Some(0));
        assert_eq!(fewest("KKvK"), Some(9));
        assert_eq!(fewest("MMMvMMM"), Some(30));
        assert_eq!(RuleSet::preset("none").expect("a preset").fewest_plies("KKvKK".parse().expect("material")), None);
    }

    #[test]
    fn every_preset_parses() {
        for name in RuleSet::preset_names() {
            let set = RuleSet::preset(name).unwrap_or_else(|e| panic!("preset {name}: {e}"));
            assert_eq!(set.name, name);
            for rule in &set.rules {
                assert!(!rule.text.is_empty(), "{name}: rule {} says nothing", rule.name);
            }
        }
        let russian = RuleSet::preset("russian").unwrap();
        let names: Vec<&str> = russian.rules.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["three-kings", "kings-only", "balance-4-5", "balance-6-7", "main-road", "small-endings"]);
        assert!(RuleSet::preset("none").unwrap().is_empty());
        assert_ne!(russian.hash, RuleSet::preset("brazilian").unwrap().hash);
        assert_eq!(RuleSet::preset("dutch").unwrap_err(), RulesError::Unknown("dutch".into()));
    }

    /// A file whose second rule, `bad`, starts on line 8 with `name` on
    /// line 9, and goes on with `rest`.
    fn parse_with(rest: &str) -> Result<RuleSet, RulesError> {
        let text = format!(
            "name = \"test\"\n\n[[rule]]\nname = \"good\"\ncounter = \"quiet\"\nlimit_plies = 10\n\n[[rule]]\nname = \"bad\"\n{rest}"
        );
        RuleSet::parse(&text)
    }

    fn rule_error(rest: &str, needle: &str) {
        match parse_with(rest) {
            Err(RulesError::Rule { line, rule, message }) => {
                assert_eq!((line, rule.as_str()), (9, "bad"), "{message}");
                assert!(message.contains(needle), "'{message}' does not mention '{needle}'");
            }
            other => panic!("expected an error in rule 'bad', got {other:?}"),
        }
    }

    fn syntax_error(rest: &str, expected_line: usize, needle: &str) {
        match parse_with(rest) {
            Err(e @ RulesError::Syntax { line, .. }) => {
                assert_eq!(line, expected_line, "{e}");
                assert!(e.to_string().contains(needle), "'{e}' does not mention '{needle}'");
                assert!(e.to_string().starts_with(&format!("line {expected_line}:")), "{e}");
            }
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn a_good_file_parses() {
        let set = parse_with("counter = \"kings_only\"\nlimit_moves = 3\nwhen = { strong = [\"KK\"], weak = \"lone-king\" }\n")
            .expect("valid rule file");
        assert_eq!(set.rules.len(), 2);
        assert_eq!(set.rules[1].limit_moves, Some(3));
    }

    #[test]
    fn unknown_keys_name_their_line() {
        syntax_error("counter = \"quiet\"\nlimit_plies = 10\nlimt_moves = 3\n", 12, "limt_moves");
        syntax_error("counter = \"quiet\"\nlimit_plies = 10\nwhen = { strongest = [\"KK\"] }\n", 12, "strongest");
        syntax_error("counter = \"plies\"\nlimit_plies = 10\n", 10, "plies");
    }

    #[test]
    fn bad_syntax_names_its_line() {
        syntax_error("counter = \"quiet\"\nlimit_plies = = 10\n", 11, "");
        syntax_error("counter = \"quiet\nlimit_plies = 10\n", 10, "");
    }

    #[test]
    fn limits_must_be_given_once() {
        rule_error("counter = \"quiet\"\nlimit_plies = 10\nlimit_moves = 5\nwhen = { strong = [\"KK\"] }\n", "not both");
        rule_error("counter = \"quiet\"\n", "no limit");
        rule_error("counter = \"quiet\"\nlimit_plies = 0\n", "limit of 0 would draw");
    }

    /// limit_moves = 32768 is 65536 plies: it used to wrap to 0 in 16 bits
    /// and built KvKK with every win cursed. The reader now refuses every
    /// limit a table's distance cannot hold, naming the largest it can.
    #[test]
    fn limits_beyond_what_a_table_stores_are_refused() {
        let when = "when = { strong = [\"KK\"], weak = \"lone-king\" }\n";
        for moves in [4096, 32768, 65535] {
            rule_error(&format!("counter = \"quiet\"\nlimit_moves = {moves}\n{when}"), "above 4095");
        }
        for plies in [8192, 65535] {
            rule_error(&format!("counter = \"quiet\"\nlimit_plies = {plies}\n"), "above 8191");
        }
        // Beyond 16 bits too, and on the value's own line.
        syntax_error(&format!("counter = \"quiet\"\nlimit_moves = 70000\n{when}"), 11, "above 4095");
        syntax_error("counter = \"quiet\"\nlimit_plies = 99999999999\n", 11, "above 8191");
        syntax_error("counter = \"quiet\"\nlimit_plies = -3\n", 11, "at least 1");
        let largest = parse_with(&format!("counter = \"quiet\"\nlimit_moves = 4095\n{when}")).expect("the largest limit");
        assert_eq!(largest.rules[1].limit_moves, Some(4095));
        let largest = parse_with("counter = \"quiet\"\nlimit_plies = 8191\n").expect("the largest limit");
        assert_eq!(largest.rules[1].limit_plies, Some(8191));
    }

    /// A name must fit a table header whole and read back the same; `none`
    /// says a set has no rules, and only it.
    #[test]
    fn names_fit_the_header_and_none_means_no_rules() {
        let with = |name: &str, rules: &str| RuleSet::parse(&format!("title = \"t\"\nname = \"{name}\"\n{rules}"));
        let one_rule = "\n[[rule]]\nname = \"r\"\ncounter = \"quiet\"\nlimit_plies = 10\n";
        let name_error = |result: Result<RuleSet, RulesError>, needle: &str| match result {
            Err(e @ RulesError::Name { line: 2, .. }) => assert!(e.to_string().contains(needle), "'{e}' does not say '{needle}'"),
            other => panic!("expected an error in the name on line 2, got {other:?}"),
        };
        // Too long (cut, it named another set); Cyrillic (cut inside a
        // character, it is not text), even when short; empty; not a word.
        for bad in ["russian-extended2", "русские-правила", "русские", "", "two words", "a/b", "a\\u0000b"] {
            name_error(with(bad, one_rule), "1 to 16 characters, each an ASCII letter, digit, '-', '_' or '.'");
        }
        name_error(with("none", one_rule), "kept for the rule set without rules");
        name_error(with("pure", ""), "named 'none'");
        for good in ["russian-extended", "Ru_2.0-sixteen-b", "x"] {
            assert_eq!(with(good, one_rule).expect("a valid name").name, good);
        }
        assert!(with("none", "").expect("the empty set").is_empty());
    }

    #[test]
    fn moves_need_a_stronger_side() {
        rule_error("counter = \"quiet\"\nlimit_moves = 5\n", "stronger side");
        rule_error("counter = \"quiet\"\nlimit_moves = 5\nwhen = { both_have_kings = true }\n", "stronger side");
    }

    #[test]
    fn material_must_read_as_kings_then_men() {
        for bad in ["KXK", "MK", "", "KKKKKKKKKKKKK"] {
            rule_error(&format!("counter = \"quiet\"\nlimit_plies = 9\nwhen = {{ strong = [\"KK\", \"{bad}\"] }}\n"), "is not material");
        }
        rule_error("counter = \"quiet\"\nlimit_plies = 9\nwhen = { weak = \"two-kings\" }\n", "two-kings");
    }

    #[test]
    fn piece_ranges_must_not_be_empty() {
        rule_error("counter = \"quiet\"\nlimit_plies = 9\nwhen = { pieces_min = 6, pieces_max = 4 }\n", "pieces_min 6 is above pieces_max 4");
        assert!(parse_with("counter = \"quiet\"\nlimit_plies = 9\nwhen = { pieces_min = 4, pieces_max = 4 }\n").is_ok());
    }

    #[test]
    fn the_line_is_the_rule_not_an_earlier_mention_of_its_name() {
        // The first rule's text quotes the second rule's name.
        let text = "name = \"test\"\n\n[[rule]]\nname = \"good\"\ntext = 'see \"bad\"'\ncounter = \"quiet\"\nlimit_plies = 10\n\n[[rule]]\nname = \"bad\"\ncounter = \"quiet\"\n";
        match RuleSet::parse(text) {
            Err(RulesError::Rule { line, .. }) => assert_eq!(line, 10),
            other => panic!("expected an error in rule 'bad', got {other:?}"),
        }
    }
}
