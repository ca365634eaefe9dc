//! The AVX-512 UTF-8 to UTF-32 conversion of well-formed text (AVX512F/BW, VBMI for
//! byte permutes, VBMI2 for word compression), after Clausecker & Lemire, "Transcoding
//! Unicode characters with AVX-512 instructions" (Software: Practice and Experience
//! 53(12), 2023), section 4: locate the characters, gather each one's bytes into a
//! 32-bit lane with one permute, and assemble all lanes at once.
//!
//! The input is converted in stretches of at most [`STRETCH`] bytes that end at
//! character boundaries, each in two passes:
//!
//! 1. **Positions.** Per 64-byte block, the mask of character starts (every non-tail
//!    byte: the input is well-formed) compresses (`vpcompressw`) the block's byte
//!    offsets into an array of 16-bit positions. The block advance is fixed, so the
//!    pass has no loop-carried dependency but the array index.
//! 2. **Groups of 16 characters.** Group `k` is characters `16 k .. 16 k + 16`, and its
//!    output goes to lanes `16 k ..` of the stretch's output. Its 16 characters span at
//!    most 64 bytes from the first one's 64-byte-aligned block `base`, so they lie in
//!    the 128 bytes from `base`. `vpermb` spreads the low byte of position `i` to the 4
//!    bytes of lane `i` (plus 3, 2, 1, 0), and `vpermt2b` gathers from those 128 bytes
//!    the 4 bytes from the lead on, reversed: the lead is the lane's top byte, the bytes
//!    past the character below it. `vpermt2b` reads only the low 7 bits of an index, so
//!    the two blocks are passed in the order that makes a position's low 7 bits its
//!    index. The lead's high nibble picks (by `vpermd`) a right shift that drops the
//!    bytes past the character and the mask of its payload bits; the lane is then
//!    assembled as [`super::assemble_lane`] describes (`vpmaddubsw`, `vpmaddwd`).
//!
//! Groups are independent of each other (nothing in one depends on where the previous
//! one ended), so the CPU overlaps them; each is one full store of 16 lanes, but the
//! stretch's last, which is masked. A stretch's leading all-ASCII blocks are widened
//! directly (`vpmovzxbd`). Blocks past the end of input are read with masked loads,
//! which do not touch the bytes they mask out.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::avx512_output::{
    convert_ascii, widen_ascii, Scalars, Sink, FEW_PAIRS, MANY_PAIRS, NO_PAIRS,
};
use super::utf32::ConvertValid;
use crate::fast::dfa;

/// [`ConvertValid`] by the AVX-512 kernel of this file.
pub struct Avx512Convert;

impl ConvertValid for Avx512Convert {
    #[inline(always)]
    unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u32>) {
        // SAFETY: the same contract (AVX512F/BW/VBMI/VBMI2 and BMI2 available, `bytes`
        // well-formed).
        unsafe { convert_valid::<Scalars>(bytes, out) }
    }

    #[inline(always)]
    unsafe fn convert_ascii(bytes: &[u8], out: &mut Vec<u32>) -> usize {
        // SAFETY: AVX512F/BW are available (caller's contract).
        unsafe { convert_ascii::<Scalars>(bytes, out) }
    }
}

/// Most bytes per stretch: its positions fit in 16 bits, and its position array
/// (twice as many bytes) stays in L1 next to the input.
pub(super) const STRETCH: usize = 4096;

/// Entries of the position array: one per byte of a stretch, and the 32 a compressed
/// store (or the zeros after the last group) writes past the last position.
pub(super) const POSITIONS: usize = STRETCH + 32;

/// Words of the bit map of error units' first bytes a lossy stretch is given (see
/// [`convert_stretch`]): one bit per byte of a stretch, and a word past it, which
/// [`marked`] reads when a block is not aligned to the stretch.
pub(super) const MARK_WORDS: usize = STRETCH / 64 + 2;

/// A stretch takes the groups without a branch on surrogate pairs ([`MANY_PAIRS`]) when
/// more than one character in this many is 4 bytes long: about one group of 16 in 8 or
/// more then has a pair, and a branch on it would be mispredicted more often than the
/// compression it skips costs (UTF-16 of mixed scripts with one character in 56 an
/// emoji, 1 MiB texts each decoded once in turn: about 3.6 GB/s without the branch, 2.0
/// with it).
const MANY_PAIRS_SHARE: usize = 128;

/// The tag of a position that starts an error unit: above every offset of a stretch.
const ERROR_UNIT: u16 = 0x8000;

/// The 64 bits of `marks` from bit `at` (`at < STRETCH`).
///
/// # Safety
/// `marks` valid for reads of [`MARK_WORDS`] words.
#[inline(always)]
unsafe fn marked(marks: *const u64, at: usize) -> u64 {
    let (word, bit) = (at / 64, at % 64);
    // SAFETY: `word + 1 <= STRETCH / 64 < MARK_WORDS` (caller's contract).
    unsafe {
        let low = *marks.add(word) >> bit;
        if bit == 0 {
            low
        } else {
            low | *marks.add(word + 1) << (64 - bit)
        }
    }
}

/// The 16-bit offsets 0..31 (low half of a block) and 32..63 (high half).
static OFFSETS16: [[u16; 32]; 2] = {
    let mut table = [[0u16; 32]; 2];
    let mut i = 0;
    while i < 64 {
        table[i / 32][i % 32] = i as u16;
        i += 1;
    }
    table
};

/// The `vpermb` index that puts the low byte of 16-bit position `i` in the 4 bytes of
/// lane `i`.
static SPREAD: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut byte = 0;
    while byte < 64 {
        table[byte] = (2 * (byte / 4)) as u8;
        byte += 1;
    }
    table
};

/// Added (byte-wise) to the spread positions: byte `j` of a lane takes input byte
/// `lead + 3 - j`, so that the lead lands in the top byte and the last byte of a
/// 4-byte character in the bottom one.
const REVERSE: i32 = 0x0001_0203;

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

/// Appends the encoding of well-formed `bytes` to `out`: scalar values or UTF-16
/// code units, as the sink `S` writes them.
///
/// # Safety
/// AVX512F, AVX512BW, AVX512VBMI, AVX512VBMI2 and BMI2 must be available; `bytes` must be
/// well-formed UTF-8 (else the output is wrong, though memory stays safe: every store is
/// bounded by the characters counted, at most one unit per byte).
#[inline(always)]
pub(super) unsafe fn convert_valid<S: Sink>(bytes: &[u8], out: &mut Vec<S::Unit>) {
    let len = bytes.len();
    // At most one unit per byte: a character of n bytes is one scalar value, and one
    // UTF-16 code unit, but for 4 bytes, which are two.
    out.reserve(len);
    let base = out.len();
    let mut positions = MaybeUninit::<[u16; POSITIONS]>::uninit();
    let mut written = 0;
    let mut start = 0;
    while start < len {
        let mut end = (start + STRETCH).min(len);
        // Back to a character boundary (at most 3 tails in well-formed input).
        while end < len && end > start && dfa::is_continuation(bytes[end]) {
            end -= 1;
        }
        // SAFETY: the instruction sets are available (caller's contract); `start..end`
        // is within `bytes`, at most `STRETCH` long; `out` has room for `len - start`
        // more units past `base + written` (at most one per byte, and `written` counts
        // the units of `..start`).
        unsafe {
            let dst = out.as_mut_ptr().add(base + written);
            written += convert_stretch::<S, false>(
                bytes,
                start,
                end,
                dst,
                positions.as_mut_ptr().cast(),
                core::ptr::null(),
            );
        }
        start = end;
    }
    debug_assert!(written <= len);
    // SAFETY: the stretches wrote `written` units from `base`, within capacity.
    unsafe { out.set_len(base + written) };
}

/// Converts the characters of `bytes[start..end]` (well-formed on its own) to `dst`;
/// returns how many units that wrote.
///
/// `LOSSY`: `bytes[start..end]` may hold error units, and `marks` is the bit map of
/// their first bytes (bit `i % 64` of word `i / 64` for `bytes[start + i]`, see
/// [`MARK_WORDS`]); each unit, character or maximal subpart (Unicode §3.9, D93b),
/// becomes one group lane, and a marked one is U+FFFD. Every other byte of a maximal
/// subpart is a tail (its lead starts it, a stray tail is a subpart of its own), so the
/// units start at the bytes that are not tails and at the marked ones.
///
/// # Safety
/// As [`convert_valid`] (with `LOSSY`, `bytes[start..end]` well-formed but for the
/// marked units, each a maximal subpart); `start <= end <= bytes.len()`,
/// `end - start <= STRETCH`; `dst` valid for writes of `end - start` units;
/// `positions` valid for writes and reads of [`POSITIONS`] `u16`; with `LOSSY`,
/// `marks` valid for reads of [`MARK_WORDS`] words.
#[inline(always)]
pub(super) unsafe fn convert_stretch<S: Sink, const LOSSY: bool>(
    bytes: &[u8],
    start: usize,
    end: usize,
    dst: *mut S::Unit,
    positions: *mut u16,
    marks: *const u64,
) -> usize {
    // SAFETY: the caller's contract, passed on; `ascii <= n` units written by
    // `widen_ascii`, so the rest of the stretch has `n - ascii` units of room, and the
    // prefix, one unit per character of `ascii..from`, leaves `n - from` of it.
    unsafe {
        let src = bytes.as_ptr().add(start);
        let n = end - start;
        let avail = bytes.len() - start;
        // The leading all-ASCII blocks: widened directly.
        let ascii = widen_ascii::<S>(src, n, dst);
        if ascii == n {
            return n;
        }
        let dst = dst.add(ascii);
        // A prefix of the stretch (for the UTF-16 sink, all of it), converted without
        // positions where the sink can (strict, or a lossy stretch without errors).
        let (from, prefix) = if LOSSY {
            (ascii, 0)
        } else {
            S::convert_short_prefix(src, ascii, n, dst)
        };
        // Units written so far: the ASCII blocks' and the prefix's.
        let before = ascii + prefix;
        if from == n {
            return before;
        }
        let dst = dst.add(prefix);
        let (chars, longest, fours) = find_positions::<LOSSY>(src, from, n, positions, marks);
        let written = match longest {
            // Surrogate pairs only where the stretch has a 4-byte character (UTF-16).
            4 if fours * MANY_PAIRS_SHARE > chars => {
                convert_groups::<S, MANY_PAIRS, LOSSY>(src, avail, chars, positions, dst)
            }
            4 => convert_groups::<S, FEW_PAIRS, LOSSY>(src, avail, chars, positions, dst),
            _ => convert_groups::<S, NO_PAIRS, LOSSY>(src, avail, chars, positions, dst),
        };
        before + written
    }
}

/// Phase 1: stores the offsets of the character starts of `src[from..n]` at
/// `positions`, then 32 zero entries; returns how many characters there are, the
/// length of the longest (2 standing for "1 or 2"; leads E0..EF are 3, F0..F4 are 4),
/// and how many are 4 bytes long.
/// `LOSSY`: the first bytes of error units, marked in `marks`, start units too, and
/// their offsets carry [`ERROR_UNIT`].
///
/// # Safety
/// As [`convert_stretch`]: `src` valid for reads of `n <= STRETCH` bytes; `positions`
/// for writes of [`POSITIONS`] entries; with `LOSSY`, `marks` for reads of
/// [`MARK_WORDS`] words.
#[inline(always)]
unsafe fn find_positions<const LOSSY: bool>(
    src: *const u8,
    from: usize,
    n: usize,
    positions: *mut u16,
    marks: *const u64,
) -> (usize, usize, usize) {
    // SAFETY (every load, store and intrinsic below): the instruction sets are
    // available (caller's contract). Full loads read `src + o .. src + o + 64` with
    // `o + 64 <= n`; masked loads read only the bytes below `n` that their mask selects.
    // Position stores write 32 (or 16) entries from `chars <= STRETCH`, below
    // `POSITIONS`.
    unsafe {
        let below_tails = _mm512_set1_epi8(-64);
        let three_byte_leads = _mm512_set1_epi8(0xE0u8 as i8);
        let four_byte_leads = _mm512_set1_epi8(0xF0u8 as i8);
        let step = _mm512_set1_epi16(64);
        let mut offsets_low = _mm512_add_epi16(
            _mm512_loadu_si512(OFFSETS16[0].as_ptr() as *const __m512i),
            _mm512_set1_epi16(from as i16),
        );
        let mut offsets_high = _mm512_add_epi16(
            _mm512_loadu_si512(OFFSETS16[1].as_ptr() as *const __m512i),
            _mm512_set1_epi16(from as i16),
        );
        let mut chars = 0;
        let mut three_byte = 0u64;
        let mut fours = 0;
        let mut o = from;
        while o < n {
            let (block, inside) = if o + 64 <= n {
                (_mm512_loadu_si512(src.add(o) as *const __m512i), u64::MAX)
            } else {
                let inside = mask_below(n - o);
                (
                    _mm512_maskz_loadu_epi8(inside, src.add(o) as *const i8),
                    inside,
                )
            };
            // Tails 80..BF are exactly the bytes below -64 as signed bytes.
            let mut leads = _mm512_cmpge_epi8_mask(block, below_tails) & inside;
            let (mut tagged_low, mut tagged_high) = (offsets_low, offsets_high);
            // Error units' first bytes, whose lanes are U+FFFD, whatever they lead.
            let mut errors = 0;
            if LOSSY {
                errors = marked(marks, o) & inside;
                leads |= errors;
                let tag = _mm512_set1_epi16(ERROR_UNIT as i16);
                tagged_low = _mm512_mask_add_epi16(offsets_low, errors as u32, offsets_low, tag);
                tagged_high =
                    _mm512_mask_add_epi16(offsets_high, (errors >> 32) as u32, offsets_high, tag);
            }
            three_byte |= _mm512_cmpge_epu8_mask(block, three_byte_leads) & !errors;
            fours +=
                (_mm512_cmpge_epu8_mask(block, four_byte_leads) & !errors).count_ones() as usize;
            let low = leads as u32;
            let high = (leads >> 32) as u32;
            _mm512_storeu_si512(
                positions.add(chars) as *mut __m512i,
                _mm512_maskz_compress_epi16(low, tagged_low),
            );
            chars += low.count_ones() as usize;
            _mm512_storeu_si512(
                positions.add(chars) as *mut __m512i,
                _mm512_maskz_compress_epi16(high, tagged_high),
            );
            chars += high.count_ones() as usize;
            offsets_low = _mm512_add_epi16(offsets_low, step);
            offsets_high = _mm512_add_epi16(offsets_high, step);
            o += 64;
        }
        // Initialised entries for the lanes of a last, partial group (of 16 or 32).
        _mm512_storeu_si512(positions.add(chars) as *mut __m512i, _mm512_setzero_si512());
        let longest = if fours != 0 {
            4
        } else if three_byte != 0 {
            3
        } else {
            2
        };
        (chars, longest, fours)
    }
}

/// Phase 2: converts the `chars` characters whose offsets [`find_positions`] stored,
/// 16 at a time, and hands each group's scalar values to the sink; returns the units
/// written.
///
/// # Safety
/// As [`convert_stretch`]; `positions` holds `chars + 16` initialised entries, offsets
/// of the character starts of well-formed `src[..avail]`; `dst` valid for writes of a
/// unit per byte of those characters.
#[inline(always)]
unsafe fn convert_groups<S: Sink, const PAIRS: u8, const LOSSY: bool>(
    src: *const u8,
    avail: usize,
    chars: usize,
    positions: *const u16,
    dst: *mut S::Unit,
) -> usize {
    // SAFETY (every load, store and intrinsic below): the instruction sets are
    // available (caller's contract). Full loads read `src + at .. src + at + 64` with
    // `block + 128 <= avail`; masked loads read only the bytes below `avail` that their
    // mask selects, and those whose block lies past the end select no byte (their
    // address is formed with `wrapping_add`). Position reads stay below `chars + 16`.
    // The sink's stores stay below a unit per byte of the characters converted.
    unsafe {
        let spread = _mm512_loadu_si512(SPREAD.as_ptr() as *const __m512i);
        let reverse = _mm512_set1_epi32(REVERSE);
        let shifts = _mm512_loadu_si512(SHIFT_BY_NIBBLE.as_ptr() as *const __m512i);
        let payloads = _mm512_loadu_si512(PAYLOAD_BY_NIBBLE.as_ptr() as *const __m512i);
        let byte_pairs = _mm512_set1_epi16(0x4001);
        let word_pairs = _mm512_set1_epi32(0x1000_0001);
        let mut written = 0;
        let mut group = 0;
        while group < chars {
            let mut first = *positions.add(group) as usize;
            if LOSSY {
                first &= usize::from(!ERROR_UNIT);
            }
            let block = first & !63;
            // The block whose offset is 0 modulo 128 (`low`) and the other (`high`).
            let low_at = (first + 64) & !127;
            let high_at = 2 * block + 64 - low_at;
            let (low, high) = window(src, avail, block, low_at, high_at);
            let offsets = _mm256_loadu_si256(positions.add(group) as *const __m256i);
            // Only the low byte of each offset indexes, so the tag does not disturb it.
            let lanes = _mm512_castsi256_si512(offsets);
            let index = _mm512_add_epi8(_mm512_permutexvar_epi8(spread, lanes), reverse);
            let gathered = _mm512_permutex2var_epi8(low, index, high);
            let nibble = _mm512_srli_epi32::<28>(gathered);
            let shifted = _mm512_srlv_epi32(gathered, _mm512_permutexvar_epi32(nibble, shifts));
            let bits = _mm512_and_si512(shifted, _mm512_permutexvar_epi32(nibble, payloads));
            let mut scalars = _mm512_madd_epi16(_mm512_maddubs_epi16(bits, byte_pairs), word_pairs);
            if LOSSY {
                // A maximal subpart's lane holds whatever its bytes made: U+FFFD instead.
                // The low 16 of the 32 lanes (`_mm256_movepi16_mask` needs AVX512VL).
                let errors = _mm512_movepi16_mask(lanes) as __mmask16;
                scalars = _mm512_mask_mov_epi32(scalars, errors, _mm512_set1_epi32(0xFFFD));
            }
            let lanes = (chars - group).min(16);
            written += S::store_group::<PAIRS>(scalars, lanes, dst.add(written));
            group += 16;
        }
        written
    }
}

/// The two 64-byte blocks at `low_at` and `high_at` from `src` (the block at `block`
/// and the one after it, in the order [`convert_groups`] describes): whole loads when
/// both lie below `avail`, else masked loads of the bytes below `avail` (zeros for the
/// others; a block wholly past it reads nothing, its address formed with
/// `wrapping_add`).
///
/// # Safety
/// AVX512F/BW available; `src` valid for reads of `avail` bytes; `{low_at, high_at} =
/// {block, block + 64}`.
#[inline(always)]
pub(super) unsafe fn window(
    src: *const u8,
    avail: usize,
    block: usize,
    low_at: usize,
    high_at: usize,
) -> (__m512i, __m512i) {
    // SAFETY: whole loads only when `block + 128 <= avail`; masked loads read only the
    // bytes below `avail` (masked-off elements never fault, Intel SDM "VMOVDQU8").
    unsafe {
        if block + 128 <= avail {
            (
                _mm512_loadu_si512(src.add(low_at) as *const __m512i),
                _mm512_loadu_si512(src.add(high_at) as *const __m512i),
            )
        } else {
            (
                _mm512_maskz_loadu_epi8(
                    mask_below(avail.saturating_sub(low_at)),
                    src.wrapping_add(low_at) as *const i8,
                ),
                _mm512_maskz_loadu_epi8(
                    mask_below(avail.saturating_sub(high_at)),
                    src.wrapping_add(high_at) as *const i8,
                ),
            )
        }
    }
}

/// The mask of the first `n` bytes of a 64-byte window (all of them if `n >= 64`).
#[inline(always)]
pub(super) fn mask_below(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}
#[cfg(test)]
mod tests {
    use super::super::avx512_output::test_texts;
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
        let mut out = Vec::new();
        for text in test_texts::runs(0x9E37_79B9_7F4A_7C15, |_| 8) {
            for piece in test_texts::cuts(&text) {
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
