//! Fuzzing with proptest: the FEN parser and the table file reader get
//! arbitrary and mutated input and must answer with a value or an error,
//! never a panic; a table file changed anywhere is never read as a
//! different valid table.

use damka::format::{
    block_checksum, pack_entries, BlockEntry, Counts, FormatError, Header, Kind, TableFile, BLOCK_ENTRY_LEN, FORMAT_VERSION,
    HEADER_LEN,
};
use damka::{fen, Material, Variant};
use proptest::prelude::*;

fn variant() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

/// Text built from the pieces FENs are made of, so that most inputs get
/// past the first few characters.
fn fen_like() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "W", "B", "w", "b", ":", ",", "K", "k", "-", ".", " ", "1", "5", "12", "21", "32", "33", "0", "99",
        "a1", "c3", "h8", "b8", "g1", "a2", "z9", "W1-4", "K5-1", "\u{e9}", "",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn fen_parser_never_panics_on_any_text(text in ".{0,60}", v in variant()) {
        let _ = fen::parse(&text, v);
    }

    #[test]
    fn fen_parser_round_trips_what_it_accepts(text in fen_like(), v in variant()) {
        if let Ok(pos) = fen::parse(&text, v) {
            let written = fen::write(&pos, v);
            prop_assert_eq!(fen::parse(&written, v), Ok(pos), "{} -> {}", text, written);
        }
    }

    #[test]
    fn table_reader_never_panics_on_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        read_everything(&bytes);
    }

    #[test]
    fn table_reader_never_panics_on_bytes_after_a_valid_header(
        tail in prop::collection::vec(any::<u8>(), 0..400),
        blocks in 0u32..4,
    ) {
        let mut bytes = header(Kind::Wdl, 100 * blocks as u64, 100, blocks).encode().expect("a name that fits").to_vec();
        bytes.extend_from_slice(&tail);
        read_everything(&bytes);
    }

    #[test]
    fn a_changed_table_is_refused_or_read_as_written(
        kind in prop::sample::select(vec![Kind::Wdl, Kind::Value]),
        seed in any::<u64>(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let (bytes, entries) = table(kind, seed);
        let mut damaged = bytes.clone();
        for (at, flip) in &changes {
            let i = at.index(damaged.len());
            damaged[i] ^= flip;
        }
        if let Some(cut) = cut {
            damaged.truncate(cut.index(damaged.len()));
        }
        let Ok(file) = TableFile::new(&damaged) else { return Ok(()) };
        let per_block = file.header().block_positions as usize * kind.entry_bytes();
        for b in 0..file.header().blocks {
            if let Ok(raw) = file.read_block(b) {
                let start = b as usize * per_block;
                prop_assert_eq!(&raw[..], &entries[start..start + raw.len()], "block {}", b);
            }
        }
    }
}

/// Parses and reads every block; the results do not matter, only that
/// nothing panics.
fn read_everything(bytes: &[u8]) {
    if let Ok(file) = TableFile::new(bytes) {
        for b in 0..file.header().blocks.min(64) {
            let _ = file.read_block(b);
        }
        let _ = file.read_block(u32::MAX);
    }
}

fn header(kind: Kind, positions: u64, block_positions: u32, blocks: u32) -> Header {
    Header {
        variant: Variant::Russian,
        kind,
        material: Material::new(1, 0, 1, 0),
        rules_name: "none".into(),
        rules_hash: 7,
        positions,
        block_positions,
        blocks,
        counts: Counts::default(),
        longest_win: 0,
        longest_loss: 0,
    }
}

/// A small valid table of three blocks with entries drawn from `seed`, laid
/// out as docs/FORMAT.md says, and its entries as `read_block` gives them.
fn table(kind: Kind, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let (positions, block_positions) = (250u64, 100u32);
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let entries: Vec<u8> = (0..positions)
        .flat_map(|_| {
            let r = next();
            let code = (r % 5) as u16;
            match kind {
                Kind::Wdl => vec![code as u8],
                Kind::Value => (((r >> 8) % 300) as u16 * 8 + code).to_le_bytes().to_vec(),
            }
        })
        .collect();
    let chunk = block_positions as usize * kind.entry_bytes();
    let compressed: Vec<Vec<u8>> =
        entries.chunks(chunk).map(|c| zstd::bulk::compress(&pack_entries(kind, c), 3).unwrap()).collect();
    let blocks = compressed.len() as u32;
    let mut out = header(kind, positions, block_positions, blocks).encode().expect("a name that fits").to_vec();
    let mut offset = (HEADER_LEN + compressed.len() * BLOCK_ENTRY_LEN) as u64;
    for c in &compressed {
        out.extend_from_slice(&BlockEntry { offset, len: c.len() as u32, checksum: block_checksum(c) }.encode());
        offset += c.len() as u64;
    }
    for c in &compressed {
        out.extend_from_slice(c);
    }
    let file = TableFile::new(&out[..]).expect("a valid table");
    let read: Vec<u8> = (0..blocks).flat_map(|b| file.read_block(b).unwrap()).collect();
    assert_eq!(read, entries);
    (out, entries)
}

/// A table of an older format version (version 1 counted a blocked side's
/// rule loss in 0 plies) is refused by name, not read with today's meaning.
#[test]
fn a_table_of_another_format_version_is_refused() {
    let mut bytes = header(Kind::Wdl, 100, 100, 1).encode().expect("a name that fits").to_vec();
    assert!(Header::decode(&bytes).is_ok());
    bytes[8..10].copy_from_slice(&1u16.to_le_bytes());
    let err = Header::decode(&bytes).unwrap_err();
    assert_eq!(err, FormatError::Version(1));
    assert_eq!(err.to_string(), format!("format version 1 (this reader knows {FORMAT_VERSION})"));
}

/// The header holds a rule set name of up to 16 bytes whole; a longer one
/// is refused, not cut: cut, it named another rule set (or, cut inside a
/// character, no text at all).
#[test]
fn a_rule_set_name_is_stored_whole_or_refused() {
    let mut h = header(Kind::Wdl, 100, 100, 1);
    h.rules_name = "russian-extended".into();
    let bytes = h.encode().expect("16 bytes fit");
    assert_eq!(Header::decode(&bytes), Ok(h.clone()));
    for name in ["russian-extended2", "русские-правила", "a\0b"] {
        h.rules_name = name.into();
        assert_eq!(h.encode(), Err(FormatError::RulesName(name.into())));
    }
}
