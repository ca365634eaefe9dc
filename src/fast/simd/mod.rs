//! The SIMD algorithms, written once over two small vector traits.
//!
//! * [`Vector`] is a register of 16, 32 or 64 bytes with the handful of byte-wise
//!   operations the validation algorithm needs. [`validate`] is the lookup algorithm of
//!   Keiser & Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte"
//!   (Software: Practice and Experience, 2021), with an ASCII fast path per 64-byte
//!   block. It only *detects*: when a block is flagged, the exact error offset and
//!   maximal subpart come from the scalar DFA ([`crate::fast::dfa`]), restarted at the
//!   last character boundary before that block. So a SIMD backend can never report a
//!   different error than the DFA, only find it faster.
//! * [`Kernel16`] is a 16-byte register with a shuffle. [`decode_utf32`] validates
//!   the input chunk by chunk with [`validate`] and converts each chunk, known to be
//!   well-formed, with a table-driven kernel: from the positions of character ends
//!   in 12 bytes, a table (built at compile time by [`tables`]) picks a shuffle that
//!   puts the bytes of the next 3 or 4 characters into 32-bit lanes, and a few masks
//!   and shifts assemble the scalar values. Runs of ASCII are widened directly. The
//!   same register drives [`decode_lossy_using`]'s dense-error loop: 4-byte groups expanded
//!   by a shuffle (copy a byte, or write EF BF BD in its place).
//!
//! The per-ISA modules (`sse42`, `avx2`, `avx512`, `neon`) only implement these traits
//! (the AVX2 and AVX-512 ones reuse the SSE `Kernel16`)
//! with intrinsics and instantiate the generic functions inside a
//! `#[target_feature(enable = ...)]` function, exactly like memchr's `arch/generic`.
//! The trait methods are `#[inline(always)]` so that they are compiled with the
//! instantiating function's target features.
//!
//! Every trait method is `unsafe`: it may only run on a CPU that has the backend's
//! instruction set, which the backend's `is_available()` checks before any call. The
//! generic `unsafe fn`s here have that same contract (the instruction set of the `V` or
//! `K` they are instantiated with must be available), plus whatever their own
//! `# Safety` section adds.

#![allow(clippy::missing_safety_doc)]

use std::borrow::Cow;

use super::dfa;
use super::lossy;
use super::Utf8Error;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
#[cfg(target_arch = "aarch64")]
pub mod neon;
#[cfg(target_arch = "x86_64")]
pub mod sse42;
pub mod tables;

/// A SIMD register of `BYTES` bytes, with the byte-wise operations of the lookup
/// algorithm. Implementations must be `#[inline(always)]`.
pub trait Vector: Copy {
    /// Register width in bytes (16, 32 or 64; divides 64).
    const BYTES: usize;
    /// Every byte set to `byte`.
    unsafe fn splat(byte: u8) -> Self;
    /// Loads `BYTES` bytes from `ptr` (no alignment needed).
    unsafe fn load_unaligned(ptr: *const u8) -> Self;
    /// The 16-byte `table` repeated in every 128-bit lane (for [`Vector::lookup16`]).
    unsafe fn repeat16(table: &[u8; 16]) -> Self;
    /// Bitwise or.
    unsafe fn or(self, other: Self) -> Self;
    /// Bitwise and.
    unsafe fn and(self, other: Self) -> Self;
    /// Bitwise exclusive or.
    unsafe fn xor(self, other: Self) -> Self;
    /// Each byte shifted right by 4 (its high nibble).
    unsafe fn high_nibbles(self) -> Self;
    /// Each byte `i` (all below 16) replaced by `table[i]`, per 128-bit lane.
    unsafe fn lookup16(self, table: Self) -> Self;
    /// The bytes of `self` moved up by 1, the last byte of `previous` shifted in.
    unsafe fn prev1(self, previous: Self) -> Self;
    /// The bytes of `self` moved up by 2, the last 2 bytes of `previous` shifted in.
    unsafe fn prev2(self, previous: Self) -> Self;
    /// The bytes of `self` moved up by 3, the last 3 bytes of `previous` shifted in.
    unsafe fn prev3(self, previous: Self) -> Self;
    /// Byte-wise unsigned saturating subtraction.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// Whether any bit is set.
    unsafe fn any_bit_set(self) -> bool;
    /// Whether any byte is 0x80 or above (not ASCII).
    unsafe fn any_high_bit(self) -> bool;
}

/// Bits of the lookup tables, one per kind of error in a pair of consecutive bytes
/// (`prev1`, `byte`), named as in Keiser & Lemire section 5.
pub mod error_bits {
    /// `11______ 0_______` or `11______ 11______`: a lead not followed by a tail.
    pub const TOO_SHORT: u8 = 1 << 0;
    /// `0_______ 10______`: a tail after ASCII.
    pub const TOO_LONG: u8 = 1 << 1;
    /// `11100000 100_____`: 3-byte overlong (E0 80..9F).
    pub const OVERLONG_3: u8 = 1 << 2;
    /// `11110100 1001____`, `11110100 101_____`, `11110101+ 1001____ ..`: above U+10FFFF.
    pub const TOO_LARGE: u8 = 1 << 3;
    /// `11101101 101_____`: surrogate (ED A0..BF).
    pub const SURROGATE: u8 = 1 << 4;
    /// `1100000_ 10______`: 2-byte overlong (C0, C1).
    pub const OVERLONG_2: u8 = 1 << 5;
    /// `11110101+ 1000____`: above U+10FFFF with an 80..8F tail (F5..FF 80..8F).
    pub const TOO_LARGE_1000: u8 = 1 << 6;
    /// `11110000 1000____`: 4-byte overlong (F0 80..8F); shares its bit with
    /// `TOO_LARGE_1000`, as the two never meet the same first nibble row.
    pub const OVERLONG_4: u8 = 1 << 6;
    /// `10______ 10______`: two tails in a row; only an error when the second is not
    /// the 3rd or 4th byte of a character, which the `must_be_tail` check decides.
    pub const TWO_TAILS: u8 = 1 << 7;
    /// Errors possible whatever the low nibble of `prev1`.
    pub const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_TAILS;
}

use error_bits::*;

/// Indexed by the high nibble of `prev1`.
pub const PREV1_HIGH: [u8; 16] = [
    // 0_______ (ASCII): a tail after it is too long.
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    // 10______ (a tail).
    TWO_TAILS,
    TWO_TAILS,
    TWO_TAILS,
    TWO_TAILS,
    // 1100____ (C0..CF).
    TOO_SHORT | OVERLONG_2,
    // 1101____ (D0..DF).
    TOO_SHORT,
    // 1110____ (E0..EF).
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    // 1111____ (F0..FF).
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];

/// Indexed by the low nibble of `prev1`.
pub const PREV1_LOW: [u8; 16] = [
    // ____0000: C0, E0, F0.
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    // ____0001: C1.
    CARRY | OVERLONG_2,
    // ____001_
    CARRY,
    CARRY,
    // ____0100: F4.
    CARRY | TOO_LARGE,
    // ____0101 .. ____1100: F5..FC.
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    // ____1101: ED, FD.
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    // ____111_: FE, FF.
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
];

/// Indexed by the high nibble of the current byte.
pub const BYTE_HIGH: [u8; 16] = [
    // 0_______: no tail where one was needed.
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    // 1000____
    TOO_LONG | OVERLONG_2 | TWO_TAILS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    // 1001____
    TOO_LONG | OVERLONG_2 | TWO_TAILS | OVERLONG_3 | TOO_LARGE,
    // 101_____
    TOO_LONG | OVERLONG_2 | TWO_TAILS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_TAILS | SURROGATE | TOO_LARGE,
    // 11______: a lead where a tail was needed.
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

/// The lookup tables and constants, broadcast once per call.
struct Lookup<V> {
    prev1_high: V,
    prev1_low: V,
    byte_high: V,
    low_nibble_mask: V,
    third_byte_threshold: V,
    fourth_byte_threshold: V,
    high_bit: V,
}

impl<V: Vector> Lookup<V> {
    #[inline(always)]
    unsafe fn new() -> Self {
        Lookup {
            prev1_high: V::repeat16(&PREV1_HIGH),
            prev1_low: V::repeat16(&PREV1_LOW),
            byte_high: V::repeat16(&BYTE_HIGH),
            low_nibble_mask: V::splat(0x0F),
            // `prev2 -sat (0xE0 - 0x80)` has its high bit set iff prev2 >= E0 (a 3- or
            // 4-byte lead two bytes back: this byte must be a tail).
            third_byte_threshold: V::splat(0xE0 - 0x80),
            // Likewise iff prev3 >= F0 (a 4-byte lead three bytes back).
            fourth_byte_threshold: V::splat(0xF0 - 0x80),
            high_bit: V::splat(0x80),
        }
    }

    /// Error bits for `input` preceded by `previous` (zero where well-formed).
    #[inline(always)]
    unsafe fn check(&self, input: V, previous: V) -> V {
        let prev1 = input.prev1(previous);
        let special_cases = prev1
            .high_nibbles()
            .lookup16(self.prev1_high)
            .and(prev1.and(self.low_nibble_mask).lookup16(self.prev1_low))
            .and(input.high_nibbles().lookup16(self.byte_high));
        let prev2 = input.prev2(previous);
        let prev3 = input.prev3(previous);
        let must_be_tail = prev2
            .saturating_sub(self.third_byte_threshold)
            .or(prev3.saturating_sub(self.fourth_byte_threshold))
            .and(self.high_bit);
        // A tail after a tail (TWO_TAILS) is right exactly where a tail must be.
        must_be_tail.xor(special_cases)
    }
}

/// `last` ends in the middle of a character: nonzero if one of its last three bytes is
/// a lead needing more bytes than remain in the register.
#[inline(always)]
unsafe fn incomplete_tail<V: Vector>(last: V) -> V {
    /// 0xFF everywhere except the last 3 bytes: EF (a 4-byte lead F0+ three from the
    /// end is incomplete), DF (E0+ two from the end), BF (C0+ at the end).
    static MAX_ALLOWED: [u8; 64] = {
        let mut table = [0xFF; 64];
        table[61] = 0xEF;
        table[62] = 0xDF;
        table[63] = 0xBF;
        table
    };
    // SAFETY: `V::BYTES <= 64`, so the load of `V::BYTES` bytes ending at the end of the
    // 64-byte static is in bounds.
    let max_allowed = V::load_unaligned(MAX_ALLOWED.as_ptr().add(64 - V::BYTES));
    last.saturating_sub(max_allowed)
}

/// Bytes per block of the validation loop.
const BLOCK: usize = 64;

/// Validates `bytes`: SIMD detection, DFA location of the first error.
#[inline(always)]
pub unsafe fn validate<V: Vector>(bytes: &[u8]) -> Result<(), Utf8Error> {
    match first_bad_block::<V>(bytes) {
        None => Ok(()),
        Some(block_start) => dfa::validate_from(bytes, dfa::boundary_before(bytes, block_start)),
    }
}

/// `None` if `bytes` is well-formed; else the offset of a 64-byte block such that the
/// first error is at or after `dfa::boundary_before(bytes, block)`: the first block in
/// which the lookup algorithm sees an error (which may lie in a character starting up to
/// 3 bytes before it), or the block before it (non-ASCII blocks are checked in pairs).
#[inline(always)]
unsafe fn first_bad_block<V: Vector>(bytes: &[u8]) -> Option<usize> {
    let lookup = Lookup::<V>::new();
    let mut scan = Scan::<V>::new();
    let len = bytes.len();
    let mut pos = 0;
    // Align the blocks to 64 bytes when the input is long enough to care: a 64-byte
    // load that straddles cache lines costs two. The bytes before the first aligned
    // address form a head block, right-aligned after zeros (ASCII, which changes
    // nothing for the lookup).
    let misalignment = bytes.as_ptr() as usize % BLOCK;
    if misalignment != 0 && len >= 4 * BLOCK {
        let head = BLOCK - misalignment;
        let mut head_block = [0u8; BLOCK];
        head_block[BLOCK - head..].copy_from_slice(&bytes[..head]);
        if scan.block(&lookup, head_block.as_ptr()).any_bit_set() {
            return Some(0);
        }
        pos = head;
    }
    while pos + BLOCK <= len {
        // SAFETY (of the loads in this loop): `pos + BLOCK <= len` (and `pos + 2 *
        // BLOCK <= len` where two blocks are read).
        let block = bytes.as_ptr().add(pos);
        if !is_ascii_block::<V>(block) {
            // A non-ASCII block, and the next one too if there is one, before testing
            // for errors: the test and its branch cost a fair part of the lookup.
            let mut error = scan.block(&lookup, block);
            let mut blocks = 1;
            if pos + 2 * BLOCK <= len {
                error = error.or(scan.block(&lookup, block.add(BLOCK)));
                blocks = 2;
            }
            if error.any_bit_set() {
                return Some(pos);
            }
            pos += blocks * BLOCK;
            continue;
        }
        if scan.maybe_incomplete && scan.previous_incomplete.any_bit_set() {
            // ASCII after a character cut by the previous block's end.
            return Some(pos);
        }
        // ASCII after a complete character: skip, two blocks at a time.
        scan.maybe_incomplete = false;
        scan.previous = V::splat(0);
        pos += BLOCK;
        while pos + 2 * BLOCK <= len
            && is_ascii_block::<V>(bytes.as_ptr().add(pos))
            && is_ascii_block::<V>(bytes.as_ptr().add(pos + BLOCK))
        {
            pos += 2 * BLOCK;
        }
    }
    if pos < len {
        // The last partial block, padded with zeros (ASCII): a character cut off by the
        // end of input is then followed by 00, which the lookup flags.
        let mut padded = [0u8; BLOCK];
        padded[..len - pos].copy_from_slice(&bytes[pos..]);
        if scan.block(&lookup, padded.as_ptr()).any_bit_set() {
            return Some(pos);
        }
    } else if scan.maybe_incomplete && scan.previous_incomplete.any_bit_set() {
        // The input ends mid-character at a block boundary.
        return Some(len - BLOCK);
    }
    None
}

/// Whether the 64 bytes at `block` are all ASCII.
///
/// # Safety
/// 64 bytes readable at `block`; the backend available.
#[inline(always)]
unsafe fn is_ascii_block<V: Vector>(block: *const u8) -> bool {
    let mut all = V::splat(0);
    let mut i = 0;
    while i < BLOCK / V::BYTES {
        all = all.or(V::load_unaligned(block.add(i * V::BYTES)));
        i += 1;
    }
    !all.any_high_bit()
}

/// The state carried from block to block by [`first_bad_block`].
struct Scan<V> {
    /// The last vector of the previous block (zeros stand for any ASCII).
    previous: V,
    /// Nonzero where the previous block ends inside a character.
    previous_incomplete: V,
    /// Whether `previous_incomplete` may be nonzero (the last block was not skipped as
    /// ASCII).
    maybe_incomplete: bool,
}

impl<V: Vector> Scan<V> {
    #[inline(always)]
    unsafe fn new() -> Self {
        Scan {
            previous: V::splat(0),
            previous_incomplete: V::splat(0),
            maybe_incomplete: false,
        }
    }

    /// Runs the lookup on the 64 bytes at `block`; returns its error bits (nonzero if
    /// there is an error in them, or in a character cut by their start).
    ///
    /// # Safety
    /// 64 bytes readable at `block`; the backend available.
    #[inline(always)]
    unsafe fn block(&mut self, lookup: &Lookup<V>, block: *const u8) -> V {
        let mut error = V::splat(0);
        let mut i = 0;
        while i < BLOCK / V::BYTES {
            let input = V::load_unaligned(block.add(i * V::BYTES));
            error = error.or(lookup.check(input, self.previous));
            self.previous = input;
            i += 1;
        }
        self.previous_incomplete = incomplete_tail(self.previous);
        self.maybe_incomplete = true;
        error
    }
}

/// A 16-byte register for the UTF-32 conversion kernel. Implementations must be
/// `#[inline(always)]`.
pub trait Kernel16 {
    /// The 16-byte register type.
    type V: Copy;
    /// Loads 16 bytes from `ptr` (no alignment needed).
    unsafe fn load16(ptr: *const u8) -> Self::V;
    /// Bit `i` set iff byte `i` is 0x80 or above.
    unsafe fn high_bit_mask(v: Self::V) -> u32;
    /// Bit `i` set iff byte `i` is a tail (80..BF).
    unsafe fn tail_mask(v: Self::V) -> u32;
    /// Zero-extends the 16 bytes at `src` (all ASCII) to 16 `u32` stored at `dst`.
    unsafe fn widen16(src: *const u8, dst: *mut u32);
    /// Byte `i` of the result is `v[shuffle[i]]`, or 0 where `shuffle[i]` has its high
    /// bit set.
    unsafe fn shuffle(v: Self::V, shuffle: &[u8; 16]) -> Self::V;
    /// Assembles scalar values in each 32-bit lane holding the bytes of one character,
    /// last byte first, and stores the 4 lanes. `payload` is the step's mask of payload
    /// bits ([`tables::Step::payload`]); after masking, lane `b0 b1 b2 b3` is worth
    /// `b0 + 64 * b1 + 4096 * b2 + 262144 * b3` ([`assemble_lane`] is the scalar model).
    unsafe fn assemble_store(v: Self::V, payload: &[u8; 16], dst: *mut u32);
    /// Bit `i` set iff `low <= v[i] <= high` (unsigned; both at least 0x80).
    unsafe fn range_mask(v: Self::V, low: u8, high: u8) -> u32;
    /// Stores the 16 bytes `shuffle(v, shuffle) | fill` at `dst`.
    unsafe fn expand_store(v: Self::V, shuffle: &[u8; 16], fill: &[u8; 16], dst: *mut u8);
}

/// The arithmetic [`Kernel16::assemble_store`] performs per 32-bit lane. A lane holds
/// one character's bytes in reverse order (`b0` = last byte, zeros above the lead), and
/// `payload` the matching masks (see [`tables::Step::payload`]):
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

/// Input bytes validated and converted per step of [`decode_utf32`]: large enough to
/// amortise the validation call, small enough to stay in L1 between the two passes.
const DECODE_CHUNK: usize = 8 * 1024;

/// Appends the scalar values of `bytes` to `out`; on error, those of the well-formed
/// prefix, and returns the error (std's shape).
#[inline(always)]
pub unsafe fn decode_utf32<V: Vector, K: Kernel16>(
    bytes: &[u8],
    out: &mut Vec<u32>,
) -> Result<(), Utf8Error> {
    let len = bytes.len();
    let mut start = 0;
    while start < len {
        let mut end = (start + DECODE_CHUNK).min(len);
        if end < len {
            // Cut at a character boundary so that each chunk is validated on its own:
            // back over at most 3 tails. (If 4 tails precede `end`, the input is
            // ill-formed there and the next chunk's validation reports it.)
            let mut cut = end;
            while cut > end - 3 && dfa::is_continuation(bytes[cut]) {
                cut -= 1;
            }
            if !dfa::is_continuation(bytes[cut]) {
                end = cut;
            }
        }
        let chunk = &bytes[start..end];
        if first_bad_block::<V>(chunk).is_some() {
            // The scalar DFA decodes the well-formed prefix and locates the error;
            // `start` is a character boundary and everything before it is well-formed.
            return dfa::decode_utf32_from(bytes, start, out);
        }
        convert_valid::<K>(chunk, out);
        start = end;
    }
    Ok(())
}

/// One stream of conversion: input `pos..end`, output cursor `written`, and the output
/// index below which its stores must stay (`out_end`).
struct Lane {
    pos: usize,
    end: usize,
    written: usize,
    out_end: usize,
}

impl Lane {
    /// Whether [`convert_block`] may run: a whole block and the byte after it are inside
    /// the lane, and the block's stores (at most 64 scalars plus 16 lanes of slack) stay
    /// below `out_end`.
    #[inline(always)]
    fn can_convert_block(&self) -> bool {
        self.pos + BLOCK < self.end && self.written + BLOCK + 16 <= self.out_end
    }
}

/// Converts the characters that start in the next 49 bytes or so of `lane` (at least
/// one block's worth less 15 bytes) and advances it; `false` if the input is not
/// well-formed there (a mask no well-formed input gives), leaving the lane unchanged.
///
/// Four 16-byte loads give the block's high-bit and tail masks as `u64`, and the
/// character-end mask follows from the tail mask. Each step then reads its 12-bit end
/// mask with a shift, so the loop-carried dependency is only shift, table load, add.
///
/// # Safety
/// `lane.can_convert_block()`, `lane.end <= bytes.len()`, `dst` valid for writes of
/// `lane.out_end` scalars, and `lane.pos` a character boundary of well-formed input.
#[inline(always)]
unsafe fn convert_block<K: Kernel16>(bytes: &[u8], dst: *mut u32, lane: &mut Lane) -> bool {
    // SAFETY (all loads and stores below): `lane.pos + 64 < lane.end <= bytes.len()`;
    // loads start at most 48 bytes into the block and read 16; stores start at
    // `written <= lane.written + 64` and write at most 16 lanes, below `out_end`.
    let block = bytes.as_ptr().add(lane.pos);
    let out = dst.add(lane.written);
    let vectors = [
        K::load16(block),
        K::load16(block.add(16)),
        K::load16(block.add(32)),
        K::load16(block.add(48)),
    ];
    let mut high = 0u64;
    let mut tails = 0u64;
    for (i, &v) in vectors.iter().enumerate() {
        high |= (K::high_bit_mask(v) as u64) << (16 * i);
        tails |= (K::tail_mask(v) as u64) << (16 * i);
    }
    if high == 0 {
        for i in 0..4 {
            K::widen16(block.add(16 * i), out.add(16 * i));
        }
        lane.pos += BLOCK;
        lane.written += BLOCK;
        return true;
    }
    // Byte i ends a character iff byte i + 1 is not a tail.
    let next_is_tail = dfa::is_continuation(bytes[lane.pos + BLOCK]) as u64;
    let ends = !((tails >> 1) | (next_is_tail << 63));
    let mut offset = 0;
    let mut written = 0;
    while offset <= BLOCK - 16 {
        let ascii_run = (high >> offset).trailing_zeros().min(16) as usize;
        if ascii_run >= 4 {
            // Lanes past `ascii_run` are overwritten by the next steps.
            K::widen16(block.add(offset), out.add(written));
            offset += ascii_run;
            written += ascii_run;
            continue;
        }
        let mask = ((ends >> offset) & 0xFFF) as usize;
        let consumed = tables::STEP_CONSUMED[mask] as usize;
        if consumed == 0 {
            return false;
        }
        let entry = tables::STEP_INDEX[mask];
        let step = &tables::STEPS[tables::step_id(entry)];
        let v = K::load16(block.add(offset));
        K::assemble_store(
            K::shuffle(v, &step.shuffle),
            &step.payload,
            out.add(written),
        );
        offset += consumed;
        written += tables::step_chars(entry);
    }
    lane.pos += offset;
    lane.written += written;
    true
}

/// Converts well-formed `bytes` to scalar values appended to `out`.
///
/// The step loop of [`convert_block`] is latency-bound (each step's start depends on the
/// previous step's table load), so the input is split in two halves at a character
/// boundary, converted block by block in alternation: the two dependency chains are
/// independent and the CPU overlaps them. The second half's output starts after the
/// first half's, whose length is its number of non-tail bytes.
#[inline(always)]
unsafe fn convert_valid<K: Kernel16>(bytes: &[u8], out: &mut Vec<u32>) {
    let len = bytes.len();
    // At most one scalar per byte; stores stay below `base + len` (see `Lane`).
    out.reserve(len);
    let base = out.len();
    // SAFETY: `reserve(len)` above makes `base + len` elements of capacity.
    let dst = out.as_mut_ptr().add(base);
    // Two lanes only pay for text with non-ASCII characters; ASCII conversion is
    // store-bound, and counting the first half's characters would be a pass of its
    // own. The first 256 bytes decide.
    let sample = &bytes[..len.min(256)];
    let mut mid = if len >= 1024 && !sample.is_ascii() {
        len / 2
    } else {
        0
    };
    // Back to a character boundary (at most 3 tails in well-formed input).
    while mid > 0 && dfa::is_continuation(bytes[mid]) {
        mid -= 1;
    }
    let first_chars = count_chars::<K>(&bytes[..mid]);
    let mut first = Lane {
        pos: 0,
        end: mid,
        written: 0,
        out_end: first_chars,
    };
    let mut second = Lane {
        pos: mid,
        end: len,
        written: first_chars,
        out_end: len,
    };
    // SAFETY (all `convert_block` calls): each is guarded by `can_convert_block`; both
    // lanes start at character boundaries and end within `bytes`; `dst` has `len`
    // elements, and the first lane's stores stay below `first_chars`, where the second
    // lane's output starts.
    let mut first_open = true;
    let mut second_open = true;
    while first_open && second_open && first.can_convert_block() && second.can_convert_block() {
        first_open = convert_block::<K>(bytes, dst, &mut first);
        second_open = convert_block::<K>(bytes, dst, &mut second);
    }
    while second_open && second.can_convert_block() {
        second_open = convert_block::<K>(bytes, dst, &mut second);
    }
    // The rest of the first half, exactly into its slot.
    let mut written = first.written;
    let mut pos = first.pos;
    while pos < mid {
        let (scalar, len) = decode_valid_char(bytes, pos);
        // SAFETY: `written < first_chars <= len`: one slot per character of the half.
        *dst.add(written) = scalar;
        written += 1;
        pos += len;
    }
    debug_assert_eq!(written, first_chars);
    // SAFETY: the first `second.written` lanes are initialised: `first_chars` by the
    // first lane and the loop above, the rest by the second lane; all within capacity.
    out.set_len(base + second.written);
    // The last bytes of the second half, which start at a character boundary: the DFA
    // cannot fail on well-formed input.
    let tail = dfa::decode_utf32_from(bytes, second.pos, out);
    debug_assert!(tail.is_ok());
}

/// The scalar value and length of the well-formed character at `bytes[pos]`.
#[inline(always)]
fn decode_valid_char(bytes: &[u8], pos: usize) -> (u32, usize) {
    let lead = bytes[pos];
    let len = match lead {
        0x00..=0x7F => return (lead as u32, 1),
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    let mut scalar = (lead as u32) & (0x7F >> len);
    for &tail in &bytes[pos + 1..pos + len] {
        scalar = (scalar << 6) | (tail & 0x3F) as u32;
    }
    (scalar, len)
}

/// Number of characters in well-formed `bytes`: its non-tail bytes.
#[inline(always)]
unsafe fn count_chars<K: Kernel16>(bytes: &[u8]) -> usize {
    let mut tails = 0;
    let mut pos = 0;
    while pos + 16 <= bytes.len() {
        // SAFETY: `pos + 16 <= bytes.len()`.
        tails += K::tail_mask(K::load16(bytes.as_ptr().add(pos))).count_ones() as usize;
        pos += 16;
    }
    tails += bytes[pos..]
        .iter()
        .filter(|&&b| dfa::is_continuation(b))
        .count();
    bytes.len() - tails
}

/// Lossy decoding (the driver in `fast/lossy.rs`) with a backend's SIMD `validate` and
/// its instantiation of [`lossy_dense`].
///
/// Both are passed as `#[target_feature]` functions rather than inlined here: a closure
/// does not inherit its enclosing function's target features, and the generic code
/// inlined into one would be compiled for the baseline instruction set.
///
/// # Safety
/// Both functions must be a backend's, and the backend must be available.
#[inline(always)]
pub unsafe fn decode_lossy_using(
    bytes: &[u8],
    validate: unsafe fn(&[u8]) -> Result<(), Utf8Error>,
    dense: unsafe fn(&[u8], usize, &mut Vec<u8>) -> usize,
) -> Cow<'_, str> {
    // SAFETY: the backend is available (caller's contract); its `validate` agrees with
    // std (it only detects; the DFA locates) and `lossy_dense` meets the `dense`
    // contract (see there).
    lossy::decode_lossy(
        bytes,
        |bytes| validate(bytes),
        |bytes, pos, out| dense(bytes, pos, out),
    )
}

/// The unit at `bytes[pos]`, a unit boundary holding a lead followed by a tail: its
/// length and whether it is a well-formed character, without branches. The DFA runs
/// over the next 4 bytes; the unit ends at the first `ACCEPT` (a character) or before
/// the first `REJECT` (a maximal subpart).
#[inline(always)]
fn unit_after_lead(bytes: &[u8], pos: usize) -> (usize, bool) {
    let s1 = dfa::step(dfa::ACCEPT, bytes[pos]);
    let s2 = dfa::step(s1, bytes[pos + 1]);
    let s3 = dfa::step(s2, bytes[pos + 2]);
    let s4 = dfa::step(s3, bytes[pos + 3]);
    let in_progress = |state: dfa::State| {
        let state = state & 63;
        (state != dfa::ACCEPT) & (state != dfa::REJECT)
    };
    let open2 = in_progress(s2);
    let open3 = open2 & in_progress(s3);
    let end_state = if open3 {
        s4
    } else if open2 {
        s3
    } else {
        s2
    };
    let well_formed = end_state & 63 == dfa::ACCEPT;
    (
        1 + open2 as usize + open3 as usize + well_formed as usize,
        well_formed,
    )
}

/// Input bytes [`lossy_dense`] handles per capacity reservation.
const DENSE_WINDOW: usize = 256;

/// Bytes [`lossy_dense`] needs readable from its cursor: a 16-byte chunk, and 4 bytes
/// for a unit starting at its last byte.
const DENSE_READ: usize = 20;

/// Lossy decoding of `bytes[pos..]` (`pos` a unit boundary), 16 bytes at a time, until
/// `lossy::CLEAN_RUN_TO_LEAVE` clean bytes in a row or the end; returns the unit
/// boundary reached.
///
/// Each 16-byte chunk is split into four groups of 4 bytes, and runs up to its first
/// *complex* byte: an E0..F4 lead followed by a tail (a 3/4-byte character or a longer
/// maximal subpart), or a C2..DF lead at the chunk's end followed by a tail. Before it,
/// every unit is an ASCII byte (copied), a C2..DF lead with its tail (both copied), or
/// a single byte that is a maximal subpart on its own (one U+FFFD): a
/// stray tail, C0, C1, F5..FF, or a lead not followed by a tail. Each group is expanded
/// with one shuffle from a table indexed by its 4 "copy" bits (`tables::EXPAND_*`);
/// bytes from the complex one on are expanded as copies, and overwritten: the complex
/// unit is decoded by `unit_after_lead` and the next chunk starts after it. The only
/// data-dependent branch is whether a chunk has a complex byte.
#[inline(always)]
pub unsafe fn lossy_dense<K: Kernel16>(bytes: &[u8], mut pos: usize, out: &mut Vec<u8>) -> usize {
    let len = bytes.len();
    let src = bytes.as_ptr();
    let mut clean_run = 0;
    while pos + DENSE_READ <= len {
        let window_end = (pos + DENSE_WINDOW).min(len + 1 - DENSE_READ);
        // At most 3 output bytes per input byte; the four group stores of a chunk may
        // run up to 64 bytes past the output cursor.
        out.reserve(3 * (window_end - pos) + 64);
        let mut written = out.len();
        let dst = out.as_mut_ptr();
        while pos < window_end {
            // SAFETY: `pos + DENSE_READ <= len` (`window_end <= len + 1 - DENSE_READ`).
            let v = K::load16(src.add(pos));
            let ascii = !K::high_bit_mask(v) & 0xFFFF;
            let tails = K::tail_mask(v);
            let leads_2 = K::range_mask(v, 0xC2, 0xDF);
            let leads_3_4 = K::range_mask(v, 0xE0, 0xF4);
            let next_is_tail = dfa::is_continuation(bytes[pos + 16]) as u32;
            let followed_by_tail = (tails >> 1) | (next_is_tail << 15);
            let pairs_2 = leads_2 & followed_by_tail;
            // A pair across the chunk's end (bit 15) is complex: the next chunk must
            // start at a unit boundary. (Pairs across groups are fine: both bytes are
            // copies.)
            let complex = (leads_3_4 & followed_by_tail) | (pairs_2 & 0x8000);
            let copy = ascii | pairs_2 | (tails & (pairs_2 << 1));
            if complex == 0 {
                // The common case on random input: four simple groups.
                for group in 0..4 {
                    let pattern = ((copy >> (4 * group)) & 0xF) as usize;
                    // SAFETY: `written + 16 <= capacity` (see the reservation).
                    K::expand_store(
                        v,
                        &tables::EXPAND_SHUFFLE[group][pattern],
                        &tables::EXPAND_FILL[pattern],
                        dst.add(written),
                    );
                    written += tables::EXPAND_LEN[pattern] as usize;
                }
                clean_run = (clean_run + 16) * (copy == 0xFFFF) as usize;
                pos += 16;
                if clean_run >= lossy::CLEAN_RUN_TO_LEAVE {
                    break;
                }
                continue;
            }
            // Bytes before the first complex one; from it on, expand as copies (1 byte
            // each) and subtract them from the length.
            let cut = complex.trailing_zeros() as usize;
            let effective_copy = copy | ((0xFFFF_u32 << cut) & 0xFFFF);
            let mut group_out = written;
            for group in 0..4 {
                let pattern = ((effective_copy >> (4 * group)) & 0xF) as usize;
                // SAFETY: `group_out + 16 <= written + 64`, within the reservation.
                K::expand_store(
                    v,
                    &tables::EXPAND_SHUFFLE[group][pattern],
                    &tables::EXPAND_FILL[pattern],
                    dst.add(group_out),
                );
                group_out += tables::EXPAND_LEN[pattern] as usize;
            }
            let prefix_out = group_out - written - (16 - cut);
            let prefix_clean = effective_copy == 0xFFFF;
            // The complex unit.
            let (unit_len, unit_well_formed) = unit_after_lead(bytes, pos + cut);
            let unit_at = pos + cut;
            // SAFETY: `unit_at + 4 <= pos + DENSE_READ <= len`; the store is at most 4
            // bytes at `written + prefix_out <= written + 48`, within the reservation.
            let unit_bytes = (src.add(unit_at) as *const u32).read_unaligned();
            let unit_value = if unit_well_formed {
                unit_bytes
            } else {
                lossy::REPLACEMENT
            };
            (dst.add(written + prefix_out) as *mut u32).write_unaligned(unit_value);
            let unit_out = if unit_well_formed { unit_len } else { 3 };
            let read = cut + unit_len;
            written += prefix_out + unit_out;
            let clean = prefix_clean & unit_well_formed;
            clean_run = (clean_run + read) * clean as usize;
            pos += read;
            if clean_run >= lossy::CLEAN_RUN_TO_LEAVE {
                break;
            }
        }
        // SAFETY: bytes `..written` are initialised (the caller's, whole expanded units
        // and whole complex units; garbage past `written` is not included), and
        // `written <= capacity` (reserved above).
        out.set_len(written);
        if clean_run >= lossy::CLEAN_RUN_TO_LEAVE {
            return pos;
        }
    }
    // The last few bytes.
    lossy::dense_scalar(bytes, pos, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD detector must accept well-formed text outright (a false positive would
    /// still give the right answer, through the DFA, but slowly) and flag errors.
    fn check_detector(first_bad_block: unsafe fn(&[u8]) -> Option<usize>) {
        let text = "aé中😀 Ελληνικά 我能吞下玻璃 🦀\u{10FFFF}\u{FEFF}".repeat(40);
        for shift in 0..8 {
            let shifted = format!("{}{text}", "x".repeat(shift));
            // SAFETY: callers only pass the detector of an available backend.
            assert_eq!(unsafe { first_bad_block(shifted.as_bytes()) }, None);
        }
        for at in [0, 15, 16, 31, 32, 63, 64, 100, 1000] {
            let mut bytes = text.as_bytes().to_vec();
            bytes.insert(at, 0xFF);
            // SAFETY: as above.
            let block = unsafe { first_bad_block(&bytes) }.expect("error detected");
            // The DFA restarts at or before the error (an error in the last bytes before
            // a block may be detected in that block), and not too far before it.
            let restart = dfa::boundary_before(&bytes, block);
            assert!(restart <= at && at < block + 2 * BLOCK, "{at}: {block}");
        }
        let cut = "ab中".as_bytes();
        // SAFETY: as above.
        assert_eq!(unsafe { first_bad_block(&cut[..cut.len() - 1]) }, Some(0));
    }

    #[test]
    fn detectors_have_no_false_positives_or_negatives() {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{__m128i, __m256i, __m512i};
            if sse42::is_available() {
                check_detector(first_bad_block::<__m128i>);
            }
            if avx2::is_available() {
                check_detector(first_bad_block::<__m256i>);
            }
            if avx512::is_available() {
                check_detector(first_bad_block::<__m512i>);
            }
        }
        #[cfg(target_arch = "aarch64")]
        if neon::is_available() {
            check_detector(first_bad_block::<core::arch::aarch64::uint8x16_t>);
        }
    }

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
}
