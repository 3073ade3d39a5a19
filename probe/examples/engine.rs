//! A small draughts engine that uses the tables as engines are meant to:
//! the `damka` crate alone (board, moves, tables) is all it needs.
//!
//! - In the search, any position with few enough pieces is probed for its
//!   result (`probe_wdl`: one cached block read, captures resolved by the
//!   library) and not searched further: the tables know its value exactly,
//!   so the search spends its nodes where they do not.
//! - At the root, a position inside the tables is not searched at all: the
//!   tables rank its moves (`rank_moves_with_counters`, with the game's
//!   move-limit counters), so the engine converts as fast as the rules
//!   require and never lets a win slip into a draw by a limit.
//!
//! The search is plain negamax with alpha-beta and a quiescence search
//! over captures (a capture is compulsory, so a position with one is never
//! judged by its material), deepened one ply at a time.
//!
//! ```sh
//! cargo run --release -p damka-probe --example engine -- DIR 'W:Wc3,e3,g3,Kd2:Bb6,d6,Kh8' [--depth 10] [--counters Q/K] [--no-tables]
//! cargo run --release -p damka-probe --example engine -- DIR --bench
//! ```

use std::time::Instant;

use damka::movegen::{count_moves, generate, has_capture, Routes};
use damka::{fen, notation, Color, Counters, Move, OpenOptions, Position, Tablebase, Variant, Verdict, Wdl};

/// Scores are for the side to move, in hundredths of a man.
const MAN: i32 = 100;
const KING: i32 = 300;
/// A won game. Wins found sooner score higher (`WIN - ply`), so the search
/// prefers the shortest; every table win scores above any material score.
const WIN: i32 = 100_000;
const TABLE_WIN: i32 = WIN / 2;
const INFINITY: i32 = WIN + 1;

struct Search<'a> {
    variant: Variant,
    /// `None`: search without the tables (to compare).
    tables: Option<&'a Tablebase>,
    nodes: u64,
    probes: u64,
}

impl Search<'_> {
    /// The result the tables hold for `pos`, if its pieces are few enough,
    /// as a score `ply` plies from the root.
    fn probe(&mut self, pos: &Position, ply: i32) -> Option<i32> {
        let tb = self.tables?;
        if pos.occupied().count() > u32::from(tb.max_pieces()) {
            return None;
        }
        self.probes += 1;
        // A missing or damaged table is an error, not a value: search on.
        Some(match tb.probe_wdl(pos).ok()? {
            Wdl::Win => TABLE_WIN - ply,
            Wdl::Loss => ply - TABLE_WIN,
            // A win the move limits turn into a draw is a draw in the
            // game; a point either way still prefers the side where the
            // opponent can go wrong.
            Wdl::CursedWin => 1,
            Wdl::BlessedLoss => -1,
            Wdl::Draw => 0,
        })
    }

    fn moves(&self, pos: &Position) -> Vec<Move> {
        let mut moves = Vec::new();
        generate(pos, self.variant, Routes::Merge, &mut moves);
        moves
    }

    fn negamax(&mut self, pos: &Position, depth: i32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if let Some(score) = self.probe(pos, ply) {
            return score;
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        let moves = self.moves(pos);
        if moves.is_empty() {
            // No move (or no piece): lost.
            return ply - WIN;
        }
        let mut best = -INFINITY;
        for mv in &moves {
            let score = -self.negamax(&pos.play(mv), depth - 1, -beta, -alpha, ply + 1);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// Searches captures until the position is quiet. Draughts has no
    /// "stand pat" while a capture is on the board: it must be made.
    fn quiesce(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if let Some(score) = self.probe(pos, ply) {
            return score;
        }
        if !has_capture(pos, self.variant) {
            if pos.pieces(pos.turn()).is_empty() || count_moves(pos, self.variant, Routes::Merge) == 0 {
                return ply - WIN;
            }
            return evaluate(pos);
        }
        let mut best = -INFINITY;
        for mv in &self.moves(pos) {
            let score = -self.quiesce(&pos.play(mv), -beta, -alpha, ply + 1);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The best root move and its score after a search of `depth` plies,
    /// deepened one ply at a time, the last best move searched first.
    fn root(&mut self, pos: &Position, depth: i32) -> Option<(Move, i32)> {
        let mut moves = self.moves(pos);
        let mut best = None;
        for d in 1..=depth {
            let (mut alpha, mut found) = (-INFINITY, None);
            for (i, mv) in moves.iter().enumerate() {
                let score = -self.negamax(&pos.play(mv), d - 1, -INFINITY, -alpha, 1);
                if score > alpha {
                    (alpha, found) = (score, Some(i));
                }
            }
            let i = found?;
            best = Some((moves[i], alpha));
            moves[..=i].rotate_right(1);
        }
        best
    }
}

/// Material, and men nearer promotion a little better.
fn evaluate(pos: &Position) -> i32 {
    let side = |c: Color| {
        let advance: i32 = pos
            .men(c)
            .map(|sq| i32::from(if c == Color::White { sq.rank() } else { 7 - sq.rank() }))
            .sum();
        pos.men(c).count() as i32 * MAN + pos.kings(c).count() as i32 * KING + 4 * advance
    };
    side(pos.turn()) - side(pos.turn().opponent())
}

/// What the engine plays at `pos`: from the tables where they hold the
/// position, else from a search of `depth` plies.
fn best_move(pos: &Position, search: &mut Search, counters: Counters, depth: i32) -> Option<(Move, String)> {
    if let Some(tb) = search.tables {
        // The game's counters matter here: a win the stored value shows
        // (fresh counters) may no longer fit the limit, and the moves are
        // ranked by what they are worth in this game.
        if let (Some(rules), true) = (tb.rule_set(), pos.occupied().count() <= u32::from(tb.max_pieces())) {
            if let Ok(ranked) = tb.rank_moves_with_counters(pos, rules, counters) {
                let best = ranked.first()?;
                let why = match best.verdict {
                    Verdict::Exact(w) => format!("tables: {w}, {} plies to the next capture or promotion", best.value.plies.0),
                    Verdict::Ambiguous(a, b) => format!("tables: {a} or {b}"),
                };
                return Some((best.mv, why));
            }
        }
    }
    let (mv, score) = search.root(pos, depth)?;
    Some((mv, format!("search, depth {depth}: score {score}")))
}

/// Positions of 6 to 8 pieces: the search reaches the 5-piece tables in a
/// few plies.
const BENCH: [&str; 4] = [
    "W:Wc3,e3,g3,Kd2:Bb6,d6,Kh8",
    "W:Wa3,c3,e3:Bb6,f6,h6",
    "B:Wc1,e1,g3,Ka5:Bd6,f6,h4,Kb8",
    "W:Wa1,c3,Kh2:Bf8,h6,Kb8",
];

/// Nodes per second with and without probing, on the positions above,
/// each and in all, as a Markdown table.
fn bench(tb: &Tablebase, depth: i32) {
    println!("| position | depth | tables | nodes | probes | CPU seconds | nodes/s | score |");
    println!("|---|---|---|---|---|---|---|---|");
    let row = |text: &str, tables: bool, nodes: u64, probes: u64, seconds: f64, score: String| {
        let yes = if tables { "yes" } else { "no" };
        let rate = nodes as f64 / seconds.max(1e-9);
        println!("| {text} | {depth} | {yes} | {nodes} | {probes} | {seconds:.2} | {rate:.0} | {score} |");
    };
    // (nodes, probes, seconds) over all positions, with and without.
    let mut totals = [(0, 0, 0.0); 2];
    for text in BENCH {
        let pos = fen::parse(text, tb.variant()).expect("bench FEN");
        for (tables, total) in [Some(tb), None].into_iter().zip(&mut totals) {
            let mut search = Search { variant: tb.variant(), tables, nodes: 0, probes: 0 };
            let start = (Instant::now(), thread_cpu_seconds());
            let (_, score) = search.root(&pos, depth).expect("a move");
            // CPU time where the system gives it: a busy machine's waiting
            // is no cost of the search.
            let seconds = match (start.1, thread_cpu_seconds()) {
                (Some(from), Some(to)) => to - from,
                _ => start.0.elapsed().as_secs_f64(),
            };
            row(&format!("`{text}`"), tables.is_some(), search.nodes, search.probes, seconds, score.to_string());
            *total = (total.0 + search.nodes, total.1 + search.probes, total.2 + seconds);
        }
    }
    for (tables, (nodes, probes, seconds)) in [true, false].into_iter().zip(totals) {
        row("all", tables, nodes, probes, seconds, String::new());
    }
}

/// Seconds this thread has spent on a CPU (Linux schedstat).
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// `Q/K`: the quiet and kings-only counts of the game.
fn parse_counters(text: &str) -> Option<Counters> {
    let (quiet, kings_only) = text.split_once('/')?;
    Some(Counters { quiet: quiet.parse().ok()?, kings_only: kings_only.parse().ok()? })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str);
    let usage = "usage: engine DIR [FEN] [--depth N] [--counters Q/K] [--no-tables] | engine DIR --bench [--depth N]";
    let Some(dir) = args.first() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let depth: i32 = flag("--depth").map_or(Ok(10), str::parse).unwrap_or_else(|_| {
        eprintln!("--depth: a number of plies");
        std::process::exit(2)
    });
    let tb = Tablebase::open(dir, OpenOptions::new(Variant::Russian).cache_bytes(64 << 20)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    if args.iter().any(|a| a == "--bench") {
        bench(&tb, depth);
        return;
    }
    let text = args.get(1).filter(|a| !a.starts_with("--")).map_or("W:Wc3,e3,g3,Kd2:Bb6,d6,Kh8", String::as_str);
    let pos = fen::parse(text, Variant::Russian).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let counters = flag("--counters").map_or(Some(Counters::default()), parse_counters).unwrap_or_else(|| {
        eprintln!("--counters Q/K: plies since the last capture or promotion / since the last man move");
        std::process::exit(2)
    });
    let tables = (!args.iter().any(|a| a == "--no-tables")).then_some(&tb);
    let mut search = Search { variant: Variant::Russian, tables, nodes: 0, probes: 0 };
    match best_move(&pos, &mut search, counters, depth) {
        Some((mv, why)) => println!("{} ({why}; {} nodes, {} probes)", notation::write(&mv, Variant::Russian), search.nodes, search.probes),
        None => println!("no legal move: lost"),
    }
}
