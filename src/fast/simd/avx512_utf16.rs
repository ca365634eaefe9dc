//! The AVX-512 VBMI2 UTF-8 to UTF-16 conversion of well-formed text: the stretches of
//! the kernel of `avx512_utf32`, with a [`Sink`] that converts a stretch's blocks
//! straight from the input ([`Sink::convert_short_prefix`], below) and, for lossy
//! stretches with errors, writes each group of that kernel (character positions, then
//! groups of 16 scalar values assembled in 32-bit lanes) as UTF-16 in registers.
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
//! In the groups, a stretch without 4-byte characters (no lead F0..F4) has no scalar
//! above U+FFFF: each group is narrowed with `vpmovdw` and stored as 16 code units. Otherwise each 32-bit
//! lane becomes the two words of its pair (high surrogate in the low word, as stored in
//! memory) or its one code unit, and `vpcompressw` drops the unused high words.
//! ASCII blocks are widened with `vpmovzxbw`.
//!
//! Strict decoding and lossy stretches without errors convert every 64-byte block
//! straight from the input, with no positions: each byte's 16-bit lane is computed as
//! if a character started there (a 4-byte character's high surrogate in its lead's
//! lane, its low surrogate in its third byte's), and `vpcompressw` keeps the lanes of
//! the character starts and of those third bytes. Text then takes one pass over its
//! bytes instead of the positions pass and the groups' gathers.

use core::arch::x86_64::*;

use super::avx512_output::{self, Sink, FEW_PAIRS, NO_PAIRS};
use super::avx512_utf32::{self, mask_below};
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
    unsafe fn convert_short_prefix(
        src: *const u8,
        from: usize,
        n: usize,
        dst: *mut u16,
    ) -> (usize, usize) {
        // SAFETY: the same contract.
        unsafe { convert_short_blocks(src, from, n, dst) }
    }
}

/// The code units of 32 input bytes in 16-bit lanes, each lane taken as the start of a
/// character of at most `LONGEST` bytes: `lead` the bytes zero-extended, `next` and
/// `next2` the bytes one and two after each, `multi` the lanes whose lead is not ASCII,
/// `three` those whose lead is E0..EF (`LONGEST` 3 or 4), `four` those whose lead is
/// F0..F4 and `low_surrogates` the third bytes of 4-byte characters (`LONGEST` 4).
/// RFC 3629 §3: `0xxxxxxx` is itself;
/// `110yyyyy 10xxxxxx` is `yyyyyxxxxxx`, which is `(lead << 6) + next - 0x3080` (`0xC0
/// << 6` and `0x80` taken off); `1110zzzz 10yyyyyy 10xxxxxx` is `zzzzyyyyyyxxxxxx`,
/// which is that sum for the first two bytes (`0x800 + zzzzyyyyyy`) shifted left by 6,
/// its top bits falling out of the 16-bit lane, plus `next2 - 0x80`. A 4-byte character
/// `11110uuu 10uuzzzz 10yyyyyy 10xxxxxx` is the pair `110110wwwwzzzzyy 110111yyyyxxxxxx`
/// (`wwww = uuuuu - 1`, Unicode Table 3-5): the high surrogate from its lead's lane,
/// the low one from its third byte's. Lanes of other tails hold garbage.
#[inline(always)]
unsafe fn short_units<const LONGEST: u8>(
    lead: __m512i,
    next: __m512i,
    next2: __m512i,
    multi: u32,
    three: u32,
    four: u32,
    low_surrogates: u32,
) -> __m512i {
    // SAFETY: AVX512BW is available (caller's contract).
    unsafe {
        let sum = _mm512_add_epi16(_mm512_slli_epi16::<6>(lead), next);
        let two = _mm512_mask_sub_epi16(lead, multi, sum, _mm512_set1_epi16(0x3080));
        if LONGEST == 2 {
            return two;
        }
        let sum = _mm512_add_epi16(_mm512_slli_epi16::<6>(two), next2);
        let units = _mm512_mask_sub_epi16(two, three, sum, _mm512_set1_epi16(0x80));
        if LONGEST == 3 {
            return units;
        }
        // 4-byte lead: two = 0xC00 + (uuuuu << 4) + zzzz; high surrogate
        // 0xD800 + ((uuuuu - 1) << 6) + (zzzz << 2) + (yyyyyy >> 4).
        let high = _mm512_add_epi16(
            _mm512_add_epi16(
                _mm512_slli_epi16::<2>(two),
                _mm512_set1_epi16(0xA7C0u16 as i16),
            ),
            _mm512_and_si512(_mm512_srli_epi16::<4>(next2), _mm512_set1_epi16(3)),
        );
        let units = _mm512_mask_mov_epi16(units, four, high);
        // Lane of the third byte: two = (yyyyyy << 6) + xxxxxx + 0xF000.
        let low = _mm512_ternarylogic_epi32::<0xEA>(
            two,
            _mm512_set1_epi16(0x3FF),
            _mm512_set1_epi16(0xDC00u16 as i16),
        );
        _mm512_mask_mov_epi16(units, low_surrogates, low)
    }
}

/// The 32 bytes at `src` zero-extended to 16-bit lanes (`vpmovzxbw`).
///
/// # Safety
/// AVX512BW available; `src` valid for reads of 32 bytes.
#[inline(always)]
unsafe fn widen(src: *const u8) -> __m512i {
    // SAFETY: the caller's contract.
    unsafe { _mm512_cvtepu8_epi16(_mm256_loadu_si256(src as *const __m256i)) }
}

/// [`Sink::convert_short_prefix`] for code units, all of `src[from..n]`: 64-byte blocks
/// of 1- and 2-byte characters, then, from the first block with a 3-byte one, blocks of
/// up to 3 bytes, and from the first with a 4-byte one, blocks of any ([`short_blocks`]):
/// each form costs a little more per block than the one before.
///
/// # Safety
/// As [`Sink::convert_short_prefix`].
#[inline(always)]
unsafe fn convert_short_blocks(
    src: *const u8,
    from: usize,
    n: usize,
    dst: *mut u16,
) -> (usize, usize) {
    // SAFETY: the same contract; each later call starts at the character boundary
    // where the one before stopped, with the units written so far behind `dst` (at most
    // one per byte).
    unsafe {
        let (at, written) = short_blocks::<2>(src, from, n, dst);
        if at == n {
            return (n, written);
        }
        let (at, more) = short_blocks::<3>(src, at, n, dst.add(written));
        let written = written + more;
        if at == n {
            return (n, written);
        }
        let (at, more) = short_blocks::<4>(src, at, n, dst.add(written));
        (at, written + more)
    }
}

/// 64-byte blocks of characters of at most `LONGEST` bytes (2, 3 or 4), straight from
/// the input, with no positions. Each byte's 16-bit lane is converted as if a character
/// started there (its byte and the next one or two, [`short_units`]), and `vpcompressw`
/// keeps the lanes of the bytes that are not tails and of the third bytes of 4-byte
/// characters, in order. A character whose tails are in the next block is whole in its
/// lead's lane (a 4-byte one's third byte carried over to that block's mask), and its
/// other tails' lanes are dropped. With `LONGEST` 2 or 3, stops before the first block
/// with a longer character (a lead E0..F4, or F0..F4), at its first character start;
/// the stretch's last block, shorter, is read with masked loads. Returns where it
/// stopped and the units written.
///
/// # Safety
/// As [`Sink::convert_short_prefix`].
#[inline(always)]
unsafe fn short_blocks<const LONGEST: u8>(
    src: *const u8,
    from: usize,
    n: usize,
    dst: *mut u16,
) -> (usize, usize) {
    // The bytes past a block's that its lanes read.
    let past = if LONGEST > 2 { 2 } else { 1 };
    // SAFETY (every load, store and intrinsic below): the instruction sets are
    // available (caller's contract). Whole loads read below `src + o + 64 + past <= n`;
    // masked loads only bytes below `n`. Each unit is kept in the lane of a distinct
    // byte (a lead, or a 4-byte character's third byte), so a block's units are at most
    // its bytes, and the units before it at most the bytes before it; with `o + 64 <= n` the
    // two 32-unit stores stay below `dst + (o - from) + 64 <= dst + (n - from)`; the
    // last block's stores are masked to its units.
    unsafe {
        let below_tails = _mm512_set1_epi8(-64);
        let three_byte_leads = _mm512_set1_epi8(0xE0u8 as i8);
        let longer_leads = _mm512_set1_epi8(if LONGEST == 3 { 0xF0u8 } else { 0xE0u8 } as i8);
        let four_byte_leads = _mm512_set1_epi8(0xF0u8 as i8);
        let mut carry = 0u64;
        let mut o = from;
        let mut written = 0;
        while o < n {
            let whole = o + 64 + past <= n;
            let (block, inside) = if whole {
                (_mm512_loadu_si512(src.add(o) as *const __m512i), u64::MAX)
            } else {
                let inside = mask_below(n - o);
                (
                    _mm512_maskz_loadu_epi8(inside, src.add(o) as *const i8),
                    inside,
                )
            };
            // Character starts: the bytes that are not tails (80..BF, below -64).
            let starts = _mm512_cmpge_epi8_mask(block, below_tails) & inside;
            if LONGEST < 4 && _mm512_cmpge_epu8_mask(block, longer_leads) != 0 {
                // A longer character: the rest is another loop's, or the positions',
                // from the first character that starts in this block.
                return (o + starts.trailing_zeros() as usize, written);
            }
            let multi = _mm512_movepi8_mask(block);
            let four = if LONGEST == 4 {
                _mm512_cmpge_epu8_mask(block, four_byte_leads)
            } else {
                0
            };
            let three = if LONGEST > 2 {
                _mm512_cmpge_epu8_mask(block, three_byte_leads) & !four
            } else {
                0
            };
            // The third byte of each 4-byte character keeps its lane (the low
            // surrogate), in this block or the next.
            let low_surrogates = four << 2 | carry;
            carry = four >> 62;
            let starts = starts | low_surrogates;
            let zero = _mm512_setzero_si512();
            let (lead_low, lead_high, next_low, next_high, next2_low, next2_high) = if whole {
                let (next2_low, next2_high) = if LONGEST > 2 {
                    (widen(src.add(o + 2)), widen(src.add(o + 34)))
                } else {
                    (zero, zero)
                };
                (
                    widen(src.add(o)),
                    widen(src.add(o + 32)),
                    widen(src.add(o + 1)),
                    widen(src.add(o + 33)),
                    next2_low,
                    next2_high,
                )
            } else {
                // The bytes after the last are never read: the stretch ends at a
                // character boundary, so no lead there needs them.
                let next =
                    _mm512_maskz_loadu_epi8(mask_below(n - o - 1), src.add(o + 1) as *const i8);
                let next2 = if LONGEST > 2 {
                    _mm512_maskz_loadu_epi8(
                        mask_below((n - o).saturating_sub(2)),
                        src.add(o + 2) as *const i8,
                    )
                } else {
                    zero
                };
                (
                    _mm512_cvtepu8_epi16(_mm512_castsi512_si256(block)),
                    _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(block)),
                    _mm512_cvtepu8_epi16(_mm512_castsi512_si256(next)),
                    _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(next)),
                    _mm512_cvtepu8_epi16(_mm512_castsi512_si256(next2)),
                    _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(next2)),
                )
            };
            let low = short_units::<LONGEST>(
                lead_low,
                next_low,
                next2_low,
                multi as u32,
                three as u32,
                four as u32,
                low_surrogates as u32,
            );
            let high = short_units::<LONGEST>(
                lead_high,
                next_high,
                next2_high,
                (multi >> 32) as u32,
                (three >> 32) as u32,
                (four >> 32) as u32,
                (low_surrogates >> 32) as u32,
            );
            let (keep_low, keep_high) = (starts as u32, (starts >> 32) as u32);
            let count_low = keep_low.count_ones() as usize;
            let count_high = keep_high.count_ones() as usize;
            let packed_low = _mm512_maskz_compress_epi16(keep_low, low);
            let packed_high = _mm512_maskz_compress_epi16(keep_high, high);
            let at = dst.add(written);
            if whole {
                _mm512_storeu_si512(at as *mut __m512i, packed_low);
                _mm512_storeu_si512(at.add(count_low) as *mut __m512i, packed_high);
            } else {
                _mm512_mask_storeu_epi16(
                    at as *mut i16,
                    _bzhi_u32(u32::MAX, count_low as u32),
                    packed_low,
                );
                _mm512_mask_storeu_epi16(
                    at.add(count_low) as *mut i16,
                    _bzhi_u32(u32::MAX, count_high as u32),
                    packed_high,
                );
            }
            written += count_low + count_high;
            o += 64;
        }
        (n, written)
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
