//! What a table directory holds: the slices it has files for, read from the
//! file names (`<variant>-<material>.<wdl|dtc>`, see
//! [`crate::writer::table_path`]), and the loading of one slice's values:
//! result codes from the `.wdl` file, distances from the `.dtc` file, and
//! the "don't care" entries resolved: capture positions from the slices
//! their captures lead to, settled threats from the slices their moves
//! lead to ([`resolve_dont_cares`]).
//!
//! Shared by `damka verify`, `damka stats` and the resumption of
//! `damka generate`. Loading goes through the probe crate's file reader and
//! capture resolution only, so what these commands see is what an engine
//! would see.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use damka::format::{packed_code, Distances, FormatError, Header, Kind, TableFile};
use damka::movegen::{generate, has_capture, Routes};
use damka::layout::EntryLayout;
use damka::resolve::{capture_value, is_settled_threat, of_best, threat_result, threat_value, white_to_move, PositionCache, Resolution};
use damka::{Material, SliceIndex, TableName, Value, Variant, Wdl};
use rayon::prelude::*;

use crate::graph;
use crate::kept::SliceValues;
use crate::solver::{Captures, Solved};
use crate::writer::table_path;

/// One slice of one variant that has at least one file in the directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SliceId {
    pub variant: Variant,
    pub material: Material,
}

impl SliceId {
    pub fn path(&self, dir: &Path, kind: Kind) -> PathBuf {
        table_path(dir, self.variant, self.material, kind)
    }

    /// The name of the slice's file of `kind`.
    pub fn table(&self, kind: Kind) -> TableName {
        TableName { variant: self.variant, material: self.material, kind }
    }
}

/// The table a file's header describes, when that is not the one the
/// file's name stands for (a file copied or renamed by hand): its values
/// read under that name would be another slice's.
pub fn misnamed(header: &Header, name: impl std::fmt::Display) -> Option<String> {
    let described = header.slice.file_name(header.kind);
    (described != name.to_string()).then_some(described)
}

impl std::fmt::Display for SliceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.variant, self.material)
    }
}

/// The slices with files in `dir` (of `variant` only, if given), in
/// dependency order within each variant: fewer pieces first, then fewer
/// men, a slice next to its colour-swapped twin.
pub fn slices(dir: &Path, variant: Option<Variant>) -> Result<Vec<SliceId>> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    let mut found = BTreeSet::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(parse_name) else { continue };
        if variant.is_none_or(|v| v == id.variant) {
            found.insert(id);
        }
    }
    let mut out: Vec<SliceId> = found.into_iter().collect();
    out.sort_by_key(|id| {
        let m = id.material;
        (id.variant.id(), m.pieces(), m.men(), m.min(m.swap()), m)
    });
    Ok(out)
}

/// The slice a table file name stands for; `None` for any other file.
fn parse_name(name: &str) -> Option<SliceId> {
    let name: TableName = name.parse().ok()?;
    Some(SliceId { variant: name.variant, material: name.material })
}

/// Why a table file could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The file does not exist.
    Missing,
    /// The file exists but cannot be read.
    Io(std::io::Error),
    /// The header or the block index is bad.
    Header(FormatError),
    /// One or more blocks fail their checksum or do not decompress (every
    /// bad block or group of blocks, in order).
    Blocks(Vec<FormatError>),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Missing => f.write_str("missing"),
            LoadError::Io(e) => write!(f, "cannot read: {e}"),
            LoadError::Header(e) => write!(f, "{e}"),
            LoadError::Blocks(errors) => {
                let all: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                f.write_str(&all.join("; "))
            }
        }
    }
}

/// A whole table file, every block decompressed and checked.
pub struct Loaded {
    pub header: Header,
    /// The raw entries of all blocks, in index order.
    pub raw: Vec<u8>,
    /// The settled threats whose entry is stored, by index.
    pub stored_entries: Vec<u64>,
}

impl Loaded {
    /// The entry at `i`: a result code (`.wdl`) or a distance (`.dtc`).
    #[inline]
    pub fn entry(&self, i: usize) -> u16 {
        match self.header.entry_bytes {
            1 => self.raw[i] as u16,
            _ => u16::from_le_bytes([self.raw[2 * i], self.raw[2 * i + 1]]),
        }
    }
}

/// A slice's `.wdl` codes and `.dtc` distances as packed values, capture
/// positions not yet resolved (they hold whatever the files hold). Codes
/// out of range stay as they are (5..7), for the caller to report.
pub fn combine(wdl: &Loaded, dtc: &Loaded) -> Vec<u16> {
    (0..wdl.raw.len())
        .into_par_iter()
        .with_min_len(1 << 14)
        .map(|i| packed_at(wdl, dtc, i))
        .collect()
}

/// The packed value at `i` of a slice's files: its result code, with its
/// distance unless it is a draw (whose `.dtc` entry is "don't care").
fn packed_at(wdl: &Loaded, dtc: &Loaded, i: usize) -> u16 {
    let code = wdl.raw[i] as u16;
    if code == 0 {
        0
    } else {
        (dtc.entry(i) << 3) | code
    }
}

/// `lookup`, remembering the last slice it found: the moves of a run of
/// positions lead to few slices, and hashing a material for every move
/// showed in profiles of writing and of reading slices back.
pub fn remembering_last<T: Copy>(lookup: impl Fn(Material) -> Option<T>) -> impl Fn(Material) -> Option<T> {
    let last: Cell<Option<(Material, T)>> = Cell::new(None);
    move |m| match last.get() {
        Some((at, found)) if at == m => Some(found),
        _ => {
            let found = lookup(m)?;
            last.set(Some((m, found)));
            Some(found)
        }
    }
}

/// What a slice is read back for: every value (verify, stats), or its
/// results alone (the pairs after it keep nothing else): those a settled
/// threat's moves give without their distances, so its search stops at
/// the first win and reads no `.dtc` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    Values,
    Results,
}

/// What resolving a slice's settled threats reads: its `.wdl` file, its
/// `.dtc` file where values are wanted, and both files of every other
/// slice their moves lead to, as deep as a settled threat lies
/// ([`graph::threats_reach`]).
pub struct Threats<'a> {
    pub wdl: &'a Loaded,
    pub dtc: Option<&'a Loaded>,
    pub reached: &'a [ReachedSlice],
}

/// A slice that the moves of another's settled threats reach: its files
/// kept compressed and read block by block as their entries are needed
/// (decompressing them whole would make reading a 7-piece slice back need
/// several slices' worth of memory more).
pub struct ReachedSlice {
    index: SliceIndex,
    files: [TableFile<Vec<u8>>; 2],
    layouts: [EntryLayout; 2],
    paths: [PathBuf; 2],
}

impl ReachedSlice {
    /// Opens both files of `id`, checking their headers (not yet their
    /// blocks: those are checked when read).
    pub fn open(dir: &Path, id: SliceId) -> Result<ReachedSlice> {
        let index = SliceIndex::new(id.material);
        let open = |kind| -> Result<(TableFile<Vec<u8>>, PathBuf)> {
            let path = id.path(dir, kind);
            let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let file = TableFile::new(bytes).map_err(|e| anyhow!("{}: {e}", path.display()))?;
            check_header(file.header(), &path, id, kind, &index)?;
            Ok((file, path))
        };
        let ((wdl, wdl_path), (dtc, dtc_path)) = (open(Kind::Wdl)?, open(Kind::Distance)?);
        let layouts = [wdl.header().layout(), dtc.header().layout()];
        Ok(ReachedSlice { index, files: [wdl, dtc], layouts, paths: [wdl_path, dtc_path] })
    }
}

/// Fails where the header of `id`'s file of `kind` (at `path`) describes
/// another table, or another number of positions than the slice has.
fn check_header(header: &Header, path: &Path, id: SliceId, kind: Kind, index: &SliceIndex) -> Result<()> {
    if let Some(described) = misnamed(header, id.table(kind)) {
        bail!("{}: the header describes {described}", path.display());
    }
    if header.positions != index.size() {
        bail!("{}: {} positions in the header, the slice has {}", path.display(), header.positions, index.size());
    }
    Ok(())
}

/// Sets every "don't care" position of a slice (`index`, packed `values`)
/// to its value: a capture position's from its captures, reading the
/// slices they lead to through `lookup`, and a settled threat's from its
/// moves and the entries its files list as stored (`threats`); without
/// `threats.dtc`, results alone (the distances left are not to be read). Returns which positions
/// must capture. Fails naming a slice `lookup` does not have, or a damaged
/// block of a slice the threats reach.
pub fn resolve_dont_cares<'a>(
    index: &SliceIndex,
    values: &mut [u16],
    variant: Variant,
    lookup: &(dyn Fn(Material) -> Option<SliceValues<'a>> + Sync),
    threats: &Threats,
) -> Result<Captures> {
    const CHUNK: usize = 1 << 14;
    let from_twin = threats.dtc.is_some_and(|dtc| dtc.header.distances == Distances::FromTwin);
    let resolution = threats.wdl.header.resolution;
    let words: Vec<Vec<u64>> = values
        .par_chunks_mut(CHUNK)
        .enumerate()
        // The blocks read, and the replies resolved, stay for the chunks
        // that follow on the thread.
        .map_init(|| (RefCell::new(vec![None; BLOCK_SLOTS]), RefCell::default()), |(blocks, replies), (c, chunk)| {
            let mut moves = Vec::new();
            let mut words = vec![0u64; chunk.len().div_ceil(64)];
            let lookup = remembering_last(lookup);
            let resolver = Resolver { variant, own: index, lookup: &lookup, threats, blocks, replies };
            let start = (c * CHUNK) as u64;
            let positions = index.positions(start..start + chunk.len() as u64);
            for ((i, v), pos) in chunk.iter_mut().enumerate().zip(positions) {
                let at = (c * CHUNK + i) as u64;
                let captured = if resolution.captures {
                    capture_value(&pos, variant, &mut moves, |a| resolver.captured(a))?
                } else {
                    // Its result stored; its distance follows from it.
                    has_capture(&pos, variant).then(|| of_best(result_of(*v & 7)))
                };
                if let Some(value) = captured {
                    *v = value.pack();
                    words[i / 64] |= 1 << (i % 64);
                } else if is_settled_threat(&pos, variant, resolution, &mut moves) {
                    *v = match threats.dtc {
                        Some(_) => resolver.threat(&pos, &moves, Slice::Own, at)?,
                        None => Value::new(resolver.threat_result(&pos, &moves, Slice::Own, at)?, 0),
                    }
                    .pack();
                } else if from_twin && *v & 7 != 0 && !resolver.is_stored(Slice::Own, 1, at)? {
                    generate(&pos, variant, Routes::Merge, &mut moves);
                    let one_ply = threat_value(&pos, &moves, |a| resolver.reply(a))?;
                    *v = (one_ply.plies.0 << 3) | (*v & 7);
                }
            }
            Ok(words)
        })
        .collect::<Result<_>>()?;
    Ok(Captures::from_words(words.concat()))
}

/// The result a `.wdl` code stands for (codes are checked when read).
fn result_of(code: u16) -> Wdl {
    Value::unpack(code).map_or(Wdl::Draw, |v| v.wdl)
}

/// Where a settled threat's move leads: the slice being read, or one of
/// the others its threats reach (an index into [`Threats::reached`]).
#[derive(Clone, Copy)]
enum Slice {
    Own,
    Reached(usize),
}

/// Blocks of the reached slices' files a resolver has decompressed, each
/// with its slice, file (0: `.wdl`, 1: `.dtc`) and block, in
/// [`BLOCK_SLOTS`] slots that each hold the last block hashed to it: the
/// moves of a run of positions stay in few blocks.
type Blocks = Vec<Option<((usize, usize, u32), Box<[u8]>)>>;
const BLOCK_SLOTS: usize = 2048;

/// The values of the positions a settled threat's moves lead to: from the
/// resolved values `lookup` gives where they capture, from the entries of
/// the files where they are quiet, and from their own moves where they are
/// settled threats in turn.
struct Resolver<'r, 'a> {
    variant: Variant,
    own: &'r SliceIndex,
    lookup: &'r dyn Fn(Material) -> Option<SliceValues<'a>>,
    threats: &'r Threats<'r>,
    blocks: &'r RefCell<Blocks>,
    replies: &'r RefCell<Replies>,
}

/// The replies a resolver found last: the searches of neighbouring
/// settled threats reach many of the same positions, and resolving
/// replies took most of the time of reading a 6-piece slice back.
#[derive(Default)]
struct Replies {
    values: PositionCache<Value>,
    results: PositionCache<Wdl>,
}

impl Resolver<'_, '_> {
    /// A position a capture leads to: the resolved value of its slice.
    fn captured(&self, after: &damka::Position) -> Result<Value> {
        let after = white_to_move(after);
        let m = Material::of(&after);
        let (index, values) = (self.lookup)(m).ok_or_else(|| self.missing(m))?;
        Ok(values.get(index.index_unchecked(&after)).unwrap_or(Value::DRAW))
    }

    fn missing(&self, m: Material) -> anyhow::Error {
        let v = self.variant;
        anyhow!("{v}-{}: its moves lead to {v}-{m}, which is missing or unreadable", self.own.material())
    }

    /// A position a quiet move leads to. Where the distances of its slice
    /// come from the twin the distance is whatever the file holds: only a
    /// settled threat of the twin asks, for its result alone.
    fn reply(&self, after: &damka::Position) -> Result<Value> {
        self.remembered(after, |r| &mut r.values, || self.reply_afresh(after))
    }

    /// What `kept` of the replies holds for `after`, else `afresh()`, kept.
    fn remembered<T: Copy>(
        &self,
        after: &damka::Position,
        kept: fn(&mut Replies) -> &mut PositionCache<T>,
        afresh: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        if let Some(known) = kept(&mut self.replies.borrow_mut()).get(after) {
            return Ok(known);
        }
        let found = afresh()?;
        kept(&mut self.replies.borrow_mut()).put(after, found);
        Ok(found)
    }

    fn reply_afresh(&self, after: &damka::Position) -> Result<Value> {
        let mut moves = Vec::new();
        if let Some(v) = capture_value(after, self.variant, &mut moves, |a| self.captured(a))? {
            return Ok(v);
        }
        let (after, slice, at) = self.locate(after)?;
        if is_settled_threat(&after, self.variant, self.resolution(slice), &mut moves) {
            return self.threat(&after, &moves, slice, at);
        }
        let code = self.entry(slice, 0, at)?;
        Ok(if code == 0 { Value::DRAW } else { Value::unpack((self.entry(slice, 1, at)? << 3) | code).unwrap_or(Value::DRAW) })
    }

    /// [`Resolver::reply`]'s result alone.
    fn reply_result(&self, after: &damka::Position) -> Result<Wdl> {
        self.remembered(after, |r| &mut r.results, || self.reply_result_afresh(after))
    }

    fn reply_result_afresh(&self, after: &damka::Position) -> Result<Wdl> {
        let mut moves = Vec::new();
        if let Some(v) = capture_value(after, self.variant, &mut moves, |a| self.captured(a))? {
            return Ok(v.wdl);
        }
        let (after, slice, at) = self.locate(after)?;
        if is_settled_threat(&after, self.variant, self.resolution(slice), &mut moves) {
            return self.threat_result(&after, &moves, slice, at);
        }
        Ok(result_of(self.entry(slice, 0, at)?))
    }

    /// A quiet position a move leads to, White to move, with its slice and
    /// index.
    fn locate(&self, after: &damka::Position) -> Result<(damka::Position, Slice, u64)> {
        let after = white_to_move(after);
        let m = Material::of(&after);
        let (slice, index) = if m == self.own.material() {
            (Slice::Own, self.own)
        } else {
            let r = self.threats.reached.iter().position(|r| r.index.material() == m).ok_or_else(|| self.missing(m))?;
            (Slice::Reached(r), &self.threats.reached[r].index)
        };
        let at = index.index_unchecked(&after);
        Ok((after, slice, at))
    }

    /// [`Resolver::threat`]'s result alone: what the `.wdl` file stores, or
    /// the best of its moves' results.
    fn threat_result(&self, pos: &damka::Position, moves: &[damka::Move], slice: Slice, at: u64) -> Result<Wdl> {
        if self.is_stored(slice, 0, at)? {
            return Ok(result_of(self.entry(slice, 0, at)?));
        }
        threat_result(pos, self.variant, moves, |a| self.reply_result(a))
    }

    /// Settled threat `pos` (with legal `moves`) at `at` of `slice`: from
    /// its moves, but what its files list as stored.
    fn threat(&self, pos: &damka::Position, moves: &[damka::Move], slice: Slice, at: u64) -> Result<Value> {
        let one_ply = threat_value(pos, moves, |a| self.reply(a))?;
        let result = if self.is_stored(slice, 0, at)? {
            result_of(self.entry(slice, 0, at)?)
        } else {
            one_ply.wdl
        };
        Ok(match result {
            Wdl::Draw => Value::DRAW,
            result if self.is_stored(slice, 1, at)? || self.distances(slice)? == Distances::ForTwin => {
                Value::new(result, self.entry(slice, 1, at)?)
            }
            _ => one_ply,
        })
    }

    /// What `slice` leaves "don't care".
    fn resolution(&self, slice: Slice) -> Resolution {
        match slice {
            Slice::Own => self.threats.wdl.header.resolution,
            Slice::Reached(r) => self.threats.reached[r].files[0].header().resolution,
        }
    }

    /// Where the distances of `slice` come from.
    fn distances(&self, slice: Slice) -> Result<Distances> {
        Ok(match slice {
            Slice::Own => self.own_file(1)?.header.distances,
            Slice::Reached(r) => self.threats.reached[r].files[1].header().distances,
        })
    }

    fn is_stored(&self, slice: Slice, file: usize, at: u64) -> Result<bool> {
        Ok(match slice {
            Slice::Own => self.own_file(file)?.stored_entries.binary_search(&at).is_ok(),
            Slice::Reached(r) => self.threats.reached[r].files[file].entry_is_stored(at),
        })
    }

    /// The slice's own `.wdl` (`file` 0) or `.dtc` (1), if read.
    fn own_file(&self, file: usize) -> Result<&Loaded> {
        match file {
            0 => Ok(self.threats.wdl),
            _ => self.threats.dtc.ok_or_else(|| anyhow!("{}-{}: distances asked of a read for results", self.variant, self.own.material())),
        }
    }

    /// The entry at `at` of `slice`'s `.wdl` (`file` 0) or `.dtc` (1).
    fn entry(&self, slice: Slice, file: usize, at: u64) -> Result<u16> {
        let r = match slice {
            Slice::Own => return Ok(self.own_file(file)?.entry(at as usize)),
            Slice::Reached(r) => r,
        };
        let reached = &self.threats.reached[r];
        let table = &reached.files[file];
        let (width, per_block) = (table.header().entry_bytes as usize, table.header().block_positions as u64);
        let slot = reached.layouts[file].slot(at);
        let (block, i) = ((slot / per_block) as u32, (slot % per_block) as usize * width);
        let key = (r, file, block);
        let mut blocks = self.blocks.borrow_mut();
        let slot = &mut blocks[(block as usize * 4 + r * 2 + file) % BLOCK_SLOTS];
        let raw = match slot {
            Some((held, raw)) if *held == key => raw,
            _ => {
                // Result codes stay packed three to a byte, as probes keep
                // them: unpacking a whole block for the few entries a
                // threat reads took more time than the rest of reading back.
                let raw = table.read_checked(block).map_err(|e| {
                    let (v, own, m) = (self.variant, self.own.material(), reached.index.material());
                    anyhow!("{v}-{own}: its moves lead to {m}: {}: {e}", reached.paths[file].display())
                })?;
                &mut slot.insert((key, raw)).1
            }
        };
        Ok(match (table.header().kind, width) {
            (Kind::Wdl, _) => {
                let plane = raw.len();
                u16::from(packed_code(raw[i % plane], i / plane))
            }
            (_, 1) => raw[i] as u16,
            _ => u16::from_le_bytes([raw[i], raw[i + 1]]),
        })
    }
}

/// Reads a slice's files and resolves its "don't care" entries from the
/// slices `lookup` gives: the values the solver found (or, for
/// [`Want::Results`], its results, without reading its `.dtc` file: the
/// distances left are not to be read), and the `.wdl` file's header.
pub fn read_slice<'a>(
    dir: &Path,
    id: SliceId,
    lookup: &(dyn Fn(Material) -> Option<SliceValues<'a>> + Sync),
    want: Want,
) -> Result<(Solved, Header)> {
    let index = SliceIndex::new(id.material);
    let read = |kind| {
        let path = id.path(dir, kind);
        load(&path).map_err(|e| anyhow!("{}: {e}", path.display()))
    };
    // Both files read before either header is judged: a missing file is
    // the first thing to say.
    let wdl = read(Kind::Wdl)?;
    let dtc = match want {
        Want::Values => Some(read(Kind::Distance)?),
        Want::Results => None,
    };
    check_header(&wdl.header, &id.path(dir, Kind::Wdl), id, Kind::Wdl, &index)?;
    if let Some(dtc) = &dtc {
        check_header(&dtc.header, &id.path(dir, Kind::Distance), id, Kind::Distance, &index)?;
        if dtc.header.resolution != wdl.header.resolution {
            bail!("{}: leaves other entries don't care than its .wdl file", id.path(dir, Kind::Distance).display());
        }
    }
    if let Some(i) = wdl.raw.iter().position(|&c| c >= 5) {
        bail!("{}: entry {i} is not a result code", id.path(dir, Kind::Wdl).display());
    }
    let mut values = match &dtc {
        Some(dtc) => combine(&wdl, dtc),
        None => wdl.raw.par_iter().with_min_len(1 << 14).map(|&c| c as u16).collect(),
    };
    let reached: Vec<ReachedSlice> = graph::threats_reach(id.material)
        .iter()
        .filter(|&&m| m != id.material)
        .map(|&m| ReachedSlice::open(dir, SliceId { variant: id.variant, material: m }).with_context(|| format!("{id}: its moves lead to {m}")))
        .collect::<Result<_>>()?;
    if dtc.as_ref().is_some_and(|d| d.header.distances == Distances::FromTwin) {
        let twin = reached.iter().find(|r| r.index.material() == id.material.swap());
        if twin.is_none_or(|t| t.files[1].header().distances != Distances::ForTwin) {
            bail!("{}: takes distances from its twin, which does not store them for it", id.path(dir, Kind::Distance).display());
        }
    }
    let threats = Threats { wdl: &wdl, dtc: dtc.as_ref(), reached: &reached };
    let captures = resolve_dont_cares(&index, &mut values, id.variant, lookup, &threats)?;
    Ok((Solved { index, values, captures }, wdl.header))
}

/// Reads `path` and decompresses every block, checking the header and each
/// block's checksum.
pub fn load(path: &Path) -> Result<Loaded, LoadError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LoadError::Missing),
        Err(e) => return Err(LoadError::Io(e)),
    };
    let file = TableFile::new(bytes).map_err(LoadError::Header)?;
    let blocks: Vec<Result<Vec<u8>, FormatError>> =
        (0..file.header().blocks).into_par_iter().map(|b| file.read_block(b)).collect();
    let mut raw = Vec::with_capacity(file.header().positions as usize * file.header().entry_bytes as usize);
    let mut bad = Vec::new();
    for block in blocks {
        match block {
            Ok(r) => raw.extend_from_slice(&r),
            Err(e) => bad.push(e),
        }
    }
    // The blocks of a group that fails its checksum all say so.
    bad.dedup();
    if !bad.is_empty() {
        return Err(LoadError::Blocks(bad));
    }
    let header = file.header().clone();
    let raw = in_index_order(&header, raw);
    Ok(Loaded { header, raw, stored_entries: file.stored_entries().to_vec() })
}

/// A file's entries (`raw`, as the file orders them) in index order; as
/// they are where the header's position count is not the slice's (the
/// caller reports that).
fn in_index_order(header: &Header, raw: Vec<u8>) -> Vec<u8> {
    let layout = header.layout();
    if layout.positions() != Some(header.positions) {
        return raw;
    }
    let width = header.entry_bytes as usize;
    let mut ordered = vec![0; raw.len()];
    ordered.par_chunks_mut(width).enumerate().for_each(|(i, entry)| {
        let slot = layout.slot(i as u64) as usize * width;
        entry.copy_from_slice(&raw[slot..slot + width]);
    });
    ordered
}
