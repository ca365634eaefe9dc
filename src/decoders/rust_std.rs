//! Rust's standard library as decoders: all three APIs in one, and one API per decoder.
//!
//! - `std` ([`StdDecoder`]): `str::from_utf8` for the strict verdict, and one
//!   `<[u8]>::utf8_chunks` pass for the error units and the scalars (each chunk's valid
//!   text, then one U+FFFD if it has invalid bytes: how `String::from_utf8_lossy` is
//!   documented and written), in one outcome: convenient for `utf8conf decode`, but it hides *which* API a
//!   departure is about.
//!
//! So the engine also runs them separately, and each reports only what its API itself
//! answers (a field an API does not produce is absent, never derived by us):
//!
//! - `std-from_utf8`: `valid`, `valid_up_to`, `error_len` from [`std::str::Utf8Error`].
//! - `std-lossy`: `scalars` from the lossy string, and `valid` from whether the result is
//!   borrowed (the API returns `Cow::Borrowed` exactly when the input was valid).
//! - `std-utf8chunks`: every error unit (`Utf8Chunk::invalid`), and `valid`/`valid_up_to`
//!   from the first chunk with invalid bytes. `Utf8Chunks` does not say whether the last
//!   invalid sequence could still be completed, so `error_len` is not reported.

use std::borrow::Cow;

use super::{push_scalars, reset_outcome, reuse_errors, reuse_scalars, Capabilities, Decoder};
use crate::outcome::{DecoderFailure, ErrorLen, ErrorUnit, Outcome, REPLACEMENT};

/// The rustc version that built std, recorded by the build script.
pub const RUSTC_VERSION: &str = env!("UTF8CONF_RUSTC_VERSION");

/// The version of every std decoder: the rustc that built it.
fn rustc_version() -> String {
    format!("rustc {RUSTC_VERSION}")
}

/// Rust std: `from_utf8` + `from_utf8_lossy` + `Utf8Chunks`.
pub struct StdDecoder;

impl Decoder for StdDecoder {
    fn name(&self) -> &str {
        "std"
    }

    fn version(&self) -> String {
        rustc_version()
    }

    fn description(&self) -> &str {
        "Rust std: str::from_utf8 (strict), Utf8Chunks (error units, and scalars as String::from_utf8_lossy makes them)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        let mut scalars = reuse_scalars(outcome);
        let mut errors = reuse_errors(outcome);
        if let Err(error) = std::str::from_utf8(input) {
            outcome.set_first_error(error.valid_up_to(), ErrorLen::from_std(error.error_len()));
        }
        // One `Utf8Chunks` pass gives both the error units and the lossy scalars:
        // `String::from_utf8_lossy` is documented as that same loop, each chunk's valid
        // text followed by one U+FFFD when the chunk has invalid bytes (its own API is
        // still run on its own, by `std-lossy`).
        let mut offset = 0;
        for chunk in input.utf8_chunks() {
            push_scalars(&mut scalars, chunk.valid());
            offset += chunk.valid().len();
            let len = chunk.invalid().len();
            if len > 0 {
                scalars.push(REPLACEMENT);
                errors.push(ErrorUnit {
                    offset,
                    len,
                    category: None,
                });
            }
            offset += len;
        }
        outcome.scalars = Some(scalars);
        outcome.errors = Some(errors);
        Ok(())
    }
}

/// `std::str::from_utf8`: the strict verdict and the first error in std's shape.
pub struct StdFromUtf8;

impl Decoder for StdFromUtf8 {
    fn name(&self) -> &str {
        "std-from_utf8"
    }

    fn version(&self) -> String {
        rustc_version()
    }

    fn description(&self) -> &str {
        "Rust std str::from_utf8 (valid, valid_up_to, error_len)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        outcome.scalars = None;
        outcome.errors = None;
        if let Err(error) = std::str::from_utf8(input) {
            outcome.set_first_error(error.valid_up_to(), ErrorLen::from_std(error.error_len()));
        }
        Ok(())
    }
}

/// `String::from_utf8_lossy`: the lossy decode.
pub struct StdLossy;

impl Decoder for StdLossy {
    fn name(&self) -> &str {
        "std-lossy"
    }

    fn version(&self) -> String {
        rustc_version()
    }

    fn description(&self) -> &str {
        "Rust std String::from_utf8_lossy (scalars; valid = result borrowed)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::SCALARS
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        outcome.errors = None;
        let mut scalars = reuse_scalars(outcome);
        let lossy = String::from_utf8_lossy(input);
        outcome.valid = matches!(lossy, Cow::Borrowed(_));
        push_scalars(&mut scalars, &lossy);
        outcome.scalars = Some(scalars);
        Ok(())
    }
}

/// `<[u8]>::utf8_chunks`: every error unit.
pub struct StdUtf8Chunks;

impl Decoder for StdUtf8Chunks {
    fn name(&self) -> &str {
        "std-utf8chunks"
    }

    fn version(&self) -> String {
        rustc_version()
    }

    fn description(&self) -> &str {
        "Rust std <[u8]>::utf8_chunks (error units; valid, valid_up_to from the first invalid chunk)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            valid_up_to: true,
            error_len: false,
            scalars: false,
            errors: true,
        }
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        outcome.scalars = None;
        let mut errors = reuse_errors(outcome);
        errors.extend(utf8_chunk_units(input));
        if let Some(first) = errors.first() {
            outcome.valid = false;
            outcome.valid_up_to = Some(first.offset);
        }
        outcome.errors = Some(errors);
        Ok(())
    }
}

/// The error units `<[u8]>::utf8_chunks` reports: each chunk's invalid bytes, at the offset
/// where they start.
pub fn utf8_chunk_units(input: &[u8]) -> impl Iterator<Item = ErrorUnit> + '_ {
    let mut offset = 0;
    input.utf8_chunks().filter_map(move |chunk| {
        offset += chunk.valid().len();
        let len = chunk.invalid().len();
        let start = offset;
        offset += len;
        (len > 0).then_some(ErrorUnit {
            offset: start,
            len,
            category: None,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_api_reports_only_its_own_fields() {
        let input = [0x61, 0xE4, 0xBD];
        let strict = StdFromUtf8.decode(&input).unwrap();
        assert_eq!(
            strict,
            Outcome::from_strict("std-from_utf8", Some((1, ErrorLen::Incomplete)))
        );
        let lossy = StdLossy.decode(&input).unwrap();
        assert!(!lossy.valid && lossy.valid_up_to.is_none());
        assert_eq!(lossy.scalars, Some(vec![0x61, 0xFFFD]));
        let chunks = StdUtf8Chunks.decode(&input).unwrap();
        assert_eq!(chunks.valid_up_to, Some(1));
        assert_eq!(chunks.error_len, None);
        assert_eq!(chunks.errors.unwrap().len(), 1);
    }

    #[test]
    fn std_scalars_are_those_of_from_utf8_lossy() {
        // Every input of up to 2 bytes, and longer ones mixing valid text and the error
        // kinds of Unicode 16.0 Table 3-8 (truncations, surrogates, overlongs).
        let mut inputs: Vec<Vec<u8>> = vec![vec![]];
        for a in 0..=255u8 {
            inputs.push(vec![a]);
            for b in 0..=255u8 {
                inputs.push(vec![a, b]);
            }
        }
        inputs.push(vec![0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62]);
        inputs.push(vec![
            0xED, 0xA0, 0x80, 0xE4, 0xBD, 0xA0, 0xC0, 0xAF, 0xF0, 0x9F,
        ]);
        for input in &inputs {
            let lossy: Vec<u32> = String::from_utf8_lossy(input)
                .chars()
                .map(u32::from)
                .collect();
            let outcome = StdDecoder.decode(input).unwrap();
            assert_eq!(outcome.scalars, Some(lossy), "input {input:02X?}");
        }
    }

    #[test]
    fn reused_outcomes_forget_the_previous_input() {
        let mut outcome = Outcome::verdict("x", false);
        for decoder in [
            &StdDecoder as &dyn Decoder,
            &StdFromUtf8,
            &StdLossy,
            &StdUtf8Chunks,
        ] {
            decoder.decode_into(&[0xFF, 0x80], &mut outcome).unwrap();
            decoder.decode_into(b"ok", &mut outcome).unwrap();
            assert_eq!(
                outcome,
                decoder.decode(b"ok").unwrap(),
                "{}",
                decoder.name()
            );
        }
    }
}
