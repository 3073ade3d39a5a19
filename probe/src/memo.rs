//! The results of "don't care" positions a probe has resolved.
//!
//! Resolving a capture position or a settled threat searches its moves and
//! the captures that answer them, often dozens of probes deep; engines ask
//! for the same positions again and again. A direct-mapped table of atomic
//! words keeps the last results: each word holds the whole key (slice and
//! index, so a hit is exact, never a near match) with the result, and is
//! read and written in one atomic access, so threads share it without
//! locks and a reader never sees half an entry.
//!
//! Without a budget there is no shared memo, but a probe still keeps what
//! it resolved for itself until it ends: one probe meets the same
//! positions many times (a settled threat's moves transpose, and their
//! captures land on the same positions; at 6 pieces 42% of a quiet
//! position's resolutions were repeats).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::value::Value;

const INDEX_BITS: u32 = 34;
const SLICE_BITS: u32 = 11;
const KEY_MASK: u64 = (1 << (INDEX_BITS + SLICE_BITS)) - 1;
const VALUE_SHIFT: u32 = INDEX_BITS + SLICE_BITS;
const KIND_SHIFT: u32 = VALUE_SHIFT + 16;

/// What a memo entry holds: the value of a capture position, the result
/// or the whole value of a settled threat, that a threatened position
/// is answered by its stored entries (its value is then no answer), or
/// the value of a quiet position whose distance comes from the twin
/// (docs/FORMAT.md), found through its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Capture = 1,
    ThreatResult = 2,
    ThreatValue = 3,
    Stored = 4,
    FromTwin = 5,
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
        (slice < 1 << SLICE_BITS && index < 1 << INDEX_BITS).then_some((slice as u64) << INDEX_BITS | index)
    }

    fn word(&self, key: u64) -> &AtomicU64 {
        &self.words[slot(key, self.words.len())]
    }

    pub(crate) fn get(&self, slice: usize, index: u64) -> Option<(Kind, Value)> {
        let key = Memo::key(slice, index)?;
        if self.words.is_empty() {
            return crate::cache::probe_memo(|p| p.get(key));
        }
        decode(self.word(key).load(Ordering::Relaxed), key)
    }

    pub(crate) fn put(&self, slice: usize, index: u64, kind: Kind, value: Value) {
        if let Some(key) = Memo::key(slice, index) {
            if self.words.is_empty() {
                crate::cache::probe_memo(|p| {
                    p.put(key, kind, value);
                    Some(())
                });
            } else {
                self.word(key).store(encode(key, kind, value), Ordering::Relaxed);
            }
        }
    }
}

/// The slot of `key` in a table of `slots` words (a power of two).
fn slot(key: u64, slots: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & (slots - 1)
}

fn encode(key: u64, kind: Kind, value: Value) -> u64 {
    (kind as u64) << KIND_SHIFT | (value.pack() as u64) << VALUE_SHIFT | key
}

/// The entry that `word` holds for `key`, if it holds one for it.
fn decode(word: u64, key: u64) -> Option<(Kind, Value)> {
    if word & KEY_MASK != key {
        return None;
    }
    let kind = match word >> KIND_SHIFT {
        1 => Kind::Capture,
        2 => Kind::ThreatResult,
        3 => Kind::ThreatValue,
        4 => Kind::Stored,
        5 => Kind::FromTwin,
        _ => return None,
    };
    Some((kind, Value::unpack((word >> VALUE_SHIFT) as u16)?))
}

/// Words of the memo a probe keeps for itself: 32 KiB a thread, for the
/// hundreds of positions a probe of kings resolves.
const PROBE_SLOTS: usize = 1 << 12;

/// What a probe in progress resolved, as the shared memo's words, where
/// the tables have no shared memo (no cache budget); emptied when the
/// outermost probe ends (cache.rs keeps it with the probe's blocks).
#[derive(Default)]
pub(crate) struct ProbeMemo {
    /// Allocated by the first probe that keeps something.
    words: Vec<u64>,
    /// The slots written, to empty them at the end (most probes write
    /// none: a quiet position without a threat resolves nothing).
    written: Vec<u16>,
}

impl ProbeMemo {
    fn get(&self, key: u64) -> Option<(Kind, Value)> {
        decode(*self.words.get(slot(key, PROBE_SLOTS))?, key)
    }

    fn put(&mut self, key: u64, kind: Kind, value: Value) {
        if self.words.is_empty() {
            self.words = vec![0; PROBE_SLOTS];
        }
        let at = slot(key, PROBE_SLOTS);
        if self.words[at] == 0 {
            self.written.push(at as u16);
        }
        self.words[at] = encode(key, kind, value);
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        for &at in &self.written {
            self.words[at as usize] = 0;
        }
        self.written.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::ProbeScope;
    use crate::value::Wdl;

    #[test]
    fn a_result_is_found_under_its_own_key_only() {
        let memo = Memo::within(1 << 20, 16);
        let blessed = Value::new(Wdl::BlessedLoss, 0);
        memo.put(3, 1_000_000, Kind::ThreatResult, blessed);
        assert_eq!(memo.get(3, 1_000_000), Some((Kind::ThreatResult, blessed)));
        assert_eq!(memo.get(4, 1_000_000), None);
        assert_eq!(memo.get(3, 1_000_001), None);
        let far = Value::new(Wdl::Loss, crate::format::MAX_PLIES);
        memo.put(3, 1_000_000, Kind::ThreatValue, far);
        assert_eq!(memo.get(3, 1_000_000), Some((Kind::ThreatValue, far)));
        let win = Value::new(Wdl::Win, 1);
        memo.put(7, (1 << INDEX_BITS) - 1, Kind::Capture, win);
        assert_eq!(memo.get(7, (1 << INDEX_BITS) - 1), Some((Kind::Capture, win)));
        memo.put(9, 12, Kind::FromTwin, far);
        assert_eq!(memo.get(9, 12), Some((Kind::FromTwin, far)));
        memo.put(9, 12, Kind::Stored, Value::DRAW);
        assert_eq!(memo.get(9, 12), Some((Kind::Stored, Value::DRAW)));
        // An empty word is no entry, even for key 0.
        assert_eq!(memo.get(0, 0), None);
        // Keys beyond a word are never kept.
        memo.put(1 << SLICE_BITS, 0, Kind::Capture, win);
        assert_eq!(memo.get(1 << SLICE_BITS, 0), None);
        memo.put(0, 1 << INDEX_BITS, Kind::Capture, win);
        assert_eq!(memo.get(0, 1 << INDEX_BITS), None);
        // No budget, no memo.
        let none = Memo::within(0, 16);
        none.put(7, 5, Kind::Capture, win);
        assert_eq!(none.get(7, 5), None);
    }

    #[test]
    fn without_a_budget_a_probe_remembers_until_it_ends() {
        let memo = Memo::within(0, 16);
        let win = Value::new(Wdl::Win, 1);
        {
            let _probe = ProbeScope::enter();
            memo.put(7, 5, Kind::Capture, win);
            {
                // A probe inside another keeps what the outer one found.
                let _inner = ProbeScope::enter();
                assert_eq!(memo.get(7, 5), Some((Kind::Capture, win)));
                memo.put(7, 6, Kind::Stored, Value::DRAW);
            }
            assert_eq!(memo.get(7, 6), Some((Kind::Stored, Value::DRAW)));
            assert_eq!(memo.get(8, 5), None);
        }
        assert_eq!(memo.get(7, 5), None);
        let _next = ProbeScope::enter();
        assert_eq!(memo.get(7, 5), None);
        assert_eq!(memo.get(7, 6), None);
    }
}
