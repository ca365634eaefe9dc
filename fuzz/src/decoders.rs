//! The decoders each target runs against the reference.

use utf8conf::decoders::encoding_rs::EncodingRsStream;
use utf8conf::decoders::fast::FastStream;
use utf8conf::decoders::streaming::StreamingDecoder;
use utf8conf::decoders::{builtin, Decoder};

use utf8conf::fast::Backend;

use crate::fast_backends::{available_backends, backend_decoders};

/// The one-shot decoders `utf8conf run` compares, each on the bytes as they are: std's four
/// APIs, encoding_rs's one-shot decoder, simdutf8's two, bstr, and the fast decoder
/// dispatched (`fast`). Not run here, because another target runs the same decoders
/// under more conditions (fuzz/README.md, "Fuzz target speed": together they were two
/// fifths of each execution of this target):
///
/// - the reference itself, which the checks call directly;
/// - the fast decoder's backends by name (`fast-<backend>`,
///   `utf8conf::decoders::fast::FastDecoder::with_backend`, the library's adapter over one
///   backend's function table): the `backends` target runs exactly these decoders for
///   every available backend, on each input placed at every alignment offset 0..=63
///   (offset 0 among them). The best backend's would not even be another computation
///   here: `fast` calls the same function table ([`Backend::best`]) through the same
///   adapter;
/// - the streaming decoders fed in the input's own chunk plan (`encoding_rs-chunked`,
///   `fast-stream`: `Chunked::per_input`, whose plan is picked by a hash of the bytes): the
///   `streaming` target feeds the same decoders (encoding_rs's, and the fast decoder's over
///   every available backend, the best one included) in a chunk plan that is part of the
///   fuzz input, so that coverage steers the cuts.
pub fn in_process() -> Vec<Box<dyn Decoder>> {
    let elsewhere = |name: &str| {
        name == "reference"
            || name == "encoding_rs-chunked"
            || name == "fast-stream"
            || Backend::all()
                .iter()
                .any(|backend| name.strip_prefix("fast-") == Some(backend.name()))
    };
    builtin()
        .into_iter()
        .filter(|decoder| !elsewhere(decoder.name()))
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
