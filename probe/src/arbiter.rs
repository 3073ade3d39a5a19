//! The arbiter of a game: counts the moves of each side as the draw rules
//! count them and says when the game is over.
//!
//! This is the rules' own counting, done the way an arbiter does it at the
//! board: moves of each side since the balance of forces arose (the last
//! capture or promotion) and since the last man move or capture, against
//! the limits of the rules in force. It shares nothing with the way the
//! tables fold the limits into their values (plies to the next reset,
//! `RuleSet::judge`), so a play-out refereed here checks those values
//! rather than repeating them.

use std::collections::HashMap;

use crate::board::Color;
use crate::movegen::{count_moves, Routes};
use crate::moves::Move;
use crate::position::Position;
use crate::rules::{Counter, Counters, Limit, RuleSet};
use crate::variant::Variant;

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `winner` won: its opponent, to move, has no piece left
    /// (`no_pieces`) or no legal move.
    Won { winner: Color, no_pieces: bool },
    /// Drawn by the move-limit rule of this name: its limit was reached
    /// without a capture or promotion (or man move, for a kings-only count).
    DrawnByRule { rule: String },
    /// Drawn: the same position with the same side to move occurred a
    /// third time.
    DrawnByRepetition,
}

impl Ending {
    /// The result for `side`: win, draw or loss.
    pub fn result_for(&self, side: Color) -> crate::Wdl {
        match self {
            Ending::Won { winner, .. } if *winner == side => crate::Wdl::Win,
            Ending::Won { .. } => crate::Wdl::Loss,
            _ => crate::Wdl::Draw,
        }
    }
}

fn count_number(counter: Counter) -> usize {
    match counter {
        Counter::Quiet => 0,
        Counter::KingsOnly => 1,
    }
}

/// Referees one game from a given position.
pub struct Arbiter<'r> {
    rules: &'r RuleSet,
    variant: Variant,
    /// The rules in force since the balance of forces arose: (name,
    /// counter, limit).
    in_force: Vec<(&'r str, Counter, Limit)>,
    /// Moves of each side (by [`Color::index`]) since each count began
    /// (by [`count_number`]).
    moves: [[u16; 2]; 2],
    /// How often each position occurred since the last capture or man
    /// move (no earlier position can come back).
    seen: HashMap<Position, u8>,
}

impl<'r> Arbiter<'r> {
    /// Starts refereeing at `pos` with the counts at `counters` (the
    /// side to move at `pos` made half of each count, its opponent the
    /// other half and the odd ply). With a quiet count under way the
    /// position where the balance arose is not known: the rules in force
    /// are read at `pos` (the lone king of the main-road rule stands where
    /// it stood then).
    pub fn new(rules: &'r RuleSet, variant: Variant, pos: &Position, counters: Counters) -> Arbiter<'r> {
        let split = |plies: u16| {
            let mut by_side = [0; 2];
            by_side[pos.turn().index()] = plies / 2;
            by_side[pos.turn().opponent().index()] = plies - plies / 2;
            by_side
        };
        let mut arbiter = Arbiter {
            rules,
            variant,
            in_force: Vec::new(),
            moves: [split(counters.quiet), split(counters.kings_only)],
            seen: HashMap::new(),
        };
        arbiter.balance_arose(pos);
        arbiter.seen.insert(*pos, 1);
        arbiter
    }

    /// The counters as they stand: plies of both sides since each count
    /// began.
    pub fn counters(&self) -> Counters {
        let plies = |count: [u16; 2]| count[0] + count[1];
        Counters { quiet: plies(self.moves[0]), kings_only: plies(self.moves[1]) }
    }

    /// Whether the game is already over at `pos`, the position it was
    /// started at: a limit the counts have reached, or a side to move
    /// without a piece or a move.
    pub fn ending_at_start(&self, pos: &Position) -> Option<Ending> {
        self.limit_reached().or_else(|| self.no_move(pos))
    }

    /// Records `mv`, played in `before` and leading to `after`, and says
    /// whether the game is over. A limit reached on this very move ends
    /// the game unless the move restarts that count; a capture that
    /// leaves the opponent nothing, or a restart that blocks it, wins.
    pub fn play(&mut self, before: &Position, mv: &Move, after: &Position) -> Option<Ending> {
        let mover = before.turn().index();
        let man_moved = before.men(before.turn()).contains(mv.from());
        // A capture or promotion: a new balance of forces, both counts
        // restart. A man move restarts the kings-only count.
        let restarts = [mv.is_capture() || mv.promotes(), mv.is_capture() || man_moved];
        for (count, restart) in restarts.into_iter().enumerate() {
            if restart {
                self.moves[count] = [0, 0];
            } else {
                self.moves[count][mover] = self.moves[count][mover].saturating_add(1);
            }
        }
        if restarts[0] {
            self.balance_arose(after);
        }
        if restarts[1] {
            self.seen.clear();
        }
        if let Some(draw) = self.limit_reached() {
            return Some(draw);
        }
        if let Some(won) = self.no_move(after) {
            return Some(won);
        }
        let seen = self.seen.entry(*after).or_insert(0);
        *seen += 1;
        (*seen >= 3).then_some(Ending::DrawnByRepetition)
    }

    /// Reads the rules in force at `balance`, right after a capture or
    /// promotion.
    fn balance_arose(&mut self, balance: &Position) {
        self.in_force = self
            .rules
            .rules
            .iter()
            .filter_map(|r| r.limit_at(balance).map(|limit| (r.name.as_str(), r.counter, limit)))
            .collect();
    }

    /// The first rule in force whose limit the counts have reached.
    fn limit_reached(&self) -> Option<Ending> {
        let reached = |counter: Counter, limit: Limit| {
            let count = self.moves[count_number(counter)];
            let [white, black] = [count[Color::White.index()], count[Color::Black.index()]];
            match limit {
                Limit::Plies(n) => white + black >= n,
                Limit::Moves { moves, strong: Some(side) } => count[side.index()] >= moves,
                // Either side may be the stronger: the one that wins must
                // do it by its N-th move, so once both have made N moves
                // neither can.
                Limit::Moves { moves, strong: None } => white >= moves && black >= moves,
            }
        };
        // A count that has not started reaches no limit.
        self.in_force
            .iter()
            .find(|&&(_, counter, limit)| self.moves[count_number(counter)] != [0, 0] && reached(counter, limit))
            .map(|(name, _, _)| Ending::DrawnByRule { rule: name.to_string() })
    }

    /// A win for the opponent of the side to move at `pos`, if that side
    /// has no piece or no legal move.
    fn no_move(&self, pos: &Position) -> Option<Ending> {
        let winner = pos.turn().opponent();
        if pos.pieces(pos.turn()).is_empty() {
            return Some(Ending::Won { winner, no_pieces: true });
        }
        (count_moves(pos, self.variant, Routes::Merge) == 0).then_some(Ending::Won { winner, no_pieces: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen;
    use crate::notation;

    fn play(arbiter: &mut Arbiter, pos: &mut Position, text: &str) -> Option<Ending> {
        let mv = notation::parse(text, pos, Variant::Russian).expect("a legal move");
        let after = pos.play(&mv);
        let ending = arbiter.play(pos, &mv, &after);
        *pos = after;
        ending
    }

    /// A king against a king (rule 7.2.8, 5 moves of the stronger side,
    /// which is the side that wins): drawn once both have made five moves.
    /// The count starts at three moves each (ply 6).
    #[test]
    fn a_king_against_a_king_is_drawn_after_five_moves_each() {
        let rules = RuleSet::preset("russian").unwrap();
        let mut pos = fen::parse("W:WKc1:BKh8", Variant::Russian).unwrap();
        let mut arbiter = Arbiter::new(&rules, Variant::Russian, &pos, Counters { quiet: 6, kings_only: 6 });
        assert_eq!(arbiter.ending_at_start(&pos), None);
        for mv in ["c1-d2", "h8-g7", "d2-c1"] {
            assert_eq!(play(&mut arbiter, &mut pos, mv), None, "{mv}");
        }
        // White has made its fifth move, Black its fourth: Black could
        // still win by its fifth.
        assert_eq!(arbiter.counters(), Counters { quiet: 9, kings_only: 9 });
        let ending = play(&mut arbiter, &mut pos, "g7-h8");
        assert_eq!(ending, Some(Ending::DrawnByRule { rule: "small-endings".into() }));
    }

    /// Without move limits a shuffle ends by repetition: the start position
    /// comes back a third time on ply 8.
    #[test]
    fn a_third_repetition_draws() {
        let rules = RuleSet::preset("none").unwrap();
        let mut pos = fen::parse("W:WKc1:BKh8", Variant::Russian).unwrap();
        let mut arbiter = Arbiter::new(&rules, Variant::Russian, &pos, Counters::default());
        let shuffle = ["c1-d2", "h8-g7", "d2-c1", "g7-h8"];
        for ply in 0..7 {
            assert_eq!(play(&mut arbiter, &mut pos, shuffle[ply % 4]), None, "ply {}", ply + 1);
        }
        assert_eq!(play(&mut arbiter, &mut pos, shuffle[3]), Some(Ending::DrawnByRepetition));
    }

    /// A capture on the ply that reaches a limit still counts; a counted
    /// start splits the plies between the sides.
    #[test]
    fn a_capture_on_the_limit_wins() {
        let rules = RuleSet::preset("russian").unwrap();
        // Two kings against one, four moves each made: White's fifth move
        // is its last chance, and it takes.
        let mut pos = fen::parse("W:WKa1,Kd2:BKg5", Variant::Russian).unwrap();
        let mut arbiter = Arbiter::new(&rules, Variant::Russian, &pos, Counters { quiet: 8, kings_only: 8 });
        assert_eq!(arbiter.ending_at_start(&pos), None);
        let ending = play(&mut arbiter, &mut pos, "d2:h6");
        assert_eq!(ending, Some(Ending::Won { winner: Color::White, no_pieces: true }));

        // The same count, a quiet move instead: drawn on that ply.
        let mut pos = fen::parse("W:WKa1,Kh2:BKg5", Variant::Russian).unwrap();
        let mut arbiter = Arbiter::new(&rules, Variant::Russian, &pos, Counters { quiet: 8, kings_only: 8 });
        assert_eq!(play(&mut arbiter, &mut pos, "a1-b2"), Some(Ending::DrawnByRule { rule: "small-endings".into() }));
    }
}
