//! UTF-8 to UTF-16, strict: the code units of the well-formed prefix, and std's error.
//!
//! The Unicode Standard, §3.9, D91: "UTF-16 encoding form: The Unicode encoding form
//! that assigns each Unicode scalar value in the ranges U+0000..U+D7FF and
//! U+E000..U+FFFF to a single unsigned 16-bit code unit with the same numeric value as
//! the Unicode scalar value, and that assigns each Unicode scalar value in the range
//! U+10000..U+10FFFF to a surrogate pair." Table 3-5 gives the pair's bits:
//!
//! ```text
//! 000uuuuuxxxxxxxxxxxxxxxx  ->  110110wwwwxxxxxx 110111xxxxxxxxxx   (wwww = uuuuu - 1)
//! ```
//!
//! Every UTF-8 character becomes at most as many code units as it has bytes (a 4-byte
//! character becomes a pair, shorter ones one unit), and a lossy error unit of at least
//! one byte becomes one U+FFFD: so `bytes.len()` code units always suffice, and the
//! output is reserved once.
//!
//! The SIMD backends convert with `simd::utf16`: SIMD validation, then a conversion
//! of each well-formed chunk straight to code units (in registers with AVX-512 VBMI2;
//! through an L1-resident UTF-32 buffer for the 16-byte kernels). This file holds the
//! scalar backend's path, which also serves as the narrowing step of the latter: runs
//! of ASCII are widened from bytes straight to code units, a block of 64 at a time
//! (validation and conversion in one pass); other text is validated and converted to
//! scalar values by the DFA, a chunk of at most 8 KiB at a time into a scratch buffer
//! that stays in L1, and the scalars are narrowed to code units ([`narrow`]), 16 at a
//! time where none needs a surrogate pair.

use super::{dfa, Utf8Error};

/// Input bytes converted per step: the same chunk as the UTF-32 path, so its scalars
/// (at most 32 KiB) stay in L1 until they are narrowed.
const CHUNK: usize = 8 * 1024;

/// Bytes checked and widened per step of [`widen_ascii`].
const ASCII_BLOCK: usize = 64;

/// Appends the UTF-16 code units of `bytes` to `out`; on error, those of the
/// well-formed prefix, and returns the error (std's shape). `utf32` is a backend's
/// UTF-8 to UTF-32 decoder (validation included); `scratch` a reusable buffer for it.
///
/// # Safety
/// `utf32` must be safe to call (its backend available) and agree with std.
#[inline(always)]
pub(crate) unsafe fn decode_utf16_using(
    bytes: &[u8],
    out: &mut Vec<u16>,
    scratch: &mut Vec<u32>,
    utf32: impl Fn(&[u8], &mut Vec<u32>) -> Result<(), Utf8Error>,
) -> Result<(), Utf8Error> {
    let len = bytes.len();
    out.reserve(len);
    let mut start = 0;
    while start < len {
        start += widen_ascii(&bytes[start..], out);
        if start == len {
            break;
        }
        let end = dfa::chunk_end(bytes, start, CHUNK);
        scratch.clear();
        let result = utf32(&bytes[start..end], scratch);
        // On error `scratch` holds the scalars of the chunk's well-formed prefix.
        narrow(scratch, out);
        if let Err(error) = result {
            return Err(error_in_input(
                bytes,
                start + error.valid_up_to(),
                error,
                end,
            ));
        }
        start = end;
    }
    Ok(())
}

/// The error of the whole input, given the `error` a chunk ending at `chunk_end` gave
/// at input offset `at`. A unit rejected inside the chunk is the same unit in the whole
/// input; one the chunk's end left incomplete is measured again on the input.
#[inline(always)]
fn error_in_input(bytes: &[u8], at: usize, error: Utf8Error, chunk_end: usize) -> Utf8Error {
    if error.error_len().is_some() || chunk_end == bytes.len() {
        Utf8Error::new(at, error.error_len())
    } else {
        dfa::error_at(bytes, at)
    }
}

/// Widens the all-ASCII prefix of `bytes`, in whole 64-byte blocks, to code units
/// appended to `out` (which has room for `bytes.len()` more); returns its length.
#[inline(always)]
pub(crate) fn widen_ascii(bytes: &[u8], out: &mut Vec<u16>) -> usize {
    out.reserve(bytes.len());
    let mut pos = 0;
    let spare = out.spare_capacity_mut();
    while pos + ASCII_BLOCK <= bytes.len() {
        let block: &[u8; ASCII_BLOCK] = bytes[pos..pos + ASCII_BLOCK].try_into().unwrap();
        // Eight words or-ed together: one test per block, which the compiler turns into
        // vector loads and a vector test.
        let high = block.chunks_exact(8).fold(0u64, |acc, word| {
            acc | u64::from_le_bytes(word.try_into().unwrap())
        });
        if high & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        for (slot, &byte) in spare[pos..pos + ASCII_BLOCK].iter_mut().zip(block) {
            slot.write(u16::from(byte));
        }
        pos += ASCII_BLOCK;
    }
    let new_len = out.len() + pos;
    // SAFETY: the `pos` code units after the old length were written just above, inside
    // the capacity reserved for `bytes.len() >= pos` more.
    unsafe { out.set_len(new_len) };
    pos
}

/// Appends the UTF-16 encoding of `scalars` (Unicode scalar values) to `out`.
#[inline(always)]
pub(crate) fn narrow(scalars: &[u32], out: &mut Vec<u16>) {
    out.reserve(2 * scalars.len());
    let start = out.len();
    let spare = out.spare_capacity_mut();
    let mut written = 0;
    let mut groups = scalars.chunks_exact(16);
    for group in &mut groups {
        // All below U+10000 (their or is): one unit each, a loop the compiler vectorises.
        if group.iter().fold(0, |acc, &c| acc | c) < 0x1_0000 {
            for (slot, &scalar) in spare[written..written + 16].iter_mut().zip(group) {
                slot.write(scalar as u16);
            }
            written += 16;
        } else {
            for &scalar in group {
                written += encode_into(scalar, &mut spare[written..]);
            }
        }
    }
    for &scalar in groups.remainder() {
        written += encode_into(scalar, &mut spare[written..]);
    }
    // SAFETY: `written` units after `start` were initialised above, within the
    // `2 * scalars.len()` reserved (at most two units per scalar).
    unsafe { out.set_len(start + written) };
}

/// Writes the one or two code units of `scalar` at the start of `slots`; returns how
/// many (D91, Table 3-5).
#[inline(always)]
fn encode_into(scalar: u32, slots: &mut [std::mem::MaybeUninit<u16>]) -> usize {
    if scalar < 0x1_0000 {
        slots[0].write(scalar as u16);
        1
    } else {
        let offset = scalar - 0x1_0000;
        slots[0].write(0xD800 | (offset >> 10) as u16);
        slots[1].write(0xDC00 | (offset & 0x3FF) as u16);
        2
    }
}

/// Appends the code units of one scalar value to `out`.
#[inline(always)]
pub(crate) fn push_scalar(scalar: u32, out: &mut Vec<u16>) {
    if scalar < 0x1_0000 {
        out.push(scalar as u16);
    } else {
        let offset = scalar - 0x1_0000;
        out.push(0xD800 | (offset >> 10) as u16);
        out.push(0xDC00 | (offset & 0x3FF) as u16);
    }
}

/// The scalar backend's [`decode_utf16_using`]: the DFA's UTF-32 decoder.
///
/// # Safety
/// None: this is `unsafe fn` only to share the backends' function-pointer type.
pub(crate) unsafe fn decode_utf16_scalar(
    bytes: &[u8],
    out: &mut Vec<u16>,
) -> Result<(), Utf8Error> {
    let mut scratch = Vec::new();
    // SAFETY: the DFA is safe to call and agrees with std.
    unsafe { decode_utf16_using(bytes, out, &mut scratch, dfa::decode_utf32) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_matches_encode_utf16_across_groups() {
        let text: String =
            "a\u{e9}\u{4f60}\u{1F600}\u{FFFF}\u{10000}\u{10FFFF}\u{D7FF}\u{E000}".repeat(7);
        let scalars: Vec<u32> = text.chars().map(u32::from).collect();
        let mut out = vec![1u16];
        narrow(&scalars, &mut out);
        let expected: Vec<u16> = std::iter::once(1).chain(text.encode_utf16()).collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn widen_ascii_stops_at_the_first_block_with_a_high_byte() {
        let mut bytes = vec![b'x'; 200];
        bytes[150] = 0xC3;
        let mut out = Vec::new();
        assert_eq!(widen_ascii(&bytes, &mut out), 128);
        assert_eq!(out, vec![u16::from(b'x'); 128]);
    }

    #[test]
    fn chunk_cut_leaves_an_incomplete_error_to_the_whole_input() {
        // A lead at the end of the first chunk, then ASCII: one unit of 1 byte, not
        // an incomplete character.
        // Starts with a non-ASCII character, so the first chunk starts at 0.
        let mut bytes = vec![b'a'; CHUNK + 10];
        bytes[0] = 0xC3;
        bytes[1] = 0xA9;
        bytes[CHUNK - 1] = 0xE4;
        let mut out = Vec::new();
        // SAFETY: the scalar decoder has no precondition.
        let error = unsafe { decode_utf16_scalar(&bytes, &mut out) }.unwrap_err();
        let expected = std::str::from_utf8(&bytes).unwrap_err();
        assert_eq!(error, Utf8Error::from(expected));
        let prefix = std::str::from_utf8(&bytes[..CHUNK - 1]).unwrap();
        assert!(out.iter().copied().eq(prefix.encode_utf16()));
    }
}
