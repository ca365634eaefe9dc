//! `backends`: every backend called explicitly (not only the one the dispatcher picks), on
//! the fuzz input placed at every alignment offset 0..=63, against the reference.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use utf8conf::decoders::Decoder;
use utf8conf_fuzz::{checks, decoders, findings};

/// The backends, made once and kept for the life of the process (no per-input list).
fn backends() -> &'static [&'static dyn Decoder] {
    static BACKENDS: OnceLock<Vec<&'static dyn Decoder>> = OnceLock::new();
    BACKENDS.get_or_init(|| decoders::leak(decoders::backends()))
}

fuzz_target!(|data: &[u8]| {
    if let Some(finding) = checks::backends_target(data, backends(), findings::report_dir()) {
        findings::abort_if_new(finding);
    }
});
