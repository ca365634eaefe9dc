//! UTF-8 to UTF-16, lossy: one U+FFFD per maximal subpart.
//!
//! That is the WHATWG Encoding Standard's UTF-8 decoder ("UTF-8 decode", with error
//! mode "replacement") whose scalar values are then written as UTF-16, and the Unicode
//! Standard's "best practice" of §3.9 (D93b, U+FFFD Substitution of Maximal Subparts);
//! the two agree.
//!
//! The driver has the shape of the UTF-8 one (`lossy`), with a backend's strict
//! decoder in the place of its validator: the strict decoder converts the well-formed
//! run up to the next error (in one pass over ASCII, and with the conversion of each
//! validated chunk straight to code units: `simd::utf16`) and reports the error, whose
//! unit becomes one U+FFFD; the driver returns to the strict decoder right after the
//! unit. Error units straight after one another (a lead's stray tails) are measured by
//! the DFA without a strict call each, and where errors come close together
//! (random-looking input) [`dense`] takes over, a unit at a time, until it has seen a
//! clean run again. (The SIMD backends have drivers of their own, which mark the
//! errors of a stretch and convert it in one kernel call: the AVX-512 VBMI2 kernel
//! writes the U+FFFDs itself, the 16-byte kernels convert a copy with U+FFFD's bytes
//! in place of the error units. They use this one for stretches with close errors.)

use super::lossy::{error_cluster, first_unit, CLEAN_RUN_TO_LEAVE};
use super::utf16::{decode_utf16_using, push_scalar};
use super::{dfa, Utf8Error};

/// U+FFFD REPLACEMENT CHARACTER, one code unit.
pub(crate) const REPLACEMENT: u16 = 0xFFFD;

/// An error unit less than this many bytes after the previous one is "close".
const DENSE_WHEN_CLOSER_THAN: usize = 8;

/// After this many close error units in a row the driver hands over to [`dense`].
const DENSE_AFTER_CLOSE_ERRORS: usize = 4;

/// Appends the lossy UTF-16 decoding of `bytes` to `out`, with a backend's strict
/// decoder, `strict(bytes, out, scratch)` (`scratch` its reusable buffer).
///
/// # Safety
/// `strict` must be safe to call (its backend available) and agree with std: on error,
/// it appends the code units of the well-formed prefix and returns std's error.
#[inline(always)]
pub(crate) unsafe fn decode_utf16_lossy_using(
    bytes: &[u8],
    out: &mut Vec<u16>,
    strict: impl Fn(&[u8], &mut Vec<u16>, &mut Vec<u32>) -> Result<(), Utf8Error>,
) {
    let len = bytes.len();
    // At most one code unit per byte (see `super::utf16`).
    out.reserve(len);
    let mut scratch = Vec::new();
    let mut pos = 0;
    let mut close_errors = 0;
    while pos < len {
        let rest = &bytes[pos..];
        let (clean, error) = match strict(rest, out, &mut scratch) {
            Ok(()) => (rest.len(), None),
            Err(error) => (error.valid_up_to(), Some(error.error_len())),
        };
        pos += clean;
        let Some(error_len) = error else {
            break;
        };
        out.push(REPLACEMENT);
        match error_len {
            // An incomplete character cut off by the end of input.
            None => break,
            Some(unit_len) => pos += unit_len,
        }
        // Error units straight after it are measured here rather than by `strict`.
        let (cluster_end, units) = error_cluster(bytes, pos);
        out.extend(std::iter::repeat_n(REPLACEMENT, units));
        pos = cluster_end;
        close_errors = if clean < DENSE_WHEN_CLOSER_THAN {
            close_errors + 1
        } else {
            0
        };
        if close_errors >= DENSE_AFTER_CLOSE_ERRORS && pos < len {
            close_errors = 0;
            pos = dense(bytes, pos, out);
        }
    }
}

/// The scalar value of `unit`, a well-formed UTF-8 character of 1 to 4 bytes (RFC 3629
/// §3: the payload bits of the lead, then 6 bits from each tail).
#[inline(always)]
fn scalar_of(unit: &[u8]) -> u32 {
    let lead = u32::from(unit[0]);
    let payload = match unit.len() {
        1 => return lead,
        2 => lead & 0x1F,
        3 => lead & 0x0F,
        _ => lead & 0x07,
    };
    unit[1..]
        .iter()
        .fold(payload, |acc, &tail| acc << 6 | u32::from(tail & 0x3F))
}

/// Lossy decoding of `bytes[pos..]` (`pos` at a unit boundary) a unit at a time, until
/// [`CLEAN_RUN_TO_LEAVE`] bytes in a row were well-formed or the input ends; returns the
/// position reached (a unit boundary).
///
/// The three cases that make up most of random input take no data-dependent branch: an
/// ASCII byte (its code unit), a byte that can never start a character, and a lead not
/// followed by a tail (both one U+FFFD) are one select between the byte and U+FFFD.
/// Only a lead followed by a tail goes to the DFA.
fn dense(bytes: &[u8], mut pos: usize, out: &mut Vec<u16>) -> usize {
    let len = bytes.len();
    let mut clean_run = 0;
    while pos < len {
        let byte = bytes[pos];
        let next = if pos + 1 < len { bytes[pos + 1] } else { 0 };
        // Non-short-circuiting `&`: one branch, rarely taken on random input.
        if (0xC2..=0xF4).contains(&byte) & dfa::is_continuation(next) {
            let unit = &bytes[pos..(pos + 4).min(len)];
            let (unit_len, well_formed) = first_unit(unit);
            if well_formed {
                push_scalar(scalar_of(&unit[..unit_len]), out);
                clean_run += unit_len;
            } else {
                out.push(REPLACEMENT);
                clean_run = 0;
            }
            pos += unit_len;
        } else {
            let ascii = u16::from(byte < 0x80);
            let mask = ascii.wrapping_neg();
            out.push(REPLACEMENT ^ ((REPLACEMENT ^ u16::from(byte)) & mask));
            clean_run = (clean_run + 1) * usize::from(ascii);
            pos += 1;
        }
        if clean_run >= CLEAN_RUN_TO_LEAVE {
            break;
        }
    }
    pos
}

/// The scalar backend's lossy UTF-16 decoding: the DFA as validator and UTF-32 decoder.
///
/// # Safety
/// None: this is `unsafe fn` only to share the backends' function-pointer type.
pub(crate) unsafe fn decode_utf16_lossy_scalar(bytes: &[u8], out: &mut Vec<u16>) {
    // SAFETY: the DFA is safe to call and agrees with std.
    unsafe {
        decode_utf16_lossy_using(bytes, out, |run, out, scratch| {
            decode_utf16_using(run, out, scratch, dfa::decode_utf32)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy(bytes: &[u8]) -> Vec<u16> {
        let mut out = Vec::new();
        // SAFETY: the scalar decoder has no precondition.
        unsafe { decode_utf16_lossy_scalar(bytes, &mut out) };
        out
    }

    #[test]
    fn equals_std_lossy_then_encode_utf16() {
        let cases: [&[u8]; 6] = [
            b"a\xF1\x80\x80\xE1\x80\xC2b\x80c\x80\xBFd",
            b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82A",
            b"\xED\xA0\x80\xED\xBF\xBF\xED\xAFA",
            b"\xF4\x91\x92\x93\xFFA\x80\xBFB",
            b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBFA\xF0\x9F\x98\x80",
            b"\xFF\xFE\xC3\xA9\xF0\x9F\x98\x80\x80\x80\x80\x80\xE4\xBD",
        ];
        for bytes in cases {
            let expected: Vec<u16> = String::from_utf8_lossy(bytes).encode_utf16().collect();
            assert_eq!(lossy(bytes), expected, "{bytes:02X?}");
        }
    }

    #[test]
    fn dense_random_bytes_equal_std() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let expected: Vec<u16> = String::from_utf8_lossy(&bytes).encode_utf16().collect();
        assert_eq!(lossy(&bytes), expected);
    }
}
