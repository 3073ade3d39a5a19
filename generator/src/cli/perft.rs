//! `damka perft` and `damka moves`.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use damka::cheskers;
use damka::movegen::{generate, legal_moves, Routes};
use damka::perft::{self, Leaves};
use damka::{fen, notation, Position, Variant};

use super::parse_fen;

/// A game `perft` and `moves` play: one of the draughts family, or a
/// reading of Cheskers (which has no tables yet, so is no [`Variant`]).
#[derive(Clone, Copy)]
pub enum Game {
    Draughts(Variant),
    Cheskers(cheskers::Rules),
}

impl std::str::FromStr for Game {
    type Err = String;

    fn from_str(text: &str) -> Result<Game, String> {
        if text.split('+').next().is_some_and(|g| g.eq_ignore_ascii_case("cheskers")) {
            return text.parse().map(Game::Cheskers).map_err(|e: cheskers::UnknownRules| e.to_string());
        }
        text.parse().map(Game::Draughts).map_err(|_| {
            format!(
                "unknown game '{}' (expected russian, brazilian, pool, english, italian or \
                 cheskers[+may-stop][+multiple|+most])",
                fen::excerpt(text)
            )
        })
    }
}

fn parse_cheskers_fen(text: &str) -> Result<cheskers::Position> {
    cheskers::parse_fen(text).with_context(|| format!("cannot read Cheskers FEN '{}'", fen::excerpt(text)))
}

/// `--variant`'s help for the commands that play Cheskers too.
const GAMES: &str = "Game: russian, brazilian, pool, english, italian, or cheskers \
    (Cheskers FEN: K king, B bishop, C camel, a plain square a man, e.g. \
    'B:WKc1,Ba1,Cg1,b2:BKd8,Bh8,Cb8,a7'); `cheskers+may-stop` lets a multi-jump stop \
    after any jump, `+multiple` makes a multiple capture go before a single one, \
    `+most` makes the player take the most pieces";

#[derive(Args)]
pub struct PerftArgs {
    #[arg(long, default_value = "russian", help = GAMES)]
    variant: Game,
    /// Plies to search.
    #[arg(long)]
    depth: u32,
    /// Start position as FEN (default: the game's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Count capture routes that lead to the same position separately.
    #[arg(long)]
    paths: bool,
    /// Print the count below each root move first.
    #[arg(long)]
    divide: bool,
    /// Play every move of the last ply instead of counting the move list
    /// (the figure to compare with programs that make every leaf).
    #[arg(long)]
    make_leaves: bool,
}

#[derive(Args)]
pub struct MovesArgs {
    /// Position as FEN, e.g. 'W:Wc3,Kd4:Bf6' or 'W:W21,22:B1,2'.
    fen: String,
    #[arg(long, default_value = "russian", help = GAMES)]
    variant: Game,
}

pub fn run(args: PerftArgs) -> Result<()> {
    let variant = match args.variant {
        Game::Draughts(variant) => variant,
        Game::Cheskers(rules) => return run_cheskers(&args, rules),
    };
    let pos = match &args.fen {
        Some(t) => parse_fen(t, variant)?,
        None => Position::start(variant.rules().first_to_move),
    };
    let routes = if args.paths { Routes::Each } else { Routes::Merge };
    let leaves = if args.make_leaves { Leaves::Made } else { Leaves::Counted };
    let count = |pos: &Position, depth: u32| perft::perft_with(pos, variant, depth, routes, leaves);
    let started = Instant::now();
    let total = if args.divide {
        let mut moves = Vec::new();
        generate(&pos, variant, routes, &mut moves);
        let mut total = 0;
        for m in &moves {
            let n = count(&pos.play(m), args.depth.saturating_sub(1));
            println!("{} {n}", notation::write(m, variant));
            total += n;
        }
        total
    } else {
        count(&pos, args.depth)
    };
    report(started, total);
    Ok(())
}

/// Prints the count last, and the speed on stderr.
fn report(started: Instant, total: u64) {
    let secs = started.elapsed().as_secs_f64();
    eprintln!("{:.3} s, {:.1} M leaves/s", secs, total as f64 / secs.max(1e-9) / 1e6);
    println!("{total}");
}

fn run_cheskers(args: &PerftArgs, rules: cheskers::Rules) -> Result<()> {
    anyhow::ensure!(!args.make_leaves, "--make-leaves: Cheskers perft always counts the last ply from the move list");
    let pos = match &args.fen {
        Some(t) => parse_cheskers_fen(t)?,
        None => cheskers::Position::start(),
    };
    let routes = if args.paths { Routes::Each } else { Routes::Merge };
    let started = Instant::now();
    let total = if args.divide {
        let mut moves = Vec::new();
        cheskers::generate(&pos, rules, routes, &mut moves);
        let mut total = 0;
        for m in &moves {
            let n = cheskers::perft(&pos.play(m), rules, args.depth.saturating_sub(1), routes);
            println!("{} {n}", cheskers::write_move(m));
            total += n;
        }
        total
    } else {
        cheskers::perft(&pos, rules, args.depth, routes)
    };
    report(started, total);
    Ok(())
}

pub fn moves(args: MovesArgs) -> Result<()> {
    match args.variant {
        Game::Draughts(variant) => {
            let pos = parse_fen(&args.fen, variant)?;
            for m in legal_moves(&pos, variant) {
                println!("{}", notation::write(&m, variant));
            }
        }
        Game::Cheskers(rules) => {
            for m in cheskers::legal_moves(&parse_cheskers_fen(&args.fen)?, rules) {
                println!("{}", cheskers::write_move(&m));
            }
        }
    }
    Ok(())
}
