//! UTF-16 and UTF-32 to UTF-8, over [`EncodeKernel`] (eight 16-bit lanes) and
//! [`Vector`] (the backend's widest register, for runs of ASCII).
//!
//! The input is taken 64 elements at a time while they are all ASCII (one wide test,
//! then narrowing), else 8 at a time: the octets of each lane are computed with shifts,
//! masks and selects (RFC 3629 §3's bit distribution, see [`super::encode_kernel`]),
//! and packed by a shuffle picked from the lanes' lengths: eight lanes of one or two
//! octets at once, or four and four lanes of up to three. Eight elements with a
//! surrogate, or (UTF-32) a value above U+FFFF, go through the scalar encoder of
//! `crate::fast::encode`, which pairs surrogates (Unicode §3.9 D91) and decides every
//! error; the vector code never does.

use super::encode_kernel::{EncodeKernel, THREE_BYTE, TWO_BYTE};
use super::vector::{assert_vector_width, Vector};
use crate::fast::encode::{utf16_run, utf32_run, Output};
use crate::reference::encode::EncodeError;

/// Elements per step of the ASCII loop.
const ASCII_BLOCK: usize = 64;

/// Elements per step of the kernel.
const LANES: usize = 8;

/// `0xFF80` in every 16-bit lane, little-endian: the bits a code unit below 0x80 lacks.
const NOT_ASCII_16: [u8; 16] = [
    0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF,
];

/// `0xFFFFFF80` in every 32-bit lane, little-endian.
const NOT_ASCII_32: [u8; 16] = [
    0x80, 0xFF, 0xFF, 0xFF, 0x80, 0xFF, 0xFF, 0xFF, 0x80, 0xFF, 0xFF, 0xFF, 0x80, 0xFF, 0xFF, 0xFF,
];

/// Whether the `ASCII_BLOCK * size` bytes at `src` hold only elements below 0x80
/// (`not_ascii`: the bits such an element lacks, in every lane).
///
/// # Safety
/// `V` available; `src` valid for reads of `bytes` bytes, a multiple of 64.
#[inline(always)]
unsafe fn all_ascii<V: Vector>(src: *const u8, bytes: usize, not_ascii: &[u8; 16]) -> bool {
    // SAFETY: the loads stay inside the `bytes` bytes at `src` (caller's contract).
    unsafe {
        let mut any = V::load_unaligned(src);
        let mut offset = V::BYTES;
        while offset < bytes {
            any = any.or(V::load_unaligned(src.add(offset)));
            offset += V::BYTES;
        }
        !any.and(V::repeat16(not_ascii)).any_bit_set()
    }
}

/// Encodes eight BMP code points (code units other than surrogates) at `dst`, and
/// returns how many bytes they take; `None` (nothing meaningful written) if a lane is a
/// surrogate. Writes up to 28 bytes, of which at most 24 are output.
///
/// # Safety
/// `K` available; `dst` valid for writes of 28 bytes.
#[inline(always)]
unsafe fn encode8<K: EncodeKernel>(v: K::V, dst: *mut u8) -> Option<usize> {
    // SAFETY: stores at `dst` and `dst + len0 <= dst + 12` of 16 bytes each, or of 8 or 16
    // bytes at `dst`: at most 28 bytes (caller's contract).
    unsafe {
        let ascii = K::below(v, 0x80);
        let not_ascii = !K::bits(ascii) & 0xFF;
        if not_ascii == 0 {
            K::narrow_store(v, dst);
            return Some(LANES);
        }
        // `10xxxxxx` with the low six bits: the last octet of every multi-octet form.
        let last = K::or(K::and(v, K::splat(0x3F)), K::splat(0x80));
        // `110yyyyy`: the first of two octets.
        let lead2 = K::or(K::shr::<6>(v), K::splat(0xC0));
        let two = K::below(v, 0x800);
        let three = !K::bits(two) & 0xFF;
        if three == 0 {
            let first = K::select(ascii, v, lead2);
            let pack = &TWO_BYTE[not_ascii as usize];
            K::shuffle_store(K::or(first, K::shl::<8>(last)), &pack.shuffle, dst);
            return Some(usize::from(pack.len));
        }
        // Surrogates, D800..DFFF: 11011xxx xxxxxxxx.
        let surrogate = K::equal(K::and(v, K::splat(0xF800)), K::splat(0xD800));
        if K::bits(surrogate) != 0 {
            return None;
        }
        // `1110zzzz`, then `10yyyyyy`.
        let lead3 = K::or(K::shr::<12>(v), K::splat(0xE0));
        let middle3 = K::or(K::and(K::shr::<6>(v), K::splat(0x3F)), K::splat(0x80));
        let first = K::select(ascii, v, K::select(two, lead2, lead3));
        let second = K::select(two, last, middle3);
        let (low, high) = K::interleave(K::or(first, K::shl::<8>(second)), last);
        let pack_low = &THREE_BYTE[((not_ascii & 0xF) | (three & 0xF) << 4) as usize];
        let pack_high = &THREE_BYTE[((not_ascii >> 4) | (three >> 4) << 4) as usize];
        K::shuffle_store(low, &pack_low.shuffle, dst);
        let len_low = usize::from(pack_low.len);
        K::shuffle_store(high, &pack_high.shuffle, dst.add(len_low));
        Some(len_low + usize::from(pack_high.len))
    }
}

/// Appends the UTF-8 encoding of `units` to `out`. Strict (`LOSSY == false`): stops at
/// the first unpaired surrogate, with the bytes of the units before it appended, and
/// returns its error. Lossy: one U+FFFD per unpaired surrogate, never an error.
///
/// # Safety
/// The instruction sets of `V` and `K` must be available.
#[inline(always)]
pub unsafe fn encode_utf16<V: Vector, K: EncodeKernel, const LOSSY: bool>(
    units: &[u16],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    assert_vector_width::<V>();
    let len = units.len();
    // Three octets per unit at most (a pair's four for its two units, U+FFFD's three for
    // a lone one).
    let mut output = Output::new(out, len, 3);
    let src = units.as_ptr();
    let mut pos = 0;
    // SAFETY: loads read elements `pos..pos + 64` or `pos..pos + 8`, inside `units`;
    // `output` has room for 3 bytes per unit not yet read, plus its slack, which bounds
    // every store (`Output::new`).
    let result = unsafe {
        loop {
            while pos + ASCII_BLOCK <= len
                && all_ascii::<V>(src.add(pos).cast(), 2 * ASCII_BLOCK, &NOT_ASCII_16)
            {
                for i in (0..ASCII_BLOCK).step_by(16) {
                    K::narrow16_store(src.add(pos + i), output.cursor().add(i));
                }
                output.advance(ASCII_BLOCK);
                pos += ASCII_BLOCK;
            }
            if pos + LANES > len {
                break utf16_run::<LOSSY>(units, &mut pos, len, &mut output);
            }
            // One ASCII block's worth of kernel steps before looking for ASCII again.
            let stop = (pos + ASCII_BLOCK).min(len);
            while pos + LANES <= stop {
                match encode8::<K>(K::load8(src.add(pos)), output.cursor()) {
                    Some(written) => {
                        output.advance(written);
                        pos += LANES;
                    }
                    None => {
                        // A pair may end past `pos + 8`: the run takes its low unit too.
                        let end = pos + LANES;
                        if let Err(error) = utf16_run::<LOSSY>(units, &mut pos, end, &mut output) {
                            return output.finish_err(error);
                        }
                    }
                }
            }
        }
    };
    output.finish(result)
}

/// Appends the UTF-8 encoding of `points` to `out`; stops at the first value that is
/// a surrogate or above U+10FFFF, with the bytes of the values before it appended, and
/// returns its error.
///
/// # Safety
/// The instruction sets of `V` and `K` must be available.
#[inline(always)]
pub unsafe fn encode_utf32<V: Vector, K: EncodeKernel>(
    points: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    assert_vector_width::<V>();
    let len = points.len();
    let mut output = Output::new(out, len, 4);
    let src = points.as_ptr();
    let mut pos = 0;
    // SAFETY: as in `encode_utf16`, with 4 bytes of room per value not yet read.
    let result = unsafe {
        loop {
            while pos + ASCII_BLOCK <= len
                && all_ascii::<V>(src.add(pos).cast(), 4 * ASCII_BLOCK, &NOT_ASCII_32)
            {
                for i in (0..ASCII_BLOCK).step_by(16) {
                    K::narrow16_store_u32(src.add(pos + i), output.cursor().add(i));
                }
                output.advance(ASCII_BLOCK);
                pos += ASCII_BLOCK;
            }
            if pos + LANES > len {
                break utf32_run(points, &mut pos, len, &mut output);
            }
            let stop = (pos + ASCII_BLOCK).min(len);
            while pos + LANES <= stop {
                let encoded = match K::load8_narrow(src.add(pos)) {
                    Some(v) => encode8::<K>(v, output.cursor()),
                    None => None,
                };
                match encoded {
                    Some(written) => {
                        output.advance(written);
                        pos += LANES;
                    }
                    None => {
                        let end = pos + LANES;
                        if let Err(error) = utf32_run(points, &mut pos, end, &mut output) {
                            return output.finish_err(error);
                        }
                    }
                }
            }
        }
    };
    output.finish(result)
}
