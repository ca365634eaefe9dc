//! encoding_rs as a [`Decoder`]: the one-shot `decode_without_bom_handling` for the scalars
//! and verdict, and its streaming decoder (`decode_to_string_without_replacement`) for the
//! error units.
//!
//! encoding_rs implements the WHATWG UTF-8 decoder. Its streaming API reports each
//! malformed sequence as `DecoderResult::Malformed(bad_len, consumed_after)`, so the unit's
//! offset is the bytes read so far minus both. To tell "incomplete at end" (std's
//! `error_len == None`) from an invalid unit, the input is first fed with `last = false`:
//! bytes that encoding_rs holds back waiting for more input and then reports as malformed
//! once told the input has ended are a still-completable prefix. That is the decoder's own
//! answer, not ours.

use encoding_rs::UTF_8;

use super::{Capabilities, Decoder, DecoderFailure};
use crate::outcome::{scalars_of, ErrorLen, ErrorUnit, Outcome};

/// encoding_rs's UTF-8 decoder (WHATWG).
pub struct EncodingRsDecoder;

/// The locked encoding_rs version, recorded by the build script.
pub const VERSION: &str = env!("UTF8CONF_VERSION_encoding_rs");

/// Error units found by encoding_rs's streaming decoder fed the whole input as one chunk:
/// `(offset, len, incomplete)`.
pub fn streaming_error_units(input: &[u8]) -> Vec<(usize, usize, bool)> {
    let mut units = Vec::new();
    super::encoding_rs_chunked::strict_units(input, &[], &mut String::new(), &mut units);
    units
}

impl Decoder for EncodingRsDecoder {
    fn name(&self) -> &str {
        "encoding_rs"
    }

    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn description(&self) -> &str {
        "encoding_rs UTF_8.decode_without_bom_handling (scalars), streaming decoder (error units)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode(&self, input: &[u8]) -> Result<Outcome, DecoderFailure> {
        let (text, had_errors) = UTF_8.decode_without_bom_handling(input);
        let units = streaming_error_units(input);
        let first_error = units.first().map(|&(offset, len, incomplete)| {
            (
                offset,
                if incomplete {
                    ErrorLen::Incomplete
                } else {
                    ErrorLen::Invalid(len)
                },
            )
        });
        let mut outcome = Outcome::from_strict(self.name(), first_error);
        // Both APIs must agree on validity; if not, the one-shot verdict is what users see.
        outcome.valid = !had_errors;
        if outcome.valid {
            outcome.valid_up_to = None;
            outcome.error_len = None;
        }
        outcome.scalars = Some(scalars_of(&text));
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
        Ok(outcome)
    }
}
