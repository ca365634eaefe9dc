//! Lossy decoding (one U+FFFD per maximal subpart), shared by every backend.
//!
//! [`decode_lossy`] is the driver: a backend's `validate` finds long well-formed runs,
//! which are copied as they are, and the error unit after each (one U+FFFD); the driver
//! returns to `validate` right after the unit. Only where errors come close together
//! does a backend's `dense` routine take over, until it has seen a clean run again. The
//! output is allocated once, with room for the worst case. Random-looking input has an error
//! every byte or two, so for it everything happens in `dense`: [`dense_scalar`] here, or
//! the 16-bytes-at-a-time expansion in [`super::simd::lossy_dense`].
//!
//! Units (Unicode D93b): an ASCII byte, a well-formed character, or a maximal subpart,
//! which becomes EF BF BD. [`first_unit`] measures one with the DFA.

use std::borrow::Cow;

use super::dfa;
use super::Utf8Error;

/// The UTF-8 encoding of U+FFFD, little-endian in a `u32` with a spare zero byte.
pub(crate) const REPLACEMENT: u32 = u32::from_le_bytes([0xEF, 0xBF, 0xBD, 0]);

/// Clean bytes in a row after which a `dense` routine hands back to `validate`.
pub(crate) const CLEAN_RUN_TO_LEAVE: usize = 32;

/// An error unit less than this many bytes after the previous one is "close".
pub(crate) const DENSE_WHEN_CLOSER_THAN: usize = 8;

/// After this many close error units in a row the driver hands over to the `dense`
/// routine; sparser errors go straight back to `validate`.
pub(crate) const DENSE_AFTER_CLOSE_ERRORS: usize = 4;

/// The UTF-8 encoding of U+FFFD.
const REPLACEMENT_BYTES: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// Output capacity for lossy decoding of `len` bytes whose first `valid` bytes are
/// well-formed: each later byte yields at most 3 bytes (a lone byte becomes EF BF BD).
/// Capped at `isize::MAX` (the most a `Vec` can hold), which only a 32-bit target could
/// reach.
pub(crate) fn output_bound(valid: usize, len: usize) -> usize {
    (len - valid)
        .saturating_mul(3)
        .saturating_add(valid)
        .min(isize::MAX as usize)
}

/// Decodes `bytes` lossily with a backend's two routines.
///
/// # Safety
/// `validate` must agree with std (it decides which bytes are copied unchecked into the
/// `str`), and `dense(bytes, pos, out)` must start at the unit boundary `pos`, append
/// only well-formed UTF-8 to `out` and return the unit boundary it stopped at (> `pos`).
#[inline(always)]
pub(crate) unsafe fn decode_lossy<'a>(
    bytes: &'a [u8],
    validate: impl Fn(&[u8]) -> Result<(), Utf8Error>,
    dense: impl Fn(&[u8], usize, &mut Vec<u8>) -> usize,
) -> Cow<'a, str> {
    match validate(bytes) {
        Ok(()) => {
            debug_assert!(
                std::str::from_utf8(bytes).is_ok(),
                "validate disagrees with std"
            );
            // SAFETY: `validate` accepted `bytes` and agrees with std (caller's contract).
            Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) })
        }
        Err(first_error) => {
            // Allocated once, with room for the worst case (see `output_bound`).
            let mut out = Vec::with_capacity(output_bound(first_error.valid_up_to(), bytes.len()));
            // SAFETY: the caller's contract is `append_after_error`'s; `first_error` is
            // what `validate` said of `bytes`.
            unsafe { append_after_error(bytes, first_error, &mut out, validate, dense) };
            // SAFETY: `out` holds runs accepted by `validate` and what `dense` appended,
            // both well-formed by the caller's contract.
            Cow::Owned(unsafe { String::from_utf8_unchecked(out) })
        }
    }
}

/// [`decode_lossy`], appended to `out`: no allocation when `out` has room (a buffer
/// reused from call to call).
///
/// # Safety
/// As for [`decode_lossy`].
#[inline(always)]
pub(crate) unsafe fn decode_lossy_into(
    bytes: &[u8],
    out: &mut String,
    validate: impl Fn(&[u8]) -> Result<(), Utf8Error>,
    dense: impl Fn(&[u8], usize, &mut Vec<u8>) -> usize,
) {
    match validate(bytes) {
        Ok(()) => {
            debug_assert!(
                std::str::from_utf8(bytes).is_ok(),
                "validate disagrees with std"
            );
            // SAFETY: `validate` accepted `bytes` and agrees with std (caller's contract).
            out.push_str(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        Err(first_error) => {
            out.reserve(output_bound(first_error.valid_up_to(), bytes.len()));
            // SAFETY: `append_after_error` appends only well-formed UTF-8 (runs accepted
            // by `validate`, U+FFFD and what `dense` appends, by the caller's contract),
            // so `out` stays a `String`'s valid contents.
            let vec = unsafe { out.as_mut_vec() };
            // SAFETY: the caller's contract is `append_after_error`'s; `first_error` is
            // what `validate` said of `bytes`.
            unsafe { append_after_error(bytes, first_error, vec, validate, dense) };
        }
    }
}

/// Appends the lossy decode of `bytes` to `out`, given `first_error`, what `validate`
/// said of `bytes`. The caller has reserved [`output_bound`] bytes in `out`, so neither
/// the copies nor the `dense` routine's own reservations reallocate.
///
/// # Safety
/// As for [`decode_lossy`]: the caller relies on `out` receiving only well-formed UTF-8
/// (it does no unsafe operation itself).
#[inline(always)]
unsafe fn append_after_error(
    bytes: &[u8],
    first_error: Utf8Error,
    out: &mut Vec<u8>,
    validate: impl Fn(&[u8]) -> Result<(), Utf8Error>,
    dense: impl Fn(&[u8], usize, &mut Vec<u8>) -> usize,
) {
    let start = out.len();
    let len = bytes.len();
    let mut pos = first_error.valid_up_to();
    out.extend_from_slice(&bytes[..pos]);
    let mut error = first_error;
    // Length of the well-formed run before the current error unit, and how many
    // error units in a row came that close to the previous one.
    let mut clean_before = pos;
    let mut close_errors = 0;
    loop {
        // `pos` is the error unit reported by `validate`: one U+FFFD for it.
        out.extend_from_slice(&REPLACEMENT_BYTES);
        match error.error_len() {
            // An incomplete character cut off by the end of input.
            None => break,
            Some(unit_len) => pos += unit_len,
        }
        // Error units straight after it are measured here rather than by `validate`.
        let (cluster_end, units) = error_cluster(bytes, pos);
        for _ in 0..units {
            out.extend_from_slice(&REPLACEMENT_BYTES);
        }
        pos = cluster_end;
        if pos >= len {
            break;
        }
        close_errors = if clean_before < DENSE_WHEN_CLOSER_THAN {
            close_errors + 1
        } else {
            0
        };
        if close_errors >= DENSE_AFTER_CLOSE_ERRORS {
            // Errors close together (random-looking input): the `dense` routine
            // until a clean run again, rather than one `validate` call per unit.
            close_errors = 0;
            pos = dense(bytes, pos, out);
            if pos >= len {
                break;
            }
        }
        // Back to the SIMD path at once.
        match validate(&bytes[pos..]) {
            Ok(()) => {
                out.extend_from_slice(&bytes[pos..]);
                break;
            }
            Err(next) => {
                clean_before = next.valid_up_to();
                out.extend_from_slice(&bytes[pos..pos + clean_before]);
                pos += clean_before;
                error = next;
            }
        }
    }
    debug_assert!(
        std::str::from_utf8(&out[start..]).is_ok(),
        "lossy output is not UTF-8 (a SIMD table or `dense` routine is wrong)"
    );
}

/// The scalar backend's lossy decoding.
///
/// # Safety
/// None: this is `unsafe fn` only to share the backends' function-pointer type.
pub(crate) unsafe fn decode_lossy_scalar(bytes: &[u8]) -> Cow<'_, str> {
    // SAFETY: the DFA agrees with std, and `dense_scalar` meets the `dense` contract.
    unsafe { decode_lossy(bytes, dfa::validate, dense_scalar) }
}

/// The scalar backend's [`decode_lossy_into`].
///
/// # Safety
/// None: this is `unsafe fn` only to share the backends' function-pointer type.
pub(crate) unsafe fn decode_lossy_into_scalar(bytes: &[u8], out: &mut String) {
    // SAFETY: the DFA agrees with std, and `dense_scalar` meets the `dense` contract.
    unsafe { decode_lossy_into(bytes, out, dfa::validate, dense_scalar) }
}

/// The error units that start at `pos`, straight after an error unit (a cluster, such as
/// a lead's stray tails), measured one DFA step per byte: where they end (at the next
/// well-formed character or the end of input) and how many there are, one U+FFFD each.
#[inline(always)]
pub(crate) fn error_cluster(bytes: &[u8], mut pos: usize) -> (usize, usize) {
    let len = bytes.len();
    let mut units = 0;
    while pos < len && bytes[pos] >= 0x80 {
        let (unit_len, well_formed) = first_unit(&bytes[pos..(pos + 4).min(len)]);
        if well_formed {
            break;
        }
        units += 1;
        pos += unit_len;
    }
    (pos, units)
}

/// The unit at the start of `unit` (1 to 4 bytes, starting with a lead): its length,
/// and whether it is a well-formed character (else it is a maximal subpart).
#[inline]
pub(crate) fn first_unit(unit: &[u8]) -> (usize, bool) {
    let mut state = dfa::ACCEPT;
    for (i, &byte) in unit.iter().enumerate() {
        state = dfa::step(state, byte);
        match state & 63 {
            dfa::ACCEPT => return (i + 1, true),
            dfa::REJECT => return (i.max(1), false),
            _ => {}
        }
    }
    (unit.len(), false)
}

/// Input bytes [`dense_scalar`] handles per capacity reservation.
const DENSE_WINDOW: usize = 256;

/// Lossy decoding of `bytes[pos..]` (`pos` at a unit boundary) a unit at a time, until
/// [`CLEAN_RUN_TO_LEAVE`] bytes in a row were well-formed or the input ends. Returns the
/// position reached (a unit boundary).
///
/// It avoids data-dependent branches for the three cases that make up most of random
/// input: an ASCII byte (copied), a byte that can never start a character (80..C1,
/// F5..FF: one U+FFFD), and a lead not followed by a tail (a maximal subpart of one
/// byte: one U+FFFD). Each is one unconditional 4-byte store of either the byte or
/// `EF BF BD` and a computed advance. Only a lead followed by a tail takes the branch to
/// the DFA.
pub(crate) fn dense_scalar(bytes: &[u8], mut pos: usize, out: &mut Vec<u8>) -> usize {
    let len = bytes.len();
    let mut clean_run = 0;
    while pos < len {
        let window_end = (pos + DENSE_WINDOW).min(len);
        // Each input byte produces at most 3 output bytes; the 4-byte stores write one
        // byte past the output cursor.
        out.reserve(3 * (window_end - pos) + 4);
        let base = out.as_mut_ptr();
        let mut written = out.len();
        while pos < window_end {
            let byte = bytes[pos];
            let next = if pos + 1 < len { bytes[pos + 1] } else { 0 };
            // Non-short-circuiting `&`: one branch, rarely taken on random input.
            let is_lead = (0xC2..=0xF4).contains(&byte);
            if is_lead & dfa::is_continuation(next) {
                // A lead and a tail: a longer character or a longer maximal subpart.
                let unit = &bytes[pos..(pos + 4).min(len)];
                let (unit_len, well_formed) = first_unit(unit);
                // SAFETY: `written + 4 <= capacity` (reserved above: at most 3 output
                // bytes per input byte of this window, plus 4).
                unsafe {
                    if well_formed {
                        std::ptr::copy_nonoverlapping(unit.as_ptr(), base.add(written), unit_len);
                        written += unit_len;
                    } else {
                        (base.add(written) as *mut u32).write_unaligned(REPLACEMENT);
                        written += 3;
                    }
                }
                clean_run = if well_formed { clean_run + unit_len } else { 0 };
                pos += unit_len;
            } else {
                // Branch-free on purpose (random input makes `byte < 0x80` a coin
                // toss): `ascii` is 1 or 0, `ascii_mask` all ones or zero.
                let ascii = (byte < 0x80) as usize;
                let ascii_mask = (ascii as u32).wrapping_neg();
                let value = REPLACEMENT ^ ((REPLACEMENT ^ byte as u32) & ascii_mask);
                // SAFETY: as above.
                unsafe { (base.add(written) as *mut u32).write_unaligned(value) };
                written += 3 - 2 * ascii;
                clean_run = (clean_run + 1) * ascii;
                pos += 1;
            }
            if clean_run >= CLEAN_RUN_TO_LEAVE {
                break;
            }
        }
        // SAFETY: bytes `..written` were initialised by the stores above (whole ASCII
        // bytes, whole U+FFFD encodings, whole well-formed characters), and
        // `written <= capacity`.
        unsafe { out.set_len(written) };
        if clean_run >= CLEAN_RUN_TO_LEAVE {
            break;
        }
    }
    pos
}
