//! The decoders each target runs against the reference.

use utf8conf::decoders::encoding_rs::EncodingRsStream;
use utf8conf::decoders::fast::FastStream;
use utf8conf::decoders::streaming::StreamingDecoder;
use utf8conf::decoders::{builtin, Decoder};

use utf8conf::fast::Backend;

use crate::fast_backends::{available_backends, backend_decoders};

/// The decoders `utf8conf run` compares, but for two that the checks need not run again:
/// the reference itself (which the checks call directly), and `fast-<best>`, the fast
/// decoder's best backend by name, which is the dispatched `fast` once more. `fast`'s entry
/// points call the function table of [`Backend::best`] (`utf8conf::fast::validate` and its
/// siblings), and `fast-<best>` calls the same table through `validate_with(best, ..)`, in
/// the same adapter (`utf8conf::decoders::fast::FastDecoder`) on the same bytes: its outcome
/// is `fast`'s on every input, so it would only double that decoder's cost. Every backend,
/// the best one included, is still called by name in the `backends` target (at every
/// alignment offset) and under a chunk plan in the `streaming` target.
pub fn in_process() -> Vec<Box<dyn Decoder>> {
    let same_as_dispatched = format!("fast-{}", Backend::best().name());
    builtin()
        .into_iter()
        .filter(|decoder| decoder.name() != "reference" && decoder.name() != same_as_dispatched)
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
