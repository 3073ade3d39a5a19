//! `damka serve`: the explorer, a web page over the tables and the JSON
//! API it reads. The API answers with what `damka probe --json` and
//! `damka audit --json` print, made by the same functions, so the page and
//! the command line cannot disagree. The page (HTML, CSS and a small
//! script) is part of the binary.

mod api;
mod http;

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use damka::directory::Manifest;
use damka::game::Game;
use damka::{OpenOptions, Tablebase, Variant};


#[derive(Args)]
pub struct ServeArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "data/tables")]
    dir: PathBuf,
    /// Port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on; 127.0.0.1 keeps the explorer to this machine.
    #[arg(long, default_value = "127.0.0.1")]
    bind: String,
    /// Game: russian, brazilian, pool, english or italian. Default: the
    /// game the directory's tables are of.
    #[arg(long)]
    variant: Option<Variant>,
}

pub fn run(args: ServeArgs) -> Result<()> {
    let variant = match args.variant {
        Some(v) => v,
        None => match Manifest::read(&args.dir)?.map(|m| m.game) {
            Some(Game::Draughts(variant)) => variant,
            Some(Game::Cheskers) => bail!("{} holds Cheskers tables: the explorer shows draughts tables only", args.dir.display()),
            None => Variant::default(),
        },
    };
    // The error names the directory already.
    let tb = Tablebase::open(&args.dir, OpenOptions::new(variant).cache_bytes(64 << 20))?;
    let explorer = Arc::new(api::Explorer::new(tb));
    let listener = TcpListener::bind((args.bind.as_str(), args.port))
        .with_context(|| format!("cannot listen on {}:{}", args.bind, args.port))?;
    let addr = listener.local_addr()?;
    // The first line says where to go; tests read it to find the port.
    println!("damka serve: {variant} tables in {} at http://{addr}/", args.dir.display());
    http::serve(listener, Arc::new(move |request: &http::Request| explorer.answer(request)))?;
    Ok(())
}
