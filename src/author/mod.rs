//! Check your own UTF-8 decoder, in process: the API for crate authors.
//!
//! Add `utf8conf` as a dev-dependency, implement [`YourDecoder`] (one method that turns
//! bytes into an [`Outcome`]; a streaming decoder implements [`YourStreamingDecoder`]
//! instead and is wrapped with [`Chunked`]), and then:
//!
//! - in `cargo test`, [`check`] runs the same inputs and the same grading as
//!   `utf8conf check` and returns the same [`ConformanceReport`] (write it with
//!   [`ConformanceReport::write`]); [`Expectations`] asserts what you expect of it: the
//!   verdict per category and the U+FFFD policy, with a readable failure message;
//! - in a cargo-fuzz target, [`fuzz_one`] grades each fuzz input the same way and, on a
//!   departure you did not expect, writes the conformance report for that input and
//!   panics, so libFuzzer saves the input:
//!
//! ```no_run
//! // fuzz/fuzz_targets/conformance.rs
//! # mod hidden {
//! #![no_main]
//! # }
//! use utf8conf::author::{fuzz_one, Expectations, YourDecoder};
//! use utf8conf::outcome::{ErrorLen, Outcome};
//!
//! struct Mine;
//! impl YourDecoder for Mine {
//!     fn name(&self) -> &str { "mine" }
//!     fn decode(&self, input: &[u8]) -> Outcome {
//!         let mut outcome = Outcome::verdict(self.name(), true);
//!         if let Err(error) = std::str::from_utf8(input) {
//!             outcome.valid = false;
//!             outcome.valid_up_to = Some(error.valid_up_to());
//!             outcome.error_len = Some(ErrorLen::from_std(error.error_len()));
//!         }
//!         outcome
//!     }
//! }
//! # macro_rules! fuzz_target { (|$d:ident: &[u8]| $b:block) => { fn _f($d: &[u8]) $b } }
//! fuzz_target!(|data: &[u8]| {
//!     fuzz_one(&Mine, data, &Expectations::conformant());
//! });
//! ```
//!
//! The grading is [`crate::conformance::run_check`] itself (with a [`Subject::InProcess`]
//! subject), not a copy, so an in-process check finds exactly what `utf8conf check`
//! finds. A panic in the decoder is contained and graded as a `crash` departure.
//!
//! An encoder is checked the same way through [`encoder`]: implement
//! [`encoder::YourEncoder`], grade it with [`encoder::check_encoder`] (the grading of
//! `utf8conf check --encoder`) and assert with [`encoder::EncoderExpectations`].

pub mod encoder;
pub mod expect;
pub mod replay;
pub mod stream;

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::conformance::inputs::check_inputs;
use crate::conformance::report::{utc_now, ConformanceReport};
use crate::conformance::{run_check, CheckOptions, Subject};
use crate::corpus::{Input, Origin};
use crate::decoders::{Capabilities, Decoder};
use crate::outcome::{DecoderFailure, Outcome};
use crate::reproduction::author_replay;
pub use expect::Expectations;
pub use replay::{reproduce, Replay};
pub use stream::{Chunked, YourStreamingDecoder};

/// Your decoder, as the harness calls it.
pub trait YourDecoder: Send + Sync {
    /// The name in reports.
    fn name(&self) -> &str;
    /// The version in reports (e.g. your crate's `env!("CARGO_PKG_VERSION")`).
    fn version(&self) -> String {
        "unknown".into()
    }
    /// Decodes one input. Set `valid` and whatever else your decoder really reports
    /// (`valid_up_to`, `error_len`, `scalars` as its lossy decode); leave the rest `None`
    /// ([`Outcome::verdict`] starts you there). Fields you never set are not graded.
    fn decode(&self, input: &[u8]) -> Outcome;
}

/// Probes used to learn which outcome fields a decoder reports: an invalid byte and a
/// truncated sequence (a decoder reports its error fields on these if at all).
const CAPABILITY_PROBES: [&[u8]; 3] = [b"a", &[0x61, 0xFF], &[0xE2, 0x82]];

/// A [`YourDecoder`] as one of the harness's [`Decoder`]s.
pub struct InProcess<'a, D: YourDecoder + ?Sized> {
    decoder: &'a D,
    capabilities: OnceLock<Capabilities>,
}

impl<'a, D: YourDecoder + ?Sized> InProcess<'a, D> {
    /// Wraps `decoder`.
    pub fn new(decoder: &'a D) -> Self {
        InProcess {
            decoder,
            capabilities: OnceLock::new(),
        }
    }
}

impl<D: YourDecoder + ?Sized> Decoder for InProcess<'_, D> {
    fn name(&self) -> &str {
        self.decoder.name()
    }

    fn version(&self) -> String {
        self.decoder.version()
    }

    fn description(&self) -> &str {
        "a decoder checked in process through utf8conf::author"
    }

    fn capabilities(&self) -> Capabilities {
        *self.capabilities.get_or_init(|| {
            let mut seen = Capabilities::default();
            for probe in CAPABILITY_PROBES {
                // A decoder that panics on a probe simply reports nothing there.
                if let Ok(outcome) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.decoder.decode(probe)
                })) {
                    seen.valid_up_to |= outcome.valid_up_to.is_some();
                    seen.error_len |= outcome.error_len.is_some();
                    seen.scalars |= outcome.scalars.is_some();
                    seen.errors |= outcome.errors.is_some();
                }
            }
            seen
        })
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        *outcome = self.decoder.decode(input);
        if outcome.decoder != self.decoder.name() {
            outcome.decoder = self.decoder.name().to_string();
        }
        Ok(())
    }
}

/// Runs `utf8conf check`'s inputs and grading on `decoder` and returns its report.
pub fn check<D: YourDecoder + ?Sized>(decoder: &D) -> ConformanceReport {
    let inputs = check_inputs().expect("the embedded vectors parse (checked by utf8conf's tests)");
    check_inputs_of(decoder, &inputs)
}

/// Grades `decoder` on your own `inputs` (e.g. a regression corpus) the same way.
pub fn check_inputs_of<D: YourDecoder + ?Sized>(
    decoder: &D,
    inputs: &[Input],
) -> ConformanceReport {
    let wrapped = InProcess::new(decoder);
    let run = run_check(
        Subject::InProcess(&wrapped),
        inputs,
        &CheckOptions::default(),
        &mut |_, _| {},
    );
    let mut report = ConformanceReport::from_run(&run, utc_now().0);
    // `utf8conf decode` cannot reach a decoder in the author's crate: the reports name the
    // call that replays them in the author's own test instead.
    for finding in &mut report.findings {
        finding.reproduce = author_replay(&finding.witness_hex);
    }
    for departure in &mut report.departures {
        departure.reproduce = author_replay(&departure.input_hex);
    }
    report
}

/// Where [`fuzz_one`] writes reports: `$UTF8CONF_FINDINGS`, else `findings/` in the
/// current directory (for `cargo fuzz`, the fuzz crate's directory).
pub fn findings_directory() -> PathBuf {
    std::env::var_os("UTF8CONF_FINDINGS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("findings"))
}

/// Grades one fuzz input. Unless every departure is one `expected` allows, writes the
/// input's conformance report to `findings_directory()/<name>-<input hash>/` and panics
/// with its summary (libFuzzer then saves the input as a crash artifact).
pub fn fuzz_one<D: YourDecoder + ?Sized>(decoder: &D, data: &[u8], expected: &Expectations) {
    if let Some(report) = fuzz_report(decoder, data, expected) {
        let name: String = decoder
            .name()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .collect();
        let directory =
            findings_directory().join(format!("{name}-{}", crate::stable_hash::fnv1a64_hex(data)));
        let written = report.write(&directory);
        panic!(
            "{}\nreport: {} ({})",
            expected.unexpected(&report).join("\n"),
            directory.join("conformance.md").display(),
            match written {
                Ok(()) => "written".to_string(),
                Err(error) => format!("could not be written: {error}"),
            }
        );
    }
}

/// The conformance report for one input when it shows a departure `expected` does not
/// allow; `None` otherwise. [`fuzz_one`] without the writing and panicking.
pub fn fuzz_report<D: YourDecoder + ?Sized>(
    decoder: &D,
    data: &[u8],
    expected: &Expectations,
) -> Option<ConformanceReport> {
    let wrapped = InProcess::new(decoder);
    let reference = crate::conformance::grade::ReferenceView::of(data);
    let answer = Subject::InProcess(&wrapped)
        .decode_batch(&[data])
        .answers
        .pop()
        .expect("one answer");
    let evaluation = crate::conformance::grade::evaluate(data, &reference, &answer);
    // The cheap test first. A departure on a fuzz input may span several categories
    // (`C0 80 80`: overlong-2 and unexpected-continuation); one that touches a category
    // known to fail is taken as that known failure (a new bug in the other category
    // still shows on the inputs where it occurs alone, which the fuzzer reaches). Only
    // a departure in none of them costs the full report, with shrinking.
    if evaluation
        .departures
        .iter()
        .all(|departure| expected.touches_expected(&departure.categories))
    {
        return None;
    }
    let input = Input {
        bytes: data.to_vec(),
        origin: Origin::Fuzz {
            target: decoder.name().to_string(),
        },
    };
    let report = check_inputs_of(decoder, &[input]);
    (!expected.unexpected(&report).is_empty()).then_some(report)
}
