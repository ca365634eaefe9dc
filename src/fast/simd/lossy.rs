//! The SIMD parts of lossy decoding: [`decode_lossy_using`] and
//! [`decode_lossy_into_using`] run a backend's validation and its fused block loop
//! (`lossy_run`), and [`lossy_dense`] is the dense-error loop over [`Kernel16`] that the
//! block loop hands over to where errors come close together.

use std::borrow::Cow;

use super::lossy_run::HEADROOM;
use super::vector::Kernel16;
use crate::fast::lossy;
use crate::fast::{dfa, Utf8Error};

/// Lossy decoding with a backend's SIMD `validate` and its instantiation of
/// `lossy_run` (the fused block loop): well-formed input is borrowed after one
/// validation pass; otherwise the output is allocated once, for the worst case, the
/// well-formed prefix copied, and the rest decoded by `run`.
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
    run: unsafe fn(&[u8], usize, &mut Vec<u8>),
) -> Cow<'_, str> {
    // SAFETY: the backend is available (caller's contract); its `validate` agrees with
    // std (it only detects; the DFA locates), and its `run` appends only well-formed
    // UTF-8 (U+FFFD and copies of what the lookup and the DFA accept).
    unsafe {
        match validate(bytes) {
            Ok(()) => Cow::Borrowed(std::str::from_utf8_unchecked(bytes)),
            Err(first_error) => {
                let valid = first_error.valid_up_to();
                // Room for the worst case, so that `run` never reallocates.
                let bound = lossy::output_bound(valid, bytes.len()).saturating_add(HEADROOM);
                let mut out = Vec::with_capacity(bound);
                out.extend_from_slice(&bytes[..valid]);
                run(bytes, valid, &mut out);
                debug_assert!(
                    std::str::from_utf8(&out).is_ok(),
                    "lossy output is not UTF-8"
                );
                Cow::Owned(String::from_utf8_unchecked(out))
            }
        }
    }
}

/// Lossy decoding appended to `out` (see `crate::fast::decode_lossy_into`): one pass of
/// the backend's `run` over all of `bytes`, validating and copying at once; no
/// allocation when `out` has room for the input (a buffer reused from call to call)
/// and the errors fit in the headroom.
///
/// # Safety
/// As for [`decode_lossy_using`].
#[inline(always)]
pub unsafe fn decode_lossy_into_using(
    bytes: &[u8],
    out: &mut String,
    run: unsafe fn(&[u8], usize, &mut Vec<u8>),
) {
    // SAFETY: `run` appends only well-formed UTF-8 (see `decode_lossy_using`), so `out`
    // stays a `String`'s valid contents; the backend is available (caller's contract).
    unsafe {
        let vec = out.as_mut_vec();
        let start = vec.len();
        vec.reserve(bytes.len().saturating_add(HEADROOM));
        run(bytes, 0, vec);
        debug_assert!(
            std::str::from_utf8(&vec[start..]).is_ok(),
            "lossy output is not UTF-8"
        );
    }
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

/// The 2-byte maximal subparts the chunk `v` starts, as bits at their leads: a lead
/// E1..EC, EE, EF or F1..F3 (Table 3-7: every tail 80..BF is a valid second byte after
/// it) followed by a tail and then by a byte that is not a tail (`next` is the byte
/// after the chunk). Such a lead and its tail are one maximal subpart, one U+FFFD. The
/// leads E0, ED, F0 and F4, whose second byte's range is narrower, stay complex, as
/// does a lead at bit 15 (its tail is in the next chunk).
///
/// # Safety
/// `K`'s instruction set must be available.
#[inline(always)]
unsafe fn short_subparts<K: Kernel16>(
    v: K::V,
    leads_3_4: u32,
    tails: u32,
    followed_by_tail: u32,
    next: u8,
) -> u32 {
    // SAFETY: the instruction set is available (the caller's contract).
    let leads = unsafe { K::open_leads(v, leads_3_4) };
    let followed_by_two_tails = (tails >> 2) | ((dfa::is_continuation(next) as u32) << 14);
    leads & followed_by_tail & !followed_by_two_tails & 0x7FFF
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
/// Each 16-byte chunk runs up to its first *complex* byte: an E0..F4 lead followed by a tail (a 3/4-byte character or a longer
/// maximal subpart), or a C2..DF lead at the chunk's end followed by a tail. Before it,
/// every unit is an ASCII byte (copied), a C2..DF lead with its tail (both copied), or
/// a single byte that is a maximal subpart on its own (one U+FFFD): a
/// stray tail, C0, C1, F5..FF, or a lead not followed by a tail. With a kernel that
/// drops bytes in its expansion ([`Kernel16::EXPANDS_DROPS`]), a lead whose every tail
/// is a valid second byte, followed by one tail only, is simple too (a 2-byte maximal
/// subpart, see `short_subparts`): on random bytes that takes the chunks with a complex
/// byte from about 31% to about 16%. The chunk is expanded
/// by [`Kernel16::expand16`] from its "copy" bits (four groups of 4 bytes, each one
/// shuffle from a table, by default; one `vpcompressb` with AVX-512 VBMI2); bytes from
/// the complex one on are expanded as copies, and overwritten: the complex
/// unit is decoded by `unit_after_lead` and the next chunk starts after it. The only
/// data-dependent branch is whether a chunk has a complex byte.
///
/// # Safety
/// `K`'s instruction set must be available; `pos` a unit boundary of `bytes`.
#[inline(always)]
pub unsafe fn lossy_dense<K: Kernel16>(bytes: &[u8], mut pos: usize, out: &mut Vec<u8>) -> usize {
    // SAFETY: the caller meets this function's `# Safety` contract; the
    // bounds of each pointer operation are justified where it occurs.
    unsafe {
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
                let subparts_2 = if K::EXPANDS_DROPS {
                    short_subparts::<K>(v, leads_3_4, tails, followed_by_tail, bytes[pos + 16])
                } else {
                    0
                };
                // A pair across the chunk's end (bit 15) is complex: the next chunk must
                // start at a unit boundary. (Pairs across groups are fine: both bytes are
                // copies.)
                let complex_or_subpart = (leads_3_4 & followed_by_tail) | (pairs_2 & 0x8000);
                let complex = complex_or_subpart & !subparts_2;
                let copy = ascii | pairs_2 | (tails & (pairs_2 << 1));
                // A 2-byte subpart's lead is replaced (not a copy) and its tail dropped.
                let drop = subparts_2 << 1;
                if complex == 0 {
                    // The common case on random input: a chunk of simple units.
                    // SAFETY: `written + 64 <= capacity` (see the reservation).
                    written += K::expand16_dropping(v, copy, drop, dst.add(written));
                    clean_run = (clean_run + 16) * (copy == 0xFFFF) as usize;
                    pos += 16;
                    if clean_run >= lossy::CLEAN_RUN_TO_LEAVE {
                        break;
                    }
                    continue;
                }
                // Bytes before the first complex one; from it on, expand as copies (1 byte
                // each) and subtract them from the length.
                // Cut at the first 2-byte subpart too (the DFA reads it as one unit): the
                // cut then does not wait for `subparts_2`, whose lookup is longer than
                // the masks, on the chain through consecutive complex chunks.
                let cut = complex_or_subpart.trailing_zeros() as usize;
                let effective_copy = copy | ((0xFFFF_u32 << cut) & 0xFFFF);
                // No subpart before the cut has its tail at or after it (the cut is a lead).
                let effective_drop = drop & ((1 << cut) - 1);
                // SAFETY: `written + 64 <= capacity` (see the reservation).
                let chunk_out =
                    K::expand16_dropping(v, effective_copy, effective_drop, dst.add(written));
                let prefix_out = chunk_out - (16 - cut);
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
}
