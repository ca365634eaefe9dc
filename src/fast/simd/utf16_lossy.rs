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
//! writing U+FFFD itself (`avx512_utf16_lossy`); the 16-byte kernels' driver
//! (`utf16_lossy_patched`) uses the step up to the first error, then the same marks to
//! convert each stretch in one call, its error units replaced by U+FFFD's bytes.

use super::lossy_run::{block_error, error_near, first_flagged, unit_at, Unit};
use super::utf16::{convert_runs, ConvertValid16, FindError};
use super::validate::{incomplete_tail, Lookup, BLOCK};
use super::vector::Vector;
use crate::fast::dfa;
use crate::fast::lossy::{DENSE_AFTER_CLOSE_ERRORS, DENSE_WHEN_CLOSER_THAN};
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
    // SAFETY: the caller meets this function's `# Safety` contract; `FirstFlag` agrees
    // with std, as `convert_runs` requires.
    unsafe { convert_runs::<C, _>(bytes, out, scratch, STEP_CHUNK, FirstFlag { lookup }) }
}

/// [`FindError`] of [`lossy_step`]: the first byte the lookup flags, and the error unit
/// near it measured by the DFA.
struct FirstFlag<'a, V> {
    lookup: &'a Lookup<V>,
}

impl<V: Vector> FindError for FirstFlag<'_, V> {
    #[inline(always)]
    unsafe fn find(&self, bytes: &[u8], start: usize, end: usize) -> Option<Result<(), Utf8Error>> {
        // SAFETY: `V`'s instruction set is available (caller's contract).
        let flagged = unsafe { first_flag(self.lookup, bytes, start, end)? };
        // The error unit is a few bytes before `flagged` at most (see `error_near`);
        // a position at `end` is a character cut by `end`, which only the DFA's
        // walk over the rest of the input can tell apart from an error.
        Some(match error_near(bytes, start, flagged.min(end)) {
            Ok(error) => Err(error),
            Err(restart) => dfa::validate_from(bytes, restart),
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

/// Most bytes [`mark_error_units`] takes at a time.
pub(crate) const MARK_STRETCH: usize = 4096;

/// Words of [`mark_error_units`]'s map of flagged bytes: one bit per byte, and a word
/// for a flag at the end.
const FLAG_WORDS: usize = MARK_STRETCH / 64 + 2;

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
/// Two passes. The lookup flags the bytes of the whole stretch as one stream, a block
/// at a time with no branch on the result ([`flag_bytes`]). Then the flagged bytes are
/// visited in order: the DFA measures the error unit near one (`error_near`), and walks
/// on over the units after it until 3 bytes past the last error unit. From there the
/// stream's flags are those of a check started at that boundary: the lookup flags a
/// byte from it and the 3 bytes before, all now in well-formed characters.
///
/// # Safety
/// `V`'s instruction set must be available; `start <= end <= bytes.len()`,
/// `end - start <= MARK_STRETCH`, and `marks` has a bit for every byte of
/// `bytes[start..end]`.
#[inline(always)]
pub(crate) unsafe fn mark_error_units<V: Vector>(
    lookup: &Lookup<V>,
    bytes: &[u8],
    start: usize,
    end: usize,
    marks: &mut [u64],
) -> Option<usize> {
    let mut flags = [0u64; FLAG_WORDS];
    // SAFETY: the caller's contract, passed on.
    unsafe { flag_bytes(lookup, bytes, start, end, &mut flags) };
    let mut mark = |at: usize| marks[(at - start) / 64] |= 1 << ((at - start) % 64);
    let mut pos = start;
    let mut units = 0;
    let mut close_errors = 0;
    while let Some(flagged) = next_flag(&flags, pos - start) {
        let run_start = pos;
        let error = error_near(bytes, pos, (start + flagged).min(end)).ok()?;
        let at = error.valid_up_to();
        if at >= end {
            // A unit of the next stretch (not reached: no unit crosses `end`).
            break;
        }
        mark(at);
        units += 1;
        let Some(unit_len) = error.error_len() else {
            // A character cut off by the end of input: the last unit.
            break;
        };
        pos = at + unit_len;
        // The units after it, up to 3 bytes past the last error unit.
        let mut clean_from = pos;
        while pos < end && pos < clean_from + 3 {
            match unit_at(bytes, pos) {
                Unit::Char(unit_len) => pos += unit_len,
                Unit::Subpart(unit_len) => {
                    mark(pos);
                    units += 1;
                    pos += unit_len;
                    clean_from = pos;
                }
                Unit::Incomplete => {
                    mark(pos);
                    return Some(units + 1);
                }
            }
        }
        close_errors = if at - run_start < DENSE_WHEN_CLOSER_THAN {
            close_errors + 1
        } else {
            0
        };
        if close_errors >= DENSE_AFTER_CLOSE_ERRORS {
            return None;
        }
    }
    Some(units)
}

/// The first flagged byte at or after offset `from` of a map [`flag_bytes`] wrote.
#[inline(always)]
fn next_flag(flags: &[u64; FLAG_WORDS], from: usize) -> Option<usize> {
    let mut word = from / 64;
    let mut bits = *flags.get(word)? & (u64::MAX << (from % 64));
    while bits == 0 {
        word += 1;
        bits = *flags.get(word)?;
    }
    Some(word * 64 + bits.trailing_zeros() as usize)
}

/// Pass 1 of [`mark_error_units`]: the bytes of `bytes[start..end]` the lookup flags,
/// checked as one stream from `start` with the state of the start of input, into
/// `flags` (bit `i % 64` of word `i / 64` for `bytes[start + i]`); a character cut by
/// `end` is flagged at `end` or at the padding after it.
///
/// # Safety
/// As [`mark_error_units`].
#[inline(always)]
unsafe fn flag_bytes<V: Vector>(
    lookup: &Lookup<V>,
    bytes: &[u8],
    start: usize,
    end: usize,
    flags: &mut [u64; FLAG_WORDS],
) {
    // SAFETY: loads read `pos..pos + BLOCK <= end` or the zero-padded copy of the rest;
    // at most `MARK_STRETCH / BLOCK + 1` words are written (caller's contract).
    unsafe {
        let mut previous = V::splat(0);
        let mut pos = start;
        let mut word = 0;
        while pos + BLOCK <= end {
            let inputs = load_block::<V>(bytes.as_ptr().add(pos));
            flags[word] = block_flags(lookup, &inputs, previous);
            previous = inputs[BLOCK / V::BYTES - 1];
            pos += BLOCK;
            word += 1;
        }
        if pos == end {
            flags[word] = u64::from(incomplete_tail(previous).any_bit_set());
            return;
        }
        let mut padded = [0u8; BLOCK];
        padded[..end - pos].copy_from_slice(&bytes[pos..end]);
        let inputs = load_block::<V>(padded.as_ptr());
        flags[word] = block_flags(lookup, &inputs, previous);
    }
}

/// The mask of the bytes of a block (`inputs`) the lookup flags after `previous`.
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
unsafe fn block_flags<V: Vector>(lookup: &Lookup<V>, inputs: &[V; 4], previous: V) -> u64 {
    // SAFETY: the caller meets this function's `# Safety` contract (no memory access).
    unsafe {
        let mut before = previous;
        let mut mask = 0;
        let mut i = 0;
        while i < BLOCK / V::BYTES {
            mask |= lookup.check(inputs[i], before).nonzero_mask() << (i * V::BYTES);
            before = inputs[i];
            i += 1;
        }
        mask
    }
}

/// The block of `BLOCK` bytes at `src`, in the first `BLOCK / V::BYTES` vectors.
///
/// # Safety
/// `V`'s instruction set must be available; `src` valid for reads of `BLOCK` bytes.
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
