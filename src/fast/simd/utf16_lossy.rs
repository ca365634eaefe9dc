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

use super::lossy_run::{block_error, error_near, first_flagged};
use super::utf16::{convert_runs, ConvertValid16};
use super::validate::{incomplete_tail, Lookup, BLOCK};
use super::vector::Vector;
use crate::fast::dfa;
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
