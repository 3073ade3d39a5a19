//! Run coding of result blocks (`.wdl`, format 8; docs/FORMAT.md, "Result
//! blocks"). A block of result codes is a sequence of runs of one code;
//! each run is one Huffman code word for its code and length bucket, in the
//! context of the code of the run before it, followed by the length's low
//! bits. One set of code words serves a whole file, so that a block pays
//! for no tables of its own: on the result files up to 5 pieces of a
//! Russian-rule build this took a quarter off what zstd over codes three
//! to a byte took (docs/COMPRESSION.md).

/// Result codes (0..5, those of a packed [`crate::Value`]).
pub const CODES: usize = 5;
/// Length buckets: lengths 1 to 8 alone, then four a power of two (the two
/// bits below the leading one name the bucket) up to lengths below 2^21.
pub const BUCKETS: usize = 8 + 4 * (MAX_LENGTH_BITS as usize - 3);
/// Runs are shorter than 2^MAX_LENGTH_BITS entries (blocks are).
pub const MAX_LENGTH_BITS: u32 = 21;
/// The code before a block's first run: none.
const START: usize = CODES;
/// Contexts: the code of the run before, or the start of a block.
pub const CONTEXTS: usize = CODES + 1;
/// Symbols of a context: a code and a length bucket.
const SYMBOLS: usize = CODES * BUCKETS;
/// Code words in a file's table: one length a symbol of each context.
pub const TABLE_LEN: usize = CONTEXTS * SYMBOLS;
/// The longest code word.
const MAX_WORD: u32 = 15;
/// Code words this long or shorter decode by one table lookup: 6 KiB of
/// lookup a file (10 bits took 24 KiB, which a probe reading several files
/// pulls through the CPU caches, and decoded no faster).
const LOOKUP_BITS: u32 = 8;

/// A run: `len << 3 | code`, as the writer keeps many of them.
pub type Run = u32;

fn run(code: u8, len: usize) -> Run {
    (len as u32) << 3 | code as u32
}

fn code_of(r: Run) -> usize {
    (r & 7) as usize
}

fn len_of(r: Run) -> u32 {
    r >> 3
}

/// Where a block of `entries` is cut in two (format 13): its first half is
/// coded from the block's first byte on, the rest from its last byte back,
/// from its last entry down. Reading an entry in place walks the runs of
/// its own half from that half's end of the block: a quarter of the block
/// on average, not half, for a byte or so a block (docs/COMPRESSION.md).
pub fn split(entries: usize) -> usize {
    entries / 2
}

/// A block's runs as they are coded: those of its first [`split`] entries,
/// and those of the rest from its last entry down.
pub type BlockRuns = [Vec<Run>; 2];

/// The runs of a block of result codes, as they are coded.
pub fn block_runs(codes: &[u8]) -> BlockRuns {
    let (first, rest) = codes.split_at(split(codes.len()));
    let mut back = runs_of(rest);
    back.reverse();
    [runs_of(first), back]
}

/// The runs of some result codes.
pub fn runs_of(codes: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=codes.len() {
        if i == codes.len() || codes[i] != codes[start] {
            out.push(run(codes[start], i - start));
            start = i;
        }
    }
    out
}

/// The bucket of a run length (>= 1) and how many low bits follow it.
fn bucket(len: u32) -> (usize, u32) {
    if len <= 8 {
        return (len as usize - 1, 0);
    }
    let e = 31 - len.leading_zeros();
    let mantissa = (len >> (e - 2)) & 3;
    (8 + 4 * (e as usize - 3) + mantissa as usize, e - 2)
}

/// The smallest length of a bucket, and how many low bits follow it.
const fn bucket_start(b: usize) -> (u32, u32) {
    if b < 8 {
        return (b as u32 + 1, 0);
    }
    let e = (b - 8) as u32 / 4 + 3;
    ((4 | ((b - 8) as u32 % 4)) << (e - 2), e - 2)
}

/// Where a run's symbol is in a table: its context's, its code and bucket.
fn symbol(context: usize, r: Run) -> (usize, u32) {
    let (b, extra) = bucket(len_of(r));
    (context * SYMBOLS + code_of(r) * BUCKETS + b, extra)
}

/// How often each symbol occurs in some blocks' runs, and the low bits
/// their lengths take.
#[derive(Clone)]
pub struct Frequencies {
    counts: Vec<u64>,
    extra_bits: u64,
}

impl Default for Frequencies {
    fn default() -> Frequencies {
        Frequencies { counts: vec![0; TABLE_LEN], extra_bits: 0 }
    }
}

impl Frequencies {
    /// Counts the runs of one block, both halves.
    pub fn add_block(&mut self, block: &BlockRuns) {
        for runs in block {
            let mut context = START;
            for &r in runs {
                let (s, extra) = symbol(context, r);
                self.counts[s] += 1;
                self.extra_bits += extra as u64;
                context = code_of(r);
            }
        }
    }

    pub fn merge(mut self, other: &Frequencies) -> Frequencies {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.extra_bits += other.extra_bits;
        self
    }

    /// Bits the runs take coded with their own frequencies (the entropy):
    /// what the writer compares entry orders by.
    pub fn entropy_bits(&self) -> f64 {
        let mut bits = self.extra_bits as f64;
        for counts in self.counts.chunks(SYMBOLS) {
            let total: u64 = counts.iter().sum();
            for &n in counts.iter().filter(|&&n| n > 0) {
                bits -= n as f64 * (n as f64 / total as f64).log2();
            }
        }
        bits
    }
}

/// Huffman code word lengths for `counts` (0 for symbols that do not occur),
/// none longer than [`MAX_WORD`]: where the tree grows deeper, the counts
/// are halved and the tree built again.
fn word_lengths(counts: &[u64]) -> Vec<u8> {
    let mut counts = counts.to_vec();
    loop {
        let lengths = huffman(&counts);
        if lengths.iter().all(|&l| l as u32 <= MAX_WORD) {
            return lengths;
        }
        for c in counts.iter_mut().filter(|c| **c > 0) {
            *c = (*c).div_ceil(2);
        }
    }
}

fn huffman(counts: &[u64]) -> Vec<u8> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut lengths = vec![0u8; counts.len()];
    let mut parent: Vec<usize> = Vec::new();
    let mut heap = BinaryHeap::new();
    let mut leaves = Vec::new();
    for (s, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
        heap.push(Reverse((n, parent.len())));
        parent.push(usize::MAX);
        leaves.push(s);
    }
    if let [only] = leaves[..] {
        lengths[only] = 1;
        return lengths;
    }
    while heap.len() > 1 {
        let (Some(Reverse((a, i))), Some(Reverse((b, j)))) = (heap.pop(), heap.pop()) else { break };
        let node = parent.len();
        parent.push(usize::MAX);
        parent[i] = node;
        parent[j] = node;
        heap.push(Reverse((a + b, node)));
    }
    for (leaf, &s) in leaves.iter().enumerate() {
        let (mut depth, mut at) = (0, leaf);
        while parent[at] != usize::MAX {
            at = parent[at];
            depth += 1;
        }
        lengths[s] = depth.min(u8::MAX as u32) as u8;
    }
    lengths
}

/// Canonical code words from their lengths (shorter first, then by
/// symbol); `None` if the lengths over-fill the code space or exceed
/// [`MAX_WORD`].
fn canonical(lengths: &[u8]) -> Option<Vec<u16>> {
    let mut per_length = [0u32; MAX_WORD as usize + 1];
    for &l in lengths {
        if l as u32 > MAX_WORD {
            return None;
        }
        per_length[l as usize] += 1;
    }
    per_length[0] = 0;
    let mut next = [0u32; MAX_WORD as usize + 2];
    let mut code = 0u32;
    for l in 1..=MAX_WORD as usize {
        code = (code + per_length[l - 1]) << 1;
        next[l] = code;
    }
    let mut words = vec![0u16; lengths.len()];
    for (s, &l) in lengths.iter().enumerate().filter(|(_, &l)| l > 0) {
        let w = next[l as usize];
        if w >> l != 0 {
            return None;
        }
        words[s] = w as u16;
        next[l as usize] += 1;
    }
    Some(words)
}

/// A file's code words, for writing.
pub struct Encoder {
    lengths: Vec<u8>,
    words: Vec<u16>,
}

impl Encoder {
    /// The code words for runs that occur as `frequencies` counts (each
    /// context its own Huffman code).
    pub fn new(frequencies: &Frequencies) -> Encoder {
        let lengths: Vec<u8> = frequencies.counts.chunks(SYMBOLS).flat_map(word_lengths).collect();
        let words = lengths.chunks(SYMBOLS).flat_map(|l| canonical(l).expect("Huffman lengths fit")).collect();
        Encoder { lengths, words }
    }

    /// The table a file stores: one code word length a symbol.
    pub fn table(&self) -> &[u8] {
        &self.lengths
    }

    /// A block's bytes: the bytes of its first half's runs, then those of
    /// the rest's, last byte first (see [`split`]). Every run must have been
    /// counted in the frequencies the encoder was made from.
    pub fn encode(&self, block: &BlockRuns) -> Vec<u8> {
        let mut out = self.encode_runs(&block[0]);
        out.extend(self.encode_runs(&block[1]).iter().rev());
        out
    }

    /// Runs' code words and low bits, most significant bit first, the last
    /// byte padded with zeros: a half block, or a whole one before format 13.
    fn encode_runs(&self, runs: &[Run]) -> Vec<u8> {
        let mut out = Vec::with_capacity(runs.len() * 2);
        let (mut acc, mut bits) = (0u64, 0u32);
        let mut put = |value: u64, n: u32, out: &mut Vec<u8>| {
            acc = acc << n | value;
            bits += n;
            while bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
            }
        };
        let mut context = START;
        for &r in runs {
            let (s, extra) = symbol(context, r);
            assert!(self.lengths[s] > 0, "a run the frequencies did not count");
            put(self.words[s] as u64, self.lengths[s] as u32, &mut out);
            put(len_of(r) as u64 & ((1 << extra) - 1), extra, &mut out);
            context = code_of(r);
        }
        if bits > 0 {
            out.push((acc << (8 - bits)) as u8);
        }
        out
    }
}

/// Why a file's table of code words cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadTable;

/// A file's code words, for reading.
pub struct Decoder {
    /// Per context, 2^LOOKUP_BITS entries: the [`Word`] the bits begin
    /// with, 0 where it is longer, or none, or its runs 2^20 or longer.
    lookup: Vec<u32>,
    /// Per context and length, the first canonical word, how many words
    /// are that long and where their symbols begin in `sorted` (for words
    /// longer than the lookup, or runs too long for it).
    long: Vec<[(u32, u32, u32); MAX_WORD as usize + 1]>,
    /// Per context, its symbols in canonical order.
    sorted: Vec<Vec<u16>>,
    /// Blocks are coded in two halves ([`split`], format 13), else whole
    /// from their first byte.
    halved: bool,
}

impl Decoder {
    /// The decoder of the code words `table`, for blocks coded in halves
    /// if `halved` (format 13 on).
    pub fn new(table: &[u8], halved: bool) -> Result<Decoder, BadTable> {
        if table.len() != TABLE_LEN {
            return Err(BadTable);
        }
        let mut d = Decoder {
            lookup: vec![0; CONTEXTS << LOOKUP_BITS],
            long: vec![[(0, 0, 0); MAX_WORD as usize + 1]; CONTEXTS],
            sorted: vec![Vec::new(); CONTEXTS],
            halved,
        };
        for (c, lengths) in table.chunks(SYMBOLS).enumerate() {
            let words = canonical(lengths).ok_or(BadTable)?;
            let mut order: Vec<usize> = (0..SYMBOLS).filter(|&s| lengths[s] > 0).collect();
            order.sort_by_key(|&s| (lengths[s], s));
            d.sorted[c] = order.iter().map(|&s| s as u16).collect();
            for (k, &s) in order.iter().enumerate() {
                let l = lengths[s] as usize;
                let entry = &mut d.long[c][l];
                if entry.1 == 0 {
                    *entry = (words[s] as u32, 0, k as u32);
                }
                entry.1 += 1;
                if l as u32 <= LOOKUP_BITS {
                    let shift = LOOKUP_BITS - l as u32;
                    let base = (c << LOOKUP_BITS) + ((words[s] as usize) << shift);
                    d.lookup[base..base + (1 << shift)].fill(word(s, l as u32).unwrap_or(0));
                }
            }
        }
        Ok(d)
    }

    /// The word the bits `window` (the next 32, most significant first)
    /// begin with in `context`: its code, the low bits after it, its
    /// bucket's first run length and the bits the word and its low bits
    /// take together.
    #[inline(always)]
    fn word(&self, context: usize, window: u32) -> Option<(u8, u32, u32, u32)> {
        let w = self.lookup[(context << LOOKUP_BITS) | (window >> (32 - LOOKUP_BITS)) as usize];
        if w != 0 {
            return Some(((w >> 6 & 7) as u8, w >> 9 & 31, w >> 14, w & 63));
        }
        self.long_word(context, window)
    }

    /// [`Decoder::word`] for words longer than the lookup, which are rare.
    #[cold]
    #[inline(never)]
    fn long_word(&self, context: usize, window: u32) -> Option<(u8, u32, u32, u32)> {
        for l in 1..=MAX_WORD {
            let (first, count, start) = self.long[context][l as usize];
            let k = (window >> (32 - l)).wrapping_sub(first);
            if k < count {
                let s = *self.sorted[context].get((start + k) as usize)? as usize;
                let (base, extra) = bucket_start(s % BUCKETS);
                return Some(((s / BUCKETS) as u8, extra, base, l + extra));
            }
        }
        None
    }

    /// The next run of a block after a run of `context`: its code and
    /// length; `None` if the bits are no run there.
    #[inline(always)]
    fn next_run(&self, bits: &mut Bits, context: usize) -> Option<(u8, usize)> {
        // One refill a run: a word and its low bits take at most 33.
        bits.refill();
        let (code, extra, base, taken) = self.word(context, (bits.acc >> 32) as u32)?;
        // The low bits end the bits taken: read from the same window as
        // the word, not after a shift.
        let low = (bits.acc >> (64 - taken)) as u32 & ((1 << extra) - 1);
        bits.skip(taken);
        let len = (base + low) as usize;
        (code as usize != context).then_some((code, len))
    }

    /// Decodes a block of `entries` result codes packed three to a byte
    /// in planes of `plane` bytes, as [`crate::format::pack_codes`] packs
    /// them; `None` if the bytes are not such a block.
    pub fn decode_packed(&self, bytes: &[u8], entries: usize, plane: usize) -> Option<Vec<u8>> {
        if entries > 3 * plane {
            return None;
        }
        // Codes one a byte first (a short run is a store or two of 16 bytes
        // into the slack at the end, not a call of memset), then packed.
        let mut codes = vec![0u8; 3 * plane + SHORT];
        let cut = self.cut(entries);
        let mut first = Bits::new(bytes, false);
        let (mut at, mut context) = (0usize, START);
        while at < cut {
            let (code, len) = self.next_run(&mut first, context)?;
            let end = at + len;
            if end > cut {
                return None;
            }
            // Always the first SHORT: no branch on the length to mispredict.
            // What lands past the cut is written over by the rest.
            codes[at..at + SHORT].fill(code);
            if len > SHORT {
                codes[at + SHORT..end].fill(code);
            }
            at = end;
            context = code as usize;
        }
        let mut rest = Bits::new(bytes, true);
        let (mut at, mut context) = (entries, START);
        while at > cut {
            let (code, len) = self.next_run(&mut rest, context)?;
            let start = at.checked_sub(len).filter(|&start| start >= cut)?;
            // The same, downwards, where the SHORT below stay above the cut.
            if at >= cut + SHORT {
                codes[at - SHORT..at].fill(code);
                if len > SHORT {
                    codes[start..at - SHORT].fill(code);
                }
            } else {
                codes[start..at].fill(code);
            }
            at = start;
            context = code as usize;
        }
        // The halves' bytes make the block, no more, no less (past the end
        // the bits read as zeros): a block that needed more is cut short.
        if first.consumed().div_ceil(8) + rest.consumed().div_ceil(8) != bytes.len() as u64 {
            return None;
        }
        // The slack after the last code is zeros, as packing wants.
        codes[entries..].fill(0);
        let (a, rest) = codes.split_at(plane);
        let (b, c) = rest.split_at(plane);
        Some(a.iter().zip(b).zip(&c[..plane]).map(|((a, b), c)| a + 5 * b + 25 * c).collect())
    }

    /// Where a block of `entries` is cut between its halves: [`split`], or
    /// its end where blocks are coded whole.
    fn cut(&self, entries: usize) -> usize {
        if self.halved {
            split(entries)
        } else {
            entries
        }
    }

    /// The half of a block of `entries` that holds `entry`, its place as
    /// that half's runs come, and the half's entries; `None` past the
    /// block.
    fn place(&self, entries: usize, entry: usize) -> Option<(usize, usize, usize)> {
        let cut = self.cut(entries);
        match entry {
            _ if entry >= entries => None,
            _ if entry < cut => Some((0, entry, cut)),
            _ => Some((1, entries - 1 - entry, entries - cut)),
        }
    }

    /// The code of entry `entry` of a block of `entries`, read from the
    /// runs of its half up to it without decoding the rest: about a sixth
    /// of the time of decoding a whole block, for a block read once.
    /// `None` if the bytes up to it are not such a block's.
    pub fn code_at(&self, bytes: &[u8], entries: usize, entry: usize) -> Option<u8> {
        let (half, at, len) = self.place(entries, entry)?;
        self.walk::<false>(bytes, half == 1, len, at, &mut HalfCursor::default(), 0)
    }

    /// [`Decoder::code_at`] of a block read before through `cursor`: an
    /// entry within the runs read already is found among them, one beyond
    /// them is read on from where the walk stopped. A probe reads several
    /// entries of most blocks it reads; this reads each block's runs once,
    /// where decompressing it whole (to read it again) took three times a
    /// walk. `cursor` must have read only these `bytes`.
    pub fn code_at_cursor(&self, bytes: &[u8], entries: usize, entry: usize, cursor: &mut RunCursor) -> Option<u8> {
        let (half, at, len) = self.place(entries, entry)?;
        let [first, rest] = &mut cursor.halves;
        let (cursor, other) = if half == 0 { (first, rest) } else { (rest, first) };
        if at < cursor.at {
            let run = cursor.ends.partition_point(|&end| end as usize <= at);
            return cursor.codes.get(run).copied();
        }
        self.walk::<true>(bytes, half == 1, len, at, cursor, other.consumed())
    }

    /// Reads on from where `cursor` stopped, in the half of `entries`
    /// read from the block's end if `back`, up to the run that holds
    /// `entry` of the half, noting the runs read if `KEEP`; the other half
    /// has taken `other` bits.
    #[inline(always)]
    fn walk<const KEEP: bool>(
        &self,
        bytes: &[u8],
        back: bool,
        entries: usize,
        entry: usize,
        cursor: &mut HalfCursor,
        other: u64,
    ) -> Option<u8> {
        let mut bits = Bits { bytes, at: cursor.bytes, acc: cursor.acc, bits: cursor.bits, back };
        let (mut at, mut context, runs) = (cursor.at, cursor.context, cursor.ends.len());
        while let Some((code, len)) = self.next_run(&mut bits, context) {
            at += len;
            if KEEP {
                cursor.ends.push(at as u32);
                cursor.codes.push(code);
            }
            if at > entry {
                // The bits read so far lie within the block: so did every run
                // kept before.
                if at > entries || bits.consumed() + other > bytes.len() as u64 * 8 {
                    break;
                }
                if KEEP {
                    *cursor = HalfCursor { at, context: code as usize, bytes: bits.at, acc: bits.acc, bits: bits.bits, ..std::mem::take(cursor) };
                }
                return Some(code);
            }
            context = code as usize;
        }
        // Not such a block: forget the runs read by this walk.
        cursor.ends.truncate(runs);
        cursor.codes.truncate(runs);
        None
    }
}

/// How far walks through a block's runs got ([`Decoder::code_at_cursor`]),
/// in each half.
#[derive(Debug, Default)]
pub struct RunCursor {
    halves: [HalfCursor; 2],
}

impl RunCursor {
    /// A cursor at the start of a block again, keeping its memory.
    pub fn clear(&mut self) {
        self.halves.iter_mut().for_each(HalfCursor::clear);
    }
}

/// How far a walk through a half block's runs got: the runs read, and
/// where the bits resume.
#[derive(Debug)]
struct HalfCursor {
    /// Per run read, the entry after its last; and its code.
    ends: Vec<u32>,
    codes: Vec<u8>,
    /// The entries the runs read cover, and the code of the last of them.
    at: usize,
    context: usize,
    /// [`Bits`] where the walk stopped.
    bytes: usize,
    acc: u64,
    bits: u32,
}

impl HalfCursor {
    /// The bits the runs read take.
    fn consumed(&self) -> u64 {
        (self.bytes as u64 * 8).saturating_sub(self.bits as u64)
    }

    fn clear(&mut self) {
        let (mut ends, mut codes) = (std::mem::take(&mut self.ends), std::mem::take(&mut self.codes));
        ends.clear();
        codes.clear();
        *self = HalfCursor { ends, codes, ..HalfCursor::default() };
    }
}

impl Default for HalfCursor {
    fn default() -> HalfCursor {
        HalfCursor { ends: Vec::new(), codes: Vec::new(), at: 0, context: START, bytes: 0, acc: 0, bits: 0 }
    }
}

/// A code word, decoded for the lookup: `base << 14 | extra << 9 | code <<
/// 6 | bits`, its symbol's bucket's first run length, the low bits that
/// follow, the run's code and the bits of the word and its low bits
/// together (never 0); `None` for runs of 2^18 or more, which do not fit
/// (blocks are far shorter).
type Word = u32;

fn word(symbol: usize, length: u32) -> Option<Word> {
    let (base, extra) = bucket_start(symbol % BUCKETS);
    (base < 1 << 18).then(|| base << 14 | extra << 9 | ((symbol / BUCKETS) as u32) << 6 | (length + extra))
}

/// The first this many codes of every run are written without a branch
/// (into slack past the block's end), longer runs' rest by memset.
const SHORT: usize = 32;

/// Bits of a block, most significant first, past its end zeros; or, for
/// the half coded from the block's end (`back`), its bytes from the last
/// back, past the first zeros.
struct Bits<'a> {
    bytes: &'a [u8],
    /// Bytes taken into `acc`.
    at: usize,
    /// The next `bits` bits, from the most significant.
    acc: u64,
    bits: u32,
    back: bool,
}

impl Bits<'_> {
    fn new(bytes: &[u8], back: bool) -> Bits<'_> {
        Bits { bytes, at: 0, acc: 0, bits: 0, back }
    }

    /// Tops `acc` up to at least 56 bits.
    #[inline]
    fn refill(&mut self) {
        let n = self.bytes.len();
        let word = if n >= self.at + 8 {
            if self.back {
                // The 8 bytes before those taken, last first.
                let end = n - self.at;
                u64::from_le_bytes(self.bytes[end - 8..end].try_into().expect("8 bytes"))
            } else {
                u64::from_be_bytes(self.bytes[self.at..self.at + 8].try_into().expect("8 bytes"))
            }
        } else {
            self.last_word()
        };
        // Bits past the whole bytes taken are ORed again, the same, next time.
        self.acc |= word >> self.bits;
        let taken = (63 - self.bits) / 8;
        self.at += taken as usize;
        self.bits += 8 * taken;
    }

    /// The fewer than 8 bytes left, padded with zeros.
    #[cold]
    fn last_word(&self) -> u64 {
        let mut b = [0u8; 8];
        let rest = self.bytes.len().saturating_sub(self.at);
        if self.back {
            b.iter_mut().zip(self.bytes[..rest].iter().rev()).for_each(|(b, &r)| *b = r);
        } else {
            b[..rest].copy_from_slice(&self.bytes[self.bytes.len() - rest..]);
        }
        u64::from_be_bytes(b)
    }

    fn skip(&mut self, n: u32) {
        self.acc <<= n;
        self.bits -= n;
    }

    fn consumed(&self) -> u64 {
        self.at as u64 * 8 - self.bits as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLANE: usize = 1 << 14;

    fn packed(codes: &[u8]) -> Vec<u8> {
        crate::format::pack_codes(codes, PLANE)
    }

    fn decode(decoder: &Decoder, bytes: &[u8], entries: usize) -> Option<Vec<u8>> {
        decoder.decode_packed(bytes, entries, PLANE)
    }

    #[test]
    fn buckets_cover_every_length_once() {
        for len in 1..70_000u32 {
            let (b, extra) = bucket(len);
            let (start, bits) = bucket_start(b);
            assert_eq!(extra, bits, "{len}");
            assert!(start <= len && len - start < 1 << bits, "{len} in bucket {b} from {start}");
        }
        assert_eq!(bucket((1 << MAX_LENGTH_BITS) - 1).0, BUCKETS - 1);
    }

    /// Blocks of every kind of run, coded in halves (format 13) and whole
    /// (as before).
    fn test_blocks() -> Vec<Vec<u8>> {
        let mut blocks: Vec<Vec<u8>> = vec![vec![1; 16384], vec![0, 1, 2, 3, 4, 0, 0, 0], vec![2; 1]];
        let mut state = 7u64;
        for n in [5usize, 100, 16384, 9999, 12288] {
            let mut block = Vec::new();
            while block.len() < n {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let len = 1 + (state >> 33) as usize % [1, 3, 40, 3000][(state >> 60) as usize % 4];
                block.extend(std::iter::repeat_n((state >> 40) as u8 % 5, len.min(n - block.len())));
            }
            blocks.push(block);
        }
        blocks
    }

    #[test]
    fn blocks_come_back_as_written() {
        let blocks = test_blocks();
        for halved in [true, false] {
            // Whole blocks are one half that ends where the block does.
            let runs: Vec<BlockRuns> =
                blocks.iter().map(|b| if halved { block_runs(b) } else { [runs_of(b), Vec::new()] }).collect();
            let frequencies = runs.iter().fold(Frequencies::default(), |mut f, r| {
                f.add_block(r);
                f
            });
            let encoder = Encoder::new(&frequencies);
            let decoder = Decoder::new(encoder.table(), halved).unwrap();
            let mut total = 0;
            for (block, runs) in blocks.iter().zip(&runs) {
                let bytes = encoder.encode(runs);
                total += bytes.len() * 8;
                assert_eq!(decode(&decoder, &bytes, block.len()).as_deref(), Some(&packed(block)[..]));
                // (A count of entries other than the block's may decode: the runs
                // of the halves can meet elsewhere. The header's checksum guards
                // the count.)
                for (i, &code) in block.iter().enumerate() {
                    assert_eq!(decoder.code_at(&bytes, block.len(), i), Some(code), "entry {i} read in place");
                }
                assert_eq!(decoder.code_at(&bytes, block.len(), block.len()), None, "past the block");
                // Through one cursor, in an order that goes back and forth.
                let mut cursor = RunCursor::default();
                for k in 0..block.len() {
                    let i = (k * 7919 + block.len() / 2) % block.len();
                    assert_eq!(decoder.code_at_cursor(&bytes, block.len(), i, &mut cursor), Some(block[i]), "entry {i} by the cursor");
                }
                assert_eq!(decoder.code_at_cursor(&bytes, block.len(), block.len(), &mut cursor), None, "past the block");
                if bytes.is_empty() {
                    continue;
                }
                let cut = &bytes[..bytes.len() - 1];
                assert_eq!(decode(&decoder, cut, block.len()), None, "cut short");
                // The last entry read from the start needs the bits that are cut.
                // (Coded in halves, the rest reads the block's bytes from what is
                // now its end: found out when the whole block is decoded, and by
                // the checksums before.)
                let mut cursor = RunCursor::default();
                let last = decoder.code_at_cursor(cut, block.len(), block.len() - 1, &mut cursor);
                let first = decoder.code_at(cut, block.len(), 0);
                let again = decoder.code_at_cursor(cut, block.len(), 0, &mut cursor);
                // Coded in halves, the cursor may have seen the halves overlap.
                assert!(again == first || halved && again.is_none(), "the first entry of a block cut short, by that cursor");
                if !halved {
                    assert_eq!(decoder.code_at(cut, block.len(), block.len() - 1), None, "the last entry of a block cut short");
                    assert_eq!(last, None, "the last entry of a block cut short, by a cursor");
                }
            }
            // Within a few percent of the entropy, which Huffman codes keep to.
            assert!((total as f64) < frequencies.entropy_bits() * 1.05 + 64.0 * blocks.len() as f64);
        }
    }

    #[test]
    fn a_half_block_is_read_from_its_own_end() {
        // A block whose halves are each one run: each entry is the first run
        // of its half, however long the block.
        let mut block = vec![1u8; 6144];
        block.extend([4u8; 6144]);
        let runs = block_runs(&block);
        assert_eq!(runs, [vec![run(1, 6144)], vec![run(4, 6144)]]);
        let mut frequencies = Frequencies::default();
        frequencies.add_block(&runs);
        let encoder = Encoder::new(&frequencies);
        let bytes = encoder.encode(&runs);
        let decoder = Decoder::new(encoder.table(), true).unwrap();
        assert_eq!(decoder.code_at(&bytes, block.len(), 0), Some(1));
        assert_eq!(decoder.code_at(&bytes, block.len(), 12287), Some(4));
        // Read whole, as written before format 13, the same bytes are not
        // this block.
        let whole = Decoder::new(encoder.table(), false).unwrap();
        assert_ne!(decode(&whole, &bytes, block.len()), Some(packed(&block)));
    }

    #[test]
    fn long_codes_decode_past_the_lookup() {
        // Counts of powers of two give words of every length up to the limit
        // (runs that fit a block).
        let symbols = || (0..SYMBOLS).filter(|s| s % BUCKETS < 40).step_by(7).take(20);
        let mut frequencies = Frequencies::default();
        for (k, s) in symbols().enumerate() {
            frequencies.counts[START * SYMBOLS + s] = 1 << (20 - k.min(19));
        }
        let encoder = Encoder::new(&frequencies);
        assert!(encoder.table().iter().any(|&l| l as u32 > LOOKUP_BITS));
        assert!(encoder.table().iter().all(|&l| l as u32 <= MAX_WORD));
        let decoder = Decoder::new(encoder.table(), false).unwrap();
        for s in symbols() {
            let (code, b) = (s / BUCKETS, s % BUCKETS);
            let len = bucket_start(b).0 as usize;
            let block = vec![code as u8; len];
            let runs = [runs_of(&block), Vec::new()];
            assert_eq!(decode(&decoder, &encoder.encode(&runs), len), Some(packed(&block)), "symbol {s}");
        }
    }

    #[test]
    fn bad_tables_and_bytes_are_refused_not_panicked_on() {
        assert_eq!(Decoder::new(&[1; 10], true).err(), Some(BadTable));
        assert_eq!(Decoder::new(&vec![1; TABLE_LEN], true).err(), Some(BadTable), "over-full code space");
        assert_eq!(Decoder::new(&vec![16; TABLE_LEN], true).err(), Some(BadTable), "words too long");
        let mut frequencies = Frequencies::default();
        let runs = block_runs(&[0, 0, 1, 1, 1, 2]);
        frequencies.add_block(&runs);
        // One symbol alone in its context still has a word.
        let single = block_runs(&[3; 9]);
        frequencies.add_block(&single);
        let encoder = Encoder::new(&frequencies);
        let decoder = Decoder::new(encoder.table(), true).unwrap();
        assert_eq!(decode(&decoder, &encoder.encode(&single), 9), Some(packed(&[3; 9])));
        let cases = [vec![], vec![0xff; 40], vec![0x00; 40], vec![0x5a; 3]].into_iter().flat_map(|b| [(b.clone(), true), (b, false)]);
        for (bytes, halved) in cases {
            let decoder = Decoder::new(encoder.table(), halved).unwrap();
            for entries in [0usize, 1, 6, 1000] {
                let _ = decode(&decoder, &bytes, entries);
                let _ = decoder.code_at(&bytes, entries, entries / 2);
                let mut cursor = RunCursor::default();
                for entry in [entries / 2, 0, entries.saturating_sub(1), entries] {
                    let _ = decoder.code_at_cursor(&bytes, entries, entry, &mut cursor);
                }
            }
        }
    }
}
