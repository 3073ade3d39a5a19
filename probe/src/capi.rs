//! The C ABI (include/damka.h documents every function).
//!
//! Every function body runs inside `catch_unwind`: no panic crosses into C;
//! a caught panic becomes `DAMKA_ERR_INTERNAL`. Errors are integer codes;
//! the message of the last failure on a thread is kept for
//! `damka_error_message`.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use crate::board::{Bitboard, Color, Square};
use crate::directory::ManifestError;
use crate::fen;
use crate::notation;
use crate::position::{Position, Setup};
use crate::material::Material;
use crate::probe::{Cached, OpenOptions, ProbeError, RankedMove, Tablebase};
use crate::value::{Value, Wdl};
use crate::variant::Variant;

pub const DAMKA_OK: c_int = 0;
/// A conditional probe that would have to read a file: no answer, no error.
pub const DAMKA_NOT_IN_CACHE: c_int = 1;
pub const DAMKA_ERR_MISSING_TABLE: c_int = -1;
pub const DAMKA_ERR_TOO_MANY_PIECES: c_int = -2;
pub const DAMKA_ERR_DAMAGED: c_int = -3;
pub const DAMKA_ERR_WRONG_VARIANT: c_int = -4;
pub const DAMKA_ERR_WRONG_RULES: c_int = -5;
pub const DAMKA_ERR_IO: c_int = -6;
pub const DAMKA_ERR_INVALID_POSITION: c_int = -7;
pub const DAMKA_ERR_INVALID_ARGUMENT: c_int = -8;
pub const DAMKA_ERR_BUFFER_TOO_SMALL: c_int = -9;
pub const DAMKA_ERR_INTERNAL: c_int = -10;

/// Bytes of `damka_ranked_move::text`, the terminating NUL included.
const MOVE_TEXT_LEN: usize = 64;

/// An opaque handle: a boxed [`Tablebase`].
pub struct DamkaTablebase(Tablebase);

#[repr(C)]
pub struct DamkaValue {
    pub wdl: c_int,
    pub plies: c_int,
}

#[repr(C)]
pub struct DamkaRankedMove {
    pub from: c_int,
    pub to: c_int,
    pub captured: u32,
    pub wdl: c_int,
    pub plies: c_int,
    pub text: [c_char; MOVE_TEXT_LEN],
}

#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: c_int,
    pub(crate) message: String,
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        let code = match e {
            ProbeError::MissingTable { .. } | ProbeError::NoTables { .. } => DAMKA_ERR_MISSING_TABLE,
            ProbeError::TooManyPieces { .. } => DAMKA_ERR_TOO_MANY_PIECES,
            ProbeError::Damaged { .. } => DAMKA_ERR_DAMAGED,
            ProbeError::WrongVariant { .. } | ProbeError::WrongGame { .. } => DAMKA_ERR_WRONG_VARIANT,
            ProbeError::WrongRules { .. } => DAMKA_ERR_WRONG_RULES,
            ProbeError::Io { .. } => DAMKA_ERR_IO,
            ProbeError::InvalidPosition(_) => DAMKA_ERR_INVALID_POSITION,
            ProbeError::Manifest(ManifestError::Io { .. }) => DAMKA_ERR_IO,
            ProbeError::Manifest(ManifestError::Invalid { .. }) => DAMKA_ERR_DAMAGED,
            ProbeError::ImpossibleCounters { .. } => DAMKA_ERR_INVALID_ARGUMENT,
        };
        Failure { code, message: e.to_string() }
    }
}

pub(crate) fn invalid_argument(message: impl Into<String>) -> Failure {
    Failure { code: DAMKA_ERR_INVALID_ARGUMENT, message: message.into() }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs `body`, turning errors and panics into a status code.
fn guard(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    guard_status(|| body().map(|()| DAMKA_OK))
}

/// [`guard`] for a body that picks its own status on success
/// (`DAMKA_NOT_IN_CACHE`).
pub(crate) fn guard_status(body: impl FnOnce() -> Result<c_int, Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(status)) => status,
        Ok(Err(f)) => {
            set_last_error(&f.message);
            f.code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            // Setting the message must not panic again out of here.
            let _ = catch_unwind(|| set_last_error(&format!("internal error in damka: {what}")));
            DAMKA_ERR_INTERNAL
        }
    }
}

/// # Safety
/// `text` is null or a NUL-terminated string.
unsafe fn str_arg<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(invalid_argument(format!("{what} is NULL")));
    }
    // SAFETY: not null, and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(text) }.to_str().map_err(|_| invalid_argument(format!("{what} is not UTF-8")))
}

/// # Safety
/// `tb` is null or a handle from `damka_open` not yet closed.
unsafe fn tb_arg<'a>(tb: *const DamkaTablebase) -> Result<&'a Tablebase, Failure> {
    // SAFETY: a live handle by the caller's contract.
    unsafe { tb.as_ref() }.map(|t| &t.0).ok_or_else(|| invalid_argument("tablebase handle is NULL"))
}

/// # Safety
/// `out` is null or valid for a write of `T`.
unsafe fn write_out<T>(out: *mut T, value: T) -> Result<(), Failure> {
    if out.is_null() {
        return Err(invalid_argument("result pointer is NULL"));
    }
    // SAFETY: not null and writable by the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// A position from masks where bit n-1 stands for PDN square n.
pub(crate) fn position_from_masks(white: u32, black: u32, kings: u32, side_to_move: c_int) -> Result<Position, Failure> {
    let turn = match side_to_move {
        0 => Color::White,
        1 => Color::Black,
        other => return Err(invalid_argument(format!("side to move {other}: expected 0 (White) or 1 (Black)"))),
    };
    let invalid = |why: String| Failure::from(ProbeError::InvalidPosition(why));
    if white & black != 0 {
        return Err(invalid(format!("squares {:#010x} hold both a white and a black piece", white & black)));
    }
    if kings & !(white | black) != 0 {
        return Err(invalid(format!("kings mask {:#010x} marks empty squares", kings & !(white | black))));
    }
    let bb = |mask: u32| {
        (0..32u8).filter(|i| mask >> i & 1 != 0).fold(Bitboard::EMPTY, |bb, i| {
            bb.with(Square::from_pdn(i + 1).expect("1..=32 is a PDN square"))
        })
    };
    let setup = Setup {
        white_men: bb(white & !kings),
        white_kings: bb(white & kings),
        black_men: bb(black & !kings),
        black_kings: bb(black & kings),
        turn: Some(turn),
    };
    Position::from_setup(&setup).map_err(|e| invalid(e.to_string()))
}

/// Runs `probe` on the handle and the position of the masks, as the mask
/// functions of damka.h all do.
///
/// # Safety
/// `tb` is null or a live handle.
unsafe fn with_masks(
    tb: *const DamkaTablebase,
    (white, black, kings, side_to_move): (u32, u32, u32, c_int),
    probe: impl FnOnce(&Tablebase, &Position) -> Result<c_int, Failure>,
) -> c_int {
    guard_status(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        probe(tb, &position_from_masks(white, black, kings, side_to_move)?)
    })
}

fn position_from_fen(tb: &Tablebase, text: &str) -> Result<Position, Failure> {
    fen::parse(text, tb.variant()).map_err(|e| Failure::from(ProbeError::InvalidPosition(format!("FEN '{text}': {e}"))))
}

fn c_value(v: Value) -> DamkaValue {
    DamkaValue { wdl: v.wdl as c_int, plies: v.plies.0 as c_int }
}

fn pdn_mask(bb: Bitboard) -> u32 {
    bb.into_iter().fold(0, |mask, sq| mask | 1 << (sq.pdn() - 1))
}

fn c_ranked(r: &RankedMove, variant: Variant) -> DamkaRankedMove {
    let mut text = [0 as c_char; MOVE_TEXT_LEN];
    let written = notation::write(&r.mv, variant);
    for (dst, &src) in text.iter_mut().zip(written.as_bytes().iter().take(MOVE_TEXT_LEN - 1)) {
        *dst = src as c_char;
    }
    DamkaRankedMove {
        from: r.mv.from().pdn() as c_int,
        to: r.mv.to().pdn() as c_int,
        captured: pdn_mask(r.mv.captured()),
        wdl: r.value.wdl as c_int,
        plies: r.value.plies.0 as c_int,
        text,
    }
}

/// # Safety
/// `moves` is null or valid for `capacity` writes; `count` is writable.
unsafe fn write_ranked(
    tb: &Tablebase,
    pos: &Position,
    moves: *mut DamkaRankedMove,
    capacity: usize,
    count: *mut usize,
) -> Result<(), Failure> {
    let ranked = tb.rank_moves(pos)?;
    // SAFETY: caller's contract.
    unsafe { write_out(count, ranked.len())? };
    if ranked.len() > capacity {
        return Err(Failure {
            code: DAMKA_ERR_BUFFER_TOO_SMALL,
            message: format!("{} legal moves; room for {capacity}", ranked.len()),
        });
    }
    if ranked.is_empty() {
        return Ok(());
    }
    if moves.is_null() {
        return Err(invalid_argument("moves array is NULL"));
    }
    for (i, r) in ranked.iter().enumerate() {
        // SAFETY: i < ranked.len() <= capacity, and `moves` holds `capacity`.
        unsafe { moves.add(i).write(c_ranked(r, tb.variant())) };
    }
    Ok(())
}

/// See damka.h.
///
/// # Safety
/// `dir` is a NUL-terminated string, `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn damka_open(
    dir: *const c_char,
    variant: c_int,
    cache_bytes: u64,
    out: *mut *mut DamkaTablebase,
) -> c_int {
    guard(|| {
        if !out.is_null() {
            // SAFETY: writable by the caller's contract.
            unsafe { out.write(ptr::null_mut()) };
        }
        // SAFETY: caller's contract.
        let dir = unsafe { str_arg(dir, "directory")? };
        let variant = u8::try_from(variant)
            .ok()
            .and_then(Variant::from_id)
            .ok_or_else(|| invalid_argument(format!("unknown variant number {variant}")))?;
        let cache_bytes = usize::try_from(cache_bytes).unwrap_or(usize::MAX);
        let tb = Tablebase::open(dir, OpenOptions::new(variant).cache_bytes(cache_bytes))?;
        let handle = Box::into_raw(Box::new(DamkaTablebase(tb)));
        // SAFETY: caller's contract; on a NULL `out` the handle is freed again.
        unsafe {
            write_out(out, handle).inspect_err(|_| drop(Box::from_raw(handle)))
        }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is null or a handle from `damka_open`, closed at most once.
#[no_mangle]
pub unsafe extern "C" fn damka_close(tb: *mut DamkaTablebase) {
    guard(|| {
        if !tb.is_null() {
            // SAFETY: a handle from `damka_open`, given back once.
            drop(unsafe { Box::from_raw(tb) });
        }
        Ok(())
    });
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `wdl` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_probe_wdl_fen(tb: *const DamkaTablebase, fen: *const c_char, wdl: *mut c_int) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let (tb, text) = unsafe { (tb_arg(tb)?, str_arg(fen, "FEN")?) };
        let result = tb.probe_wdl(&position_from_fen(tb, text)?)?;
        // SAFETY: caller's contract.
        unsafe { write_out(wdl, result as c_int) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `value` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_probe_value_fen(
    tb: *const DamkaTablebase,
    fen: *const c_char,
    value: *mut DamkaValue,
) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let (tb, text) = unsafe { (tb_arg(tb)?, str_arg(fen, "FEN")?) };
        let result = tb.probe_value(&position_from_fen(tb, text)?)?;
        // SAFETY: caller's contract.
        unsafe { write_out(value, c_value(result)) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `wdl` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_probe_wdl(
    tb: *const DamkaTablebase,
    white: u32,
    black: u32,
    kings: u32,
    side_to_move: c_int,
    wdl: *mut c_int,
) -> c_int {
    // SAFETY: caller's contract (here and in the closure).
    unsafe { with_masks(tb, (white, black, kings, side_to_move), |tb, pos| write_status(wdl, tb.probe_wdl(pos)? as c_int)) }
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `value` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_probe_value(
    tb: *const DamkaTablebase,
    white: u32,
    black: u32,
    kings: u32,
    side_to_move: c_int,
    value: *mut DamkaValue,
) -> c_int {
    // SAFETY: caller's contract (here and in the closure).
    unsafe { with_masks(tb, (white, black, kings, side_to_move), |tb, pos| write_status(value, c_value(tb.probe_value(pos)?))) }
}

/// Writes `value` and says DAMKA_OK.
///
/// # Safety
/// `out` is null or writable.
unsafe fn write_status<T>(out: *mut T, value: T) -> Result<c_int, Failure> {
    // SAFETY: caller's contract.
    unsafe { write_out(out, value).map(|()| DAMKA_OK) }
}

/// Writes a conditional probe's answer, or says it has none.
///
/// # Safety
/// `out` is null or writable.
unsafe fn write_cached<T, C>(cached: Cached<T>, out: *mut C, convert: impl FnOnce(T) -> C) -> Result<c_int, Failure> {
    match cached {
        // SAFETY: caller's contract.
        Cached::Answer(answer) => unsafe { write_status(out, convert(answer)) },
        Cached::NotInCache => Ok(DAMKA_NOT_IN_CACHE),
    }
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `wdl` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_probe_wdl_cached(
    tb: *const DamkaTablebase,
    white: u32,
    black: u32,
    kings: u32,
    side_to_move: c_int,
    wdl: *mut c_int,
) -> c_int {
    // SAFETY: caller's contract (here and in the closure).
    unsafe {
        with_masks(tb, (white, black, kings, side_to_move), |tb, pos| write_cached(tb.probe_wdl_cached(pos)?, wdl, |w| w as c_int))
    }
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `value` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_probe_value_cached(
    tb: *const DamkaTablebase,
    white: u32,
    black: u32,
    kings: u32,
    side_to_move: c_int,
    value: *mut DamkaValue,
) -> c_int {
    // SAFETY: caller's contract (here and in the closure).
    unsafe {
        with_masks(tb, (white, black, kings, side_to_move), |tb, pos| write_cached(tb.probe_value_cached(pos)?, value, c_value))
    }
}

/// A slice number from C.
fn slice_arg(tb: &Tablebase, slice: c_int) -> Result<(usize, &crate::index::SliceIndex), Failure> {
    usize::try_from(slice)
        .ok()
        .and_then(|n| Some((n, tb.slice_index(n)?)))
        .ok_or_else(|| invalid_argument(format!("no slice number {slice} (the directory has {})", tb.materials().len())))
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `slice` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_slice(
    tb: *const DamkaTablebase,
    white_men: c_int,
    white_kings: c_int,
    black_men: c_int,
    black_kings: c_int,
    slice: *mut c_int,
) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        let count = |n: c_int| u8::try_from(n).map_err(|_| invalid_argument(format!("piece count {n}")));
        let material = Material::new(count(white_kings)?, count(white_men)?, count(black_kings)?, count(black_men)?);
        let number = tb.slice_number(material).ok_or_else(|| Failure {
            code: DAMKA_ERR_MISSING_TABLE,
            message: format!("no table for {material} in {}", tb.dir().display()),
        })?;
        // SAFETY: caller's contract.
        unsafe { write_out(slice, number as c_int) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `slice` and `index` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_slice_index(
    tb: *const DamkaTablebase,
    white: u32,
    black: u32,
    kings: u32,
    slice: *mut c_int,
    index: *mut u64,
) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        let pos = position_from_masks(white, black, kings, 0)?;
        let material = Material::of(&pos);
        let number = tb.slice_number(material).ok_or_else(|| Failure {
            code: DAMKA_ERR_MISSING_TABLE,
            message: format!("no table for {material} in {}", tb.dir().display()),
        })?;
        let (_, slice_index) = slice_arg(tb, number as c_int)?;
        let at = slice_index.index(&pos).ok_or_else(|| invalid_argument("position outside its slice"))?;
        // SAFETY: caller's contract.
        unsafe {
            write_out(slice, number as c_int)?;
            write_out(index, at)
        }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `wdl` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_probe_slice_index(
    tb: *const DamkaTablebase,
    slice: c_int,
    index: u64,
    conditional: c_int,
    wdl: *mut c_int,
) -> c_int {
    guard_status(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        let (_, slice_index) = slice_arg(tb, slice)?;
        if index >= slice_index.size() {
            return Err(invalid_argument(format!("index {index}: slice {slice} holds {}", slice_index.size())));
        }
        // The position itself, so that a capture position (stored as
        // "don't care") is answered through its captures.
        let pos = slice_index.position(index);
        let cached = if conditional != 0 { tb.probe_wdl_cached(&pos)? } else { Cached::Answer(tb.probe_wdl(&pos)?) };
        // SAFETY: caller's contract.
        unsafe { write_cached(cached, wdl, |w| w as c_int) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `in_cache` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_slice_in_cache(tb: *const DamkaTablebase, slice: c_int, in_cache: *mut c_int) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        let (number, _) = slice_arg(tb, slice)?;
        // SAFETY: caller's contract.
        unsafe { write_out(in_cache, tb.slice_in_cache(number) as c_int) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `fen` a NUL-terminated string, `moves` holds
/// `capacity` entries, `count` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_rank_moves_fen(
    tb: *const DamkaTablebase,
    fen: *const c_char,
    moves: *mut DamkaRankedMove,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let (tb, text) = unsafe { (tb_arg(tb)?, str_arg(fen, "FEN")?) };
        let pos = position_from_fen(tb, text)?;
        // SAFETY: caller's contract.
        unsafe { write_ranked(tb, &pos, moves, capacity, count) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `moves` holds `capacity` entries, `count`
/// writable.
#[no_mangle]
pub unsafe extern "C" fn damka_rank_moves(
    tb: *const DamkaTablebase,
    white: u32,
    black: u32,
    kings: u32,
    side_to_move: c_int,
    moves: *mut DamkaRankedMove,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        let pos = position_from_masks(white, black, kings, side_to_move)?;
        // SAFETY: caller's contract.
        unsafe { write_ranked(tb, &pos, moves, capacity, count) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle, `pieces` writable.
#[no_mangle]
pub unsafe extern "C" fn damka_max_pieces(tb: *const DamkaTablebase, pieces: *mut c_int) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        // SAFETY: caller's contract.
        unsafe { write_out(pieces, tb.max_pieces() as c_int) }
    })
}

/// See damka.h.
///
/// # Safety
/// `tb` is a live handle; `name` holds `name_len` bytes (or is NULL with
/// `name_len` 0); `hash` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn damka_rules(
    tb: *const DamkaTablebase,
    name: *mut c_char,
    name_len: usize,
    hash: *mut u64,
) -> c_int {
    guard(|| {
        // SAFETY: caller's contract.
        let tb = unsafe { tb_arg(tb)? };
        let rules = tb.rules().ok_or_else(|| Failure {
            code: DAMKA_ERR_MISSING_TABLE,
            message: format!("{} holds no readable table", tb.dir().display()),
        })?;
        let bytes = rules.name.as_bytes();
        if bytes.len() >= name_len || name.is_null() {
            return Err(Failure {
                code: DAMKA_ERR_BUFFER_TOO_SMALL,
                message: format!("rule set name '{}' needs {} bytes", rules.name, bytes.len() + 1),
            });
        }
        // SAFETY: `name` holds `name_len` > bytes.len() bytes.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr(), name.cast::<u8>(), bytes.len());
            name.add(bytes.len()).write(0);
        }
        if !hash.is_null() {
            // SAFETY: caller's contract.
            unsafe { hash.write(rules.hash) };
        }
        Ok(())
    })
}

/// See damka.h.
#[no_mangle]
pub extern "C" fn damka_error_message() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"".as_ptr())
}

/// See damka.h.
#[no_mangle]
pub extern "C" fn damka_status_name(status: c_int) -> *const c_char {
    let name: &'static CStr = match status {
        DAMKA_OK => c"ok",
        DAMKA_NOT_IN_CACHE => c"not in cache",
        DAMKA_ERR_MISSING_TABLE => c"missing table",
        DAMKA_ERR_TOO_MANY_PIECES => c"too many pieces",
        DAMKA_ERR_DAMAGED => c"damaged table",
        DAMKA_ERR_WRONG_VARIANT => c"table for another variant",
        DAMKA_ERR_WRONG_RULES => c"table for another rule set",
        DAMKA_ERR_IO => c"cannot read",
        DAMKA_ERR_INVALID_POSITION => c"invalid position",
        DAMKA_ERR_INVALID_ARGUMENT => c"invalid argument",
        DAMKA_ERR_BUFFER_TOO_SMALL => c"buffer too small",
        DAMKA_ERR_INTERNAL => c"internal error",
        _ => c"unknown status",
    };
    name.as_ptr()
}

/// The value codes of damka.h agree with [`Wdl`]'s representation.
const _: () = {
    assert!(Wdl::Loss as i8 == -2 && Wdl::Win as i8 == 2 && Wdl::Draw as i8 == 0);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_use_pdn_numbering() {
        // White man on 22 (c3), Black king on 1 (b8), White to move.
        let pos = position_from_masks(1 << 21, 1, 1, 0).unwrap();
        assert_eq!(fen::write(&pos, Variant::Pool), "W:W22:BK1");
        assert!(position_from_masks(1, 1, 0, 0).is_err());
        assert!(position_from_masks(1, 0, 2, 0).is_err());
        assert!(position_from_masks(1, 0, 0, 2).is_err());
        // A White man on its promotion row (square 1).
        assert!(position_from_masks(1, 1 << 31, 0, 0).is_err());
        assert_eq!(pdn_mask(pos.pieces(Color::White)), 1 << 21);
    }

    #[test]
    fn panics_become_a_status() {
        let code = guard(|| panic!("boom"));
        assert_eq!(code, DAMKA_ERR_INTERNAL);
        let message = unsafe { CStr::from_ptr(damka_error_message()) };
        assert!(message.to_str().unwrap().contains("boom"));
    }

    #[test]
    fn null_arguments_are_errors() {
        let mut tb = ptr::null_mut();
        assert_eq!(unsafe { damka_open(ptr::null(), 0, 0, &mut tb) }, DAMKA_ERR_INVALID_ARGUMENT);
        assert!(tb.is_null());
        let mut wdl = 0;
        assert_eq!(unsafe { damka_probe_wdl(ptr::null(), 1, 2, 0, 0, &mut wdl) }, DAMKA_ERR_INVALID_ARGUMENT);
        unsafe { damka_close(ptr::null_mut()) };
    }
}
