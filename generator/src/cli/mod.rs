//! Subcommands of `damka`.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use damka::movegen::{generate, Routes};
use damka::{fen, notation, perft, Position, Variant};

/// Endgame tablebases for Russian draughts and the other 8x8 games.
#[derive(Parser)]
#[command(name = "damka", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal-move tree (move generator check).
    Perft {
        /// Game: russian, brazilian, pool, english or italian.
        #[arg(long, default_value = "russian")]
        variant: Variant,
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
    },
    /// List the legal moves of a position in the game's notation.
    Moves {
        /// Position as FEN, e.g. 'W:Wc3,Kd4:Bf6' or 'W:W21,22:B1,2'.
        fen: String,
        /// Game: russian, brazilian, pool, english or italian.
        #[arg(long, default_value = "russian")]
        variant: Variant,
    },
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Perft { variant, depth, fen, paths, divide } => {
            let pos = start_or_fen(fen.as_deref(), variant)?;
            let routes = if paths { Routes::Each } else { Routes::Merge };
            let started = Instant::now();
            let total = if divide {
                let mut moves = Vec::new();
                generate(&pos, variant, routes, &mut moves);
                let mut total = 0;
                for m in &moves {
                    let n = perft::perft(&pos.play(m), variant, depth.saturating_sub(1), routes);
                    println!("{} {n}", notation::write(m, variant));
                    total += n;
                }
                total
            } else {
                perft::perft(&pos, variant, depth, routes)
            };
            let secs = started.elapsed().as_secs_f64();
            eprintln!("{:.3} s, {:.1} M leaves/s", secs, total as f64 / secs.max(1e-9) / 1e6);
            println!("{total}");
        }
        Command::Moves { fen, variant } => {
            let pos = parse_fen(&fen, variant)?;
            for m in damka::movegen::legal_moves(&pos, variant) {
                println!("{}", notation::write(&m, variant));
            }
        }
    }
    Ok(())
}

fn parse_fen(text: &str, variant: Variant) -> Result<Position> {
    fen::parse(text, variant).with_context(|| format!("cannot read FEN '{text}'"))
}

fn start_or_fen(text: Option<&str>, variant: Variant) -> Result<Position> {
    match text {
        Some(t) => parse_fen(t, variant),
        None => Ok(Position::start(variant.rules().first_to_move)),
    }
}
