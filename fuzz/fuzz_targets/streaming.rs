//! `streaming`: a chunk plan and a text taken from the fuzz input (the format of
//! `utf8conf::decoders::chunk_plan::CycledSizes`);
//! every streaming decoder, fed the chunks, against the reference on the whole text.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use utf8conf::decoders::streaming::StreamingDecoder;
use utf8conf_fuzz::{checks, decoders, findings};

/// The streaming decoders, made once and kept for the life of the process (no per-input
/// list).
fn streaming_decoders() -> &'static [&'static dyn StreamingDecoder] {
    static DECODERS: OnceLock<Vec<&'static dyn StreamingDecoder>> = OnceLock::new();
    DECODERS.get_or_init(|| decoders::leak(decoders::streaming()))
}

fuzz_target!(|data: &[u8]| {
    let decoders = streaming_decoders();
    if let Some(finding) = checks::streaming_target(data, decoders, findings::report_dir()) {
        findings::abort_if_new(finding);
    }
});
