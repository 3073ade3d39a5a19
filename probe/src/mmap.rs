//! Read-only memory maps of table files: the only `unsafe` in damka.
//!
//! A probe that misses the block cache reads one compressed block of a few
//! kilobytes. Mapping the file lets the operating system's page cache hold
//! the compressed bytes and lets the reader slice them without a copy or a
//! system call.

use std::fs::File;
use std::io;
use std::path::Path;

/// A whole file mapped read-only.
pub(crate) struct MappedFile {
    map: memmap2::Mmap,
}

impl MappedFile {
    /// Maps the file at `path` read-only.
    ///
    /// # Contract
    ///
    /// A memory map is only sound while nobody changes or shortens the file
    /// behind it: bytes that change under a `&[u8]` break Rust's aliasing
    /// rules, and reading past a truncated end raises SIGBUS. damka's own
    /// writer never touches a finished file: it writes a new file under a
    /// temporary name and renames it into place, which leaves every existing
    /// map on the old, unchanged file. Other programs must do the same (or
    /// close the [`crate::Tablebase`] first). This contract is repeated on
    /// [`crate::Tablebase::open`], the only public way to reach this
    /// constructor.
    ///
    /// Every byte read through the map is still checked (header checksum,
    /// block bounds, block checksums), so a file that was damaged before it
    /// was opened is reported as damaged, never misread.
    pub(crate) fn open(path: &Path) -> io::Result<MappedFile> {
        let file = File::open(path)?;
        // SAFETY: the file is opened read-only and mapped read-only; the
        // contract above (no in-place change or truncation while mapped) is
        // the caller's, documented on `Tablebase::open`.
        let map = unsafe { memmap2::MmapOptions::new().map(&file)? };
        Ok(MappedFile { map })
    }
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}
