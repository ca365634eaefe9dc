//! The fast decoder's UTF-16 output ([`crate::fast::decode_utf16`] and
//! [`crate::fast::decode_utf16_lossy`]) as decoders: `fast-utf16` (dispatched to the
//! best backend) and `fast-utf16-<backend>` for each backend available here.
//!
//! The engine compares scalar values, so the code units are read back as scalars: a
//! surrogate pair as its scalar, any other unit as its value (a lone surrogate, which
//! no correct output holds, stays a surrogate and differs from every reference scalar).
//! That reading is one-to-one, so equal scalars mean the code units equal the
//! reference's scalars re-encoded as UTF-16.
//!
//! `valid`, `valid_up_to` and `error_len` come from the strict conversion; the scalars
//! from the strict conversion's units when it succeeds, else from the lossy one. The
//! strict units of an ill-formed input must be the lossy units' prefix up to the first
//! U+FFFD; a decoder whose are not reports a failure.

use std::cell::RefCell;

use super::{reset_outcome, reuse_scalars, Capabilities, Decoder};
use crate::fast::{decode_utf16_lossy_with, decode_utf16_with, Backend};
use crate::outcome::{DecoderFailure, ErrorLen, FailureKind, Outcome};

thread_local! {
    /// The strict and lossy code units, reused from input to input.
    static UNITS: RefCell<(Vec<u16>, Vec<u16>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// The UTF-16 conversion of one backend of the fast decoder, or of the best one.
pub struct FastUtf16 {
    name: String,
    backend: Backend,
}

impl FastUtf16 {
    /// `fast-utf16`, over [`Backend::best`].
    pub fn dispatched() -> FastUtf16 {
        FastUtf16 {
            name: "fast-utf16".to_string(),
            backend: Backend::best(),
        }
    }

    /// `fast-utf16-<backend>`, if that backend is available here.
    pub fn with_backend(backend: Backend) -> Option<FastUtf16> {
        backend.is_available().then(|| FastUtf16 {
            name: format!("fast-utf16-{}", backend.name()),
            backend,
        })
    }

    fn failure(&self, message: String) -> DecoderFailure {
        DecoderFailure {
            kind: FailureKind::Crash,
            message: format!("{}: {message}", self.name),
        }
    }
}

impl Decoder for FastUtf16 {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        format!(
            "utf8conf {} ({}, UTF-16)",
            env!("CARGO_PKG_VERSION"),
            self.backend
        )
    }

    fn description(&self) -> &str {
        "utf8conf fast decoder to UTF-16: decode_utf16 (strict), decode_utf16_lossy (scalars read back from the code units)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR_AND_SCALARS
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, &self.name);
        outcome.errors = None;
        let mut scalars = reuse_scalars(outcome);
        UNITS.with(|units| {
            let (strict, lossy) = &mut *units.borrow_mut();
            strict.clear();
            let result = decode_utf16_with(self.backend, input, strict)
                .ok_or_else(|| self.failure("backend not available".to_string()))?;
            let units = match result {
                Ok(()) => &*strict,
                Err(error) => {
                    outcome.set_first_error(
                        error.valid_up_to(),
                        ErrorLen::from_std(error.error_len()),
                    );
                    lossy.clear();
                    decode_utf16_lossy_with(self.backend, input, lossy)
                        .ok_or_else(|| self.failure("backend not available".to_string()))?;
                    if lossy.get(..strict.len()) != Some(&strict[..]) {
                        return Err(self.failure(
                            "the strict units are not a prefix of the lossy units".to_string(),
                        ));
                    }
                    &*lossy
                }
            };
            push_units_as_scalars(units, &mut scalars);
            Ok(())
        })?;
        outcome.scalars = Some(scalars);
        Ok(())
    }
}

/// Appends the scalars of UTF-16 `units`: a high surrogate followed by a low one as one
/// scalar (D91, Table 3-5), every other unit as its value.
fn push_units_as_scalars(units: &[u16], scalars: &mut Vec<u32>) {
    let mut i = 0;
    while i < units.len() {
        let unit = u32::from(units[i]);
        let next = units.get(i + 1).map_or(0, |&u| u32::from(u));
        if (0xD800..0xDC00).contains(&unit) && (0xDC00..0xE000).contains(&next) {
            scalars.push(0x1_0000 + ((unit - 0xD800) << 10) + (next - 0xDC00));
            i += 2;
        } else {
            scalars.push(unit);
            i += 1;
        }
    }
}

/// `fast-utf16` and `fast-utf16-<backend>` for every backend available here.
pub fn all() -> Vec<Box<dyn Decoder>> {
    let mut decoders: Vec<Box<dyn Decoder>> = vec![Box::new(FastUtf16::dispatched())];
    for &backend in Backend::all() {
        if let Some(decoder) = FastUtf16::with_backend(backend) {
            decoders.push(Box::new(decoder));
        }
    }
    decoders
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_read_back_as_the_reference_scalars() {
        let reference = crate::reference::Reference::rfc3629();
        let input = b"a\xF0\x9F\x98\x80\xED\xA0\x80\xC3\xA9\xE4\xBD";
        let expected = reference.decode(input);
        for decoder in all() {
            let outcome = decoder.decode(input).unwrap();
            assert_eq!(
                outcome.scalars.as_ref(),
                Some(&expected.scalars),
                "{}",
                decoder.name()
            );
            let first_error = expected.first_error();
            assert_eq!(
                outcome.valid_up_to,
                first_error.map(|e| e.0),
                "{}",
                decoder.name()
            );
            assert_eq!(
                outcome.error_len,
                first_error.map(|e| e.1),
                "{}",
                decoder.name()
            );
        }
    }

    #[test]
    fn a_lone_surrogate_stays_a_surrogate() {
        let mut scalars = Vec::new();
        push_units_as_scalars(&[0xD83D, 0x41, 0xDE00, 0xD83D, 0xDE00], &mut scalars);
        assert_eq!(scalars, [0xD83D, 0x41, 0xDE00, 0x1F600]);
    }
}
