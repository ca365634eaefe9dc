//! A deliberately wrong decoder, for measuring the fuzz targets: it follows Unicode Table
//! 3-7 except that it accepts `F4 90..BF` as the start of a 4-byte sequence, so it decodes
//! code points U+110000..U+13FFFF, which RFC 3629 excludes:
//!
//! ```text
//! UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
//!          %xF4 %x80-8F 2( UTF8-tail )
//! ```
//!
//! It is a validator: it reports the strict result and the error units (maximal subparts),
//! not a lossy decode, since the code points it wrongly accepts are not scalar values and
//! have no place in an outcome's `scalars`. Everywhere else it agrees with the reference
//! exactly, so every departure it causes is an `above-max` bug. The `differential` target
//! uses it only when built with `--features buggy-above-max`; the replay tests use it to
//! check that the regression file for this bug still catches it.

use utf8conf::decoders::{Capabilities, Decoder};
use utf8conf::outcome::{DecoderFailure, ErrorLen, ErrorUnit, Outcome};

/// The decoder's name in reports.
pub const NAME: &str = "buggy-above-max";

/// Table 3-7 with the bug: the length a lead byte announces and the range its second byte
/// must be in, or `None` for a byte that starts no sequence.
fn lead_rule(lead: u8) -> Option<(usize, std::ops::RangeInclusive<u8>)> {
    match lead {
        0x00..=0x7F => Some((1, 0x80..=0xBF)),
        0xC2..=0xDF => Some((2, 0x80..=0xBF)),
        0xE0 => Some((3, 0xA0..=0xBF)),
        0xE1..=0xEC | 0xEE..=0xEF => Some((3, 0x80..=0xBF)),
        0xED => Some((3, 0x80..=0x9F)),
        0xF0 => Some((4, 0x90..=0xBF)),
        0xF1..=0xF3 => Some((4, 0x80..=0xBF)),
        // The bug: Table 3-7 says 80..8F.
        0xF4 => Some((4, 0x80..=0xBF)),
        _ => None,
    }
}

/// The validator that accepts `F4 90..BF` (see the module header).
pub struct BuggyAboveMax;

impl BuggyAboveMax {
    /// Validates `input` into `(offset, len, incomplete)` error units.
    pub fn error_units(input: &[u8]) -> Vec<(usize, usize, bool)> {
        let mut units = Vec::new();
        let mut offset = 0;
        while offset < input.len() {
            let lead = input[offset];
            let Some((len, second)) = lead_rule(lead) else {
                units.push((offset, 1, false));
                offset += 1;
                continue;
            };
            // How many bytes of the sequence are there and in range.
            let mut matched = 1;
            while matched < len {
                let Some(&byte) = input.get(offset + matched) else {
                    break;
                };
                let range = if matched == 1 {
                    second.clone()
                } else {
                    0x80..=0xBF
                };
                if !range.contains(&byte) {
                    break;
                }
                matched += 1;
            }
            if matched < len {
                // A prefix cut by the end of input could still be completed.
                let incomplete = offset + matched == input.len();
                units.push((offset, matched, incomplete));
            }
            offset += matched;
        }
        units
    }
}

impl Decoder for BuggyAboveMax {
    fn name(&self) -> &str {
        NAME
    }

    fn version(&self) -> String {
        "test-only".to_string()
    }

    fn description(&self) -> &str {
        "Table 3-7 with a planted bug: accepts F4 90..BF (code points above U+10FFFF)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            valid_up_to: true,
            error_len: true,
            scalars: false,
            errors: true,
        }
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        let units = Self::error_units(input);
        let first_error = units
            .first()
            .map(|&(offset, len, incomplete)| (offset, ErrorLen::new(len, incomplete)));
        *outcome = Outcome::from_strict(NAME, first_error);
        outcome.errors = Some(
            units
                .into_iter()
                .map(|(offset, len, _)| ErrorUnit {
                    offset,
                    len,
                    category: None,
                })
                .collect(),
        );
        Ok(())
    }
}
