//! The ABNF reference decoder as a [`Decoder`].

use super::{Capabilities, Decoder};
use crate::outcome::{DecoderFailure, Outcome};
use crate::reference::Reference;

/// RFC 3629 §4 interpreted from the grammar text (see [`crate::reference`]).
pub struct ReferenceDecoder;

impl Decoder for ReferenceDecoder {
    fn name(&self) -> &str {
        "reference"
    }

    fn version(&self) -> String {
        format!("RFC 3629 ABNF (utf8conf {})", env!("CARGO_PKG_VERSION"))
    }

    fn description(&self) -> &str {
        "the RFC 3629 section 4 grammar, parsed and matched; maximal-subpart error units"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        *outcome = Reference::rfc3629().outcome(self.name(), input);
        Ok(())
    }
}
