//! `damka verify` and `damka stats` on freshly generated tables: sound
//! tables pass, and each kind of damage is reported where it is.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use damka::format::{content_hash, encode_blocks, file_bytes, Distances, Header, Kind, TableFile, HEADER_LEN};
use damka::layout::EntryOrder;
use damka::movegen::has_capture;
use damka::resolve::{is_settled_threat, Resolution};
use damka::rules::Binding;
use damka::{fen, Material, OpenOptions, RuleSet, SliceIndex, Tablebase, Value, Variant, Wdl};
use damka_generator::catalog::LoadError;
use damka_generator::driver::{self, Job};
use damka_generator::graph::{resolution_of, DontCare, Leaving};
use damka_generator::verify::{self, Options, Problem};
use damka_generator::writer::{self, table_path, RulesId, Stored};

const RUSSIAN: Variant = Variant::Russian;

fn generate(max_pieces: u8) -> tempfile::TempDir {
    generate_with(max_pieces, "none")
}

fn generate_with(max_pieces: u8, rules: &str) -> tempfile::TempDir {
    generate_storing(max_pieces, rules, DontCare::default())
}

/// Tables whose files leave "don't care" what `dont_care` says.
fn generate_storing(max_pieces: u8, rules: &str, dont_care: DontCare) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let rules = Arc::new(RuleSet::preset(rules).expect("rule set preset"));
    let job = Job { variant: RUSSIAN, max_pieces, dir: dir.path().to_path_buf(), rules, progress: false, replace: false, memory: None, dont_care: dont_care.into() };
    driver::run(&job).expect("generation");
    dir
}

fn verify_dir(dir: &Path) -> verify::Report {
    let opts = Options { dir: dir.to_path_buf(), variant: None, slice: None, progress: false, rules: None };
    verify::run(&opts).expect("verify runs")
}

fn damka(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damka")).args(args).output().expect("damka runs")
}

fn path(dir: &Path, material: &str, kind: Kind) -> PathBuf {
    table_path(dir, RUSSIAN, material.parse().expect("material"), kind)
}

/// A table file's header and raw entries, in index order.
fn read_table(path: &Path) -> (Header, Vec<u8>) {
    let file = TableFile::new(std::fs::read(path).expect("table file")).expect("sound table");
    let in_file: Vec<u8> = (0..file.header().blocks).flat_map(|b| file.read_block(b).expect("sound block")).collect();
    let (layout, width) = (file.header().layout(), file.header().entry_bytes as usize);
    let raw = (0..file.header().positions)
        .flat_map(|i| {
            let slot = layout.slot(i) as usize * width;
            in_file[slot..slot + width].to_vec()
        })
        .collect();
    (file.header().clone(), raw)
}

/// Writes a table file the way docs/FORMAT.md lays it out, so that every
/// checksum is valid whatever the entries say. `raw` is what the reader
/// hands out, in index order: one result code a byte, or a distance in one
/// or two bytes.
fn write_table(path: &Path, header: &Header, raw: &[u8]) {
    let (layout, width) = (header.layout(), header.entry_bytes as usize);
    let raw: Vec<u8> = (0..header.positions)
        .flat_map(|slot| {
            let i = layout.index(slot) as usize * width;
            raw[i..i + width].to_vec()
        })
        .collect();
    let (table, blocks) = encode_blocks(header.kind, &raw, header.block_positions, width as u8);
    assert_eq!(blocks.len(), header.blocks as usize);
    let out = file_bytes(header, &[], &table, &blocks).expect("a name that fits");
    std::fs::write(path, out).expect("write table");
}

/// A slice's entries as packed values: each result code with its distance
/// (0 for draws). Capture positions hold "don't care" entries.
fn file_values(dir: &Path, material: &str) -> Vec<u16> {
    let (_, codes) = read_table(&path(dir, material, Kind::Wdl));
    let (dtc, raw) = read_table(&path(dir, material, Kind::Distance));
    let distance = |i: usize| match dtc.entry_bytes {
        1 => raw[i] as u16,
        _ => u16::from_le_bytes([raw[2 * i], raw[2 * i + 1]]),
    };
    (0..codes.len()).map(|i| if codes[i] == 0 { 0 } else { distance(i) << 3 | codes[i] as u16 }).collect()
}

/// Whether the side to move of each position of a slice must capture.
fn captures(material: &str) -> Vec<bool> {
    let index = SliceIndex::new(material.parse().unwrap());
    (0..index.size()).map(|i| has_capture(&index.position(i), RUSSIAN)).collect()
}

/// Which positions of a slice have their result stored as it is: neither
/// capture positions nor settled threats (docs/FORMAT.md).
fn stored(material: &str) -> Vec<bool> {
    let material: Material = material.parse().unwrap();
    let index = SliceIndex::new(material);
    let left = resolution_of(material, Leaving::default());
    let mut moves = Vec::new();
    (0..index.size())
        .map(|i| {
            let pos = index.position(i);
            !has_capture(&pos, RUSSIAN) && !is_settled_threat(&pos, RUSSIAN, left, &mut moves)
        })
        .collect()
}

/// Rewrites both files of a slice with `change` applied to the packed
/// values of its positions (only those stored as they are may change), as
/// the generator writes them: a change only the one-ply search can see.
fn rewrite_values(dir: &Path, material: &str, change: impl FnOnce(&mut [u16])) {
    rewrite(dir, material, None, change)
}

/// [`rewrite_values`], the entries in `order` where one is given (else in
/// the order the files have).
fn rewrite(dir: &Path, material: &str, order: Option<EntryOrder>, change: impl FnOnce(&mut [u16])) {
    let index = SliceIndex::new(material.parse().unwrap());
    let before: Vec<u16> = {
        let tb = Tablebase::open(dir, OpenOptions::new(RUSSIAN)).expect("tables open");
        (0..index.size()).map(|i| tb.probe_value(&index.position(i)).expect("probes").pack()).collect()
    };
    let mut values = before.clone();
    change(&mut values);
    let stored = stored(material);
    assert!((0..values.len()).all(|i| stored[i] || values[i] == before[i]), "only stored results change");
    let file = |kind| TableFile::new(std::fs::read(path(dir, material, kind)).unwrap()).expect("sound table");
    let (wdl, dtc) = (file(Kind::Wdl), file(Kind::Distance));
    let header = wdl.header().clone();
    let capture = captures(material);
    let distances = dtc.header().distances;
    // A slice that takes its distances from its twin lists every one it
    // keeps here: a changed distance stays in the file.
    let how = |i: usize| match (capture[i], stored[i], distances) {
        (true, ..) => Stored::Capture { result: !header.resolution.captures },
        (false, true, Distances::FromTwin) => Stored::FromTwin { value_stands: true },
        (false, true, _) => Stored::Plain,
        (false, false, Distances::ForTwin) => Stored::ThreatForTwin { stands: wdl.entry_is_stored(i as u64) },
        (false, false, _) => Stored::Threat { stands: wdl.entry_is_stored(i as u64), value_stands: dtc.entry_is_stored(i as u64) },
    };
    let rules = RulesId { name: header.rules_name, hash: header.rules_hash };
    let order = [order.unwrap_or(header.order)];
    writer::write_slice(|kind| path(dir, material, kind), header.slice, &rules, distances, header.resolution, &values, &how, &order).expect("written");
}

#[test]
fn four_piece_tables_verify_and_their_stats_add_up() {
    let dir = generate(4);
    let report = verify_dir(dir.path());
    assert!(report.is_ok(), "{:#?}", report.problems);
    assert!(report.results_only.is_empty(), "pure tables are checked in full");
    assert_eq!(report.slices, 41);
    // Published count of placements with 2 to 4 pieces (index.rs tests).
    assert_eq!(report.positions, 3488 + 196_032 + 6_209_316);

    let out = damka(&["stats", "--dir", dir.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stats --json is JSON");
    let all = json.as_array().expect("an array");
    assert_eq!(all.len(), 41);
    let total: u64 = all.iter().map(|s| s["positions"].as_u64().unwrap()).sum();
    assert_eq!(total, report.positions);

    let kvk = all.iter().find(|s| s["material"] == "KvK").expect("KvK");
    let n = |key: &str| kvk[key].as_u64().unwrap_or_else(|| panic!("{key}"));
    assert_eq!((kvk["variant"].as_str(), kvk["rules"].as_str(), n("pieces")), (Some("russian"), Some("none"), 2));
    assert_eq!(n("positions"), 32 * 31);
    assert_eq!(n("wins") + n("draws") + n("losses"), 992);
    assert_eq!((n("cursed_wins"), n("blessed_losses")), (0, 0));
    // The only lost KvK positions: a king in a corner of the main road, the
    // other in the opposite corner; every move lands on the road in front
    // of it and is taken.
    assert_eq!(n("losses"), 2);
    assert_eq!(kvk["longest_loss"]["plies"], 2);
    // Every position where White can take wins at once.
    let index = SliceIndex::new(Material::new(1, 0, 1, 0));
    let captures = (0..index.size()).filter(|&i| has_capture(&index.position(i), RUSSIAN)).count() as u64;
    assert!(n("wins") >= captures && captures > 0);
    // The figures are those of the header, and the example is what it says.
    let (header, _) = read_table(&path(dir.path(), "KvK", Kind::Distance));
    assert_eq!((n("wins"), n("draws"), n("losses")), (header.counts.wins, header.counts.draws, header.counts.losses));
    let longest = &kvk["longest_win"];
    assert_eq!(longest["plies"].as_u64(), Some(header.longest_win as u64));
    let example = fen::parse(longest["fen"].as_str().unwrap(), RUSSIAN).expect("example FEN");
    let tb = damka::Tablebase::open(dir.path(), damka::OpenOptions::new(RUSSIAN)).unwrap();
    assert_eq!(tb.probe_value(&example).unwrap(), Value::new(Wdl::Win, header.longest_win));

    let table = damka(&["stats", "--dir", dir.path().to_str().unwrap()]);
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.lines().any(|l| l.starts_with("KvK ") && l.contains(" 992 ")), "{text}");
}

#[test]
fn a_changed_value_with_valid_checksums_is_reported_at_its_position() {
    let dir = generate(3);
    assert!(verify_dir(dir.path()).is_ok());
    // Black's only piece is a man on its back row: no position of three
    // pieces or fewer moves into this one, so only its own value is wrong.
    let pos = fen::parse("W:WKa1,Kh2:Bb8", RUSSIAN).unwrap();
    let fen_text = fen::write(&pos, RUSSIAN);
    let index = SliceIndex::new(Material::of(&pos)).index(&pos).unwrap() as usize;
    let mut before = None;
    rewrite_values(dir.path(), "KKvM", |values| {
        let v = Value::unpack(values[index]).unwrap();
        assert_eq!(v.wdl, Wdl::Win, "two kings beat a man on its back row");
        before = Some(v);
        values[index] = Value::new(Wdl::Win, v.plies.0 + 2).pack();
    });
    let before = before.unwrap();

    let report = verify_dir(dir.path());
    match &report.problems[..] {
        [Problem::Inconsistent { slice, index: i, fen, expected, stored, count, results_only: false }] => {
            assert_eq!(slice.material.to_string(), "KKvM");
            assert_eq!((*i as usize, fen.as_str(), *count), (index, fen_text.as_str(), 1));
            assert_eq!((*expected, *stored), (before, Value::new(Wdl::Win, before.plies.0 + 2)));
        }
        other => panic!("expected one inconsistency, got {other:#?}"),
    }

    let out = damka(&["verify", "--dir", dir.path().to_str().unwrap(), "--quiet"]);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&fen_text) && text.contains(&format!("expected {before}")), "{text}");
}

/// Whatever order of the index's parts a slice's files store their entries
/// in, probes, reading back and `damka verify` see the same values.
#[test]
fn every_entry_order_reads_back_the_same_values() {
    let dir = generate_with(4, "russian");
    let (material, slice) = ("KKvKM", "KKvKM".parse().unwrap());
    let index = SliceIndex::new(slice);
    let probe_all = || {
        let tb = Tablebase::open(dir.path(), OpenOptions::new(RUSSIAN)).expect("tables open");
        (0..index.size()).map(|i| tb.probe_value(&index.position(i)).expect("probes")).collect::<Vec<Value>>()
    };
    let before = probe_all();
    for order in EntryOrder::all() {
        rewrite(dir.path(), material, Some(order), |_| {});
        for kind in [Kind::Wdl, Kind::Distance] {
            assert_eq!(read_table(&path(dir.path(), material, kind)).0.order, order);
        }
        assert!(probe_all() == before, "{order:?}: other values");
        let opts = Options { dir: dir.path().to_path_buf(), variant: None, slice: Some(slice), progress: false, rules: None };
        let report = verify::run(&opts).expect("verify runs");
        assert!(report.is_ok() && report.positions == index.size(), "{order:?}: {:#?}", report.problems);
    }
}

#[test]
fn a_flipped_byte_is_reported_with_its_file_and_block() {
    let dir = generate(3);
    let damaged = path(dir.path(), "KKvM", Kind::Distance);
    let mut bytes = std::fs::read(&damaged).unwrap();
    let header = Header::decode(&bytes).unwrap();
    assert!(header.blocks >= 2, "a table with more than one block");
    let block = TableFile::new(&bytes[..]).unwrap().block_range(1);
    bytes[block.start + block.len() / 2] ^= 0x10;
    std::fs::write(&damaged, bytes).unwrap();

    let report = verify_dir(dir.path());
    match &report.problems[..] {
        [Problem::File { path, error: LoadError::Blocks(errors) }] => {
            assert_eq!(path, &damaged);
            let last = header.blocks.min(damka::format::GROUP_BLOCKS as u32) - 1;
            assert_eq!(errors, &[damka::format::FormatError::GroupChecksum { first: 0, last }]);
        }
        other => panic!("expected one damaged block, got {other:#?}"),
    }
    assert_eq!(report.positions, 0, "values are not re-derived from damaged tables");

    let out = damka(&["verify", "--dir", dir.path().to_str().unwrap(), "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("russian-KKvM.dtc: blocks 0-"), "{stderr}");
}

/// A result code changed at a quiet position is found by the one-ply
/// search; one changed at a capture position ("don't care") changes
/// nothing an engine reads, and verify passes.
#[test]
fn a_changed_result_code_is_reported_and_a_dont_care_one_is_not() {
    let dir = generate(3);
    let wdl = path(dir.path(), "KvKK", Kind::Wdl);
    let (header, codes) = read_table(&wdl);
    let (capture, stored) = (captures("KvKK"), stored("KvKK"));
    let (i, _) = codes.iter().enumerate().find(|&(i, &c)| c == 0 && stored[i]).expect("a quiet draw");
    let (j, _) = codes.iter().enumerate().find(|&(j, &c)| c == 0 && capture[j]).expect("a capture position");
    let mut changed = codes.clone();
    changed[j] = Value::new(Wdl::Loss, 0).pack() as u8;
    write_table(&wdl, &header, &changed);
    let report = verify_dir(dir.path());
    assert!(report.is_ok(), "{:#?}", report.problems);
    changed[i] = Value::new(Wdl::Win, 0).pack() as u8;
    write_table(&wdl, &header, &changed);
    let report = verify_dir(dir.path());
    assert!(
        report.problems.iter().any(|p| matches!(p, Problem::Inconsistent { index, .. } if *index as usize == i)),
        "{:#?}",
        report.problems
    );
}

/// In tables that store every result (`--dont-care none`), a capture
/// position's result is an entry like any other: changed, it is reported;
/// so is a settled threat's. Sound, such tables verify, under the rules
/// too.
#[test]
fn a_changed_result_of_a_capture_or_a_threat_is_reported_where_it_is_stored() {
    let dir = generate_storing(4, "russian", DontCare::None);
    let report = verify_dir(dir.path());
    assert!(report.is_ok() && report.slices > 0, "{:#?}", report.problems);
    let material = "KMvKK";
    let wdl = path(dir.path(), material, Kind::Wdl);
    let (header, codes) = read_table(&wdl);
    assert_eq!(header.resolution, Resolution::NONE);
    let index = SliceIndex::new(material.parse().unwrap());
    let capture = captures(material);
    let threat = |i: usize| is_settled_threat(&index.position(i as u64), RUSSIAN, Resolution::FULL, &mut Vec::new());
    let j = (0..codes.len()).find(|&j| capture[j]).expect("a capture position");
    let k = (0..codes.len()).find(|&k| !capture[k] && threat(k)).expect("a settled threat");
    for at in [j, k] {
        let mut changed = codes.clone();
        changed[at] = if codes[at] == 1 { 2 } else { 1 };
        write_table(&wdl, &header, &changed);
        let report = verify_dir(dir.path());
        assert!(
            report.problems.iter().any(|p| matches!(p, Problem::Inconsistent { index, .. } if *index as usize == at)),
            "{at}: {:#?}",
            report.problems
        );
    }
}

/// A `.dtc` file whose header says it leaves other entries "don't care"
/// than its `.wdl` file (a reader goes by the `.wdl` file's) is reported,
/// and the slice is not read as if they agreed: its twin, re-derived from
/// its values, cannot be verified.
#[test]
fn files_that_disagree_on_what_they_leave_don_t_care_are_reported() {
    let dir = generate(3);
    let dtc = path(dir.path(), "KKvK", Kind::Distance);
    let mut bytes = std::fs::read(&dtc).unwrap();
    assert_eq!(Header::decode(&bytes).unwrap().resolution, resolution_of("KKvK".parse().unwrap(), Leaving::default()));
    bytes[141] = Resolution::NONE.id();
    let sum = content_hash(&bytes[..HEADER_LEN - 8]);
    bytes[HEADER_LEN - 8..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&dtc, bytes).unwrap();
    let report = verify_dir(dir.path());
    assert!(
        report.problems.iter().any(|p| matches!(p, Problem::Header { path, what } if path == &dtc && what.contains("don't care"))),
        "{:#?}",
        report.problems
    );
    let opts = Options { dir: dir.path().to_path_buf(), variant: None, slice: Some("KvKK".parse().unwrap()), progress: false, rules: None };
    let twin = verify::run(&opts).expect("verify runs");
    assert!(
        matches!(&twin.problems[..], [Problem::Unverifiable { reason, .. }] if reason.contains("leaves other entries don't care")),
        "{:#?}",
        twin.problems
    );
}

#[test]
fn header_counts_that_do_not_match_the_data_are_reported() {
    let dir = generate(2);
    let dtc = path(dir.path(), "KvK", Kind::Distance);
    let (mut header, raw) = read_table(&dtc);
    header.counts.wins += 1;
    header.longest_loss += 4;
    write_table(&dtc, &header, &raw);
    let report = verify_dir(dir.path());
    let what: Vec<String> = report
        .problems
        .iter()
        .map(|p| match p {
            Problem::Header { path, what } if path == &dtc => what.clone(),
            other => panic!("unexpected {other}"),
        })
        .collect();
    assert_eq!(what.len(), 2, "{what:?}");
    assert!(what[0].starts_with("counts") && what[1].starts_with("longest loss"), "{what:?}");
}

#[test]
fn tables_with_draw_rules_have_their_results_checked() {
    let dir = generate_with(3, "russian");
    let report = verify_dir(dir.path());
    assert!(report.is_ok(), "{:#?}", report.problems);
    // Every value is re-derived, rule values and distances included.
    assert!(report.results_only.is_empty(), "{:?}", report.results_only);
    // A drawn position turned into a win, its distance a plausible one.
    let kkvk = Material::new(2, 0, 1, 0);
    let index = SliceIndex::new(kkvk);
    let values = file_values(dir.path(), "KKvK");
    let stored = stored("KKvK");
    let draw = (0..index.size() as usize).find(|&i| values[i] == 0 && stored[i]).expect("a quiet draw");
    rewrite_values(dir.path(), "KKvK", |values| values[draw] = Value::new(Wdl::Win, 9).pack());
    // Positions that move into it may now be wrong too; KKvK itself is.
    let report = verify_dir(dir.path());
    let found = report.problems.iter().find_map(|p| match p {
        Problem::Inconsistent { slice, index, expected, .. } if slice.material == kkvk => {
            Some((*index as usize, expected.wdl))
        }
        _ => None,
    });
    assert_eq!(found, Some((draw, Wdl::Draw)), "{:#?}", report.problems);
}

/// Where the kings-only limit binds beside the quiet one (kings on both
/// sides and men on the board), values hold for a fresh kings-only count
/// and are re-derived over (position, kings-only count): a rule distance
/// changed by two plies, the result kept, is found.
#[test]
fn rule_distances_over_the_kings_only_count_are_checked() {
    let dir = generate_with(4, "russian");
    let material = Material::new(1, 1, 1, 1);
    assert!(matches!(RuleSet::preset("russian").unwrap().binding(material), Binding::Both(30)));
    let values: Vec<Value> = file_values(dir.path(), "KMvKM").iter().map(|&v| Value::unpack(v).unwrap()).collect();
    let stored = stored("KMvKM");
    let win = (0..values.len()).find(|&i| values[i].wdl == Wdl::Win && values[i].plies.0 > 4 && stored[i]).expect("a long win");
    let longer = Value::new(Wdl::Win, values[win].plies.0 + 2);
    rewrite_values(dir.path(), "KMvKM", |values| values[win] = longer.pack());
    let report = verify_dir(dir.path());
    let found = report.problems.iter().any(|p| {
        matches!(p, Problem::Inconsistent { slice, count, .. } if slice.material == material && *count >= 1)
    });
    assert!(found, "{:#?}", report.problems);
}

/// Two kings against a lone king, with a limit of 32768 moves: 65536
/// plies, which wrapped to 0 in 16 bits and built KvKK with every win
/// cursed, tables `damka verify` passed.
const WRAPPING: &str = "name = \"two-kings\"\n\n[[rule]]\nname = \"two-kings\"\ncounter = \"quiet\"\n\
                        limit_moves = 32768\nwhen = { strong = [\"KK\"], weak = \"lone-king\" }\n";

/// The reader refuses such a limit. A rule set built in code can still hold
/// one: the solver computes it in 32 bits (it binds nothing), and verify
/// checks the limits itself and re-derives in 32 bits too, so it reports
/// the rule, and the tables the wrapped limit built.
#[test]
fn a_limit_beyond_the_format_is_caught_by_verify() {
    let refused = RuleSet::parse(WRAPPING).expect_err("limit beyond the format");
    assert!(refused.to_string().contains("limit_moves = 32768 is above 4095"), "{refused}");
    let mut wide = RuleSet::parse(&WRAPPING.replace("32768", "15")).expect("a valid rule file");
    wide.rules[0].limit_moves = Some(32768);
    let wide = Arc::new(wide);
    let dir = tempfile::tempdir().expect("temporary directory");
    let tables = dir.path().to_path_buf();
    let job = Job { variant: RUSSIAN, max_pieces: 3, dir: tables, rules: wide.clone(), progress: false, replace: false, memory: None, dont_care: Default::default() };
    driver::run(&job).expect("generation");
    let pure = generate(3);
    let (built, _) = read_table(&path(dir.path(), "KvKK", Kind::Distance));
    let (pure_header, _) = read_table(&path(pure.path(), "KvKK", Kind::Distance));
    let wins = pure_header.counts.wins;
    assert!(wins > 0);
    assert_eq!((built.counts.wins, built.counts.cursed_wins), (wins, 0), "a limit that binds nothing curses no win");

    let opts = Options { dir: dir.path().to_path_buf(), variant: None, slice: None, progress: false, rules: Some(wide) };
    let report = verify::run(&opts).expect("verify runs");
    match &report.problems[..] {
        [Problem::Rules { variant: RUSSIAN, name, what }] => {
            assert_eq!(name, "two-kings");
            assert!(what.contains("32768 moves (65536 plies)") && what.contains("1 to 8191 plies"), "{what}");
        }
        other => panic!("expected the rule reported, got {other:#?}"),
    }
    assert!(report.results_only.is_empty(), "rule values re-derived under the given set");

    // What a wrapped limit builds: the wins it binds cursed. KvKK's wins
    // are all captures of a king, which the files do not store; the two
    // kings' wins in KKvK are stored, but for settled threats'.
    let stored = stored("KKvK");
    let mut cursed = 0;
    rewrite_values(dir.path(), "KKvK", |values| {
        for (i, packed) in values.iter_mut().enumerate() {
            let v = Value::unpack(*packed).expect("valid value");
            if v.wdl == Wdl::Win && stored[i] {
                *packed = Value::new(Wdl::CursedWin, v.plies.0).pack();
                cursed += 1;
            }
        }
    });
    assert!(cursed > 0);
    let report = verify::run(&opts).expect("verify runs");
    let found = report.problems.iter().find_map(|p| match p {
        Problem::Inconsistent { slice, expected, stored, count, .. } if slice.material.to_string() == "KKvK" => {
            Some((*count, expected.wdl, stored.wdl))
        }
        _ => None,
    });
    assert_eq!(found, Some((cursed, Wdl::Win, Wdl::CursedWin)), "{:#?}", report.problems);
}
