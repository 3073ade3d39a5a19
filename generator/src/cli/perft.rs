//! `damka perft` and `damka moves`.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use damka::movegen::{generate, legal_moves, Routes};
use damka::perft::{self, Leaves};
use damka::{notation, Position, Variant};

use super::parse_fen;

#[derive(Args)]
pub struct PerftArgs {
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
    /// Play every move of the last ply instead of counting the move list
    /// (the figure to compare with programs that make every leaf).
    #[arg(long)]
    make_leaves: bool,
}

#[derive(Args)]
pub struct MovesArgs {
    /// Position as FEN, e.g. 'W:Wc3,Kd4:Bf6' or 'W:W21,22:B1,2'.
    fen: String,
    /// Game: russian, brazilian, pool, english or italian.
    #[arg(long, default_value = "russian")]
    variant: Variant,
}

pub fn run(args: PerftArgs) -> Result<()> {
    let variant = args.variant;
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
    let secs = started.elapsed().as_secs_f64();
    eprintln!("{:.3} s, {:.1} M leaves/s", secs, total as f64 / secs.max(1e-9) / 1e6);
    println!("{total}");
    Ok(())
}

pub fn moves(args: MovesArgs) -> Result<()> {
    let pos = parse_fen(&args.fen, args.variant)?;
    for m in legal_moves(&pos, args.variant) {
        println!("{}", notation::write(&m, args.variant));
    }
    Ok(())
}
