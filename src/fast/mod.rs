//! `utf8conf::fast`: the harness's own optimised UTF-8 decoder.
//!
//! It has to be a decoder people would pick for speed and, at the same time, agree
//! exactly with the reference semantics (DESIGN.md §2): std's `valid_up_to` /
//! `error_len`, and one U+FFFD per maximal subpart (Unicode D93b, §3.9). The design
//! keeps those two goals apart:
//!
//! * [`dfa`] is the scalar core: a shift-based DFA generated from the RFC 3629 grammar.
//!   It is the only code that decides *where* an error is and how long its unit is.
//! * [`simd`] holds the SIMD algorithms, written once over a small vector trait and
//!   instantiated per instruction set (SSE4.2, AVX2, AVX-512 on x86-64; NEON on
//!   aarch64). They only decide *whether* a 64-byte block is well-formed, and convert
//!   blocks already known to be well-formed; on any doubt they hand over to the DFA.
//! * [`stream`] is the chunk-by-chunk decoder, built on the one-shot functions.
//!
//! Every backend is a value of [`Backend`], callable on its own through
//! [`validate_with`], [`decode_utf32_with`] and [`decode_lossy_with`], so that tests and
//! the differential engine exercise each of them, not only the one the dispatcher picks.
//! The plain functions ([`validate`], [`decode_utf32`], [`decode_lossy`]) use
//! [`Backend::best`], detected once and cached.

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

pub mod dfa;
pub mod simd;
pub mod stream;

/// Why a byte sequence is not well-formed UTF-8, in the shape of
/// [`std::str::Utf8Error`] (and always equal to what std reports for the same input).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf8Error {
    valid_up_to: usize,
    error_len: Option<u8>,
}

impl Utf8Error {
    /// An error at offset `valid_up_to` whose maximal subpart is `error_len` bytes, or
    /// runs to the end of input and could still be completed (`None`).
    pub fn new(valid_up_to: usize, error_len: Option<usize>) -> Self {
        debug_assert!(error_len.map_or(true, |len| (1..=3).contains(&len)));
        Utf8Error {
            valid_up_to,
            error_len: error_len.map(|len| len as u8),
        }
    }

    /// Length of the longest well-formed prefix: the offset of the first error.
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// Length of the first error unit (its maximal subpart, 1 to 3 bytes), or `None`
    /// when that unit is an incomplete character cut off by the end of input.
    pub fn error_len(&self) -> Option<usize> {
        self.error_len.map(usize::from)
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error_len {
            Some(len) => write!(
                f,
                "invalid utf-8 sequence of {len} bytes from index {}",
                self.valid_up_to
            ),
            None => write!(
                f,
                "incomplete utf-8 byte sequence from index {}",
                self.valid_up_to
            ),
        }
    }
}

impl std::error::Error for Utf8Error {}

impl From<std::str::Utf8Error> for Utf8Error {
    fn from(error: std::str::Utf8Error) -> Self {
        Utf8Error::new(error.valid_up_to(), error.error_len())
    }
}

/// An implementation of the decoder for one instruction set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The portable shift-DFA ([`dfa`]); always available.
    Scalar,
    /// x86-64 SSE4.2: 16-byte vectors.
    Sse42,
    /// x86-64 AVX2: 32-byte vectors for validation.
    Avx2,
    /// x86-64 AVX512F + AVX512BW: 64-byte vectors for validation.
    Avx512,
    /// aarch64 NEON: 16-byte vectors.
    Neon,
}

/// The entry points of one backend.
#[derive(Clone, Copy)]
struct Functions {
    validate: unsafe fn(&[u8]) -> Result<(), Utf8Error>,
    decode_utf32: unsafe fn(&[u8], &mut Vec<u32>) -> Result<(), Utf8Error>,
}

const SCALAR_FUNCTIONS: Functions = Functions {
    validate: dfa::validate,
    decode_utf32: dfa::decode_utf32,
};

impl Backend {
    /// Every backend, available here or not, fastest last.
    pub const fn all() -> &'static [Backend] {
        &[
            Backend::Scalar,
            Backend::Sse42,
            Backend::Neon,
            Backend::Avx2,
            Backend::Avx512,
        ]
    }

    /// Short stable name: `scalar`, `sse42`, `avx2`, `avx512`, `neon`.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Sse42 => "sse42",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
            Backend::Neon => "neon",
        }
    }

    /// The backend called `name` (as returned by [`Backend::name`]).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::all().iter().copied().find(|b| b.name() == name)
    }

    /// Whether this backend is compiled for this architecture and its instructions
    /// exist on this CPU (runtime detection, cached by std).
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Sse42 => simd::sse42::is_available(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => simd::avx2::is_available(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => simd::avx512::is_available(),
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => simd::neon::is_available(),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The available backends, fastest last.
    pub fn available() -> impl Iterator<Item = Backend> {
        Backend::all().iter().copied().filter(|b| b.is_available())
    }

    /// The backend the plain functions use: the fastest available one, detected on
    /// first use and cached.
    pub fn best() -> Backend {
        const UNDETECTED: u8 = u8::MAX;
        static BEST: AtomicU8 = AtomicU8::new(UNDETECTED);
        let cached = BEST.load(Ordering::Relaxed);
        if let Some(&backend) = Backend::all().get(cached as usize) {
            return backend;
        }
        let best = Backend::available().last().unwrap_or(Backend::Scalar);
        let index = Backend::all().iter().position(|&b| b == best).unwrap_or(0);
        BEST.store(index as u8, Ordering::Relaxed);
        best
    }

    /// The entry points, if the backend is available.
    fn functions(self) -> Option<Functions> {
        if !self.is_available() {
            return None;
        }
        Some(match self {
            Backend::Scalar => SCALAR_FUNCTIONS,
            #[cfg(target_arch = "x86_64")]
            Backend::Sse42 => Functions {
                validate: simd::sse42::validate,
                decode_utf32: simd::sse42::decode_utf32,
            },
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => Functions {
                validate: simd::avx2::validate,
                decode_utf32: simd::avx2::decode_utf32,
            },
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => Functions {
                validate: simd::avx512::validate,
                decode_utf32: simd::avx512::decode_utf32,
            },
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => Functions {
                validate: simd::neon::validate,
                decode_utf32: simd::neon::decode_utf32,
            },
            #[allow(unreachable_patterns)]
            _ => return None,
        })
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The best backend's functions, detected once.
#[inline]
fn best_functions() -> Functions {
    Backend::best().functions().unwrap_or(SCALAR_FUNCTIONS)
}

/// Checks that `bytes` is well-formed UTF-8; on failure the error equals
/// [`std::str::from_utf8`]'s.
#[inline]
pub fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    let functions = best_functions();
    // SAFETY: `functions()` only returns the entry points of an available backend.
    unsafe { (functions.validate)(bytes) }
}

/// [`validate`] with a given backend; `None` if it is not available here.
pub fn validate_with(backend: Backend, bytes: &[u8]) -> Option<Result<(), Utf8Error>> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    Some(unsafe { (functions.validate)(bytes) })
}

/// Appends the scalar values of `bytes` to `out`. On error, appends those of the
/// well-formed prefix (`bytes[..error.valid_up_to()]`) and returns the error.
#[inline]
pub fn decode_utf32(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    let functions = best_functions();
    // SAFETY: `functions()` only returns the entry points of an available backend.
    unsafe { (functions.decode_utf32)(bytes, out) }
}

/// [`decode_utf32`] with a given backend; `None` if it is not available here.
pub fn decode_utf32_with(
    backend: Backend,
    bytes: &[u8],
    out: &mut Vec<u32>,
) -> Option<Result<(), Utf8Error>> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    Some(unsafe { (functions.decode_utf32)(bytes, out) })
}

/// Decodes `bytes` replacing each maximal subpart of an ill-formed sequence with one
/// U+FFFD (equal to [`String::from_utf8_lossy`]); borrowed when `bytes` is well-formed.
#[inline]
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    lossy_using(best_functions().validate, bytes)
}

/// [`decode_lossy`] with a given backend; `None` if it is not available here.
pub fn decode_lossy_with(backend: Backend, bytes: &[u8]) -> Option<Cow<'_, str>> {
    let functions = backend.functions()?;
    Some(lossy_using(functions.validate, bytes))
}

/// Lossy decoding over a backend's `validate`, which must be available.
///
/// Long well-formed runs are found by `validate` (SIMD) and copied; where errors are
/// dense, [`lossy_dense`] goes byte by byte without branching on the common cases, and
/// hands back to `validate` after a clean run.
fn lossy_using(validate: unsafe fn(&[u8]) -> Result<(), Utf8Error>, bytes: &[u8]) -> Cow<'_, str> {
    // SAFETY: callers pass the `validate` of an available backend.
    let first_error = match unsafe { validate(bytes) } {
        Ok(()) => {
            // SAFETY: `validate` accepted `bytes`, and every backend agrees with std.
            return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        Err(error) => error,
    };
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len() + bytes.len() / 2 + 16);
    out.extend_from_slice(&bytes[..first_error.valid_up_to()]);
    let mut pos = first_error.valid_up_to();
    while pos < bytes.len() {
        pos = lossy_dense(bytes, pos, &mut out);
        if pos == bytes.len() {
            break;
        }
        // SAFETY: as above.
        match unsafe { validate(&bytes[pos..]) } {
            Ok(()) => {
                out.extend_from_slice(&bytes[pos..]);
                break;
            }
            Err(error) => {
                out.extend_from_slice(&bytes[pos..pos + error.valid_up_to()]);
                pos += error.valid_up_to();
            }
        }
    }
    // SAFETY: `out` holds only well-formed runs accepted by `validate` or the DFA, and
    // whole U+FFFD encodings (see `lossy_dense`).
    Cow::Owned(unsafe { String::from_utf8_unchecked(out) })
}

/// Clean bytes in a row after which [`lossy_dense`] hands back to SIMD validation.
const CLEAN_RUN_TO_LEAVE: usize = 32;
/// Input bytes [`lossy_dense`] handles per capacity reservation.
const DENSE_WINDOW: usize = 256;

/// Lossy decoding of `bytes[pos..]` (`pos` at a unit boundary) a unit at a time, until
/// [`CLEAN_RUN_TO_LEAVE`] bytes in a row were well-formed or the input ends. Returns the
/// position reached (a unit boundary).
///
/// Random-looking input has an error every byte or two, so this loop avoids
/// data-dependent branches for the three cases that make up most of it: an ASCII byte
/// (copied), a byte that can never start a character (80..C1, F5..FF: one U+FFFD), and a
/// lead not followed by a tail (a maximal subpart of one byte: one U+FFFD). Each is one
/// unconditional 4-byte store of either the byte or `EF BF BD` and a conditional
/// advance. Only a lead followed by a tail takes the branch to the DFA.
fn lossy_dense(bytes: &[u8], mut pos: usize, out: &mut Vec<u8>) -> usize {
    const REPLACEMENT: u32 = u32::from_le_bytes([0xEF, 0xBF, 0xBD, 0]);
    let len = bytes.len();
    let mut clean_run = 0;
    while pos < len {
        let window_end = (pos + DENSE_WINDOW).min(len);
        // Each input byte produces at most 3 output bytes; the 4-byte stores write one
        // byte past the output cursor.
        out.reserve(3 * (window_end - pos) + 4);
        let base = out.as_mut_ptr();
        let mut written = out.len();
        while pos < window_end {
            let byte = bytes[pos];
            let next = if pos + 1 < len { bytes[pos + 1] } else { 0 };
            let is_lead = (0xC2..=0xF4).contains(&byte);
            if is_lead && dfa::is_continuation(next) {
                // A lead and a tail: a longer character or a longer maximal subpart.
                let unit = &bytes[pos..(pos + 4).min(len)];
                let (unit_len, well_formed) = first_unit(unit);
                // SAFETY: `written + 4 <= capacity` (reserved above: at most 3 output
                // bytes per input byte of this window, plus 4).
                unsafe {
                    if well_formed {
                        std::ptr::copy_nonoverlapping(unit.as_ptr(), base.add(written), unit_len);
                        written += unit_len;
                    } else {
                        (base.add(written) as *mut u32).write_unaligned(REPLACEMENT);
                        written += 3;
                    }
                }
                clean_run = if well_formed { clean_run + unit_len } else { 0 };
                pos += unit_len;
            } else {
                // Branch-free on purpose (random input makes `byte < 0x80` a coin
                // toss): `ascii` is 1 or 0, `ascii_mask` all ones or zero.
                let ascii = (byte < 0x80) as usize;
                let ascii_mask = (ascii as u32).wrapping_neg();
                let value = REPLACEMENT ^ ((REPLACEMENT ^ byte as u32) & ascii_mask);
                // SAFETY: as above.
                unsafe { (base.add(written) as *mut u32).write_unaligned(value) };
                written += 3 - 2 * ascii;
                clean_run = (clean_run + 1) * ascii;
                pos += 1;
            }
            if clean_run >= CLEAN_RUN_TO_LEAVE {
                // SAFETY: `written` bytes are initialised (see below).
                unsafe { out.set_len(written) };
                return pos;
            }
        }
        // SAFETY: bytes `..written` were initialised by the stores above (whole ASCII
        // bytes, whole U+FFFD encodings, whole well-formed characters), and
        // `written <= capacity`.
        unsafe { out.set_len(written) };
    }
    pos
}

/// The unit at the start of `unit` (1 to 4 bytes, starting with a lead): its length, and
/// whether it is a well-formed character (else it is a maximal subpart).
#[inline]
fn first_unit(unit: &[u8]) -> (usize, bool) {
    let mut state = dfa::ACCEPT;
    for (i, &byte) in unit.iter().enumerate() {
        state = dfa::step(state, byte);
        match state & 63 {
            dfa::ACCEPT => return (i + 1, true),
            dfa::REJECT => return (i.max(1), false),
            _ => {}
        }
    }
    (unit.len(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples_from_the_design() {
        let cases: [(&[u8], &[u32]); 5] = [
            (
                b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
                &[
                    0x61, 0xFFFD, 0xFFFD, 0xFFFD, 0x62, 0xFFFD, 0x63, 0xFFFD, 0xFFFD, 0x64,
                ],
            ),
            (
                b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41",
                &[
                    0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x41,
                ],
            ),
            (
                b"\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41",
                &[
                    0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x41,
                ],
            ),
            (
                b"\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42",
                &[
                    0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x41, 0xFFFD, 0xFFFD, 0x42,
                ],
            ),
            (
                b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41",
                &[0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x41],
            ),
        ];
        for backend in Backend::available() {
            for (input, expected) in cases {
                let lossy = decode_lossy_with(backend, input).unwrap();
                let scalars: Vec<u32> = lossy.chars().map(u32::from).collect();
                assert_eq!(scalars, expected, "{backend} {input:02X?}");
            }
        }
    }

    #[test]
    fn error_len_at_end_of_input() {
        for backend in Backend::available() {
            let check = |bytes: &[u8], expected: Option<usize>| {
                let error = validate_with(backend, bytes).unwrap().unwrap_err();
                assert_eq!((error.valid_up_to(), error.error_len()), (1, expected));
            };
            check(b"a\xE4\xBD", None);
            check(b"a\xE0\x80", Some(1));
            check(b"a\xED\xA0", Some(1));
        }
    }

    #[test]
    fn best_is_available_and_cached() {
        let best = Backend::best();
        assert!(best.is_available());
        assert_eq!(Backend::best(), best);
        assert_eq!(Backend::from_name(best.name()), Some(best));
    }
}
