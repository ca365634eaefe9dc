//! The output of the 16-byte kernels' conversion ([`super::utf32`]): scalar values
//! (`u32`), or UTF-16 code units (`u16`) of text with no character above U+FFFF.
//!
//! Unicode §3.9, D91: code points U+0000..U+D7FF and U+E000..U+FFFF are one code unit
//! of the same value. Text with no 4-byte character therefore has one code unit per
//! character, equal to its scalar value, and the kernel's steps (which never produce
//! a surrogate pair) can store code units directly, with no pass through scalar values.

use super::tables::ShortStep;
use super::vector::Kernel16;

/// One unit of the conversion's output. The methods store what the [`Kernel16`]
/// method of the same name computes, as units of this type.
pub trait Unit: Copy {
    /// [`Kernel16::widen16`] (or its `u16` form).
    ///
    /// # Safety
    /// `K`'s instruction set available; `src` readable for 16 bytes, `dst` writable for
    /// 16 units.
    unsafe fn widen16<K: Kernel16>(src: *const u8, dst: *mut Self);
    /// [`Kernel16::short_store`] (or its `u16` form).
    ///
    /// # Safety
    /// `K`'s instruction set available; `src` readable for 16 bytes, `dst` writable for
    /// 8 units.
    unsafe fn short_store<K: Kernel16>(src: *const u8, step: &ShortStep, dst: *mut Self);
    /// [`Kernel16::assemble_store`] (or its `u16` form).
    ///
    /// # Safety
    /// `K`'s instruction set available; `dst` writable for 4 units; for `u16`, the
    /// values below U+10000.
    unsafe fn assemble_store<K: Kernel16>(v: K::V, payload: &[u8; 16], dst: *mut Self);
    /// [`Kernel16::three_byte_run_store`] (or its `u16` form).
    ///
    /// # Safety
    /// `K`'s instruction set available; `src` readable for 64 bytes, `dst` writable for
    /// 20 units.
    unsafe fn three_byte_run_store<K: Kernel16>(src: *const u8, dst: *mut Self);
    /// The unit of a scalar value (for `u16`, one below U+10000).
    fn from_scalar(scalar: u32) -> Self;
}

// SAFETY (every method of both impls): the caller's contract is the `Kernel16` method's.
impl Unit for u32 {
    #[inline(always)]
    unsafe fn widen16<K: Kernel16>(src: *const u8, dst: *mut u32) {
        unsafe { K::widen16(src, dst) }
    }
    #[inline(always)]
    unsafe fn short_store<K: Kernel16>(src: *const u8, step: &ShortStep, dst: *mut u32) {
        unsafe { K::short_store(src, step, dst) }
    }
    #[inline(always)]
    unsafe fn assemble_store<K: Kernel16>(v: K::V, payload: &[u8; 16], dst: *mut u32) {
        unsafe { K::assemble_store(v, payload, dst) }
    }
    #[inline(always)]
    unsafe fn three_byte_run_store<K: Kernel16>(src: *const u8, dst: *mut u32) {
        unsafe { K::three_byte_run_store(src, dst) }
    }
    #[inline(always)]
    fn from_scalar(scalar: u32) -> u32 {
        scalar
    }
}

impl Unit for u16 {
    #[inline(always)]
    unsafe fn widen16<K: Kernel16>(src: *const u8, dst: *mut u16) {
        unsafe { K::widen16_to_u16(src, dst) }
    }
    #[inline(always)]
    unsafe fn short_store<K: Kernel16>(src: *const u8, step: &ShortStep, dst: *mut u16) {
        unsafe { K::short_store16(src, step, dst) }
    }
    #[inline(always)]
    unsafe fn assemble_store<K: Kernel16>(v: K::V, payload: &[u8; 16], dst: *mut u16) {
        unsafe { K::assemble_store16(v, payload, dst) }
    }
    #[inline(always)]
    unsafe fn three_byte_run_store<K: Kernel16>(src: *const u8, dst: *mut u16) {
        unsafe { K::three_byte_run_store16(src, dst) }
    }
    #[inline(always)]
    fn from_scalar(scalar: u32) -> u16 {
        debug_assert!(scalar < 0x1_0000);
        scalar as u16
    }
}
