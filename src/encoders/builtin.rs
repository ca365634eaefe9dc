//! The built-in encoders: the reference, the UTF-8 encoders of the Rust libraries the
//! harness already links, and the harness's own fast encoder on every available backend
//! ([`super::fast`]). Each uses its library's own API, as a user would.

use super::{CodeUnits, Encoded, Encoder, Form};
use crate::reference::Reference;

/// Every built-in encoder.
pub fn all() -> Vec<Box<dyn Encoder>> {
    let mut all: Vec<Box<dyn Encoder>> = vec![
        Box::new(ReferenceEncoder),
        Box::new(StdCharEncodeUtf8),
        Box::new(StdFromUtf16),
        Box::new(StdFromUtf16Lossy),
        Box::new(EncodingRsUtf16),
    ];
    all.extend(super::fast::all());
    all
}

/// The reference encoder ([`Reference::encode_utf16`], [`Reference::encode_utf32`]).
pub struct ReferenceEncoder;

impl Encoder for ReferenceEncoder {
    fn name(&self) -> &str {
        "reference"
    }
    fn description(&self) -> &str {
        "RFC 3629 §3 through the §4 grammar; refuses the first unencodable element"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16, Form::Utf32]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let reference = Reference::rfc3629();
        let result = match input {
            CodeUnits::Utf16(units) => reference.encode_utf16(units),
            CodeUnits::Utf32(points) => reference.encode_utf32(points),
        };
        match result {
            Ok(bytes) => Encoded::Bytes(bytes),
            Err(error) => Encoded::Refused {
                position: Some(error.position),
            },
        }
    }
}

/// `char::from_u32` then `char::encode_utf8`, one code point at a time.
pub struct StdCharEncodeUtf8;

impl Encoder for StdCharEncodeUtf8 {
    fn name(&self) -> &str {
        "std-char-encode_utf8"
    }
    fn description(&self) -> &str {
        "Rust std char::from_u32 + char::encode_utf8; refuses a non-scalar at its index"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf32]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf32(points) = input else {
            unreachable!("forms() is UTF-32 only")
        };
        let mut out = Vec::with_capacity(points.len());
        let mut buffer = [0; 4];
        for (position, &point) in points.iter().enumerate() {
            let Some(c) = char::from_u32(point) else {
                return Encoded::Refused {
                    position: Some(position),
                };
            };
            out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
        }
        Encoded::Bytes(out)
    }
}

/// `String::from_utf16`: strict, and its error carries no position.
pub struct StdFromUtf16;

impl Encoder for StdFromUtf16 {
    fn name(&self) -> &str {
        "std-from_utf16"
    }
    fn description(&self) -> &str {
        "Rust std String::from_utf16; refuses ill-formed UTF-16 without a position"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf16(units) = input else {
            unreachable!("forms() is UTF-16 only")
        };
        match String::from_utf16(units) {
            Ok(text) => Encoded::Bytes(text.into_bytes()),
            Err(_) => Encoded::Refused { position: None },
        }
    }
}

/// `String::from_utf16_lossy`: one U+FFFD per unpaired surrogate.
pub struct StdFromUtf16Lossy;

impl Encoder for StdFromUtf16Lossy {
    fn name(&self) -> &str {
        "std-from_utf16_lossy"
    }
    fn description(&self) -> &str {
        "Rust std String::from_utf16_lossy; U+FFFD for each unpaired surrogate"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf16(units) = input else {
            unreachable!("forms() is UTF-16 only")
        };
        Encoded::Bytes(String::from_utf16_lossy(units).into_bytes())
    }
}

/// `encoding_rs::mem::convert_utf16_to_utf8`: U+FFFD for each unpaired surrogate (the
/// WHATWG encoder's behaviour on a JavaScript string).
pub struct EncodingRsUtf16;

impl Encoder for EncodingRsUtf16 {
    fn name(&self) -> &str {
        "encoding_rs-utf16"
    }
    fn description(&self) -> &str {
        "encoding_rs::mem::convert_utf16_to_utf8; U+FFFD for each unpaired surrogate"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf16(units) = input else {
            unreachable!("forms() is UTF-16 only")
        };
        // The function needs room for three bytes per code unit (its documented bound).
        let mut out = vec![0; units.len() * 3];
        let written = encoding_rs::mem::convert_utf16_to_utf8(units, &mut out);
        out.truncate(written);
        Encoded::Bytes(out)
    }
}
