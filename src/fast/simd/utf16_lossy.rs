//! Lossy UTF-8 to UTF-16 over the SIMD registers: the input is cut into chunks at safe
//! points; each chunk is decoded lossily as UTF-8 by the backend's block loop
//! (`lossy_run`, which writes U+FFFD for each error unit inside its SIMD loop), into a
//! buffer that is still in cache, and that well-formed UTF-8 is converted to code units by the
//! backend's [`ConvertValid16`] kernel in one call.
//!
//! The Unicode Standard, §3.9, U+FFFD Substitution of Maximal Subparts: "An increasingly
//! common practice is to replace each maximal subpart of an ill-formed subsequence by a
//! single U+FFFD." U+FFFD is one UTF-16 code unit (D91), so the UTF-16 of the lossy
//! UTF-8 decoding is the lossy UTF-16 decoding.
//!
//! Why not convert from the input between errors: that stops the conversion kernel at
//! each error and starts it again after the error unit, with its setup, its partial
//! last group and a branch or two that no predictor learns on text with errors at
//! random places (at 1 MiB of 1%-corrupt text, about 75 ns per error). Here the kernel
//! runs over whole chunks whatever their errors, and an error costs what it costs in
//! lossy UTF-8 decoding.
//!
//! Where the chunks are cut: a maximal subpart is at most 4 bytes, a lead and up to 3
//! tails, so it never goes on past a byte that is not a tail, nor past a tail 4 bytes
//! after its start. `chunk_end` cuts before a byte that is not a tail, or else (4 tails
//! in a row) before a tail that at least 3 tails precede, where no subpart can be cut.
//! The lossy decoding of the input is then that of its chunks, one after the other,
//! and a character or subpart cut by the end of a chunk is one cut by the end of input.

use super::lossy_run::HEADROOM;
use super::utf16::ConvertValid16;
use super::utf32::chunk_end;
use super::validate::first_bad_block;
use super::vector::Vector;
use crate::fast::dfa;

/// Input bytes decoded per chunk: the chunk and its repaired UTF-8 (as long, or up to
/// three times as long on random bytes) are still in cache for the conversion. 4 KiB
/// measured the same on `mixed` and `mixed-1%-errors` (`cargo bench --bench ratios --
/// utf16-lossy`).
const LOSSY_CHUNK: usize = 8 * 1024;

/// Appends the lossy UTF-16 decoding of `bytes` to `out`: each chunk of at most
/// [`LOSSY_CHUNK`] bytes (after leading ASCII blocks, widened straight to code units)
/// checked by `V`, its well-formed prefix converted by `C`, the rest decoded by `lossy_run(chunk, 0, buffer)` (the backend's lossy UTF-8 block loop:
/// appends `String::from_utf8_lossy(chunk)` to the buffer), then converted by `C`.
///
/// # Safety
/// The instruction sets of `V` and `C` must be available, and `lossy_run` safe to call (its backend
/// available) and append the lossy UTF-8 decoding of its input, given a buffer with
/// [`HEADROOM`] bytes of room beyond the input's length.
#[inline(always)]
pub(crate) unsafe fn decode_utf16_lossy_by<V: Vector, C: ConvertValid16>(
    bytes: &[u8],
    out: &mut Vec<u16>,
    lossy_run: unsafe fn(&[u8], usize, &mut Vec<u8>),
) {
    let len = bytes.len();
    // The output has at most one code unit per input byte (an error unit of one byte or
    // more is one U+FFFD); the kernel reserves room for one unit per byte of the UTF-8
    // it is given, up to three per input byte of the chunk: one reservation up front
    // covers that, so the output is never moved.
    out.reserve(len + 2 * len.min(LOSSY_CHUNK));
    let mut repaired: Vec<u8> = Vec::new();
    let mut scratch = Vec::new();
    let mut pos = 0;
    // SAFETY: the caller meets this function's `# Safety` contract; `repaired` holds
    // the lossy UTF-8 decoding of a chunk, which is well-formed, as `C` requires.
    unsafe {
        while pos < len {
            pos += C::convert_ascii(&bytes[pos..], out);
            if pos == len {
                break;
            }
            let end = chunk_end(bytes, pos, LOSSY_CHUNK);
            let chunk = &bytes[pos..end];
            // The chunk's well-formed prefix is converted from the input; a character
            // boundary after well-formed text is a safe cut too.
            let clean = first_bad_block::<V>(chunk)
                .map_or(chunk.len(), |block| dfa::boundary_before(chunk, block));
            // One call site of the conversion kernel, which is large once inlined: the
            // well-formed prefix, then (if there is a rest) the rest's lossy decoding.
            for repair in [false, true] {
                let piece = if repair {
                    if clean == chunk.len() {
                        break;
                    }
                    repaired.clear();
                    repaired.reserve(chunk.len() - clean + HEADROOM);
                    lossy_run(&chunk[clean..], 0, &mut repaired);
                    debug_assert!(core::str::from_utf8(&repaired).is_ok());
                    &repaired[..]
                } else {
                    &chunk[..clean]
                };
                C::convert_valid(piece, out, &mut scratch);
            }
            pos = end;
        }
    }
}
