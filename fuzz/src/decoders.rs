//! The decoders each target runs against the reference.

use utf8conf::decoders::{builtin, Decoder};

use crate::streaming::{EncodingRsStream, StreamingDecoder};

/// Every in-process decoder but the reference itself (which the checks call directly).
pub fn in_process() -> Vec<Box<dyn Decoder>> {
    builtin()
        .into_iter()
        .filter(|decoder| decoder.name() != "reference")
        .collect()
}

/// The backends the `backends` target calls one by one at every alignment offset.
pub fn backends() -> Vec<Box<dyn Decoder>> {
    in_process()
}

/// Every streaming decoder.
pub fn streaming() -> Vec<Box<dyn StreamingDecoder>> {
    vec![Box::new(EncodingRsStream)]
}
