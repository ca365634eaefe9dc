//! The SIMD step of lossy UTF-8 to UTF-16 decoding: the driver (`fast/utf16_lossy.rs`)
//! calls [`lossy_step`] after each error unit, and it converts the well-formed run up
//! to the next error and reports that error.
//!
//! Unlike the strict decoder ([`super::utf16::decode_utf16_by`]), which the step
//! replaces in the driver, it has no per-call setup: the lookup tables are broadcast
//! once per decoding, blocks are scanned from wherever the run starts (no alignment
//! head), and the first flagged byte of the first flagged block (from the block's error
//! vectors, already in registers) locates the error to within 3 bytes, where the DFA
//! takes over: no second scan of the block, no scalar walk of the run. The run before
//! the error is converted by the backend's [`ConvertValid16`] while it is still in L1.
//!
//! The AVX-512 VBMI2 backend does not stop at each error: [`mark_error_units`] marks
//! the error units of a whole stretch, which its kernel then converts in one call,
//! writing U+FFFD itself (`avx512_utf16_lossy`).

use super::lossy_run::{block_error, error_near, first_flagged};
use super::utf16::{convert_runs, ConvertValid16};
use super::validate::{incomplete_tail, Lookup, BLOCK};
use super::vector::Vector;
use crate::fast::dfa;
#[cfg(target_arch = "x86_64")]
use crate::fast::lossy::{first_unit, DENSE_AFTER_CLOSE_ERRORS, DENSE_WHEN_CLOSER_THAN};
use crate::fast::Utf8Error;

/// Input bytes scanned, then converted, per step of [`lossy_step`]: small enough to
/// stay in L1 between the two passes.
const STEP_CHUNK: usize = 8 * 1024;

/// Appends the UTF-16 encoding of `bytes` to `out`; on error, that of the well-formed
/// prefix, and returns the error (std's shape): the strict decoder's contract, with the
/// lookup tables (`lookup`) and the conversion's buffer (`scratch`) from the caller.
///
/// # Safety
/// The instruction sets of `V` and `C` must be available.
#[inline(always)]
pub(crate) unsafe fn lossy_step<V: Vector, C: ConvertValid16>(
    lookup: &Lookup<V>,
    bytes: &[u8],
    out: &mut Vec<u16>,
    scratch: &mut Vec<u32>,
) -> Result<(), Utf8Error> {
    // SAFETY: the caller meets this function's `# Safety` contract; `first_flag` and
    // the DFA agree with std, as `convert_runs` requires.
    unsafe {
        convert_runs::<C>(bytes, out, scratch, STEP_CHUNK, |start, end| {
            let flagged = first_flag(lookup, bytes, start, end)?;
            // The error unit is a few bytes before `flagged` at most (see `error_near`);
            // a position at `end` is a character cut by `end`, which only the DFA's
            // walk over the rest of the input can tell apart from an error.
            Some(match error_near(bytes, start, flagged.min(end)) {
                Ok(error) => Err(error),
                Err(restart) => dfa::validate_from(bytes, restart),
            })
        })
    }
}

/// The first byte of `bytes[start..end]` the lookup flags, `start` a character boundary
/// and the bytes after `end` taken as ASCII (a position at or past `end` then means a
/// character cut by `end`); `None` if `bytes[start..end]` is well-formed.
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
unsafe fn first_flag<V: Vector>(
    lookup: &Lookup<V>,
    bytes: &[u8],
    start: usize,
    end: usize,
) -> Option<usize> {
    // SAFETY: loads read `pos..pos + BLOCK <= end` or the zero-padded copy of the rest.
    unsafe {
        let mut previous = V::splat(0);
        let mut pos = start;
        while pos + BLOCK <= end {
            let mut inputs = [V::splat(0); 4];
            let mut any = V::splat(0);
            let mut i = 0;
            while i < BLOCK / V::BYTES {
                inputs[i] = V::load_unaligned(bytes.as_ptr().add(pos + i * V::BYTES));
                any = any.or(inputs[i]);
                i += 1;
            }
            let flagged = if any.any_high_bit() {
                block_error(lookup, &inputs, previous).any_bit_set()
            } else {
                incomplete_tail(previous).any_bit_set()
            };
            if flagged {
                return Some(pos + first_flagged(lookup, &inputs, previous));
            }
            previous = inputs[BLOCK / V::BYTES - 1];
            pos += BLOCK;
        }
        if pos == end {
            return incomplete_tail(previous).any_bit_set().then_some(end);
        }
        // The last partial block, followed by zeros (ASCII), which the lookup flags
        // after a character cut by `end`.
        let mut padded = [0u8; BLOCK];
        padded[..end - pos].copy_from_slice(&bytes[pos..end]);
        let mut inputs = [V::splat(0); 4];
        let mut i = 0;
        while i < BLOCK / V::BYTES {
            inputs[i] = V::load_unaligned(padded.as_ptr().add(i * V::BYTES));
            i += 1;
        }
        block_error(lookup, &inputs, previous)
            .any_bit_set()
            .then(|| pos + first_flagged(lookup, &inputs, previous))
    }
}

/// Finds the error units of `bytes[start..end]` and sets the bit of each one's first
/// byte in `marks` (bit `i % 64` of word `i / 64` for `bytes[start + i]`, the other bits
/// left as they were); returns how many there are, or `None` where they come close
/// together (random-looking input, which the step and the dense loop handle better),
/// or, which the lookup rules out, the DFA finds no error where the lookup flags one.
///
/// `start` is a unit boundary, and no unit crosses `end` (it is the end of input, or
/// the byte there is not a tail, or it is a tail after 3 tails: every maximal subpart
/// is a lead and at most 2 tails, or 1 stray tail; Unicode §3.9, D93b). So the units
/// of the stretch are those of the whole input.
///
/// The blocks are checked by the lookup from wherever the run starts, as in
/// [`lossy_step`]; at a flagged block the DFA measures the error unit near the first
/// flagged byte (`error_near`) and the error units straight after it, and the scan goes
/// on after them with the state of the start of input.
///
/// # Safety
/// `V`'s instruction set must be available; `start <= end <= bytes.len()`, and `marks`
/// has a bit for every byte of `bytes[start..end]`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn mark_error_units<V: Vector>(
    lookup: &Lookup<V>,
    bytes: &[u8],
    start: usize,
    end: usize,
    marks: &mut [u64],
) -> Option<usize> {
    let len = bytes.len();
    let mut pos = start;
    let mut run_start = start;
    // SAFETY: `V`'s instruction set is available (caller's contract).
    let zero = unsafe { V::splat(0) };
    let mut previous = zero;
    let mut units = 0;
    let mut close_errors = 0;
    loop {
        // SAFETY: `V`'s instruction set is available (caller's contract); `scan_block`
        // reads `pos..end` only.
        let flagged = match unsafe { scan_block(lookup, bytes, pos, end, &mut previous) } {
            Scan::Clean(next) => {
                pos = next;
                continue;
            }
            Scan::Done => return Some(units),
            Scan::Flagged(flagged) => flagged,
        };
        let error = error_near(bytes, run_start, flagged.min(end)).ok()?;
        let at = error.valid_up_to();
        if at >= end {
            // A unit of the next stretch (not reached: no unit crosses `end`).
            return Some(units);
        }
        marks[(at - start) / 64] |= 1 << ((at - start) % 64);
        units += 1;
        pos = match error.error_len() {
            Some(unit_len) => at + unit_len,
            // A character cut off by the end of input: the last unit.
            None => return Some(units),
        };
        // Error units straight after it (a lead's stray tails).
        while pos < end && bytes[pos] >= 0x80 {
            let (unit_len, well_formed) = first_unit(&bytes[pos..(pos + 4).min(len)]);
            if well_formed {
                break;
            }
            marks[(pos - start) / 64] |= 1 << ((pos - start) % 64);
            units += 1;
            pos += unit_len;
        }
        close_errors = if at - run_start < DENSE_WHEN_CLOSER_THAN {
            close_errors + 1
        } else {
            0
        };
        if close_errors >= DENSE_AFTER_CLOSE_ERRORS {
            return None;
        }
        run_start = pos;
        previous = zero;
    }
}

/// What [`scan_block`] found.
#[cfg(target_arch = "x86_64")]
enum Scan {
    /// The block is clean; the scan goes on from here.
    Clean(usize),
    /// `bytes[..end]` is clean from the run's start.
    Done,
    /// The first flagged byte (at `end` or past it: a character cut by `end`).
    Flagged(usize),
}

/// Checks the block of `bytes[pos..end]` at `pos` (a whole one, or the rest padded
/// with zeros, ASCII), after `previous`, which it updates.
///
/// # Safety
/// `V`'s instruction set must be available; `pos <= end <= bytes.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn scan_block<V: Vector>(
    lookup: &Lookup<V>,
    bytes: &[u8],
    pos: usize,
    end: usize,
    previous: &mut V,
) -> Scan {
    // SAFETY: loads read `pos..pos + BLOCK <= end` or the zero-padded copy of the rest.
    unsafe {
        if pos >= end {
            return if incomplete_tail(*previous).any_bit_set() {
                Scan::Flagged(end)
            } else {
                Scan::Done
            };
        }
        let whole = pos + BLOCK <= end;
        let inputs = if whole {
            load_block::<V>(bytes.as_ptr().add(pos))
        } else {
            let mut padded = [0u8; BLOCK];
            padded[..end - pos].copy_from_slice(&bytes[pos..end]);
            load_block::<V>(padded.as_ptr())
        };
        let mut any = inputs[0];
        let mut i = 1;
        while i < BLOCK / V::BYTES {
            any = any.or(inputs[i]);
            i += 1;
        }
        let flagged = if any.any_high_bit() {
            block_error(lookup, &inputs, *previous).any_bit_set()
        } else {
            incomplete_tail(*previous).any_bit_set()
        };
        if flagged {
            return Scan::Flagged(pos + first_flagged(lookup, &inputs, *previous));
        }
        if !whole {
            return Scan::Done;
        }
        *previous = inputs[BLOCK / V::BYTES - 1];
        Scan::Clean(pos + BLOCK)
    }
}

/// The block of `BLOCK` bytes at `src`, in the first `BLOCK / V::BYTES` vectors.
///
/// # Safety
/// `V`'s instruction set must be available; `src` valid for reads of `BLOCK` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn load_block<V: Vector>(src: *const u8) -> [V; 4] {
    // SAFETY: `V`'s instruction set is available, and the loads are within the `BLOCK`
    // bytes at `src` (caller's contract).
    unsafe {
        let mut inputs = [V::splat(0); 4];
        let mut i = 0;
        while i < BLOCK / V::BYTES {
            inputs[i] = V::load_unaligned(src.add(i * V::BYTES));
            i += 1;
        }
        inputs
    }
}
