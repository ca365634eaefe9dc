//! The two register abstractions the SIMD algorithms are written over.
//!
//! * [`Vector`]: a register of 16, 32 or 64 bytes with the byte-wise operations of the
//!   validation algorithm ([`super::validate()`]).
//! * [`Kernel16`]: a 16-byte register with a byte shuffle, for the UTF-32 conversion
//!   kernel ([`super::utf32`]) and the dense-error loop of lossy decoding
//!   ([`super::lossy`]).
//!
//! Each per-ISA module implements them with intrinsics, `#[inline(always)]`, so that the
//! methods are compiled with the target features of the `#[target_feature]` function
//! that instantiates the generic algorithm (memchr's `arch/generic` pattern).
//!
//! Every method is `unsafe` with one contract: it may only run on a CPU that has the
//! implementing backend's instruction set (its `is_available()` returned true), and
//! pointer arguments must be valid for the bytes the method documents.

/// A SIMD register of `BYTES` bytes, with the byte-wise operations of the lookup
/// algorithm. Implementations must be `#[inline(always)]`.
///
/// # Safety
/// Implementations must keep `BYTES` to 16, 32 or 64 (a divisor of 64, at most 64):
/// the validation loop reads `64 / BYTES` vectors per block and loads `BYTES` bytes from
/// the end of a 64-byte table. `assert_vector_width` checks it at compile time for
/// every instantiation. Every method must do what its documentation says for every
/// input (the algorithms' memory safety relies on it).
pub unsafe trait Vector: Copy {
    /// Register width in bytes (16, 32 or 64; divides 64).
    const BYTES: usize;
    /// Every byte set to `byte`.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn splat(byte: u8) -> Self;
    /// Loads `BYTES` bytes from `ptr` (no alignment needed).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn load_unaligned(ptr: *const u8) -> Self;
    /// The 16-byte `table` repeated in every 128-bit lane (for [`Vector::lookup16`]).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn repeat16(table: &[u8; 16]) -> Self;
    /// Bitwise or.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn or(self, other: Self) -> Self;
    /// Bitwise and.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn and(self, other: Self) -> Self;
    /// Bitwise exclusive or.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn xor(self, other: Self) -> Self;
    /// Each byte shifted right by 4 (its high nibble).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn high_nibbles(self) -> Self;
    /// Each byte `i` (all below 16) replaced by `table[i]`, per 128-bit lane.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn lookup16(self, table: Self) -> Self;
    /// The bytes of `self` moved up by 1, the last byte of `previous` shifted in.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn prev1(self, previous: Self) -> Self;
    /// The bytes of `self` moved up by 2, the last 2 bytes of `previous` shifted in.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn prev2(self, previous: Self) -> Self;
    /// The bytes of `self` moved up by 3, the last 3 bytes of `previous` shifted in.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn prev3(self, previous: Self) -> Self;
    /// Byte-wise unsigned saturating subtraction.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// Whether any bit is set.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn any_bit_set(self) -> bool;
    /// Whether any byte is 0x80 or above (not ASCII).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn any_high_bit(self) -> bool;
    /// Bit `i` set when byte `i` is not zero (bits from `BYTES` on clear): where a
    /// lookup's error vector flags bytes, without a round trip through memory.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available.
    unsafe fn nonzero_mask(self) -> u64;
    /// Stores the `BYTES` bytes at `ptr` (no alignment needed).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `ptr` valid for
    /// writes of `BYTES` bytes.
    unsafe fn store_unaligned(self, ptr: *mut u8);
    /// The `len` bytes at `ptr` (`len <= BYTES`) followed by zeros, loaded without reading
    /// the bytes after them: with a masked load where the instruction set has one, or
    /// from two `u64` read in place for up to 16 bytes; `None` otherwise, and the caller copies
    /// them into a zeroed buffer. (Reading a vector straight after narrower stores into
    /// it stalls the load: store-to-load forwarding fails, which made the last partial
    /// block cost more than a whole short input's validation.)
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `ptr` valid for
    /// reads of `len` bytes.
    #[inline(always)]
    unsafe fn load_prefix(ptr: *const u8, len: usize) -> Option<Self> {
        let _ = (ptr, len);
        None
    }
}

/// Compile-time check of [`Vector::BYTES`]: evaluated (and so a build error if false)
/// wherever a generic algorithm is instantiated with `V`.
pub(crate) struct VectorWidth<V>(core::marker::PhantomData<V>);

impl<V: Vector> VectorWidth<V> {
    /// Always `true`; fails to compile for a width other than 16, 32 or 64.
    pub(crate) const OK: bool = {
        assert!(
            V::BYTES == 16 || V::BYTES == 32 || V::BYTES == 64,
            "Vector::BYTES must be 16, 32 or 64"
        );
        true
    };
}

/// Forces [`VectorWidth::OK`] for `V` (call at the top of each generic entry point).
#[inline(always)]
pub(crate) const fn assert_vector_width<V: Vector>() {
    let _ = VectorWidth::<V>::OK;
}

use super::tables::{ShortStep, SHORT_STEPS, THREE_BYTE_STEP};

/// A 16-byte register for the UTF-32 conversion kernel. Implementations must be
/// `#[inline(always)]`.
pub trait Kernel16 {
    /// The 16-byte register type.
    type V: Copy;
    /// Loads 16 bytes from `ptr` (no alignment needed).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn load16(ptr: *const u8) -> Self::V;
    /// Bit `i` set iff byte `i` is 0x80 or above.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn high_bit_mask(v: Self::V) -> u32;
    /// Bit `i` set iff byte `i` is a tail (80..BF).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn tail_mask(v: Self::V) -> u32;
    /// Zero-extends the 16 bytes at `src` (all ASCII) to 16 `u32` stored at `dst`.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn widen16(src: *const u8, dst: *mut u32);
    /// Zero-extends the 16 bytes at `src` (all ASCII) to 16 `u16` stored at `dst` (the
    /// UTF-16 code units of ASCII characters).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `src` valid for
    /// reads of 16 bytes, `dst` for writes of 16 `u16`.
    unsafe fn widen16_to_u16(src: *const u8, dst: *mut u16);
    /// Byte `i` of the result is `v[shuffle[i]]`, or 0 where `shuffle[i]` has its high
    /// bit set.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn shuffle(v: Self::V, shuffle: &[u8; 16]) -> Self::V;
    /// Assembles scalar values in each 32-bit lane holding the bytes of one character,
    /// last byte first, and stores the 4 lanes. `payload` is the step's mask of payload
    /// bits ([`super::tables::Step::payload`]); after masking, lane `b0 b1 b2 b3` is worth
    /// `b0 + 64 * b1 + 4096 * b2 + 262144 * b3` ([`assemble_lane`] is the scalar model).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn assemble_store(v: Self::V, payload: &[u8; 16], dst: *mut u32);
    /// Converts the six characters of a [`ShortStep`] from the 16 bytes at `src`: stores
    /// 8 `u32` at `dst` (the last two meaningless). By default two [`Kernel16::shuffle`]
    /// and [`Kernel16::assemble_store`] of 4 lanes each; a kernel with 32-byte registers
    /// does both halves at once.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `src` valid for
    /// reads of 16 bytes, `dst` for writes of 8 `u32`.
    #[inline(always)]
    unsafe fn short_store(src: *const u8, step: &ShortStep, dst: *mut u32) {
        // SAFETY: the caller's contract covers both halves (`dst + 4..8` included).
        unsafe {
            let v = Self::load16(src);
            Self::assemble_store(Self::shuffle(v, &step.shuffle[0]), &step.payload[0], dst);
            Self::assemble_store(
                Self::shuffle(v, &step.shuffle[1]),
                &step.payload[1],
                dst.add(4),
            );
        }
    }
    /// Converts the 20 characters of 3 bytes that are the first 60 of the 64 bytes at
    /// `src` and stores their 20 scalar values at `dst`. By default five steps of
    /// [`THREE_BYTE_STEP`] (no table load); a kernel with 32-byte registers converts
    /// eight characters at once, 12 bytes in each 128-bit lane.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `src` valid for
    /// reads of 64 bytes, `dst` for writes of 20 `u32`; the 60 bytes are 20 well-formed
    /// 3-byte characters.
    #[inline(always)]
    unsafe fn three_byte_run_store(src: *const u8, dst: *mut u32) {
        // SAFETY: step `i` reads bytes `12 * i..12 * i + 16` (at most 64) and writes
        // lanes `4 * i..4 * i + 4` (at most 20) (caller's contract).
        unsafe {
            for i in 0..5 {
                Self::assemble_store(
                    Self::shuffle(Self::load16(src.add(12 * i)), &THREE_BYTE_STEP.shuffle),
                    &THREE_BYTE_STEP.payload,
                    dst.add(4 * i),
                );
            }
        }
    }
    /// [`Kernel16::assemble_store`] of 4 scalar values below U+10000, stored as 4 `u16`
    /// (their UTF-16 code units). By default through a `u32` copy on the stack.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `dst` valid for
    /// writes of 4 `u16`; every lane's value below U+10000.
    #[inline(always)]
    unsafe fn assemble_store16(v: Self::V, payload: &[u8; 16], dst: *mut u16) {
        let mut lanes = [0u32; 4];
        // SAFETY: `lanes` has room for the 4 scalars; `dst` for 4 `u16` (caller's
        // contract), and each value fits one (below U+10000).
        unsafe {
            Self::assemble_store(v, payload, lanes.as_mut_ptr());
            for (i, &lane) in lanes.iter().enumerate() {
                *dst.add(i) = lane as u16;
            }
        }
    }
    /// [`Kernel16::short_store`] to 8 `u16` (the last two meaningless).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `src` valid for
    /// reads of 16 bytes, `dst` for writes of 8 `u16`.
    #[inline(always)]
    unsafe fn short_store16(src: *const u8, step: &ShortStep, dst: *mut u16) {
        // SAFETY: the caller's contract covers both halves (`dst + 4..8` included).
        unsafe {
            let v = Self::load16(src);
            Self::assemble_store16(Self::shuffle(v, &step.shuffle[0]), &step.payload[0], dst);
            Self::assemble_store16(
                Self::shuffle(v, &step.shuffle[1]),
                &step.payload[1],
                dst.add(4),
            );
        }
    }
    /// The high-bit and tail masks ([`Kernel16::high_bit_mask`], [`Kernel16::tail_mask`])
    /// of the 64 bytes at `block`, bit `i` for byte `i`: by default four 16-byte loads; a
    /// kernel with wider registers makes them from fewer, with fewer shifts to join.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `block` readable
    /// for 64 bytes.
    #[inline(always)]
    unsafe fn block_masks(block: *const u8) -> (u64, u64) {
        let (mut high, mut tails) = (0u64, 0u64);
        for i in 0..4 {
            // SAFETY: the same contract; bytes `16 * i..16 * i + 16` are in the block.
            let v = unsafe { Self::load16(block.add(16 * i)) };
            // SAFETY: the same contract.
            let (h, t) = unsafe { (Self::high_bit_mask(v), Self::tail_mask(v)) };
            high |= (h as u64) << (16 * i);
            tails |= (t as u64) << (16 * i);
        }
        (high, tails)
    }
    /// The `u16` store of short step `short` (`id - SHORT_BASE`): by default
    /// [`Kernel16::short_store16`] of [`SHORT_STEPS`]`[short]`; a kernel that builds the
    /// units in 16-bit lanes takes [`super::tables::SHORT_UNITS`]`[short]` instead.
    ///
    /// # Safety
    /// As [`Kernel16::short_store16`]; `short` below 64.
    #[inline(always)]
    unsafe fn short_units16(src: *const u8, short: usize, dst: *mut u16) {
        // SAFETY: the same contract.
        unsafe { Self::short_store16(src, &SHORT_STEPS[short], dst) }
    }
    /// [`Kernel16::three_byte_run_store`] to 20 `u16` (3-byte characters are all below
    /// U+10000).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `src` valid for
    /// reads of 64 bytes, `dst` for writes of 20 `u16`.
    #[inline(always)]
    unsafe fn three_byte_run_store16(src: *const u8, dst: *mut u16) {
        // SAFETY: step `i` reads bytes `12 * i..12 * i + 16` (at most 64) and writes
        // units `4 * i..4 * i + 4` (at most 20) (caller's contract).
        unsafe {
            for i in 0..5 {
                Self::assemble_store16(
                    Self::shuffle(Self::load16(src.add(12 * i)), &THREE_BYTE_STEP.shuffle),
                    &THREE_BYTE_STEP.payload,
                    dst.add(4 * i),
                );
            }
        }
    }
    /// [`Kernel16::assemble_store`] of 4 scalar values of any range, stored as their
    /// UTF-16 code units: one for a value below U+10000, a surrogate pair for one above
    /// (Unicode §3.9, D91, Table 3-5). `pairs` has bit `k` set iff lane `k` is above
    /// U+FFFF ([`super::tables::Step::pairs`]); the units stored are the step's
    /// characters plus its bits, and the rest of the 8 units' slots may be written with
    /// anything. By default through a `u32` copy on the stack, each value stored as two
    /// units with no branch on its range (the lanes found by value, `pairs` unused).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `dst` valid for
    /// writes of 8 `u16`; every lane a scalar value (a lane the step leaves empty is 0),
    /// and `pairs` (below 16) the lanes above U+FFFF.
    #[inline(always)]
    unsafe fn assemble_store_pairs(v: Self::V, payload: &[u8; 16], pairs: usize, dst: *mut u16) {
        let _ = pairs;
        let mut lanes = [0u32; 4];
        let mut written = 0;
        // SAFETY: `lanes` has room for the 4 scalars; at most 2 units per value, so
        // `written + 1 < 8` at every store (caller's contract: 8 units writable).
        unsafe {
            Self::assemble_store(v, payload, lanes.as_mut_ptr());
            for &scalar in &lanes {
                let pair = scalar >= 0x1_0000;
                let offset = scalar.wrapping_sub(0x1_0000);
                let high = if pair {
                    0xD800 | (offset >> 10)
                } else {
                    scalar
                };
                *dst.add(written) = high as u16;
                *dst.add(written + 1) = (0xDC00 | (offset & 0x3FF)) as u16;
                written += 1 + pair as usize;
            }
        }
    }
    /// Bit `i` set iff `low <= v[i] <= high` (unsigned; `low` above 0x80 and `high` at
    /// least `low`: the x86 forms compare signed against `low - 1`, which for 0x80
    /// would wrap to 0x7F).
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn range_mask(v: Self::V, low: u8, high: u8) -> u32;
    /// Stores the 16 bytes `shuffle(v, shuffle) | fill` at `dst`.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; pointer
    /// arguments valid for the bytes stated above.
    unsafe fn expand_store(v: Self::V, shuffle: &[u8; 16], fill: &[u8; 16], dst: *mut u8);
    /// Bit `i` set iff byte `i` is a lead after which every tail 80..BF is a valid
    /// second byte (Table 3-7: E1..EC, EE, EF, F1..F3), for the bytes whose bit of
    /// `leads_3_4` (the E0..F4 mask) is set; 0 elsewhere. By default three range masks.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available.
    #[inline(always)]
    unsafe fn open_leads(v: Self::V, leads_3_4: u32) -> u32 {
        // SAFETY: the instruction set is available (the caller's contract).
        let leads = unsafe {
            Self::range_mask(v, 0xE1, 0xEC)
                | Self::range_mask(v, 0xEE, 0xEF)
                | Self::range_mask(v, 0xF1, 0xF3)
        };
        leads & leads_3_4
    }
    /// Whether [`Kernel16::expand16_dropping`] is this kernel's own, so that the dense
    /// loop may pass it drop bits (and make 2-byte maximal subparts simple chunks).
    const EXPANDS_DROPS: bool = false;
    /// As [`Kernel16::expand16`], but bytes whose bit `i` of `drop` is set are left out
    /// (neither copied nor replaced; `drop` and `copy` disjoint): the second byte of a
    /// 2-byte maximal subpart, whose U+FFFD its lead gives. Returns `16 - drops + 2 *
    /// replaced`. By default `drop` must be 0 (only kernels with
    /// [`Kernel16::EXPANDS_DROPS`] are given drop bits).
    ///
    /// # Safety
    /// As for [`Kernel16::expand16`].
    #[inline(always)]
    unsafe fn expand16_dropping(v: Self::V, copy: u32, drop: u32, dst: *mut u8) -> usize {
        debug_assert_eq!(drop, 0, "this kernel does not drop bytes");
        // SAFETY: the caller's contract is `expand16`'s.
        unsafe { Self::expand16(v, copy, dst) }
    }
    /// Lossy expansion of a 16-byte chunk: byte `i` of `v` stored as itself where bit
    /// `i` of `copy` is set, as U+FFFD (EF BF BD) where it is not, the bytes of the
    /// chunk in order from `dst`; returns the output length, `16 + 2 * zeros` (the
    /// zero bits of the low 16 of `copy`). By default four groups of 4 bytes, each one
    /// [`Kernel16::expand_store`] from `tables::EXPAND_*` indexed by its 4 copy bits.
    ///
    /// # Safety
    /// The implementing backend's instruction set must be available; `dst` valid for
    /// writes of 64 bytes (the stores may write past the output length).
    #[inline(always)]
    unsafe fn expand16(v: Self::V, copy: u32, dst: *mut u8) -> usize {
        let mut written = 0;
        for group in 0..4 {
            let pattern = ((copy >> (4 * group)) & 0xF) as usize;
            // SAFETY: `written <= 36`, so the store's 16 bytes are within the 64 the
            // caller provides.
            unsafe {
                Self::expand_store(
                    v,
                    &super::tables::EXPAND_SHUFFLE[group][pattern],
                    &super::tables::EXPAND_FILL[pattern],
                    dst.add(written),
                );
            }
            written += super::tables::EXPAND_LEN[pattern] as usize;
        }
        written
    }
}

/// The arithmetic [`Kernel16::assemble_store`] performs per 32-bit lane. A lane holds
/// one character's bytes in reverse order (`b0` = last byte, zeros above the lead), and
/// `payload` the matching masks (see [`super::tables::Step::payload`]):
///
/// ```text
/// 1 byte:  0xxxxxxx                               -> xxxxxxx
/// 2 bytes: 10xxxxxx 110yyyyy                       -> yyyyyxxxxxx
/// 3 bytes: 10xxxxxx 10yyyyyy 1110zzzz              -> zzzzyyyyyyxxxxxx
/// 4 bytes: 10xxxxxx 10yyyyyy 10zzzzzz 11110www     -> wwwzzzzzzyyyyyyxxxxxx
/// ```
///
/// After masking, pairs of bytes are combined as `low + 64 * high` (x86
/// `pmaddubsw`), then pairs of 16-bit halves as `low + 4096 * high` (`pmaddwd`).
#[inline(always)]
pub const fn assemble_lane(lane: u32, payload: u32) -> u32 {
    let bits = lane & payload;
    let low_half = (bits & 0xFF) + 64 * ((bits >> 8) & 0xFF);
    let high_half = ((bits >> 16) & 0xFF) + 64 * (bits >> 24);
    low_half + 4096 * high_half
}

/// The `len <= 16` bytes at `ptr` as two little-endian `u64` (bytes 0 to 7, 8 to 15),
/// zeros after them, read with at most two loads that stay inside the `len` bytes
/// (overlapping ones, whose common bytes agree), so no buffer is stored and reloaded.
///
/// # Safety
/// `ptr` valid for reads of `len` bytes, `len <= 16`.
// Only the x86 backends without masked loads (SSE4.2, AVX2) call it; on other
// architectures only its test does.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn read_short(ptr: *const u8, len: usize) -> (u64, u64) {
    debug_assert!(len <= 16);
    // SAFETY (of every read): each starts at `ptr` or later and ends at `ptr + len` or
    // before, as the case's bounds on `len` show.
    unsafe {
        let u64_at = |offset: usize| (ptr.add(offset) as *const u64).read_unaligned();
        let u32_at = |offset: usize| u64::from((ptr.add(offset) as *const u32).read_unaligned());
        let byte_at = |offset: usize| u64::from(*ptr.add(offset));
        match len {
            // Bytes 8..len are the last `len - 8` of the 8 ending at `len`.
            8..=16 => (
                u64_at(0),
                // A shift by 64 (`len == 8`: no byte past 8) gives 0.
                u64_at(len - 8)
                    .checked_shr(8 * (16 - len) as u32)
                    .unwrap_or(0),
            ),
            4..=7 => (u32_at(0) | u32_at(len - 4) << (8 * (len - 4)), 0),
            1..=3 => (
                byte_at(0)
                    | byte_at(len / 2) << (8 * (len / 2))
                    | byte_at(len - 1) << (8 * (len - 1)),
                0,
            ),
            _ => (0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assemble_lane_matches_char_decoding() {
        // Every 7th scalar natively; a sparser sample under Miri, which is slow.
        let stride = if cfg!(miri) { 4099 } else { 7 };
        for scalar in (0..=0x10FFFFu32).step_by(stride).filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let encoded = scalar.encode_utf8(&mut buf).as_bytes();
            let mut lane = 0u32;
            let mut payload = 0u32;
            for (i, &byte) in encoded.iter().rev().enumerate() {
                lane |= (byte as u32) << (8 * i);
                let mask = if i + 1 < encoded.len() {
                    0x3F
                } else {
                    [0x7F, 0x1F, 0x0F, 0x07][encoded.len() - 1]
                };
                payload |= mask << (8 * i);
            }
            assert_eq!(
                assemble_lane(lane, payload),
                scalar as u32,
                "{encoded:02X?}"
            );
        }
    }

    #[test]
    fn read_short_reads_exactly_the_bytes_given() {
        let bytes: Vec<u8> = (1..=16).map(|b| b * 15).collect();
        for len in 0..=16 {
            let mut expected = [0u8; 16];
            expected[..len].copy_from_slice(&bytes[..len]);
            // SAFETY: `len <= 16` bytes of `bytes` are readable.
            let (lo, hi) = unsafe { super::read_short(bytes.as_ptr(), len) };
            assert_eq!(lo.to_le_bytes(), expected[..8], "len {len}");
            assert_eq!(hi.to_le_bytes(), expected[8..], "len {len}");
        }
    }
}
