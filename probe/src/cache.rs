//! A bounded cache of decompressed blocks, shared by every probing thread.
//!
//! The cache is split into shards, each a mutex around a hash map and a
//! CLOCK ring (second-chance eviction: an entry read since the hand last
//! passed survives one more turn). A hit locks one shard for a few
//! nanoseconds and reads the entry in place, without copying or counting
//! references. A miss decompresses the block with no lock held, so other
//! threads keep probing meanwhile; two threads that miss the same block at
//! once both decompress it and the second insertion is dropped.
//!
//! The byte budget counts each block's decompressed bytes plus a fixed
//! overhead per entry, so the memory the cache holds stays within the
//! budget given at open time (plus the empty map structures).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

/// Bytes charged per cached block beyond its data: its map bucket, its
/// place in the CLOCK ring and the allocator's bookkeeping.
const ENTRY_OVERHEAD: usize = 64;

/// Budget per shard below which fewer shards are used, so that a shard
/// still holds a few blocks.
const MIN_SHARD_BYTES: usize = 256 * 1024;

const MAX_SHARDS: usize = 32;

/// Counters of a [`crate::Tablebase`]'s block cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// The byte budget given at open time.
    pub budget: usize,
    /// Bytes charged now (block data plus a fixed overhead per block).
    pub bytes: usize,
    /// Blocks held now.
    pub blocks: usize,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to read and decompress a block.
    pub misses: u64,
    /// Blocks dropped to stay within the budget.
    pub evictions: u64,
}

/// A fast hasher for the cache's `u64` keys (a multiplicative hash; the
/// keys are not chosen by an adversary).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = spread(self.0 ^ n);
    }
}

#[inline]
fn spread(n: u64) -> u64 {
    let h = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// A cached block. It lives in the map itself, so a hit reads the map's
/// bucket and the block and nothing in between.
struct Slot {
    data: Box<[u8]>,
    referenced: bool,
}

#[derive(Default)]
struct Shard {
    slots: HashMap<u64, Slot, BuildHasherDefault<KeyHasher>>,
    /// The keys in CLOCK order.
    ring: Vec<u64>,
    hand: usize,
    bytes: usize,
    hits: u64,
    misses: u64,
    evictions: u64,
}

impl Shard {
    /// Drops blocks under the CLOCK hand until `needed` more bytes fit.
    fn make_room(&mut self, needed: usize, budget: usize) {
        while self.bytes + needed > budget && !self.ring.is_empty() {
            if self.hand >= self.ring.len() {
                self.hand = 0;
            }
            let key = self.ring[self.hand];
            let slot = self.slots.get_mut(&key).expect("every key in the ring is cached");
            if slot.referenced {
                slot.referenced = false;
                self.hand += 1;
                continue;
            }
            let gone = self.slots.remove(&key).expect("just found");
            self.ring.swap_remove(self.hand);
            self.bytes -= charge(&gone.data);
            self.evictions += 1;
        }
    }
}

fn charge(data: &[u8]) -> usize {
    data.len() + ENTRY_OVERHEAD
}

/// Decompressed blocks by key (see [`crate::Tablebase`] for the keys).
pub(crate) struct BlockCache {
    shards: Box<[Mutex<Shard>]>,
    shard_budget: usize,
    budget: usize,
}

impl BlockCache {
    pub(crate) fn new(budget: usize) -> BlockCache {
        let wanted = (budget / MIN_SHARD_BYTES).clamp(1, MAX_SHARDS);
        // A power of two, so a shard is chosen by the top bits of the hash.
        let shards = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        BlockCache {
            shards: (0..shards).map(|_| Mutex::new(Shard::default())).collect(),
            shard_budget: budget / shards,
            budget,
        }
    }

    fn shard(&self, key: u64) -> MutexGuard<'_, Shard> {
        let i = (spread(key) >> 32) as usize & (self.shards.len() - 1);
        // A thread that panicked while holding the lock left the shard
        // consistent (no user code runs under it), so poisoning is ignored.
        self.shards[i].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the block `key` with `read`, loading it with `load` if it is
    /// not cached.
    #[inline]
    pub(crate) fn with_block<T, E>(
        &self,
        key: u64,
        load: impl FnOnce() -> Result<Box<[u8]>, E>,
        read: impl Fn(&[u8]) -> T,
    ) -> Result<T, E> {
        {
            let mut shard = self.shard(key);
            let shard = &mut *shard;
            if let Some(slot) = shard.slots.get_mut(&key) {
                shard.hits += 1;
                slot.referenced = true;
                return Ok(read(&slot.data));
            }
            shard.misses += 1;
        }
        let data = load()?;
        let value = read(&data);
        if charge(&data) <= self.shard_budget {
            let mut shard = self.shard(key);
            if !shard.slots.contains_key(&key) {
                let budget = self.shard_budget;
                shard.make_room(charge(&data), budget);
                shard.bytes += charge(&data);
                shard.ring.push(key);
                shard.slots.insert(key, Slot { data, referenced: false });
            }
        }
        Ok(value)
    }

    /// Reads the block `key` with `read` if it is cached; `None` (and
    /// nothing loaded) if not.
    #[inline]
    pub(crate) fn cached_block<T>(&self, key: u64, read: impl Fn(&[u8]) -> T) -> Option<T> {
        let mut shard = self.shard(key);
        let shard = &mut *shard;
        let slot = shard.slots.get_mut(&key)?;
        shard.hits += 1;
        slot.referenced = true;
        Some(read(&slot.data))
    }

    /// Whether the block `key` is cached (without marking it read).
    pub(crate) fn contains(&self, key: u64) -> bool {
        self.shard(key).slots.contains_key(&key)
    }

    pub(crate) fn stats(&self) -> CacheStats {
        let mut stats = CacheStats { budget: self.budget, ..CacheStats::default() };
        for shard in self.shards.iter() {
            let s = shard.lock().unwrap_or_else(|e| e.into_inner());
            stats.bytes += s.bytes;
            stats.blocks += s.ring.len();
            stats.hits += s.hits;
            stats.misses += s.misses;
            stats.evictions += s.evictions;
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(byte: u8, len: usize) -> Result<Box<[u8]>, ()> {
        Ok(vec![byte; len].into_boxed_slice())
    }

    fn cached() -> Result<Box<[u8]>, ()> {
        panic!("the block should be cached")
    }

    #[test]
    fn hits_after_a_miss() {
        let cache = BlockCache::new(1 << 20);
        assert_eq!(cache.with_block(7, || block(3, 100), |b| b[0]), Ok(3));
        assert_eq!(cache.with_block(7, cached, |b| b[99]), Ok(3));
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.blocks), (1, 1, 1));
    }

    #[test]
    fn stays_within_the_budget() {
        let cache = BlockCache::new(10_000);
        for key in 0..1000u64 {
            cache.with_block(key, || block(key as u8, 1000), |b| b[0]).unwrap();
            assert!(cache.stats().bytes <= 10_000);
        }
        let s = cache.stats();
        assert!(s.blocks >= 5 && s.evictions >= 990, "{s:?}");
        // Every answer is right, cached or not.
        for key in 0..1000u64 {
            assert_eq!(cache.with_block(key, || block(key as u8, 1000), |b| b[0]), Ok(key as u8));
        }
    }

    #[test]
    fn referenced_blocks_survive_a_turn() {
        let cache = BlockCache::new(3 * (100 + ENTRY_OVERHEAD));
        for key in 0..3 {
            cache.with_block(key, || block(0, 100), |_| ()).unwrap();
        }
        cache.with_block(0, cached, |_| ()).unwrap();
        cache.with_block(3, || block(0, 100), |_| ()).unwrap();
        // Block 0 was read again, so block 1 went instead.
        cache.with_block(0, cached, |_| ()).unwrap();
    }

    #[test]
    fn a_zero_budget_caches_nothing() {
        let cache = BlockCache::new(0);
        for _ in 0..3 {
            assert_eq!(cache.with_block(1, || block(9, 10), |b| b[5]), Ok(9));
        }
        assert_eq!(cache.stats().blocks, 0);
        assert_eq!(cache.stats().misses, 3);
    }

    #[test]
    fn load_errors_pass_through_and_are_not_cached() {
        let cache = BlockCache::new(1 << 20);
        assert_eq!(cache.with_block(1, || Err::<Box<[u8]>, _>("bad"), |b| b[0]), Err("bad"));
        assert_eq!(cache.with_block(1, || Ok::<_, &str>(vec![4].into()), |b| b[0]), Ok(4));
    }
}
