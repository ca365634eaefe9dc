//! The decoders each target runs against the reference.

use utf8conf::decoders::encoding_rs::EncodingRsStream;
use utf8conf::decoders::fast::FastStream;
use utf8conf::decoders::streaming::StreamingDecoder;
use utf8conf::decoders::{builtin, Decoder};

use crate::fast_backends::{available_backends, backend_decoders};

/// Every built-in decoder but the reference itself (which the checks call directly): the
/// decoders `utf8conf run` compares, the fast decoder's dispatched entry points, each of its
/// available backends and its streaming decoder among them.
pub fn in_process() -> Vec<Box<dyn Decoder>> {
    builtin()
        .into_iter()
        .filter(|decoder| decoder.name() != "reference")
        .collect()
}

/// The backends the `backends` target calls one by one at every alignment offset: each
/// available backend of the fast decoder, by name (see [`crate::fast_backends`]).
pub fn backends() -> Vec<Box<dyn Decoder>> {
    backend_decoders()
}

/// Every streaming decoder: encoding_rs's, and the fast decoder's over each available
/// backend.
pub fn streaming() -> Vec<Box<dyn StreamingDecoder>> {
    let mut decoders: Vec<Box<dyn StreamingDecoder>> = vec![Box::new(EncodingRsStream)];
    for backend in available_backends() {
        if let Some(stream) = FastStream::with_backend(backend) {
            decoders.push(Box::new(stream));
        }
    }
    decoders
}

/// `boxes` kept for the life of the process, as plain references: a fuzz target makes its
/// decoder list once and passes the same slice on every input (no per-input allocation).
pub fn leak<T: ?Sized>(boxes: Vec<Box<T>>) -> Vec<&'static T> {
    boxes.into_iter().map(|boxed| &*Box::leak(boxed)).collect()
}
