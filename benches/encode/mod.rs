//! The encoder groups of `ratios`: UTF-16 (strict and lossy) and UTF-32 to UTF-8, ours
//! against simdutf and std, interleaved by [`super::compare`].
//!
//! Inputs are the well-formed texts of `common::inputs` converted to UTF-16 or UTF-32
//! (the size in a row's name is that of the UTF-8 text), and for the lossy group also
//! `mixed` with 1% of its code units replaced by lone surrogates. Throughput is in bytes
//! of *input* (UTF-16 or UTF-32) per second. `fast-into` appends to a `String` reused
//! from call to call, as simdutf writes into a buffer the caller sized once; `fast`
//! returns a fresh `String`, as std does.

use std::borrow::Cow;

use utf8conf::fast::{self, Backend};

use super::common::{simdutf_name, Rng};
use super::{compare, selected, Engine};

/// `units` viewed as bytes, for `compare`'s throughput (the engines read `units`).
fn bytes_of<T>(elements: &[T]) -> &[u8] {
    // SAFETY: any initialised memory may be read as bytes; the length covers exactly
    // the elements.
    unsafe { std::slice::from_raw_parts(elements.as_ptr().cast(), std::mem::size_of_val(elements)) }
}

/// `text` as UTF-16 with `percent`% of its code units replaced by lone surrogates.
fn with_lone_surrogates(text: &str, percent: usize) -> Vec<u16> {
    let mut rng = Rng(0xD800 + percent as u64);
    let mut units: Vec<u16> = text.encode_utf16().collect();
    for unit in units.iter_mut() {
        if rng.below(100) < percent {
            // High or low, alone: its neighbours are not surrogates of the other kind
            // except by chance, which the lossy encoders handle alike.
            *unit = 0xD800 + rng.below(0x800) as u16;
        }
    }
    units
}

/// simdutf's UTF-16LE to UTF-8 conversion into `out` (capacity 3 units per byte).
#[cfg(target_arch = "x86_64")]
fn simdutf_utf16(units: &[u16], out: &mut Vec<u8>, with_errors: bool) -> usize {
    out.reserve(3 * units.len());
    // SAFETY: `out` has room for 3 bytes per unit, the most UTF-8 a unit can take.
    unsafe {
        if with_errors {
            let result = simdutf::convert_utf16le_to_utf8_with_errors(
                units.as_ptr(),
                units.len(),
                out.as_mut_ptr(),
            );
            assert!(matches!(result.error, simdutf::ErrorCode::Success));
            result.count
        } else {
            simdutf::convert_utf16le_to_utf8(units.as_ptr(), units.len(), out.as_mut_ptr())
        }
    }
}

/// simdutf's UTF-32 to UTF-8 conversion into `out` (capacity 4 bytes per value).
#[cfg(target_arch = "x86_64")]
fn simdutf_utf32(points: &[u32], out: &mut Vec<u8>, with_errors: bool) -> usize {
    out.reserve(4 * points.len());
    // SAFETY: `out` has room for 4 bytes per value, the most UTF-8 a value can take.
    unsafe {
        if with_errors {
            let result = simdutf::convert_utf32_to_utf8_with_errors(
                points.as_ptr(),
                points.len(),
                out.as_mut_ptr(),
            );
            assert!(matches!(result.error, simdutf::ErrorCode::Success));
            result.count
        } else {
            simdutf::convert_utf32_to_utf8(points.as_ptr(), points.len(), out.as_mut_ptr())
        }
    }
}

/// The encoder groups for one UTF-8 `text` named `name`: `encode-utf16`,
/// `encode-utf16-lossy` and `encode-utf32`. With simdutf's kernel `forced` to haswell,
/// only ours on the AVX2 backend against simdutf.
pub fn compare_encoders(name: &str, text: &str, forced: bool) {
    let units: &[u16] = &text.encode_utf16().collect::<Vec<u16>>();
    let points: &[u32] = &text.chars().map(u32::from).collect::<Vec<u32>>();
    let (backend, ours) = if forced {
        (Backend::Avx2, "fast-avx2-into")
    } else {
        (Backend::best(), "fast-into")
    };
    let mut out = String::new();
    let mut other: Vec<u8> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    if selected("encode-utf16") && backend.is_available() {
        let mut engines: Vec<Engine<'_>> = vec![(
            ours.into(),
            Box::new(|_| {
                out.clear();
                fast::encode_utf16_with(backend, units, &mut out)
                    .unwrap()
                    .unwrap();
                out.len()
            }),
        )];
        for with_errors in [false, true] {
            let base = if with_errors {
                "simdutf-with-errors"
            } else {
                "simdutf"
            };
            let other = std::cell::RefCell::new(Vec::new());
            engines.push((
                simdutf_name(base),
                Box::new(move |_| simdutf_utf16(units, &mut other.borrow_mut(), with_errors)),
            ));
        }
        compare("encode-utf16", name, bytes_of(units), &mut engines);
    }
    #[cfg(target_arch = "x86_64")]
    if selected("encode-utf32") && backend.is_available() {
        let mut engines: Vec<Engine<'_>> = vec![(
            ours.into(),
            Box::new(|_| {
                out.clear();
                fast::encode_utf32_with(backend, points, &mut out)
                    .unwrap()
                    .unwrap();
                out.len()
            }),
        )];
        for with_errors in [false, true] {
            let base = if with_errors {
                "simdutf-with-errors"
            } else {
                "simdutf"
            };
            let other = std::cell::RefCell::new(Vec::new());
            engines.push((
                simdutf_name(base),
                Box::new(move |_| simdutf_utf32(points, &mut other.borrow_mut(), with_errors)),
            ));
        }
        compare("encode-utf32", name, bytes_of(points), &mut engines);
    }
    if forced {
        return;
    }
    if selected("encode-utf16") {
        let mut engines: Vec<Engine<'_>> = vec![
            (
                "fast".into(),
                Box::new(|_| fast::encode_utf16(units).unwrap().len()),
            ),
            (
                "std-from_utf16".into(),
                Box::new(|_| String::from_utf16(units).unwrap().len()),
            ),
        ];
        compare("encode-utf16", name, bytes_of(units), &mut engines);
    }
    if selected("encode-utf32") {
        let mut engines: Vec<Engine<'_>> = vec![
            (
                "fast-into".into(),
                Box::new(|_| {
                    out.clear();
                    fast::encode_utf32_into(points, &mut out).unwrap();
                    out.len()
                }),
            ),
            (
                "std-encode_utf8-loop".into(),
                Box::new(|_| {
                    other.clear();
                    let mut buffer = [0; 4];
                    for &point in points {
                        let c = char::from_u32(point).unwrap();
                        other.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                    }
                    other.len()
                }),
            ),
        ];
        compare("encode-utf32", name, bytes_of(points), &mut engines);
    }
    if selected("encode-utf16-lossy") {
        let corrupt = with_lone_surrogates(text, 1);
        for (input, units) in [
            (Cow::from(name), units),
            (Cow::from(format!("{name}-1%-lone")), &corrupt[..]),
        ] {
            let mut engines: Vec<Engine<'_>> = vec![
                (
                    "fast".into(),
                    Box::new(|_| fast::encode_utf16_lossy(units).len()),
                ),
                (
                    "std-from_utf16_lossy".into(),
                    Box::new(|_| String::from_utf16_lossy(units).len()),
                ),
            ];
            compare("encode-utf16-lossy", &input, bytes_of(units), &mut engines);
        }
    }
}
