//! Playing a position out: the line the tables' best moves give, from a
//! position (and its move-limit counters) to the end of the game, with the
//! counters after every move.

use damka::{Counters, Move, Position, ProbeError, RuleSet, Tablebase, Value, Verdict, Wdl};

/// The most plies a line is played out: a pure win is converted long
/// before (each conversion removes a piece or crowns a man, and no slice's
/// distance comes near), so this only bounds the work of one request.
pub const MAX_PLIES: usize = 1000;

/// One move of the line, valued for the side that plays it.
#[derive(Clone, Debug)]
pub struct Step {
    pub mv: Move,
    /// The position after the move.
    pub after: Position,
    /// The move's stored value (fresh counters after it).
    pub value: Value,
    /// Under a known rule set: the counters after the move and the move's
    /// verdict with them.
    pub judged: Option<(Counters, Verdict)>,
}

/// Why a line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The side to move has no legal move: it has lost.
    NoLegalMove,
    /// The best move draws: the game goes on for ever, or until a draw
    /// rule ends it, with nothing more to learn from the tables.
    Drawn,
    /// [`MAX_PLIES`] were played.
    PlyLimit,
}

impl End {
    pub fn describe(self) -> &'static str {
        match self {
            End::NoLegalMove => "the side to move has no legal move: it has lost",
            End::Drawn => "the best move draws: the game is a draw",
            End::PlyLimit => "the line was cut after its first 1000 plies",
        }
    }
}

/// A played-out line.
#[derive(Clone, Debug)]
pub struct Line {
    pub steps: Vec<Step>,
    pub end: End,
}

/// Plays `pos` out from `counters`, each side choosing the first move the
/// tables rank (under `rules`, those the tables were built with, where
/// known: [`Tablebase::rank_moves_with_counters`]; else the stored values:
/// [`Tablebase::rank_moves`]). Stops when the side to move cannot move or
/// its best move draws.
pub fn play_out(tb: &Tablebase, rules: Option<&RuleSet>, pos: &Position, counters: Counters) -> Result<Line, ProbeError> {
    let (mut pos, mut counters) = (*pos, counters);
    let mut steps = Vec::new();
    while steps.len() < MAX_PLIES {
        let best = match rules {
            Some(rules) => tb.rank_moves_with_counters(&pos, rules, counters)?.into_iter().next().map(|m| Step {
                mv: m.mv,
                after: pos.play(&m.mv),
                value: m.value,
                judged: Some((m.counters, m.verdict)),
            }),
            None => tb.rank_moves(&pos)?.into_iter().next().map(|m| Step {
                mv: m.mv,
                after: pos.play(&m.mv),
                value: m.value,
                judged: None,
            }),
        };
        let Some(best) = best else {
            return Ok(Line { steps, end: End::NoLegalMove });
        };
        let verdict = best.judged.map_or(Verdict::Exact(best.value.wdl), |(_, v)| v);
        if verdict == Verdict::Exact(Wdl::Draw) {
            return Ok(Line { steps, end: End::Drawn });
        }
        (pos, counters) = (best.after, best.judged.map_or(counters.after(&pos, &best.mv), |(c, _)| c));
        steps.push(best);
    }
    Ok(Line { steps, end: End::PlyLimit })
}
