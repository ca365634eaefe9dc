//! `utf8conf::fast`: the harness's own optimised UTF-8 decoder.
//!
//! It has to be a decoder people would pick for speed and, at the same time, agree
//! exactly with the reference semantics (docs/DESIGN.md §2): std's `valid_up_to` /
//! `error_len`, and one U+FFFD per maximal subpart (Unicode D93b, §3.9). The design
//! keeps those two goals apart:
//!
//! * [`dfa`] is the scalar core: a shift-based DFA generated from the RFC 3629 grammar.
//!   It is the only code that decides *where* an error is and how long its unit is.
//! * [`simd`] holds the SIMD algorithms, written once over a small vector trait and
//!   instantiated per instruction set (SSE4.2, AVX2, AVX-512 on x86-64; NEON on
//!   aarch64). They only decide *whether* a 64-byte block is well-formed, and convert
//!   blocks already known to be well-formed; on any doubt they hand over to the DFA.
//! * `lossy` drives lossy decoding: SIMD validation over long well-formed runs, and a
//!   16-bytes-at-a-time expansion (or its scalar equivalent) where errors are dense.
//! * [`stream`] is the chunk-by-chunk decoder, built on the one-shot functions.
//! * `utf16` and `utf16_lossy` convert to UTF-16 ([`decode_utf16`], std-shaped errors;
//!   [`decode_utf16_lossy`], one U+FFFD per maximal subpart), with a backend's
//!   validator and its conversion of well-formed chunks to code units
//!   ([`simd::utf16`]); [`utf16_stream`] is their chunk-by-chunk form.
//!
//! * `encode` is the other direction, UTF-16 (strict, [`encode_utf16`], or lossy,
//!   [`encode_utf16_lossy`]) and UTF-32 ([`encode_utf32`]) to UTF-8, with the reference
//!   encoder's errors; its SIMD algorithm is in [`simd`] too.
//!
//! Every backend is a value of [`Backend`], callable on its own through
//! [`validate_with`], [`decode_utf32_with`], [`decode_lossy_with`] (or
//! [`decode_lossy_into_with`], into a caller's buffer), [`decode_utf16_with`] and
//! [`decode_utf16_lossy_with`], [`encode_utf16_with`], [`encode_utf16_lossy_with`] and
//! [`encode_utf32_with`], so that tests and
//! the differential engine exercise each of them, not only the one the dispatcher picks.
//! The plain functions ([`validate`], [`decode_utf32`], [`decode_lossy`]) use
//! [`Backend::best`], detected once and cached.

#![deny(unsafe_op_in_unsafe_fn)]

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::reference::encode::EncodeError;

pub use encode::{
    encode_utf16, encode_utf16_into, encode_utf16_lossy, encode_utf16_lossy_into,
    encode_utf16_lossy_with, encode_utf16_with, encode_utf32, encode_utf32_into, encode_utf32_with,
};

pub mod dfa;
mod encode;
mod lossy;
pub mod simd;
pub mod stream;
mod utf16;
mod utf16_lossy;
pub mod utf16_stream;

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
        debug_assert!(error_len.is_none_or(|len| (1..=3).contains(&len)));
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
    /// x86-64 AVX512F + AVX512BW: 64-byte vectors for validation; UTF-32 conversion by
    /// the VBMI2 kernel where the CPU has AVX512VBMI/VBMI2, else the AVX2 code.
    Avx512,
    /// aarch64 NEON: 16-byte vectors.
    Neon,
}

/// The entry points of one backend.
#[derive(Clone, Copy)]
struct Functions {
    validate: unsafe fn(&[u8]) -> Result<(), Utf8Error>,
    decode_utf32: unsafe fn(&[u8], &mut Vec<u32>) -> Result<(), Utf8Error>,
    decode_lossy: for<'a> unsafe fn(&'a [u8]) -> Cow<'a, str>,
    decode_lossy_into: unsafe fn(&[u8], &mut String),
    decode_utf16: unsafe fn(&[u8], &mut Vec<u16>) -> Result<(), Utf8Error>,
    decode_utf16_lossy: unsafe fn(&[u8], &mut Vec<u16>),
    encode_utf16: unsafe fn(&[u16], &mut Vec<u8>) -> Result<(), EncodeError>,
    encode_utf16_lossy: unsafe fn(&[u16], &mut Vec<u8>),
    encode_utf32: unsafe fn(&[u32], &mut Vec<u8>) -> Result<(), EncodeError>,
}

const SCALAR_FUNCTIONS: Functions = Functions {
    validate: dfa::validate,
    decode_utf32: dfa::decode_utf32,
    decode_lossy: lossy::decode_lossy_scalar,
    decode_lossy_into: lossy::decode_lossy_into_scalar,
    decode_utf16: utf16::decode_utf16_scalar,
    decode_utf16_lossy: utf16_lossy::decode_utf16_lossy_scalar,
    encode_utf16: encode::encode_utf16_scalar,
    encode_utf16_lossy: encode::encode_utf16_lossy_scalar,
    encode_utf32: encode::encode_utf32_scalar,
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
    /// exist on this CPU (runtime detection, done once for every backend and cached: it
    /// is asked on every call of the `*_with` functions).
    #[inline]
    pub fn is_available(self) -> bool {
        // Bit `backend as u8` set when that backend is available; `DETECTED` once done.
        const DETECTED: u8 = 0x80;
        static AVAILABLE: AtomicU8 = AtomicU8::new(0);
        let mut bits = AVAILABLE.load(Ordering::Relaxed);
        if bits & DETECTED == 0 {
            bits = Backend::all()
                .iter()
                .filter(|backend| backend.detect())
                .fold(DETECTED, |bits, &backend| bits | 1 << backend as u8);
            AVAILABLE.store(bits, Ordering::Relaxed);
        }
        bits & 1 << self as u8 != 0
    }

    /// [`Backend::is_available`], detected now (std caches each feature test).
    fn detect(self) -> bool {
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
    #[inline]
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
                decode_lossy: simd::sse42::decode_lossy,
                decode_lossy_into: simd::sse42::decode_lossy_into,
                decode_utf16: simd::sse42::decode_utf16,
                decode_utf16_lossy: simd::sse42::decode_utf16_lossy,
                encode_utf16: simd::sse42::encode_utf16,
                encode_utf16_lossy: simd::sse42::encode_utf16_lossy,
                encode_utf32: simd::sse42::encode_utf32,
            },
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => Functions {
                validate: simd::avx2::validate,
                decode_utf32: simd::avx2::decode_utf32,
                decode_lossy: simd::avx2::decode_lossy,
                decode_lossy_into: simd::avx2::decode_lossy_into,
                decode_utf16: simd::avx2::decode_utf16,
                decode_utf16_lossy: simd::avx2::decode_utf16_lossy,
                encode_utf16: simd::avx2::encode_utf16,
                encode_utf16_lossy: simd::avx2::encode_utf16_lossy,
                encode_utf32: simd::avx2::encode_utf32,
            },
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => Functions {
                validate: simd::avx512::validate,
                decode_utf32: simd::avx512::decode_utf32,
                decode_lossy: simd::avx512::decode_lossy,
                decode_lossy_into: simd::avx512::decode_lossy_into,
                decode_utf16: simd::avx512::decode_utf16,
                decode_utf16_lossy: simd::avx512::decode_utf16_lossy,
                encode_utf16: simd::avx512::encode_utf16,
                encode_utf16_lossy: simd::avx512::encode_utf16_lossy,
                encode_utf32: simd::avx512::encode_utf32,
            },
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => Functions {
                validate: simd::neon::validate,
                decode_utf32: simd::neon::decode_utf32,
                decode_lossy: simd::neon::decode_lossy,
                decode_lossy_into: simd::neon::decode_lossy_into,
                decode_utf16: simd::neon::decode_utf16,
                decode_utf16_lossy: simd::neon::decode_utf16_lossy,
                encode_utf16: simd::neon::encode_utf16,
                encode_utf16_lossy: simd::neon::encode_utf16_lossy,
                encode_utf32: simd::neon::encode_utf32,
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
#[inline]
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
#[inline]
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
    let functions = best_functions();
    // SAFETY: `functions()` only returns the entry points of an available backend.
    unsafe { (functions.decode_lossy)(bytes) }
}

/// [`decode_lossy`] with a given backend; `None` if it is not available here.
pub fn decode_lossy_with(backend: Backend, bytes: &[u8]) -> Option<Cow<'_, str>> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    Some(unsafe { (functions.decode_lossy)(bytes) })
}

/// [`decode_lossy`] appended to `out`: the same text, without an allocation when `out`
/// has room (a buffer reused from call to call, cleared by the caller).
#[inline]
pub fn decode_lossy_into(bytes: &[u8], out: &mut String) {
    let functions = best_functions();
    // SAFETY: `functions()` only returns the entry points of an available backend.
    unsafe { (functions.decode_lossy_into)(bytes, out) }
}

/// [`decode_lossy_into`] with a given backend; `None` (and `out` untouched) if it is not
/// available here.
#[inline]
pub fn decode_lossy_into_with(backend: Backend, bytes: &[u8], out: &mut String) -> Option<()> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    unsafe { (functions.decode_lossy_into)(bytes, out) };
    Some(())
}

/// Appends the UTF-16 code units of `bytes` to `out` (as `str::encode_utf16` would
/// give them). On error, appends those of the well-formed prefix
/// (`bytes[..error.valid_up_to()]`) and returns the error, equal to std's.
#[inline]
pub fn decode_utf16(bytes: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
    let functions = best_functions();
    // SAFETY: `functions()` only returns the entry points of an available backend.
    unsafe { (functions.decode_utf16)(bytes, out) }
}

/// [`decode_utf16`] with a given backend; `None` if it is not available here.
#[inline]
pub fn decode_utf16_with(
    backend: Backend,
    bytes: &[u8],
    out: &mut Vec<u16>,
) -> Option<Result<(), Utf8Error>> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    Some(unsafe { (functions.decode_utf16)(bytes, out) })
}

/// Appends the lossy UTF-16 decoding of `bytes` to `out`: one U+FFFD per maximal
/// subpart of an ill-formed sequence, the WHATWG Encoding Standard's UTF-8 decoder
/// written as UTF-16 (equal to `String::from_utf8_lossy(bytes).encode_utf16()`).
#[inline]
pub fn decode_utf16_lossy(bytes: &[u8], out: &mut Vec<u16>) {
    let functions = best_functions();
    // SAFETY: `functions()` only returns the entry points of an available backend.
    unsafe { (functions.decode_utf16_lossy)(bytes, out) }
}

/// [`decode_utf16_lossy`] with a given backend; `None` (and `out` untouched) if it is
/// not available here.
#[inline]
pub fn decode_utf16_lossy_with(backend: Backend, bytes: &[u8], out: &mut Vec<u16>) -> Option<()> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    unsafe { (functions.decode_utf16_lossy)(bytes, out) };
    Some(())
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
