//! Lossy UTF-8 to UTF-16 with the AVX-512 VBMI2 kernel, U+FFFD written inside the
//! conversion: one U+FFFD per maximal subpart, the WHATWG Encoding Standard's UTF-8
//! decoder with error mode "replacement", and the Unicode Standard's §3.9 "U+FFFD
//! Substitution of Maximal Subparts" (D93b).
//!
//! The input is taken a stretch of the kernel at a time (at most 4 KiB, cut where no
//! unit crosses: see [`mark_error_units`]). The lookup checks the stretch and the DFA
//! measures each error unit it flags, and their first bytes are marked in a bit map.
//! The kernel then converts the whole stretch in one call: its units start at the bytes
//! that are not tails and at the marked ones, and each marked unit's lane is U+FFFD
//! (`avx512_utf32::convert_stretch` with `LOSSY`). So an error costs its measurement
//! and one lane of the conversion: no end of a kernel call at each error and no new one
//! after it, as the step of the other backends (`utf16_lossy`) has. A stretch without
//! errors is converted as the strict decoder converts it. Where errors come close
//! together (random-looking input) the stretch goes to the step's driver, whose dense
//! loop handles them a unit at a time.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::avx512_output::convert_ascii;
use super::avx512_utf16::{Avx512Convert16, CodeUnits};
use super::avx512_utf32::{convert_stretch, MARK_WORDS, POSITIONS, STRETCH};
use super::utf16_lossy::{lossy_step, mark_error_units, MARK_STRETCH};
use super::validate::Lookup;
use crate::fast::dfa::chunk_end;

// A kernel stretch is one marking's stretch at most.
const _: () = assert!(STRETCH <= MARK_STRETCH);

/// Appends the lossy UTF-16 decoding of `bytes` to `out`.
///
/// # Safety
/// AVX512F, AVX512BW, AVX512VBMI, AVX512VBMI2, POPCNT and BMI2 must be available.
#[inline(always)]
pub(super) unsafe fn decode_utf16_lossy(bytes: &[u8], out: &mut Vec<u16>) {
    let len = bytes.len();
    // At most one code unit per byte (a lossy error unit of at least one byte is one
    // U+FFFD; see `crate::fast::utf16`).
    out.reserve(len);
    // SAFETY: AVX-512 is available (caller's contract).
    let lookup = unsafe { Lookup::<__m512i>::new() };
    let mut marks = [0u64; MARK_WORDS];
    let mut pos = 0;
    // SAFETY: the instruction sets are available (caller's contract); each stretch
    // `pos..end` is at most `STRETCH` bytes, and `marks` is cleared after use.
    unsafe {
        while pos < len {
            pos += convert_ascii::<CodeUnits>(&bytes[pos..], out);
            if pos == len {
                break;
            }
            // A cut before a byte that is not a tail, or a tail after 3 tails.
            let end = chunk_end(bytes, pos, STRETCH);
            match mark_stretch(&lookup, bytes, pos, end, &mut marks) {
                Some(0) => convert::<false>(bytes, pos, end, &marks, out),
                Some(_) => {
                    convert::<true>(bytes, pos, end, &marks, out);
                    marks = [0; MARK_WORDS];
                }
                None => {
                    marks = [0; MARK_WORDS];
                    close_errors(&lookup, &bytes[pos..end], out);
                }
            }
            pos = end;
        }
    }
}

/// [`mark_error_units`] with this backend's registers, a function of its own so that
/// the scan and the kernel are compiled (and their registers allocated) apart.
///
/// # Safety
/// As [`decode_utf16_lossy`]; `pos <= end <= bytes.len()`, `end - pos <= STRETCH`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
unsafe fn mark_stretch(
    lookup: &Lookup<__m512i>,
    bytes: &[u8],
    pos: usize,
    end: usize,
    marks: &mut [u64; MARK_WORDS],
) -> Option<usize> {
    // SAFETY: the instruction sets are available (this function's contract), and
    // `marks` has a bit per byte of a stretch.
    unsafe { mark_error_units(lookup, bytes, pos, end, marks) }
}

/// Converts the stretch `bytes[pos..end]`, with the error units `marks` marks if
/// `LOSSY`, appended to `out`.
///
/// # Safety
/// As [`mark_stretch`]; with `LOSSY`, `marks` as [`mark_error_units`] left it.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
unsafe fn convert<const LOSSY: bool>(
    bytes: &[u8],
    pos: usize,
    end: usize,
    marks: &[u64; MARK_WORDS],
    out: &mut Vec<u16>,
) {
    let mut positions = MaybeUninit::<[u16; POSITIONS]>::uninit();
    let written = out.len();
    // SAFETY: the instruction sets are available and the stretch at most `STRETCH`
    // bytes (this function's contract); `out` has room for a unit per byte of the rest
    // of the input (reserved by the caller, at most one unit per byte consumed), at
    // least `end - pos`, which bounds what the kernel writes.
    unsafe {
        let dst = out.as_mut_ptr().add(written);
        let units = convert_stretch::<CodeUnits, LOSSY>(
            bytes,
            pos,
            end,
            dst,
            positions.as_mut_ptr().cast(),
            marks.as_ptr(),
        );
        out.set_len(written + units);
    }
}

/// Close errors: the step's driver and its dense loop, on a stretch alone (its units
/// are the input's).
///
/// # Safety
/// As [`decode_utf16_lossy`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
unsafe fn close_errors(lookup: &Lookup<__m512i>, stretch: &[u8], out: &mut Vec<u16>) {
    // SAFETY: the instruction sets are available (this function's contract), so the
    // step may be called, and it agrees with std (the strict decoder's contract).
    unsafe {
        crate::fast::utf16_lossy::decode_utf16_lossy_using(stretch, out, |run, out, scratch| {
            lossy_step::<__m512i, Avx512Convert16>(lookup, run, out, scratch)
        })
    }
}
