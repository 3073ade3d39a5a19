//! The table file format (docs/FORMAT.md): a header, a block index and
//! independently compressed blocks, each with a checksum.
//!
//! Reading is generic over the bytes (`AsRef<[u8]>`): a memory map in use,
//! a `Vec` in tests and fuzzing. Every malformed byte becomes a
//! [`FormatError`]; the reader never panics on input.

use std::cell::RefCell;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::cheskers;
use crate::game::Game;
use crate::index::SliceIndex;
use crate::layout::{EntryLayout, EntryOrder};
use crate::material::Material;
use crate::resolve::Resolution;
use crate::runs;
use crate::variant::Variant;

pub const MAGIC: [u8; 8] = *b"DAMKATB\0";
/// Version of the file format and of what its values mean. 2: under a rule
/// set a position without a legal move is lost in 1 ply, not 0. 3: capture
/// positions are "don't care" and `.dtc` files hold distances only
/// (docs/FORMAT.md). 4: so are the results of settled threats
/// ([`crate::resolve::is_settled_threat`]) but those a `.wdl` file lists
/// after its block index ([`TableFile::entry_is_stored`]). 5: and so are
/// their distances, but those a `.dtc` file lists the same way. 6: a file
/// stores its entries in the order of index parts its header names
/// ([`crate::layout`]). 7: settled threats may lie two plies deep
/// ([`crate::resolve::THREAT_DEPTH`]). 8: result blocks are run coded
/// with a table of code words a file ([`crate::runs`]), and the block
/// index holds 8 bytes a block. 9: the `.dtc` file of one slice of a
/// colour-swapped pair may take its distances from its twin ([`Distances`]).
/// 10: the block index checks blocks by groups ([`GROUP_BLOCKS`]), and
/// settled threats may lie three plies deep. 11: the header says what the
/// slice leaves "don't care" ([`Resolution`]); version 10 files are read
/// as leaving all they could ([`Resolution::FULL`]), what they did. 12: a
/// slice may bound the entries a settled threat's resolution reads
/// ([`Resolution::threat_reads`]); version 11 files are read as they are.
/// 13: a result block is coded in two halves, the second from the block's
/// end ([`runs::split`]); older result blocks are read whole from the start.
pub const FORMAT_VERSION: u16 = 13;
/// The oldest version still read: it differs in what its header leaves
/// out and, before 13, in result blocks coded whole.
pub const OLDEST_READ_VERSION: u16 = 10;
/// The first version whose result blocks are coded in halves.
const HALVED_RESULT_BLOCKS: u16 = 13;
/// Version of the index scheme (index.rs); a change makes old files unreadable.
pub const INDEX_VERSION: u16 = 1;
pub const HEADER_LEN: usize = 152;
/// Blocks the block index checks as one: it keeps, per group of this many,
/// where the group ends and its checksum, and per block its length (2.5
/// bytes a block where one entry a block took 8; docs/FORMAT.md).
pub const GROUP_BLOCKS: usize = 16;
/// The longest distance in plies a table holds: a `.dtc` entry is
/// `distance << 3 | code` in 16 bits. The rule limits a rule set may give
/// follow from it (rules.rs).
pub const MAX_PLIES: u16 = (1 << 13) - 1;

/// Bytes of the header that hold the rule set name (zero padded).
pub const RULES_NAME_LEN: usize = 16;
/// Where a Cheskers header holds its material: the side to move's men,
/// kings, bishops and camels, then the opponent's (8 bytes).
const CHESKERS_MATERIAL: usize = 104;

/// What one entry of a table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One result code per position: that of a packed [`crate::Value`]
    /// (0 draw, 1 win, 2 loss, 3 cursed win, 4 blessed loss), stored as
    /// runs ([`crate::runs`]) and handed out by [`TableFile::read_block`]
    /// one per byte.
    /// Capture positions hold any code ("don't care").
    Wdl,
    /// The distance of each position, in one or two bytes (little endian,
    /// [`Header::entry_bytes`]). Draws and capture positions hold any
    /// distance ("don't care"): the result comes from the `.wdl` file.
    Distance,
}

impl Kind {
    pub fn id(self) -> u8 {
        match self {
            Kind::Wdl => 0,
            Kind::Distance => 1,
        }
    }

    pub fn from_id(id: u8) -> Option<Kind> {
        match id {
            0 => Some(Kind::Wdl),
            1 => Some(Kind::Distance),
            _ => None,
        }
    }

    /// File name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Kind::Wdl => "wdl",
            Kind::Distance => "dtc",
        }
    }
}

/// Counts of each result in a table, for the header and `damka stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub wins: u64,
    pub cursed_wins: u64,
    pub draws: u64,
    pub blessed_losses: u64,
    pub losses: u64,
}

/// The slice a table file holds, of which game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableSlice {
    Draughts(Variant, Material),
    Cheskers(cheskers::Material),
}

impl TableSlice {
    /// Where a file of this slice with entries in `order` stores each
    /// position's entry (Cheskers: in index order).
    pub fn layout(self, order: EntryOrder) -> EntryLayout {
        match self {
            TableSlice::Draughts(_, material) => EntryLayout::new(&SliceIndex::new(material), order),
            TableSlice::Cheskers(_) => EntryLayout::identity(),
        }
    }

    pub fn game(self) -> Game {
        match self {
            TableSlice::Draughts(v, _) => Game::Draughts(v),
            TableSlice::Cheskers(_) => Game::Cheskers,
        }
    }

    pub fn pieces(self) -> u8 {
        match self {
            TableSlice::Draughts(_, m) => m.pieces(),
            TableSlice::Cheskers(m) => m.pieces(),
        }
    }

    /// The material as file names write it: `KKMvK`, `KBvKC`.
    pub fn material_name(self) -> String {
        match self {
            TableSlice::Draughts(_, m) => m.to_string(),
            TableSlice::Cheskers(m) => m.to_string(),
        }
    }

    /// The name of the slice's file of `kind`: `russian-KKMvK.wdl`,
    /// `cheskers-KBvKC.dtc`.
    pub fn file_name(self, kind: Kind) -> String {
        format!("{}-{}.{}", self.game(), self.material_name(), kind.extension())
    }

    /// The slice and kind a file name stands for; `None` for any file that
    /// is not a table.
    pub fn parse_file_name(name: &str) -> Option<(TableSlice, Kind)> {
        if let Some((material, kind)) = cheskers::parse_table_name(name) {
            return Some((TableSlice::Cheskers(material), kind));
        }
        let t: crate::TableName = name.parse().ok()?;
        Some((TableSlice::Draughts(t.variant, t.material), t.kind))
    }
}

/// Where a `.dtc` file's distances come from (header byte 140). A slice
/// and its twin (the same material with the other side to move) answer
/// each other's quiet moves, so the distances of one side follow from the
/// other's, one ply on: storing them for one side only halves what
/// distances cost (docs/FORMAT.md, "Distances from the twin").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distances {
    /// Stored for every quiet position, but a settled threat's, which
    /// comes from its moves unless the file lists it. Every `.wdl` file,
    /// and the `.dtc` file of a slice that is its own twin.
    Own,
    /// Stored only for the positions the file lists; every other quiet
    /// position's comes from its moves, one ply back: they lead to the
    /// twin (which is [`Distances::ForTwin`]), to captures and to
    /// promotions.
    FromTwin,
    /// Stored for every quiet position, settled threats included, so that
    /// the twin's one ply stops here.
    ForTwin,
}

impl Distances {
    fn id(self) -> u8 {
        match self {
            Distances::Own => 0,
            Distances::FromTwin => 1,
            Distances::ForTwin => 2,
        }
    }

    fn from_id(id: u8) -> Option<Distances> {
        [Distances::Own, Distances::FromTwin, Distances::ForTwin].into_iter().find(|d| d.id() == id)
    }
}

/// The header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub slice: TableSlice,
    pub kind: Kind,
    /// Rule set name (at most [`RULES_NAME_LEN`] bytes) and hash of its
    /// file's content.
    pub rules_name: String,
    pub rules_hash: u64,
    pub positions: u64,
    /// Bytes per entry after decompression: 1 for `.wdl` (one code per
    /// byte), 1 or 2 for `.dtc` (as the slice's longest distance needs).
    pub entry_bytes: u8,
    /// The order of the entries: which part of the index varies fastest
    /// (Cheskers tables: always the index's own).
    pub order: EntryOrder,
    pub block_positions: u32,
    pub blocks: u32,
    pub counts: Counts,
    pub longest_win: u16,
    pub longest_loss: u16,
    /// How many settled threats have their entry stored (`.wdl`: their
    /// result, `.dtc`: their distance), and the bytes and checksum of their
    /// list (after the block index).
    pub stored_entries: u32,
    pub stored_entries_len: u32,
    pub stored_entries_checksum: u64,
    /// The bytes and checksum of the table of code words (`.wdl`: after the
    /// list of stored entries, zstd compressed; `.dtc`: none).
    pub code_table_len: u32,
    pub code_table_checksum: u64,
    /// Where the distances come from (`.wdl`: always [`Distances::Own`]).
    pub distances: Distances,
    /// What the slice's files leave "don't care" (the same in both files).
    pub resolution: Resolution,
}

/// Why a table file cannot be read, or a header not written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// A name the header cannot hold as it is: written cut, it would name
    /// another rule set, or no text at all.
    #[error("rule set name '{0}' does not fit the header: at most {RULES_NAME_LEN} bytes, no NUL")]
    RulesName(String),
    #[error("not a damka table (bad magic)")]
    BadMagic,
    #[error("format version {0} (this reader knows {OLDEST_READ_VERSION} to {FORMAT_VERSION}): rebuild the tables with `damka generate`")]
    Version(u16),
    #[error("index scheme version {0} (this reader knows {INDEX_VERSION})")]
    IndexVersion(u16),
    #[error("truncated: {0}")]
    Truncated(&'static str),
    #[error("header checksum mismatch")]
    HeaderChecksum,
    #[error("corrupted header: {0}")]
    BadHeader(&'static str),
    /// A group of blocks fails its checksum ([`GROUP_BLOCKS`]); the
    /// damage lies somewhere in it.
    #[error("blocks {first}-{last}: checksum mismatch (the block index checks them together)")]
    GroupChecksum { first: u32, last: u32 },
    #[error("block {0}: cannot decompress")]
    BlockDecompress(u32),
    #[error("block {0}: corrupted entry")]
    BadEntry(u32),
    #[error("list of settled threats with their entry stored: {0}")]
    StoredEntries(&'static str),
    #[error("table of code words: {0}")]
    CodeTable(&'static str),
    #[error("{0} bytes of blocks: more than a file holds (4 GiB)")]
    TooLarge(u64),
    #[error("a block of {0} bytes: more than the block index holds (65,535)")]
    BlockTooLarge(usize),
}

fn hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A 64-bit content hash (of rule files, for example).
pub fn content_hash(bytes: &[u8]) -> u64 {
    hash(bytes)
}

/// The format version of a file whose header [`Header::decode`] read.
fn version_of(header: &[u8]) -> u16 {
    u16::from_le_bytes([header[8], header[9]])
}

impl Header {
    /// Where the file stores each position's entry.
    pub fn layout(&self) -> EntryLayout {
        self.slice.layout(self.order)
    }

    /// The header's bytes; a rule set name that would not read back the
    /// same is refused, not cut.
    pub fn encode(&self) -> Result<[u8; HEADER_LEN], FormatError> {
        let name = self.rules_name.as_bytes();
        if name.len() > RULES_NAME_LEN || name.contains(&0) {
            return Err(FormatError::RulesName(self.rules_name.clone()));
        }
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[10..12].copy_from_slice(&INDEX_VERSION.to_le_bytes());
        b[12] = self.slice.game().id();
        b[13] = self.kind.id();
        b[14] = self.entry_bytes;
        b[15] = self.order.id();
        match self.slice {
            TableSlice::Draughts(_, m) => b[16..20].copy_from_slice(&[m.own_kings, m.own_men, m.opp_kings, m.opp_men]),
            TableSlice::Cheskers(m) => {
                b[CHESKERS_MATERIAL..CHESKERS_MATERIAL + 4].copy_from_slice(&m.own);
                b[CHESKERS_MATERIAL + 4..CHESKERS_MATERIAL + 8].copy_from_slice(&m.opp);
            }
        }
        b[20..20 + name.len()].copy_from_slice(name);
        b[36..44].copy_from_slice(&self.rules_hash.to_le_bytes());
        b[44..52].copy_from_slice(&self.positions.to_le_bytes());
        b[52..56].copy_from_slice(&self.block_positions.to_le_bytes());
        b[56..60].copy_from_slice(&self.blocks.to_le_bytes());
        let c = self.counts;
        for (i, n) in [c.wins, c.cursed_wins, c.draws, c.blessed_losses, c.losses].iter().enumerate() {
            b[60 + 8 * i..68 + 8 * i].copy_from_slice(&n.to_le_bytes());
        }
        b[100..102].copy_from_slice(&self.longest_win.to_le_bytes());
        b[102..104].copy_from_slice(&self.longest_loss.to_le_bytes());
        b[112..116].copy_from_slice(&self.stored_entries.to_le_bytes());
        b[116..120].copy_from_slice(&self.stored_entries_len.to_le_bytes());
        b[120..128].copy_from_slice(&self.stored_entries_checksum.to_le_bytes());
        b[128..132].copy_from_slice(&self.code_table_len.to_le_bytes());
        b[132..140].copy_from_slice(&self.code_table_checksum.to_le_bytes());
        b[140] = self.distances.id();
        b[141] = self.resolution.id();
        let sum = hash(&b[..HEADER_LEN - 8]);
        b[HEADER_LEN - 8..].copy_from_slice(&sum.to_le_bytes());
        Ok(b)
    }

    pub fn decode(b: &[u8]) -> Result<Header, FormatError> {
        if b.len() < 8 || b[0..8] != MAGIC {
            return Err(if b.len() < 8 { FormatError::Truncated("header") } else { FormatError::BadMagic });
        }
        if b.len() < HEADER_LEN {
            return Err(FormatError::Truncated("header"));
        }
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let version = version_of(b);
        if !(OLDEST_READ_VERSION..=FORMAT_VERSION).contains(&version) {
            return Err(FormatError::Version(version));
        }
        if hash(&b[..HEADER_LEN - 8]) != u64_at(HEADER_LEN - 8) {
            return Err(FormatError::HeaderChecksum);
        }
        if u16_at(10) != INDEX_VERSION {
            return Err(FormatError::IndexVersion(u16_at(10)));
        }
        let game = Game::from_id(b[12]).ok_or(FormatError::BadHeader("unknown variant"))?;
        let kind = Kind::from_id(b[13]).ok_or(FormatError::BadHeader("unknown value kind"))?;
        let entry_bytes = b[14];
        if !matches!((kind, entry_bytes), (Kind::Wdl, 1) | (Kind::Distance, 1 | 2)) {
            return Err(FormatError::BadHeader("entry width does not fit the value kind"));
        }
        let order = EntryOrder::from_id(b[15]).ok_or(FormatError::BadHeader("unknown entry order"))?;
        let slice = match game {
            Game::Draughts(variant) => {
                let material = Material::new(b[16], b[17], b[18], b[19]);
                if !material.is_contested()
                    || material.own_kings + material.own_men > 12
                    || material.opp_kings + material.opp_men > 12
                {
                    return Err(FormatError::BadHeader("impossible material"));
                }
                TableSlice::Draughts(variant, material)
            }
            Game::Cheskers => {
                let side = |at: usize| -> [u8; 4] { b[at..at + 4].try_into().expect("4 bytes") };
                let material = cheskers::Material {
                    own: side(CHESKERS_MATERIAL),
                    opp: side(CHESKERS_MATERIAL + 4),
                };
                let fits = |side: &[u8; 4]| side.iter().map(|&n| n as u32).sum::<u32>() <= 12;
                if !material.is_stored() || !fits(&material.own) || !fits(&material.opp) {
                    return Err(FormatError::BadHeader("impossible material"));
                }
                if order != EntryOrder::INDEX {
                    return Err(FormatError::BadHeader("Cheskers entries are stored in index order"));
                }
                TableSlice::Cheskers(material)
            }
        };
        let name_end = b[20..20 + RULES_NAME_LEN].iter().position(|&c| c == 0).unwrap_or(RULES_NAME_LEN);
        let rules_name = std::str::from_utf8(&b[20..20 + name_end])
            .map_err(|_| FormatError::BadHeader("rule set name is not UTF-8"))?
            .to_string();
        let header = Header {
            slice,
            kind,
            rules_name,
            rules_hash: u64_at(36),
            positions: u64_at(44),
            entry_bytes,
            order,
            block_positions: u32_at(52),
            blocks: u32_at(56),
            counts: Counts {
                wins: u64_at(60),
                cursed_wins: u64_at(68),
                draws: u64_at(76),
                blessed_losses: u64_at(84),
                losses: u64_at(92),
            },
            longest_win: u16_at(100),
            longest_loss: u16_at(102),
            stored_entries: u32_at(112),
            stored_entries_len: u32_at(116),
            stored_entries_checksum: u64_at(120),
            code_table_len: u32_at(128),
            code_table_checksum: u64_at(132),
            distances: Distances::from_id(b[140]).ok_or(FormatError::BadHeader("unknown source of distances"))?,
            resolution: match version {
                10 => Resolution::FULL,
                // Version 11 knew no bound on a threat's reads.
                _ => Resolution::from_id(b[141])
                    .filter(|r| version > 11 || r.threat_reads.is_none())
                    .ok_or(FormatError::BadHeader("unknown resolution of don't-care entries"))?,
            },
        };
        if header.kind == Kind::Wdl && header.distances != Distances::Own {
            return Err(FormatError::BadHeader("a result file that takes distances from its twin"));
        }
        if header.kind == Kind::Wdl && code_planes(header.block_positions).is_none() {
            return Err(FormatError::BadHeader("result blocks of other than three times a power of two positions"));
        }
        if header.block_positions == 0
            || header.positions.div_ceil(header.block_positions as u64) != header.blocks as u64
        {
            return Err(FormatError::BadHeader("block count does not match position count"));
        }
        Ok(header)
    }
}

/// Reads and decodes only the header of a table file (to learn what a file
/// holds without reading its blocks).
pub fn read_header(path: &Path) -> io::Result<Header> {
    let mut bytes = vec![0; HEADER_LEN];
    std::fs::File::open(path)?.read_exact(&mut bytes).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => io::Error::new(io::ErrorKind::InvalidData, "shorter than a header"),
        _ => e,
    })?;
    Header::decode(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Bytes of the block index of a file of `blocks` blocks: for each group
/// of [`GROUP_BLOCKS`] blocks where it ends, counted from the first
/// block's start (u32), and the low 32 bits of its bytes' checksum; then
/// each block's length in bytes (u16).
pub fn block_index_len(blocks: u32) -> usize {
    (blocks as usize).div_ceil(GROUP_BLOCKS) * 8 + blocks as usize * 2
}

/// Bytes a block of `entries` takes decoded: for `.wdl` its codes packed
/// three to a byte ([`pack_codes`]), a third of a whole block whatever its
/// length.
fn stored_len(header: &Header, entries: usize) -> usize {
    match header.kind {
        Kind::Wdl => header.block_positions as usize / 3,
        Kind::Distance => entries * header.entry_bytes as usize,
    }
}

/// Bytes of a block of result codes packed three to a byte, for blocks of
/// `block_positions`: three times a power of two (a probe finds a code's
/// byte and digit by a mask and a shift), or `None`.
pub fn code_planes(block_positions: u32) -> Option<u32> {
    Some(block_positions / 3).filter(|p| block_positions.is_multiple_of(3) && p.is_power_of_two())
}

/// Packs a block's result codes three to a byte, as probes keep a block:
/// with `plane` bytes, byte `j` holds codes `j`, `j + plane` and
/// `j + 2 * plane` as `a + 5b + 25c` (codes past the block's end are 0).
/// Three planes rather than three neighbours: packing is then one
/// vectorised pass, a fifth of decoding a block.
pub fn pack_codes(codes: &[u8], plane: usize) -> Vec<u8> {
    let code = |i: usize| codes.get(i).copied().unwrap_or(0);
    (0..plane).map(|j| code(j) + 5 * code(j + plane) + 25 * code(j + 2 * plane)).collect()
}

/// Bytes of packed result codes that are valid: below 5 * 5 * 5.
pub const PACKED_CODES: u8 = 125;

/// The three result codes of every valid packed byte, computed once.
const CODES: [[u8; 3]; PACKED_CODES as usize] = {
    let mut t = [[0; 3]; PACKED_CODES as usize];
    let mut b = 0;
    while b < PACKED_CODES as usize {
        t[b] = [(b % 5) as u8, (b / 5 % 5) as u8, (b / 25) as u8];
        b += 1;
    }
    t
};

/// Result code `i` (0..3) of a packed byte below [`PACKED_CODES`]
/// (others read as code 0).
#[inline]
pub fn packed_code(byte: u8, i: usize) -> u8 {
    CODES.get(byte as usize).map_or(0, |codes| codes[i % 3])
}

/// The inverse of [`pack_codes`] for `.wdl`; `None` if a byte that holds
/// one of the `entries` packs no valid codes.
fn unpack_entries(kind: Kind, stored: &[u8], entries: usize) -> Option<Vec<u8>> {
    match kind {
        Kind::Wdl => {
            // Plane by plane: a code a byte from a table, no division an
            // entry (which made reading slices back spend 40% of its time
            // here).
            let plane = stored.len();
            let used = &stored[..plane.min(entries)];
            if used.iter().any(|&b| b >= PACKED_CODES) {
                return None;
            }
            let mut codes = Vec::with_capacity(entries);
            for (digit, start) in [0, plane, 2 * plane].into_iter().enumerate() {
                let n = plane.min(entries.saturating_sub(start));
                codes.extend(used[..n].iter().map(|&b| CODES[b as usize][digit]));
            }
            (codes.len() == entries).then_some(codes)
        }
        Kind::Distance => Some(stored.to_vec()),
    }
}

/// Checks that every entry of a decompressed block (packed as stored,
/// [`TableFile::read_stored`]) is a value tables hold, so that readers
/// can decode entries without checking again (any distance is one).
fn check_entries(raw: Vec<u8>, kind: Kind, block: u32) -> Result<Box<[u8]>, FormatError> {
    // Branch-free, so that the compiler vectorizes the check: it runs on
    // every cache miss.
    let valid = match kind {
        Kind::Wdl => raw.iter().copied().max().unwrap_or(0) < PACKED_CODES,
        Kind::Distance => true,
    };
    if valid {
        Ok(raw.into_boxed_slice())
    } else {
        Err(FormatError::BadEntry(block))
    }
}

thread_local! {
    /// One zstd context per thread: making one costs more than
    /// decompressing a block of a few kilobytes.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Decompresses one block of at most `capacity` bytes.
fn decompress(compressed: &[u8], capacity: usize) -> Option<Vec<u8>> {
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = zstd::bulk::Decompressor::new().ok();
        }
        d.as_mut()?.decompress(compressed, capacity).ok()
    })
}

/// The checksum of compressed blocks (the block index keeps the low 32
/// bits of each group's), or of any bytes a tool frames.
pub fn block_checksum(compressed: &[u8]) -> u64 {
    hash(compressed)
}

/// A file's bytes: `header` (its lists' lengths and checksums set here),
/// the block index, `list` (the stored entries), the compressed `table`
/// of code words and the `blocks`.
pub fn file_bytes(header: &Header, list: &[u8], table: &[u8], blocks: &[Vec<u8>]) -> Result<Vec<u8>, FormatError> {
    let header = Header {
        stored_entries_len: list.len() as u32,
        stored_entries_checksum: hash(list),
        code_table_len: table.len() as u32,
        code_table_checksum: hash(table),
        ..header.clone()
    };
    let data: u64 = blocks.iter().map(|b| b.len() as u64).sum();
    if data > u32::MAX as u64 {
        return Err(FormatError::TooLarge(data));
    }
    if let Some(b) = blocks.iter().find(|b| b.len() > u16::MAX as usize) {
        return Err(FormatError::BlockTooLarge(b.len()));
    }
    let index_len = block_index_len(blocks.len() as u32);
    let mut out = Vec::with_capacity(HEADER_LEN + index_len + list.len() + table.len() + data as usize);
    out.extend_from_slice(&header.encode()?);
    let mut end = 0u32;
    for group in blocks.chunks(GROUP_BLOCKS) {
        let mut checksum = xxhash_rust::xxh3::Xxh3::new();
        for b in group {
            checksum.update(b);
            end += b.len() as u32;
        }
        out.extend_from_slice(&end.to_le_bytes());
        out.extend_from_slice(&(checksum.digest() as u32).to_le_bytes());
    }
    for b in blocks {
        out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    }
    out.extend_from_slice(list);
    out.extend_from_slice(table);
    for b in blocks {
        out.extend_from_slice(b);
    }
    Ok(out)
}

/// A file's blocks of `raw` entries (one byte a result, `width` bytes a
/// distance), compressed as the format says, and its table of code words
/// (compressed; empty for `.dtc`). The generator does the same by parts
/// (its writer); this is the whole in one step, for tests and tools.
pub fn encode_blocks(kind: Kind, raw: &[u8], block_positions: u32, width: u8) -> (Vec<u8>, Vec<Vec<u8>>) {
    let chunk = block_positions as usize * width as usize;
    match kind {
        Kind::Wdl => {
            let runs: Vec<runs::BlockRuns> = raw.chunks(chunk).map(runs::block_runs).collect();
            let mut frequencies = runs::Frequencies::default();
            runs.iter().for_each(|r| frequencies.add_block(r));
            let encoder = runs::Encoder::new(&frequencies);
            (compress_code_table(encoder.table()), runs.iter().map(|r| encoder.encode(r)).collect())
        }
        Kind::Distance => {
            let mut zstd = distance_compressor();
            let blocks = raw.chunks(chunk).map(|c| zstd.compress(c).expect("in-memory compression")).collect();
            (Vec::new(), blocks)
        }
    }
}

/// The zstd compressor of `.dtc` blocks: level 15 (7% smaller than level
/// 8 and as fast to decompress), but its optimal parser the cheaper one
/// (`btopt`) and a match of 999 bytes long enough to take unsearched:
/// 0.40-0.44 of level 15's time, which was an eighth of a 6-piece build,
/// for 0.5% more bytes at 6 pieces, as many at 7 and 0.9% more at 5
/// (docs/COMPRESSION.md). Readers need nothing
/// of it: any zstd frame decompresses alike.
pub fn distance_compressor() -> zstd::bulk::Compressor<'static> {
    use zstd::zstd_safe::{CParameter, Strategy};
    let mut zstd = zstd::bulk::Compressor::new(15).expect("a zstd context");
    for parameter in [CParameter::Strategy(Strategy::ZSTD_btopt), CParameter::SearchLog(4), CParameter::TargetLength(999)] {
        zstd.set_parameter(parameter).expect("a zstd parameter in its bounds");
    }
    zstd
}

/// A table of code words as a file stores it.
pub fn compress_code_table(table: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(table, 19).expect("in-memory compression")
}

/// The list of settled threats with their entry stored, as a file holds
/// it (`.wdl`: their results, `.dtc`: their distances): the indices'
/// differences (the first from 0) as little-endian u64, compressed as one
/// zstd frame, empty where there are none.
pub fn encode_stored_entries(indices: &[u64]) -> Vec<u8> {
    if indices.is_empty() {
        return Vec::new();
    }
    let deltas: Vec<u8> = indices.iter().scan(0, |last, &i| Some(i - std::mem::replace(last, i))).flat_map(u64::to_le_bytes).collect();
    zstd::bulk::compress(&deltas, 19).expect("in-memory compression")
}

fn decode_stored_entries(list: &[u8], count: u32, positions: u64) -> Result<Vec<u64>, FormatError> {
    if count == 0 {
        return if list.is_empty() { Ok(Vec::new()) } else { Err(FormatError::StoredEntries("bytes for an empty list")) };
    }
    let bad = FormatError::StoredEntries("cannot decompress");
    let deltas = decompress(list, count as usize * 8).filter(|d| d.len() == count as usize * 8).ok_or(bad)?;
    let mut indices: Vec<u64> = Vec::with_capacity(count as usize);
    for d in deltas.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))) {
        let index = match indices.last() {
            None => Some(d),
            Some(&last) if d > 0 => last.checked_add(d),
            Some(_) => None,
        };
        match index {
            Some(index) if index < positions => indices.push(index),
            _ => return Err(FormatError::StoredEntries("not in index order, or beyond the slice")),
        }
    }
    Ok(indices)
}

/// A table file over some bytes.
pub struct TableFile<B> {
    bytes: B,
    header: Header,
    /// The settled threats whose entry is stored, by index.
    stored_entries: Vec<u64>,
    /// Where the blocks begin, and the code words of a `.wdl` file.
    blocks_start: usize,
    decoder: Option<runs::Decoder>,
    /// A bit a group of blocks, set once its checksum has matched: the
    /// bytes of a file do not change under its reader (files are replaced
    /// whole, by renaming), so each group is hashed once, not on every
    /// read of one of its blocks.
    checked: Box<[AtomicU64]>,
}

impl<B: AsRef<[u8]>> TableFile<B> {
    /// Checks the header and the block index bounds.
    pub fn new(bytes: B) -> Result<TableFile<B>, FormatError> {
        let header = Header::decode(bytes.as_ref())?;
        let checked = (0..(header.blocks as usize).div_ceil(GROUP_BLOCKS).div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let file = TableFile { bytes, header, stored_entries: Vec::new(), blocks_start: 0, decoder: None, checked };
        let data = file.bytes.as_ref();
        let list_start = HEADER_LEN + block_index_len(file.header.blocks);
        if data.len() < list_start {
            return Err(FormatError::Truncated("block index"));
        }
        let index_end = list_start + file.header.stored_entries_len as usize;
        if data.len() < index_end {
            return Err(FormatError::StoredEntries("cut short"));
        }
        let list = &data[list_start..index_end];
        if hash(list) != file.header.stored_entries_checksum {
            return Err(FormatError::StoredEntries("checksum mismatch"));
        }
        let stored_entries = decode_stored_entries(list, file.header.stored_entries, file.header.positions)?;
        let blocks_start = index_end + file.header.code_table_len as usize;
        let table = data.get(index_end..blocks_start).ok_or(FormatError::CodeTable("cut short"))?;
        if hash(table) != file.header.code_table_checksum {
            return Err(FormatError::CodeTable("checksum mismatch"));
        }
        let decoder = match file.header.kind {
            Kind::Wdl => {
                let lengths = decompress(table, runs::TABLE_LEN)
                    .filter(|t| t.len() == runs::TABLE_LEN)
                    .ok_or(FormatError::CodeTable("cannot decompress"))?;
                let halved = version_of(data) >= HALVED_RESULT_BLOCKS;
                Some(runs::Decoder::new(&lengths, halved).map_err(|_| FormatError::CodeTable("not a code"))?)
            }
            Kind::Distance if table.is_empty() => None,
            Kind::Distance => return Err(FormatError::CodeTable("in a distance file")),
        };
        let file = TableFile { stored_entries, blocks_start, decoder, ..file };
        let data_len = (file.bytes.as_ref().len() - blocks_start) as u64;
        let mut start = 0;
        for group in 0..file.groups() {
            let (end, _) = file.group_entry(group);
            let blocks = group * GROUP_BLOCKS..((group + 1) * GROUP_BLOCKS).min(file.header.blocks as usize);
            let len: u64 = blocks.map(|b| file.stored_len(b) as u64).sum();
            if end as u64 > data_len {
                return Err(FormatError::Truncated("block beyond the end of the file"));
            }
            if start + len != end as u64 {
                return Err(FormatError::BadHeader("block lengths that do not add up to their group's"));
            }
            start = end as u64;
        }
        Ok(file)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The settled threats whose entry is stored, by index: in a `.wdl`
    /// file those whose result the one-ply resolution would get wrong
    /// under the rules, in a `.dtc` file those whose value it would.
    pub fn stored_entries(&self) -> &[u64] {
        &self.stored_entries
    }

    /// Whether position `index`, a settled threat, has its entry stored.
    pub fn entry_is_stored(&self, index: u64) -> bool {
        self.stored_entries.binary_search(&index).is_ok()
    }

    fn groups(&self) -> usize {
        (self.header.blocks as usize).div_ceil(GROUP_BLOCKS)
    }

    /// Where group `group` of blocks ends, and its checksum.
    fn group_entry(&self, group: usize) -> (u32, u32) {
        let at = HEADER_LEN + group * 8;
        let b = &self.bytes.as_ref()[at..at + 8];
        (u32::from_le_bytes(b[0..4].try_into().expect("4 bytes")), u32::from_le_bytes(b[4..8].try_into().expect("4 bytes")))
    }

    /// The length in bytes of block `block` as stored.
    fn stored_len(&self, block: usize) -> usize {
        let at = HEADER_LEN + self.groups() * 8 + block * 2;
        u16::from_le_bytes(self.bytes.as_ref()[at..at + 2].try_into().expect("2 bytes")) as usize
    }

    /// Where group `group` of blocks begins, counted from the first block.
    fn group_start(&self, group: usize) -> usize {
        group.checked_sub(1).map_or(0, |g| self.group_entry(g).0 as usize)
    }

    /// Where block `block` (below [`Header::blocks`]) lies in the file.
    pub fn block_range(&self, block: u32) -> std::ops::Range<usize> {
        let (block, group) = (block as usize, block as usize / GROUP_BLOCKS);
        let start = self.group_start(group) + (group * GROUP_BLOCKS..block).map(|b| self.stored_len(b)).sum::<usize>();
        self.blocks_start + start..self.blocks_start + start + self.stored_len(block)
    }

    /// Positions in `block`.
    pub fn block_len(&self, block: u32) -> usize {
        let start = block as u64 * self.header.block_positions as u64;
        (self.header.positions - start).min(self.header.block_positions as u64) as usize
    }

    /// Decompresses and checks one block: its raw entries.
    pub fn read_block(&self, block: u32) -> Result<Vec<u8>, FormatError> {
        let stored = self.read_stored(block)?;
        unpack_entries(self.header.kind, &stored, self.block_len(block)).ok_or(FormatError::BadEntry(block))
    }

    /// Block `block` decompressed but still packed as stored (result
    /// codes three to a byte, see [`pack_codes`]): what probes cache,
    /// a third of the unpacked bytes. Its checksum and length are checked,
    /// its values not.
    pub fn read_stored(&self, block: u32) -> Result<Vec<u8>, FormatError> {
        let compressed = self.checked_block(block)?;
        let entries = self.block_len(block);
        let stored = match &self.decoder {
            Some(decoder) => decoder.decode_packed(compressed, entries, stored_len(&self.header, entries)),
            None => decompress(compressed, stored_len(&self.header, entries)),
        };
        match stored {
            Some(stored) if stored.len() == stored_len(&self.header, entries) => Ok(stored),
            _ => Err(FormatError::BlockDecompress(block)),
        }
    }

    /// Block `block` as [`TableFile::read_stored`] gives it, every entry
    /// checked to be a value tables hold (result codes below
    /// [`PACKED_CODES`] a byte): what probes and the reading back of slices
    /// keep.
    pub fn read_checked(&self, block: u32) -> Result<Box<[u8]>, FormatError> {
        self.read_stored(block).and_then(|raw| check_entries(raw, self.header.kind, block))
    }

    /// The result code of entry `entry` of block `block` of a `.wdl`
    /// file, read from the block's runs in place (see
    /// [`runs::Decoder::code_at`]), through `cursor` if one is given, which
    /// must have read this block alone; the block's checksum is checked.
    pub fn code_at(&self, block: u32, entry: usize, cursor: Option<&mut runs::RunCursor>) -> Result<u8, FormatError> {
        let compressed = self.checked_block(block)?;
        let decoder = self.decoder.as_ref().ok_or(FormatError::CodeTable("not a result file"))?;
        let entries = self.block_len(block);
        let code = match cursor {
            Some(cursor) => decoder.code_at_cursor(compressed, entries, entry, cursor),
            None => decoder.code_at(compressed, entries, entry),
        };
        code.ok_or(FormatError::BlockDecompress(block))
    }

    /// The compressed bytes of block `block`, their checksum checked.
    fn checked_block(&self, block: u32) -> Result<&[u8], FormatError> {
        if block >= self.header.blocks {
            return Err(FormatError::BadHeader("block number out of range"));
        }
        let group = block as usize / GROUP_BLOCKS;
        let (word, bit) = (&self.checked[group / 64], 1u64 << (group % 64));
        if word.load(Relaxed) & bit == 0 {
            let (end, checksum) = self.group_entry(group);
            let bytes = &self.bytes.as_ref()[self.blocks_start + self.group_start(group)..self.blocks_start + end as usize];
            if block_checksum(bytes) as u32 != checksum {
                let first = (group * GROUP_BLOCKS) as u32;
                let last = (first + GROUP_BLOCKS as u32).min(self.header.blocks) - 1;
                return Err(FormatError::GroupChecksum { first, last });
            }
            word.fetch_or(bit, Relaxed);
        }
        Ok(&self.bytes.as_ref()[self.block_range(block)])
    }

    /// Checks every block's checksum and that it decompresses.
    pub fn check_all(&self) -> Result<(), FormatError> {
        (0..self.header.blocks).try_for_each(|b| self.read_block(b).map(|_| ()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes packed three to a byte come back as they went in, however
    /// many a block holds; a byte that packs no codes, or more entries
    /// than the planes hold, is refused.
    #[test]
    fn packed_codes_unpack_to_the_codes() {
        let plane = 16;
        for entries in [0, 1, 15, 16, 17, 33, 47, 48] {
            let codes: Vec<u8> = (0..entries).map(|i| ((i * 7 + i / 5) % 5) as u8).collect();
            let packed = pack_codes(&codes, plane);
            assert_eq!(unpack_entries(Kind::Wdl, &packed, entries), Some(codes), "{entries} entries");
        }
        let mut packed = pack_codes(&[4; 48], plane);
        packed[3] = PACKED_CODES;
        assert_eq!(unpack_entries(Kind::Wdl, &packed, 48), None);
        assert_eq!(unpack_entries(Kind::Wdl, &pack_codes(&[1; 48], plane), 49), None);
    }

    #[test]
    fn entries_are_checked() {
        assert!(check_entries(vec![0, 1, 2, 62, 124], Kind::Wdl, 0).is_ok());
        assert_eq!(check_entries(vec![0, 124, 125], Kind::Wdl, 3), Err(FormatError::BadEntry(3)));
        assert!(check_entries(vec![255, 7, 0], Kind::Distance, 0).is_ok());
    }
}
