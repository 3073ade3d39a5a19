//! Fuzzing with proptest: the FEN parser, the table file reader and the
//! rule file reader get arbitrary and mutated input and must answer with a
//! value or an error, never a panic; a table file changed anywhere is never
//! read as a different valid table; a rule file is read with the limits and
//! name it gives, or refused if a table cannot hold them.

use damka::format::{
    compress_code_table, content_hash, encode_blocks, encode_stored_entries, file_bytes, Counts, Distances, FormatError, Header, Kind, TableFile, TableSlice,
    block_index_len, FORMAT_VERSION, HEADER_LEN, MAX_PLIES,
};
use damka::layout::EntryOrder;
use damka::runs::{runs_of, BlockRuns, Encoder, Frequencies};
use damka::resolve::{Resolution, MOST_THREAT_READS, READS_STEP, THREAT_DEPTH};
use damka::rules::{MAX_LIMIT_MOVES, MAX_LIMIT_PLIES};
use damka::{fen, Material, RuleSet, SliceIndex, Variant};
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

/// Text built from the pieces rule files are made of: keys, values of
/// every kind, tables, and numbers around the limits' bounds.
fn rules_like() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "name", "title", "source", "text", "counter", "limit_plies", "limit_moves", "when", "strong", "weak",
        "strong_kings_min", "pieces_min", "pieces_max", "both_have_kings", "lone_king_on_main_road", "[[rule]]",
        "[rule]", " = ", "=", "\n", "\"", "'", "{", "}", "[", "]", ",", "\"quiet\"", "\"kings_only\"", "\"none\"",
        "\"KK\"", "\"KKM\"", "\"lone-king\"", "\"russian\"", "\"\u{436}\"", "true", "0", "1", "-1", "15", "4095",
        "4096", "8191", "8192", "32768", "65536", "99999999999999999999", "1.5", "#",
    ]);
    prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
}

/// One rule as a file gives it: quiet or kings-only, a limit in plies or
/// in moves of a stronger side.
#[derive(Clone, Debug)]
struct GivenRule {
    kings_only: bool,
    /// `Ok(plies)` or `Err(moves)`, as written.
    limit: Result<i64, i64>,
}

/// A valid rule: its limit within the bounds.
fn given_rule() -> impl Strategy<Value = GivenRule> {
    let plies = 1..=i64::from(MAX_LIMIT_PLIES);
    let moves = 1..=i64::from(MAX_LIMIT_MOVES);
    (any::<bool>(), prop_oneof![plies.prop_map(Ok), moves.prop_map(Err)])
        .prop_map(|(kings_only, limit)| GivenRule { kings_only, limit })
}

/// Fails unless a header holds `name` and reads it back the same.
fn header_holds(name: &str) -> Result<(), TestCaseError> {
    let mut h = header(Kind::Wdl, 96, 96, 1);
    h.rules_name = name.to_string();
    let bytes = h.encode().map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(Header::decode(&bytes).map(|h| h.rules_name), Ok(name.to_string()));
    Ok(())
}

/// A rule file with these rules, named `name`.
fn rule_file(name: &str, rules: &[GivenRule]) -> String {
    let mut text = format!("name = \"{name}\"\n");
    for (i, r) in rules.iter().enumerate() {
        let counter = if r.kings_only { "kings_only" } else { "quiet" };
        let limit = match r.limit {
            Ok(plies) => format!("limit_plies = {plies}"),
            Err(moves) => format!("limit_moves = {moves}\nwhen = {{ strong = [\"KK\"], weak = \"lone-king\" }}"),
        };
        text += &format!("\n[[rule]]\nname = \"r{i}\"\ncounter = \"{counter}\"\n{limit}\n");
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rule_reader_never_panics_on_any_text(text in ".{0,200}") {
        let _ = RuleSet::parse(&text);
    }

    #[test]
    fn rule_reader_never_panics_on_rule_like_text(text in rules_like()) {
        if let Ok(set) = RuleSet::parse(&text) {
            header_holds(&set.name)?;
        }
    }

    #[test]
    fn valid_rule_files_read_back_their_limits(rules in prop::collection::vec(given_rule(), 1..5), name in "[a-zA-Z0-9._-]{1,16}") {
        prop_assume!(name != "none");
        let set = RuleSet::parse(&rule_file(&name, &rules)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&set.name, &name);
        for (read, given) in set.rules.iter().zip(&rules) {
            let limits = (read.limit_plies.map(i64::from), read.limit_moves.map(i64::from));
            prop_assert_eq!(limits, (given.limit.ok(), given.limit.err()));
        }
        // Every limit in plies fits a table's distance, whoever moves first.
        let kkvk = SliceIndex::new(Material::new(2, 0, 1, 0));
        for i in [0, kkvk.size() / 2] {
            let pos = kkvk.position(i);
            for wins in [true, false] {
                for (_, plies) in set.applicable(&pos, wins) {
                    prop_assert!(plies <= u32::from(MAX_PLIES), "{} plies", plies);
                }
            }
        }
    }

    #[test]
    fn limits_beyond_the_bound_are_refused_with_it(
        rules in prop::collection::vec(given_rule(), 1..4),
        which in any::<prop::sample::Index>(),
        over in 1i64..=i64::MAX / 2,
    ) {
        let mut rules = rules;
        let at = which.index(rules.len());
        let (field, too_large) = match rules[at].limit {
            Ok(_) => ("limit_plies", i64::from(MAX_LIMIT_PLIES) + over),
            Err(_) => ("limit_moves", i64::from(MAX_LIMIT_MOVES) + over),
        };
        rules[at].limit = rules[at].limit.map(|_| too_large).map_err(|_| too_large);
        let refused = RuleSet::parse(&rule_file("test", &rules)).expect_err("a limit beyond the bound");
        let bound = too_large - over;
        let message = refused.to_string();
        prop_assert!(message.contains(&format!("{field} = {too_large} is above {bound}")), "{}", message);
    }

    #[test]
    fn accepted_names_read_back_from_a_header(
        name in prop_oneof!["[a-zA-Z0-9._-]{0,18}", "\\PC{0,20}"],
        empty in any::<bool>(),
    ) {
        if RuleSet::check_name(&name, empty).is_ok() {
            header_holds(&name)?;
        }
    }

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
        kind in prop::sample::select(vec![Kind::Wdl, Kind::Distance]),
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
        if kind == Kind::Wdl {
            prop_assert_eq!(file.stored_entries(), &STORED[..]);
        }
        let per_block = file.header().block_positions as usize * file.header().entry_bytes as usize;
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
    with_list(kind, positions, block_positions, blocks, &[])
}

/// A header whose file lists `list` (encoded) as its stored entries.
fn with_list(kind: Kind, positions: u64, block_positions: u32, blocks: u32, list: &[u8]) -> Header {
    Header {
        slice: TableSlice::Draughts(Variant::Russian, Material::new(1, 0, 1, 0)),
        kind,
        entry_bytes: if kind == Kind::Wdl { 1 } else { 2 },
        order: EntryOrder::INDEX,
        rules_name: "none".into(),
        rules_hash: 7,
        positions,
        block_positions,
        blocks,
        counts: Counts::default(),
        longest_win: 0,
        longest_loss: 0,
        stored_entries: if list.is_empty() { 0 } else { STORED.len() as u32 },
        stored_entries_len: list.len() as u32,
        stored_entries_checksum: content_hash(list),
        code_table_len: 0,
        code_table_checksum: content_hash(&[]),
        distances: Distances::Own,
        resolution: Resolution::FULL,
    }
}

/// The stored entries of the tables [`table`] makes.
const STORED: [u64; 3] = [3, 17, 249];

/// A small valid table of three blocks with entries drawn from `seed`, laid
/// out as docs/FORMAT.md says, and its entries as `read_block` gives them.
fn table(kind: Kind, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let (positions, block_positions) = (250u64, 96u32);
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
                Kind::Distance => (((r >> 8) % 300) as u16).to_le_bytes().to_vec(),
            }
        })
        .collect();
    let (code_table, compressed) = encode_blocks(kind, &entries, block_positions, if kind == Kind::Wdl { 1 } else { 2 });
    let blocks = compressed.len() as u32;
    let list = encode_stored_entries(&STORED);
    let out = file_bytes(&with_list(kind, positions, block_positions, blocks, &list), &list, &code_table, &compressed).unwrap();
    let file = TableFile::new(&out[..]).expect("a valid table");
    let read: Vec<u8> = (0..blocks).flat_map(|b| file.read_block(b).unwrap()).collect();
    assert_eq!(read, entries);
    assert_eq!(file.stored_entries(), &STORED);
    assert!(STORED.iter().all(|&i| file.entry_is_stored(i)) && !file.entry_is_stored(4));
    (out, entries)
}

/// A table of an older format version (version 1 counted a blocked side's
/// rule loss in 0 plies, version 2 stored every position and result codes
/// in `.dtc` files, version 3 every settled threat's result, version 4
/// every settled threat's distance, versions 5-7 settled threats one ply
/// deep, or zstd over result codes three to a byte, versions 1-8 every
/// slice's own distances, version 9 a block index of 8 bytes a block) is
/// refused by name, not read with today's meaning; so is a newer one.
/// Version 10 is read, as leaving all it can "don't care" (what it did),
/// whatever its byte 141 holds.
#[test]
fn a_table_of_another_format_version_is_refused() {
    let mut bytes = header(Kind::Wdl, 96, 96, 1).encode().expect("a name that fits").to_vec();
    assert!(Header::decode(&bytes).is_ok());
    let set = |bytes: &mut Vec<u8>, version: u16, at_141: u8| {
        bytes[8..10].copy_from_slice(&version.to_le_bytes());
        bytes[141] = at_141;
        let sum = content_hash(&bytes[..HEADER_LEN - 8]);
        bytes[HEADER_LEN - 8..].copy_from_slice(&sum.to_le_bytes());
    };
    set(&mut bytes, 1, 0);
    let err = Header::decode(&bytes).unwrap_err();
    assert_eq!(err, FormatError::Version(1));
    assert_eq!(
        err.to_string(),
        format!("format version 1 (this reader knows 10 to {FORMAT_VERSION}): rebuild the tables with `damka generate`")
    );
    for old in [2u16, 3, 4, 5, 6, 7, 8, 9, FORMAT_VERSION + 1] {
        set(&mut bytes, old, 0);
        assert_eq!(Header::decode(&bytes).unwrap_err(), FormatError::Version(old));
    }
    set(&mut bytes, 10, 0);
    assert_eq!(Header::decode(&bytes).map(|h| h.resolution), Ok(Resolution::FULL));
    // Version 11 is read as it is, but knew no bound on a threat's reads.
    set(&mut bytes, 11, Resolution::FULL.id());
    assert_eq!(Header::decode(&bytes).map(|h| h.resolution), Ok(Resolution::FULL));
    set(&mut bytes, 11, Resolution::BOUNDED.id());
    assert_eq!(Header::decode(&bytes).unwrap_err(), FormatError::BadHeader("unknown resolution of don't-care entries"));
}

/// Result blocks of versions 10 to 12 were coded whole from their first
/// byte: such a file reads entry for entry, as the same codes coded in
/// halves (version 13) do.
#[test]
fn result_blocks_of_version_12_are_read_whole() {
    let (positions, block_positions) = (4 * 96u64, 96u32);
    let entries: Vec<u8> = (0..positions).map(|i| (i * i / 7 % 5) as u8).collect();
    let whole: Vec<BlockRuns> = entries.chunks(block_positions as usize).map(|c| [runs_of(c), Vec::new()]).collect();
    let mut frequencies = Frequencies::default();
    whole.iter().for_each(|r| frequencies.add_block(r));
    let encoder = Encoder::new(&frequencies);
    let code_table = compress_code_table(encoder.table());
    let blocks: Vec<Vec<u8>> = whole.iter().map(|r| encoder.encode(r)).collect();
    let h = Header { code_table_len: code_table.len() as u32, ..header(Kind::Wdl, positions, block_positions, blocks.len() as u32) };
    let mut bytes = file_bytes(&h, &[], &code_table, &blocks).unwrap();
    let read_all = |bytes: &[u8]| -> Result<Vec<u8>, FormatError> {
        let file = TableFile::new(bytes)?;
        (0..positions as usize).map(|i| file.code_at(i as u32 / block_positions, i % block_positions as usize, None)).collect()
    };
    // Marked as this version's, the whole blocks are not these entries.
    assert_ne!(read_all(&bytes), Ok(entries.clone()));
    bytes[8..10].copy_from_slice(&12u16.to_le_bytes());
    let sum = content_hash(&bytes[..HEADER_LEN - 8]);
    bytes[HEADER_LEN - 8..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
    assert_eq!(read_all(&bytes), Ok(entries));
}

/// Byte 141 says what the files leave "don't care": every resolution reads
/// back as written, and a byte that names none is refused.
#[test]
fn the_resolution_of_don_t_cares_reads_back_and_an_unknown_one_is_refused() {
    let draughts = header(Kind::Wdl, 96, 96, 1);
    let mut seen = std::collections::BTreeSet::new();
    for captures in [false, true] {
        for threat_depth in 0..=THREAT_DEPTH {
            // A bound on a threat's reads only where threats are left.
            let bounds = (threat_depth > 0).then_some(1..=MOST_THREAT_READS / READS_STEP).into_iter().flatten().map(|n| Some(n * READS_STEP));
            for threat_reads in std::iter::once(None).chain(bounds) {
                let resolution = Resolution { captures, threat_depth, threat_reads };
                let h = Header { resolution, ..draughts.clone() };
                assert_eq!(Header::decode(&h.encode().unwrap()).map(|h| h.resolution), Ok(resolution));
                assert!(seen.insert(resolution.id()), "{resolution:?}");
            }
        }
    }
    for bad in (0..=255u8).filter(|b| !seen.contains(b)) {
        assert_eq!(with_byte(&draughts, 141, bad), Err(FormatError::BadHeader("unknown resolution of don't-care entries")), "{bad}");
    }
}

/// `header` read back with byte `at` set to `value` (and the checksum made
/// to fit, so that the byte itself is what is read).
fn with_byte(header: &Header, at: usize, value: u8) -> Result<Header, FormatError> {
    let mut bytes = header.encode().expect("a name that fits").to_vec();
    bytes[at] = value;
    let sum = content_hash(&bytes[..HEADER_LEN - 8]);
    bytes[HEADER_LEN - 8..].copy_from_slice(&sum.to_le_bytes());
    Header::decode(&bytes)
}

/// Byte 15 names one of the six entry orders; any other value, or another
/// order than the index's in a Cheskers table, is refused (with a valid
/// checksum, so that the order itself is what is read).
#[test]
fn an_unknown_entry_order_is_refused() {
    let with_order = |header: &Header, order: u8| with_byte(header, 15, order);
    let draughts = header(Kind::Wdl, 96, 96, 1);
    for order in EntryOrder::all() {
        assert_eq!(with_order(&draughts, order.id()).map(|h| h.order), Ok(order));
    }
    for bad in [6u8, 7, 255] {
        assert_eq!(with_order(&draughts, bad), Err(FormatError::BadHeader("unknown entry order")));
    }
    let cheskers_material = damka::cheskers::Material { own: [0, 1, 0, 0], opp: [0, 1, 0, 0] };
    let cheskers = Header { slice: TableSlice::Cheskers(cheskers_material), ..draughts };
    assert_eq!(with_order(&cheskers, 0).map(|h| h.order), Ok(EntryOrder::INDEX));
    assert_eq!(with_order(&cheskers, 1), Err(FormatError::BadHeader("Cheskers entries are stored in index order")));
}

/// Byte 140 says where a `.dtc` file's distances come from (its own, from
/// the twin, for the twin); any other value is refused, and so is a `.wdl`
/// file that claims to take distances from anywhere.
#[test]
fn an_unknown_source_of_distances_is_refused() {
    let with_source = |header: &Header, source: u8| with_byte(header, 140, source).map(|h| h.distances);
    let dtc = header(Kind::Distance, 96, 96, 1);
    for (id, source) in [(0, Distances::Own), (1, Distances::FromTwin), (2, Distances::ForTwin)] {
        assert_eq!(with_source(&dtc, id), Ok(source));
    }
    for bad in [3u8, 128, 255] {
        assert_eq!(with_source(&dtc, bad), Err(FormatError::BadHeader("unknown source of distances")));
    }
    let wdl = header(Kind::Wdl, 96, 96, 1);
    assert_eq!(with_source(&wdl, 0), Ok(Distances::Own));
    for id in [1, 2] {
        assert_eq!(with_source(&wdl, id), Err(FormatError::BadHeader("a result file that takes distances from its twin")));
    }
}

/// The header holds a rule set name of up to 16 bytes whole; a longer one
/// is refused, not cut: cut, it named another rule set (or, cut inside a
/// character, no text at all).
#[test]
fn a_rule_set_name_is_stored_whole_or_refused() {
    let mut h = header(Kind::Wdl, 96, 96, 1);
    h.rules_name = "russian-extended".into();
    let bytes = h.encode().expect("16 bytes fit");
    assert_eq!(Header::decode(&bytes), Ok(h.clone()));
    for name in ["russian-extended2", "русские-правила", "a\0b"] {
        h.rules_name = name.into();
        assert_eq!(h.encode(), Err(FormatError::RulesName(name.into())));
    }
}

/// A file's list of stored entries (docs/FORMAT.md) that is damaged, cut
/// short or out of order is refused by name.
#[test]
fn a_bad_list_of_stored_entries_is_refused() {
    for kind in [Kind::Wdl, Kind::Distance] {
        refuses_a_bad_list(kind);
    }
}

fn refuses_a_bad_list(kind: Kind) {
    let (bytes, _) = table(kind, 7);
    let header = Header::decode(&bytes).unwrap();
    let start = HEADER_LEN + block_index_len(header.blocks);
    let err = |b: &[u8]| TableFile::new(b).err();

    let mut flipped = bytes.clone();
    flipped[start] ^= 1;
    assert_eq!(err(&flipped), Some(FormatError::StoredEntries("checksum mismatch")));
    let cut = &bytes[..start + header.stored_entries_len as usize - 1];
    assert_eq!(err(cut), Some(FormatError::StoredEntries("cut short")));

    // A list whose checksum is right but whose indices repeat, or pass the
    // slice's end: differences 3 then 0, and 3 then 300.
    for deltas in [[3u64, 0, 1], [3, 300, 1]] {
        let raw: Vec<u8> = deltas.iter().flat_map(|d| d.to_le_bytes()).collect();
        let list = zstd::bulk::compress(&raw, 3).unwrap();
        let mut h = header.clone();
        h.stored_entries = 3;
        h.stored_entries_len = list.len() as u32;
        h.stored_entries_checksum = content_hash(&list);
        // Blocks keep their offsets only for a list of the same length:
        // the error comes before the blocks are looked at either way.
        let mut bad = h.encode().unwrap().to_vec();
        bad.extend_from_slice(&bytes[HEADER_LEN..start]);
        bad.extend_from_slice(&list);
        bad.extend_from_slice(&bytes[start + header.stored_entries_len as usize..]);
        assert_eq!(err(&bad), Some(FormatError::StoredEntries("not in index order, or beyond the slice")), "{kind:?} {deltas:?}");
    }
}

/// A `.wdl` file's table of code words that is damaged or cut short, a
/// `.dtc` file with one, and result blocks of other than three times a
/// power of two positions are refused by name.
#[test]
fn a_bad_code_table_is_refused() {
    let (bytes, _) = table(Kind::Wdl, 7);
    let wdl = Header::decode(&bytes).unwrap();
    let start = HEADER_LEN + block_index_len(wdl.blocks) + wdl.stored_entries_len as usize;
    assert!(wdl.code_table_len > 0);
    let mut flipped = bytes.clone();
    flipped[start] ^= 1;
    assert_eq!(TableFile::new(&flipped[..]).err(), Some(FormatError::CodeTable("checksum mismatch")));
    let cut = &bytes[..start + wdl.code_table_len as usize - 1];
    assert_eq!(TableFile::new(cut).err(), Some(FormatError::CodeTable("cut short")));

    let (dtc, _) = table(Kind::Distance, 7);
    let h = Header::decode(&dtc).unwrap();
    let blocks: Vec<Vec<u8>> = (0..h.blocks).map(|b| dtc[TableFile::new(&dtc[..]).unwrap().block_range(b)].to_vec()).collect();
    let list = encode_stored_entries(&STORED);
    let with_table = file_bytes(&h, &list, &[1, 2, 3], &blocks).unwrap();
    assert_eq!(TableFile::new(&with_table[..]).err(), Some(FormatError::CodeTable("in a distance file")));

    let odd = header(Kind::Wdl, 100, 100, 1).encode().unwrap();
    assert_eq!(
        Header::decode(&odd),
        Err(FormatError::BadHeader("result blocks of other than three times a power of two positions"))
    );
}

/// The block index of a file of three groups of blocks (the last one
/// short): every entry reads the same in place as from its decompressed
/// block, a block whose group's checksum fails is refused as its group,
/// lengths that do not add up to their group's are refused by name, a
/// block longer than the index can say is not written, and a distance
/// file has no result codes to read in place.
#[test]
fn the_block_index_checks_groups_of_blocks() {
    let (positions, block_positions) = (40 * 96u64, 96u32);
    let entries: Vec<u8> = (0..positions).map(|i| (i * i / 7 % 5) as u8).collect();
    let (code_table, blocks) = encode_blocks(Kind::Wdl, &entries, block_positions, 1);
    let h = Header { code_table_len: code_table.len() as u32, ..header(Kind::Wdl, positions, block_positions, blocks.len() as u32) };
    let bytes = file_bytes(&h, &[], &code_table, &blocks).unwrap();
    let file = TableFile::new(&bytes[..]).unwrap();
    for (i, &code) in entries.iter().enumerate() {
        let block = i as u32 / block_positions;
        assert_eq!(file.code_at(block, i % block_positions as usize, None), Ok(code), "entry {i}");
        assert_eq!(file.read_block(block).unwrap()[i % block_positions as usize], code, "entry {i}");
    }

    // A byte of block 20 flipped: blocks 16-31 are refused, the others read.
    let mut flipped = bytes.clone();
    let middle = file.block_range(20).start + file.block_range(20).len() / 2;
    flipped[middle] ^= 0x40;
    let damaged = TableFile::new(&flipped[..]).unwrap();
    for block in 0..40 {
        let read = damaged.code_at(block, 0, None).map(|_| ());
        let expected = if (16..32).contains(&block) { Err(FormatError::GroupChecksum { first: 16, last: 31 }) } else { Ok(()) };
        assert_eq!(read, expected, "block {block}");
    }

    // Block 0's length one off: the lengths of its group no longer add up
    // to where the group ends (the lengths follow the three groups' ends).
    let length = HEADER_LEN + 3 * 8;
    let mut shifted = bytes.clone();
    shifted[length] ^= 1;
    assert_eq!(TableFile::new(&shifted[..]).err(), Some(FormatError::BadHeader("block lengths that do not add up to their group's")));

    let (dtc, _) = table(Kind::Distance, 7);
    assert_eq!(TableFile::new(&dtc[..]).unwrap().code_at(0, 0, None), Err(FormatError::CodeTable("not a result file")));
    let too_long = vec![vec![0u8; 1 << 16]];
    assert_eq!(file_bytes(&header(Kind::Distance, 96, 96, 1), &[], &[], &too_long).err(), Some(FormatError::BlockTooLarge(1 << 16)));
}
