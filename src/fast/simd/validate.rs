//! SIMD validation: the lookup algorithm of Keiser & Lemire, "Validating UTF-8 In Less
//! Than One Instruction Per Byte" (Software: Practice and Experience 51(5), 2021), over
//! [`Vector`], with an ASCII fast path per 64-byte block.
//!
//! It only *detects*: when a block is flagged, the exact error offset and maximal
//! subpart come from the scalar DFA ([`crate::fast::dfa`]), restarted at the last
//! character boundary before that block. So a SIMD backend can never report a different
//! error than the DFA, only find it faster. The three nibble tables ([`PREV1_HIGH`],
//! [`PREV1_LOW`], [`BYTE_HIGH`]) are public so that they can be checked against the
//! grammar by other code.

use super::vector::{assert_vector_width, Vector};
use crate::fast::dfa;
use crate::fast::Utf8Error;

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
pub(crate) struct Lookup<V> {
    prev1_high: V,
    prev1_low: V,
    byte_high: V,
    low_nibble_mask: V,
    third_byte_threshold: V,
    fourth_byte_threshold: V,
    high_bit: V,
}

impl<V: Vector> Lookup<V> {
    /// Broadcasts the tables.
    ///
    /// # Safety
    /// `V`'s instruction set must be available.
    #[inline(always)]
    pub(crate) unsafe fn new() -> Self {
        unsafe {
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
    }

    /// Error bits for `input` preceded by `previous` (zero where well-formed).
    ///
    /// # Safety
    /// `V`'s instruction set must be available.
    #[inline(always)]
    pub(crate) unsafe fn check(&self, input: V, previous: V) -> V {
        // SAFETY: the caller's contract is this function's.
        unsafe {
            self.check_shifted(
                input,
                input.prev1(previous),
                input.prev2(previous),
                input.prev3(previous),
            )
        }
    }

    /// [`Lookup::check`] given `prev1`, `prev2` and `prev3`: for each byte of `input`,
    /// the byte 1, 2 and 3 before it.
    ///
    /// # Safety
    /// `V`'s instruction set must be available.
    #[inline(always)]
    pub(crate) unsafe fn check_shifted(&self, input: V, prev1: V, prev2: V, prev3: V) -> V {
        unsafe {
            let special_cases = prev1
                .high_nibbles()
                .lookup16(self.prev1_high)
                .and(prev1.and(self.low_nibble_mask).lookup16(self.prev1_low))
                .and(input.high_nibbles().lookup16(self.byte_high));
            let must_be_tail = prev2
                .saturating_sub(self.third_byte_threshold)
                .or(prev3.saturating_sub(self.fourth_byte_threshold))
                .and(self.high_bit);
            // A tail after a tail (TWO_TAILS) is right exactly where a tail must be.
            must_be_tail.xor(special_cases)
        }
    }
}

/// `last` ends in the middle of a character: nonzero if one of its last three bytes is
/// a lead needing more bytes than remain in the register.
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
pub(crate) unsafe fn incomplete_tail<V: Vector>(last: V) -> V {
    // SAFETY: the caller meets this function's `# Safety` contract; the
    // bounds of each pointer operation are justified where it occurs.
    unsafe {
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
}

/// Bytes per block of the validation loop.
pub(crate) const BLOCK: usize = 64;

/// Validates `bytes`: SIMD detection, DFA location of the first error.
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
pub unsafe fn validate<V: Vector>(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the caller meets this function's `# Safety` contract; the
    // bounds of each pointer operation are justified where it occurs.
    unsafe {
        assert_vector_width::<V>();
        match first_bad_block::<V>(bytes) {
            None => Ok(()),
            Some(block_start) => locate_error::<V>(bytes, block_start),
        }
    }
}

/// The first error of `bytes`, given a `block_start` that [`first_bad_block`] returned
/// for a prefix of `bytes` cut at a character boundary (or for all of it): the DFA
/// restarts a few bytes before the first flagged byte, so that locating the error costs
/// a few bytes of scalar work, not a block's. `Ok` only if `bytes` is well-formed from
/// there on.
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
pub(crate) unsafe fn locate_error<V: Vector>(
    bytes: &[u8],
    block_start: usize,
) -> Result<(), Utf8Error> {
    // No whole vector from `block_start` (a short input): nothing for
    // `first_flagged_byte` to look at.
    let flagged = if bytes.len() - block_start >= V::BYTES {
        // SAFETY: `V`'s instruction set is available (caller's contract).
        unsafe { first_flagged_byte::<V>(bytes, block_start) }
    } else {
        None
    };
    let restart = flagged
        .map(|flagged| dfa::boundary_before(bytes, flagged.saturating_sub(3)))
        .unwrap_or_else(|| dfa::boundary_before(bytes, block_start));
    dfa::validate_from(bytes, restart)
}

/// The first byte the lookup flags in the (up to) two blocks from `block_start`, which
/// [`first_bad_block`] returned; `None` if no whole vector there is flagged (for
/// example an input that ends inside a character).
///
/// Every error is flagged at most 3 bytes after the start of the character it is in
/// (a tail where none may be, at the tail; a missing tail, at the byte in its place;
/// an overlong, surrogate or too-large sequence, at its second byte). So when no byte
/// before `flagged` is flagged, every character starting before `flagged - 3` is
/// well-formed, and the DFA can restart at the character boundary at or before that
/// position (`dfa::boundary_before(flagged - 3)`) instead of the block's start: a
/// few bytes of scalar work per error instead of up to 128, which is what makes lossy
/// decoding of text with sparse errors fast.
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
unsafe fn first_flagged_byte<V: Vector>(bytes: &[u8], block_start: usize) -> Option<usize> {
    // SAFETY: loads stay within `bytes` (checked before each) or `before`, the store
    // within `flags`; `V::BYTES <= 64`.
    unsafe {
        let lookup = Lookup::<V>::new();
        // The vector before `block_start`, zeros (ASCII) before the start of input.
        let mut before = [0u8; 64];
        let take = block_start.min(V::BYTES);
        before[V::BYTES - take..V::BYTES].copy_from_slice(&bytes[block_start - take..block_start]);
        let mut previous = V::load_unaligned(before.as_ptr());
        let end = (block_start + 2 * BLOCK).min(bytes.len());
        let mut pos = block_start;
        while pos + V::BYTES <= end {
            let input = V::load_unaligned(bytes.as_ptr().add(pos));
            let error = lookup.check(input, previous);
            if error.any_bit_set() {
                let mut flags = [0u8; 64];
                error.store_unaligned(flags.as_mut_ptr());
                let first = flags[..V::BYTES].iter().position(|&flag| flag != 0)?;
                return Some(pos + first);
            }
            previous = input;
            pos += V::BYTES;
        }
        None
    }
}

/// `None` if `bytes` is well-formed; else the offset of a 64-byte block such that the
/// first error is at or after `dfa::boundary_before(bytes, block)`: the first block in
/// which the lookup algorithm sees an error (which may lie in a character starting up to
/// 3 bytes before it), or the block before it (non-ASCII blocks are checked in pairs).
///
/// # Safety
/// `V`'s instruction set must be available.
#[inline(always)]
pub(crate) unsafe fn first_bad_block<V: Vector>(bytes: &[u8]) -> Option<usize> {
    // SAFETY: the caller meets this function's `# Safety` contract; the
    // bounds of each pointer operation are justified where it occurs.
    unsafe {
        assert_vector_width::<V>();
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
            // With 64-byte vectors, one vector test for the two reasons to run the lookup
            // on this block: it is not ASCII, or the previous block ends inside a
            // character (then the lookup flags the ASCII byte where a tail was needed).
            // With a test of its own for the second (in the ASCII path, below, or as
            // `||` or `|` on two bools), the compiler branched on `previous_incomplete`
            // before the ASCII test in every block; on text of 2- to 4-byte characters
            // whether a block ends inside one is a coin toss, which the branch predictor
            // learns only on a short input validated over and over. Measured on an
            // Intel Xeon: on 1 MiB inputs 0.70-0.80x of the speed at 64 KiB, level
            // after the change. The narrower vectors keep the test in the ASCII path:
            // the single test measured 1-3% slower there with 32-byte vectors.
            let check = if V::BYTES == BLOCK {
                needs_lookup::<V>(block, scan.previous_incomplete)
            } else {
                !is_ascii_block::<V>(block)
            };
            if check {
                // A block to check, and the next one too if there is one, before testing
                // for errors: the test and its branch cost a fair part of the lookup.
                // With 3 bytes of input before the block, the bytes before each byte
                // are read from memory where that pays (see `Scan::block_after_input`).
                let mut error = if pos >= 3 {
                    scan.block_after_input(&lookup, block)
                } else {
                    scan.block(&lookup, block)
                };
                let mut blocks = 1;
                if pos + 2 * BLOCK <= len {
                    error = error.or(scan.block_after_input(&lookup, block.add(BLOCK)));
                    blocks = 2;
                }
                if error.any_bit_set() {
                    return Some(pos);
                }
                pos += blocks * BLOCK;
                continue;
            }
            if V::BYTES < BLOCK && scan.maybe_incomplete && scan.previous_incomplete.any_bit_set() {
                // ASCII after a character cut by the previous block's end.
                return Some(pos);
            }
            // ASCII after a complete character: skip, four blocks at a time (one test
            // and one branch for 256 bytes: on ASCII the test, not the loads, bounds
            // the loop), then two.
            scan.maybe_incomplete = false;
            if V::BYTES == BLOCK {
                // What `needs_lookup` tests: zeros once a block was skipped as ASCII.
                scan.previous_incomplete = V::splat(0);
            }
            scan.previous = V::splat(0);
            pos += BLOCK;
            while pos + 4 * BLOCK <= len && is_ascii_blocks::<V, 4>(bytes.as_ptr().add(pos)) {
                pos += 4 * BLOCK;
            }
            while pos + 2 * BLOCK <= len && is_ascii_blocks::<V, 2>(bytes.as_ptr().add(pos)) {
                pos += 2 * BLOCK;
            }
        }
        the_last_block(&lookup, &mut scan, bytes, pos)
    }
}

/// The end of [`first_bad_block`]'s scan: the last partial block from `pos`, or a
/// character the last whole block cut off.
///
/// # Safety
/// `pos <= bytes.len()`, every block before `pos` scanned by `scan`; the backend
/// available.
#[inline(always)]
unsafe fn the_last_block<V: Vector>(
    lookup: &Lookup<V>,
    scan: &mut Scan<V>,
    bytes: &[u8],
    pos: usize,
) -> Option<usize> {
    let len = bytes.len();
    // SAFETY: the caller meets this function's `# Safety` contract; the bounds of each
    // pointer operation are justified where it occurs.
    unsafe {
        if pos < len {
            // The last partial block, padded with zeros (ASCII): a character cut off by the
            // end of input is then followed by 00, which the lookup flags. When the bytes
            // fit in the first vector, that vector from `load_prefix` (SAFETY: `len - pos`
            // bytes are readable at `pos`) and zeros; else a zeroed copy.
            let tail = len - pos;
            let first = if tail <= V::BYTES {
                V::load_prefix(bytes.as_ptr().add(pos), tail)
            } else {
                None
            };
            let error = match first {
                Some(first) => scan.leading_vector_block(lookup, first),
                None => {
                    let mut padded = [0u8; BLOCK];
                    padded[..len - pos].copy_from_slice(&bytes[pos..]);
                    scan.block(lookup, padded.as_ptr())
                }
            };
            if error.any_bit_set() {
                return Some(pos);
            }
        } else if scan.maybe_incomplete && scan.previous_incomplete.any_bit_set() {
            // The input ends mid-character at a block boundary.
            return Some(len - BLOCK);
        }
        None
    }
}

/// Whether the 64 bytes at `block` are all ASCII.
///
/// # Safety
/// 64 bytes readable at `block`; the backend available.
#[inline(always)]
unsafe fn is_ascii_block<V: Vector>(block: *const u8) -> bool {
    // SAFETY: the caller's contract is this function's.
    unsafe { is_ascii_blocks::<V, 1>(block) }
}

/// Whether the 64 bytes at `block` are not all ASCII or `previous_incomplete` is
/// nonzero: one vector test, so no branch on `previous_incomplete` alone.
///
/// # Safety
/// 64 bytes readable at `block`; the backend available.
#[inline(always)]
unsafe fn needs_lookup<V: Vector>(block: *const u8, previous_incomplete: V) -> bool {
    // SAFETY: every load is of `V::BYTES` bytes inside the 64 bytes the caller
    // guarantees readable.
    unsafe {
        let mut all = V::splat(0);
        let mut i = 0;
        while i < BLOCK / V::BYTES {
            all = all.or(V::load_unaligned(block.add(i * V::BYTES)));
            i += 1;
        }
        all.and(V::splat(0x80))
            .or(previous_incomplete)
            .any_bit_set()
    }
}

/// Whether the `BLOCKS * 64` bytes at `block` are all ASCII: their OR, tested once.
///
/// # Safety
/// `BLOCKS * 64` bytes readable at `block`; the backend available.
#[inline(always)]
unsafe fn is_ascii_blocks<V: Vector, const BLOCKS: usize>(block: *const u8) -> bool {
    // SAFETY: every load is of `V::BYTES` bytes inside the `BLOCKS * BLOCK` bytes the
    // caller guarantees readable.
    unsafe {
        let mut all = V::splat(0);
        let mut i = 0;
        while i < BLOCKS * BLOCK / V::BYTES {
            all = all.or(V::load_unaligned(block.add(i * V::BYTES)));
            i += 1;
        }
        !all.any_high_bit()
    }
}

/// The state carried from block to block by [`first_bad_block`].
struct Scan<V> {
    /// The last vector of the previous block (zeros stand for any ASCII).
    previous: V,
    /// Nonzero where the previous block ends inside a character (with 64-byte
    /// vectors, zeros after a block skipped as ASCII).
    previous_incomplete: V,
    /// Whether `previous_incomplete` may be nonzero (the last block was not skipped as
    /// ASCII).
    maybe_incomplete: bool,
}

impl<V: Vector> Scan<V> {
    /// The state before the first block.
    ///
    /// # Safety
    /// `V`'s instruction set must be available.
    #[inline(always)]
    unsafe fn new() -> Self {
        unsafe {
            Scan {
                previous: V::splat(0),
                previous_incomplete: V::splat(0),
                maybe_incomplete: false,
            }
        }
    }

    /// Runs the lookup on the 64 bytes at `block`; returns its error bits (nonzero if
    /// there is an error in them, or in a character cut by their start).
    ///
    /// # Safety
    /// 64 bytes readable at `block`; the backend available.
    #[inline(always)]
    unsafe fn block(&mut self, lookup: &Lookup<V>, block: *const u8) -> V {
        unsafe {
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

    /// [`Scan::block_in_place`] where the vector is narrower than a block, else
    /// [`Scan::block`]. With 64-byte vectors the blocks of a long input are aligned to
    /// 64 bytes, so each of the loads at offsets -1, -2 and -3 would straddle two cache
    /// lines; measured on an Intel Xeon, those split loads cost more than the shifts
    /// they replace.
    ///
    /// # Safety
    /// As for [`Scan::block_in_place`].
    #[inline(always)]
    unsafe fn block_after_input(&mut self, lookup: &Lookup<V>, block: *const u8) -> V {
        // SAFETY: the caller meets `block_in_place`'s contract, which covers `block`'s.
        unsafe {
            if V::BYTES < BLOCK {
                self.block_in_place(lookup, block)
            } else {
                self.block(lookup, block)
            }
        }
    }

    /// [`Scan::block`] for a block with 3 readable bytes before it, which are the bytes
    /// before it in the input: the vectors of the bytes 1, 2 and 3 before each byte
    /// are loaded from memory at offsets -1, -2 and -3 instead of shifted in from the
    /// previous vector. Those shifts (a lane shift and three byte shifts per vector
    /// on AVX-512) take the shuffle ports, which bound the lookup; loads do not.
    ///
    /// # Safety
    /// The 67 bytes from `block - 3` readable, the 3 before `block` the input's bytes
    /// before it; the backend available.
    #[inline(always)]
    unsafe fn block_in_place(&mut self, lookup: &Lookup<V>, block: *const u8) -> V {
        // SAFETY: every load reads `V::BYTES` bytes from `block - 3` on, up to
        // `block + BLOCK` (caller's contract).
        unsafe {
            let mut error = V::splat(0);
            let mut i = 0;
            while i < BLOCK / V::BYTES {
                let at = block.add(i * V::BYTES);
                let input = V::load_unaligned(at);
                error = error.or(lookup.check_shifted(
                    input,
                    V::load_unaligned(at.sub(1)),
                    V::load_unaligned(at.sub(2)),
                    V::load_unaligned(at.sub(3)),
                ));
                self.previous = input;
                i += 1;
            }
            self.previous_incomplete = incomplete_tail(self.previous);
            self.maybe_incomplete = true;
            error
        }
    }

    /// [`Scan::block`] for a block that is `first` followed by zeros.
    ///
    /// # Safety
    /// The backend available.
    #[inline(always)]
    unsafe fn leading_vector_block(&mut self, lookup: &Lookup<V>, first: V) -> V {
        // SAFETY: the backend is available (this function's contract); no memory access.
        unsafe {
            let mut error = lookup.check(first, self.previous);
            self.previous = first;
            let mut i = 1;
            while i < BLOCK / V::BYTES {
                let zeros = V::splat(0);
                error = error.or(lookup.check(zeros, self.previous));
                self.previous = zeros;
                i += 1;
            }
            self.previous_incomplete = incomplete_tail(self.previous);
            self.maybe_incomplete = true;
            error
        }
    }
}

#[cfg(test)]
mod tests;
