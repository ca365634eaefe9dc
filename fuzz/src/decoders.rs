//! The decoders each target runs against the reference.

use utf8conf::decoders::encoding_rs::EncodingRsStream;
use utf8conf::decoders::fast::FastStream;
use utf8conf::decoders::streaming::StreamingDecoder;
use utf8conf::decoders::{builtin, Decoder};

use utf8conf::fast::Backend;

use crate::fast_backends::{available_backends, backend_decoders};

/// The decoders `utf8conf run` compares but for the reference itself (which the checks call
/// directly) and the fast decoder's backends by name (`fast-<backend>`), which are the
/// `backends` target's.
///
/// `fast-<backend>` is `utf8conf::decoders::fast::FastDecoder::with_backend`: the library's
/// adapter over one backend's function table (`validate_with`, `decode_utf32_with`,
/// `decode_lossy_into_with`). The `backends` target runs exactly these decoders, the same
/// functions through the same adapter, for every available backend, on each input placed
/// at every alignment offset 0..=63 (offset 0 among them, the only one run here). The best
/// backend's would not even be a different computation here: the dispatched `fast`, which
/// stays, calls the same function table (`Backend::best`) through the same adapter. Running
/// them here too cost a third of each execution of this target (fuzz/README.md, "Fuzz target
/// speed"). `fast` checks on every input the backend the dispatcher picks, and `fast-stream`
/// the streaming decoder over it.
pub fn in_process() -> Vec<Box<dyn Decoder>> {
    let by_backend: Vec<String> = Backend::all()
        .iter()
        .map(|backend| format!("fast-{}", backend.name()))
        .collect();
    builtin()
        .into_iter()
        .filter(|decoder| {
            decoder.name() != "reference" && !by_backend.iter().any(|n| n == decoder.name())
        })
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
