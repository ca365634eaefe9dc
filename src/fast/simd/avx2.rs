//! AVX2 backend (x86-64): 32-byte vectors for validation; the 16-byte kernel of the SSE
//! backend (compiled here with VEX encodings) for conversion and lossy decoding, but for
//! the six-character steps of one- and two-byte characters and the runs of 3-byte
//! characters ([`Avx2Kernel`]), which fill eight lanes with one 32-byte shuffle.
//!
//! This file only implements [`Vector`] with AVX2 intrinsics and
//! instantiates the generic algorithms of [`super`] inside `#[target_feature]`
//! functions; [`is_available`] must hold before any of them is called.

use core::arch::x86_64::*;

use super::sse42::Sse41Kernel;
use super::tables::{ShortStep, SHORT_UNITS, THREE_BYTE_STEP};
use super::utf16::Stepped;
use super::utf16_lossy::lossy_step;
use super::utf16_lossy_patched::{decode_utf16_lossy_patched, lossy_stretches};
use super::{Kernel16, Vector};
use crate::fast::Utf8Error;
use crate::reference::encode::EncodeError;

/// Whether this CPU has AVX2, and POPCNT, which counting characters uses (every AVX2
/// CPU has it, but the check does not rely on it).
#[inline]
pub fn is_available() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
}

// SAFETY (every method below): the trait contract requires the caller to have checked
// `is_available()`, so the AVX2 instructions exist; pointer arguments are valid for the
// stated number of bytes by the callers' bounds checks.
unsafe impl Vector for __m256i {
    const BYTES: usize = 32;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        unsafe { _mm256_set1_epi8(byte as i8) }
    }
    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        unsafe { _mm256_loadu_si256(ptr as *const __m256i) }
    }
    #[inline(always)]
    unsafe fn repeat16(table: &[u8; 16]) -> Self {
        unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr() as *const __m128i)) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { _mm256_or_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { _mm256_and_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        unsafe { _mm256_xor_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        unsafe { _mm256_and_si256(_mm256_srli_epi16(self, 4), _mm256_set1_epi8(0x0F)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: Self) -> Self {
        unsafe { _mm256_shuffle_epi8(table, self) }
    }
    #[inline(always)]
    unsafe fn prev1(self, previous: Self) -> Self {
        unsafe {
            // Lane 0 of `straddle` is the high lane of `previous`, lane 1 the low lane of
            // `self`; `alignr` then shifts each lane pair of (self, straddle) by 15 bytes.
            let straddle = _mm256_permute2x128_si256(previous, self, 0x21);
            _mm256_alignr_epi8(self, straddle, 15)
        }
    }
    #[inline(always)]
    unsafe fn prev2(self, previous: Self) -> Self {
        unsafe {
            let straddle = _mm256_permute2x128_si256(previous, self, 0x21);
            _mm256_alignr_epi8(self, straddle, 14)
        }
    }
    #[inline(always)]
    unsafe fn prev3(self, previous: Self) -> Self {
        unsafe {
            let straddle = _mm256_permute2x128_si256(previous, self, 0x21);
            _mm256_alignr_epi8(self, straddle, 13)
        }
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        unsafe { _mm256_subs_epu8(self, other) }
    }
    #[inline(always)]
    unsafe fn any_bit_set(self) -> bool {
        unsafe { _mm256_testz_si256(self, self) == 0 }
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        unsafe { _mm256_movemask_epi8(self) != 0 }
    }
    #[inline(always)]
    unsafe fn nonzero_mask(self) -> u64 {
        unsafe {
            let zero = _mm256_cmpeq_epi8(self, _mm256_setzero_si256());
            !(_mm256_movemask_epi8(zero) as u32) as u64
        }
    }
    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
        unsafe { _mm256_storeu_si256(ptr as *mut __m256i, self) }
    }
    #[inline(always)]
    unsafe fn load_prefix(ptr: *const u8, len: usize) -> Option<Self> {
        if len > 16 {
            return None;
        }
        // SAFETY: `len <= 16` bytes readable at `ptr` (the caller's contract).
        let (lo, hi) = unsafe { super::vector::read_short(ptr, len) };
        // SAFETY: the backend is available (the trait's contract).
        Some(unsafe { _mm256_set_epi64x(0, 0, hi as i64, lo as i64) })
    }
}

/// The SSE4.1 kernel, but for [`Kernel16::short_store`], which shuffles the 16 input
/// bytes repeated in both 128-bit lanes of a 32-byte register (`vbroadcasti128`,
/// `vpshufb`) and assembles and stores all 8 lanes at once, [`Kernel16::widen16`],
/// which widens to 8 lanes at a time, [`Kernel16::short_units16`], which builds the
/// UTF-16 units of a six-character step in 16-bit lanes, and [`Kernel16::block_masks`],
/// which makes a block's masks in 32-byte registers.
pub struct Avx2Kernel;

// SAFETY (every method below): the trait contract requires the caller to have checked
// `is_available()`, so the AVX2 instructions exist (and the SSE4.1 ones the other
// methods forward to); pointer arguments are valid for the stated number of bytes by
// the callers' bounds checks.
impl Kernel16 for Avx2Kernel {
    type V = __m128i;

    super::sse42::forward_to_sse41!(
        load16,
        high_bit_mask,
        tail_mask,
        shuffle,
        assemble_store,
        assemble_store16,
        assemble_store_pairs,
        range_mask,
        expand_store
    );

    #[inline(always)]
    unsafe fn widen16(src: *const u8, dst: *mut u32) {
        unsafe {
            // Two `vpmovzxbd` of 8 bytes each to 8 lanes.
            let low = _mm256_cvtepu8_epi32(_mm_loadl_epi64(src as *const __m128i));
            let high = _mm256_cvtepu8_epi32(_mm_loadl_epi64(src.add(8) as *const __m128i));
            _mm256_storeu_si256(dst as *mut __m256i, low);
            _mm256_storeu_si256(dst.add(8) as *mut __m256i, high);
        }
    }
    #[inline(always)]
    unsafe fn widen16_to_u16(src: *const u8, dst: *mut u16) {
        unsafe {
            // One `vpmovzxbw` of 16 bytes to 16 words.
            let widened = _mm256_cvtepu8_epi16(_mm_loadu_si128(src as *const __m128i));
            _mm256_storeu_si256(dst as *mut __m256i, widened);
        }
    }
    #[inline(always)]
    unsafe fn short_store(src: *const u8, step: &ShortStep, dst: *mut u32) {
        unsafe {
            // `ShortStep` is `repr(C)`: each pair of 16-byte halves is 32 contiguous bytes.
            let v = _mm256_broadcastsi128_si256(_mm_loadu_si128(src as *const __m128i));
            let shuffle = _mm256_loadu_si256(step.shuffle.as_ptr() as *const __m256i);
            let payload = _mm256_loadu_si256(step.payload.as_ptr() as *const __m256i);
            let bits = _mm256_and_si256(_mm256_shuffle_epi8(v, shuffle), payload);
            // Byte pairs: low + 64 * high; then 16-bit pairs: low + 4096 * high.
            let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
            let scalars = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
            _mm256_storeu_si256(dst as *mut __m256i, scalars);
        }
    }
    #[inline(always)]
    unsafe fn three_byte_run_store(src: *const u8, dst: *mut u32) {
        unsafe {
            for j in 0..2 {
                _mm256_storeu_si256(dst.add(8 * j) as *mut __m256i, three_byte_eight(src, j));
            }
            // Characters 16..20.
            Sse41Kernel::assemble_store(
                Sse41Kernel::shuffle(Sse41Kernel::load16(src.add(48)), &THREE_BYTE_STEP.shuffle),
                &THREE_BYTE_STEP.payload,
                dst.add(16),
            );
        }
    }
    #[inline(always)]
    unsafe fn short_store16(src: *const u8, step: &ShortStep, dst: *mut u16) {
        unsafe {
            let v = _mm256_broadcastsi128_si256(_mm_loadu_si128(src as *const __m128i));
            let shuffle = _mm256_loadu_si256(step.shuffle.as_ptr() as *const __m256i);
            let payload = _mm256_loadu_si256(step.payload.as_ptr() as *const __m256i);
            store8_units(assemble8(_mm256_shuffle_epi8(v, shuffle), payload), dst);
        }
    }
    #[inline(always)]
    unsafe fn block_masks(block: *const u8) -> (u64, u64) {
        // SAFETY: AVX2 is available and `block` readable for 64 bytes (the caller's
        // contract).
        unsafe {
            // The four 16-byte loads of the default, joined in pairs: half the compares
            // and `vpmovmskb`, one join of two halves where there were three. Two 32-byte
            // loads instead made CJK prose 3% slower in the bench (its run step loads
            // bytes 48..64 again, a load the 16-byte one can share).
            let part = block as *const __m128i;
            let low = _mm256_castsi128_si256(_mm_loadu_si128(part));
            let low = _mm256_inserti128_si256::<1>(low, _mm_loadu_si128(part.add(1)));
            let high = _mm256_castsi128_si256(_mm_loadu_si128(part.add(2)));
            let high = _mm256_inserti128_si256::<1>(high, _mm_loadu_si128(part.add(3)));
            // Tails 80..BF are exactly the bytes below -64 as signed bytes.
            let below = _mm256_set1_epi8(-64);
            let tails_low = _mm256_movemask_epi8(_mm256_cmpgt_epi8(below, low)) as u32;
            let tails_high = _mm256_movemask_epi8(_mm256_cmpgt_epi8(below, high)) as u32;
            let high_low = _mm256_movemask_epi8(low) as u32;
            let high_high = _mm256_movemask_epi8(high) as u32;
            (
                high_low as u64 | (high_high as u64) << 32,
                tails_low as u64 | (tails_high as u64) << 32,
            )
        }
    }
    #[inline(always)]
    unsafe fn short_units16(src: *const u8, short: usize, dst: *mut u16) {
        let units = &SHORT_UNITS[short];
        // SAFETY: AVX2 (and so SSSE3) is available, `src` is readable for 16 bytes and
        // `dst` writable for 8 units (the caller's contract); the table is 32-aligned.
        unsafe {
            // Characters below U+0800 in 16-bit lanes, last byte low: byte pairs
            // `low + 64 * high` are the code units (at most 7FF, no saturation). One
            // 16-byte shuffle and one multiply-add, where `short_store16` assembles 32-bit
            // values and packs them (`vpackusdw`, `vpermq`).
            let v = _mm_loadu_si128(src as *const __m128i);
            let shuffle = _mm_load_si128(units.shuffle.as_ptr() as *const __m128i);
            let payload = _mm_load_si128(units.payload.as_ptr() as *const __m128i);
            let bits = _mm_and_si128(_mm_shuffle_epi8(v, shuffle), payload);
            let code_units = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x4001));
            _mm_storeu_si128(dst as *mut __m128i, code_units);
        }
    }
    #[inline(always)]
    unsafe fn three_byte_run_store16(src: *const u8, dst: *mut u16) {
        unsafe {
            // As `three_byte_run_store`, each 8 values packed to 8 units.
            for j in 0..2 {
                store8_units(three_byte_eight(src, j), dst.add(8 * j));
            }
            Sse41Kernel::assemble_store16(
                Sse41Kernel::shuffle(Sse41Kernel::load16(src.add(48)), &THREE_BYTE_STEP.shuffle),
                &THREE_BYTE_STEP.payload,
                dst.add(16),
            );
        }
    }
}

/// The 8 scalar values of 8 lanes of shuffled bytes (`shuffled`, last byte first in
/// each lane) masked by `payload` (as [`Kernel16::assemble_store`]).
///
/// # Safety
/// AVX2 must be available.
#[inline(always)]
unsafe fn assemble8(shuffled: __m256i, payload: __m256i) -> __m256i {
    // SAFETY: AVX2 is available (caller's contract).
    unsafe {
        let bits = _mm256_and_si256(shuffled, payload);
        // Byte pairs: low + 64 * high; then 16-bit pairs: low + 4096 * high.
        let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
        _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001))
    }
}

/// Characters `8 * j..8 * j + 8` of a run of 3-byte characters at `src`, as eight
/// 32-bit scalar values: bytes `24 * j..24 * j + 12` in the low lane, the next 12 in the
/// high lane, each shuffled as one step of four.
///
/// # Safety
/// AVX2 must be available; `src` valid for reads of `24 * j + 28` bytes.
#[inline(always)]
unsafe fn three_byte_eight(src: *const u8, j: usize) -> __m256i {
    // SAFETY: AVX2 is available and the 16-byte loads at `24 * j` and `24 * j + 12` are
    // within `src` (caller's contract).
    unsafe {
        let shuffle = _mm256_broadcastsi128_si256(_mm_loadu_si128(
            THREE_BYTE_STEP.shuffle.as_ptr() as *const __m128i,
        ));
        let payload = _mm256_broadcastsi128_si256(_mm_loadu_si128(
            THREE_BYTE_STEP.payload.as_ptr() as *const __m128i,
        ));
        let low = _mm_loadu_si128(src.add(24 * j) as *const __m128i);
        let high = _mm_loadu_si128(src.add(24 * j + 12) as *const __m128i);
        let v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(low), high);
        assemble8(_mm256_shuffle_epi8(v, shuffle), payload)
    }
}

/// Stores 8 values below U+10000 as 8 `u16` at `dst`.
///
/// # Safety
/// AVX2 must be available; `dst` valid for writes of 8 `u16`.
#[inline(always)]
unsafe fn store8_units(scalars: __m256i, dst: *mut u16) {
    // SAFETY: AVX2 is available and `dst` writable for 16 bytes (caller's contract).
    unsafe {
        // `vpackusdw` packs within each 128-bit half (values 0..4 in quadword 0, 4..8
        // in quadword 2); the permutation brings quadword 2 next to quadword 0.
        let packed = _mm256_packus_epi32(scalars, scalars);
        let ordered = _mm256_permute4x64_epi64::<0b00_00_10_00>(packed);
        _mm_storeu_si128(dst as *mut __m128i, _mm256_castsi256_si128(ordered));
    }
}

/// Validates `bytes` (see [`super::validate()`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::validate::<__m256i>(bytes) }
}

/// Lossy decoding (see [`super::decode_lossy_using`]).
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::decode_lossy_using(bytes, validate, lossy_run) }
}

/// Lossy decoding appended to `out` (see [`super::decode_lossy_into_using`]).
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_lossy_into(bytes: &[u8], out: &mut String) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::decode_lossy_into_using(bytes, out, lossy_run) }
}

/// Lossy decoding's block loop (see `super::lossy_run`), with the dense-error loop
/// of [`super::lossy_dense`].
///
/// # Safety
/// [`is_available`] must be true; `pos` a unit boundary of `bytes`.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn lossy_run(bytes: &[u8], pos: usize, out: &mut Vec<u8>) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::lossy_run::lossy_run::<__m256i, Sse41Kernel>(bytes, pos, out) }
}

/// Decodes `bytes` to scalar values (see [`super::decode_utf32`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn decode_utf32(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::decode_utf32::<__m256i, Avx2Kernel>(bytes, out) }
}

/// Decodes `bytes` to UTF-16 (see [`crate::fast::decode_utf16`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn decode_utf16(bytes: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe {
        super::utf16::decode_utf16_by::<__m256i, Stepped<Avx2Kernel>>(bytes, out, &mut Vec::new())
    }
}

/// Lossy decoding to UTF-16 (see [`crate::fast::decode_utf16_lossy`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn decode_utf16_lossy(bytes: &[u8], out: &mut Vec<u16>) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { decode_utf16_lossy_patched(bytes, out, decode_utf16, utf16_lossy_stretches) }
}

/// Lossy UTF-16 after the first error, compiled apart from the strict loop before it.
///
/// # Safety
/// [`is_available`] must be true; `pos <= bytes.len()`.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn utf16_lossy_stretches(bytes: &[u8], pos: usize, out: &mut Vec<u16>) {
    // SAFETY: the backend is available and `pos` in bounds (this function's contract),
    // so its lossy step may be called, and it agrees with std.
    unsafe {
        let lookup = super::validate::Lookup::new();
        let step = |run: &[u8], out: &mut Vec<u16>, scratch: &mut Vec<u32>| {
            lossy_step::<__m256i, Stepped<Avx2Kernel>>(&lookup, run, out, scratch)
        };
        lossy_stretches::<__m256i, Stepped<Avx2Kernel>>(&lookup, bytes, pos, out, step)
    }
}

/// Encodes UTF-16 as UTF-8 (see [`crate::fast::encode_utf16`]): the SSE kernel, ASCII
/// runs tested with this backend's registers.
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn encode_utf16(units: &[u16], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract), and with it SSE4.1.
    unsafe { super::encode::encode_utf16::<__m256i, Sse41Kernel, false>(units, out) }
}

/// Encodes UTF-16 as UTF-8, lossy (see [`crate::fast::encode_utf16_lossy`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn encode_utf16_lossy(units: &[u16], out: &mut Vec<u8>) {
    // SAFETY: the backend is available (this function's contract), and with it SSE4.1.
    let result = unsafe { super::encode::encode_utf16::<__m256i, Sse41Kernel, true>(units, out) };
    debug_assert!(result.is_ok());
}

/// Encodes code points as UTF-8 (see [`crate::fast::encode_utf32`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn encode_utf32(points: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract), and with it SSE4.1.
    unsafe { super::encode::encode_utf32::<__m256i, Sse41Kernel>(points, out) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 32-byte masks of a block ([`Avx2Kernel::block_masks`]) against the bytes
    /// themselves: over the 256 blocks, every byte value at every one of the 64
    /// positions, so that a bit moved between the four 16-byte parts shows.
    #[test]
    fn block_masks_mark_every_high_byte_and_tail() {
        if !is_available() {
            return;
        }
        for shift in 0..=255u8 {
            let block: [u8; 64] =
                core::array::from_fn(|i| (i as u8).wrapping_mul(7).wrapping_add(shift));
            let expected = |test: fn(u8) -> bool| {
                (0..64).fold(0u64, |mask, i| mask | (test(block[i]) as u64) << i)
            };
            // SAFETY: AVX2 is available (checked above) and `block` is 64 bytes.
            let masks = unsafe { Avx2Kernel::block_masks(block.as_ptr()) };
            let high = expected(|byte| byte >= 0x80);
            let tails = expected(|byte| (0x80..=0xBF).contains(&byte));
            assert_eq!(masks, (high, tails), "block from {shift:#04x}");
        }
    }
}
