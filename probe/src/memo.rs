//! The results of "don't care" positions a probe has resolved.
//!
//! Resolving a capture position or a settled threat searches its moves and
//! the captures that answer them, often dozens of probes deep; engines ask
//! for the same positions again and again. A direct-mapped table of atomic
//! words keeps the last results: each word holds the whole key (slice and
//! index, so a hit is exact, never a near match) with the result, and is
//! read and written in one atomic access, so threads share it without
//! locks and a reader never sees half an entry.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::value::{Value, Wdl};

const INDEX_BITS: u32 = 44;
const SLICE_BITS: u32 = 12;
const KEY_MASK: u64 = (1 << (INDEX_BITS + SLICE_BITS)) - 1;
const WDL_SHIFT: u32 = INDEX_BITS + SLICE_BITS;
const THREAT: u64 = 1 << 62;
const FILLED: u64 = 1 << 63;

/// What kind of "don't care" position a result is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Capture,
    Threat,
}

pub(crate) struct Memo {
    words: Box<[AtomicU64]>,
}

impl Memo {
    /// A memo of at most `max` entries (a power of two) in a part of a
    /// cache budget of `cache_bytes`: none for no budget.
    pub(crate) fn within(cache_bytes: usize, max: usize) -> Memo {
        let share = cache_bytes / 32 / std::mem::size_of::<AtomicU64>();
        let entries = if share == 0 { 0 } else { max.min(1 << share.ilog2()) };
        Memo { words: (0..entries).map(|_| AtomicU64::new(0)).collect() }
    }

    /// The key of position `index` of slice `slice`, if it fits a word.
    fn key(slice: usize, index: u64) -> Option<u64> {
        (slice < 1 << SLICE_BITS && index < 1 << INDEX_BITS).then(|| (slice as u64) << INDEX_BITS | index)
    }

    fn word(&self, key: u64) -> &AtomicU64 {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.words[(h >> 32) as usize & (self.words.len() - 1)]
    }

    pub(crate) fn get(&self, slice: usize, index: u64) -> Option<(Kind, Wdl)> {
        let key = Memo::key(slice, index).filter(|_| !self.words.is_empty())?;
        let w = self.word(key).load(Ordering::Relaxed);
        if w & FILLED == 0 || w & KEY_MASK != key {
            return None;
        }
        let kind = if w & THREAT != 0 { Kind::Threat } else { Kind::Capture };
        Some((kind, Value::unpack(((w >> WDL_SHIFT) & 7) as u16)?.wdl))
    }

    pub(crate) fn put(&self, slice: usize, index: u64, kind: Kind, wdl: Wdl) {
        if let Some(key) = Memo::key(slice, index).filter(|_| !self.words.is_empty()) {
            let threat = if kind == Kind::Threat { THREAT } else { 0 };
            self.word(key).store(FILLED | threat | (Value::new(wdl, 0).pack() as u64) << WDL_SHIFT | key, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_found_under_its_own_key_only() {
        let memo = Memo::within(1 << 20, 16);
        memo.put(3, 1_000_000, Kind::Threat, Wdl::BlessedLoss);
        assert_eq!(memo.get(3, 1_000_000), Some((Kind::Threat, Wdl::BlessedLoss)));
        assert_eq!(memo.get(4, 1_000_000), None);
        assert_eq!(memo.get(3, 1_000_001), None);
        memo.put(7, 5, Kind::Capture, Wdl::Win);
        assert_eq!(memo.get(7, 5), Some((Kind::Capture, Wdl::Win)));
        // Keys beyond a word are never kept.
        memo.put(1 << SLICE_BITS, 0, Kind::Capture, Wdl::Win);
        assert_eq!(memo.get(1 << SLICE_BITS, 0), None);
        // No budget, no memo.
        let none = Memo::within(0, 16);
        none.put(7, 5, Kind::Capture, Wdl::Win);
        assert_eq!(none.get(7, 5), None);
    }
}
