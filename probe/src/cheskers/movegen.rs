//! Legal Cheskers moves.
//!
//! Men and kings move and jump as in English checkers; a bishop slides
//! along diagonals and a camel leaps (1,3), both capturing by landing on an
//! enemy piece. If a man or a king can jump, the side must capture, with
//! any piece that can; otherwise bishop and camel captures are optional.
//! The rules' switches decide whether a multi-jump may stop early and
//! which captures a player who must capture may choose among.
//!
//! Jumped pieces stay on the board until the move ends. With short jumps
//! that changes nothing: a jumper only ever lands on squares of its
//! starting square's colour class (file and rank parity), never on a
//! jumped piece's square, and a piece is never jumped twice.

use crate::board::{first_blocker, open_ray, step, Bitboard, Color, Direction, Square};
use crate::movegen::Routes;
use crate::moves::MAX_ROUTE;

use super::position::{Kind, Position};
use super::rules::{Preference, Rules};
use super::Move;

/// The legal moves of `pos`, capture routes to the same position merged.
pub fn legal_moves(pos: &Position, rules: Rules) -> Vec<Move> {
    let mut moves = Vec::with_capacity(48);
    generate(pos, rules, Routes::Merge, &mut moves);
    moves
}

/// Puts the legal moves of `pos` in `moves` (cleared first). A side with
/// no king has lost: it has no moves.
pub fn generate(pos: &Position, rules: Rules, routes: Routes, moves: &mut Vec<Move>) {
    moves.clear();
    let us = pos.turn();
    if pos.of(us, Kind::King).is_empty() {
        return;
    }
    let gen = Gen { pos, us, enemy: pos.pieces(us.opponent()), empty: !pos.occupied(), rules, routes };
    let must_capture = gen.can_jump();
    if must_capture {
        gen.jumps(moves);
    } else {
        gen.quiet(moves);
    }
    gen.replacements(moves);
    if must_capture && rules.preference != Preference::Free {
        let most = moves.iter().map(|m| m.captured().count()).max().unwrap_or(0);
        let least = match rules.preference {
            Preference::Most => most,
            _ if most >= 2 => 2,
            _ => 1,
        };
        moves.retain(|m| m.captured().count() >= least);
    }
}

/// Whether the side to move in `pos` must capture: one of its men or
/// kings can jump.
pub fn must_capture(pos: &Position) -> bool {
    let us = pos.turn();
    let routes = Routes::Merge;
    Gen { pos, us, enemy: pos.pieces(us.opponent()), empty: !pos.occupied(), rules: Rules::default(), routes }.can_jump()
}

/// The positions from which the side that has just moved reached `pos` by
/// a quiet move (a step, slide or leap that captures nothing and promotes
/// nothing), each once: the un-moves of a retrograde solver. A quiet move
/// is legal only where its side need not capture, so predecessors where
/// it must are left out.
pub fn quiet_predecessors(pos: &Position, out: &mut Vec<Position>) {
    out.clear();
    let (us, them) = (pos.turn(), pos.turn().opponent());
    // The side that moved into a predecessor needs a king there.
    if pos.of(us, Kind::King).is_empty() {
        return;
    }
    let occupied = pos.occupied();
    let empty = !occupied;
    let mut push = |from: Square, to: Square| {
        let before = pos.shifted(from, to, them);
        if !must_capture(&before) {
            out.push(before);
        }
    };
    for from in pos.of(them, Kind::King) {
        for dir in Direction::ALL {
            if let Some(to) = step(from, dir).filter(|s| empty.contains(*s)) {
                push(from, to);
            }
        }
    }
    // A man steps forward: it came from one square behind.
    for from in pos.of(them, Kind::Man) {
        for dir in Direction::forward(them) {
            if let Some(to) = step(from, dir.reverse()).filter(|s| empty.contains(*s)) {
                push(from, to);
            }
        }
    }
    for from in pos.of(them, Kind::Bishop) {
        for dir in Direction::ALL {
            for to in open_ray(from, dir, occupied) {
                push(from, to);
            }
        }
    }
    for from in pos.of(them, Kind::Camel) {
        for to in CAMEL[from.index64() as usize] & empty {
            push(from, to);
        }
    }
}

/// Leaves of the legal-move tree at `depth` plies.
pub fn perft(pos: &Position, rules: Rules, depth: u32, routes: Routes) -> u64 {
    fn walk(pos: &Position, rules: Rules, depth: u32, routes: Routes, lists: &mut [Vec<Move>]) -> u64 {
        let (list, rest) = lists.split_first_mut().expect("one list per ply");
        if depth == 0 {
            return 1;
        }
        generate(pos, rules, routes, list);
        if depth == 1 {
            return list.len() as u64;
        }
        list.iter().map(|m| walk(&pos.play(m), rules, depth - 1, routes, rest)).sum()
    }
    let mut lists = vec![Vec::with_capacity(64); depth as usize + 1];
    walk(pos, rules, depth, routes, &mut lists)
}

/// Where a camel on each square (8x8 index) may land.
static CAMEL: [Bitboard; 64] = camel_targets();

const fn camel_targets() -> [Bitboard; 64] {
    const LEAPS: [(i8, i8); 8] = [(1, 3), (3, 1), (3, -1), (1, -3), (-1, -3), (-3, -1), (-3, 1), (-1, 3)];
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < 8 {
            let (f, r) = ((sq % 8) as i8 + LEAPS[i].0, (sq / 8) as i8 + LEAPS[i].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq].0 |= 1 << (r * 8 + f);
            }
            i += 1;
        }
        table[sq].0 &= Bitboard::DARK.0;
        sq += 1;
    }
    table
}

struct Gen<'a> {
    pos: &'a Position,
    us: Color,
    enemy: Bitboard,
    empty: Bitboard,
    rules: Rules,
    routes: Routes,
}

impl Gen<'_> {
    fn men(&self) -> Bitboard {
        self.pos.of(self.us, Kind::Man)
    }

    fn kings(&self) -> Bitboard {
        self.pos.of(self.us, Kind::King)
    }

    /// Whether a man or a king can jump: then the side must capture.
    fn can_jump(&self) -> bool {
        Direction::ALL.into_iter().any(|dir| {
            let forward = Direction::forward(self.us).contains(&dir);
            let jumpers = if forward { self.men() | self.kings() } else { self.kings() };
            ((jumpers.shift(dir) & self.enemy).shift(dir) & self.empty).has_any()
        })
    }

    /// Moves of one diagonal step for men and kings, and the bishops' and
    /// camels' moves to empty squares.
    fn quiet(&self, moves: &mut Vec<Move>) {
        let last_row = Bitboard::rank(self.us.promotion_rank());
        for dir in Direction::ALL {
            let forward = Direction::forward(self.us).contains(&dir);
            for to in self.kings().shift(dir) & self.empty {
                moves.push(quiet(to.behind(dir), to));
            }
            if forward {
                for to in self.men().shift(dir) & self.empty {
                    let promotes = last_row.contains(to);
                    push_promotions(moves, crate::Move::quiet(to.behind(dir), to, promotes));
                }
            }
        }
        for from in self.pos.of(self.us, Kind::Bishop) {
            for dir in Direction::ALL {
                moves.extend(open_ray(from, dir, !self.empty).map(|to| quiet(from, to)));
            }
        }
        for from in self.pos.of(self.us, Kind::Camel) {
            moves.extend((CAMEL[from.index64() as usize] & self.empty).map(|to| quiet(from, to)));
        }
    }

    /// Captures by replacement: a bishop's along its diagonals, a camel's.
    fn replacements(&self, moves: &mut Vec<Move>) {
        let capture = |from: Square, to: Square| Move {
            step: crate::Move::capture(from, [to; MAX_ROUTE], 1, to.bb(), false),
            promotion: None,
        };
        for from in self.pos.of(self.us, Kind::Bishop) {
            for dir in Direction::ALL {
                if let Some(to) = first_blocker(from, dir, !self.empty).filter(|b| self.enemy.contains(*b)) {
                    moves.push(capture(from, to));
                }
            }
        }
        for from in self.pos.of(self.us, Kind::Camel) {
            moves.extend((CAMEL[from.index64() as usize] & self.enemy).map(|to| capture(from, to)));
        }
    }

    /// Every jump sequence of every man and king.
    fn jumps(&self, moves: &mut Vec<Move>) {
        let forward = Direction::forward(self.us);
        for (pieces, man, dirs) in [(self.men(), true, &forward[..]), (self.kings(), false, &Direction::ALL[..])] {
            for from in pieces {
                let first = moves.len();
                Jump { from, man, dirs, route: [from; MAX_ROUTE] }.search(self, from, 0, Bitboard::EMPTY, moves);
                // Only a king can come to the same end by two routes (round a
                // loop either way): keep the first.
                if self.routes == Routes::Merge && !man {
                    let mut i = first;
                    while i < moves.len() {
                        if moves[first..i].iter().any(|o| o.step.same_outcome(&moves[i].step)) {
                            moves.remove(i);
                        } else {
                            i += 1;
                        }
                    }
                }
            }
        }
    }
}

/// One man's or king's multi-jump in progress.
struct Jump<'d> {
    from: Square,
    man: bool,
    dirs: &'d [Direction],
    route: [Square; MAX_ROUTE],
}

impl Jump<'_> {
    /// Extends the jump from `at` after `len` jumps that took `captured`.
    fn search(&mut self, gen: &Gen, at: Square, len: usize, captured: Bitboard, moves: &mut Vec<Move>) {
        let open = gen.empty.with(self.from);
        let last_row = Bitboard::rank(gen.us.promotion_rank());
        let mut extended = false;
        for &dir in self.dirs {
            let Some(over) = step(at, dir).filter(|s| gen.enemy.contains(*s) && !captured.contains(*s)) else {
                continue;
            };
            let Some(land) = step(over, dir).filter(|s| open.contains(*s)) else {
                continue;
            };
            extended = true;
            self.route[len] = land;
            let taken = captured.with(over);
            let promotes = self.man && last_row.contains(land);
            let done = crate::Move::capture(self.from, self.route, len + 1, taken, promotes);
            // Reaching the last row ends a man's move.
            if promotes {
                push_promotions(moves, done);
                continue;
            }
            if !gen.rules.finish_jumps {
                moves.push(Move { step: done, promotion: None });
            }
            self.search(gen, land, len + 1, taken, moves);
        }
        if !extended && len > 0 && gen.rules.finish_jumps {
            let done = crate::Move::capture(self.from, self.route, len, captured, false);
            moves.push(Move { step: done, promotion: None });
        }
    }
}

fn quiet(from: Square, to: Square) -> Move {
    Move { step: crate::Move::quiet(from, to, false), promotion: None }
}

/// Pushes a man's move, or, if it reaches the last row, one move for each
/// kind the man may become there.
fn push_promotions(moves: &mut Vec<Move>, step: crate::Move) {
    if step.promotes() {
        moves.extend(Kind::PROMOTIONS.map(|kind| Move { step, promotion: Some(kind) }));
    } else {
        moves.push(Move { step, promotion: None });
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::super::{Material, SliceIndex};
    use super::*;

    /// Un-moves are the quiet moves backwards: every quiet move of every
    /// position of a slice, and nothing else, comes back from the
    /// positions it leads to (those of the twin slice), for either side
    /// to move (`turn`: the positions as indexed, or colours flipped).
    #[test]
    fn quiet_predecessors_undo_exactly_the_quiet_moves() {
        for text in ["KvK", "KMvK", "KvKM", "KBvK", "KCvK"] {
            let m: Material = text.parse().unwrap();
            let (slice, twin) = (SliceIndex::new(m), SliceIndex::new(Material { own: m.opp, opp: m.own }));
            for flip in [false, true] {
                let turn = |p: Position| if flip { p } else { p.flipped() };
                let mut forward = HashSet::new();
                for i in 0..slice.size() {
                    let x = turn(slice.position(i).flipped());
                    for mv in legal_moves(&x, Rules::default()) {
                        if !mv.is_capture() && mv.promotion().is_none() {
                            assert!(forward.insert((x, x.play(&mv))), "{text}: {x:?} {mv:?} twice");
                        }
                    }
                }
                let mut backward = HashSet::new();
                let mut before = Vec::new();
                for j in 0..twin.size() {
                    let y = turn(twin.position(j));
                    quiet_predecessors(&y, &mut before);
                    for q in &before {
                        assert!(backward.insert((*q, y)), "{text}: {q:?} -> {y:?} twice");
                    }
                }
                assert!(!forward.is_empty(), "{text}");
                assert_eq!(forward, backward, "{text}, flipped: {flip}");
            }
        }
    }
}
