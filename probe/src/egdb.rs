//! The egdb driver interface for English checkers (include/damka_egdb.h):
//! `egdb_open` and a handle of function pointers, the shape of the
//! KingsRow endgame driver, so that English engines written against it
//! can probe damka's tables unchanged.
//!
//! Positions are three 32-bit bitboards (black, white, king) with bit n-1
//! for square n of the standard English numbering (Black's men start on
//! 1-12, White's on 21-32), which is damka's PDN numbering: the masks of
//! damka.h, with colours named separately. Values map to the driver's
//! codes under the rule set the tables were built with: a cursed win and
//! a blessed loss are draws under those rules (docs/ENGINES.md).
//!
//! No panic crosses into C: every entry point runs under `catch_unwind`;
//! a lookup that fails for any reason answers `EGDB_UNKNOWN`.

use std::ffi::{c_char, c_int, c_uint, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr;
use std::sync::Mutex;

use crate::capi::position_from_masks;
use crate::probe::{Cached, OpenOptions, ProbeError, Tablebase};
use crate::tally::Tally;
use crate::value::Wdl;
use crate::variant::Variant;

pub const EGDB_BLACK: c_int = 0;
pub const EGDB_WHITE: c_int = 1;

pub const EGDB_NOT_IN_CACHE: c_int = -1;
pub const EGDB_UNKNOWN: c_int = 0;
pub const EGDB_WIN: c_int = 1;
pub const EGDB_LOSS: c_int = 2;
pub const EGDB_DRAW: c_int = 3;

type MsgFn = Option<unsafe extern "C" fn(*const c_char)>;

#[repr(C)]
pub struct EgdbPosition {
    pub black: u32,
    pub white: u32,
    pub king: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct EgdbStats {
    pub lru_cache_hits: c_uint,
    pub lru_cache_loads: c_uint,
    pub autoload_hits: c_uint,
    pub db_requests: c_uint,
    pub db_returns: c_uint,
    pub db_not_present_requests: c_uint,
    pub avg_ht_list_length: f32,
}

#[repr(C)]
pub struct EgdbVerifyMsgs {
    pub crc_failed: [c_char; 80],
    pub ok: [c_char; 80],
    pub errors: [c_char; 80],
    pub no_errors: [c_char; 80],
}

/// The handle engines hold: function pointers, then damka's state.
#[repr(C)]
pub struct EgdbDriver {
    pub lookup: unsafe extern "C" fn(*mut EgdbDriver, *mut EgdbPosition, c_int, c_int) -> c_int,
    pub reset_stats: unsafe extern "C" fn(*mut EgdbDriver),
    pub get_stats: unsafe extern "C" fn(*mut EgdbDriver) -> *mut EgdbStats,
    pub verify: unsafe extern "C" fn(*mut EgdbDriver, MsgFn, *mut c_int, *mut EgdbVerifyMsgs) -> c_int,
    pub close: unsafe extern "C" fn(*mut EgdbDriver) -> c_int,
    pub get_pieces: unsafe extern "C" fn(*mut EgdbDriver, *mut c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int,
    pub internal_data: *mut Driver,
}

/// Counts kept of lookups.
const REQUESTS: usize = 0;
const RETURNS: usize = 1;
const NOT_PRESENT: usize = 2;

/// What a handle holds besides its function pointers.
pub struct Driver {
    tb: Tablebase,
    /// `maxpieces` from the options: larger positions answer unknown.
    max_pieces: u8,
    /// Requests, answers and unknowns, counted per thread so that engine
    /// threads looking up at once do not slow each other down.
    lookups: Tally<3>,
    /// Cache counters at the last reset_stats.
    cache_base: Mutex<(u64, u64)>,
    /// What get_stats last returned (the driver hands out a pointer).
    stats: Mutex<Box<EgdbStats>>,
}

/// Sends `text` to the engine's message function, if it gave one.
fn tell(msg_fn: MsgFn, text: &str) {
    if let (Some(f), Ok(text)) = (msg_fn, CString::new(text.replace('\0', " "))) {
        // SAFETY: the engine's callback takes a NUL-terminated string.
        unsafe { f(text.as_ptr()) };
    }
}

/// The options of egdb_open: `maxpieces=N`, separated by `;` or `,`.
/// `maxkings_1side_8pcs` (8-piece kings limit of the international driver)
/// is accepted and has no effect.
fn parse_options(options: &str) -> Result<Option<u8>, String> {
    let mut max_pieces = None;
    for option in options.split([';', ',']).map(str::trim).filter(|o| !o.is_empty()) {
        let (name, value) = option.split_once('=').map_or((option, ""), |(n, v)| (n.trim(), v.trim()));
        match name {
            "maxpieces" => {
                max_pieces = Some(value.parse::<u8>().map_err(|_| format!("maxpieces={value}: expected a number"))?);
            }
            "maxkings_1side_8pcs" => {}
            _ => return Err(format!("unknown option '{option}' (damka knows maxpieces=N)")),
        }
    }
    Ok(max_pieces)
}

/// See damka_egdb.h.
///
/// # Safety
/// `options` and `directory` are NULL or NUL-terminated strings;
/// `msg_fn` is NULL or a function taking a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn egdb_open(
    options: *const c_char,
    cache_mb: c_int,
    directory: *const c_char,
    msg_fn: MsgFn,
) -> *mut EgdbDriver {
    let open = || -> Result<*mut EgdbDriver, String> {
        // SAFETY: caller's contract.
        let text = |p: *const c_char| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy());
        let options = text(options).unwrap_or_default();
        let dir = text(directory).ok_or("egdb_open: directory is NULL")?;
        let limit = parse_options(&options)?;
        let cache_bytes = usize::try_from(cache_mb.max(0)).unwrap_or(0) << 20;
        let tb = Tablebase::open(Path::new(&*dir), OpenOptions::new(Variant::English).cache_bytes(cache_bytes))
            .map_err(|e| e.to_string())?;
        if tb.max_pieces() == 0 {
            return Err(ProbeError::NoTables { dir: tb.dir().to_path_buf(), variant: Variant::English }.to_string());
        }
        let max_pieces = limit.map_or(tb.max_pieces(), |l| l.min(tb.max_pieces()));
        let rules = tb.rules().map_or("unknown".to_string(), |r| r.name.clone());
        tell(msg_fn, &format!("damka: English tables up to {max_pieces} pieces in {dir}, rule set {rules}, {cache_mb} MB cache\n"));
        let driver = Box::new(Driver {
            tb,
            max_pieces,
            lookups: Tally::new(),
            cache_base: Mutex::new((0, 0)),
            stats: Mutex::new(Box::default()),
        });
        Ok(Box::into_raw(Box::new(EgdbDriver {
            lookup,
            reset_stats,
            get_stats,
            verify,
            close,
            get_pieces,
            internal_data: Box::into_raw(driver),
        })))
    };
    match catch_unwind(AssertUnwindSafe(open)) {
        Ok(Ok(handle)) => handle,
        Ok(Err(message)) => {
            tell(msg_fn, &format!("damka: egdb_open failed: {message}\n"));
            ptr::null_mut()
        }
        Err(_) => ptr::null_mut(),
    }
}

/// # Safety
/// `handle` is NULL or from egdb_open, not closed.
unsafe fn driver<'a>(handle: *mut EgdbDriver) -> Option<&'a Driver> {
    // SAFETY: caller's contract.
    unsafe { handle.as_ref().and_then(|h| h.internal_data.as_ref()) }
}

impl Driver {
    fn lookup(&self, pos: &EgdbPosition, color: c_int, conditional: bool) -> c_int {
        self.lookups.add(REQUESTS);
        let answer = self.answer(pos, color, conditional);
        match answer {
            EGDB_WIN | EGDB_LOSS | EGDB_DRAW => self.lookups.add(RETURNS),
            EGDB_UNKNOWN => self.lookups.add(NOT_PRESENT),
            _ => {}
        }
        answer
    }

    fn answer(&self, pos: &EgdbPosition, color: c_int, conditional: bool) -> c_int {
        let side = match color {
            EGDB_WHITE => 0,
            EGDB_BLACK => 1,
            _ => return EGDB_UNKNOWN,
        };
        let pos = match position_from_masks(pos.white, pos.black, pos.king, side) {
            Ok(p) if (p.occupied().count() as u8) <= self.max_pieces => p,
            // Invalid bitboards, and more pieces than the tables (or the
            // maxpieces option) allow.
            _ => return EGDB_UNKNOWN,
        };
        let answer = if conditional { self.tb.probe_wdl_cached(&pos) } else { self.tb.probe_wdl(&pos).map(Cached::Answer) };
        match answer {
            Ok(Cached::Answer(Wdl::Win)) => EGDB_WIN,
            Ok(Cached::Answer(Wdl::Loss)) => EGDB_LOSS,
            // The rules the tables were built with draw a cursed win and a
            // blessed loss.
            Ok(Cached::Answer(Wdl::Draw | Wdl::CursedWin | Wdl::BlessedLoss)) => EGDB_DRAW,
            Ok(Cached::NotInCache) => EGDB_NOT_IN_CACHE,
            Err(_) => EGDB_UNKNOWN,
        }
    }
}

unsafe extern "C" fn lookup(handle: *mut EgdbDriver, position: *mut EgdbPosition, color: c_int, cl: c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a live handle and a readable position by the caller's contract.
        match unsafe { (driver(handle), position.as_ref()) } {
            (Some(d), Some(pos)) => d.lookup(pos, color, cl != 0),
            _ => EGDB_UNKNOWN,
        }
    }))
    .unwrap_or(EGDB_UNKNOWN)
}

unsafe extern "C" fn reset_stats(handle: *mut EgdbDriver) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: caller's contract.
        if let Some(d) = unsafe { driver(handle) } {
            d.lookups.reset();
            let s = d.tb.cache_stats();
            *d.cache_base.lock().unwrap_or_else(|e| e.into_inner()) = (s.hits, s.misses);
        }
    }));
}

unsafe extern "C" fn get_stats(handle: *mut EgdbDriver) -> *mut EgdbStats {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: caller's contract.
        let Some(d) = (unsafe { driver(handle) }) else {
            return ptr::null_mut();
        };
        let cache = d.tb.cache_stats();
        let (hits, misses) = *d.cache_base.lock().unwrap_or_else(|e| e.into_inner());
        let mut stats = d.stats.lock().unwrap_or_else(|e| e.into_inner());
        **stats = EgdbStats {
            lru_cache_hits: cache.hits.saturating_sub(hits) as c_uint,
            lru_cache_loads: cache.misses.saturating_sub(misses) as c_uint,
            autoload_hits: 0,
            // The driver's counters are 32-bit and wrap, as KingsRow's do.
            db_requests: d.lookups.total(REQUESTS) as c_uint,
            db_returns: d.lookups.total(RETURNS) as c_uint,
            db_not_present_requests: d.lookups.total(NOT_PRESENT) as c_uint,
            avg_ht_list_length: 0.0,
        };
        &mut **stats as *mut EgdbStats
    }))
    .unwrap_or(ptr::null_mut())
}

/// A message of `msgs`, or `default` if there is none.
fn message(field: Option<&[c_char; 80]>, default: &str) -> String {
    field
        .and_then(|f| CStr::from_bytes_until_nul(&f.map(|c| c as u8)).ok().map(|s| s.to_string_lossy().into_owned()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| default.to_string())
}

unsafe extern "C" fn verify(handle: *mut EgdbDriver, msg_fn: MsgFn, abort: *mut c_int, msgs: *mut EgdbVerifyMsgs) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: caller's contract.
        let (Some(d), msgs) = (unsafe { driver(handle) }, unsafe { msgs.as_ref() }) else {
            return 1;
        };
        let failed_text = message(msgs.map(|m| &m.crc_failed), "failed its check");
        let ok_text = message(msgs.map(|m| &m.ok), "ok");
        // SAFETY: `abort` is NULL or an int the engine may set from another
        // thread; read it fresh each time.
        let aborted = || !abort.is_null() && unsafe { ptr::read_volatile(abort) } != 0;
        let failed = d.tb.check_tables(
            |path, error| match error {
                None => tell(msg_fn, &format!("{}: {ok_text}\n", path.display())),
                Some(e) => tell(msg_fn, &format!("{}: {failed_text}: {e}\n", path.display())),
            },
            aborted,
        );
        let summary = if failed > 0 { message(msgs.map(|m| &m.errors), "errors") } else { message(msgs.map(|m| &m.no_errors), "no errors") };
        tell(msg_fn, &format!("{summary}\n"));
        failed.min(c_int::MAX as usize) as c_int
    }))
    .unwrap_or(1)
}

unsafe extern "C" fn close(handle: *mut EgdbDriver) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        if handle.is_null() {
            return 1;
        }
        // SAFETY: a handle from egdb_open, given back once.
        let handle = unsafe { Box::from_raw(handle) };
        if !handle.internal_data.is_null() {
            // SAFETY: made by Box::into_raw in egdb_open.
            drop(unsafe { Box::from_raw(handle.internal_data) });
        }
        0
    }))
    .unwrap_or(1)
}

unsafe extern "C" fn get_pieces(
    handle: *mut EgdbDriver,
    max_pieces: *mut c_int,
    max_pieces_1side: *mut c_int,
    max_9pc_kings: *mut c_int,
    max_8pc_kings_1side: *mut c_int,
) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: caller's contract.
        let Some(d) = (unsafe { driver(handle) }) else {
            return 1;
        };
        let one_side = d
            .tb
            .materials()
            .iter()
            .filter(|m| m.pieces() <= d.max_pieces)
            .map(|m| (m.own_kings + m.own_men).max(m.opp_kings + m.opp_men))
            .max()
            .unwrap_or(0);
        // No 8- or 9-piece tables with limits on kings: 0 for both.
        for (out, value) in [(max_pieces, d.max_pieces as c_int), (max_pieces_1side, one_side as c_int), (max_9pc_kings, 0), (max_8pc_kings_1side, 0)] {
            // SAFETY: each pointer is NULL or writable by the caller's contract.
            if let Some(out) = unsafe { out.as_mut() } {
                *out = value;
            }
        }
        0
    }))
    .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read() {
        assert_eq!(parse_options(""), Ok(None));
        assert_eq!(parse_options("maxpieces=4"), Ok(Some(4)));
        assert_eq!(parse_options(" maxpieces = 3 ; maxkings_1side_8pcs=5"), Ok(Some(3)));
        assert!(parse_options("maxpieces=x").is_err());
        assert!(parse_options("cache=5").is_err());
    }

    #[test]
    fn bad_handles_answer_unknown() {
        let mut pos = EgdbPosition { black: 1, white: 1 << 31, king: 0 };
        assert_eq!(unsafe { lookup(ptr::null_mut(), &mut pos, EGDB_WHITE, 0) }, EGDB_UNKNOWN);
        assert!(unsafe { get_stats(ptr::null_mut()) }.is_null());
        assert_eq!(unsafe { close(ptr::null_mut()) }, 1);
        let handle = unsafe { egdb_open(ptr::null(), 1, c"/nonexistent/damka".as_ptr(), None) };
        assert!(handle.is_null());
    }
}
