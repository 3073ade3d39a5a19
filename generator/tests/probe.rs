//! The probe library against generated tables: it returns the stored
//! values for both colours, ranks moves consistently with them, reports
//! damaged and missing files as such (never a wrong value), and answers the
//! same from many threads as from one.

mod support;

use std::path::Path;

use std::sync::Arc;

use damka::game::Game;
use damka::format::{Distances, Header, Kind, GROUP_BLOCKS, HEADER_LEN};
use damka::movegen::{has_capture, is_threatened};
use damka::resolve::{is_settled_threat, threat_result, threat_value, white_to_move, Resolution, THREAT_READS};
use damka::{
    fen, Cached, Material, OpenOptions, Position, ProbeError, RuleSet, RuleSetId, SliceIndex, Tablebase, Value, Variant, Wdl,
};
use damka_generator::driver::solve_in_memory;
use damka_generator::graph::{resolution_of, DontCare, Leaving, ThreatReads};
use damka_generator::solver::{Metric, Options};

fn open(dir: &Path, cache_bytes: usize) -> Tablebase {
    Tablebase::open(dir, OpenOptions::new(Variant::Russian).cache_bytes(cache_bytes)).expect("open the tables")
}

fn positions(material: Material) -> impl Iterator<Item = Position> {
    let index = SliceIndex::new(material);
    (0..index.size()).map(move |i| index.position(i))
}

/// Every position of every slice of `tb` with the value the solver found
/// for it, White to move (capture positions included, which the files
/// leave "don't care").
fn stored_values(variant: Variant, rules: &str, tb: &Tablebase) -> Vec<(Position, Value)> {
    let rules = Arc::new(RuleSet::preset(rules).expect("a preset"));
    let opts = Options { variant, metric: Metric::Conversion, rules: Some(rules) };
    let known = solve_in_memory(&opts, tb.max_pieces());
    let mut all = Vec::new();
    for material in tb.materials() {
        let solved = &known[&material];
        all.extend(positions(material).map(|pos| (pos, solved.value(&pos))));
    }
    all
}

/// Probes every position against the stored values. Under pure values
/// the best ranked move is also worth the position (under a rule set a
/// move's value depends on the counters, which rank_moves leaves fresh).
fn check_against_stored_values(variant: Variant, rules: &str) {
    let tables = support::generate_with_rules("probe-values", variant, 3, rules);
    let tb = Tablebase::open(tables.path(), OpenOptions::new(variant).cache_bytes(1 << 20)).unwrap();
    assert_eq!(tb.max_pieces(), 3);
    assert_eq!(tb.rules().map(|r| r.name.as_str()), Some(rules));
    let stored = stored_values(variant, rules, &tb);
    assert!(stored.len() > 100_000);
    for (pos, value) in &stored {
        assert_eq!(tb.probe_value(pos).unwrap(), *value, "{pos:?}");
        assert_eq!(tb.probe_wdl(pos).unwrap(), value.wdl, "{pos:?}");
        // Black to move: the same position turned round.
        assert_eq!(tb.probe_value(&pos.flip()).unwrap(), *value, "{:?}", pos.flip());
        let ranked = tb.rank_moves(pos).unwrap();
        if rules != "none" {
            continue;
        }
        match ranked.first() {
            // The best move is worth the position's value.
            Some(best) => assert_eq!(best.value, *value, "{pos:?}: {ranked:?}"),
            None => assert_eq!(*value, Value::new(Wdl::Loss, 0), "{pos:?} has no move"),
        }
    }
}

#[test]
fn probes_return_the_stored_values_and_rank_moves_by_them() {
    check_against_stored_values(Variant::Russian, "none");
}

#[test]
fn probes_return_the_stored_values_in_english_checkers() {
    check_against_stored_values(Variant::English, "none");
}

#[test]
fn probes_return_the_stored_values_under_the_russian_draw_rules() {
    check_against_stored_values(Variant::Russian, "russian");
}

/// Tables of every Russian slice up to 4 pieces under the Russian rules
/// (the first piece count with settled threats of both kinds), and the
/// solver's values of the same slices in memory.
fn russian_four_pieces(name: &str) -> (support::TempDir, damka_generator::solver::Known) {
    russian_four_pieces_leaving(name, Leaving::default())
}

/// [`russian_four_pieces`], the files leaving "don't care" what `leaving`
/// says.
fn russian_four_pieces_leaving(name: &str, leaving: Leaving) -> (support::TempDir, damka_generator::solver::Known) {
    let tables = support::TempDir::new(name);
    support::generate_storing(tables.path(), Variant::Russian, 4, "russian", leaving);
    let rules = Arc::new(RuleSet::preset("russian").expect("a preset"));
    (tables, solve_in_memory(&Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules) }, 4))
}

/// Slices that store every result (`--dont-care none`) beside slices that
/// leave all they can "don't care", either way round (a capture or a
/// settled threat of one resolved through the other's entries): every
/// probe gives the solver's value, with and without a cache, and each
/// file's header says what it stores.
#[test]
fn slices_that_store_every_result_probe_beside_those_that_leave_them() {
    let rules = Arc::new(RuleSet::preset("russian").expect("a preset"));
    let known = solve_in_memory(&Options { variant: Variant::Russian, metric: Metric::Conversion, rules: Some(rules) }, 4);
    // All a reader can resolve, without a bound on a threat's reads (format
    // 11's files) and with the default one.
    let all = |bound| Leaving { policy: DontCare::All, threat_reads: ThreatReads::Every(bound) };
    for (three, four) in [(DontCare::None.into(), all(None)), (all(Some(THREAT_READS)), DontCare::None.into())] {
        let tables = support::TempDir::new("probe-resolutions");
        support::generate_storing(tables.path(), Variant::Russian, 3, "russian", three);
        support::generate_storing(tables.path(), Variant::Russian, 4, "russian", four);
        let (tb, bare) = (open(tables.path(), 1 << 22), open(tables.path(), 0));
        for material in tb.materials() {
            let wanted = if material.pieces() <= 3 { three } else { four };
            for kind in [Kind::Wdl, Kind::Distance] {
                let path = tables.path().join(format!("russian-{material}.{}", kind.extension()));
                let header = damka::format::read_header(&path).expect("a header");
                assert_eq!(header.resolution, resolution_of(material, wanted), "{}", path.display());
            }
            let mut most_read = 0;
            for (n, pos) in positions(material).enumerate() {
                let value = known[&material].value(&pos);
                assert_eq!(tb.probe_value(&pos).unwrap(), value, "{three:?}/{four:?} {pos:?}");
                // Without a cache every probe resolves anew, and counts the
                // entries it reads: one in five.
                if n % 5 == 0 {
                    let entries = || bare.cache_stats().hits + bare.cache_stats().misses;
                    let before = entries();
                    assert_eq!(bare.probe_wdl(&pos).unwrap(), value.wdl, "{three:?}/{four:?} {pos:?}");
                    most_read = most_read.max(entries() - before);
                    assert_eq!(bare.probe_value(&pos.flip()).unwrap(), value, "{three:?}/{four:?} {:?}", pos.flip());
                }
            }
            // A result stored for every position is one entry read; a
            // resolution reads more.
            assert_eq!(most_read <= 1, wanted.policy == DontCare::None, "{material}: {most_read} entries at most");
        }
    }
}

/// Settled threats (docs/FORMAT.md, "Don't-care entries") probe to the
/// solver's values, result and distance: resolved through their moves
/// (and those of the settled threats the moves lead to), or read where
/// that resolution would be wrong under the rules. Four pieces: the first
/// with both kinds under the Russian rules; with a bound on a threat's
/// reads, so that threats over it are read where they are stored.
#[test]
fn settled_threats_probe_to_the_values_the_solver_found() {
    let bounded = Leaving { policy: DontCare::Auto, threat_reads: ThreatReads::Every(Some(THREAT_READS)) };
    let (tables, known) = russian_four_pieces_leaving("probe-threats", bounded);
    let tb = open(tables.path(), 1 << 22);
    // Without a cache there is no memo either: every probe resolves anew.
    let bare = open(tables.path(), 0);
    let value_of = |pos: &Position| {
        let pos = white_to_move(pos);
        known[&Material::of(&pos)].value(&pos)
    };
    let (mut settled, mut stored, mut distance_stored, mut unsettled, mut deep, mut deepest) = (0, 0, 0, 0, 0, 0);
    let (mut moves, mut replies, mut answers) = (Vec::new(), Vec::new(), Vec::new());
    for material in tb.materials() {
        for pos in positions(material) {
            if !is_settled_threat(&pos, Variant::Russian, Resolution::BOUNDED, &mut moves) {
                // Other threats are stored; the memo remembers that, so
                // the second probe takes another road than the first.
                if is_threatened(&pos, Variant::Russian) && !has_capture(&pos, Variant::Russian) {
                    let value = value_of(&pos);
                    assert_eq!(tb.probe_value(&pos).unwrap(), value, "{}", fen::write(&pos, Variant::Russian));
                    assert_eq!(tb.probe_value(&pos.flip()).unwrap(), value, "{}", fen::write(&pos.flip(), Variant::Russian));
                    assert_eq!(bare.probe_value(&pos).unwrap(), value, "{}", fen::write(&pos, Variant::Russian));
                    unsettled += 1;
                }
                continue;
            }
            settled += 1;
            let (mut two, mut three) = (false, false);
            for after in moves.iter().map(|m| pos.play(m)) {
                if is_settled_threat(&after, Variant::Russian, Resolution::BOUNDED, &mut replies) {
                    two = true;
                    three |= replies.iter().any(|r| is_settled_threat(&after.play(r), Variant::Russian, Resolution::BOUNDED, &mut answers));
                }
            }
            deep += two as usize;
            deepest += three as usize;
            let value = value_of(&pos);
            let one_ply = threat_result(&pos, Variant::Russian, &moves, |after| Ok::<_, ()>(value_of(after).wdl)).unwrap();
            stored += (one_ply != value.wdl) as usize;
            let one_ply = threat_value(&pos, &moves, |after| Ok::<_, ()>(value_of(after))).unwrap();
            distance_stored += (one_ply != value && value.wdl != Wdl::Draw) as usize;
            assert_eq!(tb.probe_value(&pos).unwrap(), value, "{}", fen::write(&pos, Variant::Russian));
            assert_eq!(tb.probe_wdl(&pos.flip()).unwrap(), value.wdl, "{}", fen::write(&pos.flip(), Variant::Russian));
            assert_eq!(tb.probe_value(&pos.flip()).unwrap(), value, "{}", fen::write(&pos.flip(), Variant::Russian));
            assert_eq!(bare.probe_value(&pos).unwrap(), value, "{}", fen::write(&pos, Variant::Russian));
        }
    }
    assert!(settled > 100_000 && stored > 1_000, "{settled} settled threats, {stored} with their result stored");
    assert!(unsettled > 1_000, "{unsettled} other threats");
    // Two plies deep and more: a move leads to another settled threat,
    // and three: one of whose moves does too.
    assert!(deep > 10_000 && deepest > 1_000, "{deep} settled threats two plies deep or more, {deepest} three");
    assert!(distance_stored >= stored, "{distance_stored} with their distance stored, {stored} with their result");
}

/// The distances of one slice of each pair come from its twin
/// (docs/FORMAT.md, "Distances from the twin"): each position of those
/// slices probes to the value the solver found, through the twin's stored
/// distances or its own listed one; a twin whose file does not store them
/// is refused by name, and never sends the probe round in circles.
#[test]
fn distances_from_the_twin_probe_to_the_values_the_solver_found() {
    let (tables, known) = russian_four_pieces("probe-twin");
    let tb = open(tables.path(), 1 << 22);
    let bare = open(tables.path(), 0);
    let dtc = |m: Material| damka::format::read_header(&tb.table_path(m, Kind::Distance)).unwrap();
    let (mut from_twin, mut listed, mut derived, mut example) = (0, 0, 0, None);
    for material in tb.materials() {
        let header = dtc(material);
        if header.distances != Distances::FromTwin {
            continue;
        }
        assert_eq!(dtc(material.swap()).distances, Distances::ForTwin, "{material}");
        from_twin += 1;
        listed += header.stored_entries;
        for (i, pos) in positions(material).filter(|p| !has_capture(p, Variant::Russian)).enumerate() {
            let value = known[&material].value(&pos);
            if value.wdl != Wdl::Draw {
                derived += 1;
                example.get_or_insert((material, pos, value));
            }
            assert_eq!(tb.probe_value(&pos).unwrap(), value, "{}", fen::write(&pos, Variant::Russian));
            // Without a cache each probe reads every block anew: a sample.
            if i % 16 == 0 {
                assert_eq!(bare.probe_value(&pos.flip()).unwrap(), value, "{}", fen::write(&pos.flip(), Variant::Russian));
            }
        }
    }
    assert!(from_twin >= 8 && derived > 100_000 && listed > 100, "{from_twin} slices, {derived} distances, {listed} listed");

    // Make the twin's file claim the distances for itself.
    let (material, pos, value) = example.expect("a won or lost position");
    let twin = tb.table_path(material.swap(), Kind::Distance);
    let mut bytes = std::fs::read(&twin).unwrap();
    bytes[140] = 0;
    let sum = damka::format::content_hash(&bytes[..HEADER_LEN - 8]);
    bytes[HEADER_LEN - 8..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&twin, &bytes).unwrap();
    let tb = open(tables.path(), 1 << 20);
    assert_eq!(tb.probe_wdl(&pos).unwrap(), value.wdl, "results need no distance");
    let err = tb.probe_value(&pos).unwrap_err().to_string();
    assert!(err.contains(&format!("russian-{material}.dtc")) && err.contains("twin"), "{err}");
    // Reading the slice back (verify, stats) refuses it the same way.
    let slice = material.to_string();
    let out = support::damka(&["verify", "--dir", tables.path().to_str().unwrap(), "--slice", &slice]);
    let said = support::text(&out.stdout) + &support::text(&out.stderr);
    assert!(!out.status.success() && said.contains(&format!("russian-{material}.dtc")) && said.contains("twin"), "{said}");
}

#[test]
fn moves_are_ranked_best_first() {
    let tables = support::generate("probe-rank", Variant::Russian, 3);
    let tb = open(tables.path(), 1 << 20);
    // White: kings c3 and e1; Black: a man on f6. Taking it wins at once.
    let pos = fen::parse("W:WKc3,Ke1:Bf6", Variant::Russian).unwrap();
    let ranked = tb.rank_moves(&pos).unwrap();
    assert_eq!(ranked[0].value, Value::new(Wdl::Win, 1));
    assert!(ranked[0].mv.is_capture());
    let key = |v: Value| match v.wdl {
        Wdl::Win => (2, -(v.plies.0 as i32)),
        Wdl::Draw => (0, 0),
        _ => (-2, v.plies.0 as i32),
    };
    assert!(ranked.windows(2).all(|w| key(w[0].value) >= key(w[1].value)), "{ranked:?}");
    // No piece left for the side to move: lost, no table needed.
    let lost = fen::parse("W:W:Bf6", Variant::Russian).unwrap();
    assert_eq!(tb.probe_value(&lost).unwrap(), Value::new(Wdl::Loss, 0));
    assert_eq!(tb.probe_wdl(&lost.flip()).unwrap(), Wdl::Loss);
    // No piece left for the opponent: the side to move has won.
    let won = fen::parse("B:W:Bf6", Variant::Russian).unwrap();
    assert_eq!(tb.probe_value(&won).unwrap(), Value::new(Wdl::Win, 0));
    assert!(tb.rank_moves(&lost).unwrap().is_empty());
}

/// Copies the tables to a new directory, changes one file there with
/// `damage`, and probes every position of that file's slice: each answer
/// is the stored one or a `Damaged` error naming the file. Returns the
/// errors.
fn probe_damaged(
    tables: &Path,
    stored: &[(Position, Value)],
    material: Material,
    kind: Kind,
    damage: impl FnOnce(&mut Vec<u8>),
) -> Vec<ProbeError> {
    let copy = support::TempDir::new("probe-damaged");
    for entry in std::fs::read_dir(tables).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
    }
    let name = format!("russian-{material}.{}", kind.extension());
    let path = copy.path().join(&name);
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();

    let tb = open(copy.path(), 1 << 20);
    let mut errors = Vec::new();
    for (pos, value) in stored.iter().filter(|(pos, _)| Material::of(pos) == material) {
        let answer = match kind {
            Kind::Wdl => tb.probe_wdl(pos).map(|w| Value::new(w, value.plies.0)),
            Kind::Distance => tb.probe_value(pos),
        };
        match answer {
            // The WDL file holds no distance: compare what it holds.
            Ok(v) => assert_eq!(v, *value, "{name}: {pos:?} misread"),
            Err(e @ ProbeError::Damaged { .. }) => {
                assert!(e.to_string().contains(&name), "{e}");
                errors.push(e);
            }
            Err(e) => panic!("{name}: {pos:?}: {e}"),
        }
    }
    errors
}

/// The middle byte of a block's compressed bytes.
fn block_middle(bytes: &[u8], block: u32) -> usize {
    let range = damka::format::TableFile::new(bytes).unwrap().block_range(block);
    range.start + range.len() / 2
}

/// The blocks a damaged-table error names: one, or a group that failed
/// its checksum.
fn blocks_of(err: &ProbeError) -> Option<std::ops::RangeInclusive<u32>> {
    match err {
        ProbeError::Damaged { error: damka::format::FormatError::GroupChecksum { first, last }, .. } => Some(*first..=*last),
        ProbeError::Damaged { block, .. } => block.map(|b| b..=b),
        _ => None,
    }
}

#[test]
fn damaged_files_are_reported_never_misread() {
    let tables = support::generate("probe-damage", Variant::Russian, 3);
    let tb = open(tables.path(), 1 << 20);
    let stored = stored_values(Variant::Russian, "none", &tb);
    // The largest 3-piece slice: its files have several blocks.
    let material: Material = "KKvK".parse().unwrap();
    // Capture positions are resolved from smaller slices; a draw needs no
    // distance: only the others read the damaged file, and a few draws
    // more, settled threats whose moves lead back into the slice two
    // plies on. Every probe that reads it fails.
    let readers = |kind: Kind| {
        let of_slice = stored.iter().filter(|(p, _)| Material::of(p) == material && !has_capture(p, Variant::Russian));
        let quiet = of_slice.clone().count();
        of_slice.filter(|(_, v)| kind == Kind::Wdl || v.wdl != Wdl::Draw).count()..=quiet
    };

    for kind in [Kind::Wdl, Kind::Distance] {
        let positions = readers(kind);
        // Header: every byte is covered by the header checksum.
        for at in [0, 9, 13, 17, 30, 45, 53, 70, HEADER_LEN - 1] {
            let errors = probe_damaged(tables.path(), &stored, material, kind, |b| b[at] ^= 0x10);
            assert!(positions.contains(&errors.len()), "{kind:?}: header byte {at}: {} errors", errors.len());
            assert!(errors.iter().all(|e| blocks_of(e).is_none()));
        }
        // Block index: the end and the checksum of block 0.
        for at in [0, 3, 4, 7] {
            let errors = probe_damaged(tables.path(), &stored, material, kind, |b| b[HEADER_LEN + at] ^= 0x01);
            assert!(!errors.is_empty(), "{kind:?}: index byte {at}");
        }
        // Inside block 0's compressed bytes: that block only, or the group
        // of blocks checked with it, is refused.
        let errors = probe_damaged(tables.path(), &stored, material, kind, |b| {
            let at = block_middle(b, 0);
            b[at] = !b[at];
        });
        let file = std::fs::read(tables.path().join(format!("russian-{material}.{}", kind.extension()))).unwrap();
        let group = 0..=Header::decode(&file).unwrap().blocks.min(GROUP_BLOCKS as u32) - 1;
        assert!(!errors.is_empty() && errors.iter().all(|e| blocks_of(e) == Some(group.clone())), "{kind:?}: {errors:?}");
        // Truncated: the last block is gone, or the file is cut in the header.
        let errors = probe_damaged(tables.path(), &stored, material, kind, |b| b.truncate(b.len() - 1));
        assert!(positions.contains(&errors.len()), "{kind:?}: truncated by one byte: {} errors", errors.len());
        let errors = probe_damaged(tables.path(), &stored, material, kind, |b| b.truncate(HEADER_LEN / 2));
        assert!(positions.contains(&errors.len()), "{kind:?}: truncated in the header: {} errors", errors.len());
        let errors = probe_damaged(tables.path(), &stored, material, kind, |b| b.clear());
        assert!(positions.contains(&errors.len()), "{kind:?}: empty: {} errors", errors.len());
    }
    // Only the damaged file's slice is affected.
    let copy = support::TempDir::new("probe-damaged-other");
    for entry in std::fs::read_dir(tables.path()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
    }
    std::fs::write(copy.path().join("russian-KKvK.wdl"), b"not a table").unwrap();
    let tb = open(copy.path(), 1 << 20);
    let intact = open(tables.path(), 1 << 20);
    let kvk = fen::parse("W:WKa1:BKh2", Variant::Russian).unwrap();
    assert_eq!(tb.probe_wdl(&kvk).unwrap(), intact.probe_wdl(&kvk).unwrap());
    let kkvk = fen::parse("W:WKa1,Kc1:BKh8", Variant::Russian).unwrap();
    assert!(matches!(tb.probe_wdl(&kkvk), Err(ProbeError::Damaged { .. })));
    // The result comes from the damaged file, the distance from the other.
    assert!(matches!(tb.probe_value(&kkvk), Err(ProbeError::Damaged { .. })));
    // A capture position of the slice is answered from smaller slices.
    let capture = fen::parse("W:WKa1,Kc1:BKb2", Variant::Russian).unwrap();
    assert_eq!(tb.probe_value(&capture).unwrap(), Value::new(Wdl::Win, 1));
}

#[test]
fn missing_slices_answer_what_they_can_and_name_what_is_missing() {
    let tables = support::generate("probe-missing", Variant::Russian, 3);
    std::fs::remove_file(tables.path().join("russian-KvKM.wdl")).unwrap();
    std::fs::remove_file(tables.path().join("russian-KvKM.dtc")).unwrap();
    std::fs::remove_file(tables.path().join("russian-KMvK.dtc")).unwrap();
    let tb = open(tables.path(), 1 << 20);

    let kvk = fen::parse("W:WKa1:BKh2", Variant::Russian).unwrap();
    assert!(tb.probe_wdl(&kvk).is_ok());
    assert!(tb.rank_moves(&kvk).is_ok());

    // KvKM is gone entirely; KMvK (the same pieces, Black to move) has
    // its WDL table but not its distance table.
    let kvkm = fen::parse("W:WKa1:BKh8,h6", Variant::Russian).unwrap();
    match tb.probe_wdl(&kvkm) {
        Err(ProbeError::MissingTable { material, path, .. }) => {
            assert_eq!(material.to_string(), "KvKM");
            assert_eq!(path, tables.path().join("russian-KvKM.wdl"));
        }
        other => panic!("{other:?}"),
    }
    let message = tb.probe_wdl(&kvkm).unwrap_err().to_string();
    assert!(message.contains("KvKM") && message.contains("russian-KvKM.wdl"), "{message}");
    let kmvk = fen::parse("B:WKa1:BKh8,h6", Variant::Russian).unwrap();
    assert!(tb.probe_wdl(&kmvk).is_ok());
    match tb.probe_value(&kmvk) {
        Err(ProbeError::MissingTable { path, .. }) => assert_eq!(path, tables.path().join("russian-KMvK.dtc")),
        other => panic!("{other:?}"),
    }
    // Ranking needs every successor: Black's moves lead into KvKM.
    assert!(matches!(tb.rank_moves(&kmvk), Err(ProbeError::MissingTable { .. })));

    let four = fen::parse("W:WKa1,Kc1:BKh8,Kf8", Variant::Russian).unwrap();
    match tb.probe_wdl(&four) {
        Err(ProbeError::TooManyPieces { pieces: 4, max: 3 }) => {}
        other => panic!("{other:?}"),
    }
}

/// A capture position is resolved from the slices its captures lead to: if
/// one is missing, the error names it.
#[test]
fn a_capture_into_a_missing_slice_names_it() {
    let tables = support::generate("probe-missing-capture", Variant::Russian, 3);
    std::fs::remove_file(tables.path().join("russian-KvK.wdl")).unwrap();
    let tb = open(tables.path(), 1 << 20);
    // White's king must take the man on b2, leaving king against king;
    // landing on c3 leaves Black no capture, so KvK must be read.
    let pos = fen::parse("W:WKa1:BKh2,b2", Variant::Russian).unwrap();
    assert!(has_capture(&pos, Variant::Russian));
    match tb.probe_value(&pos) {
        Err(ProbeError::MissingTable { material, path, .. }) => {
            assert_eq!(material.to_string(), "KvK");
            assert_eq!(path, tables.path().join("russian-KvK.wdl"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tables_of_another_variant_or_rule_set_are_refused() {
    let tables = support::generate("probe-foreign", Variant::Russian, 2);
    let pos = fen::parse("W:WKa1:BKh2", Variant::Russian).unwrap();

    // A Russian table under an English name.
    std::fs::copy(tables.path().join("russian-KvK.wdl"), tables.path().join("english-KvK.wdl")).unwrap();
    let english = Tablebase::open(tables.path(), OpenOptions::new(Variant::English)).unwrap();
    match english.probe_wdl(&pos) {
        Err(ProbeError::WrongVariant { expected: Game::Draughts(Variant::English), found: Game::Draughts(Variant::Russian), .. }) => {}
        other => panic!("{other:?}"),
    }

    // The directory's manifest names its rule set: other rules are refused
    // at once. Without a manifest (tables built before damka.toml), each
    // table's header refuses them when it is read.
    let other_rules = RuleSetId { name: "russian".into(), hash: 42 };
    match Tablebase::open(tables.path(), OpenOptions::new(Variant::Russian).rules(other_rules.clone())) {
        Err(ProbeError::WrongRules { expected, found, .. }) => assert_eq!((expected, found.name.as_str()), (other_rules.clone(), "none")),
        other => panic!("{:?}", other.map(|_| "opened")),
    }
    std::fs::remove_file(tables.path().join("damka.toml")).unwrap();
    let tb = Tablebase::open(tables.path(), OpenOptions::new(Variant::Russian).rules(other_rules.clone())).unwrap();
    match tb.probe_wdl(&pos) {
        Err(ProbeError::WrongRules { expected, found, .. }) => {
            assert_eq!(expected, other_rules);
            assert_eq!(found.name, "none");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(tb.rules(), Some(&other_rules));
}

#[test]
fn eight_threads_answer_as_one() {
    let tables = support::generate("probe-threads", Variant::Russian, 3);
    let positions: Vec<Position> = {
        let tb = open(tables.path(), 0);
        tb.materials().into_iter().flat_map(positions).flat_map(|p| [p, p.flip()]).collect()
    };
    let single = open(tables.path(), 64 << 20);
    let expected: Vec<(Value, Wdl)> =
        positions.iter().map(|p| (single.probe_value(p).unwrap(), single.probe_wdl(p).unwrap())).collect();

    // A cache far smaller than the tables: threads evict each other's blocks.
    let shared = open(tables.path(), 128 << 10);
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (shared, positions, expected) = (&shared, &positions, &expected);
            scope.spawn(move || {
                // Each thread walks the positions from its own starting point.
                let n = positions.len();
                for k in 0..n {
                    let i = (k + t * n / 8) % n;
                    let p = &positions[i];
                    let got = (shared.probe_value(p).unwrap(), shared.probe_wdl(p).unwrap());
                    assert_eq!(got, expected[i], "thread {t}: {p:?}");
                }
            });
        }
    });
    let stats = shared.cache_stats();
    assert!(stats.evictions > 0 && stats.bytes <= 128 << 10, "{stats:?}");
}

#[test]
fn conditional_probes_answer_only_from_the_cache() {
    let tables = support::generate("probe-cached", Variant::Russian, 3);
    let cold = open(tables.path(), 64 << 20);
    let reference = open(tables.path(), 64 << 20);
    let all: Vec<Position> = cold.materials().into_iter().flat_map(positions).flat_map(|p| [p, p.flip()]).collect();
    let (mut answered, mut captures) = (0, 0);
    for pos in all.iter().step_by(97) {
        let capture = has_capture(pos, Variant::Russian);
        let before = (cold.probe_wdl_cached(pos).unwrap(), cold.probe_value_cached(pos).unwrap());
        if before.0 != Cached::NotInCache {
            // Only positions whose blocks an earlier probe loaded answer.
            assert_eq!(before.0, Cached::Answer(reference.probe_wdl(pos).unwrap()), "{pos:?}");
            answered += 1;
        }
        let value = cold.probe_value(pos).unwrap();
        assert_eq!(value, reference.probe_value(pos).unwrap(), "{pos:?}");
        assert_eq!(cold.probe_wdl_cached(pos).unwrap(), Cached::Answer(value.wdl), "{pos:?}");
        assert_eq!(cold.probe_value_cached(pos).unwrap(), Cached::Answer(value), "{pos:?}");
        captures += capture as usize;
    }
    assert!(captures > 100 && answered > 0, "{captures} capture positions, {answered} answered early");

    // A fresh handle has read nothing: it answers only capture positions
    // whose captures take the last pieces (no table needed), and a cache
    // of 0 bytes holds nothing (but settled threats whose every move loses
    // the last pieces need none either).
    let fresh = open(tables.path(), 64 << 20);
    let none = open(tables.path(), 0);
    let mut not_cached = 0;
    for pos in all.iter().step_by(101) {
        match fresh.probe_wdl_cached(pos).unwrap() {
            Cached::NotInCache => not_cached += 1,
            Cached::Answer(wdl) => {
                assert!(has_capture(pos, Variant::Russian), "{pos:?}");
                assert_eq!(wdl, reference.probe_wdl(pos).unwrap(), "{pos:?}");
            }
        }
        let value = none.probe_value(pos).unwrap();
        if let Cached::Answer(answer) = none.probe_value_cached(pos).unwrap() {
            assert_eq!(answer, value, "{pos:?}");
            let left = resolution_of(Material::of(&white_to_move(pos)), Leaving::default());
            let threat = is_settled_threat(pos, Variant::Russian, left, &mut Vec::new());
            assert!(has_capture(pos, Variant::Russian) || threat, "{pos:?}");
        }
    }
    assert!(not_cached > all.len() / 101 / 2, "{not_cached}");
    // A capture position into a slice not yet read stays not in cache
    // after its own slice's block is loaded.
    let capture = fen::parse("W:WKa1:Bd4,h8", Variant::Russian).unwrap();
    let quiet = fen::parse("W:WKa1:Bb6,h8", Variant::Russian).unwrap();
    assert!(has_capture(&capture, Variant::Russian) && !has_capture(&quiet, Variant::Russian));
    let tb = open(tables.path(), 64 << 20);
    let quiet_wdl = tb.probe_wdl(&quiet).unwrap();
    assert_eq!(tb.probe_wdl_cached(&capture).unwrap(), Cached::NotInCache);
    assert_eq!(tb.probe_wdl_cached(&quiet).unwrap(), Cached::Answer(quiet_wdl));
    let capture_wdl = tb.probe_wdl(&capture).unwrap();
    assert_eq!(tb.probe_wdl_cached(&capture).unwrap(), Cached::Answer(capture_wdl));
    // A side without pieces needs no table.
    let won = fen::parse("B:WKa1:B", Variant::Russian).unwrap();
    assert_eq!(fresh.probe_wdl_cached(&won).unwrap(), Cached::Answer(Wdl::Loss));
    // No table for the material: an error, not "not in cache".
    assert!(matches!(fresh.probe_wdl_cached(&fen::parse("W:WKa1,Kc1,Ke1:Bh8", Variant::Russian).unwrap()), Err(ProbeError::TooManyPieces { .. })));
}
