//! What a table directory holds: the slices it has files for, read from the
//! file names (`<variant>-<material>.<wdl|dtc>`, see
//! [`crate::writer::table_path`]), and the loading of one slice's values.
//!
//! Shared by `damka verify` and `damka stats`. Loading goes through the
//! probe crate's file reader only, so what these commands see is what an
//! engine would see.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use damka::format::{FormatError, Header, Kind, TableFile};
use damka::{Material, TableName, Variant};
use rayon::prelude::*;

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
pub fn misnamed(header: &Header, name: TableName) -> Option<TableName> {
    let described = TableName { variant: header.variant, material: header.material, kind: header.kind };
    (described != name).then_some(described)
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
    /// bad block, in order).
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
}

impl Loaded {
    /// The entries of a `.dtc` file as packed values.
    pub fn packed(&self) -> Vec<u16> {
        self.raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
    }
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
    let mut raw = Vec::with_capacity(file.header().positions as usize * file.header().kind.entry_bytes());
    let mut bad = Vec::new();
    for block in blocks {
        match block {
            Ok(r) => raw.extend_from_slice(&r),
            Err(e) => bad.push(e),
        }
    }
    if !bad.is_empty() {
        return Err(LoadError::Blocks(bad));
    }
    Ok(Loaded { header: file.header().clone(), raw })
}
