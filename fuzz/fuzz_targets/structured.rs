//! `structured`: the fuzz input read as a `Program` (multilingual text, taxonomy faults,
//! placement near 16/32/64-byte boundaries; see `src/program.rs`), turned into bytes and
//! checked like `differential`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use utf8conf::decoders::Decoder;
use utf8conf_fuzz::{checks, decoders, findings};

fn decoders_under_test() -> &'static [Box<dyn Decoder>] {
    static DECODERS: OnceLock<Vec<Box<dyn Decoder>>> = OnceLock::new();
    DECODERS.get_or_init(decoders::in_process)
}

fuzz_target!(|data: &[u8]| {
    let decoders: Vec<&dyn Decoder> = decoders_under_test().iter().map(|d| d.as_ref()).collect();
    if let Some(finding) = checks::structured_target(data, &decoders, findings::report_dir()) {
        findings::abort_if_new(finding);
    }
});
