//! `differential`: the fuzz input, as raw bytes, through the one-shot in-process decoders
//! (`decoders::in_process`: those of `utf8conf run` that no other target runs under more
//! conditions), each compared with the RFC 3629 reference. Built with
//! `--features buggy-above-max`, a decoder with a planted bug joins them (see
//! `src/buggy.rs`).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use utf8conf::decoders::Decoder;
use utf8conf_fuzz::{checks, decoders, findings};

/// The decoders, made once and kept for the life of the process (no per-input list).
fn decoders_under_test() -> &'static [&'static dyn Decoder] {
    static DECODERS: OnceLock<Vec<&'static dyn Decoder>> = OnceLock::new();
    DECODERS.get_or_init(|| {
        let mut decoders = decoders::in_process();
        if cfg!(feature = "buggy-above-max") {
            decoders.push(Box::new(utf8conf_fuzz::buggy::BuggyAboveMax));
        }
        decoders::leak(decoders)
    })
}

fuzz_target!(|data: &[u8]| {
    let decoders = decoders_under_test();
    if let Some(finding) = checks::differential_target(data, decoders, findings::report_dir()) {
        findings::abort_if_new(finding);
    }
});
