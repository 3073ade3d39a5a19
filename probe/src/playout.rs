//! Play-outs: a position played to the end of the game with both sides
//! choosing by the tables, refereed by the rules.
//!
//! Each side plays the first move of
//! [`Tablebase::rank_moves_with_counters`] with the counters as they stand:
//! the winner converts fastest within the limits, the loser resists
//! longest, a side that draws keeps the draw. The game goes on across
//! captures and promotions into other slices, and an [`Arbiter`] counts the
//! moves and ends the game: a side without a piece or a move loses, a limit
//! reached draws, and so does a third repetition (the way a game of pure
//! values, without limits, ends when neither side can win). The tables only
//! choose the moves; whether the game is won, and when, is the arbiter's
//! count, so a play-out shows what the tables claim under the rules.

use crate::arbiter::{Arbiter, Ending};
use crate::moves::Move;
use crate::position::Position;
use crate::probe::{ProbeError, Tablebase};
use crate::rules::{Counters, RuleSet, Verdict};
use crate::value::Value;

/// One move of a play-out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub mv: Move,
    /// The counters after the move, as the arbiter counts them.
    pub counters: Counters,
    /// What the tables said the move was worth to the mover when it was
    /// chosen: with the counters after it, and the stored value (fresh
    /// counters after it).
    pub verdict: Verdict,
    pub value: Value,
}

/// A game played out from a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playout {
    pub start: Position,
    /// The counters at the start.
    pub counters: Counters,
    pub moves: Vec<PlayedMove>,
    /// How the game ended, after the last move (or at the start, where
    /// the game was already over there).
    pub ending: Ending,
}

impl Playout {
    /// The positions after each move, in order.
    pub fn positions(&self) -> impl Iterator<Item = Position> + '_ {
        self.moves.iter().scan(self.start, |pos, m| {
            *pos = pos.play(&m.mv);
            Some(*pos)
        })
    }
}

impl Tablebase {
    /// Plays `pos`, with the move-limit `counters` as they stand, to the
    /// end of the game under `rules` (the rule set the tables were built
    /// with), both sides choosing by
    /// [`Tablebase::rank_moves_with_counters`]. See the module
    /// documentation; [`Arbiter::new`] says how a count already under way
    /// is read. Errors as for [`Tablebase::rank_moves_with_counters`],
    /// for any position the game reaches.
    pub fn play_out(&self, pos: &Position, rules: &RuleSet, counters: Counters) -> Result<Playout, ProbeError> {
        // The same checks as every probe with counters, before the arbiter
        // reads them.
        self.check_counters(rules, counters)?;
        let mut arbiter = Arbiter::new(rules, self.variant(), pos, counters);
        let mut moves = Vec::new();
        let mut at = *pos;
        let mut ending = arbiter.ending_at_start(pos);
        // The arbiter ends every game: each position occurs at most twice
        // between two captures or man moves, and there are finitely many.
        while ending.is_none() {
            let ranked = self.rank_moves_with_counters(&at, rules, arbiter.counters())?;
            // The arbiter has ended a game without a legal move already.
            let Some(best) = ranked.first() else { break };
            let after = at.play(&best.mv);
            ending = arbiter.play(&at, &best.mv, &after);
            moves.push(PlayedMove {
                mv: best.mv,
                counters: arbiter.counters(),
                verdict: best.verdict,
                value: best.value,
            });
            at = after;
        }
        let ending = ending.unwrap_or(Ending::Won { winner: at.turn().opponent(), no_pieces: false });
        Ok(Playout { start: *pos, counters, moves, ending })
    }
}
