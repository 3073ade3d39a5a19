//! Legal move generation for every game of the family.
//!
//! Captures are compulsory: if the side to move has one, only captures are
//! generated, filtered by the game's capture choice. A capture is searched
//! piece by piece with the Turkish strike rule: jumped pieces stay on the
//! board until the move ends, block the way and cannot be jumped twice.

use crate::board::{ray, step, Bitboard, Color, Direction, Square};
use crate::moves::{Move, MAX_ROUTE};
use crate::position::Position;
use crate::variant::{CaptureChoice, PromotionInCapture, Rules, Variant};

/// Whether capture routes that lead to the same position count once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routes {
    /// One move per resulting position (same start, end, captured set).
    Merge,
    /// Every capture route is its own move (the "paths" perft convention).
    Each,
}

/// The legal moves of `pos`, identical captures merged.
pub fn legal_moves(pos: &Position, variant: Variant) -> Vec<Move> {
    let mut moves = Vec::with_capacity(48);
    generate(pos, variant, Routes::Merge, &mut moves);
    moves
}

/// Appends the legal moves of `pos` to `moves` (cleared first).
pub fn generate(pos: &Position, variant: Variant, routes: Routes, moves: &mut Vec<Move>) {
    moves.clear();
    let rules = variant.rules();
    if has_capture(pos, variant) {
        generate_captures(pos, rules, moves);
        if routes == Routes::Merge {
            merge_identical(moves);
        }
    } else {
        generate_quiet(pos, rules, moves);
    }
}

/// The number of legal moves of `pos`: what [`generate`] would give.
pub fn count_moves(pos: &Position, variant: Variant, routes: Routes) -> usize {
    count_moves_with(pos, variant, routes, &mut Vec::new())
}

/// [`count_moves`] with a list to reuse for captures.
pub(crate) fn count_moves_with(
    pos: &Position,
    variant: Variant,
    routes: Routes,
    scratch: &mut Vec<Move>,
) -> usize {
    generate(pos, variant, routes, scratch);
    scratch.len()
}

/// Whether the side to move must capture.
pub fn has_capture(pos: &Position, variant: Variant) -> bool {
    let rules = variant.rules();
    let us = pos.turn();
    let them = pos.pieces(us.opponent());
    let empty = pos.empty();
    let men = pos.men(us);
    let man_targets = if rules.men_capture_kings { them } else { them & !pos.all_kings() };
    let man_dirs: &[Direction] =
        if rules.men_capture_backward { &Direction::ALL } else { &Direction::forward(us) };
    for &dir in man_dirs {
        if ((men.shift(dir) & man_targets).shift(dir) & empty).has_any() {
            return true;
        }
    }
    let kings = pos.kings(us);
    if !rules.flying_kings {
        return Direction::ALL
            .iter()
            .any(|&dir| ((kings.shift(dir) & them).shift(dir) & empty).has_any());
    }
    kings.into_iter().any(|k| {
        Direction::ALL.iter().any(|&dir| flying_target(k, dir, empty, them).is_some())
    })
}

/// The positions from which the side that just moved could have reached
/// `pos` with a quiet king move (the solver's un-moves). Whether that side
/// was free to make a quiet move there (no capture pending) is for the
/// caller to check.
pub fn king_retractions(pos: &Position, variant: Variant, out: &mut Vec<Position>) {
    out.clear();
    let them = pos.turn().opponent();
    let empty = pos.empty();
    for to in pos.kings(them) {
        for dir in Direction::ALL {
            for &from in ray(to, dir).squares() {
                if !empty.contains(from) {
                    break;
                }
                out.push(pos.unplay_king_move(from, to));
                if !variant.rules().flying_kings {
                    break;
                }
            }
        }
    }
}

/// For a flying king on `from` looking along `dir`: the enemy piece it could
/// jump, if the first occupied square holds one and the square behind is
/// empty.
#[inline]
fn flying_target(from: Square, dir: Direction, empty: Bitboard, targets: Bitboard) -> Option<Square> {
    let squares = ray(from, dir).squares();
    let i = squares.iter().position(|&s| !empty.contains(s))?;
    let target = squares[i];
    (targets.contains(target) && squares.get(i + 1).is_some_and(|&l| empty.contains(l)))
        .then_some(target)
}

fn generate_quiet(pos: &Position, rules: &Rules, moves: &mut Vec<Move>) {
    let us = pos.turn();
    let empty = pos.empty();
    let promotion_row = Bitboard::rank(us.promotion_rank());
    for dir in Direction::forward(us) {
        let targets = pos.men(us).shift(dir) & empty;
        for to in targets {
            let from = step(to, dir.reverse()).expect("a man came from a square");
            moves.push(Move::quiet(from, to, promotion_row.contains(to)));
        }
    }
    for from in pos.kings(us) {
        for dir in Direction::ALL {
            for &to in ray(from, dir).squares() {
                if !empty.contains(to) {
                    break;
                }
                moves.push(Move::quiet(from, to, false));
                if !rules.flying_kings {
                    break;
                }
            }
        }
    }
}

fn generate_captures(pos: &Position, rules: &Rules, moves: &mut Vec<Move>) {
    let us = pos.turn();
    let mut keys = Vec::new();
    for from in pos.pieces(us) {
        let mut search = CaptureSearch {
            rules,
            us,
            them: pos.pieces(us.opponent()),
            their_kings: pos.kings(us.opponent()),
            empty: pos.empty().with(from),
            from,
            started_as_king: pos.all_kings().contains(from),
            route: [from; MAX_ROUTE],
            depth: 0,
            moves,
            keys: &mut keys,
        };
        search.search(from, search.started_as_king, Bitboard::EMPTY, 0);
    }
    if rules.capture_choice != CaptureChoice::Free {
        let best = keys.iter().copied().max().unwrap_or(0);
        let mut i = 0;
        moves.retain(|_| {
            i += 1;
            keys[i - 1] == best
        });
    }
}

/// Keeps the first of each group of moves with the same outcome.
fn merge_identical(moves: &mut Vec<Move>) {
    let mut kept = 0;
    for i in 0..moves.len() {
        if !moves[..kept].iter().any(|m| m.same_outcome(&moves[i])) {
            moves[kept] = moves[i];
            kept += 1;
        }
    }
    moves.truncate(kept);
}

struct CaptureSearch<'a> {
    rules: &'a Rules,
    us: Color,
    them: Bitboard,
    their_kings: Bitboard,
    /// Empty squares, the moving piece's start square included.
    empty: Bitboard,
    from: Square,
    started_as_king: bool,
    route: [Square; MAX_ROUTE],
    depth: usize,
    moves: &'a mut Vec<Move>,
    /// The precedence key of each move, for the majority and Italian rules.
    keys: &'a mut Vec<u32>,
}

impl CaptureSearch<'_> {
    fn capturable(&self, sq: Square, king: bool, captured: Bitboard) -> bool {
        self.them.contains(sq)
            && !captured.contains(sq)
            && (king || self.rules.men_capture_kings || !self.their_kings.contains(sq))
    }

    fn piece_dirs(&self, king: bool) -> &'static [Direction] {
        if king || self.rules.men_capture_backward {
            &Direction::ALL
        } else {
            match self.us {
                Color::White => &Direction::ALL[..2],
                Color::Black => &Direction::ALL[2..],
            }
        }
    }

    /// Continues a capture from `sq`; records the move where it cannot go
    /// on. `kings_met` marks, from the highest bit down, which captured
    /// pieces were kings (for the Italian precedence).
    fn search(&mut self, sq: Square, king: bool, captured: Bitboard, kings_met: u32) {
        let mut went_on = false;
        for &dir in self.piece_dirs(king) {
            if king && self.rules.flying_kings {
                went_on |= self.flying_jumps(sq, dir, captured, kings_met);
            } else {
                went_on |= self.short_jump(sq, dir, king, captured, kings_met);
            }
        }
        if !went_on && self.depth > 0 {
            self.record(king, captured, kings_met);
        }
    }

    fn short_jump(
        &mut self,
        sq: Square,
        dir: Direction,
        king: bool,
        captured: Bitboard,
        kings_met: u32,
    ) -> bool {
        let Some(over) = step(sq, dir) else { return false };
        let Some(land) = step(over, dir) else { return false };
        if !self.capturable(over, king, captured) || !self.empty.contains(land) {
            return false;
        }
        let kings_met = self.mark(over, kings_met);
        self.push(land);
        let captured = captured.with(over);
        if !king && land.rank() == self.us.promotion_rank() {
            match self.rules.promotion_in_capture {
                PromotionInCapture::ContinueAsKing => self.search(land, true, captured, kings_met),
                PromotionInCapture::ContinueAsMan => self.search(land, false, captured, kings_met),
                PromotionInCapture::EndsMove => self.record(true, captured, kings_met),
            }
        } else {
            self.search(land, king, captured, kings_met);
        }
        self.depth -= 1;
        true
    }

    /// A flying king's jumps along `dir`. It may land on any empty square
    /// behind the jumped piece, but only on those from which the capture
    /// goes on, if there are such.
    fn flying_jumps(&mut self, sq: Square, dir: Direction, captured: Bitboard, kings_met: u32) -> bool {
        let squares = ray(sq, dir).squares();
        let Some(i) = squares.iter().position(|&s| !self.empty.contains(s)) else { return false };
        let over = squares[i];
        if !self.capturable(over, true, captured) {
            return false;
        }
        let landings: Vec<Square> =
            squares[i + 1..].iter().copied().take_while(|&s| self.empty.contains(s)).collect();
        if landings.is_empty() {
            return false;
        }
        let captured = captured.with(over);
        let kings_met = self.mark(over, kings_met);
        let going_on: Vec<Square> =
            landings.iter().copied().filter(|&l| self.king_can_capture(l, captured)).collect();
        for &land in if going_on.is_empty() { &landings } else { &going_on } {
            self.push(land);
            if going_on.is_empty() {
                self.record(true, captured, kings_met);
            } else {
                self.search(land, true, captured, kings_met);
            }
            self.depth -= 1;
        }
        true
    }

    fn king_can_capture(&self, sq: Square, captured: Bitboard) -> bool {
        let targets = Bitboard(self.them.0 & !captured.0);
        Direction::ALL.iter().any(|&dir| {
            // Jumped pieces still stand: they block like any other piece.
            flying_target(sq, dir, self.empty, targets).is_some()
        })
    }

    fn mark(&self, over: Square, kings_met: u32) -> u32 {
        if self.their_kings.contains(over) {
            kings_met | 1 << (15 - self.depth)
        } else {
            kings_met
        }
    }

    fn push(&mut self, land: Square) {
        self.route[self.depth] = land;
        self.depth += 1;
    }

    fn record(&mut self, king_now: bool, captured: Bitboard, kings_met: u32) {
        let to = self.route[self.depth - 1];
        let promotes =
            !self.started_as_king && (king_now || to.rank() == self.us.promotion_rank());
        self.moves.push(Move::capture(self.from, &self.route[..self.depth], captured, promotes));
        let key = match self.rules.capture_choice {
            CaptureChoice::Free => 0,
            CaptureChoice::Majority => captured.count(),
            CaptureChoice::Italian => {
                (captured.count() << 24)
                    | (u32::from(self.started_as_king) << 20)
                    | ((captured & self.their_kings).count() << 16)
                    | kings_met
            }
        };
        self.keys.push(key);
    }
}
