//! `streaming`: a chunk plan and a text taken from the fuzz input (the format of
//! `utf8conf::decoders::chunk_plan::CycledSizes`);
//! every streaming decoder, fed the chunks, against the reference on the whole text.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use utf8conf::decoders::streaming::StreamingDecoder;
use utf8conf_fuzz::{checks, decoders, findings};

fn streaming_decoders() -> &'static [Box<dyn StreamingDecoder>] {
    static DECODERS: OnceLock<Vec<Box<dyn StreamingDecoder>>> = OnceLock::new();
    DECODERS.get_or_init(decoders::streaming)
}

fuzz_target!(|data: &[u8]| {
    let decoders: Vec<&dyn StreamingDecoder> =
        streaming_decoders().iter().map(|d| d.as_ref()).collect();
    if let Some(finding) = checks::streaming_target(data, &decoders, findings::report_dir()) {
        findings::abort_if_new(finding);
    }
});
