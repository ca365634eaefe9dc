//! The fast UTF-8 encoder: UTF-16 (strict or lossy) and UTF-32 to UTF-8, on every
//! backend, with the error of the reference encoder ([`EncodeError`]: the index of the
//! first element without an encoding, and why).
//!
//! RFC 3629 §3: "The definition of UTF-8 prohibits encoding character numbers between
//! U+D800 and U+DFFF"; Unicode §3.9 D91 makes a high surrogate followed by a low one a
//! single scalar value, and any other surrogate code unit ill-formed UTF-16. So:
//!
//! * [`encode_utf16`] refuses the first unpaired (lone or reversed) surrogate, as
//!   [`String::from_utf16`] does, and says where;
//! * [`encode_utf16_lossy`] writes U+FFFD for each, as [`String::from_utf16_lossy`]
//!   does (the WHATWG encoder's handling of a JavaScript string);
//! * [`encode_utf32`] refuses the first surrogate or value above U+10FFFF, as
//!   [`char::from_u32`] does.
//!
//! The SIMD algorithm is `super::simd::encode` (and, on x86-64 CPUs with AVX-512 VBMI2,
//! the kernel of `super::simd::encode_avx512`); this file holds the public functions,
//! the output buffer they share, and the scalar encoder, which is the scalar backend and
//! the SIMD code's fallback for surrogates, values above U+FFFF and the last elements.
//! The `_into` forms append to a caller's `String` and never zero it: the bytes are
//! written into its spare capacity.

use super::Backend;
use crate::reference::encode::{utf16_scalar, EncodeError, Unencodable};

/// U+FFFD REPLACEMENT CHARACTER, in UTF-8.
const REPLACEMENT: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// Bytes of room kept after the worst-case output, for 16-byte stores that start near
/// its end (the kernel writes at most 28 bytes for 24 of output).
const SLACK: usize = 32;

/// The output of one call: `out`'s spare capacity, reserved for the worst case, written
/// through a cursor, and its length set once at the end.
pub(crate) struct Output<'a> {
    out: &'a mut Vec<u8>,
    written: usize,
}

impl<'a> Output<'a> {
    /// Reserves room for `elements * per_element` bytes and [`SLACK`] after `out`'s
    /// length. Every writer relies on it: at most `per_element` bytes for each input
    /// element consumed.
    #[inline(always)]
    pub(crate) fn new(out: &'a mut Vec<u8>, elements: usize, per_element: usize) -> Self {
        let room = elements
            .checked_mul(per_element)
            .and_then(|bytes| bytes.checked_add(SLACK))
            .expect("capacity overflow");
        out.reserve(room);
        Output { out, written: 0 }
    }

    /// Where the next byte goes.
    #[inline(always)]
    pub(crate) fn cursor(&mut self) -> *mut u8 {
        let len = self.out.len();
        // SAFETY: `len + written` is within the capacity reserved by `new` (every
        // writer stays within `per_element` bytes per element consumed).
        unsafe { self.out.as_mut_ptr().add(len + self.written) }
    }

    /// Counts `bytes` more as written.
    #[inline(always)]
    pub(crate) fn advance(&mut self, bytes: usize) {
        self.written += bytes;
    }

    /// Writes `bytes` at the cursor and advances.
    ///
    /// # Safety
    /// The room reserved for the elements not yet consumed covers `bytes.len()`.
    #[inline(always)]
    unsafe fn put(&mut self, bytes: &[u8]) {
        // SAFETY: room for `bytes.len()` at the cursor (caller's contract).
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.cursor(), bytes.len()) };
        self.written += bytes.len();
    }

    /// Writes the UTF-8 octets of the scalar value `scalar` (RFC 3629 §3) and advances.
    ///
    /// # Safety
    /// `scalar` is a Unicode scalar value and the room reserved for the elements not yet
    /// consumed covers its octets.
    #[inline(always)]
    unsafe fn put_scalar(&mut self, scalar: u32) {
        // SAFETY: one to four writes at the cursor, within the room (caller's contract).
        unsafe {
            let dst = self.cursor();
            let len = if scalar < 0x80 {
                *dst = scalar as u8;
                1
            } else if scalar < 0x800 {
                *dst = 0xC0 | (scalar >> 6) as u8;
                *dst.add(1) = 0x80 | (scalar & 0x3F) as u8;
                2
            } else if scalar < 0x1_0000 {
                *dst = 0xE0 | (scalar >> 12) as u8;
                *dst.add(1) = 0x80 | (scalar >> 6 & 0x3F) as u8;
                *dst.add(2) = 0x80 | (scalar & 0x3F) as u8;
                3
            } else {
                *dst = 0xF0 | (scalar >> 18) as u8;
                *dst.add(1) = 0x80 | (scalar >> 12 & 0x3F) as u8;
                *dst.add(2) = 0x80 | (scalar >> 6 & 0x3F) as u8;
                *dst.add(3) = 0x80 | (scalar & 0x3F) as u8;
                4
            };
            self.written += len;
        }
    }

    /// Sets `out`'s length over the bytes written, and returns `result`.
    #[inline(always)]
    pub(crate) fn finish(self, result: Result<(), EncodeError>) -> Result<(), EncodeError> {
        let len = self.out.len() + self.written;
        // SAFETY: the `written` bytes after the old length were initialised by the
        // writers, within the capacity reserved by `new`.
        unsafe { self.out.set_len(len) };
        result
    }

    /// [`Output::finish`] with an error.
    #[inline(always)]
    pub(crate) fn finish_err(self, error: EncodeError) -> Result<(), EncodeError> {
        self.finish(Err(error))
    }
}

/// Encodes `units[*pos..end]`, and the low surrogate after `end` when a pair starts at
/// `end - 1`; advances `*pos`. Strict: stops at the first unpaired surrogate, `*pos` on
/// it, and returns its error. Lossy: U+FFFD for each.
///
/// # Safety
/// `end <= units.len()`; `output` has room for 3 bytes per unit from `*pos` on.
#[inline(always)]
pub(crate) unsafe fn utf16_run<const LOSSY: bool>(
    units: &[u16],
    pos: &mut usize,
    end: usize,
    output: &mut Output<'_>,
) -> Result<(), EncodeError> {
    // SAFETY (every write): each unit consumed adds at most 3 bytes (a pair's 4 for its 2
    // units), within the room (caller's contract).
    unsafe {
        while *pos < end {
            let unit = units[*pos];
            if !(0xD800..0xE000).contains(&unit) {
                output.put_scalar(u32::from(unit));
                *pos += 1;
                continue;
            }
            // The common case first: a high surrogate and a low one, D91's pair.
            if let (0xD800..=0xDBFF, Some(&low @ 0xDC00..=0xDFFF)) = (unit, units.get(*pos + 1)) {
                let high_bits = u32::from(unit - 0xD800) << 10;
                output.put_scalar(0x1_0000 + high_bits + u32::from(low - 0xDC00));
                *pos += 2;
                continue;
            }
            match utf16_scalar(units, *pos) {
                Ok((scalar, taken)) => {
                    output.put_scalar(scalar);
                    *pos += taken;
                }
                Err(_) if LOSSY => {
                    output.put(&REPLACEMENT);
                    *pos += 1;
                }
                Err(kind) => {
                    return Err(EncodeError {
                        position: *pos,
                        kind,
                    })
                }
            }
        }
    }
    Ok(())
}

/// Why `value` (a surrogate or above U+10FFFF) has no encoding, in the reference's
/// terms (RFC 3629 §3 and its templates).
fn unencodable(value: u32) -> Unencodable {
    match value {
        0xD800..=0xDFFF => Unencodable::SurrogateCodePoint,
        0x11_0000..=0x1F_FFFF => Unencodable::AboveMax,
        _ => Unencodable::BeyondTemplates,
    }
}

/// Encodes `points[*pos..end]`, advancing `*pos`; stops at the first value that is not a
/// scalar value, `*pos` on it, and returns its error.
///
/// # Safety
/// `end <= points.len()`; `output` has room for 4 bytes per value from `*pos` on.
#[inline(always)]
pub(crate) unsafe fn utf32_run(
    points: &[u32],
    pos: &mut usize,
    end: usize,
    output: &mut Output<'_>,
) -> Result<(), EncodeError> {
    while *pos < end {
        let value = points[*pos];
        let Some(scalar) = char::from_u32(value) else {
            return Err(EncodeError {
                position: *pos,
                kind: unencodable(value),
            });
        };
        // SAFETY: at most 4 bytes for this value, within the room (caller's contract).
        unsafe { output.put_scalar(u32::from(scalar)) };
        *pos += 1;
    }
    Ok(())
}

/// The scalar backend's UTF-16 encoder.
///
/// # Safety
/// None: `unsafe fn` only to share the backends' function-pointer type.
pub(crate) unsafe fn encode_utf16_scalar(
    units: &[u16],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let mut output = Output::new(out, units.len(), 3);
    // SAFETY: `output` has room for 3 bytes per unit.
    let result = unsafe { utf16_run::<false>(units, &mut 0, units.len(), &mut output) };
    output.finish(result)
}

/// The scalar backend's lossy UTF-16 encoder.
///
/// # Safety
/// None: `unsafe fn` only to share the backends' function-pointer type.
pub(crate) unsafe fn encode_utf16_lossy_scalar(units: &[u16], out: &mut Vec<u8>) {
    let mut output = Output::new(out, units.len(), 3);
    // SAFETY: `output` has room for 3 bytes per unit.
    let result = unsafe { utf16_run::<true>(units, &mut 0, units.len(), &mut output) };
    debug_assert!(result.is_ok());
    let _ = output.finish(result);
}

/// The scalar backend's UTF-32 encoder.
///
/// # Safety
/// None: `unsafe fn` only to share the backends' function-pointer type.
pub(crate) unsafe fn encode_utf32_scalar(
    points: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let mut output = Output::new(out, points.len(), 4);
    // SAFETY: `output` has room for 4 bytes per value.
    let result = unsafe { utf32_run(points, &mut 0, points.len(), &mut output) };
    output.finish(result)
}

/// Runs `encode` on `out`'s bytes.
#[inline(always)]
fn appending<R>(out: &mut String, encode: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    // SAFETY: the encoders only append whole UTF-8 encodings of scalar values (or
    // U+FFFD), and on an error stop before the element refused: `out` stays UTF-8.
    encode(unsafe { out.as_mut_vec() })
}

/// Encodes UTF-16 `units` as UTF-8, refusing the first unpaired surrogate (a lone high
/// or low surrogate, or a low one before a high one) with its code-unit index. The text
/// equals [`String::from_utf16`]'s, which says only that there is an error.
#[inline]
pub fn encode_utf16(units: &[u16]) -> Result<String, EncodeError> {
    let mut out = String::new();
    encode_utf16_into(units, &mut out)?;
    Ok(out)
}

/// [`encode_utf16`] appended to `out` (a buffer reused from call to call, cleared by the
/// caller). On an error, the encoding of the units before it is appended.
#[inline]
pub fn encode_utf16_into(units: &[u16], out: &mut String) -> Result<(), EncodeError> {
    let functions = super::best_functions();
    // SAFETY: `best_functions()` only returns the entry points of an available backend.
    appending(out, |bytes| unsafe {
        (functions.encode_utf16)(units, bytes)
    })
}

/// [`encode_utf16_into`] with a given backend; `None` (and `out` untouched) if it is not
/// available here.
#[inline]
pub fn encode_utf16_with(
    backend: Backend,
    units: &[u16],
    out: &mut String,
) -> Option<Result<(), EncodeError>> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    Some(appending(out, |bytes| unsafe {
        (functions.encode_utf16)(units, bytes)
    }))
}

/// Encodes UTF-16 `units` as UTF-8 with U+FFFD for each unpaired surrogate: equal to
/// [`String::from_utf16_lossy`].
#[inline]
pub fn encode_utf16_lossy(units: &[u16]) -> String {
    let mut out = String::new();
    encode_utf16_lossy_into(units, &mut out);
    out
}

/// [`encode_utf16_lossy`] appended to `out`.
#[inline]
pub fn encode_utf16_lossy_into(units: &[u16], out: &mut String) {
    let functions = super::best_functions();
    // SAFETY: `best_functions()` only returns the entry points of an available backend.
    appending(out, |bytes| unsafe {
        (functions.encode_utf16_lossy)(units, bytes)
    })
}

/// [`encode_utf16_lossy_into`] with a given backend; `None` (and `out` untouched) if it
/// is not available here.
#[inline]
pub fn encode_utf16_lossy_with(backend: Backend, units: &[u16], out: &mut String) -> Option<()> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    appending(out, |bytes| unsafe {
        (functions.encode_utf16_lossy)(units, bytes)
    });
    Some(())
}

/// Encodes code points as UTF-8, refusing the first surrogate or value above U+10FFFF
/// with its index (the values [`char::from_u32`] refuses).
#[inline]
pub fn encode_utf32(points: &[u32]) -> Result<String, EncodeError> {
    let mut out = String::new();
    encode_utf32_into(points, &mut out)?;
    Ok(out)
}

/// [`encode_utf32`] appended to `out`. On an error, the encoding of the values before
/// it is appended.
#[inline]
pub fn encode_utf32_into(points: &[u32], out: &mut String) -> Result<(), EncodeError> {
    let functions = super::best_functions();
    // SAFETY: `best_functions()` only returns the entry points of an available backend.
    appending(out, |bytes| unsafe {
        (functions.encode_utf32)(points, bytes)
    })
}

/// [`encode_utf32_into`] with a given backend; `None` (and `out` untouched) if it is not
/// available here.
#[inline]
pub fn encode_utf32_with(
    backend: Backend,
    points: &[u32],
    out: &mut String,
) -> Option<Result<(), EncodeError>> {
    let functions = backend.functions()?;
    // SAFETY: `functions()` returned `Some`, so the backend is available.
    Some(appending(out, |bytes| unsafe {
        (functions.encode_utf32)(points, bytes)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_element_and_keep_the_prefix() {
        for backend in Backend::available() {
            let mut out = String::from(">");
            let units = [0x61, 0xD83D, 0xDE00, 0xDC00, 0xD800, 0x62];
            let error = encode_utf16_with(backend, &units, &mut out)
                .unwrap()
                .unwrap_err();
            assert_eq!((error.position, error.kind), (3, Unencodable::ReversedPair));
            assert_eq!(out, ">a\u{1F600}", "{backend}");
            let mut out = String::new();
            encode_utf16_lossy_with(backend, &units, &mut out).unwrap();
            assert_eq!(out, String::from_utf16_lossy(&units), "{backend}");
            let mut out = String::new();
            let points = [0xE9, 0x10FFFF, 0x110000];
            let error = encode_utf32_with(backend, &points, &mut out)
                .unwrap()
                .unwrap_err();
            assert_eq!((error.position, error.kind), (2, Unencodable::AboveMax));
            assert_eq!(out, "\u{E9}\u{10FFFF}", "{backend}");
        }
    }

    #[test]
    fn unencodable_agrees_with_the_reference() {
        let reference = crate::reference::Reference::rfc3629();
        for value in [0xD800, 0xDFFF, 0x11_0000, 0x1F_FFFF, 0x20_0000, u32::MAX] {
            assert_eq!(
                reference.encode_scalar(value).err(),
                Some(unencodable(value))
            );
        }
    }
}
