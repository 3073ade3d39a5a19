//! The engine interfaces (probe/include/damka_egdb.h, the egdb driver for
//! English; probe/include/damka_edaccess.hpp, EdAccess) from C and C++
//! programs that use only those headers (tests/c/egdb_test.c,
//! tests/c/edaccess_test.cpp), against `damka probe --json` on random
//! positions, captures included, from several threads at once.

mod support;

use std::path::Path;
use std::process::Command;

use damka::{fen, Material, Position, SliceIndex, Variant};

/// xorshift64*: reproducible positions without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// `n` random positions (White to move) of slices of up to `pieces`
/// pieces, each slice as likely as any other, and a few of one piece more
/// (which no table holds).
fn random_positions(pieces: u8, n: usize, rng: &mut Rng) -> Vec<Position> {
    let slices: Vec<SliceIndex> = Material::all_up_to(pieces + 1).into_iter().map(SliceIndex::new).collect();
    let (small, large): (Vec<_>, Vec<_>) = slices.into_iter().partition(|s| s.material().pieces() <= pieces);
    (0..n)
        .map(|i| {
            let from = if i % 20 == 19 { &large } else { &small };
            let slice = &from[rng.below(from.len() as u64) as usize];
            slice.position(rng.below(slice.size()))
        })
        .collect()
}

/// What `damka probe --json` says of `pos`: the result's name ("win",
/// "cursed-win", ...), or "none" when the tables do not hold it.
fn damka_probe(tables: &Path, variant: Variant, pos: &Position) -> String {
    let text = fen::write(pos, variant);
    let out = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(["probe", "--json", "--variant", &variant.to_string(), "--dir"])
        .arg(tables)
        .arg(&text)
        .output()
        .expect("damka runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("the tables hold at most"), "damka probe {text}: {stderr}");
        return "none".into();
    }
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    json["value"]["wdl"].as_str().expect("value.wdl").to_string()
}

/// `damka probe` on every position, on two threads.
fn probe_all(tables: &Path, variant: Variant, positions: &[Position]) -> Vec<String> {
    let half = positions.len() / 2;
    std::thread::scope(|scope| {
        let first = scope.spawn(|| positions[..half].iter().map(|p| damka_probe(tables, variant, p)).collect::<Vec<_>>());
        let second: Vec<String> = positions[half..].iter().map(|p| damka_probe(tables, variant, p)).collect();
        [first.join().expect("probe thread"), second].concat()
    })
}

/// The masks of damka.h: bit n-1 for PDN square n.
fn masks(pos: &Position) -> (u32, u32, u32) {
    let mask = |bb: damka::Bitboard| bb.into_iter().fold(0u32, |m, sq| m | 1 << (sq.pdn() - 1));
    (mask(pos.pieces(damka::Color::White)), mask(pos.pieces(damka::Color::Black)), mask(pos.all_kings()))
}

/// Writes one line per position: white, black and king masks, the side
/// to move (0 White, 1 Black) and the answer expected from the interface.
fn write_expected(path: &Path, positions: &[Position], answers: &[i32]) {
    let lines: Vec<String> = positions
        .iter()
        .zip(answers)
        .map(|(p, a)| {
            let (w, b, k) = masks(p);
            format!("{w:08x} {b:08x} {k:08x} {} {a}", (p.turn() == damka::Color::Black) as u8)
        })
        .collect();
    std::fs::write(path, lines.join("\n") + "\n").expect("write the expected answers");
}

fn build(source: &str, compiler: &str, std: &str, out: &Path) {
    let root = support::workspace_root();
    let lib = support::find_library("libdamka.a");
    let status = Command::new(compiler)
        .args([std, "-O1", "-Wall", "-Werror", "-pthread"])
        .arg(root.join("tests/c").join(source))
        .arg("-I")
        .arg(root.join("probe/include"))
        .arg("-o")
        .arg(out)
        .arg(lib)
        .args(support::STATIC_LIB_DEPS)
        .status()
        .unwrap_or_else(|e| panic!("run {compiler} ({e}): a C and a C++ compiler are needed (apt-get install g++)"));
    assert!(status.success(), "{compiler} {source} failed: {status}");
}

fn run(exe: &Path, args: &[&Path]) {
    let output = Command::new(exe).args(args).output().expect("run the test program");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{} failed ({}):\n{stdout}\n{stderr}", exe.display(), output.status);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    eprintln!("{}: {}", exe.display(), stdout.trim());
}

/// egdb codes: win 1, loss 2, draw 3 (cursed wins and blessed losses
/// too: the rules draw them), unknown 0.
fn egdb_code(wdl: &str) -> i32 {
    match wdl {
        "win" => 1,
        "loss" => 2,
        "draw" | "cursed-win" | "blessed-loss" => 3,
        _ => 0,
    }
}

/// EdAccess results: win 10000, lose -10000, draw 0, not found 32000.
fn edaccess_code(wdl: &str) -> i32 {
    match wdl {
        "win" => 10000,
        "loss" => -10000,
        "draw" | "cursed-win" | "blessed-loss" => 0,
        _ => 32000,
    }
}

#[test]
fn egdb_and_edaccess_programs_answer_as_damka_probe() {
    let build_dir = support::TempDir::new("engines-build");
    let egdb = build_dir.path().join("egdb_test");
    let edaccess = build_dir.path().join("edaccess_test");
    build("egdb_test.c", "cc", "-std=c99", &egdb);
    build("edaccess_test.cpp", "c++", "-std=c++11", &edaccess);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);

    // English, pure values: egdb with either side to move, and EdAccess.
    let english = support::generate("engines-english", Variant::English, 4);
    let positions: Vec<Position> =
        random_positions(4, 1500, &mut rng).into_iter().enumerate().map(|(i, p)| if i % 2 == 1 { p.flip() } else { p }).collect();
    let answers = probe_all(english.path(), Variant::English, &positions);
    assert!(positions.iter().filter(|p| damka::movegen::has_capture(p, Variant::English)).count() > 100);
    let expected = build_dir.path().join("english-egdb.txt");
    write_expected(&expected, &positions, &answers.iter().map(|a| egdb_code(a)).collect::<Vec<_>>());
    run(&egdb, &[english.path(), &expected]);
    let white: Vec<(Position, i32)> = positions
        .iter()
        .zip(&answers)
        .filter(|(p, _)| p.turn() == damka::Color::White)
        .map(|(p, a)| (*p, edaccess_code(a)))
        .collect();
    let expected = build_dir.path().join("english-edaccess.txt");
    let (pos, codes): (Vec<Position>, Vec<i32>) = white.into_iter().unzip();
    write_expected(&expected, &pos, &codes);
    run(&edaccess, &[english.path(), Path::new("checkers"), &expected]);

    // Russian under the Russian rules: EdAccess (White to move).
    let russian = support::generate_with_rules("engines-russian", Variant::Russian, 4, "russian");
    let positions = random_positions(4, 1000, &mut rng);
    let answers = probe_all(russian.path(), Variant::Russian, &positions);
    let expected = build_dir.path().join("russian-edaccess.txt");
    write_expected(&expected, &positions, &answers.iter().map(|a| edaccess_code(a)).collect::<Vec<_>>());
    run(&edaccess, &[russian.path(), Path::new("russian"), &expected]);
}
