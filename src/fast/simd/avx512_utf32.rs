//! The AVX-512 UTF-8 to UTF-32 conversion of well-formed text (AVX512F/BW, VBMI for
//! byte permutes, VBMI2 for byte compression), after Clausecker & Lemire, "Transcoding
//! Unicode characters with AVX-512 instructions" (Software: Practice and Experience
//! 53(12), 2023), section 4: locate the characters, gather each one's bytes into a
//! 32-bit lane with one permute, and assemble all lanes at once.
//!
//! Per 64-byte window `a` (with the next 64 bytes `b`, for a character that starts in
//! `a` and ends in `b`):
//!
//! 1. every non-tail byte of `a` starts a character (the input is well-formed): a
//!    64-bit mask of character starts;
//! 2. `vpcompressb` of the byte offsets 0..63 under that mask: the offsets of the
//!    window's characters, in order;
//! 3. per group of 16 characters, `vpermb` spreads offset `i` to the 4 bytes of lane `i`
//!    (plus 3, 2, 1, 0), and `vpermt2b` gathers from `a:b` the 4 bytes from the lead on,
//!    reversed: the lead is the lane's top byte, the bytes past the character below it;
//! 4. the lead's high nibble picks (by `vpermd`) a right shift that drops the bytes
//!    past the character, and the mask of its payload bits; then the lane is assembled
//!    as [`super::assemble_lane`] describes (`vpmaddubsw`, `vpmaddwd`);
//! 5. a store of the group's lanes (masked in the last window, so that the output is
//!    written exactly).
//!
//! Only whole groups of 16 characters are converted per window (64 bytes that start at
//! a character hold at least 16): the next window starts at the first character not
//! converted (found with `pdep`), or after the last character that starts in `a`. An all-ASCII
//! window is widened directly (`vpmovzxbd`). Windows past the end of input are read
//! with masked loads, which do not touch the bytes they mask out.

use core::arch::x86_64::*;

use super::utf32::ConvertValid;

/// [`ConvertValid`] by the AVX-512 kernel of this file.
pub struct Avx512Convert;

impl ConvertValid for Avx512Convert {
    #[inline(always)]
    unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u32>) {
        // SAFETY: the same contract (AVX512F/BW/VBMI/VBMI2 and BMI2 available, `bytes`
        // well-formed).
        unsafe { convert_valid(bytes, out) }
    }
}

/// The byte offsets 0..63.
static OFFSETS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = i as u8;
        i += 1;
    }
    table
};

/// Per group `g` of 16 characters, the `vpermb` index that puts compressed offset
/// `16 g + i` in the 4 bytes of lane `i`.
static SPREAD: [[u8; 64]; 4] = {
    let mut table = [[0u8; 64]; 4];
    let mut group = 0;
    while group < 4 {
        let mut byte = 0;
        while byte < 64 {
            table[group][byte] = (16 * group + byte / 4) as u8;
            byte += 1;
        }
        group += 1;
    }
    table
};

/// Added to the spread offsets: byte `j` of a lane takes input byte `lead + 3 - j`, so
/// that the lead lands in the top byte and the last byte of a 4-byte character in
/// the bottom one.
static REVERSE: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut byte = 0;
    while byte < 64 {
        table[byte] = 3 - (byte % 4) as u8;
        byte += 1;
    }
    table
};

/// By the lead's high nibble: the right shift (in bits) that leaves exactly the
/// character's bytes in its lane. 0..7 is ASCII (1 byte), C..D a 2-byte lead, E a
/// 3-byte lead, F a 4-byte lead; 8..B (a tail) never leads a character here.
static SHIFT_BY_NIBBLE: [u32; 16] = [24, 24, 24, 24, 24, 24, 24, 24, 0, 0, 0, 0, 16, 16, 8, 0];

/// By the lead's high nibble: the payload bits of the shifted lane (RFC 3629 section 3:
/// `0xxxxxxx`, `110xxxxx 10xxxxxx`, `1110xxxx 10xxxxxx 10xxxxxx`,
/// `11110xxx 10xxxxxx 10xxxxxx 10xxxxxx`).
static PAYLOAD_BY_NIBBLE: [u32; 16] = [
    0x7F,
    0x7F,
    0x7F,
    0x7F,
    0x7F,
    0x7F,
    0x7F,
    0x7F,
    0,
    0,
    0,
    0,
    0x1F3F,
    0x1F3F,
    0x0F_3F3F,
    0x073F_3F3F,
];

/// Appends the scalar values of well-formed `bytes` to `out`.
///
/// # Safety
/// AVX512F, AVX512BW, AVX512VBMI, AVX512VBMI2 and BMI2 must be available; `bytes` must be
/// well-formed UTF-8 (else the output is wrong, though memory stays safe: every store is
/// masked to the characters counted, at most one per byte).
#[inline(always)]
unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u32>) {
    let len = bytes.len();
    // At most one scalar per byte.
    out.reserve(len);
    let base = out.len();
    // SAFETY (every load, store and intrinsic below): the instruction sets are
    // available (caller's contract). `out` has `base + len` elements of capacity, and
    // the stores stay below `base + written + count <= base + len` (one character per
    // lead byte counted). Full loads read `pos..pos + 128 <= len`; masked loads read
    // only the bytes below `len` that their mask selects.
    unsafe {
        let dst = out.as_mut_ptr().add(base);
        let src = bytes.as_ptr();
        let offsets = _mm512_loadu_si512(OFFSETS.as_ptr() as *const __m512i);
        let reverse = _mm512_loadu_si512(REVERSE.as_ptr() as *const __m512i);
        let shifts = _mm512_loadu_si512(SHIFT_BY_NIBBLE.as_ptr() as *const __m512i);
        let payloads = _mm512_loadu_si512(PAYLOAD_BY_NIBBLE.as_ptr() as *const __m512i);
        let spread = [
            _mm512_loadu_si512(SPREAD[0].as_ptr() as *const __m512i),
            _mm512_loadu_si512(SPREAD[1].as_ptr() as *const __m512i),
            _mm512_loadu_si512(SPREAD[2].as_ptr() as *const __m512i),
            _mm512_loadu_si512(SPREAD[3].as_ptr() as *const __m512i),
        ];
        let below_tails = _mm512_set1_epi8(-64);
        let byte_pairs = _mm512_set1_epi16(0x4001);
        let word_pairs = _mm512_set1_epi32(0x1000_0001);
        let mut pos = 0;
        let mut written = 0;
        while pos < len {
            let remaining = len - pos;
            let (a, b, in_a) = if remaining >= 128 {
                let a = _mm512_loadu_si512(src.add(pos) as *const __m512i);
                let b = _mm512_loadu_si512(src.add(pos + 64) as *const __m512i);
                (a, b, u64::MAX)
            } else {
                let in_a = mask_below(remaining);
                let in_b = mask_below(remaining.saturating_sub(64));
                let a = _mm512_maskz_loadu_epi8(in_a, src.add(pos) as *const i8);
                let b = _mm512_maskz_loadu_epi8(in_b, src.add(pos + 64) as *const i8);
                (a, b, in_a)
            };
            if in_a == u64::MAX && _mm512_movepi8_mask(a) == 0 {
                // All ASCII: zero-extend the 64 bytes.
                let out = dst.add(written) as *mut __m512i;
                _mm512_storeu_si512(out, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(a)));
                _mm512_storeu_si512(
                    out.add(1),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(a)),
                );
                _mm512_storeu_si512(
                    out.add(2),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(a)),
                );
                _mm512_storeu_si512(
                    out.add(3),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(a)),
                );
                pos += 64;
                written += 64;
                continue;
            }
            // Tails 80..BF are exactly the bytes below -64 as signed bytes; zeros past
            // the end are not tails, and are masked out of the leads.
            let leads = !_mm512_cmplt_epi8_mask(a, below_tails) & in_a;
            let count = leads.count_ones() as usize;
            let starts = _mm512_maskz_compress_epi8(leads, offsets);
            // Whole groups of 16 only (64 well-formed bytes from a character start hold
            // at least 16 characters); the rest start the next window. At the end of
            // input, every character, with a masked last store.
            let at_end = remaining <= 64;
            let groups = if at_end {
                count.div_ceil(16)
            } else {
                count / 16
            };
            let converted = if at_end { count } else { 16 * groups };
            for (group, &spread) in spread.iter().enumerate().take(groups) {
                let index = _mm512_add_epi8(_mm512_permutexvar_epi8(spread, starts), reverse);
                let gathered = _mm512_permutex2var_epi8(a, index, b);
                let nibble = _mm512_srli_epi32::<28>(gathered);
                let shifted = _mm512_srlv_epi32(gathered, _mm512_permutexvar_epi32(nibble, shifts));
                let bits = _mm512_and_si512(shifted, _mm512_permutexvar_epi32(nibble, payloads));
                let scalars = _mm512_madd_epi16(_mm512_maddubs_epi16(bits, byte_pairs), word_pairs);
                let lanes = (converted - 16 * group).min(16);
                let store = (u32::MAX >> (32 - lanes)) as __mmask16;
                _mm512_mask_storeu_epi32(dst.add(written + 16 * group) as *mut i32, store, scalars);
            }
            written += converted;
            if at_end {
                break;
            }
            pos += if converted < count {
                // The start of the first character not converted: the next set bit.
                _pdep_u64(1 << converted, leads).trailing_zeros() as usize
            } else {
                // The last character of `a` ends before the first non-tail of `b` (at
                // most 3 bytes in; a zero past the end of input counts as a non-tail).
                let tails_b = _mm512_cmplt_epi8_mask(b, below_tails);
                64 + (!tails_b).trailing_zeros() as usize
            };
        }
        debug_assert!(written <= len);
        out.set_len(base + written);
    }
}

/// The mask of the first `n` bytes of a 64-byte window (all of them if `n >= 64`).
#[inline(always)]
fn mask_below(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`convert_valid`] on its own (the backend tests reach it only through validation):
    /// texts of every length up to 300 bytes, mixing characters of one to four bytes in
    /// runs, so that windows hold 16 to 64 characters and cut characters at every
    /// offset.
    #[test]
    fn converts_like_std_chars() {
        if !super::super::avx512::is_available() || !super::super::avx512::has_vbmi2() {
            return;
        }
        // One character per UTF-8 length (RFC 3629 section 3), and the extremes.
        let samples = [
            'a',
            '\u{7F}',
            'é',
            '\u{7FF}',
            '中',
            '\u{FFFF}',
            '😀',
            '\u{10FFFF}',
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut out = Vec::new();
        for round in 0..400 {
            let target_len = round % 300;
            let mut text = String::new();
            while text.len() < target_len {
                let sample = samples[(next() % samples.len() as u64) as usize];
                for _ in 0..1 + next() % 24 {
                    text.push(sample);
                }
            }
            for cut in 0..text.len().min(4) {
                let mut start = cut;
                while !text.is_char_boundary(start) {
                    start -= 1;
                }
                let piece = &text[start..];
                out.clear();
                out.push(7);
                // SAFETY: the features were checked above; `piece` is a `str`.
                unsafe { Avx512Convert::convert_valid(piece.as_bytes(), &mut out) };
                let expected: Vec<u32> = [7]
                    .into_iter()
                    .chain(piece.chars().map(u32::from))
                    .collect();
                assert_eq!(out, expected, "{:02X?}", piece.as_bytes());
            }
        }
    }
}
