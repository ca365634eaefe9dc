//! NEON backend (aarch64): 16-byte vectors for validation and conversion.
//!
//! This file only implements [`Vector`] and [`Kernel16`] with NEON intrinsics and
//! instantiates the generic algorithms of [`super`] inside `#[target_feature]`
//! functions; [`is_available`] must hold before any of them is called (NEON is part of
//! the aarch64 baseline, but the check keeps every backend alike).

use core::arch::aarch64::*;

use super::utf16::Stepped;
use super::utf16_lossy::lossy_step;
use super::utf16_lossy_patched::{decode_utf16_lossy_patched, lossy_stretches};
use super::{EncodeKernel, Kernel16, Vector};
use crate::fast::Utf8Error;
use crate::reference::encode::EncodeError;

/// Whether this CPU has NEON (always true on aarch64 Linux, checked anyway).
#[inline]
pub fn is_available() -> bool {
    std::arch::is_aarch64_feature_detected!("neon")
}

// SAFETY (every method below): the trait contract requires the caller to have checked
// `is_available()`, so the NEON instructions exist; pointer arguments are valid for the
// stated number of bytes by the callers' bounds checks.
unsafe impl Vector for uint8x16_t {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        unsafe { vdupq_n_u8(byte) }
    }
    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        unsafe { vld1q_u8(ptr) }
    }
    #[inline(always)]
    unsafe fn repeat16(table: &[u8; 16]) -> Self {
        unsafe { vld1q_u8(table.as_ptr()) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { vorrq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { vandq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        unsafe { veorq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        unsafe { vshrq_n_u8(self, 4) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: Self) -> Self {
        unsafe { vqtbl1q_u8(table, self) }
    }
    #[inline(always)]
    unsafe fn prev1(self, previous: Self) -> Self {
        unsafe { vextq_u8(previous, self, 15) }
    }
    #[inline(always)]
    unsafe fn prev2(self, previous: Self) -> Self {
        unsafe { vextq_u8(previous, self, 14) }
    }
    #[inline(always)]
    unsafe fn prev3(self, previous: Self) -> Self {
        unsafe { vextq_u8(previous, self, 13) }
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        unsafe { vqsubq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn any_bit_set(self) -> bool {
        unsafe { vmaxvq_u8(self) != 0 }
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        unsafe { vmaxvq_u8(self) >= 0x80 }
    }
    #[inline(always)]
    unsafe fn nonzero_mask(self) -> u64 {
        // SAFETY: NEON is available (this method's contract).
        unsafe { movemask(vtstq_u8(self, self)) as u64 }
    }
    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
        unsafe { vst1q_u8(ptr, self) }
    }
}

/// Bit `i` of the result is the high bit of byte `i` of `v` (x86's `movemask`).
///
/// # Safety
/// NEON must be available.
#[inline(always)]
unsafe fn movemask(v: uint8x16_t) -> u32 {
    // SAFETY: NEON is available (this function's contract); the table load reads the
    // 16 bytes of `BIT_WEIGHTS`.
    unsafe {
        const BIT_WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        // Arithmetic shift turns each byte into 00 or FF; keep its weight, then add up each
        // half (8 distinct bits sum without carries).
        let signs = vreinterpretq_u8_s8(vshrq_n_s8(vreinterpretq_s8_u8(v), 7));
        let bits = vandq_u8(signs, vld1q_u8(BIT_WEIGHTS.as_ptr()));
        let low = vaddv_u8(vget_low_u8(bits)) as u32;
        let high = vaddv_u8(vget_high_u8(bits)) as u32;
        low | (high << 8)
    }
}

/// The conversion kernel with NEON table lookups and widening moves.
pub struct NeonKernel;

// SAFETY (every method below): as above; `widen16` and `assemble_store` write 16 and 4
// `u32` at `dst`, which the caller reserves.
impl Kernel16 for NeonKernel {
    type V = uint8x16_t;

    #[inline(always)]
    unsafe fn load16(ptr: *const u8) -> uint8x16_t {
        unsafe { vld1q_u8(ptr) }
    }
    #[inline(always)]
    unsafe fn high_bit_mask(v: uint8x16_t) -> u32 {
        unsafe { movemask(v) }
    }
    #[inline(always)]
    unsafe fn tail_mask(v: uint8x16_t) -> u32 {
        unsafe {
            // Tails 80..BF are exactly the bytes below -64 as signed bytes.
            movemask(vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(-64)))
        }
    }
    #[inline(always)]
    unsafe fn widen16(src: *const u8, dst: *mut u32) {
        unsafe {
            let v = vld1q_u8(src);
            let low = vmovl_u8(vget_low_u8(v));
            let high = vmovl_u8(vget_high_u8(v));
            vst1q_u32(dst, vmovl_u16(vget_low_u16(low)));
            vst1q_u32(dst.add(4), vmovl_u16(vget_high_u16(low)));
            vst1q_u32(dst.add(8), vmovl_u16(vget_low_u16(high)));
            vst1q_u32(dst.add(12), vmovl_u16(vget_high_u16(high)));
        }
    }
    #[inline(always)]
    unsafe fn widen16_to_u16(src: *const u8, dst: *mut u16) {
        unsafe {
            let v = vld1q_u8(src);
            vst1q_u16(dst, vmovl_u8(vget_low_u8(v)));
            vst1q_u16(dst.add(8), vmovl_u8(vget_high_u8(v)));
        }
    }
    #[inline(always)]
    unsafe fn shuffle(v: uint8x16_t, shuffle: &[u8; 16]) -> uint8x16_t {
        unsafe {
            // `tbl` yields 0 for out-of-range indices such as 0x80.
            vqtbl1q_u8(v, vld1q_u8(shuffle.as_ptr()))
        }
    }
    #[inline(always)]
    unsafe fn assemble_store(v: uint8x16_t, payload: &[u8; 16], dst: *mut u32) {
        unsafe {
            let bits = vreinterpretq_u16_u8(vandq_u8(v, vld1q_u8(payload.as_ptr())));
            // Byte pairs: low + 64 * high (the high byte shifted down by 2); then 16-bit
            // pairs: low + 4096 * high.
            let pairs = vorrq_u16(
                vandq_u16(bits, vdupq_n_u16(0x00FF)),
                vshrq_n_u16(vandq_u16(bits, vdupq_n_u16(0xFF00)), 2),
            );
            let halves = vreinterpretq_u32_u16(pairs);
            let scalars = vorrq_u32(
                vandq_u32(halves, vdupq_n_u32(0xFFFF)),
                vshrq_n_u32(vandq_u32(halves, vdupq_n_u32(0xFFFF_0000)), 4),
            );
            vst1q_u32(dst, scalars);
        }
    }
    #[inline(always)]
    unsafe fn range_mask(v: uint8x16_t, low: u8, high: u8) -> u32 {
        unsafe {
            let in_range = vandq_u8(vcgeq_u8(v, vdupq_n_u8(low)), vcleq_u8(v, vdupq_n_u8(high)));
            movemask(in_range)
        }
    }
    #[inline(always)]
    unsafe fn expand_store(v: uint8x16_t, shuffle: &[u8; 16], fill: &[u8; 16], dst: *mut u8) {
        unsafe {
            let picked = vqtbl1q_u8(v, vld1q_u8(shuffle.as_ptr()));
            vst1q_u8(dst, vorrq_u8(picked, vld1q_u8(fill.as_ptr())));
        }
    }
}

// SAFETY (every method below): as for `Vector for uint8x16_t` above; loads and stores
// touch exactly the elements and bytes each method's documentation states.
impl EncodeKernel for NeonKernel {
    type V = uint16x8_t;

    #[inline(always)]
    unsafe fn load8(src: *const u16) -> uint16x8_t {
        unsafe { vld1q_u16(src) }
    }
    #[inline(always)]
    unsafe fn load8_narrow(src: *const u32) -> Option<uint16x8_t> {
        unsafe {
            let low = vld1q_u32(src);
            let high = vld1q_u32(src.add(4));
            if vmaxvq_u32(vorrq_u32(low, high)) > 0xFFFF {
                return None;
            }
            Some(vcombine_u16(vmovn_u32(low), vmovn_u32(high)))
        }
    }
    #[inline(always)]
    unsafe fn splat(value: u16) -> uint16x8_t {
        unsafe { vdupq_n_u16(value) }
    }
    #[inline(always)]
    unsafe fn and(a: uint16x8_t, b: uint16x8_t) -> uint16x8_t {
        unsafe { vandq_u16(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: uint16x8_t, b: uint16x8_t) -> uint16x8_t {
        unsafe { vorrq_u16(a, b) }
    }
    #[inline(always)]
    unsafe fn shr<const N: i32>(v: uint16x8_t) -> uint16x8_t {
        unsafe { vshrq_n_u16::<N>(v) }
    }
    #[inline(always)]
    unsafe fn shl<const N: i32>(v: uint16x8_t) -> uint16x8_t {
        unsafe { vshlq_n_u16::<N>(v) }
    }
    #[inline(always)]
    unsafe fn below(v: uint16x8_t, bound: u16) -> uint16x8_t {
        unsafe { vcltq_u16(v, vdupq_n_u16(bound)) }
    }
    #[inline(always)]
    unsafe fn equal(a: uint16x8_t, b: uint16x8_t) -> uint16x8_t {
        unsafe { vceqq_u16(a, b) }
    }
    #[inline(always)]
    unsafe fn select(mask: uint16x8_t, a: uint16x8_t, b: uint16x8_t) -> uint16x8_t {
        unsafe { vbslq_u16(mask, a, b) }
    }
    #[inline(always)]
    unsafe fn bits(mask: uint16x8_t) -> u32 {
        const WEIGHTS: [u16; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
        unsafe { u32::from(vaddvq_u16(vandq_u16(mask, vld1q_u16(WEIGHTS.as_ptr())))) }
    }
    #[inline(always)]
    unsafe fn interleave(a: uint16x8_t, b: uint16x8_t) -> (uint16x8_t, uint16x8_t) {
        unsafe { (vzip1q_u16(a, b), vzip2q_u16(a, b)) }
    }
    #[inline(always)]
    unsafe fn shuffle_store(v: uint16x8_t, shuffle: &[u8; 16], dst: *mut u8) {
        // Indexes of 0x80 and above give 0, as the trait requires.
        unsafe {
            vst1q_u8(
                dst,
                vqtbl1q_u8(vreinterpretq_u8_u16(v), vld1q_u8(shuffle.as_ptr())),
            )
        }
    }
    #[inline(always)]
    unsafe fn narrow_store(v: uint16x8_t, dst: *mut u8) {
        unsafe { vst1_u8(dst, vmovn_u16(v)) }
    }
    #[inline(always)]
    unsafe fn narrow16_store(src: *const u16, dst: *mut u8) {
        unsafe {
            let low = vmovn_u16(vld1q_u16(src));
            let high = vmovn_u16(vld1q_u16(src.add(8)));
            vst1q_u8(dst, vcombine_u8(low, high));
        }
    }
    #[inline(always)]
    unsafe fn narrow16_store_u32(src: *const u32, dst: *mut u8) {
        unsafe {
            let half = |i: usize| {
                vcombine_u16(
                    vmovn_u32(vld1q_u32(src.add(8 * i))),
                    vmovn_u32(vld1q_u32(src.add(8 * i + 4))),
                )
            };
            vst1q_u8(dst, vcombine_u8(vmovn_u16(half(0)), vmovn_u16(half(1))));
        }
    }
}

/// Validates `bytes` (see [`super::validate()`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "neon")]
pub unsafe fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::validate::<uint8x16_t>(bytes) }
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
#[target_feature(enable = "neon")]
unsafe fn lossy_run(bytes: &[u8], pos: usize, out: &mut Vec<u8>) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::lossy_run::lossy_run::<uint8x16_t, NeonKernel>(bytes, pos, out) }
}

/// Decodes `bytes` to scalar values (see [`super::decode_utf32`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "neon")]
pub unsafe fn decode_utf32(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::decode_utf32::<uint8x16_t, NeonKernel>(bytes, out) }
}

/// Decodes `bytes` to UTF-16 (see [`crate::fast::decode_utf16`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "neon")]
pub unsafe fn decode_utf16(bytes: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe {
        super::utf16::decode_utf16_by::<uint8x16_t, Stepped<NeonKernel>>(
            bytes,
            out,
            &mut Vec::new(),
        )
    }
}

/// Lossy decoding to UTF-16 (see [`crate::fast::decode_utf16_lossy`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "neon")]
pub unsafe fn decode_utf16_lossy(bytes: &[u8], out: &mut Vec<u16>) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { decode_utf16_lossy_patched(bytes, out, decode_utf16, utf16_lossy_stretches) }
}

/// Lossy UTF-16 after the first error, compiled apart from the strict loop before it.
///
/// # Safety
/// [`is_available`] must be true; `pos <= bytes.len()`.
#[target_feature(enable = "neon")]
unsafe fn utf16_lossy_stretches(bytes: &[u8], pos: usize, out: &mut Vec<u16>) {
    // SAFETY: the backend is available and `pos` in bounds (this function's contract),
    // so its lossy step may be called, and it agrees with std.
    unsafe {
        let lookup = super::validate::Lookup::new();
        let step = |run: &[u8], out: &mut Vec<u16>, scratch: &mut Vec<u32>| {
            lossy_step::<uint8x16_t, Stepped<NeonKernel>>(&lookup, run, out, scratch)
        };
        lossy_stretches::<uint8x16_t, Stepped<NeonKernel>>(&lookup, bytes, pos, out, step)
    }
}

/// Encodes UTF-16 as UTF-8 (see [`crate::fast::encode_utf16`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "neon")]
pub unsafe fn encode_utf16(units: &[u16], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract).
    unsafe { super::encode::encode_utf16::<uint8x16_t, NeonKernel, false>(units, out) }
}

/// Encodes UTF-16 as UTF-8, lossy (see [`crate::fast::encode_utf16_lossy`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "neon")]
pub unsafe fn encode_utf16_lossy(units: &[u16], out: &mut Vec<u8>) {
    // SAFETY: the backend is available (this function's contract).
    let result = unsafe { super::encode::encode_utf16::<uint8x16_t, NeonKernel, true>(units, out) };
    debug_assert!(result.is_ok());
}

/// Encodes code points as UTF-8 (see [`crate::fast::encode_utf32`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "neon")]
pub unsafe fn encode_utf32(points: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract).
    unsafe { super::encode::encode_utf32::<uint8x16_t, NeonKernel>(points, out) }
}
