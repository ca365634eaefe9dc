//! SSE4.2 backend (x86-64): 16-byte vectors for both validation and conversion.
//!
//! This file only implements [`Vector`] and [`Kernel16`] with SSE intrinsics and
//! instantiates the generic algorithms of [`super`] inside `#[target_feature]`
//! functions; [`is_available`] must hold before any of them is called.

use core::arch::x86_64::*;

use super::utf16::Stepped;
use super::utf16_lossy::lossy_step;
use super::utf16_lossy_patched::{decode_utf16_lossy_patched, lossy_stretches};
use super::{EncodeKernel, Kernel16, Vector};
use crate::fast::Utf8Error;
use crate::reference::encode::EncodeError;

/// Whether this CPU has every instruction set this backend uses: SSSE3 (`pshufb`,
/// `palignr`, `pmaddubsw`), SSE4.1 (`ptest`, `pmovzxbd`), SSE4.2 and POPCNT (counting
/// characters). Every CPU with SSE4.2 has the others, but the check does not rely on it
/// (a virtual machine may report features inconsistently).
#[inline]
pub fn is_available() -> bool {
    std::is_x86_feature_detected!("ssse3")
        && std::is_x86_feature_detected!("sse4.1")
        && std::is_x86_feature_detected!("sse4.2")
        && std::is_x86_feature_detected!("popcnt")
}

// SAFETY (every method below): the trait contract requires the caller to have checked
// `is_available()`, so the SSE2..SSE4.2 instructions exist; pointer arguments are valid
// for the stated number of bytes by the callers' bounds checks.
unsafe impl Vector for __m128i {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        unsafe { _mm_set1_epi8(byte as i8) }
    }
    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        unsafe { _mm_loadu_si128(ptr as *const __m128i) }
    }
    #[inline(always)]
    unsafe fn repeat16(table: &[u8; 16]) -> Self {
        unsafe { _mm_loadu_si128(table.as_ptr() as *const __m128i) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { _mm_or_si128(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { _mm_and_si128(self, other) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        unsafe { _mm_xor_si128(self, other) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        unsafe { _mm_and_si128(_mm_srli_epi16(self, 4), _mm_set1_epi8(0x0F)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: Self) -> Self {
        unsafe { _mm_shuffle_epi8(table, self) }
    }
    #[inline(always)]
    unsafe fn prev1(self, previous: Self) -> Self {
        unsafe { _mm_alignr_epi8(self, previous, 15) }
    }
    #[inline(always)]
    unsafe fn prev2(self, previous: Self) -> Self {
        unsafe { _mm_alignr_epi8(self, previous, 14) }
    }
    #[inline(always)]
    unsafe fn prev3(self, previous: Self) -> Self {
        unsafe { _mm_alignr_epi8(self, previous, 13) }
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        unsafe { _mm_subs_epu8(self, other) }
    }
    #[inline(always)]
    unsafe fn any_bit_set(self) -> bool {
        unsafe { _mm_testz_si128(self, self) == 0 }
    }
    #[inline(always)]
    unsafe fn any_high_bit(self) -> bool {
        unsafe { _mm_movemask_epi8(self) != 0 }
    }
    #[inline(always)]
    unsafe fn nonzero_mask(self) -> u64 {
        unsafe {
            let zero = _mm_cmpeq_epi8(self, _mm_setzero_si128());
            (!(_mm_movemask_epi8(zero) as u32) & 0xFFFF) as u64
        }
    }
    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
        unsafe { _mm_storeu_si128(ptr as *mut __m128i, self) }
    }
    #[inline(always)]
    unsafe fn load_prefix(ptr: *const u8, len: usize) -> Option<Self> {
        if len > 16 {
            return None;
        }
        // SAFETY: `len <= 16` bytes readable at `ptr` (the caller's contract).
        let (lo, hi) = unsafe { super::vector::read_short(ptr, len) };
        // SAFETY: the backend is available (the trait's contract).
        Some(unsafe { _mm_set_epi64x(hi as i64, lo as i64) })
    }
}

/// Writes the named [`Kernel16`] methods of a kernel whose register is `__m128i` as
/// calls to the same methods of [`Sse41Kernel`], for the methods that kernel does just
/// as the SSE4.1 one does. Each method's signature is written here once, so a kernel
/// lists only the names it shares and implements the rest itself.
macro_rules! forward_to_sse41 {
    ($($method:ident),* $(,)?) => {
        $($crate::fast::simd::sse42::forward_to_sse41!(@ $method);)*
    };
    (@ load16) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn load16(ptr: *const u8) -> __m128i);
    };
    (@ high_bit_mask) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn high_bit_mask(v: __m128i) -> u32);
    };
    (@ tail_mask) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn tail_mask(v: __m128i) -> u32);
    };
    (@ widen16) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn widen16(src: *const u8, dst: *mut u32));
    };
    (@ widen16_to_u16) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn widen16_to_u16(
            src: *const u8, dst: *mut u16
        ));
    };
    (@ shuffle) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn shuffle(
            v: __m128i, shuffle: &[u8; 16]
        ) -> __m128i);
    };
    (@ assemble_store) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn assemble_store(
            v: __m128i, payload: &[u8; 16], dst: *mut u32
        ));
    };
    (@ assemble_store16) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn assemble_store16(
            v: __m128i, payload: &[u8; 16], dst: *mut u16
        ));
    };
    (@ assemble_store_pairs) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn assemble_store_pairs(
            v: __m128i, payload: &[u8; 16], pairs: usize, dst: *mut u16
        ));
    };
    (@ range_mask) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn range_mask(
            v: __m128i, low: u8, high: u8
        ) -> u32);
    };
    (@ expand_store) => {
        $crate::fast::simd::sse42::forward_to_sse41!(@fn expand_store(
            v: __m128i, shuffle: &[u8; 16], fill: &[u8; 16], dst: *mut u8
        ));
    };
    (@fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        #[inline(always)]
        unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
            // SAFETY: this method's contract is the SSE4.1 kernel's: the forwarding
            // kernel's instruction set includes SSE4.1, and the pointers are as stated.
            unsafe { $crate::fast::simd::sse42::Sse41Kernel::$name($($arg),*) }
        }
    };
}
pub(crate) use forward_to_sse41;

/// The SSE4.1 16-byte kernel, shared by the AVX2 and AVX-512 backends (which compile it
/// with VEX/EVEX encodings).
pub struct Sse41Kernel;

// SAFETY (every method below): as for `Vector for __m128i` above; `widen16` and
// `assemble_store` write 16 and 4 `u32` at `dst`, which the caller reserves.
impl Kernel16 for Sse41Kernel {
    type V = __m128i;

    #[inline(always)]
    unsafe fn load16(ptr: *const u8) -> __m128i {
        unsafe { _mm_loadu_si128(ptr as *const __m128i) }
    }
    #[inline(always)]
    unsafe fn high_bit_mask(v: __m128i) -> u32 {
        unsafe { _mm_movemask_epi8(v) as u32 }
    }
    #[inline(always)]
    unsafe fn tail_mask(v: __m128i) -> u32 {
        unsafe {
            // Tails 80..BF are exactly the bytes below -64 as signed bytes.
            _mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(-64))) as u32
        }
    }
    #[inline(always)]
    unsafe fn widen16(src: *const u8, dst: *mut u32) {
        unsafe {
            let v = _mm_loadu_si128(src as *const __m128i);
            let out = dst as *mut __m128i;
            _mm_storeu_si128(out, _mm_cvtepu8_epi32(v));
            _mm_storeu_si128(out.add(1), _mm_cvtepu8_epi32(_mm_srli_si128(v, 4)));
            _mm_storeu_si128(out.add(2), _mm_cvtepu8_epi32(_mm_srli_si128(v, 8)));
            _mm_storeu_si128(out.add(3), _mm_cvtepu8_epi32(_mm_srli_si128(v, 12)));
        }
    }
    #[inline(always)]
    unsafe fn widen16_to_u16(src: *const u8, dst: *mut u16) {
        unsafe {
            let v = _mm_loadu_si128(src as *const __m128i);
            let zero = _mm_setzero_si128();
            let out = dst as *mut __m128i;
            _mm_storeu_si128(out, _mm_unpacklo_epi8(v, zero));
            _mm_storeu_si128(out.add(1), _mm_unpackhi_epi8(v, zero));
        }
    }
    #[inline(always)]
    unsafe fn shuffle(v: __m128i, shuffle: &[u8; 16]) -> __m128i {
        unsafe { _mm_shuffle_epi8(v, _mm_loadu_si128(shuffle.as_ptr() as *const __m128i)) }
    }
    #[inline(always)]
    unsafe fn assemble_store(v: __m128i, payload: &[u8; 16], dst: *mut u32) {
        unsafe {
            let bits = _mm_and_si128(v, _mm_loadu_si128(payload.as_ptr() as *const __m128i));
            // Byte pairs: low + 64 * high; then 16-bit pairs: low + 4096 * high.
            let pairs = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x4001));
            let scalars = _mm_madd_epi16(pairs, _mm_set1_epi32(0x1000_0001));
            _mm_storeu_si128(dst as *mut __m128i, scalars);
        }
    }
    #[inline(always)]
    unsafe fn assemble_store16(v: __m128i, payload: &[u8; 16], dst: *mut u16) {
        unsafe {
            let bits = _mm_and_si128(v, _mm_loadu_si128(payload.as_ptr() as *const __m128i));
            let pairs = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x4001));
            let scalars = _mm_madd_epi16(pairs, _mm_set1_epi32(0x1000_0001));
            // Values below U+10000: the unsigned saturation of `packusdw` keeps them.
            _mm_storel_epi64(dst as *mut __m128i, _mm_packus_epi32(scalars, scalars));
        }
    }
    #[inline(always)]
    unsafe fn assemble_store_pairs(v: __m128i, payload: &[u8; 16], pairs: usize, dst: *mut u16) {
        unsafe {
            let bits = _mm_and_si128(v, _mm_loadu_si128(payload.as_ptr() as *const __m128i));
            let byte_pairs = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x4001));
            let scalars = _mm_madd_epi16(byte_pairs, _mm_set1_epi32(0x1000_0001));
            // D91, Table 3-5: above U+FFFF, the value less 0x10000 is 20 bits, the high
            // ten after D800, the low ten after DC00; high unit first (the lane's low
            // half, little-endian). The high ten of the value less 0x10000 are the
            // value's own less 0x40, so the high unit is the value's bits 10 and up plus
            // D800 - 40 (at most DBFF: no carry into the low unit); the low ten are the
            // value's own.
            let high = _mm_srli_epi32(scalars, 10);
            let low = _mm_and_si128(_mm_slli_epi32(scalars, 16), _mm_set1_epi32(0x03FF_0000));
            // D7C0 in the low half and DC00 in the high half: one `add` for both units.
            let surrogates = _mm_or_si128(
                _mm_add_epi32(high, _mm_set1_epi32(0xDC00_D7C0u32 as i32)),
                low,
            );
            // A value below U+10000 is its own unit, with a zero high half: the value
            // less 0x10000 is negative there, and `blendvps` picks by each lane's sign.
            let below = _mm_sub_epi32(scalars, _mm_set1_epi32(0x1_0000));
            let units = _mm_castps_si128(_mm_blendv_ps(
                _mm_castsi128_ps(surrogates),
                _mm_castsi128_ps(scalars),
                _mm_castsi128_ps(below),
            ));
            let compact = &super::tables::PAIR_COMPACT[pairs];
            let packed =
                _mm_shuffle_epi8(units, _mm_loadu_si128(compact.as_ptr() as *const __m128i));
            _mm_storeu_si128(dst as *mut __m128i, packed);
        }
    }
    #[inline(always)]
    unsafe fn range_mask(v: __m128i, low: u8, high: u8) -> u32 {
        unsafe {
            // Both bounds are >= 0x80, i.e. negative as signed bytes, as are the bytes in
            // range: compare signed.
            let above_low = _mm_cmpgt_epi8(v, _mm_set1_epi8(low as i8 - 1));
            let below_high = _mm_cmplt_epi8(v, _mm_set1_epi8(high as i8 + 1));
            _mm_movemask_epi8(_mm_and_si128(above_low, below_high)) as u32
        }
    }
    #[inline(always)]
    unsafe fn expand_store(v: __m128i, shuffle: &[u8; 16], fill: &[u8; 16], dst: *mut u8) {
        unsafe {
            let picked = _mm_shuffle_epi8(v, _mm_loadu_si128(shuffle.as_ptr() as *const __m128i));
            let fill = _mm_loadu_si128(fill.as_ptr() as *const __m128i);
            _mm_storeu_si128(dst as *mut __m128i, _mm_or_si128(picked, fill));
        }
    }
}

// SAFETY (every method below): as for `Vector for __m128i` above; loads and stores
// touch exactly the elements and bytes each method's documentation states.
impl EncodeKernel for Sse41Kernel {
    type V = __m128i;

    #[inline(always)]
    unsafe fn load8(src: *const u16) -> __m128i {
        unsafe { _mm_loadu_si128(src as *const __m128i) }
    }
    #[inline(always)]
    unsafe fn load8_narrow(src: *const u32) -> Option<__m128i> {
        unsafe {
            let low = _mm_loadu_si128(src as *const __m128i);
            let high = _mm_loadu_si128(src.add(4) as *const __m128i);
            let above = _mm_set1_epi32(0xFFFF_0000u32 as i32);
            if _mm_testz_si128(_mm_or_si128(low, high), above) == 0 {
                return None;
            }
            Some(_mm_packus_epi32(low, high))
        }
    }
    #[inline(always)]
    unsafe fn splat(value: u16) -> __m128i {
        unsafe { _mm_set1_epi16(value as i16) }
    }
    #[inline(always)]
    unsafe fn and(a: __m128i, b: __m128i) -> __m128i {
        unsafe { _mm_and_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: __m128i, b: __m128i) -> __m128i {
        unsafe { _mm_or_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn shr<const N: i32>(v: __m128i) -> __m128i {
        unsafe { _mm_srli_epi16::<N>(v) }
    }
    #[inline(always)]
    unsafe fn shl<const N: i32>(v: __m128i) -> __m128i {
        unsafe { _mm_slli_epi16::<N>(v) }
    }
    #[inline(always)]
    unsafe fn below(v: __m128i, bound: u16) -> __m128i {
        // `v < bound` iff `min(v, bound - 1) == v` (SSE has no unsigned 16-bit compare).
        unsafe { _mm_cmpeq_epi16(_mm_min_epu16(v, _mm_set1_epi16((bound - 1) as i16)), v) }
    }
    #[inline(always)]
    unsafe fn equal(a: __m128i, b: __m128i) -> __m128i {
        unsafe { _mm_cmpeq_epi16(a, b) }
    }
    #[inline(always)]
    unsafe fn select(mask: __m128i, a: __m128i, b: __m128i) -> __m128i {
        unsafe { _mm_blendv_epi8(b, a, mask) }
    }
    #[inline(always)]
    unsafe fn bits(mask: __m128i) -> u32 {
        unsafe { _mm_movemask_epi8(_mm_packs_epi16(mask, _mm_setzero_si128())) as u32 }
    }
    #[inline(always)]
    unsafe fn interleave(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        unsafe { (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)) }
    }
    #[inline(always)]
    unsafe fn shuffle_store(v: __m128i, shuffle: &[u8; 16], dst: *mut u8) {
        unsafe {
            let shuffle = _mm_loadu_si128(shuffle.as_ptr() as *const __m128i);
            _mm_storeu_si128(dst as *mut __m128i, _mm_shuffle_epi8(v, shuffle));
        }
    }
    #[inline(always)]
    unsafe fn narrow_store(v: __m128i, dst: *mut u8) {
        unsafe { _mm_storel_epi64(dst as *mut __m128i, _mm_packus_epi16(v, v)) }
    }
    #[inline(always)]
    unsafe fn narrow16_store(src: *const u16, dst: *mut u8) {
        unsafe {
            let low = _mm_loadu_si128(src as *const __m128i);
            let high = _mm_loadu_si128(src.add(8) as *const __m128i);
            _mm_storeu_si128(dst as *mut __m128i, _mm_packus_epi16(low, high));
        }
    }
    #[inline(always)]
    unsafe fn narrow16_store_u32(src: *const u32, dst: *mut u8) {
        unsafe {
            let load = |i: usize| _mm_loadu_si128(src.add(4 * i) as *const __m128i);
            let low = _mm_packus_epi32(load(0), load(1));
            let high = _mm_packus_epi32(load(2), load(3));
            _mm_storeu_si128(dst as *mut __m128i, _mm_packus_epi16(low, high));
        }
    }
}

/// Validates `bytes` (see [`super::validate()`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
pub unsafe fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::validate::<__m128i>(bytes) }
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
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
unsafe fn lossy_run(bytes: &[u8], pos: usize, out: &mut Vec<u8>) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::lossy_run::lossy_run::<__m128i, Sse41Kernel>(bytes, pos, out) }
}

/// Decodes `bytes` to scalar values (see [`super::decode_utf32`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
pub unsafe fn decode_utf32(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { super::decode_utf32::<__m128i, Sse41Kernel>(bytes, out) }
}

/// Decodes `bytes` to UTF-16 (see [`crate::fast::decode_utf16`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
pub unsafe fn decode_utf16(bytes: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe {
        super::utf16::decode_utf16_by::<__m128i, Stepped<Sse41Kernel>>(bytes, out, &mut Vec::new())
    }
}

/// Lossy decoding to UTF-16 (see [`crate::fast::decode_utf16_lossy`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
pub unsafe fn decode_utf16_lossy(bytes: &[u8], out: &mut Vec<u16>) {
    // SAFETY: the backend is available (this function's contract), which is all the
    // generic function requires of its caller.
    unsafe { decode_utf16_lossy_patched(bytes, out, decode_utf16, utf16_lossy_stretches) }
}

/// Lossy UTF-16 after the first error, compiled apart from the strict loop before it.
///
/// # Safety
/// [`is_available`] must be true; `pos <= bytes.len()`.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
unsafe fn utf16_lossy_stretches(bytes: &[u8], pos: usize, out: &mut Vec<u16>) {
    // SAFETY: the backend is available and `pos` in bounds (this function's contract),
    // so its lossy step may be called, and it agrees with std.
    unsafe {
        let lookup = super::validate::Lookup::new();
        let step = |run: &[u8], out: &mut Vec<u16>, scratch: &mut Vec<u32>| {
            lossy_step::<__m128i, Stepped<Sse41Kernel>>(&lookup, run, out, scratch)
        };
        lossy_stretches::<__m128i, Stepped<Sse41Kernel>>(&lookup, bytes, pos, out, step)
    }
}

/// Encodes UTF-16 as UTF-8 (see [`crate::fast::encode_utf16`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
pub unsafe fn encode_utf16(units: &[u16], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract).
    unsafe { super::encode::encode_utf16::<__m128i, Sse41Kernel, false>(units, out) }
}

/// Encodes UTF-16 as UTF-8, lossy (see [`crate::fast::encode_utf16_lossy`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
pub unsafe fn encode_utf16_lossy(units: &[u16], out: &mut Vec<u8>) {
    // SAFETY: the backend is available (this function's contract).
    let result = unsafe { super::encode::encode_utf16::<__m128i, Sse41Kernel, true>(units, out) };
    debug_assert!(result.is_ok());
}

/// Encodes code points as UTF-8 (see [`crate::fast::encode_utf32`]).
///
/// # Safety
/// [`is_available`] must be true.
#[target_feature(enable = "ssse3,sse4.1,sse4.2,popcnt")]
pub unsafe fn encode_utf32(points: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // SAFETY: the backend is available (this function's contract).
    unsafe { super::encode::encode_utf32::<__m128i, Sse41Kernel>(points, out) }
}
