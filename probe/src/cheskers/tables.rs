//! Cheskers tables: reading them (docs/FORMAT.md, "Cheskers").
//!
//! A directory of Cheskers tables holds `cheskers-<material>.wdl` and
//! `.dtc` for each stored slice, and a manifest that says `cheskers` and
//! rule set `none`: the game has no move limits, so values are pure.
//! Every position of a slice is stored: no position is "don't care" in
//! `.wdl`; a draw's distance in `.dtc` is, as in draughts tables. Decoded blocks
//! stay in memory for the life of the [`Tables`]: open a new one to let
//! them go.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::directory::Manifest;
use crate::format::{FormatError, Kind as TableKind, TableFile, TableSlice};
use crate::game::Game;
use crate::mmap::MappedFile;
use crate::probe::ProbeError;
use crate::value::value_order;
use crate::rules::RuleSet;
use crate::value::{Value, Wdl};

use super::{legal_moves, Kind, Material, Move, Position, Rules, SliceIndex};

/// The rule set of every Cheskers table: none (pure values).
pub const RULES: &str = "none";

/// Why a Cheskers probe has no answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TablesError {
    #[error("no Cheskers table for {material}: expected {}", path.display())]
    MissingTable { material: Material, path: PathBuf },
    #[error("{pieces} pieces on the board; the tables hold at most {max}")]
    TooManyPieces { pieces: u8, max: u8 },
    /// Reading a file failed, or the directory is another game's.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

/// The file of a Cheskers table: `cheskers-KBvKC.wdl`.
pub fn table_path(dir: &Path, material: Material, kind: TableKind) -> PathBuf {
    dir.join(format!("{}-{material}.{}", Game::Cheskers, kind.extension()))
}

/// The slice a file name stands for, if it names a Cheskers table.
pub fn parse_table_name(name: &str) -> Option<(Material, TableKind)> {
    let (stem, ext) = name.rsplit_once('.')?;
    let kind = [TableKind::Wdl, TableKind::Distance].into_iter().find(|k| k.extension() == ext)?;
    let material: Material = stem.strip_prefix("cheskers-")?.parse().ok()?;
    material.is_stored().then_some((material, kind))
}

/// One table file and its blocks as they are decoded.
struct Table {
    file: TableFile<MappedFile>,
    blocks: Vec<OnceLock<Vec<u8>>>,
}

struct Slice {
    index: SliceIndex,
    /// `.wdl` then `.dtc`.
    tables: [Table; 2],
}

/// The Cheskers tables of a directory.
pub struct Tables {
    dir: PathBuf,
    slices: HashMap<Material, Slice>,
    max_pieces: u8,
}

impl Tables {
    /// Opens every Cheskers table of `dir`, checking each header against
    /// its file name and the directory's manifest (which must say
    /// Cheskers, if there is one). Blocks are read when a probe needs them.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tables, TablesError> {
        let dir = dir.as_ref().to_path_buf();
        if let Some(m) = Manifest::read(&dir).map_err(ProbeError::from)? {
            if m.game != Game::Cheskers {
                return Err(ProbeError::WrongGame { dir, expected: Game::Cheskers, found: m.game }.into());
            }
        }
        let none = RuleSet::preset(RULES).expect("the preset none exists");
        let mut found: Vec<Material> = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| ProbeError::io(&dir, e))? {
            let entry = entry.map_err(|e| ProbeError::io(&dir, e))?;
            if let Some((material, TableKind::Wdl)) = entry.file_name().to_str().and_then(parse_table_name) {
                found.push(material);
            }
        }
        let mut slices = HashMap::new();
        for material in found {
            let index = SliceIndex::new(material);
            let open = |kind| -> Result<Table, TablesError> {
                let path = table_path(&dir, material, kind);
                let file = TableFile::new(MappedFile::open(&path).map_err(|e| ProbeError::io(&path, e))?)
                    .map_err(|e| ProbeError::damaged(&path, e))?;
                let h = file.header();
                let bad = |why| Err(ProbeError::damaged(&path, FormatError::BadHeader(why)).into());
                if h.slice.game() != Game::Cheskers {
                    let found = h.slice.game();
                    return Err(ProbeError::WrongVariant { path, expected: Game::Cheskers, found }.into());
                }
                if h.slice != TableSlice::Cheskers(material) {
                    return bad("material does not match the file name");
                }
                if h.kind != kind || h.positions != index.size() {
                    return bad("value kind or position count does not match the file name");
                }
                if (h.rules_name.as_str(), h.rules_hash) != (none.name.as_str(), none.hash) {
                    return bad("Cheskers tables hold pure values: rule set none");
                }
                let blocks = (0..h.blocks).map(|_| OnceLock::new()).collect();
                Ok(Table { file, blocks })
            };
            let tables = [open(TableKind::Wdl)?, open(TableKind::Distance)?];
            slices.insert(material, Slice { index, tables });
        }
        let max_pieces = slices.keys().map(Material::pieces).max().unwrap_or(0);
        Ok(Tables { dir, slices, max_pieces })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn max_pieces(&self) -> u8 {
        self.max_pieces
    }

    /// The slices with tables, fewest pieces first.
    pub fn materials(&self) -> Vec<Material> {
        let mut all: Vec<Material> = self.slices.keys().copied().collect();
        all.sort_by_key(|m| (m.pieces(), *m));
        all
    }

    /// The value for the side to move. A side to move without a king has
    /// lost (a loss in 0 plies); otherwise the slice's table answers.
    pub fn probe_value(&self, pos: &Position) -> Result<Value, TablesError> {
        if pos.of(pos.turn(), Kind::King).is_empty() {
            return Ok(Value::new(Wdl::Loss, 0));
        }
        let white = if pos.turn() == crate::Color::White { *pos } else { pos.flipped() };
        let material = Material::of(&white);
        let Some(slice) = self.slices.get(&material) else {
            if material.pieces() > self.max_pieces {
                return Err(TablesError::TooManyPieces { pieces: material.pieces(), max: self.max_pieces });
            }
            return Err(TablesError::MissingTable { material, path: table_path(&self.dir, material, TableKind::Wdl) });
        };
        let index = slice.index.index(&white).expect("a White-to-move position of the slice's material");
        let path = |kind| table_path(&self.dir, material, kind);
        let code = entry(&slice.tables[0], index).map_err(|e| ProbeError::damaged(&path(TableKind::Wdl), e))?;
        let plies = entry(&slice.tables[1], index).map_err(|e| ProbeError::damaged(&path(TableKind::Distance), e))?;
        let block = (index / slice.tables[0].file.header().block_positions as u64) as u32;
        let bad = || ProbeError::damaged(&path(TableKind::Wdl), FormatError::BadEntry(block));
        match Value::unpack(plies << 3 | code).ok_or_else(bad)? {
            // A draw's distance is "don't care": it repeats the entry before.
            v if v.wdl == Wdl::Draw => Ok(Value::DRAW),
            v if v.plies.0 == plies && v.wdl != Wdl::CursedWin && v.wdl != Wdl::BlessedLoss => Ok(v),
            _ => Err(bad().into()),
        }
    }

    /// Every value of the slice of `material`, packed ([`Value::pack`]), in
    /// index order; the blocks read are not kept.
    pub fn slice_values(&self, material: Material) -> Result<Vec<u16>, TablesError> {
        let slice = self.slices.get(&material).ok_or_else(|| TablesError::MissingTable {
            material,
            path: table_path(&self.dir, material, TableKind::Wdl),
        })?;
        let [wdl, dtc] = &slice.tables;
        let damaged = |kind, e| ProbeError::damaged(&table_path(&self.dir, material, kind), e);
        let mut values = Vec::with_capacity(slice.index.size() as usize);
        for block in 0..wdl.file.header().blocks {
            let codes = wdl.file.read_block(block).map_err(|e| damaged(TableKind::Wdl, e))?;
            values.extend(codes.into_iter().map(u16::from));
        }
        let wide = dtc.file.header().entry_bytes == 2;
        let mut at = 0;
        for block in 0..dtc.file.header().blocks {
            let bytes = dtc.file.read_block(block).map_err(|e| damaged(TableKind::Distance, e))?;
            let plies: Vec<u16> = match wide {
                true => bytes.chunks(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect(),
                false => bytes.into_iter().map(u16::from).collect(),
            };
            for p in plies {
                let value = values.get_mut(at).ok_or_else(|| damaged(TableKind::Distance, FormatError::BadEntry(block)))?;
                // A draw's distance is "don't care".
                *value = if *value == 0 { 0 } else { *value | p << 3 };
                at += 1;
            }
        }
        Ok(values)
    }

    /// Every legal move (damka's reading of the rules) with its value for
    /// the mover, best first: a win soonest, a loss latest.
    pub fn rank_moves(&self, pos: &Position) -> Result<Vec<(Move, Value)>, TablesError> {
        let mut ranked = Vec::new();
        for m in legal_moves(pos, Rules::default()) {
            let converts = m.is_capture() || m.promotion().is_some();
            ranked.push((m, self.probe_value(&pos.play(&m))?.back_one_ply(converts)));
        }
        ranked.sort_by_key(|(_, v)| std::cmp::Reverse(value_order(*v)));
        Ok(ranked)
    }
}

/// Entry `index` of a table: a result code or a distance.
fn entry(table: &Table, index: u64) -> Result<u16, FormatError> {
    let h = table.file.header();
    let block = (index / h.block_positions as u64) as u32;
    let at = (index % h.block_positions as u64) as usize;
    let slot = &table.blocks[block as usize];
    let bytes = match slot.get() {
        Some(bytes) => bytes,
        None => {
            let decoded = table.file.read_block(block)?;
            slot.get_or_init(|| decoded)
        }
    };
    Ok(match h.entry_bytes {
        2 => u16::from_le_bytes([bytes[2 * at], bytes[2 * at + 1]]),
        _ => bytes[at] as u16,
    })
}
