//! `structured`: the fuzz input read as a `Program` (multilingual text, taxonomy faults,
//! placement near 16/32/64-byte boundaries; see `src/program.rs`), turned into bytes and
//! checked like `differential`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use utf8conf::decoders::Decoder;
use utf8conf_fuzz::{checks, decoders, findings};

/// The decoders, made once and kept for the life of the process (no per-input list).
fn decoders_under_test() -> &'static [&'static dyn Decoder] {
    static DECODERS: OnceLock<Vec<&'static dyn Decoder>> = OnceLock::new();
    DECODERS.get_or_init(|| decoders::leak(decoders::in_process()))
}

fuzz_target!(|data: &[u8]| {
    let decoders = decoders_under_test();
    if let Some(finding) = checks::structured_target(data, decoders, findings::report_dir()) {
        findings::abort_if_new(finding);
    }
});
