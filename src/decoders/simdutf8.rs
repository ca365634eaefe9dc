//! simdutf8 as two decoders, the way the crate itself is split:
//!
//! - `simdutf8-basic`: `simdutf8::basic::from_utf8`, which only answers yes or no (its
//!   error type carries nothing), so it reports `valid` alone.
//! - `simdutf8-compat`: `simdutf8::compat::from_utf8`, which locates the error like std
//!   (`valid_up_to`, `error_len`).
//!
//! Both pick their SIMD implementation at run time (AVX2, SSE 4.2, NEON, or a scalar
//! fallback), so the result is that of whichever path this machine takes.

use super::{reset_outcome, Capabilities, Decoder};
use crate::outcome::{DecoderFailure, ErrorLen, Outcome};

/// The locked simdutf8 version, recorded by the build script.
pub const VERSION: &str = env!("UTF8CONF_VERSION_simdutf8");

/// `simdutf8::basic::from_utf8`: validity only.
pub struct Simdutf8Basic;

impl Decoder for Simdutf8Basic {
    fn name(&self) -> &str {
        "simdutf8-basic"
    }

    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn description(&self) -> &str {
        "simdutf8::basic::from_utf8 (valid only)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::VERDICT
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        outcome.scalars = None;
        outcome.errors = None;
        outcome.valid = simdutf8::basic::from_utf8(input).is_ok();
        Ok(())
    }
}

/// `simdutf8::compat::from_utf8`: validity and the first error in std's shape.
pub struct Simdutf8Compat;

impl Decoder for Simdutf8Compat {
    fn name(&self) -> &str {
        "simdutf8-compat"
    }

    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn description(&self) -> &str {
        "simdutf8::compat::from_utf8 (valid, valid_up_to, error_len)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        outcome.scalars = None;
        outcome.errors = None;
        if let Err(error) = simdutf8::compat::from_utf8(input) {
            outcome.set_first_error(error.valid_up_to(), ErrorLen::from_std(error.error_len()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_says_only_yes_or_no_and_compat_locates() {
        let input = [0x61, 0x62, 0xED, 0xA0, 0x80];
        let basic = Simdutf8Basic.decode(&input).unwrap();
        assert_eq!(basic, Outcome::verdict("simdutf8-basic", false));
        let compat = Simdutf8Compat.decode(&input).unwrap();
        assert_eq!(
            compat,
            Outcome::from_strict("simdutf8-compat", Some((2, ErrorLen::Invalid(1))))
        );
        assert!(Simdutf8Basic.decode(b"ok").unwrap().valid);
    }
}
