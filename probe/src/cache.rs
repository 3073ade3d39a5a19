//! A bounded cache of decompressed blocks, shared by every probing thread.
//!
//! A probe that finds its block cached writes nothing another thread reads:
//! no lock, no reference count, no shared counter. Engines probe from many
//! threads at once, and a cache line written by one core and read by
//! another costs more than the whole lookup, so this is what lets probes
//! scale with threads.
//!
//! - The blocks lie one after another in chunks of 64 KiB, each block
//!   behind a two-word header (key, length in bytes). New blocks fill one
//!   chunk after another, round the ring of chunks; reaching a chunk again
//!   drops the blocks it held (first in, first out, a chunk at a time).
//! - A set-associative index (four ways a set, one cache line) maps a key
//!   to its block's place: chunk, word and the chunk's generation. It
//!   grows with the blocks held, not with the budget: a lookup touches one
//!   line of it, and an index sized for a large budget but mostly empty
//!   would make that line a memory miss (and a page walk) on every probe.
//!   Growing builds the next, twice as large index and switches readers to
//!   it; the smaller ones stay, so a reader never loses the one it reads.
//! - One thread at a time inserts (a mutex). Readers take no lock: they
//!   find the block through the index, read the entry, and then check that
//!   the chunk's generation is still the one the index gave (the sequence
//!   check of a seqlock: a writer bumps it before it overwrites the chunk)
//!   and that the index way still holds the key.
//! - A block read since it went in gets a second chance when its chunk is
//!   reused: it is copied into the fresh chunk instead of dropped (the
//!   CLOCK rule). The "read" mark is one byte per index way, written only
//!   while unset, so hot blocks cost no writes.
//! - Hits and misses are counted per thread ([`Tally`]).
//! - A result block comes in on its second request, not its first: the
//!   first probe to ask reads its entries in place from the compressed
//!   block (a run decoder walks the runs up to them, a third of
//!   decompressing it whole) and notes its key; the next probe that needs
//!   it, ordinary or conditional, brings it in. Most blocks a new
//!   position's probe reads are read by that probe alone, and then cost
//!   neither a whole decompression nor the eviction of blocks read again.
//! - A probe keeps, for each result block it reads in place, how far it
//!   walked the block's runs until it ends ([`ProbeScope`], [`RunCursor`]):
//!   one probe that resolves captures and threats reads several entries of
//!   most blocks it reads, and so walks each block's runs once at most. A
//!   block the cache cannot keep (a budget of 0, or too small) is read
//!   that way alone, never decompressed; a distance block (zstd) it
//!   cannot keep is decompressed once and kept by the probe.
//!
//! A miss decompresses the block with no lock held, so other threads keep
//! probing meanwhile; two threads that miss the same block at once both
//! decompress it and the second insertion is dropped. The chunks and the
//! index together stay within the byte budget given at open time; chunks
//! are allocated as the ring first fills.

use std::cell::RefCell;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicU8, AtomicUsize};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::memo::ProbeMemo;
use crate::runs::RunCursor;
use crate::tally::Tally;

/// Ways of an index set: four keys and places fill one cache line.
const WAYS: usize = 4;

/// Budget bytes per index way. Blocks hold 4-16 KiB, so the index has
/// several ways per block that fits and keys rarely push each other out.
const BYTES_PER_WAY: usize = 1024;

/// Index bytes per way: key, place and the "read" mark.
const WAY_BYTES: usize = 17;

/// Words of a block's header: key, then length in bytes.
const HEADER: usize = 2;

/// Key of an unused index way.
const EMPTY: u64 = u64::MAX;

/// Words of a chunk (64 KiB): the largest block (16 KiB) and a few more.
const CHUNK_WORDS: usize = 1 << 13;

/// Share of a fresh chunk that blocks given a second chance may fill, so
/// that the block being inserted still fits.
const SECOND_CHANCE_SHARE: usize = 2;

/// Sets of the first index (a thousand ways): a few blocks need no more.
const FIRST_SETS: usize = 1 << 8;

/// Keys of blocks read once that a cache remembers at most.
const READ_ONCE: usize = 1 << 12;

/// Blocks a probe keeps for itself at most, when the cache keeps none. The
/// probes that read most read more than 64: at 6 pieces without a threat
/// bound, 128 read 2.6% fewer blocks than 64 did, 256 no fewer.
const PROBE_BLOCKS: usize = 128;

/// The blocks the probes in progress on this thread read and the cache did
/// not keep, by cache and key, and what they resolved where the tables
/// have no memo; emptied when the outermost probe ends.
#[derive(Default)]
struct ProbeBlocks {
    depth: u32,
    blocks: Vec<(usize, u64, Box<[u8]>)>,
    cursors: Vec<(usize, u64, RunCursor)>,
    /// Cursors of probes that ended, cleared: their memory for the next.
    spare_cursors: Vec<RunCursor>,
    memo: ProbeMemo,
}

thread_local! {
    static PROBE_BLOCKS_HELD: RefCell<ProbeBlocks> = RefCell::new(ProbeBlocks::default());
}

/// Adds `item` to what a probe holds, dropping the oldest if it holds
/// [`PROBE_BLOCKS`] already.
fn hold<T>(held: &mut Vec<T>, item: T) {
    if held.len() == PROBE_BLOCKS {
        held.remove(0);
    }
    held.push(item);
}

/// While one lives on a thread, blocks that thread's probes read are kept
/// for the rest of the probe even if the cache cannot keep them, and so
/// are the positions they resolve (memo.rs).
pub(crate) struct ProbeScope(());

impl ProbeScope {
    pub(crate) fn enter() -> ProbeScope {
        PROBE_BLOCKS_HELD.with_borrow_mut(|p| p.depth += 1);
        ProbeScope(())
    }
}

impl Drop for ProbeScope {
    fn drop(&mut self) {
        PROBE_BLOCKS_HELD.with_borrow_mut(|p| {
            p.depth -= 1;
            if p.depth == 0 {
                p.blocks.clear();
                let spare = p.cursors.drain(..).map(|(_, _, mut cursor)| {
                    cursor.clear();
                    cursor
                });
                p.spare_cursors.extend(spare);
                p.spare_cursors.truncate(PROBE_BLOCKS);
                p.memo.clear();
            }
        });
    }
}

/// `f` of the memo of the probe in progress on this thread (a memo
/// without budget keeps its entries there, memo.rs); `None` outside a
/// probe.
pub(crate) fn probe_memo<R>(f: impl FnOnce(&mut ProbeMemo) -> Option<R>) -> Option<R> {
    PROBE_BLOCKS_HELD.with_borrow_mut(|p| if p.depth > 0 { f(&mut p.memo) } else { None })
}

/// An entry read as the block holds it, or in place (whatever the
/// reader of the compressed block gives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Read {
    FromBlock(u16),
    InPlace(u16),
}

/// Counters of a [`crate::Tablebase`]'s block cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// The byte budget given at open time.
    pub budget: usize,
    /// Bytes the cache holds now: chunks allocated so far and the index.
    pub bytes: usize,
    /// Blocks cached now.
    pub blocks: usize,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to read and decompress a block.
    pub misses: u64,
    /// Blocks dropped to make room.
    pub evictions: u64,
}

#[inline]
fn spread(n: u64) -> u64 {
    let h = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// The entry of `width` bytes (1 or 2, little-endian) at byte `at` of a
/// block.
#[inline]
fn entry_of(block: &[u8], at: usize, width: usize) -> u16 {
    match width {
        1 => block[at] as u16,
        _ => u16::from_le_bytes([block[at], block[at + 1]]),
    }
}

/// Counts kept: hits and misses.
const HITS: usize = 0;
const MISSES: usize = 1;

/// Where a block lies: its chunk's generation (high half) and its word
/// in the ring (low half).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Place(u64);

impl Place {
    fn new(generation: u32, word: usize) -> Place {
        Place((generation as u64) << 32 | word as u64)
    }

    fn generation(self) -> u32 {
        (self.0 >> 32) as u32
    }

    fn word(self) -> usize {
        self.0 as u32 as usize
    }
}

/// An index way: which block, and where it lies.
struct Way {
    key: AtomicU64,
    place: AtomicU64,
}

/// A set-associative index: per way, which block and where, and whether
/// it was read since it went in.
struct Index {
    ways: Box<[Way]>,
    marks: Box<[AtomicU8]>,
    set_mask: usize,
}

impl Index {
    fn new(sets: usize) -> Index {
        Index {
            ways: (0..sets * WAYS).map(|_| Way { key: AtomicU64::new(EMPTY), place: AtomicU64::new(0) }).collect(),
            marks: (0..sets * WAYS).map(|_| AtomicU8::new(0)).collect(),
            set_mask: sets - 1,
        }
    }

    /// The ways of the set that holds `key`.
    #[inline]
    fn set_of(&self, key: u64) -> std::ops::Range<usize> {
        let first = (spread(key) as usize & self.set_mask) * WAYS;
        first..first + WAYS
    }
}

/// State only the inserting thread touches.
struct Writer {
    /// The chunk being filled, and its words in use.
    chunk: usize,
    fill: usize,
    /// Words in use and blocks of every chunk.
    fills: Vec<usize>,
    blocks: Vec<usize>,
    /// Blocks in the ring, and blocks ever inserted.
    live: usize,
    inserted: u64,
}

/// Decompressed blocks by key (see [`crate::Tablebase`] for the keys).
pub(crate) struct BlockCache {
    budget: usize,
    chunks: Box<[OnceLock<Box<[AtomicU64]>>]>,
    /// Per chunk: bumped before the chunk is overwritten.
    generations: Box<[AtomicU32]>,
    chunk_shift: u32,
    /// Indexes of growing size; readers use the one at `level`.
    indexes: Box<[OnceLock<Index>]>,
    level: AtomicUsize,
    writer: Mutex<Writer>,
    counts: Tally<2>,
    /// Keys of blocks lately read in place, by a hash of the key: a block
    /// comes into the cache on its second miss, so that blocks read once
    /// cost neither decompressing them whole nor pushing others out.
    read_once: Box<[AtomicU64]>,
}

impl BlockCache {
    pub(crate) fn new(budget: usize) -> BlockCache {
        let floor_pow2 = |n: usize| if n == 0 { 0 } else { 1usize << (usize::BITS - 1 - n.leading_zeros()) };
        let sets = floor_pow2(budget / (BYTES_PER_WAY * WAYS));
        // Every index up to the largest, each twice the one before: less
        // than twice the largest.
        let levels = if sets == 0 { 0 } else { (sets / FIRST_SETS.min(sets)).trailing_zeros() as usize + 1 };
        let index_bytes = |level: usize| (sets >> (levels - 1 - level)) * WAYS * WAY_BYTES;
        // A key read once for every 4 KiB of the budget (a block or so),
        // 32 KiB at most: a block read again within a few hundred probes
        // comes in.
        let read_once = floor_pow2(budget >> 12).min(READ_ONCE);
        let ring_words = budget.saturating_sub((0..levels).map(index_bytes).sum::<usize>() + read_once * 8) / 8;
        // Chunks of a power of two words, so a place splits by shifts, and
        // at least four, so that reusing one drops a quarter of the cache
        // at most (a small budget caches only blocks that fit a chunk).
        // Places are 32-bit.
        let chunk_words = floor_pow2((ring_words / 4).min(CHUNK_WORDS));
        let chunks = if sets == 0 || chunk_words == 0 { 0 } else { (ring_words / chunk_words).min(u32::MAX as usize / chunk_words) };
        let levels = if chunks == 0 { 0 } else { levels };
        let indexes: Box<[OnceLock<Index>]> = (0..levels).map(|_| OnceLock::new()).collect();
        if let Some(first) = indexes.first() {
            first.get_or_init(|| Index::new(sets >> (levels - 1)));
        }
        BlockCache {
            budget,
            chunks: (0..chunks).map(|_| OnceLock::new()).collect(),
            generations: (0..chunks).map(|_| AtomicU32::new(0)).collect(),
            chunk_shift: if chunks == 0 { 0 } else { chunk_words.trailing_zeros() },
            indexes,
            level: AtomicUsize::new(0),
            writer: Mutex::new(Writer { chunk: 0, fill: 0, fills: vec![0; chunks], blocks: vec![0; chunks], live: 0, inserted: 0 }),
            counts: Tally::new(),
            read_once: (0..if chunks == 0 { 0 } else { read_once }).map(|_| AtomicU64::new(EMPTY)).collect(),
        }
    }

    fn chunk_words(&self) -> usize {
        1 << self.chunk_shift
    }

    /// The index readers use now (none if nothing can be cached).
    #[inline]
    fn index(&self) -> Option<&Index> {
        self.indexes.get(self.level.load(Acquire))?.get()
    }

    /// The entry of `width` bytes at byte `at` of block `key`, if cached.
    /// Writes nothing shared unless the block was not read since it went in.
    #[inline]
    fn lookup(&self, key: u64, at: usize, width: usize) -> Option<u16> {
        let (index, w, entry) = self.find(key, at, width)?;
        if index.marks[w].load(Relaxed) == 0 {
            index.marks[w].store(1, Relaxed);
        }
        Some(entry)
    }

    /// The index way of `key`'s block and its entry of `width` bytes at
    /// byte `at`, if the block is cached.
    #[inline]
    fn find(&self, key: u64, at: usize, width: usize) -> Option<(&Index, usize, u16)> {
        let index = self.index()?;
        index.set_of(key).find_map(|w| {
            let way = &index.ways[w];
            if way.key.load(Acquire) != key {
                return None;
            }
            let entry = self.read(Place(way.place.load(Acquire)), at, width)?;
            // The place read may be that of a block published in this way
            // since; a writer clears the key before it moves the place, so
            // a key still the same means the place was this key's.
            (way.key.load(Relaxed) == key).then_some((index, w, entry))
        })
    }

    /// The chunk that holds `place`, and the word in it where it starts.
    #[inline]
    fn split(&self, place: Place) -> (usize, usize) {
        (place.word() >> self.chunk_shift, place.word() & (self.chunk_words() - 1))
    }

    /// The place of word `word` of chunk `chunk` in its current generation.
    fn place(&self, chunk: usize, word: usize) -> Place {
        Place::new(self.generations[chunk].load(Relaxed), (chunk << self.chunk_shift) + word)
    }

    /// Reads the entry from the block at `place`, if its chunk was not
    /// reused meanwhile. The block's header is not read: the index way
    /// vouches for the key, and one memory line less is what a probe of a
    /// block out of the processor's caches pays.
    #[inline]
    fn read(&self, place: Place, at: usize, width: usize) -> Option<u16> {
        let (chunk, start) = self.split(place);
        let words = self.chunks.get(chunk)?.get()?;
        // An entry never straddles two words: widths are 1 or 2, and
        // two-byte entries start at even bytes.
        let word = words.get(start + HEADER + at / 8)?.load(Relaxed);
        // The word read above is the block's only if its chunk was not
        // reused meanwhile: a writer bumps the generation before it writes.
        fence(Acquire);
        if self.generations[chunk].load(Relaxed) != place.generation() {
            return None;
        }
        Some(entry_of(&word.to_le_bytes(), at % 8, width))
    }

    /// The entry of `width` bytes at byte `at` of block `key`, loading the
    /// block with `load` if it is not cached.
    #[inline]
    pub(crate) fn entry<E>(
        &self,
        key: u64,
        at: usize,
        width: usize,
        load: impl FnOnce() -> Result<Box<[u8]>, E>,
    ) -> Result<u16, E> {
        if let Some(entry) = self.lookup(key, at, width) {
            self.counts.add(HITS);
            return Ok(entry);
        }
        self.entry_not_cached(key, at, width, load)
    }

    /// [`BlockCache::entry`] of a block the cache does not hold: held by
    /// the probe, or loaded (and kept by the cache, or else by the probe).
    fn entry_not_cached<E>(
        &self,
        key: u64,
        at: usize,
        width: usize,
        load: impl FnOnce() -> Result<Box<[u8]>, E>,
    ) -> Result<u16, E> {
        let owner = self as *const BlockCache as usize;
        let held = PROBE_BLOCKS_HELD.with_borrow(|p| {
            p.blocks.iter().find(|(o, k, _)| (*o, *k) == (owner, key)).map(|(_, _, b)| entry_of(b, at, width))
        });
        if let Some(entry) = held {
            return Ok(entry);
        }
        self.counts.add(MISSES);
        let block = load()?;
        let entry = entry_of(&block, at, width);
        if !self.insert(key, &block) {
            PROBE_BLOCKS_HELD.with_borrow_mut(|p| {
                if p.depth > 0 {
                    hold(&mut p.blocks, (owner, key, block));
                }
            });
        }
        Ok(entry)
    }

    /// Like [`BlockCache::entry`], for a block whose entries can also be
    /// read one at a time from the compressed block: `read_in_place` reads
    /// one (through the probe's cursor of the block, if it is given one),
    /// and the block takes `bytes` decompressed. A block not cached is read
    /// in place through the probe's cursor for the rest of the probe; a
    /// later probe that asks for it again decompresses it into the cache,
    /// if the cache can keep it.
    #[inline]
    pub(crate) fn entry_or_in_place<E>(
        &self,
        key: u64,
        at: usize,
        width: usize,
        load: impl FnOnce() -> Result<Box<[u8]>, E>,
        (bytes, read_in_place): (usize, impl FnOnce(Option<&mut RunCursor>) -> Result<u16, E>),
    ) -> Result<Read, E> {
        if let Some(entry) = self.lookup(key, at, width) {
            self.counts.add(HITS);
            return Ok(Read::FromBlock(entry));
        }
        // The probe's cursor of the block if it walked it already; none
        // outside a probe.
        let owner = self as *const BlockCache as usize;
        let held = PROBE_BLOCKS_HELD.with_borrow_mut(|p| {
            (p.depth > 0).then(|| p.cursors.iter().position(|(o, k, _)| (*o, *k) == (owner, key)))
        });
        match held {
            // An entry of a block the probe holds, as a block held counts.
            Some(Some(_)) => self.counts.add(HITS),
            // Read in place once lately: the cache takes it now.
            _ if self.keeps(bytes) && !self.first_request(key) => {
                return self.entry_not_cached(key, at, width, load).map(Read::FromBlock);
            }
            _ => self.counts.add(MISSES),
        }
        let Some(held) = held else {
            return read_in_place(None).map(Read::InPlace);
        };
        // Read through the cursor where it is held (`read_in_place` only
        // decodes bytes): moving cursors about took a tenth of an uncached
        // probe's time.
        PROBE_BLOCKS_HELD
            .with_borrow_mut(|p| {
                let i = held.unwrap_or_else(|| {
                    let spare = p.spare_cursors.pop().unwrap_or_default();
                    hold(&mut p.cursors, (owner, key, spare));
                    p.cursors.len() - 1
                });
                read_in_place(p.cursors.get_mut(i).map(|held| &mut held.2))
            })
            .map(Read::InPlace)
    }

    /// Whether block `key`, not in the cache, is asked for the first time
    /// lately; it is noted, so that the next request keeps it.
    fn first_request(&self, key: u64) -> bool {
        let Some(seen) = self.read_once_slot(key) else {
            return true;
        };
        if seen.load(Relaxed) == key {
            return false;
        }
        seen.store(key, Relaxed);
        true
    }

    /// Whether block `key` was read in place lately (its compressed bytes
    /// are then in memory, not only on disk).
    pub(crate) fn read_lately(&self, key: u64) -> bool {
        self.read_once_slot(key).is_some_and(|seen| seen.load(Relaxed) == key)
    }

    /// Where the key of block `key` is noted when read in place; none in a
    /// cache that keeps no blocks.
    fn read_once_slot(&self, key: u64) -> Option<&AtomicU64> {
        self.read_once.get(spread(key) as usize & self.read_once.len().wrapping_sub(1))
    }

    /// Whether the cache can keep a block of `bytes`.
    fn keeps(&self, bytes: usize) -> bool {
        !self.indexes.is_empty() && HEADER + bytes.div_ceil(8) <= self.chunk_words()
    }

    /// The entry of `width` bytes at byte `at` of block `key` if it is
    /// cached; `None` (and nothing loaded) if not.
    #[inline]
    pub(crate) fn cached_entry(&self, key: u64, at: usize, width: usize) -> Option<u16> {
        let entry = self.lookup(key, at, width)?;
        self.counts.add(HITS);
        Some(entry)
    }

    /// Whether the block `key` is cached.
    pub(crate) fn contains(&self, key: u64) -> bool {
        self.live_way(key).is_some()
    }

    /// The index way of `key`'s block, if the block is cached.
    fn live_way(&self, key: u64) -> Option<usize> {
        self.find(key, 0, 1).map(|(_, w, _)| w)
    }

    fn lock(&self) -> MutexGuard<'_, Writer> {
        // A thread that panicked while holding the lock left no user code
        // half run under it, and readers check what they read, so
        // poisoning is ignored.
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Inserts a block; `false` if the cache cannot hold it.
    fn insert(&self, key: u64, block: &[u8]) -> bool {
        if !self.keeps(block.len()) {
            return false;
        }
        let words = HEADER + block.len().div_ceil(8);
        let mut w = self.lock();
        if self.live_way(key).is_some() {
            return true;
        }
        let place = self.make_room(&mut w, words);
        let chunk = self.chunk(place);
        let (_, start) = self.split(place);
        chunk[start].store(key, Relaxed);
        chunk[start + 1].store(block.len() as u64, Relaxed);
        for (i, bytes) in block.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..bytes.len()].copy_from_slice(bytes);
            chunk[start + HEADER + i].store(u64::from_le_bytes(word), Relaxed);
        }
        w.inserted += 1;
        w.live += 1;
        let chunk = w.chunk;
        w.blocks[chunk] += 1;
        self.publish(key, place, w.chunk);
        // Four ways a block: few sets overflow.
        if w.live * 4 > self.writer_index().ways.len() {
            self.grow();
        }
        true
    }

    /// The current index (writer only: the level changes under the lock).
    fn writer_index(&self) -> &Index {
        self.index().expect("a cache that holds blocks has an index")
    }

    /// Switches readers to the next index, twice as large, holding every
    /// live way of the current one; false if there is no next.
    fn grow(&self) -> bool {
        let level = self.level.load(Relaxed);
        let (Some(old), Some(next)) = (self.indexes[level].get(), self.indexes.get(level + 1)) else {
            return false;
        };
        let new = next.get_or_init(|| Index::new((old.set_mask + 1) * 2));
        for i in 0..old.ways.len() {
            let key = old.ways[i].key.load(Relaxed);
            if key == EMPTY || self.is_stale(old, i) {
                continue;
            }
            // A set splits in two: its ways always fit.
            if let Some(j) = new.set_of(key).find(|&j| new.ways[j].key.load(Relaxed) == EMPTY) {
                new.ways[j].place.store(old.ways[i].place.load(Relaxed), Relaxed);
                new.ways[j].key.store(key, Relaxed);
                new.marks[j].store(old.marks[i].load(Relaxed), Relaxed);
            }
        }
        // Readers that see the new level see the ways written above.
        self.level.store(level + 1, Release);
        true
    }

    /// Whether way `i` of `index` points into a chunk reused since.
    fn is_stale(&self, index: &Index, i: usize) -> bool {
        let old = Place(index.ways[i].place.load(Relaxed));
        self.generations[self.split(old).0].load(Relaxed) != old.generation()
    }

    /// The words of the chunk that holds `place` (writer only: allocates).
    fn chunk(&self, place: Place) -> &[AtomicU64] {
        self.chunks[self.split(place).0]
            .get_or_init(|| (0..self.chunk_words()).map(|_| AtomicU64::new(0)).collect())
    }

    /// Points an index way at `key`'s block at `place`: `key`'s own way if
    /// it has one, else an unused or stale way, else the way of the block
    /// that would go first: unread, in the chunk to be reused soonest
    /// after `current`.
    fn publish(&self, key: u64, place: Place, current: usize) {
        let free = |index: &Index| {
            let set = index.set_of(key);
            set.clone()
                .find(|&i| index.ways[i].key.load(Relaxed) == key)
                .or_else(|| set.clone().find(|&i| index.ways[i].key.load(Relaxed) == EMPTY || self.is_stale(index, i)))
        };
        // A full set grows the index while it can, rather than push a block
        // out: a block pushed out of a smaller index is lost to the larger.
        let mut index = self.writer_index();
        while free(index).is_none() && self.grow() {
            index = self.writer_index();
        }
        let set = index.set_of(key);
        let way = free(index)
            .or_else(|| {
                set.clone().min_by_key(|&i| {
                    let (chunk, _) = self.split(Place(index.ways[i].place.load(Relaxed)));
                    let n = self.chunks.len();
                    (index.marks[i].load(Relaxed) != 0, (chunk + n - current - 1) % n)
                })
            })
            .expect("a set has ways");
        index.marks[way].store(0, Relaxed);
        // Key cleared, then place, then key: a reader that read the old key
        // and then the new place finds the key changed when it looks again
        // (see `find`); one that sees the new key sees the new place and
        // the block written before it.
        index.ways[way].key.store(EMPTY, Relaxed);
        index.ways[way].place.store(place.0, Release);
        index.ways[way].key.store(key, Release);
    }

    /// Makes room for `words` words and returns their place: in the chunk
    /// being filled, or else in the next chunk round the ring, whose blocks
    /// are dropped except those read since they went in.
    fn make_room(&self, w: &mut Writer, words: usize) -> Place {
        // The blocks kept may leave too little room: then the next chunk
        // too, without second chances, so that this ends.
        let mut second_chances = true;
        while w.fill + words > self.chunk_words() {
            w.fills[w.chunk] = w.fill;
            w.chunk = (w.chunk + 1) % self.chunks.len();
            w.fill = 0;
            let kept = self.reuse(w.chunk, w.fills[w.chunk], second_chances);
            second_chances = false;
            w.live = w.live - w.blocks[w.chunk] + kept.len();
            w.blocks[w.chunk] = kept.len();
            for (key, block) in kept {
                let place = self.place(w.chunk, w.fill);
                let chunk = self.chunk(place);
                for (i, &word) in block.iter().enumerate() {
                    chunk[w.fill + i].store(word, Relaxed);
                }
                w.fill += block.len();
                self.publish(key, place, w.chunk);
            }
        }
        let place = self.place(w.chunk, w.fill);
        w.fill += words;
        place
    }

    /// Empties chunk `chunk` (of `fill` words in use) for new blocks: bumps
    /// its generation, so that readers stop trusting what it held, and
    /// returns the blocks that earn a second chance (if `second_chances`),
    /// to be written back.
    fn reuse(&self, chunk: usize, fill: usize, second_chances: bool) -> Vec<(u64, Vec<u64>)> {
        let mut kept = Vec::new();
        if let Some(words) = self.chunks[chunk].get().filter(|_| second_chances) {
            let index = self.writer_index();
            let (mut start, mut kept_words) = (0, 0);
            while start < fill {
                let key = words[start].load(Relaxed);
                let len = HEADER + (words[start + 1].load(Relaxed) as usize).div_ceil(8);
                let place = self.place(chunk, start);
                let read = index.set_of(key).any(|i| {
                    index.ways[i].key.load(Relaxed) == key
                        && index.ways[i].place.load(Relaxed) == place.0
                        && index.marks[i].load(Relaxed) != 0
                });
                if read && kept_words + len <= self.chunk_words() / SECOND_CHANCE_SHARE {
                    kept.push((key, words[start..start + len].iter().map(|w| w.load(Relaxed)).collect()));
                    kept_words += len;
                }
                start += len;
            }
        }
        let generation = self.generations[chunk].load(Relaxed).wrapping_add(1);
        self.generations[chunk].store(generation, Relaxed);
        // Pairs with the reader's fence: a reader that sees any word
        // written after this point sees the new generation.
        fence(Release);
        kept
    }

    pub(crate) fn stats(&self) -> CacheStats {
        let inserted = self.lock().inserted;
        let blocks = self.index().map_or(0, |index| {
            (0..index.ways.len())
                .filter(|&w| {
                    let key = index.ways[w].key.load(Acquire);
                    key != EMPTY && self.live_way(key) == Some(w)
                })
                .count()
        });
        let chunks = self.chunks.iter().filter(|c| c.get().is_some()).count();
        let index_bytes: usize = self.indexes.iter().filter_map(|i| i.get()).map(|i| i.ways.len() * WAY_BYTES).sum();
        CacheStats {
            budget: self.budget,
            bytes: chunks * self.chunk_words() * 8 + index_bytes + self.read_once.len() * 8,
            blocks,
            hits: self.counts.total(HITS),
            misses: self.counts.total(MISSES),
            evictions: inserted.saturating_sub(blocks as u64),
        }
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
        assert_eq!(cache.entry(7, 0, 1, || block(3, 100)), Ok(3));
        assert_eq!(cache.entry(7, 99, 1, cached), Ok(3));
        assert_eq!(cache.entry(7, 98, 2, cached), Ok(0x0303));
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.blocks), (2, 1, 1));
    }

    #[test]
    fn reads_every_entry_as_stored() {
        let cache = BlockCache::new(1 << 20);
        let data: Box<[u8]> = (0..1001u32).map(|i| (i * 7 % 251) as u8).collect();
        cache.entry(1, 0, 1, || Ok::<_, ()>(data.clone())).unwrap();
        for at in 0..data.len() {
            assert_eq!(cache.entry(1, at, 1, cached), Ok(data[at] as u16));
        }
        for at in (0..data.len() - 1).step_by(2) {
            assert_eq!(cache.entry(1, at, 2, cached), Ok(u16::from_le_bytes([data[at], data[at + 1]])));
        }
    }

    #[test]
    fn stays_within_the_budget() {
        let cache = BlockCache::new(40_000);
        for key in 0..1000u64 {
            assert_eq!(cache.entry(key, 999, 1, || block(key as u8, 1000)), Ok(key as u8 as u16));
            assert!(cache.stats().bytes <= 40_000);
        }
        let s = cache.stats();
        assert!(s.blocks >= 5 && s.evictions >= 950, "{s:?}");
        // Every answer is right, cached or not.
        for key in 0..1000u64 {
            assert_eq!(cache.entry(key, 500, 1, || block(key as u8, 1000)), Ok(key as u8 as u16));
        }
    }

    #[test]
    fn read_blocks_survive_a_turn() {
        // Room for about 20 blocks of 1,000 bytes.
        let cache = BlockCache::new(20 * 1016 + 16 * WAYS * WAY_BYTES + 8);
        cache.entry(0, 0, 1, || block(0, 1000)).unwrap();
        for key in 1..200 {
            cache.entry(key, 0, 1, || block(0, 1000)).unwrap();
            // Block 0 is read between insertions, so it is never dropped.
            cache.entry(0, 0, 1, cached).unwrap();
        }
        assert!(cache.stats().evictions > 150);
    }

    #[test]
    fn a_zero_budget_caches_nothing() {
        let cache = BlockCache::new(0);
        for _ in 0..3 {
            assert_eq!(cache.entry(1, 5, 1, || block(9, 10)), Ok(9));
        }
        assert_eq!(cache.stats().blocks, 0);
        assert_eq!(cache.stats().misses, 3);
        assert_eq!(cache.stats().bytes, 0);
    }

    #[test]
    fn a_probe_reads_a_block_the_cache_cannot_keep_once() {
        let cache = BlockCache::new(0);
        {
            let _probe = ProbeScope::enter();
            let _inner = ProbeScope::enter();
            for _ in 0..3 {
                assert_eq!(cache.entry(1, 5, 1, || block(9, 10)), Ok(9));
            }
            assert_eq!(cache.entry(2, 5, 1, || block(4, 10)), Ok(4));
        }
        assert_eq!(cache.stats().misses, 2);
        // The probe is over: its blocks are gone.
        assert_eq!(cache.entry(1, 5, 1, || block(9, 10)), Ok(9));
        assert_eq!(cache.stats().misses, 3);
        assert_eq!(cache.stats().bytes, 0);
    }

    /// Reads entry 5 of block `key` (all `byte`) by `entry_or_in_place`.
    fn read(cache: &BlockCache, key: u64, byte: u8) -> Result<Read, ()> {
        cache.entry_or_in_place(key, 5, 1, || block(byte, 10), (10, |_: Option<&mut RunCursor>| Ok(byte as u16)))
    }

    #[test]
    fn a_block_read_once_is_read_in_place_and_kept_when_read_again() {
        let cache = BlockCache::new(1 << 20);
        assert_eq!(read(&cache, 1, 7), Ok(Read::InPlace(7)));
        assert_eq!(cache.stats().blocks, 0);
        assert_eq!(read(&cache, 1, 7), Ok(Read::FromBlock(7)));
        assert_eq!(read(&cache, 1, 7), Ok(Read::FromBlock(7)));
        assert_eq!(read(&cache, 2, 3), Ok(Read::InPlace(3)));
        let s = cache.stats();
        assert_eq!((s.blocks, s.hits, s.misses), (1, 1, 3));
        assert!(cache.read_lately(2) && !cache.read_lately(3));
    }

    #[test]
    fn a_probe_reads_on_in_place_what_it_read_in_place_and_the_next_probe_caches_it() {
        let cache = BlockCache::new(1 << 20);
        {
            let _probe = ProbeScope::enter();
            assert_eq!(read(&cache, 1, 7), Ok(Read::InPlace(7)));
            assert_eq!(read(&cache, 1, 7), Ok(Read::InPlace(7)), "the same probe");
        }
        assert_eq!(cache.stats().blocks, 0);
        let _probe = ProbeScope::enter();
        assert_eq!(read(&cache, 1, 7), Ok(Read::FromBlock(7)), "the next probe");
        assert_eq!(read(&cache, 1, 7), Ok(Read::FromBlock(7)));
        let s = cache.stats();
        assert_eq!((s.blocks, s.hits, s.misses), (1, 2, 2));
    }

    #[test]
    fn a_cache_that_keeps_nothing_reads_in_place_through_the_probes_cursor() {
        let cache = BlockCache::new(0);
        // Whether each read was given a cursor; loading the block fails.
        let read = |key: u64, cursors: &mut Vec<bool>| {
            let in_place = |cursor: Option<&mut RunCursor>| {
                cursors.push(cursor.is_some());
                Ok(7)
            };
            cache.entry_or_in_place(key, 5, 1, || Err("decompressed"), (10, in_place))
        };
        let mut cursors = Vec::new();
        {
            let _probe = ProbeScope::enter();
            for key in [1, 1, 2, 1] {
                assert_eq!(read(key, &mut cursors), Ok(Read::InPlace(7)));
            }
            assert_eq!(PROBE_BLOCKS_HELD.with_borrow(|p| p.cursors.len()), 2);
        }
        assert_eq!(cache.stats().misses, 2, "a miss a block a probe reads");
        assert_eq!(read(1, &mut cursors), Ok(Read::InPlace(7)), "the probe is over");
        assert_eq!(cursors, [true, true, true, true, false]);
        assert_eq!(PROBE_BLOCKS_HELD.with_borrow(|p| p.cursors.len()), 0);
        assert_eq!(cache.stats().misses, 3);
        assert_eq!(cache.stats().bytes, 0);
    }

    #[test]
    fn load_errors_pass_through_and_are_not_cached() {
        let cache = BlockCache::new(1 << 20);
        assert_eq!(cache.entry(1, 0, 1, || Err::<Box<[u8]>, _>("bad")), Err("bad"));
        assert_eq!(cache.entry(1, 0, 1, || Ok::<_, &str>(vec![4].into())), Ok(4));
    }

    #[test]
    fn the_index_grows_with_the_blocks() {
        let cache = BlockCache::new(64 << 20);
        let first = cache.stats().bytes;
        assert!(first < 64 << 10, "{first} bytes for an empty cache");
        let n = 10_000u64;
        for key in 0..n {
            cache.entry(key, 0, 1, || block(key as u8, 4000)).unwrap();
        }
        // Every answer right; nearly every block still there (a key whose
        // set is full may push another out).
        for key in 0..n {
            assert_eq!(cache.entry(key, 3999, 1, || block(key as u8, 4000)), Ok(key as u8 as u16));
        }
        let s = cache.stats();
        assert!(s.misses < n + n / 100 && s.blocks as u64 > n - n / 100, "{s:?}");
        assert!(cache.level.load(Relaxed) > 0 && s.bytes <= 64 << 20, "{s:?}");
    }

    #[test]
    fn threads_read_right_values_while_blocks_are_overwritten() {
        // A small cache, so that readers often race the writer that
        // overwrites the block they read; every answer must still be right.
        race(64 * 1024, 100);
    }

    #[test]
    fn threads_read_right_values_while_the_index_grows() {
        race(16 << 20, 3000);
    }

    /// Four threads probe `keys` blocks through a cache of `budget` bytes.
    fn race(budget: usize, keys: u64) {
        let cache = BlockCache::new(budget);
        let value = |key: u64, at: usize| ((key * 31 + at as u64 * 7) % 253) as u8;
        std::thread::scope(|scope| {
            for t in 0..4u64 {
                let cache = &cache;
                scope.spawn(move || {
                    let mut x = t + 1;
                    for _ in 0..100_000 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // Blocks of 1,000 to 8,999 bytes: some fill a
                        // chunk nearly, some do not fit one.
                        let key = x % keys;
                        let len = 1000 + (key as usize * 797) % 8000;
                        let at = (x >> 20) as usize % len;
                        let load = || Ok::<_, ()>((0..len).map(|i| value(key, i)).collect());
                        assert_eq!(cache.entry(key, at, 1, load), Ok(value(key, at) as u16));
                    }
                });
            }
        });
        let s = cache.stats();
        assert!(s.hits > 10_000 && (s.evictions > 1_000 || cache.level.load(Relaxed) > 0), "{s:?}");
    }
}
