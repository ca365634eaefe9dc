//! The AVX-512 VBMI2 UTF-8 to UTF-16 conversion of well-formed text: the kernel of
//! `avx512_utf32` (character positions, then groups of 16 scalar values assembled in
//! 32-bit lanes), with a [`Sink`] that writes each group as UTF-16 in registers instead
//! of storing the scalar values.
//!
//! Unicode §3.9, D91: "UTF-16 encoding form: The Unicode encoding form that assigns each
//! Unicode scalar value in the ranges U+0000..U+D7FF and U+E000..U+FFFF to a single
//! unsigned 16-bit code unit with the same numeric value as the Unicode scalar value,
//! and that assigns each Unicode scalar value in the range U+10000..U+10FFFF to a
//! surrogate pair", whose bits Table 3-5 gives:
//!
//! ```text
//! 000uuuuuxxxxxxxxxxxxxxxx -> 110110wwwwxxxxxx 110111xxxxxxxxxx   (wwww = uuuuu - 1)
//! ```
//!
//! A stretch without 4-byte characters (no lead F0..F4) has no scalar above U+FFFF: each
//! group is narrowed with `vpmovdw` and stored as 16 code units. Otherwise each 32-bit
//! lane becomes the two words of its pair (high surrogate in the low word, as stored in
//! memory) or its one code unit, and `vpcompressw` drops the unused high words.
//! ASCII blocks are widened with `vpmovzxbw`.

use core::arch::x86_64::*;

use super::avx512_output::{self, Sink, FEW_PAIRS, NO_PAIRS};
use super::avx512_utf32;
use super::utf16::ConvertValid16;

/// [`Sink`] of UTF-16 code units.
pub(super) struct CodeUnits;

impl Sink for CodeUnits {
    type Unit = u16;

    #[inline(always)]
    unsafe fn widen64(src: *const u8, dst: *mut u16) {
        // SAFETY: the caller's contract (64 bytes read, 64 units written).
        unsafe {
            let low = _mm512_cvtepu8_epi16(_mm256_loadu_si256(src as *const __m256i));
            let high = _mm512_cvtepu8_epi16(_mm256_loadu_si256(src.add(32) as *const __m256i));
            _mm512_storeu_si512(dst as *mut __m512i, low);
            _mm512_storeu_si512(dst.add(32) as *mut __m512i, high);
        }
    }

    #[inline(always)]
    unsafe fn store_group<const PAIRS: u8>(scalars: __m512i, lanes: usize, dst: *mut u16) -> usize {
        // The lanes that hold a character of this group.
        let valid = (u32::MAX >> (32 - lanes)) as __mmask16;
        // SAFETY: the instruction sets are available (caller's contract); the stores are
        // masked to the units written, at most one per byte of the characters (a
        // surrogate pair comes from 4 bytes), for which `dst` has room.
        unsafe {
            let supplementary = if PAIRS == NO_PAIRS {
                0
            } else {
                _mm512_mask_cmpge_epu32_mask(valid, scalars, _mm512_set1_epi32(0x1_0000))
            };
            // A group without a pair, in a stretch with none or with few (text with
            // now and then an emoji): narrowed, without the compression. Where many
            // groups have a pair (text that mixes emoji into other scripts) every group
            // is compressed: that branch would be a coin toss, resolved only at the end
            // of the group's chain of permutes, and would cost more than the
            // compression (an input repeated often enough for the predictor to learn
            // it hides that).
            if PAIRS == NO_PAIRS || (PAIRS == FEW_PAIRS && supplementary == 0) {
                let units = _mm512_castsi256_si512(_mm512_cvtepi32_epi16(scalars));
                if lanes == 16 {
                    _mm512_mask_storeu_epi16(dst as *mut i16, 0xFFFF, units);
                } else {
                    _mm512_mask_storeu_epi16(dst as *mut i16, u32::from(valid), units);
                }
                return lanes;
            }
            // Table 3-5: the 20 bits of `scalar - 0x10000`, split 10 and 10.
            let offset = _mm512_sub_epi32(scalars, _mm512_set1_epi32(0x1_0000));
            let high = _mm512_or_si512(_mm512_srli_epi32::<10>(offset), _mm512_set1_epi32(0xD800));
            let low = _mm512_or_si512(
                _mm512_and_si512(offset, _mm512_set1_epi32(0x3FF)),
                _mm512_set1_epi32(0xDC00),
            );
            let pairs = _mm512_or_si512(high, _mm512_slli_epi32::<16>(low));
            // A lane below U+10000 holds its code unit in the low word, zero above.
            let words = _mm512_mask_blend_epi32(supplementary, scalars, pairs);
            // Every valid lane's low word; the high word only of a pair.
            let keep = _pdep_u32(u32::from(valid), 0x5555_5555)
                | _pdep_u32(u32::from(supplementary), 0xAAAA_AAAA);
            let packed = _mm512_maskz_compress_epi16(keep, words);
            let count = keep.count_ones() as usize;
            let store = u32::MAX >> (32 - count);
            _mm512_mask_storeu_epi16(dst as *mut i16, store, packed);
            count
        }
    }

    #[inline(always)]
    unsafe fn convert_short_groups(
        src: *const u8,
        avail: usize,
        chars: usize,
        positions: *const u16,
        dst: *mut u16,
    ) -> Option<usize> {
        // SAFETY: the same contract.
        Some(unsafe { convert_two_byte_groups(src, avail, chars, positions, dst) })
    }
}

/// The 16-bit `vpermt2b` index that gathers, into lane `i` of 32, the character at
/// offset `positions[i]`: its lead in the high byte, the byte after it in the low one.
#[inline(always)]
unsafe fn lead_and_next(positions: __m512i) -> __m512i {
    // SAFETY: AVX512BW is available (caller's contract).
    unsafe {
        let next = _mm512_and_si512(
            _mm512_add_epi16(positions, _mm512_set1_epi16(1)),
            _mm512_set1_epi16(0xFF),
        );
        _mm512_or_si512(next, _mm512_slli_epi16::<8>(positions))
    }
}

/// Converts the `chars` characters whose offsets `positions` holds, none longer than
/// 2 bytes, 32 at a time in 16-bit lanes: twice the characters of a group of
/// [`avx512_utf32`]'s 32-bit lanes, for text of 2-byte characters (Cyrillic, Greek,
/// Hebrew, Arabic ...), whose code units are their scalar values. RFC 3629 §3:
/// `0xxxxxxx` is itself, `110yyyyy 10xxxxxx` is `yyyyyxxxxxx`. Returns `chars`.
///
/// # Safety
/// As [`Sink::convert_short_groups`].
#[inline(always)]
unsafe fn convert_two_byte_groups(
    src: *const u8,
    avail: usize,
    chars: usize,
    positions: *const u16,
    dst: *mut u16,
) -> usize {
    // SAFETY (every load, store and intrinsic below): the instruction sets are
    // available (caller's contract). The 32 characters of a group start at most 62
    // bytes after the first, so their bytes and the byte after each lie in the 128
    // bytes from the first one's block, read as in `avx512_utf32`: whole when inside
    // `avail`, else masked to the bytes below `avail` (addresses by `wrapping_add`).
    // Position reads stay below `chars + 32` entries; stores write one unit per
    // character of the group, `chars` in all.
    unsafe {
        let mut group = 0;
        while group < chars {
            let first = *positions.add(group) as usize;
            let block = first & !63;
            let low_at = (first + 64) & !127;
            let high_at = 2 * block + 64 - low_at;
            let (low, high) = avx512_utf32::window(src, avail, block, low_at, high_at);
            let lanes = _mm512_loadu_si512(positions.add(group) as *const __m512i);
            let words = _mm512_permutex2var_epi8(low, lead_and_next(lanes), high);
            let ascii = _mm512_cmplt_epu16_mask(words, _mm512_set1_epi16(0x8000u16 as i16));
            // (lead & 0x1F) << 6 | (tail & 0x3F), the lead in bits 8..13.
            let two_byte = _mm512_or_si512(
                _mm512_and_si512(_mm512_srli_epi16::<2>(words), _mm512_set1_epi16(0x07C0)),
                _mm512_and_si512(words, _mm512_set1_epi16(0x3F)),
            );
            let units = _mm512_mask_blend_epi16(ascii, two_byte, _mm512_srli_epi16::<8>(words));
            let lanes = chars - group;
            let store = if lanes >= 32 {
                u32::MAX
            } else {
                (1u32 << lanes) - 1
            };
            _mm512_mask_storeu_epi16(dst.add(group) as *mut i16, store, units);
            group += 32;
        }
        chars
    }
}

/// [`ConvertValid16`] by the AVX-512 VBMI2 kernel.
pub struct Avx512Convert16;

impl ConvertValid16 for Avx512Convert16 {
    #[inline(always)]
    unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u16>, _scratch: &mut Vec<u32>) {
        // SAFETY: the same contract (AVX512F/BW/VBMI/VBMI2 and BMI2 available, `bytes`
        // well-formed).
        unsafe { avx512_utf32::convert_valid::<CodeUnits>(bytes, out) }
    }

    #[inline(always)]
    unsafe fn convert_ascii(bytes: &[u8], out: &mut Vec<u16>) -> usize {
        // SAFETY: AVX512F/BW are available (caller's contract).
        unsafe { avx512_output::convert_ascii::<CodeUnits>(bytes, out) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::avx512_output::test_texts;
    use super::*;

    /// The kernel on its own, against std: characters of every length in runs, cut at
    /// every offset of the first 4 bytes, every length up to 300 bytes (so groups end at
    /// every lane, and stretches of 1- and 2-byte characters, of up to 3 and of up to 4
    /// bytes all occur), and texts longer than a stretch, with a surrogate pair across
    /// the stretch boundary, or 2-byte characters only.
    #[test]
    fn converts_like_std_encode_utf16() {
        if !super::super::avx512::is_available() || !super::super::avx512::has_vbmi2() {
            return;
        }
        // Characters of 1 and 2 bytes (the 16-bit groups), up to 3 (no pair), or all.
        let mut texts = test_texts::runs(0x2545_F491_4F6C_DD1D, |round| [4, 6, 8][round % 3]);
        // A pair straddling the 4096-byte stretch boundary, after ASCII and 3-byte text.
        let mut long = "x".repeat(100) + &"中".repeat(1331);
        long.push('😀');
        long.push_str(&"é".repeat(100));
        texts.push(long);
        texts.push("é".repeat(2100) + "a" + &"\u{7FF}".repeat(300));
        // Stretches with few pairs (one character in 200, the groups' branch on a pair)
        // and with many (one in 20, no branch), and one with both kinds of stretch.
        let few = ("中".repeat(199) + "😀").repeat(6);
        let many = ("й".repeat(19) + "🦀").repeat(60);
        texts.push(few.clone());
        texts.push(many.clone());
        texts.push(few + &many);
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        for text in &texts {
            for piece in test_texts::cuts(text) {
                out.clear();
                out.push(7);
                // SAFETY: the features were checked above; `piece` is a `str`.
                unsafe { Avx512Convert16::convert_valid(piece.as_bytes(), &mut out, &mut scratch) };
                let expected: Vec<u16> = [7].into_iter().chain(piece.encode_utf16()).collect();
                assert_eq!(out, expected, "{:02X?}", piece.as_bytes());
            }
        }
    }
}
