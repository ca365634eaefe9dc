//! Calling a C encoder (`utf8conf_encode_utf16_fn` or `utf8conf_encode_utf32_fn` of
//! include/utf8conf.h) in the library worker, and checking its answer against the
//! header's rules before it goes to the harness.
//!
//! The answer travels on the decoders' wire record, as the harness reads it back
//! (`adapter::encoder`): `valid` is `ok`, `valid_up_to` the refused element
//! (`error_at`), and the scalars are the bytes written, one per value.

use std::ffi::{c_int, c_longlong};

use super::wire::RawAnswer;
use crate::encoders::Form;

/// `struct utf8conf_encode_answer` of `include/utf8conf.h`.
#[repr(C)]
pub(super) struct CEncodeAnswer {
    ok: c_int,
    error_at: c_longlong,
    bytes_len: c_longlong,
}

/// `utf8conf_encode_utf16_fn` of `include/utf8conf.h`.
type Utf16Fn = unsafe extern "C" fn(*const u16, usize, *mut u8, *mut CEncodeAnswer) -> c_int;
/// `utf8conf_encode_utf32_fn` of `include/utf8conf.h`.
type Utf32Fn = unsafe extern "C" fn(*const u32, usize, *mut u8, *mut CEncodeAnswer) -> c_int;

/// A library's encode function, of one of the two forms.
#[derive(Clone, Copy)]
pub(super) enum EncodeFn {
    Utf16(Utf16Fn),
    Utf32(Utf32Fn),
}

/// The room the output buffer has per code unit: "out has room for 3*len bytes for
/// UTF-16 (no unit needs more under any policy) and 6*len for UTF-32 (RFC 2279's longest
/// form, so that an encoder that writes one is seen doing it, not overflowing)".
fn room_per_unit(form: Form) -> usize {
    match form {
        Form::Utf16 => 3,
        Form::Utf32 => 6,
    }
}

impl EncodeFn {
    /// # Safety
    ///
    /// `address` is the non-null address of a function of the header's type for `form`.
    pub(super) unsafe fn from_symbol(address: *mut libc::c_void, form: Form) -> EncodeFn {
        // SAFETY: the caller's promise, for the type chosen by `form`.
        unsafe {
            match form {
                Form::Utf16 => {
                    EncodeFn::Utf16(std::mem::transmute::<*mut libc::c_void, Utf16Fn>(address))
                }
                Form::Utf32 => {
                    EncodeFn::Utf32(std::mem::transmute::<*mut libc::c_void, Utf32Fn>(address))
                }
            }
        }
    }

    /// Encodes the frame `input` (code units, little-endian) and checks the answer; the
    /// bytes written are left in `scalars`, one per value.
    pub(super) fn call(self, input: &[u8], scalars: &mut Vec<u32>) -> Result<RawAnswer, String> {
        let form = match self {
            EncodeFn::Utf16(_) => Form::Utf16,
            EncodeFn::Utf32(_) => Form::Utf32,
        };
        let len = input.len() / form.unit_bytes();
        let capacity = (len * room_per_unit(form)).max(1);
        let mut out = vec![0u8; capacity];
        let mut answer = CEncodeAnswer {
            ok: -1,
            error_at: -1,
            bytes_len: -1,
        };
        let status = match self {
            EncodeFn::Utf16(encode) => {
                let units: Vec<u16> = input
                    .chunks_exact(2)
                    .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
                    .collect();
                // SAFETY: `encode` has the header's type (the user's promise when naming
                // the symbol; a wrong one can only crash this worker). `units` holds
                // `len` values, `out` has room for `capacity` bytes as the header
                // promises, `answer` is one struct; none is kept after the call.
                unsafe { encode(units.as_ptr(), len, out.as_mut_ptr(), &mut answer) }
            }
            EncodeFn::Utf32(encode) => {
                let points: Vec<u32> = input
                    .chunks_exact(4)
                    .map(|quad| u32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]))
                    .collect();
                // SAFETY: as for UTF-16, with `points` holding `len` values.
                unsafe { encode(points.as_ptr(), len, out.as_mut_ptr(), &mut answer) }
            }
        };
        let raw = check(status, &answer, len, capacity)?;
        scalars.clear();
        let written = usize::try_from(raw.scalars_len).unwrap_or(0);
        scalars.extend(out[..written].iter().map(|&byte| u32::from(byte)));
        Ok(raw)
    }
}

/// The header's rules for an encode answer.
fn check(
    status: c_int,
    answer: &CEncodeAnswer,
    len: usize,
    capacity: usize,
) -> Result<RawAnswer, String> {
    if status != 0 {
        return Err(format!("the function returned {status} (failure)"));
    }
    let ok = match answer.ok {
        0 => false,
        1 => true,
        other => return Err(format!("ok is {other}, not 0 or 1")),
    };
    let len = len as i64;
    if !ok && answer.error_at != -1 && !(0..len).contains(&answer.error_at) {
        return Err(format!(
            "error_at is {} for an input of {len} code units",
            answer.error_at
        ));
    }
    let bytes_len = match answer.bytes_len {
        -1 if !ok => 0,
        n if (0..=capacity as i64).contains(&n) => n,
        n => {
            return Err(format!(
                "bytes_len is {n} but the buffer holds {capacity} bytes"
            ))
        }
    };
    Ok(RawAnswer {
        valid: ok,
        valid_up_to: if ok { -1 } else { answer.error_at },
        error_len: -1,
        scalars_len: bytes_len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(ok: c_int, error_at: c_longlong, bytes_len: c_longlong) -> CEncodeAnswer {
        CEncodeAnswer {
            ok,
            error_at,
            bytes_len,
        }
    }

    #[test]
    fn answers_are_held_to_the_header() {
        let good = check(0, &answer(1, -1, 3), 1, 3).unwrap();
        assert!(good.valid && good.scalars_len == 3);
        let refused = check(0, &answer(0, 2, -1), 3, 9).unwrap();
        assert_eq!((refused.valid, refused.valid_up_to), (false, 2));
        assert_eq!(refused.scalars_len, 0);
        for (status, bad) in [
            (1, answer(1, -1, 0)),
            (0, answer(2, -1, 0)),
            (0, answer(0, 3, 0)),
            (0, answer(0, -2, 0)),
            (0, answer(1, -1, 10)),
            (0, answer(1, -1, -1)),
        ] {
            assert!(check(status, &bad, 3, 9).is_err());
        }
    }
}
