//! Probing a directory of tables: what engines call.
//!
//! [`Tablebase::open`] only lists the directory. Each table file is mapped
//! the first time a probe needs it (a once-cell per file) and checked then:
//! header checksum, variant, rule set, material and size. Blocks are
//! decompressed into a bounded cache shared by all threads; every block's
//! checksum is checked when it is read.
//!
//! Tables store positions with White to move; a position with Black to move
//! is probed as its colour-flipped twin. Positions whose side to move must
//! capture are not stored ("don't care"): they are answered through their
//! captures (resolve.rs), which lead to slices of fewer pieces. Positions where a side has no
//! pieces are in no table: the side to move has lost if it has none, and
//! has won if its opponent has none (the opponent could not move).
//!
//! Move-limit counters: the stored values are for fresh counters (right
//! after a capture or promotion) under the rule set the tables were built
//! with ([`Tablebase::rules`]; the directory's manifest carries its text,
//! [`Tablebase::rule_set`]). [`Tablebase::probe_counters`] and
//! [`Tablebase::rank_moves_with_counters`] judge states whose counters have
//! run (rules.rs, `RuleSet::judge`).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

use crate::resolve::{self, Resolution};
use crate::runs::RunCursor;
use crate::cache::{BlockCache, CacheStats, ProbeScope, Read};
use crate::directory::{Manifest, ManifestError, MANIFEST_NAME};
use crate::game::Game;
use crate::format::{packed_code, read_header, Distances, FormatError, Kind, TableFile, TableSlice};
use crate::index::{IndexParts, SliceIndex};
use crate::layout::EntryLayout;
use crate::material::Material;
use crate::mmap::MappedFile;
use crate::memo::{self, Memo};
use crate::movegen::{has_capture, is_threatened, legal_moves};
use crate::moves::Move;
use crate::position::Position;
use crate::rules::{Counters, RuleSet, Verdict};
use crate::value::{value_order, Value, Wdl};
use crate::variant::Variant;

mod access;

use access::{decode, Access, CacheOnly, Load};
pub use access::Cached;

/// The rule set a table was built with, as its header records it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleSetId {
    /// The rule set's name (`none`, `russian`, ...).
    pub name: String,
    /// A hash of the rule set file's content.
    pub hash: u64,
}

impl fmt::Display for RuleSetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:016x})", self.name, self.hash)
    }
}

/// The name of a table file: `<variant>-<material>.<wdl|dtc>`, for example
/// `russian-KKMvK.dtc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableName {
    pub variant: Variant,
    pub material: Material,
    pub kind: Kind,
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}.{}", self.variant, self.material, self.kind.extension())
    }
}

impl FromStr for TableName {
    type Err = ();

    /// Reads a file name; `Err` for any file that is not a table.
    fn from_str(name: &str) -> Result<TableName, ()> {
        let (stem, ext) = name.rsplit_once('.').ok_or(())?;
        let kind = [Kind::Wdl, Kind::Distance].into_iter().find(|k| k.extension() == ext).ok_or(())?;
        let (variant, material) = stem.split_once('-').ok_or(())?;
        let material: Material = material.parse().map_err(|_| ())?;
        if !material.is_contested() {
            return Err(());
        }
        Ok(TableName { variant: variant.parse().map_err(|_| ())?, material, kind })
    }
}

/// Why a probe has no answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ProbeError {
    /// The directory holds no table for this material.
    #[error("no {kind} table for {material}: expected {}", path.display())]
    MissingTable { material: Material, kind: &'static str, path: PathBuf },
    /// The directory holds no table of the game at all.
    #[error("no {variant} tables in {}", dir.display())]
    NoTables { dir: PathBuf, variant: Variant },
    /// More pieces than the largest table in the directory.
    #[error("{pieces} pieces on the board; the tables hold at most {max}")]
    TooManyPieces { pieces: u8, max: u8 },
    /// A table file failed a check: its header, its block index or one
    /// block (checksum, decompression or a value no table holds). The
    /// message says what (`error` is not also a source: printed chains
    /// would repeat it).
    /// A file of an older format version is not damaged but stale: the
    /// message says so, and what to do.
    #[error("{} {}{}: {error}", if matches!(error, FormatError::Version(_)) { "outdated table" } else { "damaged table" }, path.display(), block.map(|b| format!(", block {b}")).unwrap_or_default())]
    Damaged { path: PathBuf, block: Option<u32>, error: FormatError },
    /// A table built for another game than the one opened.
    #[error("{} is a {found} table; this tablebase was opened for {expected}", path.display())]
    WrongVariant { path: PathBuf, expected: Game, found: Game },
    /// A directory whose manifest says it holds the tables of another game
    /// (Cheskers tables opened for draughts, or the reverse).
    #[error("{} holds {found} tables, not {expected} tables: open it for {found}", dir.display())]
    WrongGame { dir: PathBuf, expected: Game, found: Game },
    /// A table built with another rule set than the others (or than the
    /// one asked for at open time).
    #[error("{} was built with rule set {found}; expected {expected}", path.display())]
    WrongRules { path: PathBuf, expected: RuleSetId, found: RuleSetId },
    /// A file or directory that cannot be read.
    #[error("cannot read {}: {error}", path.display())]
    Io { path: PathBuf, error: Arc<io::Error> },
    /// Input that is not a legal position (FEN or bitboards from a caller).
    #[error("invalid position: {0}")]
    InvalidPosition(String),
    /// The directory's manifest (`damka.toml`) cannot be read or makes no
    /// sense.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Counters no game reaches: every capture or promotion restarts both
    /// counts, so the kings-only count never exceeds the quiet count.
    #[error("impossible counters: {kings_only} kings-only plies but only {quiet} quiet plies (a capture or promotion restarts both counts)")]
    ImpossibleCounters { quiet: u16, kings_only: u16 },
}

impl ProbeError {
    pub(crate) fn io(path: &Path, err: io::Error) -> ProbeError {
        ProbeError::Io { path: path.to_path_buf(), error: Arc::new(err) }
    }

    pub(crate) fn damaged(path: &Path, error: FormatError) -> ProbeError {
        let block = match error {
            FormatError::BlockDecompress(b) | FormatError::BadEntry(b) => Some(b),
            _ => None,
        };
        ProbeError::Damaged { path: path.to_path_buf(), block, error }
    }
}

/// How to open a [`Tablebase`].
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// The game whose tables to use; files of other games are ignored.
    pub variant: Variant,
    /// Bytes of decompressed blocks to keep in memory (0: none).
    pub cache_bytes: usize,
    /// The rule set every table must have been built with. `None`: the
    /// rule set of the first readable table; all others must agree.
    pub rules: Option<RuleSetId>,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions { variant: Variant::Russian, cache_bytes: 64 << 20, rules: None }
    }
}

impl OpenOptions {
    pub fn new(variant: Variant) -> OpenOptions {
        OpenOptions { variant, ..OpenOptions::default() }
    }

    pub fn cache_bytes(mut self, bytes: usize) -> OpenOptions {
        self.cache_bytes = bytes;
        self
    }

    pub fn rules(mut self, rules: RuleSetId) -> OpenOptions {
        self.rules = Some(rules);
        self
    }
}

/// A legal move and what it is worth to the side making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    /// The value for the mover after this move; the distance counts this
    /// move (a capture or promotion has distance 1).
    pub value: Value,
}

/// A legal move judged with move-limit counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JudgedMove {
    pub mv: Move,
    /// The counters once the move is played.
    pub counters: Counters,
    /// The result for the mover under the rule set, from the state after
    /// the move (its position and `counters`).
    pub verdict: Verdict,
    /// The stored value for the mover, as [`Tablebase::rank_moves`] gives
    /// it: for fresh counters after the move.
    pub value: Value,
}

/// A sort key over verdicts: better for the side to move is greater; an
/// ambiguous verdict lies between its two results.
fn verdict_order(v: Verdict) -> i8 {
    match v {
        Verdict::Exact(w) => 2 * w as i8,
        Verdict::Ambiguous(a, b) => a as i8 + b as i8,
    }
}

/// A table file, checked and mapped.
struct Table {
    file: TableFile<MappedFile>,
    /// Where each position's entry stands in the file.
    layout: EntryLayout,
    block_positions: u64,
    /// log2 of `block_positions` when it is a power of two (as damka
    /// writes it): a shift instead of a 64-bit division on every probe.
    block_shift: Option<u32>,
}

impl Table {
    /// The block holding the entry of the position `at`, and the entry's
    /// place in it.
    #[inline]
    fn locate(&self, at: IndexParts) -> (u64, usize) {
        let slot = self.layout.slot_of(at);
        match self.block_shift {
            Some(shift) => (slot >> shift, (slot & (self.block_positions - 1)) as usize),
            None => (slot / self.block_positions, (slot % self.block_positions) as usize),
        }
    }
}

/// One kind of table of one slice.
struct TableSlot {
    present: bool,
    table: OnceLock<Result<Table, ProbeError>>,
}

struct Slice {
    material: Material,
    index: SliceIndex,
    /// By [`kind_number`].
    tables: [TableSlot; 2],
}

fn kind_number(kind: Kind) -> usize {
    match kind {
        Kind::Wdl => 0,
        Kind::Distance => 1,
    }
}

/// The cache's key of a block: slice, kind and block number.
#[inline]
fn block_key(slice: usize, kind: Kind, block: u64) -> u64 {
    (((slice * 2 + kind_number(kind)) as u64) << 32) | block
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Wdl => "WDL",
        Kind::Distance => "distance",
    }
}

/// Slices by material: a dense table over the piece counts up to the
/// directory's largest slice, one array access per probe.
struct MaterialTable {
    /// Largest count of any one kind (own kings, own men, ...) plus one.
    side: usize,
    slots: Vec<u32>,
}

impl MaterialTable {
    const NONE: u32 = u32::MAX;

    fn new(max_pieces: u8) -> MaterialTable {
        let side = max_pieces as usize + 1;
        MaterialTable { side, slots: vec![MaterialTable::NONE; side.pow(4)] }
    }

    /// The place of `m` in the table; `None` beyond its bounds.
    #[inline]
    fn at(&self, m: Material) -> Option<usize> {
        let counts = [m.own_kings, m.own_men, m.opp_kings, m.opp_men];
        if counts.iter().any(|&c| c as usize >= self.side) {
            return None;
        }
        Some(counts.iter().fold(0, |at, &c| at * self.side + c as usize))
    }

    #[inline]
    fn get(&self, m: Material) -> Option<usize> {
        let slot = self.slots[self.at(m)?];
        (slot != MaterialTable::NONE).then_some(slot as usize)
    }
}

/// The most entries of the memo of resolved results: 2^18, 2 MiB (a
/// 32nd of the cache budget where that is less).
const MEMO_ENTRIES: usize = 1 << 18;

/// How a position with entries in a table is answered.
enum Resolved {
    /// A capture position, from its captures: its value.
    Capture(Value),
    /// A settled threat, asked for its value: from its moves, and its
    /// distance from the `.dtc` file where that lists it.
    ThreatValue(Value),
    /// A settled threat, asked for its result: from its moves.
    Threat(Wdl),
    /// From its entries.
    Stored,
}

/// Where a position's value comes from.
enum Located {
    /// No table needed: a side has no pieces.
    Decided(Value),
    /// The entries of the position `at` in `slice`.
    Entry { slice: usize, at: IndexParts },
}

/// A directory of tables for one game, shared by any number of threads.
///
/// ```no_run
/// use damka::{fen, OpenOptions, Tablebase, Variant, Wdl};
///
/// let tb = Tablebase::open("data/tables", OpenOptions::new(Variant::Russian).cache_bytes(32 << 20))?;
/// let pos = fen::parse("W:WKc3:Bf6", Variant::Russian).unwrap();
/// assert_eq!(tb.probe_wdl(&pos)?, Wdl::Win);
/// # Ok::<(), damka::ProbeError>(())
/// ```
pub struct Tablebase {
    dir: PathBuf,
    variant: Variant,
    slices: Vec<Slice>,
    by_material: MaterialTable,
    max_pieces: u8,
    rules: Option<RuleSetId>,
    /// The rule set the directory's manifest carries.
    rule_set: Option<RuleSet>,
    cache: BlockCache,
    /// Results of "don't care" positions resolved.
    memo: Memo,
}

impl Tablebase {
    /// Lists the tables of `options.variant` in `dir`. Files are mapped and
    /// checked when a probe first needs them; only the header of one table
    /// is read now (to learn the rule set, unless `options.rules` gives it).
    ///
    /// Table files are memory-mapped: they must not be changed or truncated
    /// in place while the tablebase is open (replacing a file by renaming a
    /// new one over it, as `damka generate` does, is fine).
    pub fn open(dir: impl AsRef<Path>, options: OpenOptions) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        let variant = options.variant;
        let mut found: Vec<TableName> = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| ProbeError::io(&dir, e))? {
            let entry = entry.map_err(|e| ProbeError::io(&dir, e))?;
            let Some(name) = entry.file_name().to_str().and_then(|n| n.parse::<TableName>().ok()) else {
                continue;
            };
            if name.variant == variant {
                found.push(name);
            }
        }
        found.sort_by_key(|n| (n.material.pieces(), n.material, kind_number(n.kind)));

        let max_pieces = found.iter().map(|n| n.material.pieces()).max().unwrap_or(0);
        let mut slices: Vec<Slice> = Vec::new();
        let mut by_material = MaterialTable::new(max_pieces);
        for name in &found {
            let at = by_material.at(name.material).expect("within the largest slice");
            if by_material.slots[at] == MaterialTable::NONE {
                by_material.slots[at] = slices.len() as u32;
                slices.push(Slice {
                    material: name.material,
                    index: SliceIndex::new(name.material),
                    tables: [Kind::Wdl, Kind::Distance]
                        .map(|_| TableSlot { present: false, table: OnceLock::new() }),
                });
            }
            slices[by_material.slots[at] as usize].tables[kind_number(name.kind)].present = true;
        }
        // A manifest for another game says nothing about this game's files;
        // one of other rules than those asked for is refused now, not only
        // when a probe first reads a table (some answers read none).
        let manifest = Manifest::read(&dir)?;
        if let Some(m) = manifest.as_ref().filter(|m| m.game == Game::Cheskers) {
            return Err(ProbeError::WrongGame { dir, expected: variant.into(), found: m.game });
        }
        let rule_set = manifest.filter(|m| m.game == Game::Draughts(variant)).map(|m| m.rules);
        if let (Some(expected), Some(carried)) = (&options.rules, &rule_set) {
            let found = RuleSetId { name: carried.name.clone(), hash: carried.hash };
            if *expected != found {
                return Err(ProbeError::WrongRules { path: dir.join(MANIFEST_NAME), expected: expected.clone(), found });
            }
        }
        let carried = rule_set.as_ref().map(|r| RuleSetId { name: r.name.clone(), hash: r.hash });
        let rules = options.rules.or(carried).or_else(|| {
            found.iter().find_map(|name| read_header(&dir.join(name.to_string())).ok()).map(|h| RuleSetId {
                name: h.rules_name,
                hash: h.rules_hash,
            })
        });
        Ok(Tablebase {
            dir,
            variant,
            slices,
            by_material,
            max_pieces,
            rules,
            rule_set,
            cache: BlockCache::new(options.cache_bytes),
            memo: Memo::within(options.cache_bytes, MEMO_ENTRIES),
        })
    }

    /// The game these tables are for.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The directory the tables are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The rule set the tables were built with (`None` only when the
    /// directory holds no readable table). Values from
    /// [`Tablebase::probe_value`] and [`Tablebase::probe_wdl`] are for
    /// fresh counters under this rule set; `none` means pure values.
    pub fn rules(&self) -> Option<&RuleSetId> {
        self.rules.as_ref()
    }

    /// The rule set the directory's manifest carries (`None` for a
    /// directory written before manifests): what [`Tablebase::probe_counters`]
    /// needs, without a rule file beside the tables.
    pub fn rule_set(&self) -> Option<&RuleSet> {
        self.rule_set.as_ref()
    }

    /// The most pieces of any table in the directory.
    pub fn max_pieces(&self) -> u8 {
        self.max_pieces
    }

    /// The slices the directory has any table for, fewest pieces first.
    pub fn materials(&self) -> Vec<Material> {
        self.slices.iter().map(|s| s.material).collect()
    }

    /// The number of the slice of `material` among [`Tablebase::materials`]
    /// (for callers that name slices by number, as the EdAccess interface
    /// does); `None` if the directory has no table for it.
    pub fn slice_number(&self, material: Material) -> Option<usize> {
        self.by_material.get(material)
    }

    /// The indexer of slice number `slice`; `None` past the last slice.
    pub fn slice_index(&self, slice: usize) -> Option<&SliceIndex> {
        self.slices.get(slice).map(|s| &s.index)
    }

    /// Whether every block of slice `slice`'s result table is in the cache
    /// (false for a slice number past the last, or a table not open yet).
    pub fn slice_in_cache(&self, slice: usize) -> bool {
        let Ok(Some(table)) = self.opened_table(slice, Kind::Wdl) else {
            return false;
        };
        (0..table.file.header().blocks as u64).all(|block| self.cache.contains(block_key(slice, Kind::Wdl, block)))
    }

    /// Reads every block of every table file, checking each one's checksum
    /// and values, as a probe would; `each_file` hears of every file with
    /// its failure, if any. Stops early when `abort` says so. Returns the
    /// number of files that failed.
    pub fn check_tables(
        &self,
        mut each_file: impl FnMut(&Path, Option<&ProbeError>),
        abort: impl Fn() -> bool,
    ) -> usize {
        let mut failed = 0;
        for (slice, s) in self.slices.iter().enumerate() {
            for kind in [Kind::Wdl, Kind::Distance].into_iter().filter(|&k| s.tables[kind_number(k)].present) {
                let check = || -> Result<(), ProbeError> {
                    let table = self.table(slice, kind)?;
                    for block in 0..table.file.header().blocks {
                        if abort() {
                            return Ok(());
                        }
                        self.read_block(table, slice, kind, block)?;
                    }
                    Ok(())
                };
                let result = check();
                failed += result.is_err() as usize;
                each_file(&self.table_path(s.material, kind), result.as_ref().err());
                if abort() {
                    return failed;
                }
            }
        }
        failed
    }

    /// Hits, misses and memory of the block cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// The path where the table of `material` and `kind` is expected.
    pub fn table_path(&self, material: Material, kind: Kind) -> PathBuf {
        self.dir.join(TableName { variant: self.variant, material, kind }.to_string())
    }

    /// The result for the side to move, from the `.wdl` tables. A
    /// position whose side to move must capture is resolved by its
    /// captures (the tables do not store it), down to quiet positions.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        let _probe = ProbeScope::enter();
        self.wdl::<Load>(pos)
    }

    /// The result for the side to move and, for a win or a loss, the plies
    /// to the next conversion (capture or promotion) with best play, from
    /// the `.wdl` and `.dtc` tables (captures resolved as in
    /// [`Tablebase::probe_wdl`]). This is the stored value: for fresh
    /// move-limit counters under [`Tablebase::rules`]. Of a slice and its
    /// twin (the other side to move) one takes its distances from the
    /// other (docs/FORMAT.md): there a won or lost quiet position's
    /// distance comes from a search of its moves, about a microsecond with
    /// their blocks cached, so engines probe results in search and values
    /// at the root.
    pub fn probe_value(&self, pos: &Position) -> Result<Value, ProbeError> {
        let _probe = ProbeScope::enter();
        self.value::<Load>(pos)
    }

    /// [`Tablebase::probe_wdl`] only if no file needs reading: every block
    /// the answer needs (those of the slices a capture position's captures
    /// lead to included) is already in the cache, or was read in place by
    /// an ordinary probe lately (then it is decompressed, from memory, into
    /// the cache), and its table open.
    /// [`Cached::NotInCache`] otherwise, having read nothing; an engine's
    /// search can then go on without the answer rather than wait for the
    /// disk.
    pub fn probe_wdl_cached(&self, pos: &Position) -> Result<Cached<Wdl>, ProbeError> {
        Cached::of(self.wdl::<CacheOnly>(pos))
    }

    /// [`Tablebase::probe_value`] only if no file needs reading (its
    /// result and distance blocks are both cached), as
    /// [`Tablebase::probe_wdl_cached`].
    pub fn probe_value_cached(&self, pos: &Position) -> Result<Cached<Value>, ProbeError> {
        Cached::of(self.value::<CacheOnly>(pos))
    }

    fn wdl<A: Access>(&self, pos: &Position) -> Result<Wdl, A::Error> {
        match self.locate(pos)? {
            Located::Decided(v) => Ok(v.wdl),
            Located::Entry { slice, at } => match self.resolve::<A>(pos, slice, at, false)? {
                Resolved::Capture(v) | Resolved::ThreatValue(v) => Ok(v.wdl),
                Resolved::Threat(wdl) => Ok(wdl),
                Resolved::Stored => self.code::<A>(slice, at),
            },
        }
    }

    fn value<A: Access>(&self, pos: &Position) -> Result<Value, A::Error> {
        match self.locate(pos)? {
            Located::Decided(v) => Ok(v),
            Located::Entry { slice, at } => {
                let wdl = match self.resolve::<A>(pos, slice, at, true)? {
                    Resolved::Capture(v) | Resolved::ThreatValue(v) => return Ok(v),
                    // Its distance stored: given when the value is asked
                    // only where the twin's distances come from this slice.
                    Resolved::Threat(wdl) => wdl,
                    Resolved::Stored => self.code::<A>(slice, at)?,
                };
                if wdl == Wdl::Draw {
                    return Ok(Value::DRAW);
                }
                let dtc = A::table(self, slice, Kind::Distance)?;
                if dtc.file.header().distances == Distances::FromTwin && !dtc.file.entry_is_stored(at.index) {
                    if let Some((memo::Kind::FromTwin, v)) = self.memo.get(slice, at.index) {
                        return Ok(v);
                    }
                    let v = Value::new(wdl, self.distance_from_twin::<A>(pos)?);
                    self.memo.put(slice, at.index, memo::Kind::FromTwin, v);
                    return Ok(v);
                }
                Ok(Value::new(wdl, self.entry::<A>(slice, Kind::Distance, at)?))
            }
        }
    }

    /// How the position at `index` of `slice` is answered: a capture
    /// position from the results its captures lead to, a settled threat
    /// from its moves' results, or for the `value` their values (unless
    /// its `.wdl` file lists its result as stored, or its `.dtc` file
    /// stores its distance for the twin), any other position from its
    /// entries.
    fn resolve<A: Access>(&self, pos: &Position, slice: usize, at: IndexParts, value: bool) -> Result<Resolved, A::Error> {
        let index = at.index;
        // What the slice stores. Without its file (missing, damaged, or not
        // open for a conditional probe) a capture position is still
        // answered through its captures, which is its value whatever the
        // file says.
        let wdl = A::table(self, slice, Kind::Wdl);
        let resolution = wdl.as_ref().ok().map(|t| t.file.header().resolution);
        // A slice that stores every result needs no search: a result is its
        // entry, and a capture position's distance follows from it (the
        // capture test costs a fifth of a cached probe among seven kings).
        if resolution == Some(Resolution::NONE) {
            return Ok(match value && has_capture(pos, self.variant) {
                true => Resolved::Capture(resolve::of_best(self.code::<A>(slice, at)?)),
                false => Resolved::Stored,
            });
        }
        // Most quiet positions face no threat and are stored: that test
        // comes before the memo's word, which is seldom in the CPU's cache.
        let capture = has_capture(pos, self.variant);
        if !capture && !is_threatened(pos, self.variant) {
            return Ok(Resolved::Stored);
        }
        // A threat's distance stored for the twin: its result is enough.
        let value = value && A::table(self, slice, Kind::Distance)?.file.header().distances != Distances::ForTwin;
        match self.memo.get(slice, index) {
            Some((memo::Kind::Stored | memo::Kind::FromTwin, _)) => return Ok(Resolved::Stored),
            Some((memo::Kind::Capture, v)) => return Ok(Resolved::Capture(v)),
            Some((memo::Kind::ThreatValue, v)) if value => return Ok(Resolved::ThreatValue(v)),
            Some((_, v)) if !value => return Ok(Resolved::Threat(v.wdl)),
            // A result alone does not answer a value.
            _ => {}
        }
        let mut moves = Vec::new();
        let wdl_after = |after: &Position| self.wdl::<A>(after);
        let captured = match capture {
            false => None,
            // Its result stored; its distance follows from it.
            true if resolution.is_some_and(|r| !r.captures) => Some(resolve::of_best(self.code::<A>(slice, at)?)),
            true => resolve::capture_value(pos, self.variant, &mut moves, |a| wdl_after(a).map(|w| Value::new(w, 0)))?,
        };
        if let Some(v) = captured {
            self.memo.put(slice, index, memo::Kind::Capture, v);
            return Ok(Resolved::Capture(v));
        }
        // A threat needs its slice's file whatever it is.
        let wdl = wdl?;
        if !resolve::is_settled_threat(pos, self.variant, wdl.file.header().resolution, &mut moves)
            || wdl.file.entry_is_stored(index)
        {
            // Remembered too: the next probe of this threat then skips
            // its move generation.
            self.memo.put(slice, index, memo::Kind::Stored, Value::DRAW);
            return Ok(Resolved::Stored);
        }
        if value {
            // The one-ply value, but the distance its `.dtc` file stores
            // (a draw has none to store).
            let one_ply = resolve::threat_value(pos, &moves, |after| self.value::<A>(after))?;
            let v = if one_ply.wdl != Wdl::Draw && A::table(self, slice, Kind::Distance)?.file.entry_is_stored(index) {
                Value::new(one_ply.wdl, self.entry::<A>(slice, Kind::Distance, at)?)
            } else {
                one_ply
            };
            self.memo.put(slice, index, memo::Kind::ThreatValue, v);
            return Ok(Resolved::ThreatValue(v));
        }
        let wdl = resolve::threat_result(pos, self.variant, &moves, wdl_after)?;
        self.memo.put(slice, index, memo::Kind::ThreatResult, Value::new(wdl, 0));
        Ok(Resolved::Threat(wdl))
    }

    /// The distance of `pos`, a quiet position of a slice whose distances
    /// come from its twin and which its `.dtc` file does not list: that of
    /// the best of its moves' values one ply back. Its quiet moves lead to
    /// the twin, which stores every quiet position's distance; a
    /// promotion's value needs only the result.
    fn distance_from_twin<A: Access>(&self, pos: &Position) -> Result<u16, A::Error> {
        let moves = legal_moves(pos, self.variant);
        let best = resolve::best_one_ply_back(moves.iter().map(|m| {
            let after = pos.play(m);
            let value = if m.converts() { Value::new(self.wdl::<A>(&after)?, 0) } else { self.value::<A>(&after)? };
            Ok::<_, A::Error>((value, m.converts()))
        }))?;
        Ok(best.plies.0)
    }

    /// The stored result code of a quiet position.
    #[inline]
    fn code<A: Access>(&self, slice: usize, at: IndexParts) -> Result<Wdl, A::Error> {
        Ok(decode(self.entry::<A>(slice, Kind::Wdl, at)?).wdl)
    }

    /// The result of the game state (`pos` with move-limit `counters`)
    /// under `rules`, which must be the rule set the tables were built
    /// with: exact, or [`Verdict::Ambiguous`] where the stored values
    /// (for fresh counters) cannot decide, never a wrong answer.
    /// Counters no game reaches (the kings-only count above the quiet one)
    /// are an error.
    pub fn probe_counters(&self, pos: &Position, rules: &RuleSet, counters: Counters) -> Result<Verdict, ProbeError> {
        self.check_counters(rules, counters)?;
        Ok(rules.judge(pos, self.probe_value(pos)?, counters))
    }

    /// Every legal move with its value for the mover, best first: wins by
    /// shortest distance, then draws, then losses by longest distance.
    /// Equal moves keep move generation order. Empty when the side to move
    /// cannot move (it has lost). The values are for fresh counters after
    /// each move: under a rule set, [`Tablebase::rank_moves_with_counters`]
    /// says what each move is worth in a game.
    pub fn rank_moves(&self, pos: &Position) -> Result<Vec<RankedMove>, ProbeError> {
        let mut ranked = self
            .successors(pos)?
            .into_iter()
            .map(|(mv, _, after)| RankedMove { mv, value: after.back_one_ply(mv.converts()) })
            .collect::<Vec<_>>();
        ranked.sort_by_key(|r| std::cmp::Reverse(value_order(r.value)));
        Ok(ranked)
    }

    /// Every legal move judged under `rules` (those the tables were built
    /// with) with the counters as they stand after it (see
    /// [`Counters::after`]), best first by verdict, then by stored value.
    /// Empty when the side to move cannot move (it has lost). The same
    /// checks as [`Tablebase::probe_counters`].
    pub fn rank_moves_with_counters(
        &self,
        pos: &Position,
        rules: &RuleSet,
        counters: Counters,
    ) -> Result<Vec<JudgedMove>, ProbeError> {
        self.check_counters(rules, counters)?;
        let mut judged = self
            .successors(pos)?
            .into_iter()
            .map(|(mv, after, stored)| {
                let counters = counters.after(pos, &mv);
                let verdict = rules.judge(&after, stored, counters).negate();
                JudgedMove { mv, counters, verdict, value: stored.back_one_ply(mv.converts()) }
            })
            .collect::<Vec<_>>();
        judged.sort_by_key(|m| std::cmp::Reverse((verdict_order(m.verdict), value_order(m.value))));
        Ok(judged)
    }

    /// Every legal move, the position it leads to and that position's
    /// stored value.
    fn successors(&self, pos: &Position) -> Result<Vec<(Move, Position, Value)>, ProbeError> {
        let _probe = ProbeScope::enter();
        legal_moves(pos, self.variant)
            .into_iter()
            .map(|mv| {
                let after = pos.play(&mv);
                Ok((mv, after, self.probe_value(&after)?))
            })
            .collect()
    }

    /// Counters a game can reach, and the rule set the tables were built with.
    pub(crate) fn check_counters(&self, rules: &RuleSet, counters: Counters) -> Result<(), ProbeError> {
        if !counters.is_possible() {
            return Err(ProbeError::ImpossibleCounters { quiet: counters.quiet, kings_only: counters.kings_only });
        }
        let given = RuleSetId { name: rules.name.clone(), hash: rules.hash };
        match self.rules() {
            Some(found) if *found != given => {
                Err(ProbeError::WrongRules { path: self.dir.clone(), expected: given, found: found.clone() })
            }
            _ => Ok(()),
        }
    }

    fn locate(&self, pos: &Position) -> Result<Located, ProbeError> {
        let pos = resolve::white_to_move(pos);
        let material = Material::of(&pos);
        if material.own_kings + material.own_men == 0 {
            return Ok(Located::Decided(Value::new(Wdl::Loss, 0)));
        }
        if material.opp_kings + material.opp_men == 0 {
            return Ok(Located::Decided(Value::new(Wdl::Win, 0)));
        }
        let Some(slice) = self.by_material.get(material) else {
            return Err(self.missing(material, Kind::Wdl));
        };
        let at = self.slices[slice].index.parts_unchecked(&pos);
        Ok(Located::Entry { slice, at })
    }

    fn missing(&self, material: Material, kind: Kind) -> ProbeError {
        if self.slices.is_empty() {
            ProbeError::NoTables { dir: self.dir.clone(), variant: self.variant }
        } else if material.pieces() > self.max_pieces {
            ProbeError::TooManyPieces { pieces: material.pieces(), max: self.max_pieces }
        } else {
            ProbeError::MissingTable { material, kind: kind_name(kind), path: self.table_path(material, kind) }
        }
    }

    /// The raw entry (result code or distance) at `index`.
    #[inline]
    fn entry<A: Access>(&self, slice: usize, kind: Kind, at: IndexParts) -> Result<u16, A::Error> {
        let table = A::table(self, slice, kind)?;
        let (block, at) = table.locate(at);
        let key = block_key(slice, kind, block);
        let load = || self.read_block(table, slice, kind, block as u32);
        match kind {
            // Blocks stay packed in the cache: a third of the memory. A code
            // is a digit of a byte of one of three planes of a power of two
            // bytes (format::pack_codes).
            Kind::Wdl => {
                let plane = table.file.header().block_positions as usize / 3;
                let in_place = |cursor: Option<&mut RunCursor>| {
                    table.file.code_at(block as u32, at, cursor).map(u16::from).map_err(|e| self.damaged(slice, kind, e))
                };
                match A::entry(&self.cache, key, (at & (plane - 1), 1), load, Some((plane, in_place)))? {
                    Read::FromBlock(byte) => Ok(packed_code(byte as u8, at >> plane.trailing_zeros()) as u16),
                    Read::InPlace(code) => Ok(code),
                }
            }
            // zstd frames: read whole.
            Kind::Distance => {
                let width = table.file.header().entry_bytes as usize;
                let in_place = None::<(usize, fn(Option<&mut RunCursor>) -> Result<u16, ProbeError>)>;
                match A::entry(&self.cache, key, (at * width, width), load, in_place)? {
                    Read::FromBlock(entry) | Read::InPlace(entry) => Ok(entry),
                }
            }
        }
    }

    /// Block `block` of `table` (of `slice` and `kind`), decompressed,
    /// packed as stored, and checked.
    fn read_block(&self, table: &Table, slice: usize, kind: Kind, block: u32) -> Result<Box<[u8]>, ProbeError> {
        table.file.read_checked(block).map_err(|e| self.damaged(slice, kind, e))
    }

    fn damaged(&self, slice: usize, kind: Kind, e: FormatError) -> ProbeError {
        ProbeError::damaged(&self.table_path(self.slices[slice].material, kind), e)
    }

    /// The table of `slice` and `kind`, opened and checked on first use.
    #[inline]
    fn table(&self, slice: usize, kind: Kind) -> Result<&Table, ProbeError> {
        let (s, slot) = self.table_slot(slice, kind)?;
        slot.table.get_or_init(|| self.open_table(s, kind)).as_ref().map_err(Clone::clone)
    }

    /// The table of `slice` and `kind` if it is open already: opening
    /// reads the file.
    #[inline]
    fn opened_table(&self, slice: usize, kind: Kind) -> Result<Option<&Table>, ProbeError> {
        let (_, slot) = self.table_slot(slice, kind)?;
        slot.table.get().map(|t| t.as_ref().map_err(Clone::clone)).transpose()
    }

    #[inline]
    fn table_slot(&self, slice: usize, kind: Kind) -> Result<(&Slice, &TableSlot), ProbeError> {
        let s = &self.slices[slice];
        let slot = &s.tables[kind_number(kind)];
        if !slot.present {
            return Err(self.missing(s.material, kind));
        }
        Ok((s, slot))
    }

    fn open_table(&self, slice: &Slice, kind: Kind) -> Result<Table, ProbeError> {
        let path = self.table_path(slice.material, kind);
        let file = TableFile::new(MappedFile::open(&path).map_err(|e| ProbeError::io(&path, e))?)
            .map_err(|e| ProbeError::damaged(&path, e))?;
        let h = file.header();
        if h.slice.game() != Game::Draughts(self.variant) {
            return Err(ProbeError::WrongVariant { path, expected: self.variant.into(), found: h.slice.game() });
        }
        let found = RuleSetId { name: h.rules_name.clone(), hash: h.rules_hash };
        if let Some(expected) = &self.rules {
            if *expected != found {
                return Err(ProbeError::WrongRules { path, expected: expected.clone(), found });
            }
        }
        let bad = |why| Err(ProbeError::damaged(&path, FormatError::BadHeader(why)));
        if h.slice != TableSlice::Draughts(self.variant, slice.material) {
            return bad("material does not match the file name");
        }
        if h.kind != kind {
            return bad("value kind does not match the file name");
        }
        if h.positions != slice.index.size() {
            return bad("position count does not match the slice");
        }
        if h.distances == Distances::FromTwin {
            // Else the twin's settled threats would resolve through this
            // slice's distances and this slice's through the twin's, with
            // no end.
            let twin = self.table_path(slice.material.swap(), kind);
            match read_header(&twin) {
                Ok(t) if t.distances == Distances::ForTwin => {}
                Ok(_) => return bad("takes distances from a twin that does not store them for it"),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(self.missing(slice.material.swap(), kind)),
                Err(e) => return Err(ProbeError::io(&twin, e)),
            }
        }
        let block_positions = h.block_positions as u64;
        let block_shift = block_positions.is_power_of_two().then(|| block_positions.trailing_zeros());
        let layout = h.layout();
        Ok(Table { file, layout, block_positions, block_shift })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_table_is_called_outdated_and_a_broken_one_damaged() {
        let path = Path::new("t/russian-KvK.wdl");
        let old = ProbeError::damaged(path, FormatError::Version(4)).to_string();
        assert!(old.starts_with("outdated table t/russian-KvK.wdl: format version 4") && old.contains("damka generate"), "{old}");
        let broken = ProbeError::damaged(path, FormatError::BlockDecompress(2)).to_string();
        assert_eq!(broken, "damaged table t/russian-KvK.wdl, block 2: block 2: cannot decompress");
        let group = ProbeError::damaged(path, FormatError::GroupChecksum { first: 16, last: 31 }).to_string();
        assert_eq!(group, "damaged table t/russian-KvK.wdl: blocks 16-31: checksum mismatch (the block index checks them together)");
    }

    #[test]
    fn table_names_round_trip() {
        let name = TableName { variant: Variant::Russian, material: "KKMvK".parse().unwrap(), kind: Kind::Distance };
        assert_eq!(name.to_string(), "russian-KKMvK.dtc");
        assert_eq!("russian-KKMvK.dtc".parse(), Ok(name));
        for bad in ["russian-KKMvK.tmp", "KKMvK.wdl", "chess-KvK.wdl", "russian-Kv.wdl", "russian-KvK"] {
            assert!(bad.parse::<TableName>().is_err(), "{bad}");
        }
    }

    #[test]
    fn values_order_best_first() {
        let order = [
            Value::new(Wdl::Win, 1),
            Value::new(Wdl::Win, 9),
            Value::new(Wdl::CursedWin, 3),
            Value::DRAW,
            Value::new(Wdl::BlessedLoss, 2),
            Value::new(Wdl::Loss, 12),
            Value::new(Wdl::Loss, 0),
        ];
        for pair in order.windows(2) {
            assert!(value_order(pair[0]) > value_order(pair[1]), "{pair:?}");
        }
    }

    #[test]
    fn tablebase_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Tablebase>();
    }
}
