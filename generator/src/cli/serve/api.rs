//! What `damka serve` answers: the page, and the JSON API it reads.
//!
//! | path | answer |
//! |---|---|
//! | `/` | the page (`/explorer.js`, `/explorer.css` beside it) |
//! | `/api/info` | the game, rule set, largest slice and the board's squares as the page draws them |
//! | `/api/position?fen=F[&move=M][&flip=1]` | the position (after move M, colours flipped) as FEN and as a list of pieces |
//! | `/api/probe?fen=F[&variant=V][&quiet=N&kings_only=N]` | exactly what `damka probe F --json` prints |
//! | `/api/playout?fen=F[&quiet=N&kings_only=N]` | exactly what `damka play F --json` prints |
//! | `/api/audit[?material=M]` | what `damka audit --json` prints for the tables' rule set, or one slice of it |
//! | `/api/audit.svg[?material=M]` | the picture `damka audit --plot` draws, or one slice's |
//!
//! Bad requests get a 4xx answer `{"error": "..."}` that says what is wrong.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use damka::{fen, Color, Counters, Material, Position, ProbeError, RuleSet, Square, Tablebase, Variant};
use serde_json::json;

use super::http::{Request, Response};
use crate::audit::{self, Audit};
use crate::cli::parse_fen;
use crate::cli::play;
use crate::cli::probe::{known_rules, probe, unknown_rules};
use crate::driver::work;
use crate::graph::pairs_in_order;

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("explorer.js");
const STYLE: &str = include_str!("explorer.css");

/// The audit solves every slice in memory; past 5 pieces that takes an
/// hour and gigabytes, more than a page should start.
const MAX_AUDIT_PIECES: u8 = 5;

/// The tables and what the explorer has computed over them.
pub struct Explorer {
    tb: Tablebase,
    /// The rule set the tables were built with, where known.
    rules: Option<RuleSet>,
    audit: Arc<Mutex<AuditState>>,
}

/// The audit is computed once, on the first request for it, in the
/// background; requests meanwhile are told how far it has got.
enum AuditState {
    NotStarted,
    Running { done: Arc<AtomicU64>, total: u64 },
    Done(Arc<Audit>),
}

/// A request that gets an error answer.
struct Refusal(u16, String);

type Answer = Result<Response, Refusal>;

fn refuse<T>(status: u16, why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(status, why.into()))
}

/// The status an error from the tables deserves: the client's fault (a
/// position the tables do not cover, impossible counters) or the server's.
impl From<anyhow::Error> for Refusal {
    fn from(err: anyhow::Error) -> Refusal {
        let status = match err.chain().find_map(|e| e.downcast_ref::<ProbeError>()) {
            Some(ProbeError::MissingTable { .. } | ProbeError::TooManyPieces { .. } | ProbeError::NoTables { .. }) => {
                404
            }
            Some(ProbeError::InvalidPosition(_) | ProbeError::ImpossibleCounters { .. }) => 400,
            Some(_) => 500,
            None if err.chain().any(|e| e.is::<fen::FenError>()) => 400,
            None => 500,
        };
        Refusal(status, format!("{err:#}"))
    }
}

impl Explorer {
    pub fn new(tb: Tablebase) -> Explorer {
        let rules = known_rules(&tb);
        Explorer { tb, rules, audit: Arc::new(Mutex::new(AuditState::NotStarted)) }
    }

    fn variant(&self) -> Variant {
        self.tb.variant()
    }

    pub fn answer(&self, request: &Request) -> Response {
        let answer = match request.path.as_str() {
            "/" => Ok(Response::new(200, "text/html; charset=utf-8", PAGE)),
            "/explorer.js" => Ok(Response::new(200, "text/javascript; charset=utf-8", SCRIPT)),
            "/explorer.css" => Ok(Response::new(200, "text/css; charset=utf-8", STYLE)),
            "/api/info" => Ok(self.info()),
            "/api/position" => self.position(request),
            "/api/probe" => self.probe(request),
            "/api/playout" => self.playout(request),
            "/api/audit" => self.audit(request),
            "/api/audit.svg" => self.audit_svg(request),
            other => refuse(
                404,
                format!(
                    "no page {}: the API is /api/info, /api/position, /api/probe, /api/playout, /api/audit \
                     and /api/audit.svg",
                    fen::excerpt(other)
                ),
            ),
        };
        answer.unwrap_or_else(|Refusal(status, why)| Response::error(status, &why))
    }

    /// The game and its board, for the page to draw: every dark square
    /// with its name in the game's notation and where it stands on the
    /// screen (row 0 at the top, White at the bottom; the Italian board is
    /// the mirror image, its square 1 top left).
    fn info(&self) -> Response {
        let variant = self.variant();
        let rules = variant.rules();
        let mirrored = rules.numbering == damka::variant::Numbering::Italian;
        let squares: Vec<_> = (0..32u8)
            .map(Square::from_dense)
            .map(|sq| {
                let col = if mirrored { 7 - sq.file() } else { sq.file() };
                json!({ "name": fen::square_text(sq, variant), "row": 7 - sq.rank(), "col": col })
            })
            .collect();
        let body = json!({
            "variant": variant.name(),
            "rules": self.tb.rules().map(|r| json!({ "name": r.name, "hash": format!("{:016x}", r.hash) })),
            "max_pieces": self.tb.max_pieces(),
            "audit_pieces": self.audit_pieces(),
            "algebraic": rules.algebraic_notation,
            "start_fen": fen::write(&Position::start(rules.first_to_move), variant),
            "example_fen": fen::write(&example(rules.first_to_move), variant),
            "squares": squares,
        });
        json_response(&body)
    }

    /// The position a FEN names (after a move, colours flipped), written
    /// as FEN and as pieces, so that the page never parses FEN itself.
    fn position(&self, request: &Request) -> Answer {
        let variant = self.variant();
        let mut pos = self.fen_param(request)?;
        if let Some(text) = request.param("move") {
            let mv = damka::notation::parse(text, &pos, variant).map_err(|e| Refusal(400, e.to_string()))?;
            pos = pos.play(&mv);
        }
        if request.param("flip").is_some_and(|f| f == "1") {
            pos = pos.flip();
        }
        let pieces: Vec<_> = [Color::White, Color::Black]
            .into_iter()
            .flat_map(|color| {
                let side = if color == Color::White { "white" } else { "black" };
                let men = pos.men(color).into_iter().map(move |sq| (sq, side, false));
                men.chain(pos.kings(color).into_iter().map(move |sq| (sq, side, true)))
            })
            .map(|(sq, color, king)| json!({ "square": fen::square_text(sq, variant), "color": color, "king": king }))
            .collect();
        let turn = if pos.turn() == Color::White { "white" } else { "black" };
        Ok(json_response(&json!({ "fen": fen::write(&pos, variant), "turn": turn, "pieces": pieces })))
    }

    fn probe(&self, request: &Request) -> Answer {
        let pos = self.fen_param(request)?;
        let counters = counters_param(request)?;
        let report = probe(&self.tb, self.rules.as_ref(), &pos, counters)?;
        Ok(Response::new(200, "application/json", report.json_text()))
    }

    fn playout(&self, request: &Request) -> Answer {
        let pos = self.fen_param(request)?;
        let counters = counters_param(request)?;
        let Some(rules) = &self.rules else { return refuse(404, unknown_rules(&self.tb).to_string()) };
        let value = self.tb.probe_value(&pos).map_err(anyhow::Error::from)?;
        let game = self.tb.play_out(&pos, rules, counters).map_err(anyhow::Error::from)?;
        Ok(Response::new(200, "application/json", play::json_text(&game, rules, value, self.variant())))
    }

    fn audit(&self, request: &Request) -> Answer {
        let audit = self.finished_audit()?;
        match request.param("material") {
            None => Ok(json_response(&*audit)),
            Some(m) => Ok(json_response(slice(&audit, m)?)),
        }
    }

    fn audit_svg(&self, request: &Request) -> Answer {
        let audit = self.finished_audit()?;
        let svg = match request.param("material") {
            None => audit::plot(&audit),
            Some(m) => audit::plot_slice(&audit, slice(&audit, m)?),
        };
        Ok(Response::new(200, "image/svg+xml", svg))
    }

    fn audit_pieces(&self) -> u8 {
        self.tb.max_pieces().min(MAX_AUDIT_PIECES)
    }

    /// The audit of the tables' rule set, if it is computed; else starts it
    /// (once) and says how far it has got.
    fn finished_audit(&self) -> Result<Arc<Audit>, Refusal> {
        let Some(rules) = &self.rules else {
            return refuse(404, "the tables' rule set is unknown (no damka.toml, no preset): no audit");
        };
        let mut state = self.audit.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match &*state {
            AuditState::Done(audit) => return Ok(audit.clone()),
            AuditState::Running { done, total } => {
                let share = 100.0 * done.load(Ordering::Relaxed) as f64 / (*total).max(1) as f64;
                return refuse(503, format!("the audit is being computed: {share:.0}% done; ask again in a moment"));
            }
            AuditState::NotStarted => {}
        }
        let (variant, rules, pieces) = (self.variant(), Arc::new(rules.clone()), self.audit_pieces());
        let total = work(&pairs_in_order(pieces), &audit::options(variant, rules.clone()));
        let done = Arc::new(AtomicU64::new(0));
        *state = AuditState::Running { done: done.clone(), total };
        // Its own thread, not the requester's: the audit answers every
        // later request and outlives this connection.
        let slot = self.audit.clone();
        std::thread::spawn(move || {
            let audit = audit::run(variant, rules, pieces, &|n| {
                done.fetch_add(n, Ordering::Relaxed);
            });
            *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = AuditState::Done(Arc::new(audit));
        });
        refuse(503, "the audit is being computed: 0% done; ask again in a moment")
    }
}

/// The position the page opens with: three kings against one (a1, c3, e5
/// against h2), a win in the 4-piece tables.
fn example(turn: Color) -> Position {
    let square = |file, rank| Square::from_coords(file, rank).expect("a dark square");
    let setup = damka::Setup {
        white_kings: square(0, 0).bb() | square(2, 2).bb() | square(4, 4).bb(),
        black_kings: square(7, 1).bb(),
        turn: Some(turn),
        ..damka::Setup::default()
    };
    Position::from_setup(&setup).expect("a legal position")
}

/// The slice `material` of the audit.
fn slice<'a>(audit: &'a Audit, material: &str) -> Result<&'a audit::SliceAudit, Refusal> {
    let Ok(m) = material.parse::<Material>() else {
        return refuse(400, damka::material::BadMaterial(fen::excerpt(material)).to_string());
    };
    let name = m.to_string();
    match audit.slices.iter().find(|s| s.material == name) {
        Some(s) => Ok(s),
        None => refuse(404, format!("no slice {name} in the audit of these tables")),
    }
}

impl Explorer {
    /// The position of the `fen` parameter, in the tables' game (which a
    /// `variant` parameter must name, if given).
    fn fen_param(&self, request: &Request) -> Result<Position, Refusal> {
        let variant = self.variant();
        if let Some(v) = request.param("variant") {
            let Ok(asked) = v.parse::<Variant>() else {
                return refuse(400, damka::variant::UnknownVariant(fen::excerpt(v)).to_string());
            };
            if asked != variant {
                return refuse(400, format!("this server has {variant} tables, not {asked}"));
            }
        }
        let Some(text) = request.param("fen") else {
            let example = fen::write(&example(variant.rules().first_to_move), variant);
            return refuse(400, format!("no position: give it as fen=..., e.g. fen={example}"));
        };
        Ok(parse_fen(text, variant)?)
    }
}

/// The counters `quiet` and `kings_only` (plies), fresh when not given.
fn counters_param(request: &Request) -> Result<Counters, Refusal> {
    let plies = |name: &str| match request.param(name) {
        None | Some("") => Ok(0),
        Some(text) => text.parse::<u16>().map_err(|_| {
            Refusal(400, format!("{name} '{}': expected a number of plies, 0 to {}", fen::excerpt(text), u16::MAX))
        }),
    };
    Ok(Counters { quiet: plies("quiet")?, kings_only: plies("kings_only")? })
}

fn json_response(value: &impl serde::Serialize) -> Response {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    Response::new(200, "application/json", format!("{text}\n"))
}
