//! The output of the 16-byte kernels' conversion ([`super::utf32`]): scalar values
//! (`u32`), UTF-16 code units (`u16`) of text with no character above U+FFFF, or UTF-16
//! code units of any text ([`Pairs`]).
//!
//! Unicode §3.9, D91: code points U+0000..U+D7FF and U+E000..U+FFFF are one code unit
//! of the same value, U+10000..U+10FFFF a surrogate pair (Table 3-5). Text with no
//! 4-byte character therefore has one code unit per character, equal to its scalar
//! value, and the kernel's steps can store code units directly, with no pass through
//! scalar values. Only a table step (3 or 4 characters) can hold a 4-byte character:
//! the six-character steps hold characters of one or two bytes, the runs three, so
//! [`Pairs`] differs from `u16` in that step alone.

use super::tables::{Step, SHORT_STEPS};
use super::vector::Kernel16;

/// One kind of output of the conversion. The methods store what the [`Kernel16`]
/// method of the same name computes, as units of [`Unit::Out`].
pub trait Unit {
    /// The element type of the output.
    type Out: Copy;
    /// Whether the conversion's blocks take their masks made a block ahead
    /// (`super::utf32`'s `convert_block_ahead`): for UTF-16, whose steps are short
    /// enough for the chain between blocks to be what bounds them (with the shorter
    /// step chain, 8-13% faster on mixed, 2-byte, Latin, CJK and emoji text); not for
    /// scalar values, whose steps store twice the bytes and which were no faster (3-5%
    /// slower on 2-byte, Latin and mixed text; see `benches/README.md`).
    const AHEAD: bool;
    /// [`Kernel16::widen16`] (or its `u16` form).
    ///
    /// # Safety
    /// `K`'s instruction set available; `src` readable for 16 bytes, `dst` writable for
    /// 16 units.
    unsafe fn widen16<K: Kernel16>(src: *const u8, dst: *mut Self::Out);
    /// [`Kernel16::short_store`] (or its `u16` form, [`Kernel16::short_units16`]) of
    /// short step `short` (`id - SHORT_BASE`).
    ///
    /// # Safety
    /// `K`'s instruction set available; `src` readable for 16 bytes, `dst` writable for
    /// 8 units; `short` below 64.
    unsafe fn short_store<K: Kernel16>(src: *const u8, short: usize, dst: *mut Self::Out);
    /// [`Kernel16::assemble_store`] (or a `u16` form) of `v`, shuffled by `step`;
    /// returns how many of the step's characters were stored as two units (always 0
    /// for [`Pairs`]).
    ///
    /// # Safety
    /// `K`'s instruction set available; `dst` writable for 8 units; for `u16`, the
    /// values below U+10000.
    unsafe fn assemble_store<K: Kernel16>(v: K::V, step: &Step, dst: *mut Self::Out) -> usize;
    /// [`Kernel16::three_byte_run_store`] (or its `u16` form).
    ///
    /// # Safety
    /// `K`'s instruction set available; `src` readable for 64 bytes, `dst` writable for
    /// 20 units.
    unsafe fn three_byte_run_store<K: Kernel16>(src: *const u8, dst: *mut Self::Out);
    /// Stores the units of a scalar value (for `u16`, one below U+10000) at `dst` and
    /// returns how many.
    ///
    /// # Safety
    /// `dst` writable for the scalar's units: 2 for one above U+FFFF with
    /// [`Pairs`], else 1 (the conversion's last character may have only its own
    /// slots left).
    unsafe fn store_scalar(dst: *mut Self::Out, scalar: u32) -> usize;
}

/// UTF-16 code units of any text: [`Unit`] with surrogate pairs for 4-byte characters.
pub struct Pairs;

// SAFETY (every method of the three impls): the caller's contract is the `Kernel16`
// method's, or the trait method's.
impl Unit for u32 {
    type Out = u32;
    const AHEAD: bool = false;
    #[inline(always)]
    unsafe fn widen16<K: Kernel16>(src: *const u8, dst: *mut u32) {
        unsafe { K::widen16(src, dst) }
    }
    #[inline(always)]
    unsafe fn short_store<K: Kernel16>(src: *const u8, short: usize, dst: *mut u32) {
        unsafe { K::short_store(src, &SHORT_STEPS[short], dst) }
    }
    #[inline(always)]
    unsafe fn assemble_store<K: Kernel16>(v: K::V, step: &Step, dst: *mut u32) -> usize {
        unsafe { K::assemble_store(v, &step.payload, dst) };
        0
    }
    #[inline(always)]
    unsafe fn three_byte_run_store<K: Kernel16>(src: *const u8, dst: *mut u32) {
        unsafe { K::three_byte_run_store(src, dst) }
    }
    #[inline(always)]
    unsafe fn store_scalar(dst: *mut u32, scalar: u32) -> usize {
        unsafe { *dst = scalar };
        1
    }
}

impl Unit for u16 {
    type Out = u16;
    const AHEAD: bool = true;
    #[inline(always)]
    unsafe fn widen16<K: Kernel16>(src: *const u8, dst: *mut u16) {
        unsafe { K::widen16_to_u16(src, dst) }
    }
    #[inline(always)]
    unsafe fn short_store<K: Kernel16>(src: *const u8, short: usize, dst: *mut u16) {
        unsafe { K::short_units16(src, short, dst) }
    }
    #[inline(always)]
    unsafe fn assemble_store<K: Kernel16>(v: K::V, step: &Step, dst: *mut u16) -> usize {
        unsafe { K::assemble_store16(v, &step.payload, dst) };
        0
    }
    #[inline(always)]
    unsafe fn three_byte_run_store<K: Kernel16>(src: *const u8, dst: *mut u16) {
        unsafe { K::three_byte_run_store16(src, dst) }
    }
    #[inline(always)]
    unsafe fn store_scalar(dst: *mut u16, scalar: u32) -> usize {
        debug_assert!(scalar < 0x1_0000);
        unsafe { *dst = scalar as u16 };
        1
    }
}

impl Unit for Pairs {
    type Out = u16;
    const AHEAD: bool = true;
    #[inline(always)]
    unsafe fn widen16<K: Kernel16>(src: *const u8, dst: *mut u16) {
        unsafe { K::widen16_to_u16(src, dst) }
    }
    #[inline(always)]
    unsafe fn short_store<K: Kernel16>(src: *const u8, short: usize, dst: *mut u16) {
        unsafe { K::short_units16(src, short, dst) }
    }
    #[inline(always)]
    unsafe fn assemble_store<K: Kernel16>(v: K::V, step: &Step, dst: *mut u16) -> usize {
        // Which lanes hold a pair is the step's, known before its values.
        unsafe { K::assemble_store_pairs(v, &step.payload, step.pairs as usize, dst) };
        step.pairs.count_ones() as usize
    }
    #[inline(always)]
    unsafe fn three_byte_run_store<K: Kernel16>(src: *const u8, dst: *mut u16) {
        unsafe { K::three_byte_run_store16(src, dst) }
    }
    #[inline(always)]
    unsafe fn store_scalar(dst: *mut u16, scalar: u32) -> usize {
        // D91, Table 3-5.
        unsafe {
            if scalar < 0x1_0000 {
                *dst = scalar as u16;
                1
            } else {
                let offset = scalar - 0x1_0000;
                *dst = 0xD800 | (offset >> 10) as u16;
                *dst.add(1) = 0xDC00 | (offset & 0x3FF) as u16;
                2
            }
        }
    }
}
