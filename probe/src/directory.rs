//! What a directory of tables says about itself (docs/FORMAT.md,
//! "Directory"): the manifest `damka.toml` names the one variant and the one
//! rule set the directory's tables are built for, and carries the rule
//! file's text, so that probing with move-limit counters needs no rule file
//! beside the tables. File names do not carry the rule set: the manifest is
//! what keeps a build from landing on tables of another.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::format::FORMAT_VERSION;
use crate::probe::RuleSetId;
use crate::rules::RuleSet;
use crate::game::Game;

/// The manifest's file name in a directory of tables.
pub const MANIFEST_NAME: &str = "damka.toml";

/// What a directory of tables holds.
#[derive(Clone, Debug)]
pub struct Manifest {
    pub game: Game,
    /// The table format version the files are written in
    /// ([`FORMAT_VERSION`] when this damka writes them).
    pub format: u16,
    /// The rule set, read back from the text the manifest carries.
    pub rules: RuleSet,
}

/// The manifest as it is stored (TOML).
#[derive(Serialize, Deserialize)]
struct Stored {
    variant: String,
    format: u16,
    rules_name: String,
    /// Sixteen hex digits: the xxh3-64 the table headers record.
    rules_hash: String,
    rules_text: String,
}

/// A manifest that cannot be read or written.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read or write {}: {error}", path.display())]
    Io { path: PathBuf, error: Arc<io::Error> },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

impl Manifest {
    /// The manifest of a directory of `game` tables built now with `rules`.
    pub fn new(game: impl Into<Game>, rules: RuleSet) -> Manifest {
        Manifest { game: game.into(), format: FORMAT_VERSION, rules }
    }

    /// Where the manifest of `dir` is.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(MANIFEST_NAME)
    }

    /// The rule set as table headers record it.
    pub fn rules_id(&self) -> RuleSetId {
        RuleSetId { name: self.rules.name.clone(), hash: self.rules.hash }
    }

    /// Reads the manifest of `dir`; `None` where there is none (an empty
    /// directory, or one written before manifests).
    pub fn read(dir: &Path) -> Result<Option<Manifest>, ManifestError> {
        let path = Manifest::path(dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ManifestError::Io { path, error: Arc::new(e) }),
        };
        Manifest::parse(&text).map(Some).map_err(|message| ManifestError::Invalid { path, message })
    }

    fn parse(text: &str) -> Result<Manifest, String> {
        let stored: Stored = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let game = stored.variant.parse::<Game>().map_err(|e| e.to_string())?;
        let hash = Some(&stored.rules_hash)
            .filter(|h| h.len() == 16)
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| format!("rules_hash '{}' is not 16 hex digits", stored.rules_hash))?;
        let rules = RuleSet::parse(&stored.rules_text).map_err(|e| format!("rules_text: {e}"))?;
        let named = RuleSetId { name: stored.rules_name, hash };
        let carried = RuleSetId { name: rules.name.clone(), hash: rules.hash };
        if named != carried {
            return Err(format!("rules_text is rule set {carried}, not {named} as rules_name and rules_hash say"));
        }
        Ok(Manifest { game, format: stored.format, rules })
    }

    /// The manifest as stored.
    pub fn to_text(&self) -> String {
        let stored = Stored {
            variant: self.game.to_string(),
            format: self.format,
            rules_name: self.rules.name.clone(),
            rules_hash: format!("{:016x}", self.rules.hash),
            rules_text: self.rules.text.clone(),
        };
        toml::to_string_pretty(&stored).expect("strings and a number serialize")
    }

    /// Writes the manifest into `dir`, replacing any: a reader sees the old
    /// manifest or the new one, never part of one.
    pub fn write(&self, dir: &Path) -> Result<(), ManifestError> {
        let path = Manifest::path(dir);
        write_atomically(&path, self.to_text().as_bytes()).map_err(|e| ManifestError::Io { path, error: Arc::new(e) })
    }
}

/// Writes `bytes` to `path` under the temporary name [`temporary_path`],
/// then renames it into place, so that a file under its final name is
/// always whole.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temporary_path(path);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// `<file name>.tmp` beside `path`: every file has a temporary name of its
/// own (a slice's `.wdl` and `.dtc` once shared one, and two runs swapped
/// their contents).
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> Manifest {
        let manifest = Manifest::new(crate::Variant::Brazilian, RuleSet::parse(text).expect("valid rules"));
        let back = Manifest::parse(&manifest.to_text()).expect("a written manifest reads back");
        assert_eq!(back.game, Game::Draughts(crate::Variant::Brazilian));
        assert_eq!(back.format, FORMAT_VERSION);
        assert_eq!(back.rules.text, text, "the rule file's text comes back byte for byte");
        assert_eq!(back.rules_id(), manifest.rules_id());
        back
    }

    #[test]
    fn the_rules_text_round_trips_exactly() {
        for name in RuleSet::preset_names() {
            round_trip(&RuleSet::preset(name).unwrap().text);
        }
        // Quotes of every kind, tabs, trailing blanks, CRLF, no final newline.
        let odd = "name = \"odd\" \t\r\n# ''' \"\"\" \\ \u{e9}\r\n[[rule]]\nname = \"r\"\ntext = '''a\n  b  '''\ncounter = \"quiet\"\nlimit_plies = 9";
        assert_eq!(round_trip(odd).rules.rules[0].limit_plies, Some(9));
    }

    #[test]
    fn a_manifest_whose_text_and_hash_disagree_is_refused() {
        let text = Manifest::new(crate::Variant::Russian, RuleSet::preset("russian").unwrap()).to_text();
        let edited = text.replacen("limit_plies = 60", "limit_plies = 62", 1);
        assert_ne!(edited, text);
        let err = Manifest::parse(&edited).unwrap_err();
        assert!(err.contains("rules_text is rule set russian"), "{err}");
        let format_line = format!("format = {FORMAT_VERSION}");
        for (from, to, needle) in [
            ("variant = \"russian\"", "variant = \"chess\"", "unknown variant 'chess'"),
            ("rules_hash = \"", "rules_hash = \"x", "16 hex digits"),
            (format_line.as_str(), "format = \"two\"", ""),
        ] {
            assert!(text.contains(from), "{from}");
            let err = Manifest::parse(&text.replacen(from, to, 1)).unwrap_err();
            assert!(err.contains(needle), "{from}: {err}");
        }
    }

    #[test]
    fn temporary_names_are_per_file() {
        let wdl = temporary_path(Path::new("d/russian-KvK.wdl"));
        let dtc = temporary_path(Path::new("d/russian-KvK.dtc"));
        assert_eq!(wdl, Path::new("d/russian-KvK.wdl.tmp"));
        assert_ne!(wdl, dtc);
    }
}
