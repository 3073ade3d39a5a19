//! Cheskers tables: the solver against a plain one, facts established by
//! hand from the rules, and the commands over a directory of tables.

mod support;

use std::sync::Arc;

use damka::board::{Bitboard, Square};
use damka::cheskers::{self, Kind, Material, Position, SliceIndex, Tables};
use damka::{Color, Value, Wdl};
use damka_generator::cheskers::{build, naive, solver};
use support::{arg, damka, text, TempDir};

#[test]
fn the_solver_agrees_with_a_plain_one() {
    // Every slice up to 4 pieces: 45 slices, 19.9 M positions, about 80 s
    // on 2 cores and 1.6 GiB.
    let n = 4;
    let mut known = solver::Known::new();
    for pair in solver::pairs_in_order(n) {
        for s in solver::solve_pair(pair, &known, &|_| {}).expect("solves") {
            known.insert(s.index.material(), Arc::new(s));
        }
    }
    let plain = naive::solve(n);
    assert_eq!(plain.len(), Material::all_up_to(n).len());
    assert_eq!(known.len(), plain.len());
    for (m, values) in &plain {
        let solved = &known[m];
        let differ: Vec<u64> =
            (0..values.len()).filter(|&i| Value::unpack(solved.values[i]) != Some(values[i])).map(|i| i as u64).collect();
        if let Some(&i) = differ.first() {
            let fen = cheskers::write_fen(&solved.index.position(i));
            let (s, p) = (Value::unpack(solved.values[i as usize]), values[i as usize]);
            panic!("{m}: {} positions differ, e.g. {fen}: solver {s:?}, plain {p}", differ.len());
        }
    }
}

/// Tables up to 3 pieces, built once for the tests that read them.
fn tables() -> &'static (TempDir, Tables) {
    static TABLES: std::sync::OnceLock<(TempDir, Tables)> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = TempDir::new("cheskers-tables");
        build::run(&build::Job { max_pieces: 3, dir: dir.path().to_path_buf(), progress: false, replace: false })
            .expect("builds");
        let tables = Tables::open(dir.path()).expect("opens");
        (dir, tables)
    })
}

/// Every position of a slice, White to move, with its stored value.
fn each(material: &str, mut f: impl FnMut(&Position, Value)) {
    let (_, tables) = tables();
    let index = SliceIndex::new(material.parse().expect("material"));
    for i in 0..index.size() {
        let pos = index.position(i);
        f(&pos, tables.probe_value(&pos).expect("probes"));
    }
}

/// File and rank of a square, as signed numbers for arithmetic.
fn at(sq: Square) -> (i8, i8) {
    (sq.file() as i8, sq.rank() as i8)
}

fn square(file: i8, rank: i8) -> Option<Square> {
    ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| Square::from_coords(file as u8, rank as u8)).flatten()
}

fn only(b: Bitboard) -> Square {
    b.first().expect("one piece")
}

/// Whether White can take Black's one king at once, worked out from the
/// rules' geometry alone: a king jumps it (adjacent, the square behind
/// empty); a bishop sees it along an open diagonal; a camel leaps onto it.
fn white_takes_the_king(pos: &Position) -> bool {
    let target = only(pos.of(Color::Black, Kind::King));
    let (tf, tr) = at(target);
    let occupied = pos.occupied();
    let kings = pos.of(Color::White, Kind::King).into_iter().any(|k| {
        let (f, r) = at(k);
        let (df, dr) = (tf - f, tr - r);
        df.abs() == 1 && dr.abs() == 1 && square(tf + df, tr + dr).is_some_and(|s| !occupied.contains(s))
    });
    let bishops = pos.of(Color::White, Kind::Bishop).into_iter().any(|b| {
        let (f, r) = at(b);
        let (df, dr) = (tf - f, tr - r);
        df.abs() == dr.abs()
            && (1..df.abs()).all(|k| square(f + k * df.signum(), r + k * dr.signum()).is_some_and(|s| !occupied.contains(s)))
    });
    let camels = pos.of(Color::White, Kind::Camel).into_iter().any(|c| {
        let (f, r) = at(c);
        let (df, dr) = ((tf - f).abs(), (tr - r).abs());
        (df, dr) == (1, 3) || (df, dr) == (3, 1)
    });
    kings || bishops || camels
}

#[test]
fn king_against_king_whoever_can_take_the_other_wins_at_once() {
    let mut wins = 0;
    each("KvK", |pos, v| {
        // Taking the last king ends the game; in KvK nothing else wins in a
        // ply (a lone king can only be stuck by two pieces).
        let takes = white_takes_the_king(pos);
        assert_eq!(v == Value::new(Wdl::Win, 1), takes, "{pos:?}: {v}");
        wins += takes as u32;
    });
    assert!(wins > 0);
    // A king in the corner whose one step is into a jump: lost in 2 plies.
    let (_, tables) = tables();
    let pos = cheskers::parse_fen("W:WKa1:BKc3").unwrap();
    assert_eq!(tables.probe_value(&pos).unwrap(), Value::new(Wdl::Loss, 2));
}

#[test]
fn any_piece_that_can_take_the_last_king_wins_at_once() {
    // Black with one king (taking one of two kings is no win).
    for material in ["KBvK", "KCvK", "KKvK", "KvKB", "KvKC", "KvKM", "KMvK"] {
        let mut seen = 0;
        each(material, |pos, v| {
            if white_takes_the_king(pos) {
                assert_eq!(v, Value::new(Wdl::Win, 1), "{pos:?}");
                seen += 1;
            }
        });
        assert!(seen > 0, "{material}");
    }
}

#[test]
fn a_bishop_cannot_take_a_king_off_its_diagonals() {
    // King and bishop against a king, the kings apart, the lone king off
    // the bishop's open diagonals and out of the corners (where two pieces
    // could leave it without a move): White cannot win in one ply.
    let corners = [square(0, 0).unwrap(), square(7, 7).unwrap()];
    let mut checked = 0;
    each("KBvK", |pos, v| {
        let k = at(only(pos.of(Color::White, Kind::King)));
        let lone = only(pos.of(Color::Black, Kind::King));
        let apart = (k.0 - at(lone).0).abs() > 1 || (k.1 - at(lone).1).abs() > 1;
        if apart && !white_takes_the_king(pos) && !corners.contains(&lone) {
            assert_ne!(v, Value::new(Wdl::Win, 1), "{pos:?}");
            checked += 1;
        }
    });
    assert!(checked > 0);
}

#[test]
fn a_side_without_a_move_or_a_king_has_lost() {
    let (_, tables) = tables();
    // White's king in the corner: its step is taken, its jump blocked.
    let pos = cheskers::parse_fen("W:WKa1:BKb2,c3").unwrap();
    assert_eq!(tables.probe_value(&pos).unwrap(), Value::new(Wdl::Loss, 0));
    // White has just taken Black's last king.
    let pos = cheskers::parse_fen("B:WKa1,Bc3:Bb8").unwrap();
    assert_eq!(tables.probe_value(&pos).unwrap(), Value::new(Wdl::Loss, 0));
}

#[test]
fn the_commands_build_resume_verify_and_read_cheskers_tables() {
    let dir = TempDir::new("cheskers-cli");
    let d = arg(dir.path());
    let generate = || damka(&["generate", "--variant", "cheskers", "--pieces", "3", "--dir", d, "--quiet"]);
    let out = generate();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("9 slices solved, 0 slices already done;"), "{}", text(&out.stdout));
    let manifest = std::fs::read_to_string(dir.path().join("damka.toml")).unwrap();
    assert!(manifest.contains("variant = \"cheskers\"") && manifest.contains("rules_name = \"none\""), "{manifest}");

    // An interrupted build: the pair that lost a file is built again, the
    // same bytes; the others are left.
    let file = dir.path().join("cheskers-KBvK.wdl");
    let before = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let out = generate();
    assert!(text(&out.stdout).starts_with("2 slices solved, 7 slices already done;"), "{}", text(&out.stdout));
    assert_eq!(std::fs::read(&file).unwrap(), before);

    let out = damka(&["verify", "--dir", d, "--quiet"]);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("9 slices, 201872 positions re-derived"), "{}", text(&out.stdout));
    // A damaged block is found.
    let dtc = dir.path().join("cheskers-KCvK.dtc");
    let good = std::fs::read(&dtc).unwrap();
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 0x40;
    std::fs::write(&dtc, &bad).unwrap();
    let out = damka(&["verify", "--dir", d, "--variant", "cheskers", "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("FAILED cheskers-KCvK"), "{}", text(&out.stdout));
    std::fs::write(&dtc, &good).unwrap();

    let out = damka(&["stats", "--dir", d, "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(stats.as_array().map(Vec::len), Some(9));
    assert!(stats.as_array().unwrap().iter().all(|s| s["variant"] == "cheskers" && s["rules"] == "none"));
    let out = damka(&["info", "--dir", d]);
    assert!(text(&out.stdout).contains("cheskers, rule set none"), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("9 slices up to 3 pieces, 201872 positions"), "{}", text(&out.stdout));
    let out = damka(&["audit", "--variant", "cheskers", "--dir", d, "--json"]);
    let audit: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let kvk = audit["slices"].as_array().unwrap().iter().find(|s| s["material"] == "KvK").expect("KvK");
    assert_eq!(kvk["longest_pure_win"], kvk["longest_rule_win"]);

    let out = damka(&["probe", "--variant", "cheskers", "--dir", d, "--json", "W:WKa1:BKc3"]);
    let probe: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!((&probe["value"]["wdl"], &probe["value"]["plies"]), (&"loss".into(), &2.into()));
    assert_eq!(probe["moves"][0]["move"], "a1-b2");

    // One game's tables or FEN given to the other: refused by name.
    let out = damka(&["probe", "--dir", d, "W:WKa1:BKc3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("holds cheskers tables, not russian tables"), "{}", text(&out.stderr));
    let russian = TempDir::new("cheskers-russian");
    let r = arg(russian.path());
    assert!(damka(&["generate", "--pieces", "2", "--dir", r, "--quiet"]).status.success());
    let out = damka(&["probe", "--variant", "cheskers", "--dir", r, "W:WKa1:BKc3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("holds russian tables, not cheskers tables"), "{}", text(&out.stderr));
    let out = damka(&["probe", "--variant", "cheskers", "--dir", d, "W:WKa1,Qc3:BKh8"]);
    assert!(text(&out.stderr).contains("piece 'Q'"), "{}", text(&out.stderr));
    let out = damka(&["probe", "--dir", r, "W:WKa1,Bc3:BKh8"]);
    assert!(text(&out.stderr).contains("piece 'B'"), "{}", text(&out.stderr));
    let out = damka(&["generate", "--variant", "cheskers", "--rules", "russian", "--dir", d]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("pure values"), "{}", text(&out.stderr));
}

/// Options that mean nothing for Cheskers are refused, each by name,
/// before any work.
#[test]
fn options_cheskers_has_no_use_for_are_refused() {
    let dir = TempDir::new("cheskers-refusals");
    let d = arg(dir.path());
    for (args, says) in [
        (&["generate", "--variant", "cheskers", "--pieces", "6", "--dir", d][..], "up to 5 pieces"),
        (&["generate", "--variant", "cheskers", "--pair", "KBvK", "--dir", d], "--pair and --memory"),
        (&["generate", "--variant", "cheskers", "--memory", "1G", "--dir", d], "--pair and --memory"),
        (&["probe", "--variant", "cheskers", "--dir", d, "--quiet-plies", "3", "W:WKa1:BKc3"], "no move limits"),
        (&["probe", "--variant", "cheskers", "--dir", d, "--rules", "russian", "W:WKa1:BKc3"], "pure values"),
        (&["verify", "--variant", "cheskers", "--dir", d, "--rules", "russian"], "pure values"),
        (&["audit", "--variant", "cheskers", "--dir", d, "--rules", "russian"], "no move-limit rules"),
        (&["verify", "--variant", "cheskers", "--dir", d, "--slice", "BCvK"], "without a king"),
    ] {
        let out = damka(args);
        assert_eq!(out.status.code(), Some(1), "damka {args:?}");
        assert!(text(&out.stderr).contains(says), "damka {args:?}: {}", text(&out.stderr));
    }
}
