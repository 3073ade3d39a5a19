//! The games of the 8x8 draughts family, each a small set of constants.
//!
//! Everything that differs between the games is here; the move generator
//! reads these fields and never asks which game it is playing.

use std::fmt;
use std::str::FromStr;

use crate::board::Color;

/// Which capture sequences a player may choose among.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureChoice {
    /// Any capture (Russian, Pool, English).
    Free,
    /// Only sequences taking the most pieces, kings and men alike (Brazilian).
    Majority,
    /// Italian precedence: most pieces, then a king capturing, then most
    /// kings taken, then the sequence that meets a king first.
    Italian,
}

/// What happens when a man reaches the last row in the middle of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromotionInCapture {
    /// It becomes a king at once and goes on capturing as a king (Russian).
    ContinueAsKing,
    /// It goes on as a man; it is crowned only if the move ends there
    /// (Brazilian, Pool).
    ContinueAsMan,
    /// It is crowned and the move ends (English, Italian).
    EndsMove,
}

/// How square numbers are laid out for numeric notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbering {
    /// PDN: 1 = b8 ... 32 = g1, row by row from the top as White sees it.
    Pdn,
    /// The Italian board is the mirror image: 1 is the top-left square of
    /// the Italian board, which is the mirror of h8.
    Italian,
}

/// The rules of one game, as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub name: &'static str,
    pub first_to_move: Color,
    pub men_capture_backward: bool,
    /// Kings move and capture any distance along a diagonal.
    pub flying_kings: bool,
    pub capture_choice: CaptureChoice,
    pub promotion_in_capture: PromotionInCapture,
    /// Italian men may not capture kings.
    pub men_capture_kings: bool,
    /// Algebraic move text (`c3-d4`, `c3:e5`) rather than numeric (`9-14`).
    pub algebraic_notation: bool,
    pub numbering: Numbering,
}

/// A game of the family. `Russian` is the default everywhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    #[default]
    Russian,
    Brazilian,
    Pool,
    English,
    Italian,
}

// docs/RULES.md, "Russian draughts": flying kings, men capture backward, free
// choice, a man promoted mid-capture goes on as a king.
const RUSSIAN: Rules = Rules {
    name: "russian",
    first_to_move: Color::White,
    men_capture_backward: true,
    flying_kings: true,
    capture_choice: CaptureChoice::Free,
    promotion_in_capture: PromotionInCapture::ContinueAsKing,
    men_capture_kings: true,
    algebraic_notation: true,
    numbering: Numbering::Pdn,
};

// docs/RULES.md, "The other games": the majority rule, promotion only at the
// end of the move.
const BRAZILIAN: Rules = Rules {
    name: "brazilian",
    capture_choice: CaptureChoice::Majority,
    promotion_in_capture: PromotionInCapture::ContinueAsMan,
    ..RUSSIAN
};

const POOL: Rules = Rules {
    name: "pool",
    first_to_move: Color::Black,
    promotion_in_capture: PromotionInCapture::ContinueAsMan,
    algebraic_notation: false,
    ..RUSSIAN
};

const ENGLISH: Rules = Rules {
    name: "english",
    first_to_move: Color::Black,
    men_capture_backward: false,
    flying_kings: false,
    capture_choice: CaptureChoice::Free,
    promotion_in_capture: PromotionInCapture::EndsMove,
    men_capture_kings: true,
    algebraic_notation: false,
    numbering: Numbering::Pdn,
};

const ITALIAN: Rules = Rules {
    name: "italian",
    first_to_move: Color::White,
    capture_choice: CaptureChoice::Italian,
    men_capture_kings: false,
    numbering: Numbering::Italian,
    ..ENGLISH
};

impl Variant {
    pub const ALL: [Variant; 5] =
        [Variant::Russian, Variant::Brazilian, Variant::Pool, Variant::English, Variant::Italian];

    #[inline]
    pub fn rules(self) -> &'static Rules {
        match self {
            Variant::Russian => &RUSSIAN,
            Variant::Brazilian => &BRAZILIAN,
            Variant::Pool => &POOL,
            Variant::English => &ENGLISH,
            Variant::Italian => &ITALIAN,
        }
    }

    pub fn name(self) -> &'static str {
        self.rules().name
    }

    /// A stable number for file headers.
    pub fn id(self) -> u8 {
        self as u8
    }

    pub fn from_id(id: u8) -> Option<Variant> {
        Variant::ALL.get(id as usize).copied()
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown variant name. Cheskers, a game of its own that some
/// commands take and others do not, gets a message of its own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", unknown_variant_message(.0))]
pub struct UnknownVariant(pub String);

fn unknown_variant_message(name: &str) -> String {
    if name.split('+').next().is_some_and(|game| game.eq_ignore_ascii_case("cheskers")) {
        format!(
            "'{name}': this command is for the draughts games; Cheskers is played by `damka perft` and \
             `damka moves`, and its tables are built and read by generate, verify, stats, probe, info and audit \
             (--variant cheskers)"
        )
    } else {
        format!("unknown variant '{name}' (expected one of: russian, brazilian, pool, english, italian)")
    }
}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}
