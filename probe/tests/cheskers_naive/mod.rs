//! A second Cheskers move generator, written from docs/RULES.md alone to
//! check the real one: an 8x8 array of cells, one move at a time, every
//! move a new board. It shares no code with damka's generator; only the
//! start position's FEN comes from damka, read here by its own parser.
//!
//! It takes the other reading where two give the same game: jumped pieces
//! leave the board at once (damka removes them when the move ends).

use std::collections::HashSet;

/// A cell: empty, or a piece of White (upper case) or Black (lower case):
/// M man, K king, B bishop, C camel.
pub type Cell = Option<char>;

/// The board by `[file][rank]` (a1 = `[0][0]`) and the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Board {
    pub cells: [[Cell; 8]; 8],
    pub white_to_move: bool,
}

/// The reading of the open points, as plain flags.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    pub finish_jumps: bool,
    /// "free", "multiple" (a capture of several pieces goes before a single
    /// one) or "most" (the most pieces).
    pub preference: &'static str,
}

/// A move as its squares (start, then each landing), its promotion and
/// the board it leads to.
pub type Outcome = (Vec<(i8, i8)>, Cell, Board);

fn is_white(c: char) -> bool {
    c.is_ascii_uppercase()
}

fn on_board(f: i8, r: i8) -> bool {
    (0..8).contains(&f) && (0..8).contains(&r)
}

impl Board {
    /// Reads a FEN with square names only: `B:WKc1,a3:BKd8,a7`.
    pub fn from_fen(text: &str) -> Board {
        let parts: Vec<&str> = text.split(':').collect();
        let mut cells = [[None; 8]; 8];
        for part in &parts[1..] {
            let white = part.starts_with('W');
            for token in part[1..].split(',').filter(|t| !t.is_empty()) {
                let (kind, name) = match token.as_bytes()[0] {
                    b'K' | b'B' | b'C' => (token.as_bytes()[0] as char, &token[1..]),
                    _ => ('M', token),
                };
                let (f, r) = (name.as_bytes()[0] - b'a', name.as_bytes()[1] - b'1');
                cells[f as usize][r as usize] = Some(if white { kind } else { kind.to_ascii_lowercase() });
            }
        }
        Board { cells, white_to_move: parts[0] == "W" }
    }

    pub fn at(&self, f: i8, r: i8) -> Cell {
        self.cells[f as usize][r as usize]
    }

    fn set(&mut self, f: i8, r: i8, c: Cell) {
        self.cells[f as usize][r as usize] = c;
    }

    fn mine(&self, c: Cell) -> bool {
        c.is_some_and(|c| is_white(c) == self.white_to_move)
    }

    fn theirs(&self, c: Cell) -> bool {
        c.is_some_and(|c| is_white(c) != self.white_to_move)
    }

    fn pieces(&self, white: bool) -> usize {
        self.cells.iter().flatten().filter(|c| c.is_some_and(|c| is_white(c) == white)).count()
    }

    /// This side's piece of `kind` (upper case).
    fn own(&self, kind: char) -> char {
        if self.white_to_move { kind } else { kind.to_ascii_lowercase() }
    }

    /// The diagonal steps a man or king on (f, r) may take.
    fn steps(&self, f: i8, r: i8) -> Vec<(i8, i8)> {
        let forward = if self.white_to_move { 1 } else { -1 };
        match self.at(f, r).map(|c| c.to_ascii_uppercase()) {
            Some('M') => vec![(1, forward), (-1, forward)],
            Some('K') => vec![(1, 1), (1, -1), (-1, 1), (-1, -1)],
            _ => vec![],
        }
    }

    /// The board after the move, with the other side to move.
    fn passed(mut self) -> Board {
        self.white_to_move = !self.white_to_move;
        self
    }

    /// Every legal move, one per route (the "paths" count).
    pub fn moves(&self, reading: Reading) -> Vec<Outcome> {
        let king = |c: Cell| c.is_some_and(|c| c.eq_ignore_ascii_case(&'K'));
        let has_king = self.cells.iter().flatten().any(|&c| self.mine(c) && king(c));
        if !has_king {
            return vec![];
        }
        let mut jumps = Vec::new();
        let mut others = Vec::new();
        for f in 0..8 {
            for r in 0..8 {
                if !self.mine(self.at(f, r)) {
                    continue;
                }
                let mut lifted = *self;
                lifted.set(f, r, None);
                self.jumps_from(lifted, self.at(f, r).unwrap(), vec![(f, r)], reading, &mut jumps);
                self.others_from(f, r, &mut others);
            }
        }
        if jumps.is_empty() {
            return others;
        }
        // A man or king can jump: capture, with any piece that can.
        let theirs_before = self.pieces(!self.white_to_move);
        let taken = |o: &Outcome| theirs_before - o.2.pieces(!self.white_to_move);
        let replacements = others.into_iter().filter(|o| taken(o) == 1);
        let mut captures: Vec<Outcome> = jumps.into_iter().chain(replacements).collect();
        let most = captures.iter().map(taken).max().unwrap();
        match reading.preference {
            "free" => {}
            "multiple" => captures.retain(|o| most < 2 || taken(o) >= 2),
            "most" => captures.retain(|o| taken(o) == most),
            other => panic!("unknown preference {other}"),
        }
        captures
    }

    /// Jumps of the piece `piece`, lifted from the board, that has come by
    /// `route`; jumped pieces go at once.
    fn jumps_from(&self, board: Board, piece: char, route: Vec<(i8, i8)>, reading: Reading, out: &mut Vec<Outcome>) {
        let (f, r) = *route.last().unwrap();
        let mut on = board;
        on.set(f, r, Some(piece));
        let mut went_on = false;
        for (df, dr) in on.steps(f, r) {
            let (of, or, lf, lr) = (f + df, r + dr, f + 2 * df, r + 2 * dr);
            if !on_board(lf, lr) || !board.theirs(board.at(of, or)) || board.at(lf, lr).is_some() {
                continue;
            }
            went_on = true;
            let mut next = board;
            next.set(of, or, None);
            let mut path = route.clone();
            path.push((lf, lr));
            let last_row = if board.white_to_move { 7 } else { 0 };
            if piece.eq_ignore_ascii_case(&'M') && lr == last_row {
                for kind in ['K', 'B', 'C'] {
                    let mut done = next;
                    done.set(lf, lr, Some(board.own(kind)));
                    out.push((path.clone(), Some(kind), done.passed()));
                }
                continue;
            }
            if !reading.finish_jumps {
                let mut done = next;
                done.set(lf, lr, Some(piece));
                out.push((path.clone(), None, done.passed()));
            }
            self.jumps_from(next, piece, path, reading, out);
        }
        if !went_on && route.len() > 1 && reading.finish_jumps {
            out.push((route, None, on.passed()));
        }
    }

    /// Steps of men and kings, slides and captures of bishops, leaps and
    /// captures of camels.
    fn others_from(&self, f: i8, r: i8, out: &mut Vec<Outcome>) {
        let piece = self.at(f, r).unwrap();
        let mut go = |tf: i8, tr: i8, promotion: Cell| {
            let mut next = *self;
            next.set(f, r, None);
            next.set(tf, tr, Some(promotion.map_or(piece, |k| self.own(k))));
            out.push((vec![(f, r), (tf, tr)], promotion, next.passed()));
        };
        let last_row = if self.white_to_move { 7 } else { 0 };
        match piece.to_ascii_uppercase() {
            'M' | 'K' => {
                for (df, dr) in self.steps(f, r) {
                    let (tf, tr) = (f + df, r + dr);
                    if !on_board(tf, tr) || self.at(tf, tr).is_some() {
                        continue;
                    }
                    if piece.eq_ignore_ascii_case(&'M') && tr == last_row {
                        for kind in ['K', 'B', 'C'] {
                            go(tf, tr, Some(kind));
                        }
                    } else {
                        go(tf, tr, None);
                    }
                }
            }
            'B' => {
                for (df, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    let (mut tf, mut tr) = (f + df, r + dr);
                    while on_board(tf, tr) && self.at(tf, tr).is_none() {
                        go(tf, tr, None);
                        tf += df;
                        tr += dr;
                    }
                    if on_board(tf, tr) && self.theirs(self.at(tf, tr)) {
                        go(tf, tr, None);
                    }
                }
            }
            _ => {
                for (df, dr) in [(1, 3), (3, 1), (3, -1), (1, -3), (-1, -3), (-3, -1), (-3, 1), (-1, 3)] {
                    let (tf, tr) = (f + df, r + dr);
                    if on_board(tf, tr) && !self.mine(self.at(tf, tr)) {
                        go(tf, tr, None);
                    }
                }
            }
        }
    }

    /// Leaves at `depth`: every route a move (`paths`), or routes to the
    /// same board once.
    pub fn perft(&self, reading: Reading, depth: u32, paths: bool) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = self.moves(reading);
        if !paths {
            let mut seen = HashSet::new();
            moves.retain(|m| seen.insert(m.2));
        }
        moves.iter().map(|m| m.2.perft(reading, depth - 1, paths)).sum()
    }
}
