//! The `damka` command line: one module per subcommand.

mod audit;
mod cheskers;
mod generate;
mod info;
mod perft;
mod plan;
mod play;
mod probe;
mod serve;
mod stats;
mod verify;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use damka::directory::Manifest;
use damka::game::Game;
use damka::{fen, Position, Variant};

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
    Perft(perft::PerftArgs),
    /// List the legal moves of a position in the game's notation.
    Moves(perft::MovesArgs),
    /// Solve every slice with up to N pieces and write the tables.
    Generate(generate::GenerateArgs),
    /// The build as cluster jobs: each slice pair's inputs, positions,
    /// memory and time; a Slurm submission script.
    Plan(plan::PlanArgs),
    /// Check every table: block checksums, and every value re-derived from
    /// its successors.
    Verify(verify::VerifyArgs),
    /// Per slice: positions, wins, draws, losses, longest win with an example.
    Stats(stats::StatsArgs),
    /// Probe a position: its value, distance and every legal move's value.
    Probe(probe::ProbeArgs),
    /// Play a position out to the end of the game, both sides choosing by
    /// the tables, the draw rules counted as an arbiter counts them.
    Play(play::PlayArgs),
    /// Which variants, rule sets and slices a directory holds.
    Info(info::InfoArgs),
    /// Per slice: wins against the draw-rule limits, what the limits turn
    /// into draws, examples, and a picture of the win lengths.
    Audit(audit::AuditArgs),
    /// The explorer: a web page to probe positions and see the audit, and
    /// its JSON API.
    Serve(serve::ServeArgs),
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Moves(args) => perft::moves(args),
        Command::Generate(args) => generate::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Play(args) => play::run(args),
        Command::Info(args) => info::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Serve(args) => serve::run(args),
    }
}

/// Where the tables are, and which game's (`info`, `stats`, `verify`).
#[derive(clap::Args)]
pub(crate) struct TablesArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    pub dir: std::path::PathBuf,
    /// Only this game's tables (default: every game in the directory; a
    /// directory of Cheskers tables is read as such).
    #[arg(long)]
    pub variant: Option<Game>,
}

impl TablesArgs {
    /// Cheskers tables: asked for, or none asked and the manifest says so.
    pub fn is_cheskers(&self) -> bool {
        match self.variant {
            Some(game) => game == Game::Cheskers,
            None => Manifest::read(&self.dir).ok().flatten().is_some_and(|m| m.game == Game::Cheskers),
        }
    }

    /// The draughts variant asked for, if any.
    pub fn draughts(&self) -> Option<Variant> {
        match self.variant {
            Some(Game::Draughts(v)) => Some(v),
            _ => None,
        }
    }
}

/// The draughts variant of `game`; Cheskers is refused by `command`, which
/// does not play it.
pub(crate) fn draughts_only(game: Game, command: &str) -> Result<Variant> {
    match game {
        Game::Draughts(v) => Ok(v),
        Game::Cheskers => anyhow::bail!(
            "damka {command} does not take Cheskers: its tables are built and read by generate, verify, stats, \
             probe, info and audit (--variant cheskers)"
        ),
    }
}

/// Parses a FEN, naming it in the error.
pub(crate) fn parse_fen(text: &str, variant: Variant) -> Result<Position> {
    fen::parse(text, variant).with_context(|| format!("cannot read FEN '{}'", fen::excerpt(text)))
}
