//! Legal move generation for every game of the family.
//!
//! Captures are compulsory: if the side to move has one, only captures are
//! generated, filtered by the game's capture choice. A capture is searched
//! piece by piece with the Turkish strike rule: jumped pieces stay on the
//! board until the move ends, block the way and cannot be jumped twice.
//!
//! Everything is done on bitboards: quiet men moves are whole-board shifts,
//! a flying king's reach along a diagonal is [`open_ray`], and
//! [`count_moves`] counts quiet moves with popcounts, without building them
//! (perft's last ply).

use crate::board::{first_blocker, open_ray, Bitboard, Color, Direction, Square};
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
    let capturers = capturers(pos, rules);
    if capturers.has_any() {
        generate_captures(pos, rules, routes, capturers, moves);
    } else {
        generate_quiet(pos, rules, moves);
    }
}

/// The number of legal moves of `pos`: what [`generate`] would give.
pub fn count_moves(pos: &Position, variant: Variant, routes: Routes) -> usize {
    count_moves_with(pos, variant, routes, &mut Vec::new())
}

/// [`count_moves`] with a list to reuse for captures, which are still
/// generated (merging identical routes needs them).
pub(crate) fn count_moves_with(
    pos: &Position,
    variant: Variant,
    routes: Routes,
    scratch: &mut Vec<Move>,
) -> usize {
    let rules = variant.rules();
    let capturers = capturers(pos, rules);
    let n = if capturers.has_any() {
        scratch.clear();
        generate_captures(pos, rules, routes, capturers, scratch);
        scratch.len()
    } else {
        count_quiet(pos, rules)
    };
    debug_assert_eq!(n, {
        let mut all = Vec::new();
        generate(pos, variant, routes, &mut all);
        all.len()
    });
    n
}

/// Appends the captures of `pos` to `moves` (cleared first) if its side
/// to move must capture, and says whether it must: [`has_capture`] and
/// [`generate`] in one, finding the capturing pieces once.
pub fn capture_moves(pos: &Position, variant: Variant, routes: Routes, moves: &mut Vec<Move>) -> bool {
    moves.clear();
    let rules = variant.rules();
    let capturers = capturers(pos, rules);
    if capturers.has_any() {
        generate_captures(pos, rules, routes, capturers, moves);
    }
    capturers.has_any()
}

/// Whether the side to move must capture.
pub fn has_capture(pos: &Position, variant: Variant) -> bool {
    can_capture(pos, pos.turn(), variant.rules())
}

/// Whether the side *not* to move could capture, were it its turn: a
/// threat the side to move faces.
pub fn is_threatened(pos: &Position, variant: Variant) -> bool {
    can_capture(pos, pos.turn().opponent(), variant.rules())
}

/// The pieces of the side to move that can capture.
fn capturers(pos: &Position, rules: &Rules) -> Bitboard {
    find_capturers::<false>(pos, pos.turn(), rules)
}

/// Whether a piece of `us` could capture: [`capturers`] stopping at the
/// first found (most of a capture test's time is flying kings'
/// rays, and a threat tested during the search for settled threats
/// mostly stands).
fn can_capture(pos: &Position, us: Color, rules: &Rules) -> bool {
    find_capturers::<true>(pos, us, rules).has_any()
}

/// Pieces of `us` that could capture: all, or with `FIRST` at least one
/// if any can.
#[inline(always)]
fn find_capturers<const FIRST: bool>(pos: &Position, us: Color, rules: &Rules) -> Bitboard {
    let them = pos.pieces(us.opponent());
    let empty = pos.empty();
    let man_targets = if rules.men_capture_kings { them } else { them & !pos.all_kings() };
    let mut found = jumpers(pos.men(us), man_targets, empty, |dir| may_capture(rules, us, dir));
    let kings = pos.kings(us);
    if kings.is_empty() || FIRST && found.has_any() {
        return found;
    }
    if rules.flying_kings {
        let occupied = pos.occupied();
        for k in kings {
            if Direction::ALL.iter().any(|&dir| flying_target(k, dir, occupied, them).is_some()) {
                found = found.with(k);
                if FIRST {
                    return found;
                }
            }
        }
    } else {
        found |= jumpers(kings, them, empty, |_| true);
    }
    found
}

/// The positions from which the side that just moved could have reached
/// `pos` with a quiet king move (the solver's un-moves). Whether that side
/// was free to make a quiet move there (no capture pending) is for the
/// caller to check.
pub fn king_retractions(pos: &Position, variant: Variant, out: &mut Vec<Position>) {
    out.clear();
    let them = pos.turn().opponent();
    let flying = variant.rules().flying_kings;
    for to in pos.kings(them) {
        // A king move is its own reverse: it came from where it could go.
        for from in king_steps(to, pos.occupied(), flying) {
            out.push(pos.unplay_king_move(from, to));
        }
    }
}

/// Whether a man of `us` captures in `dir`.
#[inline]
fn may_capture(rules: &Rules, us: Color, dir: Direction) -> bool {
    rules.men_capture_backward || dir.is_northward() == (us == Color::White)
}

/// The pieces among `pieces` that can jump one of `targets`, adjacent in a
/// direction `dir_ok` allows, to the empty square behind it.
#[inline]
fn jumpers(pieces: Bitboard, targets: Bitboard, empty: Bitboard, dir_ok: impl Fn(Direction) -> bool) -> Bitboard {
    let mut found = Bitboard::EMPTY;
    for dir in Direction::ALL {
        if dir_ok(dir) {
            let back = dir.reverse();
            found |= (empty.shift(back) & targets).shift(back) & pieces;
        }
    }
    found
}

/// For a flying king on `from` looking along `dir`: the piece of `targets`
/// it could jump, if the first occupied square holds one and the square
/// behind it is empty.
#[inline]
fn flying_target(from: Square, dir: Direction, occupied: Bitboard, targets: Bitboard) -> Option<Square> {
    let over = first_blocker(from, dir, occupied)?;
    (targets.contains(over) && (over.bb().shift(dir) & !occupied).has_any()).then_some(over)
}

/// Where a king on `from` can move without capturing.
#[inline]
fn king_steps(from: Square, occupied: Bitboard, flying: bool) -> Bitboard {
    let mut to = Bitboard::EMPTY;
    for dir in Direction::ALL {
        to |= if flying { open_ray(from, dir, occupied) } else { from.bb().shift(dir) & !occupied };
    }
    to
}

fn count_quiet(pos: &Position, rules: &Rules) -> usize {
    let us = pos.turn();
    let empty = pos.empty();
    let men = pos.men(us);
    let [left, right] = Direction::forward(us);
    let mut n = (men.shift(left) & empty).count() + (men.shift(right) & empty).count();
    for from in pos.kings(us) {
        n += king_steps(from, pos.occupied(), rules.flying_kings).count();
    }
    n as usize
}

fn generate_quiet(pos: &Position, rules: &Rules, moves: &mut Vec<Move>) {
    let us = pos.turn();
    let empty = pos.empty();
    let promotion_row = Bitboard::rank(us.promotion_rank());
    for dir in Direction::forward(us) {
        for to in pos.men(us).shift(dir) & empty {
            moves.push(Move::quiet(to.behind(dir), to, promotion_row.contains(to)));
        }
    }
    for from in pos.kings(us) {
        for to in king_steps(from, pos.occupied(), rules.flying_kings) {
            moves.push(Move::quiet(from, to, false));
        }
    }
}

/// The captures of the pieces in `movers`, the game's precedence applied.
fn generate_captures(pos: &Position, rules: &Rules, routes: Routes, movers: Bitboard, moves: &mut Vec<Move>) {
    let us = pos.turn();
    let mut search = CaptureSearch {
        rules,
        us,
        them: pos.pieces(us.opponent()),
        their_kings: pos.kings(us.opponent()),
        occupied: Bitboard::EMPTY,
        from: Square::from_dense(0),
        started_as_king: false,
        route: [Square::from_dense(0); MAX_ROUTE],
        depth: 0,
        merge: routes == Routes::Merge,
        best: 0,
        moves,
    };
    for from in movers {
        search.from = from;
        search.occupied = pos.occupied().without(from);
        search.started_as_king = pos.all_kings().contains(from);
        search.search(from, search.started_as_king, Bitboard::EMPTY, 0);
    }
}

struct CaptureSearch<'a> {
    rules: &'a Rules,
    us: Color,
    them: Bitboard,
    their_kings: Bitboard,
    /// Every piece but the moving one; jumped pieces stay until the end.
    occupied: Bitboard,
    from: Square,
    started_as_king: bool,
    route: [Square; MAX_ROUTE],
    depth: usize,
    merge: bool,
    /// The highest precedence key recorded so far (always 0 under free
    /// choice); only moves with this key are kept.
    best: u32,
    moves: &'a mut Vec<Move>,
}

impl CaptureSearch<'_> {
    /// The pieces a man (or a king) may still jump.
    #[inline]
    fn targets(&self, king: bool, captured: Bitboard) -> Bitboard {
        let mut targets = self.them & !captured;
        if !king && !self.rules.men_capture_kings {
            targets &= !self.their_kings;
        }
        targets
    }

    /// Continues a capture from `sq`; records the move where it cannot go
    /// on. `kings_met` marks, from the highest bit down, which captured
    /// pieces were kings (for the Italian precedence).
    fn search(&mut self, sq: Square, king: bool, captured: Bitboard, kings_met: u32) {
        let went_on = if king && self.rules.flying_kings {
            self.flying_jumps(sq, captured, kings_met)
        } else {
            self.short_jumps(sq, king, captured, kings_met)
        };
        if !went_on && self.depth > 0 {
            self.record(king, captured, kings_met);
        }
    }

    /// Jumps over an adjacent piece (men, and kings that do not fly).
    fn short_jumps(&mut self, sq: Square, king: bool, captured: Bitboard, kings_met: u32) -> bool {
        // Every landing square at once: one branch per jump found rather
        // than one per direction looked at.
        let targets = self.targets(king, captured);
        let mut landings = Bitboard::EMPTY;
        for dir in Direction::ALL {
            if king || may_capture(self.rules, self.us, dir) {
                landings |= (sq.bb().shift(dir) & targets).shift(dir);
            }
        }
        landings &= !self.occupied;
        for land in landings {
            let over = sq.midpoint(land);
            let kings_met = self.mark(over, kings_met);
            let captured = captured.with(over);
            self.push(land);
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
        }
        landings.has_any()
    }

    /// A flying king's jumps. Along each diagonal it may land on any empty
    /// square behind the jumped piece, but only on those from which the
    /// capture goes on, if there are such.
    fn flying_jumps(&mut self, sq: Square, captured: Bitboard, kings_met: u32) -> bool {
        let targets = self.targets(true, captured);
        let mut went_on = false;
        for dir in Direction::ALL {
            let Some(over) = flying_target(sq, dir, self.occupied, targets) else { continue };
            went_on = true;
            let landings = open_ray(over, dir, self.occupied);
            let captured = captured.with(over);
            let kings_met = self.mark(over, kings_met);
            let mut going_on = Bitboard::EMPTY;
            for land in landings {
                if self.king_can_capture(land, captured) {
                    going_on = going_on.with(land);
                }
            }
            for land in if going_on.has_any() { going_on } else { landings } {
                self.push(land);
                if going_on.has_any() {
                    self.search(land, true, captured, kings_met);
                } else {
                    self.record(true, captured, kings_met);
                }
                self.depth -= 1;
            }
        }
        went_on
    }

    fn king_can_capture(&self, sq: Square, captured: Bitboard) -> bool {
        // Jumped pieces still stand: they block like any other piece.
        let targets = self.targets(true, captured);
        Direction::ALL.iter().any(|&dir| flying_target(sq, dir, self.occupied, targets).is_some())
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

    /// Keeps the finished capture if its precedence is the best so far
    /// (dropping those it beats) and, when merging, if no move with the
    /// same outcome is kept already.
    fn record(&mut self, king_now: bool, captured: Bitboard, kings_met: u32) {
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
        if key < self.best {
            return;
        }
        if key > self.best {
            self.moves.clear();
            self.best = key;
        }
        let to = self.route[self.depth - 1];
        let promotes =
            !self.started_as_king && (king_now || to.rank() == self.us.promotion_rank());
        let m = Move::capture(self.from, self.route, self.depth, captured, promotes);
        if self.merge && self.moves.iter().any(|kept| kept.same_outcome(&m)) {
            return;
        }
        self.moves.push(m);
    }
}
