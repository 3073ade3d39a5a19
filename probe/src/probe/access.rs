//! How a probe reaches the blocks it needs, loading them or only looking
//! in the cache, and the checks a decompressed block passes before the
//! cache keeps it.

use crate::cache::{BlockCache, Read};
use crate::format::Kind;
use crate::runs::RunCursor;
use crate::value::Value;

use super::{ProbeError, Table, Tablebase};

/// The answer of a conditional probe ([`Tablebase::probe_wdl_cached`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cached<T> {
    /// Every block the answer needs was in the cache.
    Answer(T),
    /// Some block the answer needs is not in the cache (or its table file
    /// is not open yet): answering would read the disk.
    NotInCache,
}

impl<T> Cached<T> {
    pub(super) fn of(result: Result<T, Miss>) -> Result<Cached<T>, ProbeError> {
        match result {
            Ok(answer) => Ok(Cached::Answer(answer)),
            Err(Miss::NotInCache) => Ok(Cached::NotInCache),
            Err(Miss::Failed(e)) => Err(e),
        }
    }
}

/// Why a conditional probe has no answer.
pub(super) enum Miss {
    NotInCache,
    Failed(ProbeError),
}

impl From<ProbeError> for Miss {
    fn from(e: ProbeError) -> Miss {
        Miss::Failed(e)
    }
}

/// How a probe reaches the blocks it needs: [`Load`] reads and
/// decompresses a block that is not cached, [`CacheOnly`] gives up. The
/// probe code is generic over it, so ordinary probes pay nothing for
/// conditional ones.
pub(super) trait Access {
    type Error: From<ProbeError>;

    fn table(tb: &Tablebase, slice: usize, kind: Kind) -> Result<&Table, Self::Error>;

    /// The entry of `width` bytes at byte `at` of the block `key`; for a
    /// block that can be read in place, what it takes decompressed and the
    /// reader of one entry ([`BlockCache::entry_or_in_place`]).
    fn entry(
        cache: &BlockCache,
        key: u64,
        place: (usize, usize),
        load: impl FnOnce() -> Result<Box<[u8]>, ProbeError>,
        in_place: Option<(usize, impl FnOnce(Option<&mut RunCursor>) -> Result<u16, ProbeError>)>,
    ) -> Result<Read, Self::Error>;
}

pub(super) struct Load;

impl Access for Load {
    type Error = ProbeError;

    #[inline]
    fn table(tb: &Tablebase, slice: usize, kind: Kind) -> Result<&Table, ProbeError> {
        tb.table(slice, kind)
    }

    #[inline]
    fn entry(
        cache: &BlockCache,
        key: u64,
        (at, width): (usize, usize),
        load: impl FnOnce() -> Result<Box<[u8]>, ProbeError>,
        in_place: Option<(usize, impl FnOnce(Option<&mut RunCursor>) -> Result<u16, ProbeError>)>,
    ) -> Result<Read, ProbeError> {
        match in_place {
            Some(in_place) => cache.entry_or_in_place(key, at, width, load, in_place),
            None => cache.entry(key, at, width, load).map(Read::FromBlock),
        }
    }
}

pub(super) struct CacheOnly;

impl Access for CacheOnly {
    type Error = Miss;

    #[inline]
    fn table(tb: &Tablebase, slice: usize, kind: Kind) -> Result<&Table, Miss> {
        tb.opened_table(slice, kind)?.ok_or(Miss::NotInCache)
    }

    #[inline]
    fn entry(
        cache: &BlockCache,
        key: u64,
        (at, width): (usize, usize),
        load: impl FnOnce() -> Result<Box<[u8]>, ProbeError>,
        in_place: Option<(usize, impl FnOnce(Option<&mut RunCursor>) -> Result<u16, ProbeError>)>,
    ) -> Result<Read, Miss> {
        if let Some(entry) = cache.cached_entry(key, at, width) {
            return Ok(Read::FromBlock(entry));
        }
        // Read in place by an ordinary probe lately, so in memory: this
        // second request brings it into the cache.
        if in_place.is_some() && cache.read_lately(key) {
            return Ok(Read::FromBlock(cache.entry(key, at, width, load)?));
        }
        Err(Miss::NotInCache)
    }
}

/// Decodes a result code already checked by
/// [`crate::format::TableFile::read_checked`] as the value with distance 0.
#[inline]
pub(super) fn decode(bits: u16) -> Value {
    Value::unpack(bits).unwrap_or(Value::DRAW)
}
