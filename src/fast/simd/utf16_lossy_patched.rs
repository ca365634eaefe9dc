//! Lossy UTF-8 to UTF-16 for the 16-byte table kernels (SSE4.1, AVX2, NEON): one
//! U+FFFD per maximal subpart (Unicode §3.9, D93b; the WHATWG "UTF-8 decode" with
//! error mode "replacement").
//!
//! The step's driver (`utf16_lossy`) ends a call of the kernel at each error and starts
//! a new one after it: at 1% corrupt bytes, a call per 100 bytes or so, each paying the
//! kernel's start, its partial last group and the step's own set-up. Here, from the
//! first error on, the input is taken a stretch at a time (at most [`MARK_STRETCH`]
//! bytes, cut where no unit crosses): [`mark_error_units`] finds the stretch's error
//! units, and the stretch is copied into a buffer with each error unit replaced by the
//! UTF-8 encoding of U+FFFD (`EF BF BD`), which is then well-formed and converted in one
//! call of the kernel. A unit's extent needs no second measurement: it runs from its
//! marked first byte over the tails after it, up to the next marked byte (every byte of
//! a maximal subpart after its first is a tail, and the unit after it starts at a byte
//! that is not a tail or at a stray tail, itself marked). Input without errors is
//! converted by the backend's strict decoder, up to the first error; a stretch with
//! errors close together (random-looking input) goes to the step's driver and its
//! dense loop, and so does the input after it, [`DENSE_SPAN`] bytes at a time, while
//! the output stays dense ([`DENSE_SHARE`]), so that no marking pass is spent on it.

use super::utf16::ConvertValid16;
use super::utf16_lossy::{mark_error_units, MARK_STRETCH};
use super::validate::Lookup;
use super::vector::Vector;
use crate::fast::dfa::{chunk_end, is_continuation};
use crate::fast::utf16_lossy::{decode_utf16_lossy_using, REPLACEMENT};
use crate::fast::Utf8Error;

/// Words of the map of marked bytes: one bit per byte of a stretch.
const MARK_WORDS: usize = MARK_STRETCH / 64;

/// A stretch the step's driver decoded with at least one U+FFFD per this many code
/// units among its last [`DENSE_SAMPLE`] sends the next [`DENSE_SPAN`] bytes to it too,
/// unmarked. Random bytes give about one per 2 units, 1%-corrupt text about one per 40.
const DENSE_SHARE: usize = 16;

/// Code units at the end of a stretch's output counted for [`DENSE_SHARE`].
const DENSE_SAMPLE: usize = 1024;

/// Bytes per call of the step's driver while the input stays dense: each call starts
/// again with the step, before its dense loop takes over.
const DENSE_SPAN: usize = 8 * MARK_STRETCH;

/// The UTF-8 encoding of U+FFFD, which the kernel converts to the one code unit U+FFFD.
const REPLACEMENT_BYTES: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// Appends the lossy UTF-16 decoding of `bytes` to `out`: the backend's strict decoder
/// (`strict`) up to the first error, then `stretches` (its instance of
/// [`lossy_stretches`]) from that error on. Both are functions of their own, so that
/// well-formed input runs the strict decoder's code as it is.
///
/// # Safety
/// `strict` and `stretches` must be safe to call, and `strict` agree with std.
#[inline(always)]
pub(crate) unsafe fn decode_utf16_lossy_patched(
    bytes: &[u8],
    out: &mut Vec<u16>,
    strict: unsafe fn(&[u8], &mut Vec<u16>) -> Result<(), Utf8Error>,
    stretches: unsafe fn(&[u8], usize, &mut Vec<u16>),
) {
    // SAFETY: the caller's contract; on error, `strict` has appended the units of the
    // well-formed prefix, and the error starts a unit.
    unsafe {
        if let Err(error) = strict(bytes, out) {
            stretches(bytes, error.valid_up_to(), out);
        }
    }
}

/// Appends the lossy UTF-16 decoding of `bytes[pos..]` (`pos` a unit boundary) to
/// `out`, a stretch at a time: the error units marked, then the stretch converted in one
/// call, patched; where errors come close together, the step's driver with `step`
/// (`utf16_lossy::lossy_step` over `lookup`, a closure written in the backend's function, so that
/// it is compiled with its target features).
///
/// # Safety
/// The instruction sets of `V` and `C` must be available; `pos <= bytes.len()`;
/// `step` must be safe to call and agree with std, as the strict decoder does.
#[inline(always)]
pub(crate) unsafe fn lossy_stretches<V: Vector, C: ConvertValid16>(
    lookup: &Lookup<V>,
    bytes: &[u8],
    mut pos: usize,
    out: &mut Vec<u16>,
    step: impl Fn(&[u8], &mut Vec<u16>, &mut Vec<u32>) -> Result<(), Utf8Error>,
) {
    let len = bytes.len();
    // At most one code unit per byte; and room for a patched stretch's conversion,
    // which reserves a unit per byte of the copy (up to 2 more per error unit).
    out.reserve(len - pos + 2 * MARK_STRETCH);
    let mut scratch = Vec::new();
    let mut marks = [0u64; MARK_WORDS];
    let mut patched = Vec::with_capacity(3 * MARK_STRETCH);
    let mut dense = false;
    // SAFETY: the instruction sets are available (caller's contract); each stretch
    // `pos..end` starts at a unit boundary and no unit crosses its end (`chunk_end`);
    // a marked one is at most `MARK_STRETCH` bytes, and `marks` is cleared after use.
    unsafe {
        while pos < len {
            pos += C::convert_ascii(&bytes[pos..], out);
            if pos == len {
                break;
            }
            let end = chunk_end(bytes, pos, if dense { DENSE_SPAN } else { MARK_STRETCH });
            let units = if dense {
                None
            } else {
                mark_error_units(lookup, bytes, pos, end, &mut marks)
            };
            match units {
                Some(0) => C::convert_valid(&bytes[pos..end], out, &mut scratch),
                Some(_) => {
                    patch(&bytes[pos..end], &marks, &mut patched);
                    marks = [0; MARK_WORDS];
                    C::convert_valid(&patched, out, &mut scratch);
                }
                None => {
                    marks = [0; MARK_WORDS];
                    let before = out.len();
                    decode_utf16_lossy_using(&bytes[pos..end], out, &step);
                    // The density of the last units, a cheap sample that predicts the next.
                    let sample = &out[before.max(out.len().saturating_sub(DENSE_SAMPLE))..];
                    let replaced = sample.iter().filter(|&&unit| unit == REPLACEMENT).count();
                    dense = replaced * DENSE_SHARE >= sample.len().max(1);
                }
            }
            pos = end;
        }
    }
}

/// Copies `stretch` into `patched` (cleared first), each error unit `marks` marks
/// (bit `i % 64` of word `i / 64` for `stretch[i]`) replaced by [`REPLACEMENT_BYTES`]:
/// well-formed UTF-8 whose conversion is the stretch's lossy one.
#[inline(always)]
fn patch(stretch: &[u8], marks: &[u64; MARK_WORDS], patched: &mut Vec<u8>) {
    patched.clear();
    let len = stretch.len();
    let mut copied = 0;
    for (word, &bits) in marks.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let at = word * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            patched.extend_from_slice(&stretch[copied..at]);
            patched.extend_from_slice(&REPLACEMENT_BYTES);
            // The unit: its first byte, then tails up to the next marked byte.
            let mut unit_end = at + 1;
            while unit_end < len && is_continuation(stretch[unit_end]) && !marked(marks, unit_end) {
                unit_end += 1;
            }
            copied = unit_end;
        }
    }
    patched.extend_from_slice(&stretch[copied..]);
}

/// Whether byte `at` of the stretch is marked.
#[inline(always)]
fn marked(marks: &[u64; MARK_WORDS], at: usize) -> bool {
    marks[at / 64] >> (at % 64) & 1 != 0
}

#[cfg(test)]
mod tests {
    use super::MARK_STRETCH;
    use crate::fast::{self, Backend};

    /// Asserts that every available backend decodes `bytes` as std's lossy decoding,
    /// re-encoded as UTF-16.
    fn check(bytes: &[u8]) {
        let expected: Vec<u16> = String::from_utf8_lossy(bytes).encode_utf16().collect();
        for backend in Backend::available() {
            let mut units = vec![0xBEEF];
            fast::decode_utf16_lossy_with(backend, bytes, &mut units).expect("available");
            assert!(
                units[0] == 0xBEEF && units[1..] == expected[..],
                "{backend}, {} bytes",
                bytes.len()
            );
        }
    }

    /// `text` repeated to at least `len` bytes, with `first` (an error) at byte `at`
    /// and `piece` at byte `offset` (both moved back to character boundaries of `text`).
    fn placed(text: &str, len: usize, at: usize, first: &[u8], piece: &[u8], offset: usize) {
        let text = text.repeat(len.div_ceil(text.len()));
        let boundary = |i: usize| (0..=i).rev().find(|&b| text.is_char_boundary(b)).unwrap();
        let (at, offset) = (boundary(at), boundary(offset));
        let mut bytes = text.as_bytes()[..at].to_vec();
        bytes.extend_from_slice(first);
        bytes.extend_from_slice(&text.as_bytes()[at..offset]);
        bytes.extend_from_slice(piece);
        bytes.extend_from_slice(&text.as_bytes()[offset..]);
        check(&bytes);
    }

    /// Stretches start at the first error: a second error unit, a run of them, or a
    /// 4-byte character at every offset around the end of the first stretch, after
    /// 1- to 4-byte text, with that first error at a few offsets.
    #[test]
    fn units_around_the_first_stretch_end() {
        let pieces: [&[u8]; 6] = [
            b"\x80",
            b"\xF0\x9F\x98",
            b"\xC3\x80\x80\x80\xFF\xE1\x80",
            b"\xF0\x9F\x98\x80",
            b"\xED\xA0\x80\xF4\x90\x80\x80",
            b"\xE1\x80\x80\x80\x80\x80",
        ];
        for text in ["a", "é", "中a", "😀é"] {
            for first in [0, 5, 63] {
                for offset in first + MARK_STRETCH - 8..first + MARK_STRETCH + 8 {
                    for piece in pieces {
                        placed(text, 3 * MARK_STRETCH, first, b"\xFF", piece, offset);
                    }
                }
            }
        }
    }

    /// An error unit as the input's last bytes, after errors in an earlier stretch, and
    /// runs of errors of every length to 12.
    #[test]
    fn last_bytes_and_runs_of_errors() {
        for end in [&b"\x80"[..], b"\xF0\x9F\x98", b"\xE1", b"\xC3"] {
            for len in [0, 1, 100, MARK_STRETCH - 1, MARK_STRETCH, MARK_STRETCH + 3] {
                let mut bytes = b"\xFFab".to_vec();
                bytes.extend("é".repeat(len / 2).as_bytes());
                bytes.extend_from_slice(end);
                check(&bytes);
            }
        }
        for run in 1..=12 {
            let mut bytes = "中".repeat(50).into_bytes();
            for i in 0..run {
                bytes.push([0x80, 0xFF, 0xC3, 0xF0][i % 4]);
            }
            bytes.extend("😀中".repeat(2000).as_bytes());
            bytes.insert(10, 0xFF);
            check(&bytes);
        }
    }

    /// Sparse errors with bursts of close ones and a long random run: stretches to the
    /// step's driver and marked stretches again after them, the bursts at several
    /// offsets around stretch ends.
    #[test]
    fn bursts_of_close_errors_among_sparse_ones() {
        let text = "mixed é 中文 😀 text, ".repeat(MARK_STRETCH);
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        };
        for burst_at in [100, MARK_STRETCH - 20, 4 * MARK_STRETCH - 30] {
            let mut bytes = text.as_bytes().to_vec();
            for i in (50..bytes.len()).step_by(97) {
                bytes[i] = 0x80;
            }
            let long = 5 * MARK_STRETCH / 2;
            for (at, len) in [(burst_at, 64), (burst_at + 4 * MARK_STRETCH, long)] {
                bytes[at..at + len].fill_with(&mut next);
            }
            check(&bytes);
        }
    }
}
