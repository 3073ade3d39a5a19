//! A slow, plain move generator written from the rules alone (docs/RULES.md), to
//! check damka's generator against. It shares no code with it: an 8x8 grid
//! of cells, coordinates as (file, rank), a depth-first search that walks
//! the board one square at a time.

use damka::variant::{CaptureChoice, PromotionInCapture, Rules};
use damka::{Color, Position, Role, Square, Variant};

/// A move as the reference sees it: its start, every landing square, the
/// captured pieces in the order they were jumped, and whether it crowns.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RefMove {
    pub from: Square,
    /// Landings after each capture; for a quiet move, just the target.
    pub route: Vec<Square>,
    pub captured: Vec<Square>,
    pub promotes: bool,
}

type Cell = Option<(Color, Role)>;
type Coord = (i8, i8);

const DIRECTIONS: [Coord; 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

struct Game<'a> {
    rules: &'a Rules,
    board: [[Cell; 8]; 8],
    us: Color,
}

fn square(c: Coord) -> Square {
    Square::from_coords(c.0 as u8, c.1 as u8).expect("a dark square")
}

fn on_board(c: Coord) -> bool {
    (0..8).contains(&c.0) && (0..8).contains(&c.1)
}

fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

fn last_rank(color: Color) -> i8 {
    match color {
        Color::White => 7,
        Color::Black => 0,
    }
}

/// Every legal move of `pos`, one per capture route.
pub fn moves(pos: &Position, variant: Variant) -> Vec<RefMove> {
    let mut board = [[None; 8]; 8];
    for sq in Square::all() {
        board[sq.file() as usize][sq.rank() as usize] = pos.piece_at(sq).map(|p| (p.color, p.role));
    }
    let game = Game { rules: variant.rules(), board, us: pos.turn() };
    let captures = game.best_captures();
    if captures.is_empty() {
        game.quiet_moves()
    } else {
        captures
    }
}

impl Game<'_> {
    fn cell(&self, c: Coord) -> Cell {
        self.board[c.0 as usize][c.1 as usize]
    }

    fn our_pieces(&self) -> Vec<(Coord, Role)> {
        let mut out = Vec::new();
        for f in 0..8 {
            for r in 0..8 {
                if let Some((color, role)) = self.board[f as usize][r as usize] {
                    if color == self.us {
                        out.push(((f, r), role));
                    }
                }
            }
        }
        out
    }

    fn quiet_moves(&self) -> Vec<RefMove> {
        let mut out = Vec::new();
        for (from, role) in self.our_pieces() {
            for (df, dr) in DIRECTIONS {
                if role == Role::Man && dr != forward(self.us) {
                    continue;
                }
                let mut to = (from.0 + df, from.1 + dr);
                while on_board(to) && self.cell(to).is_none() {
                    let promotes = role == Role::Man && to.1 == last_rank(self.us);
                    out.push(RefMove { from: square(from), route: vec![square(to)], captured: vec![], promotes });
                    if role == Role::Man || !self.rules.flying_kings {
                        break;
                    }
                    to = (to.0 + df, to.1 + dr);
                }
            }
        }
        out
    }

    /// All capture routes, then only those the game's precedence allows.
    fn best_captures(&self) -> Vec<RefMove> {
        let mut all = Vec::new();
        for (from, role) in self.our_pieces() {
            let mut board = self.board;
            board[from.0 as usize][from.1 as usize] = None;
            let game = Game { board, ..*self };
            let mut path = Path { from, started_king: role == Role::King, route: vec![], captured: vec![] };
            game.search(from, role == Role::King, &mut path, &mut all);
        }
        let best = all.iter().map(|c| c.1.clone()).max();
        all.into_iter().filter(|c| Some(&c.1) == best.as_ref()).map(|c| c.0).collect()
    }

    /// The jumps open to a piece on `at`: each enemy piece it can take,
    /// with the empty squares it could land on behind it.
    fn jumps(&self, at: Coord, king: bool, captured: &[Coord]) -> Vec<(Coord, Vec<Coord>)> {
        let mut out = Vec::new();
        for (df, dr) in DIRECTIONS {
            if !king && !self.rules.men_capture_backward && dr != forward(self.us) {
                continue;
            }
            let flying = king && self.rules.flying_kings;
            let mut over = (at.0 + df, at.1 + dr);
            while flying && on_board(over) && self.cell(over).is_none() {
                over = (over.0 + df, over.1 + dr);
            }
            if !on_board(over) || captured.contains(&over) {
                continue;
            }
            let Some((color, role)) = self.cell(over) else { continue };
            if color == self.us || (!king && role == Role::King && !self.rules.men_capture_kings) {
                continue;
            }
            let mut landings = Vec::new();
            let mut land = (over.0 + df, over.1 + dr);
            while on_board(land) && self.cell(land).is_none() {
                landings.push(land);
                if !flying {
                    break;
                }
                land = (land.0 + df, land.1 + dr);
            }
            if !landings.is_empty() {
                out.push((over, landings));
            }
        }
        out
    }

    fn search(&self, at: Coord, king: bool, path: &mut Path, out: &mut Vec<Candidate>) {
        let jumps = self.jumps(at, king, &path.captured);
        if jumps.is_empty() {
            if !path.route.is_empty() {
                out.push(path.finish(self, king));
            }
            return;
        }
        for (over, landings) in jumps {
            path.captured.push(over);
            // A king must land where it can go on capturing, if it can.
            let going_on: Vec<Coord> =
                landings.iter().copied().filter(|&l| !self.jumps(l, true, &path.captured).is_empty()).collect();
            let landings = if king && !going_on.is_empty() { going_on } else { landings };
            for land in landings {
                path.route.push(land);
                let reaches_last_row = !king && land.1 == last_rank(self.us);
                match (reaches_last_row, self.rules.promotion_in_capture) {
                    (true, PromotionInCapture::EndsMove) => out.push(path.finish(self, true)),
                    (true, PromotionInCapture::ContinueAsKing) => self.search(land, true, path, out),
                    _ => self.search(land, king, path, out),
                }
                path.route.pop();
            }
            path.captured.pop();
        }
    }
}

struct Path {
    from: Coord,
    started_king: bool,
    route: Vec<Coord>,
    captured: Vec<Coord>,
}

/// A capture with its precedence: only the highest are legal.
struct Candidate(RefMove, Precedence);

/// Free choice: all equal. Majority: the number of pieces. Italian:
/// (pieces, by a king, kings taken, which captures were kings in order),
/// compared in that order.
type Precedence = (usize, bool, usize, Vec<bool>);

impl Path {
    fn finish(&self, game: &Game, king_now: bool) -> Candidate {
        let to = *self.route.last().expect("a capture lands");
        let promotes = !self.started_king && (king_now || to.1 == last_rank(game.us));
        let kings: Vec<bool> =
            self.captured.iter().map(|&c| game.cell(c).is_some_and(|(_, role)| role == Role::King)).collect();
        let precedence = match game.rules.capture_choice {
            CaptureChoice::Free => (0, false, 0, vec![]),
            CaptureChoice::Majority => (self.captured.len(), false, 0, vec![]),
            CaptureChoice::Italian => {
                (self.captured.len(), self.started_king, kings.iter().filter(|&&k| k).count(), kings)
            }
        };
        let m = RefMove {
            from: square(self.from),
            route: self.route.iter().copied().map(square).collect(),
            captured: self.captured.iter().copied().map(square).collect(),
            promotes,
        };
        Candidate(m, precedence)
    }
}
