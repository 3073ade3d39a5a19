//! The rules of Cheskers as data: what is fixed, and a switch for each
//! point the published rules leave open (docs/RULES.md, "Cheskers").

use std::fmt;
use std::str::FromStr;

use crate::board::Color;

/// Black moves first (docs/RULES.md, "Cheskers").
pub const FIRST_TO_MOVE: Color = Color::Black;

/// Which captures a player who must capture may choose among. Captures by
/// a bishop or a camel take one piece; a jump takes one per jump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Preference {
    /// Any capture (damka's reading: as in English checkers, whose men and
    /// kings Cheskers takes over).
    #[default]
    Free,
    /// If some capture takes two pieces or more, captures of a single
    /// piece are not allowed (one published description, read literally).
    MultipleOverSingle,
    /// Only captures taking the most pieces (the strict reading).
    Most,
}

/// One reading of the rules of Cheskers. `Rules::default()` is damka's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// A multi-jump goes on as long as the jumping man or king can jump
    /// again (damka's reading, as in English checkers). Off: it may stop
    /// after any jump.
    pub finish_jumps: bool,
    pub preference: Preference,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules { finish_jumps: true, preference: Preference::Free }
    }
}

/// A switch's name in `--variant` and what it changes.
type Switch = (&'static str, fn(&mut Rules));

const SWITCHES: [Switch; 3] = [
    ("may-stop", |r| r.finish_jumps = false),
    ("multiple", |r| r.preference = Preference::MultipleOverSingle),
    ("most", |r| r.preference = Preference::Most),
];

impl Rules {
    /// Every reading: both jump switches, each capture preference.
    pub fn all() -> Vec<Rules> {
        let prefs = [Preference::Free, Preference::MultipleOverSingle, Preference::Most];
        [true, false]
            .into_iter()
            .flat_map(|finish_jumps| prefs.map(|preference| Rules { finish_jumps, preference }))
            .collect()
    }
}

/// `cheskers`, then `+may-stop`, `+multiple` or `+most` for each switch
/// away from damka's reading: the name `--variant` takes.
impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cheskers")?;
        if !self.finish_jumps {
            f.write_str("+may-stop")?;
        }
        match self.preference {
            Preference::Free => Ok(()),
            Preference::MultipleOverSingle => f.write_str("+multiple"),
            Preference::Most => f.write_str("+most"),
        }
    }
}

/// A name that is not Cheskers or names an unknown switch.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a reading of Cheskers: expected cheskers, optionally followed by +may-stop (a multi-jump may stop after any jump) and one of +multiple (a multiple capture before a single one) or +most (the most pieces)")]
pub struct UnknownRules(pub String);

impl FromStr for Rules {
    type Err = UnknownRules;

    fn from_str(text: &str) -> Result<Rules, UnknownRules> {
        let unknown = || UnknownRules(crate::fen::excerpt(text));
        let mut words = text.split('+');
        if !words.next().is_some_and(|w| w.eq_ignore_ascii_case("cheskers")) {
            return Err(unknown());
        }
        let mut rules = Rules::default();
        for word in words {
            let (_, switch) = SWITCHES.iter().find(|(name, _)| name.eq_ignore_ascii_case(word)).ok_or_else(unknown)?;
            let before = rules;
            switch(&mut rules);
            if rules == before || (before.preference != Preference::Free && rules.preference != before.preference) {
                return Err(unknown());
            }
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_are_refused() {
        for rules in Rules::all() {
            assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
        }
        assert_eq!("Cheskers".parse::<Rules>(), Ok(Rules::default()));
        for bad in ["russian", "cheskers+", "cheskers+most+multiple", "cheskers+may-stop+may-stop", "cheskersx"] {
            assert!(bad.parse::<Rules>().is_err(), "{bad}");
        }
    }
}
