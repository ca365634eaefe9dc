//! The fast encoder of [`crate::fast`] as built-in encoders: one strict and one lossy
//! encoder per backend available on this machine, called through the backend's own
//! entry point (`fast::encode_*_with`), so that every backend is graded, not only the
//! one the dispatcher picks.
//!
//! - `fast-<backend>` (UTF-16 and UTF-32): refuses the first unpaired surrogate, or
//!   the first surrogate or value above U+10FFFF, at its index;
//! - `fast-<backend>-lossy` (UTF-16): U+FFFD for each unpaired surrogate.

use super::{CodeUnits, Encoded, Encoder, Form};
use crate::fast::{self, Backend};

/// The strict and lossy encoders of every available backend.
pub fn all() -> Vec<Box<dyn Encoder>> {
    Backend::available()
        .flat_map(|backend| {
            let strict: Box<dyn Encoder> = Box::new(FastEncoder::new(backend));
            let lossy: Box<dyn Encoder> = Box::new(FastEncoderLossy::new(backend));
            [strict, lossy]
        })
        .collect()
}

/// `fast::encode_utf16_with` and `fast::encode_utf32_with` of one backend.
pub struct FastEncoder {
    backend: Backend,
    name: String,
}

impl FastEncoder {
    /// The strict encoder of `backend` (`fast-<backend>`).
    pub fn new(backend: Backend) -> Self {
        FastEncoder {
            backend,
            name: format!("fast-{}", backend.name()),
        }
    }
}

impl Encoder for FastEncoder {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "utf8conf::fast::encode_utf16 / encode_utf32 on one SIMD backend; refuses the first unencodable element at its index"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16, Form::Utf32]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let mut out = String::new();
        let result = match input {
            CodeUnits::Utf16(units) => fast::encode_utf16_with(self.backend, units, &mut out),
            CodeUnits::Utf32(points) => fast::encode_utf32_with(self.backend, points, &mut out),
        };
        match result {
            Some(Ok(())) => Encoded::Bytes(out.into_bytes()),
            Some(Err(error)) => Encoded::Refused {
                position: Some(error.position),
            },
            None => unreachable!("only available backends are listed"),
        }
    }
}

/// `fast::encode_utf16_lossy_with` of one backend.
pub struct FastEncoderLossy {
    backend: Backend,
    name: String,
}

impl FastEncoderLossy {
    /// The lossy encoder of `backend` (`fast-<backend>-lossy`).
    pub fn new(backend: Backend) -> Self {
        FastEncoderLossy {
            backend,
            name: format!("fast-{}-lossy", backend.name()),
        }
    }
}

impl Encoder for FastEncoderLossy {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "utf8conf::fast::encode_utf16_lossy on one SIMD backend; U+FFFD for each unpaired surrogate"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf16(units) = input else {
            unreachable!("forms() is UTF-16 only")
        };
        let mut out = String::new();
        fast::encode_utf16_lossy_with(self.backend, units, &mut out)
            .expect("only available backends are listed");
        Encoded::Bytes(out.into_bytes())
    }
}
