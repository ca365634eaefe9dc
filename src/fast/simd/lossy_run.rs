//! The SIMD lossy decoder's main loop: validation and copy fused, one 64-byte block at a
//! time, with the error path inside the loop.
//!
//! The Unicode Standard, §3.9, U+FFFD Substitution of Maximal Subparts: "An increasingly
//! common practice is to replace each maximal subpart of an ill-formed subsequence by a
//! single U+FFFD." (definition D93b: a maximal subpart is the longest code unit
//! subsequence that is either a well-formed character or the initial subsequence of
//! one; at least one byte).
//!
//! Between two errors the output is the input, byte for byte. So every block is stored
//! to the output as it is checked (the lookup algorithm of `validate`), before the
//! check's result is known, and the output offset of any input byte of the current
//! *run* (the bytes since the last error unit) is `run_out + (pos - run_start)`. When a
//! block is flagged, the first flagged byte locates the error to within 3 bytes (every
//! error is flagged at most 3 bytes after the start of its character: see
//! `validate::first_flagged_byte`); the DFA walks those few bytes to the error unit, whose
//! U+FFFD is written at the unit's own output offset, over the speculative copy of it.
//! Error units straight after it (a lead's stray tails) are measured with the DFA too.
//! The loop then goes on at the next unit boundary with a zero `previous` vector, the
//! state at the start of input: no call, no re-broadcast of the lookup tables, no
//! realignment, and no scalar copy of the text between errors. Where errors come close
//! together (random-looking input) the dense 16-byte loop (`lossy::lossy_dense`) takes
//! over until it sees a clean run again, as in the scalar driver (`fast/lossy.rs`).

use super::lossy::lossy_dense;
use super::validate::{incomplete_tail, Lookup, BLOCK};
use super::vector::{assert_vector_width, Kernel16, Vector};
use crate::fast::lossy::{
    first_unit, DENSE_AFTER_CLOSE_ERRORS, DENSE_WHEN_CLOSER_THAN, REPLACEMENT,
};
use crate::fast::{dfa, Utf8Error};

/// Error units straight after an error that the error path measures itself, at most,
/// before going back to the block loop.
const CLUSTER: usize = 8;

/// Output bytes a block may write past the output cursor: its own 64-byte copy, or at
/// an error, a 4-byte U+FFFD store up to 63 bytes in and `CLUSTER` more of 3 bytes.
pub(crate) const HEADROOM: usize = BLOCK + 4 + 3 * CLUSTER + 4;

/// The UTF-8 encoding of U+FFFD.
const REPLACEMENT_BYTES: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// Appends the lossy decoding of `bytes[pos..]` to `out`; `pos` is a unit boundary.
///
/// # Safety
/// `V`'s and `K`'s instruction sets must be available.
#[inline(always)]
pub(crate) unsafe fn lossy_run<V: Vector, K: Kernel16>(
    bytes: &[u8],
    mut pos: usize,
    out: &mut Vec<u8>,
) {
    // SAFETY: the caller meets this function's `# Safety` contract; the bounds of each
    // pointer operation are justified where it occurs.
    unsafe {
        assert_vector_width::<V>();
        let lookup = Lookup::<V>::new();
        let len = bytes.len();
        let src = bytes.as_ptr();
        // The current run: its first input byte and that byte's output offset.
        let mut run_start = pos;
        let mut run_out = out.len();
        let mut written = run_out;
        let mut previous = V::splat(0);
        let mut close_errors = 0;
        let mut dst = out.as_mut_ptr();
        while pos + BLOCK <= len {
            if out.capacity() - written < HEADROOM {
                // SAFETY: bytes `..written` are initialised: the caller's, then whole
                // copied blocks and U+FFFDs up to the cursor.
                out.set_len(written);
                out.reserve((len - pos) + HEADROOM);
                dst = out.as_mut_ptr();
            }
            let block_previous = previous;
            let mut inputs = [V::splat(0); 4];
            let mut any = V::splat(0);
            let mut i = 0;
            while i < BLOCK / V::BYTES {
                // SAFETY: `pos + BLOCK <= len`, and `written + BLOCK <= capacity` (the
                // headroom above).
                inputs[i] = V::load_unaligned(src.add(pos + i * V::BYTES));
                inputs[i].store_unaligned(dst.add(written + i * V::BYTES));
                any = any.or(inputs[i]);
                i += 1;
            }
            previous = inputs[BLOCK / V::BYTES - 1];
            let clean = if any.any_high_bit() {
                !block_error(&lookup, &inputs, block_previous).any_bit_set()
            } else {
                // ASCII: an error only if the previous block ended inside a character.
                !incomplete_tail(block_previous).any_bit_set()
            };
            if clean {
                pos += BLOCK;
                written += BLOCK;
                continue;
            }
            // An error in this block, or in a character cut by its start.
            let flagged = pos + first_flagged(&lookup, &inputs, block_previous);
            let (error_at, cursor) =
                match replace_error_units(bytes, run_start, run_out, pos + BLOCK, flagged, dst) {
                    Resolved::Units {
                        error_at,
                        resumes_at,
                        cursor,
                    } => {
                        pos = resumes_at;
                        (error_at, cursor)
                    }
                    Resolved::EndOfInput { cursor } => {
                        // SAFETY: bytes `..cursor` are initialised (the run's copy up to
                        // the error unit, then its U+FFFD).
                        out.set_len(cursor);
                        return;
                    }
                    Resolved::NoError { restart } => {
                        pos = restart;
                        break;
                    }
                };
            close_errors = if error_at - run_start < DENSE_WHEN_CLOSER_THAN {
                close_errors + 1
            } else {
                0
            };
            // SAFETY: bytes `..cursor` are initialised (the run's copy up to the error
            // unit, then U+FFFDs).
            out.set_len(cursor);
            if close_errors >= DENSE_AFTER_CLOSE_ERRORS && pos < len {
                // Errors close together: the dense loop until a clean run again.
                close_errors = 0;
                pos = lossy_dense::<K>(bytes, pos, out);
                dst = out.as_mut_ptr();
            }
            run_start = pos;
            run_out = out.len();
            written = run_out;
            previous = V::splat(0);
        }
        // The last block may end inside a character: back to the boundary before it.
        let boundary = boundary_from(bytes, run_start, pos);
        // SAFETY: the run's bytes up to `boundary` were copied to the output.
        out.set_len(run_out + (boundary - run_start));
        scalar_rest(bytes, boundary, out);
    }
}

/// What [`replace_error_units`] found.
enum Resolved {
    /// Error units from `error_at`, replaced; the run resumes at `resumes_at`, the output
    /// cursor is `cursor`.
    Units {
        error_at: usize,
        resumes_at: usize,
        cursor: usize,
    },
    /// A character cut off by the end of input, replaced; the output ends at `cursor`.
    EndOfInput { cursor: usize },
    /// No error starts between the boundary `restart` and the flagged byte (the lookup
    /// flags only errors, so this is not reached; were it, the scalar tail decodes the
    /// rest correctly from `restart`).
    NoError { restart: usize },
}

/// The error path of [`lossy_run`]: the error unit near `flagged` (the first byte the
/// lookup flags in the block ending at `block_end`), found by [`error_near`], and the
/// error units straight after it (at most `CLUSTER`), each replaced by U+FFFD at its
/// own output offset (`run_out` is that of `run_start`).
///
/// # Safety
/// `dst` must be the output buffer, with `HEADROOM` bytes of room from the output
/// offset of `block_end - BLOCK`, and the run copied up to `flagged`.
#[inline(always)]
unsafe fn replace_error_units(
    bytes: &[u8],
    run_start: usize,
    run_out: usize,
    block_end: usize,
    flagged: usize,
    dst: *mut u8,
) -> Resolved {
    let len = bytes.len();
    let (error_at, error_len) = match error_near(bytes, run_start, flagged) {
        Ok(error) => (error.valid_up_to(), error.error_len()),
        Err(restart) => return Resolved::NoError { restart },
    };
    // `error_at <= flagged`: its U+FFFD store stays within the headroom.
    assert!(error_at < block_end, "the lookup flagged no error");
    let mut cursor = run_out + (error_at - run_start);
    // SAFETY: `cursor` is below the output offset of `block_end`, so the 4-byte store is
    // within the headroom (caller's contract).
    unsafe { (dst.add(cursor) as *mut u32).write_unaligned(REPLACEMENT) };
    cursor += 3;
    let Some(unit_len) = error_len else {
        return Resolved::EndOfInput { cursor };
    };
    let mut pos = error_at + unit_len;
    let mut units = 0;
    while units < CLUSTER && pos < len && bytes[pos] >= 0x80 {
        let (unit_len, well_formed) = first_unit(&bytes[pos..(pos + 4).min(len)]);
        if well_formed {
            break;
        }
        // SAFETY: at most `CLUSTER` stores of 4 bytes after the first, within the
        // headroom.
        unsafe { (dst.add(cursor) as *mut u32).write_unaligned(REPLACEMENT) };
        cursor += 3;
        pos += unit_len;
        units += 1;
    }
    Resolved::Units {
        error_at,
        resumes_at: pos,
        cursor,
    }
}

/// The error bits of a block (`inputs`, the first `BLOCK / V::BYTES` used) after
/// `previous`.
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
pub(super) unsafe fn block_error<V: Vector>(lookup: &Lookup<V>, inputs: &[V; 4], previous: V) -> V {
    // SAFETY: the caller meets this function's `# Safety` contract (no memory access).
    unsafe {
        let mut error = lookup.check(inputs[0], previous);
        let mut i = 1;
        while i < BLOCK / V::BYTES {
            error = error.or(lookup.check(inputs[i], inputs[i - 1]));
            i += 1;
        }
        error
    }
}

/// Offset in its block of the first byte the lookup flags (the block is known to be
/// flagged; 0 if it were not), from each vector's mask of flagged bytes: no store of
/// the flags to memory and reload (a store-forwarding stall on every error).
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
pub(super) unsafe fn first_flagged<V: Vector>(
    lookup: &Lookup<V>,
    inputs: &[V; 4],
    previous: V,
) -> usize {
    // SAFETY: the caller meets this function's `# Safety` contract (no memory access).
    unsafe {
        let mut before = previous;
        let mut i = 0;
        while i < BLOCK / V::BYTES {
            let flags = lookup.check(inputs[i], before).nonzero_mask();
            if flags != 0 {
                return i * V::BYTES + flags.trailing_zeros() as usize;
            }
            before = inputs[i];
            i += 1;
        }
        0
    }
}

/// The first error unit at or before `flagged`, the first byte the lookup flags after
/// the unit boundary `floor` (the lookup run from `floor` with ASCII before it): std's
/// error for `bytes`, given that `bytes[..floor]` is well-formed. The DFA starts from
/// the last byte that is not a tail among the 3 before `flagged` (or `flagged` itself,
/// when all three are tails). If no error starts there by `flagged` (which the lookup
/// rules out), `Err` of that boundary, from which the caller can decode with the DFA.
///
/// Why the error unit starts at or after that boundary: the lookup flags an error at
/// most 3 bytes after its first byte (see `validate::first_flagged_byte`), and never
/// after the first byte past its start that is not a tail (a missing tail is flagged
/// at the byte in its place, a stray tail at itself, an overlong, surrogate or
/// too-large sequence at its second byte). So an error unit starting before the
/// boundary would be flagged at or before the boundary, that is before `flagged`, which
/// is the first flagged byte. The DFA checks every byte it steps over, and only a few:
/// a character or two, with no call and no second walk for the unit's length.
#[inline(always)]
pub(super) fn error_near(bytes: &[u8], floor: usize, flagged: usize) -> Result<Utf8Error, usize> {
    let restart = boundary_from(bytes, floor, flagged);
    let mut at = restart;
    while at <= flagged && at < bytes.len() {
        match unit_at(bytes, at) {
            Unit::Char(unit_len) => at += unit_len,
            Unit::Subpart(unit_len) => return Ok(Utf8Error::new(at, Some(unit_len))),
            Unit::Incomplete => return Ok(Utf8Error::new(at, None)),
        }
    }
    Err(restart)
}

/// A unit (Unicode D93b) as the DFA measures it from a unit boundary.
pub(super) enum Unit {
    /// A well-formed character (ASCII included) of this many bytes.
    Char(usize),
    /// A maximal subpart of this many bytes (one U+FFFD).
    Subpart(usize),
    /// The start of a character cut off by the end of input (one U+FFFD, the last).
    Incomplete,
}

/// The unit at `bytes[pos]` (`pos < bytes.len()`, a unit boundary): at most 4 DFA steps,
/// which always end in `ACCEPT` or `REJECT` unless the input ends first.
#[inline(always)]
pub(super) fn unit_at(bytes: &[u8], pos: usize) -> Unit {
    let end = (pos + 4).min(bytes.len());
    let mut state = dfa::ACCEPT;
    for (i, &byte) in bytes[pos..end].iter().enumerate() {
        state = dfa::step(state, byte);
        match state & 63 {
            dfa::ACCEPT => return Unit::Char(i + 1),
            dfa::REJECT => return Unit::Subpart(i.max(1)),
            _ => {}
        }
    }
    Unit::Incomplete
}

/// A unit boundary at or before `pos` and not before `floor` (a unit boundary): the
/// last byte that is not a tail among the 3 before `pos` (and from `floor`), else
/// `pos`. As `dfa::boundary_before`, it requires `bytes[floor..pos]` to be well-formed
/// but for a character cut by its end.
#[inline(always)]
pub(super) fn boundary_from(bytes: &[u8], floor: usize, pos: usize) -> usize {
    let pos = pos.max(floor);
    let lowest = pos.saturating_sub(3).max(floor);
    let mut candidate = pos;
    while candidate > lowest {
        candidate -= 1;
        if !dfa::is_continuation(bytes[candidate]) {
            return candidate;
        }
    }
    pos
}

/// Appends the lossy decoding of `bytes[pos..]` (`pos` a unit boundary, less than a
/// block from the end, or after an unreachable disagreement) with the DFA.
fn scalar_rest(bytes: &[u8], mut pos: usize, out: &mut Vec<u8>) {
    loop {
        match dfa::validate_from(bytes, pos) {
            Ok(()) => {
                out.extend_from_slice(&bytes[pos..]);
                return;
            }
            Err(error) => {
                out.extend_from_slice(&bytes[pos..error.valid_up_to()]);
                out.extend_from_slice(&REPLACEMENT_BYTES);
                match error.error_len() {
                    None => return,
                    Some(unit_len) => pos = error.valid_up_to() + unit_len,
                }
            }
        }
    }
}
