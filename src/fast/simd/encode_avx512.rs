//! The AVX-512 VBMI2 UTF-8 encoder: 32 UTF-16 code units or 16 UTF-32 values per step,
//! the octets of every lane computed at once and packed with one `vpcompressb`.
//!
//! RFC 3629 §3, the bit distribution computed in each lane:
//!
//! ```text
//! Char. number range  |        UTF-8 octet sequence
//!    (hexadecimal)    |              (binary)
//! --------------------+---------------------------------------------
//! 0000 0000-0000 007F | 0xxxxxxx
//! 0000 0080-0000 07FF | 110xxxxx 10xxxxxx
//! 0000 0800-0000 FFFF | 1110xxxx 10xxxxxx 10xxxxxx
//! 0001 0000-0010 FFFF | 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
//! ```
//!
//! A step takes the first of these paths that fits its lanes:
//!
//! * all ASCII: narrowed (`vpmovwb`, `vpmovdb`);
//! * UTF-16, all below U+0800: each 16-bit lane holds its one or two octets, and the
//!   64-bit mask of the bytes that are output (every lead, the tail of each lane that is
//!   not ASCII) compresses the 64 bytes at once;
//! * otherwise 32-bit lanes of scalar values (UTF-16 widened, a high surrogate's lane
//!   holding the scalar value of its pair, Unicode §3.9 D91, and the low one's lane
//!   dropped). `vpmultishiftqb` gathers the four 6-bit fields of the 4-octet form,
//!   `s >> 18, s >> 12, s >> 6, s`, into the lane's four bytes; a right shift by
//!   `8 * (4 - octets)` moves the lead field to byte 0, which is all the shorter forms
//!   differ by. The number of octets comes from the lane's leading zeros (`vplzcntd`),
//!   which also pick the lead's marker bits; tails are masked to 6 bits and marked
//!   `10`. The output bytes (the lead, and each nonzero tail) are then compressed.
//!
//! Errors are never decided here. A UTF-16 step encodes its lanes up to the first
//! unpaired surrogate and hands that one unit to the scalar encoder of
//! `crate::fast::encode` (which writes U+FFFD or returns the error); a high surrogate in
//! the last lane is left for the next step, which sees its low one. A UTF-32 step stops
//! at the first value that is a surrogate or above U+10FFFF the same way. Fewer than a
//! step's elements at the end go to the scalar encoder.

use core::arch::x86_64::*;

use crate::fast::encode::{utf16_run, utf32_run, Output};
use crate::reference::encode::EncodeError;

/// Whether this CPU has everything the kernels of this file use: AVX512F/BW, VBMI
/// (`vpmultishiftqb`), VBMI2 (`vpcompressb`), CD (`vplzcntd`), POPCNT and BMI1.
#[inline]
pub fn is_available() -> bool {
    super::avx512::is_available()
        && super::avx512::has_vbmi2()
        && std::is_x86_feature_detected!("avx512cd")
        && std::is_x86_feature_detected!("bmi1")
}

/// Code units per UTF-16 step.
const UNITS: usize = 32;

/// Values per UTF-32 step.
const VALUES: usize = 16;

/// Per leading-zero count of a scalar value (`vplzcntd`, 0 to 32; the permute reads its
/// low five bits, so 32, the value 0, reads entry 0), the right shift in bits that moves
/// its lead field to byte 0: 25 to 32 leading zeros (U+0000..U+007F) one octet, 21 to 24
/// two, 16 to 20 three, fewer four (entries below 11 are values above U+1FFFFF, which
/// never reach the kernel).
static SHIFT_BY_ZEROS: [u32; 32] = by_zeros([24, 16, 8, 0]);

/// Per leading-zero count, as [`SHIFT_BY_ZEROS`]: the marker bits of the octets, in
/// memory order from byte 0 (`110` / `1110` / `11110` on the lead, `10` on each tail).
static MARKERS_BY_ZEROS: [u32; 32] = by_zeros([0, 0x0000_80C0, 0x0080_80E0, 0x8080_80F0]);

/// The table of `per_octets[n - 1]` for an `n`-octet value, by its leading zeros.
const fn by_zeros(per_octets: [u32; 4]) -> [u32; 32] {
    let mut table = [0; 32];
    let mut zeros = 0;
    while zeros < 32 {
        let octets = match zeros {
            0 | 25.. => 1,
            21..=24 => 2,
            16..=20 => 3,
            _ => 4,
        };
        table[zeros] = per_octets[octets - 1];
        zeros += 1;
    }
    table
}

/// `vpmultishiftqb` control: in each 32-bit lane of a 64-bit word, the bit offsets of
/// the fields `s >> 18`, `s >> 12`, `s >> 6`, `s` (the odd lane's 32 bits higher).
const FIELDS: i64 = i64::from_le_bytes([18, 12, 6, 0, 50, 44, 38, 32]);

/// Encodes the scalar values of `scalars` lanes in `keep` at `dst`; returns how many
/// bytes that is (at most 64). Writes 64 bytes.
///
/// # Safety
/// [`is_available`] is true; `dst` valid for writes of 64 bytes; each lane in `keep` is
/// a Unicode scalar value.
#[inline(always)]
unsafe fn encode_scalars(scalars: __m512i, keep: __mmask16, dst: *mut u8) -> usize {
    // SAFETY: one 64-byte store at `dst` (caller's contract); the instructions are in
    // the features `is_available` checks.
    unsafe {
        let zeros = _mm512_lzcnt_epi32(scalars);
        let shift = _mm512_permutex2var_epi32(
            _mm512_loadu_si512(SHIFT_BY_ZEROS.as_ptr().cast()),
            zeros,
            _mm512_loadu_si512(SHIFT_BY_ZEROS.as_ptr().add(16).cast()),
        );
        let markers = _mm512_permutex2var_epi32(
            _mm512_loadu_si512(MARKERS_BY_ZEROS.as_ptr().cast()),
            zeros,
            _mm512_loadu_si512(MARKERS_BY_ZEROS.as_ptr().add(16).cast()),
        );
        let fields = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(FIELDS), scalars);
        let placed = _mm512_srlv_epi32(fields, shift);
        // (placed & 0x3F3F3FFF) | markers: tails to 6 bits (the lead field is already
        // within its form's payload), then the markers.
        let octets =
            _mm512_ternarylogic_epi32::<0xEA>(placed, _mm512_set1_epi32(0x3F3F_3FFF), markers);
        // Output bytes: the lead (marked here, as an ASCII lead has no high bit) and
        // every tail, which has its marker; nothing of a lane not kept.
        let bytes =
            _mm512_movepi8_mask(_mm512_maskz_or_epi32(keep, octets, _mm512_set1_epi32(0x80)));
        _mm512_storeu_si512(dst.cast(), _mm512_maskz_compress_epi8(bytes, octets));
        bytes.count_ones() as usize
    }
}

/// Encodes 32 code units below U+0800 at `dst` (one or two octets each); returns how
/// many bytes that is. Writes 64 bytes.
///
/// # Safety
/// [`is_available`] is true; `dst` valid for writes of 64 bytes.
#[inline(always)]
unsafe fn encode_below_800(v: __m512i, ascii: __mmask32, dst: *mut u8) -> usize {
    // SAFETY: one 64-byte store at `dst` (caller's contract).
    unsafe {
        // `110yyyyy 10xxxxxx` in memory order: (v >> 6) | (v << 8 & 0x3F00) | 0x80C0.
        let two = _mm512_ternarylogic_epi32::<0xEA>(
            _mm512_slli_epi16::<8>(v),
            _mm512_set1_epi16(0x3F00),
            _mm512_srli_epi16::<6>(v),
        );
        let two = _mm512_or_si512(two, _mm512_set1_epi16(0x80C0_u16 as i16));
        let words = _mm512_mask_blend_epi16(ascii, two, v);
        // Every lead (an ASCII one marked here), and the tails, which have their marker.
        let bytes = _mm512_movepi8_mask(_mm512_or_si512(words, _mm512_set1_epi16(0x80)));
        _mm512_storeu_si512(dst.cast(), _mm512_maskz_compress_epi8(bytes, words));
        bytes.count_ones() as usize
    }
}

/// The first `n` lanes of 32 (`n <= 32`), as a mask.
#[inline(always)]
fn first_lanes(n: usize) -> u32 {
    u32::MAX.checked_shr(32 - n as u32).unwrap_or(0)
}

/// The scalar values of the pairs whose high surrogate is in a lane of `high` (Unicode
/// §3.9 D91: `0x10000 + (high - 0xD800) * 0x400 + (low - 0xDC00)`), the low surrogate
/// being the next lane (`next`); the other lanes of `units` unchanged.
///
/// # Safety
/// [`is_available`] is true.
#[inline(always)]
unsafe fn pair_scalars(units: __m512i, next: __m512i, high: __mmask16) -> __m512i {
    // SAFETY: register operations of AVX512F, available (caller's contract).
    unsafe {
        let offset = _mm512_set1_epi32(0x10000 - (0xD800 << 10) - 0xDC00);
        let scalar = _mm512_add_epi32(
            _mm512_add_epi32(_mm512_slli_epi32::<10>(units), next),
            offset,
        );
        _mm512_mask_mov_epi32(units, high, scalar)
    }
}

/// What a UTF-16 step of 32 units did.
struct Step {
    /// Units consumed.
    units: usize,
    /// Bytes written.
    bytes: usize,
    /// Whether the unit after those consumed is an unpaired surrogate.
    unpaired: bool,
}

/// One UTF-16 step, for 32 units `v` not all below U+0800 (`surrogates`: the lanes
/// D800..DFFF). Encodes at `dst` all 32 if they are well-formed, 31 if the last one is
/// a high surrogate (its low one, if any, is in the next step), else those before the
/// first unpaired surrogate. Writes 128 bytes at most (two 64-byte stores, the second
/// after the first half's output, which is at most 64 bytes).
///
/// # Safety
/// [`is_available`] is true; `dst` valid for writes of 128 bytes.
#[inline(always)]
unsafe fn encode_wide(v: __m512i, surrogates: __mmask32, dst: *mut u8) -> Step {
    // SAFETY: two stores of 64 bytes, at `dst` and at most 64 bytes on (caller's
    // contract).
    unsafe {
        let low_half = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(v));
        let high_half = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(v));
        if surrogates == 0 {
            let first = encode_scalars(low_half, u16::MAX, dst);
            let second = encode_scalars(high_half, u16::MAX, dst.add(first));
            return Step {
                units: UNITS,
                bytes: first + second,
                unpaired: false,
            };
        }
        // D800..DBFF high, DC00..DFFF low (bit 10 set).
        let low = _mm512_mask_test_epi16_mask(surrogates, v, _mm512_set1_epi16(0x400));
        let waits = (surrogates & !low & (1 << 31)) != 0;
        let high = surrogates & !low & !(1 << 31);
        // D91: a high surrogate followed by a low one; any other surrogate is unpaired.
        let unpaired = (high & !(low >> 1)) | (low & !(high << 1));
        let limit = UNITS - usize::from(waits);
        let first_unpaired = unpaired.trailing_zeros() as usize;
        let units = first_unpaired.min(limit);
        let keep = !low & first_lanes(units);
        let next_low = _mm512_alignr_epi32::<1>(high_half, low_half);
        let next_high = _mm512_alignr_epi32::<1>(_mm512_setzero_si512(), high_half);
        let scalars_low = pair_scalars(low_half, next_low, high as u16);
        let scalars_high = pair_scalars(high_half, next_high, (high >> 16) as u16);
        let first = encode_scalars(scalars_low, keep as u16, dst);
        let second = encode_scalars(scalars_high, (keep >> 16) as u16, dst.add(first));
        Step {
            units,
            bytes: first + second,
            unpaired: first_unpaired < limit,
        }
    }
}

/// Appends the UTF-8 encoding of `units` to `out` (see `super::encode::encode_utf16`
/// for the contract: strict stops at the first unpaired surrogate, lossy writes U+FFFD).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512cd,popcnt,bmi1")]
pub unsafe fn encode_utf16<const LOSSY: bool>(
    units: &[u16],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let len = units.len();
    // Three octets per unit at most (a pair's four for its two units, U+FFFD's three).
    let mut output = Output::new(out, len, 3);
    let src = units.as_ptr();
    let mut pos = 0;
    // SAFETY: loads read units `pos..pos + 32`, inside `units`; each step has at least
    // 32 units left, and the output so far is at most 3 bytes per unit consumed, so
    // `output` has at least 96 + 32 bytes of room, as much as any step's stores reach
    // (`encode_wide`: 128 bytes).
    let result = unsafe {
        while pos + UNITS <= len {
            let v = _mm512_loadu_si512(src.add(pos).cast());
            let ascii = _mm512_cmplt_epu16_mask(v, _mm512_set1_epi16(0x80));
            if ascii == u32::MAX {
                _mm256_storeu_si256(output.cursor().cast(), _mm512_cvtepi16_epi8(v));
                output.advance(UNITS);
                pos += UNITS;
                continue;
            }
            if _mm512_cmplt_epu16_mask(v, _mm512_set1_epi16(0x800)) == u32::MAX {
                let written = encode_below_800(v, ascii, output.cursor());
                output.advance(written);
                pos += UNITS;
                continue;
            }
            let surrogates = _mm512_cmpeq_epi16_mask(
                _mm512_and_si512(v, _mm512_set1_epi16(0xF800_u16 as i16)),
                _mm512_set1_epi16(0xD800_u16 as i16),
            );
            let step = encode_wide(v, surrogates, output.cursor());
            output.advance(step.bytes);
            // A whole step on its own branch: the next load's address then does not
            // wait for this step's masks (the count of units, when it can vary, is a
            // chain of some 20 cycles through the load, the compare and `tzcnt`).
            if step.units == UNITS {
                pos += UNITS;
                continue;
            }
            pos += step.units;
            if step.unpaired {
                // U+FFFD, or the error.
                let end = pos + 1;
                if let Err(error) = utf16_run::<LOSSY>(units, &mut pos, end, &mut output) {
                    return output.finish_err(error);
                }
            }
        }
        utf16_run::<LOSSY>(units, &mut pos, len, &mut output)
    };
    output.finish(result)
}

/// Appends the UTF-8 encoding of `points` to `out`; stops at the first value that is
/// a surrogate or above U+10FFFF and returns its error.
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512cd,popcnt,bmi1")]
pub unsafe fn encode_utf32(points: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let len = points.len();
    let mut output = Output::new(out, len, 4);
    let src = points.as_ptr();
    let mut pos = 0;
    // SAFETY: loads read values `pos..pos + 16`, inside `points`; each step has at
    // least 16 values left, so `output` has at least 64 + 32 bytes of room, more than
    // the one 64-byte store of a step.
    let result = unsafe {
        while pos + VALUES <= len {
            let v = _mm512_loadu_si512(src.add(pos).cast());
            if _mm512_cmplt_epu32_mask(v, _mm512_set1_epi32(0x80)) == u16::MAX {
                _mm_storeu_si128(output.cursor().cast(), _mm512_cvtepi32_epi8(v));
                output.advance(VALUES);
                pos += VALUES;
                continue;
            }
            // RFC 3629 §3: no encoding for D800..DFFF, nor above 10FFFF.
            let invalid = _mm512_cmpgt_epu32_mask(v, _mm512_set1_epi32(0x10_FFFF))
                | _mm512_cmpeq_epi32_mask(
                    _mm512_and_si512(v, _mm512_set1_epi32(0xFFFF_F800_u32 as i32)),
                    _mm512_set1_epi32(0xD800),
                );
            if invalid == 0 {
                // The next load's address not waiting on the masks (see `encode_utf16`).
                let written = encode_scalars(v, u16::MAX, output.cursor());
                output.advance(written);
                pos += VALUES;
                continue;
            }
            let lanes = invalid.trailing_zeros() as usize;
            let written = encode_scalars(v, first_lanes(lanes) as u16, output.cursor());
            output.advance(written);
            pos += lanes;
            let end = pos + 1;
            // The error (the scalar encoder's, which names it).
            if let Err(error) = utf32_run(points, &mut pos, end, &mut output) {
                return output.finish_err(error);
            }
        }
        utf32_run(points, &mut pos, len, &mut output)
    };
    output.finish(result)
}
