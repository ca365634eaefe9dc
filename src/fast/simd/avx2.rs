//! AVX2 backend (x86-64): 32-byte vectors for validation; the 16-byte kernel of the SSE
//! backend (compiled here with VEX encodings) for conversion and lossy decoding. Wider
//! conversion stores measured slower (the output is rarely aligned).
//!
//! This file only implements [`Vector`] with AVX2 intrinsics and
//! instantiates the generic algorithms of [`super`] inside `#[target_feature]`
//! functions; [`is_available`] must hold before any of them is called.

use core::arch::x86_64::*;

use super::sse42::Sse41Kernel;
use super::Vector;
use crate::fast::Utf8Error;

/// Whether this CPU has AVX2.
#[inline]
pub fn is_available() -> bool {
    std::is_x86_feature_detected!("avx2")
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

/// Validates `bytes` (see [`super::validate()`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2")]
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
    unsafe { super::decode_lossy_using(bytes, validate, lossy_dense) }
}

/// Lossy decoding appended to `out` (see [`super::decode_lossy_into_using`]).
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_lossy_into(bytes: &[u8], out: &mut String) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::decode_lossy_into_using(bytes, out, validate, lossy_dense) }
}

/// The dense-error loop of lossy decoding (see [`super::lossy_dense`]).
///
/// # Safety
/// [`is_available`] must be true; `pos` a unit boundary of `bytes`.
#[target_feature(enable = "avx2")]
unsafe fn lossy_dense(bytes: &[u8], pos: usize, out: &mut Vec<u8>) -> usize {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::lossy_dense::<Sse41Kernel>(bytes, pos, out) }
}

/// Decodes `bytes` to scalar values (see [`super::decode_utf32`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx2")]
pub unsafe fn decode_utf32(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::decode_utf32::<__m256i, Sse41Kernel>(bytes, out) }
}
