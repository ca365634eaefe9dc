//! Deliberately wrong decoders ("mutants") that test the harness itself.
//!
//! A differential harness is only trustworthy if it catches decoders that are wrong in a
//! known way. Each mutant here is a correct decoder with exactly one planted flaw, so a run
//! against it must produce exactly the findings that flaw implies and nothing else. They are
//! not part of the default run ([`super::builtin`]) but can be named anywhere a decoder
//! is named (`utf8conf run --decoders mutant-cesu8`, `utf8conf decode --decoder ...`), which
//! also lets `utf8conf reproduce` re-run a report about one.
//!
//! - `mutant-cesu8` accepts CESU-8: a high surrogate `ED A0..AF 80..BF` directly followed by
//!   a low one `ED B0..BF 80..BF` decodes to the supplementary scalar the UTF-16 pair
//!   stands for. RFC 3629 §3: "The definition of UTF-8 prohibits encoding character
//!   numbers between U+D800 and U+DFFF".
//! - `mutant-panic` is Rust std (`from_utf8` + `from_utf8_lossy`) except that it panics on
//!   any input containing the byte FF, to test that a crash is contained and reported.

use super::{reset_outcome, reuse_scalars, Capabilities, Decoder};
use crate::outcome::{DecoderFailure, ErrorLen, Outcome, REPLACEMENT};

/// The mutants, for [`super::by_name`].
pub fn all() -> Vec<Box<dyn Decoder>> {
    vec![Box::new(Cesu8Mutant), Box::new(PanicMutant)]
}

/// The version string of the mutants: they are part of this crate.
fn own_version() -> String {
    format!("utf8conf {}", env!("CARGO_PKG_VERSION"))
}

/// Decodes a CESU-8 pair at the start of `bytes` to its supplementary scalar.
///
/// UTF-16 (Unicode §3.9 D91): a high surrogate D800..DBFF followed by a low surrogate
/// DC00..DFFF stands for `0x10000 + (high - 0xD800) * 0x400 + (low - 0xDC00)`.
fn cesu8_pair(bytes: &[u8]) -> Option<u32> {
    let half = |at: usize, second: std::ops::RangeInclusive<u8>| -> Option<u32> {
        let b = bytes.get(at..at + 3)?;
        (b[0] == 0xED && second.contains(&b[1]) && b[2] & 0xC0 == 0x80)
            .then(|| 0xD000 | (u32::from(b[1]) & 0x3F) << 6 | (u32::from(b[2]) & 0x3F))
    };
    let high = half(0, 0xA0..=0xAF)?;
    let low = half(3, 0xB0..=0xBF)?;
    Some(0x10000 + (high - 0xD800) * 0x400 + (low - 0xDC00))
}

/// A decoder that also accepts CESU-8 surrogate pairs (see the module header).
pub struct Cesu8Mutant;

impl Decoder for Cesu8Mutant {
    fn name(&self) -> &str {
        "mutant-cesu8"
    }

    fn version(&self) -> String {
        own_version()
    }

    fn description(&self) -> &str {
        "harness self-test: correct UTF-8 except that CESU-8 surrogate pairs decode as one scalar"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR_AND_SCALARS
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        outcome.errors = None;
        let mut scalars = reuse_scalars(outcome);
        let mut offset = 0;
        while offset < input.len() {
            if let Some(scalar) = cesu8_pair(&input[offset..]) {
                scalars.push(scalar);
                offset += 6;
                continue;
            }
            let (decoded, len) = bstr::decode_utf8(&input[offset..]);
            match decoded {
                Some(c) => scalars.push(u32::from(c)),
                None => {
                    scalars.push(REPLACEMENT);
                    if outcome.valid {
                        let first = std::str::from_utf8(&input[offset..])
                            .expect_err("bstr found an invalid sequence here");
                        outcome.set_first_error(offset, ErrorLen::from_std(first.error_len()));
                    }
                }
            }
            offset += len.max(1);
        }
        outcome.scalars = Some(scalars);
        Ok(())
    }
}

/// A decoder that panics on inputs containing FF (see the module header).
pub struct PanicMutant;

impl Decoder for PanicMutant {
    fn name(&self) -> &str {
        "mutant-panic"
    }

    fn version(&self) -> String {
        own_version()
    }

    fn description(&self) -> &str {
        "harness self-test: Rust std, except that it panics on any input containing the byte FF"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR_AND_SCALARS
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        if let Some(position) = input.iter().position(|&byte| byte == 0xFF) {
            panic!("mutant-panic: byte FF at offset {position}");
        }
        reset_outcome(outcome, self.name());
        outcome.errors = None;
        if let Err(error) = std::str::from_utf8(input) {
            outcome.set_first_error(error.valid_up_to(), ErrorLen::from_std(error.error_len()));
        }
        let mut scalars = reuse_scalars(outcome);
        scalars.extend(String::from_utf8_lossy(input).chars().map(u32::from));
        outcome.scalars = Some(scalars);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cesu8_mutant_accepts_pairs_and_nothing_else_new() {
        // U+1F600 as CESU-8: D83D DE00.
        let pair = [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80];
        let outcome = Cesu8Mutant.decode(&pair).unwrap();
        assert!(outcome.valid);
        assert_eq!(outcome.scalars, Some(vec![0x1F600]));
        // A lone surrogate is still rejected, like std.
        let lone = [0x61, 0xED, 0xA0, 0xBD, 0x62];
        let outcome = Cesu8Mutant.decode(&lone).unwrap();
        let std_outcome = crate::decoders::rust_std::StdDecoder.decode(&lone).unwrap();
        assert_eq!(outcome.valid_up_to, std_outcome.valid_up_to);
        assert_eq!(outcome.error_len, std_outcome.error_len);
        assert_eq!(outcome.scalars, std_outcome.scalars);
    }

    #[test]
    fn panic_mutant_panics_only_on_ff() {
        assert!(PanicMutant.decode(b"fine").unwrap().valid);
        assert!(std::panic::catch_unwind(|| PanicMutant.decode(&[0x41, 0xFF])).is_err());
    }
}
