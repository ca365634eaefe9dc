//! AVX-512 backend (x86-64, AVX512F + AVX512BW): one 64-byte vector per validation
//! block, which is where AVX-512 pays (also for lossy decoding, which leans on
//! validation); the 16-byte kernel of the SSE backend for the dense-error loop (its
//! chunks expanded with VBMI2 where the CPU has it, `avx512_lossy`); and,
//! for UTF-32 conversion, the VBMI2 kernel of `avx512_utf32` where the CPU has VBMI2,
//! else the AVX2 backend's conversion.
//!
//! This file only implements [`Vector`] with AVX-512 intrinsics and
//! instantiates the generic algorithms of [`super`] inside `#[target_feature]`
//! functions; [`is_available`] must hold before any of them is called.

// The AVX-512 intrinsics are stable since Rust 1.89 (the package's `rust-version`).

use core::arch::x86_64::*;

use super::avx512_lossy::Vbmi2Kernel;
use super::avx512_utf16::Avx512Convert16;
use super::avx512_utf32::Avx512Convert;
use super::sse42::Sse41Kernel;
use super::Vector;
use crate::fast::Utf8Error;
use crate::reference::encode::EncodeError;

/// Whether this CPU has AVX512F and AVX512BW, and AVX2, whose `#[target_feature]`
/// functions this backend also calls (every AVX-512 CPU has AVX2, but the check does
/// not rely on it).
#[inline]
pub fn is_available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && super::avx2::is_available()
}

// SAFETY (every method below): the trait contract requires the caller to have checked
// `is_available()`, so the AVX512F/BW instructions exist; pointer arguments are valid for
// the stated number of bytes by the callers' bounds checks.
unsafe impl Vector for __m512i {
    const BYTES: usize = 64;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        unsafe { _mm512_set1_epi8(byte as i8) }
    }
    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        unsafe { _mm512_loadu_si512(ptr as *const __m512i) }
    }
    #[inline(always)]
    unsafe fn repeat16(table: &[u8; 16]) -> Self {
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(table.as_ptr() as *const __m128i)) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { _mm512_or_si512(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { _mm512_and_si512(self, other) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        unsafe { _mm512_xor_si512(self, other) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        unsafe { _mm512_and_si512(_mm512_srli_epi16(self, 4), _mm512_set1_epi8(0x0F)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: Self) -> Self {
        unsafe { _mm512_shuffle_epi8(table, self) }
    }
    #[inline(always)]
    unsafe fn prev1(self, previous: Self) -> Self {
        unsafe {
            // `straddle` holds, per 128-bit lane i, lane i - 1 of the 128-byte sequence
            // (previous, self): qwords 6..7 of `previous`, then qwords 0..5 of `self`.
            let straddle = _mm512_alignr_epi64(self, previous, 6);
            _mm512_alignr_epi8(self, straddle, 15)
        }
    }
    #[inline(always)]
    unsafe fn prev2(self, previous: Self) -> Self {
        unsafe {
            let straddle = _mm512_alignr_epi64(self, previous, 6);
            _mm512_alignr_epi8(self, straddle, 14)
        }
    }
    #[inline(always)]
    unsafe fn prev3(self, previous: Self) -> Self {
        unsafe {
            let straddle = _mm512_alignr_epi64(self, previous, 6);
            _mm512_alignr_epi8(self, straddle, 13)
        }
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        unsafe { _mm512_subs_epu8(self, other) }
    }
    #[inline(always)]
    unsafe fn any_bit_set(self) -> bool {
        unsafe { _mm512_test_epi64_mask(self, self) != 0 }
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        unsafe { _mm512_movepi8_mask(self) != 0 }
    }
    #[inline(always)]
    unsafe fn nonzero_mask(self) -> u64 {
        unsafe { _mm512_test_epi8_mask(self, self) }
    }
    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
        unsafe { _mm512_storeu_si512(ptr as *mut __m512i, self) }
    }
    #[inline(always)]
    unsafe fn load_prefix(ptr: *const u8, len: usize) -> Option<Self> {
        let mask = if len >= 64 {
            u64::MAX
        } else {
            (1u64 << len) - 1
        };
        // SAFETY: a masked load reads only the bytes whose mask bit is set, the first
        // `len`, which the caller guarantees readable; the others are zeroed, not read
        // (masked-off elements never fault, Intel SDM "VMOVDQU8").
        Some(unsafe { _mm512_maskz_loadu_epi8(mask, ptr as *const i8) })
    }
}

/// Validates `bytes` (see [`super::validate()`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::validate::<__m512i>(bytes) }
}

/// Lossy decoding (see [`super::decode_lossy_using`]).
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let run = lossy_run_for_cpu();
    // SAFETY: the backend is available (this function's contract), and `run` is one of
    // its block loops that the CPU has the instructions for: all the generic function
    // requires of its caller.
    unsafe { super::decode_lossy_using(bytes, validate, run) }
}

/// Lossy decoding appended to `out` (see [`super::decode_lossy_into_using`]).
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_lossy_into(bytes: &[u8], out: &mut String) {
    let run = lossy_run_for_cpu();
    // SAFETY: the backend is available (this function's contract), and `run` is one of
    // its block loops that the CPU has the instructions for: all the generic function
    // requires of its caller.
    unsafe { super::decode_lossy_into_using(bytes, out, run) }
}

/// The lossy block loop for this CPU: [`lossy_run_vbmi2`] where it has VBMI2, else
/// [`lossy_run`].
#[inline]
fn lossy_run_for_cpu() -> unsafe fn(&[u8], usize, &mut Vec<u8>) {
    if has_vbmi2() {
        lossy_run_vbmi2
    } else {
        lossy_run
    }
}

/// Lossy decoding's block loop (see `super::lossy_run`), with the dense-error loop
/// of [`super::lossy_dense`].
///
/// # Safety
/// [`is_available`] must be true; `pos` a unit boundary of `bytes`.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn lossy_run(bytes: &[u8], pos: usize, out: &mut Vec<u8>) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::lossy_run::lossy_run::<__m512i, Sse41Kernel>(bytes, pos, out) }
}

/// [`lossy_run`] with the dense-error loop's chunks expanded by the VBMI2 kernel
/// (`avx512_lossy`).
///
/// # Safety
/// [`is_available`] and [`has_vbmi2`] must be true; `pos` a unit boundary of `bytes`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
unsafe fn lossy_run_vbmi2(bytes: &[u8], pos: usize, out: &mut Vec<u8>) {
    // SAFETY: the backend and VBMI2 are available (this function's contract), which is
    // all the generic function requires of its caller.
    unsafe { super::lossy_run::lossy_run::<__m512i, Vbmi2Kernel>(bytes, pos, out) }
}

/// Whether this CPU also has AVX512VBMI, AVX512VBMI2, POPCNT and BMI2, which the UTF-32
/// kernel (`avx512_utf32`) needs: Ice Lake and later, Zen 4 and later.
#[inline]
pub fn has_vbmi2() -> bool {
    std::is_x86_feature_detected!("avx512vbmi")
        && std::is_x86_feature_detected!("avx512vbmi2")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi2")
}

/// Decodes `bytes` to scalar values (see [`super::decode_utf32`]): AVX-512 validation
/// and the VBMI2 kernel of `avx512_utf32` where the CPU has VBMI2; otherwise the AVX2
/// backend's conversion (which is tested as that backend).
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_utf32(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    if has_vbmi2() {
        // SAFETY: `is_available()` (caller's contract) and `has_vbmi2()`.
        unsafe { decode_utf32_vbmi2(bytes, out) }
    } else {
        // SAFETY: `is_available()` checks AVX2 too.
        unsafe { super::avx2::decode_utf32(bytes, out) }
    }
}

/// [`decode_utf32`] with the VBMI2 kernel.
///
/// # Safety
/// [`is_available`] and [`has_vbmi2`] must be true.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
unsafe fn decode_utf32_vbmi2(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    // SAFETY: the instruction sets of `__m512i` and `Avx512Convert` are available
    // (this function's contract).
    unsafe { super::utf32::decode_utf32_by::<__m512i, Avx512Convert>(bytes, out) }
}

/// Decodes `bytes` to UTF-16 (see [`crate::fast::decode_utf16`]): AVX-512 validation and
/// the VBMI2 UTF-16 kernel (`avx512_utf16`) where the CPU has VBMI2, else the AVX2
/// backend's code.
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_utf16(bytes: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
    if has_vbmi2() {
        // SAFETY: `is_available()` (caller's contract) and `has_vbmi2()`.
        unsafe { decode_utf16_vbmi2(bytes, out) }
    } else {
        // SAFETY: `is_available()` checks AVX2 too.
        unsafe { super::avx2::decode_utf16(bytes, out) }
    }
}

/// [`decode_utf16`] with the VBMI2 kernel, which converts to code units in registers.
///
/// # Safety
/// [`is_available`] and [`has_vbmi2`] must be true.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
unsafe fn decode_utf16_vbmi2(bytes: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
    // SAFETY: the instruction sets of `__m512i` and `Avx512Convert16` are available
    // (this function's contract).
    unsafe {
        super::utf16::decode_utf16_by::<__m512i, Avx512Convert16>(bytes, out, &mut Vec::new())
    }
}

/// Lossy decoding to UTF-16 (see [`crate::fast::decode_utf16_lossy`]): as
/// [`decode_utf16`], with AVX-512 validation finding the errors.
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn decode_utf16_lossy(bytes: &[u8], out: &mut Vec<u16>) {
    if has_vbmi2() {
        // SAFETY: `is_available()` (caller's contract) and `has_vbmi2()`.
        unsafe { decode_utf16_lossy_vbmi2(bytes, out) }
    } else {
        // SAFETY: `is_available()` checks AVX2 too.
        unsafe { super::avx2::decode_utf16_lossy(bytes, out) }
    }
}

/// [`decode_utf16_lossy`] with the VBMI2 kernel.
///
/// # Safety
/// [`is_available`] and [`has_vbmi2`] must be true.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
unsafe fn decode_utf16_lossy_vbmi2(bytes: &[u8], out: &mut Vec<u16>) {
    // SAFETY: the instruction sets are available (this function's contract).
    unsafe { super::avx512_utf16_lossy::decode_utf16_lossy(bytes, out) }
}

/// Encodes UTF-16 as UTF-8 (see [`crate::fast::encode_utf16`]): the VBMI2 kernel of
/// `encode_avx512` where the CPU has it, else the SSE kernel with ASCII runs tested
/// with this backend's registers.
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn encode_utf16(units: &[u16], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    if super::encode_avx512::is_available() {
        // SAFETY: just checked.
        unsafe { super::encode_avx512::encode_utf16::<false>(units, out) }
    } else {
        // SAFETY: the backend is available (this function's contract).
        unsafe { encode_utf16_sse::<false>(units, out) }
    }
}

/// Encodes UTF-16 as UTF-8, lossy (see [`crate::fast::encode_utf16_lossy`]), as
/// [`encode_utf16`] does.
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn encode_utf16_lossy(units: &[u16], out: &mut Vec<u8>) {
    let result = if super::encode_avx512::is_available() {
        // SAFETY: just checked.
        unsafe { super::encode_avx512::encode_utf16::<true>(units, out) }
    } else {
        // SAFETY: the backend is available (this function's contract).
        unsafe { encode_utf16_sse::<true>(units, out) }
    };
    debug_assert!(result.is_ok());
}

/// [`encode_utf16`] by the SSE kernel.
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn encode_utf16_sse<const LOSSY: bool>(
    units: &[u16],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract), and with it SSE4.1.
    unsafe { super::encode::encode_utf16::<__m512i, Sse41Kernel, LOSSY>(units, out) }
}

/// Encodes code points as UTF-8 (see [`crate::fast::encode_utf32`]), the VBMI2 kernel
/// where the CPU has it, as [`encode_utf16`] does.
///
/// # Safety
/// [`is_available`] must be true.
pub unsafe fn encode_utf32(points: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    if super::encode_avx512::is_available() {
        // SAFETY: just checked.
        unsafe { super::encode_avx512::encode_utf32(points, out) }
    } else {
        // SAFETY: the backend is available (this function's contract).
        unsafe { encode_utf32_sse(points, out) }
    }
}

/// [`encode_utf32`] by the SSE kernel.
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn encode_utf32_sse(points: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract), and with it SSE4.1.
    unsafe { super::encode::encode_utf32::<__m512i, Sse41Kernel>(points, out) }
}
