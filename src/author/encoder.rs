//! Check your own UTF-8 *encoder*, in process: the encoder side of the author API.
//!
//! Implement [`YourEncoder`] (the entry points your API has: from UTF-16 code units,
//! from 32-bit code points, or both), then in `cargo test`:
//!
//! ```
//! use utf8conf::author::encoder::{check_encoder, EncoderExpectations, YourEncoder};
//! use utf8conf::diagnosis::encoder::EncoderPolicy;
//! use utf8conf::encoders::Encoded;
//!
//! struct Lossy;
//! impl YourEncoder for Lossy {
//!     fn name(&self) -> &str { "lossy" }
//!     fn encode_utf16(&self, units: &[u16]) -> Option<Encoded> {
//!         Some(Encoded::Bytes(String::from_utf16_lossy(units).into_bytes()))
//!     }
//! }
//!
//! let report = check_encoder(&Lossy);
//! EncoderExpectations::conformant()
//!     .policy(EncoderPolicy::ReplacementCharacter)
//!     .assert(&report);
//! ```
//!
//! The grading is [`crate::diagnosis::encoder::grade`] on the inputs of
//! `utf8conf check --encoder` ([`encoder_inputs`]), and the report is the
//! [`EncoderReport`] that command writes, so an in-process check finds exactly what the
//! command line finds. A panic in the encoder is contained and graded as `crashes` on
//! that input. [`fuzz_encoder_one`] grades one fuzz input the same way.

use std::collections::BTreeSet;

use crate::conformance::report::utc_now;
use crate::corpus::code_units::encoder_inputs;
use crate::diagnosis::encoder::report::{
    policy_name, EncoderReport, EncoderSubject, GradedEncoder,
};
use crate::diagnosis::encoder::{grade, EncoderBehaviour, EncoderPolicy};
use crate::encoders::{CodeUnits, Encoded, Encoder, Form};
use crate::outcome::FailureKind;

/// Your encoder, as the harness calls it. Implement the entry points your API has; the
/// others answer `None` ("not offered") and are not graded.
pub trait YourEncoder: Send + Sync {
    /// The name in reports.
    fn name(&self) -> &str;
    /// The version in reports (e.g. your crate's `env!("CARGO_PKG_VERSION")`).
    fn version(&self) -> String {
        "unknown".into()
    }
    /// Encodes UTF-16 code units (possibly with lone or reversed surrogates): the bytes
    /// written (whatever your policy substitutes), or [`Encoded::Refused`] at the code
    /// unit refused when your API says which.
    fn encode_utf16(&self, _units: &[u16]) -> Option<Encoded> {
        None
    }
    /// Encodes 32-bit code points (possibly surrogates or above U+10FFFF), likewise.
    fn encode_utf32(&self, _points: &[u32]) -> Option<Encoded> {
        None
    }
}

/// A [`YourEncoder`] as one of the harness's [`Encoder`]s: its forms are the entry points
/// that answer the empty input, and a panic is a `crash` answer.
pub struct InProcessEncoder<'a, E: YourEncoder + ?Sized> {
    encoder: &'a E,
    forms: &'static [Form],
}

impl<'a, E: YourEncoder + ?Sized> InProcessEncoder<'a, E> {
    /// Wraps `encoder`, asking each entry point for the empty input to learn which it has.
    pub fn new(encoder: &'a E) -> Self {
        let offers = |input: &CodeUnits| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(encoder, input)))
                .is_ok_and(|answer| answer.is_some())
        };
        let forms: &'static [Form] = match (
            offers(&CodeUnits::Utf16(Vec::new())),
            offers(&CodeUnits::Utf32(Vec::new())),
        ) {
            (true, true) => &[Form::Utf16, Form::Utf32],
            (true, false) => &[Form::Utf16],
            (false, true) => &[Form::Utf32],
            (false, false) => &[],
        };
        InProcessEncoder { encoder, forms }
    }
}

fn call<E: YourEncoder + ?Sized>(encoder: &E, input: &CodeUnits) -> Option<Encoded> {
    match input {
        CodeUnits::Utf16(units) => encoder.encode_utf16(units),
        CodeUnits::Utf32(points) => encoder.encode_utf32(points),
    }
}

impl<E: YourEncoder + ?Sized> Encoder for InProcessEncoder<'_, E> {
    fn name(&self) -> &str {
        self.encoder.name()
    }

    fn description(&self) -> &str {
        "an encoder checked in process through utf8conf::author::encoder"
    }

    fn forms(&self) -> &'static [Form] {
        self.forms
    }

    fn encode(&self, input: &CodeUnits) -> Encoded {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(self.encoder, input))) {
            Ok(Some(answer)) => answer,
            Ok(None) => Encoded::Failed {
                kind: FailureKind::Protocol,
                message: format!("no answer for {} input", input.form().as_str()),
            },
            Err(panic) => Encoded::Failed {
                kind: FailureKind::Crash,
                message: format!("panicked: {}", panic_text(&panic)),
            },
        }
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// Runs `utf8conf check --encoder`'s inputs and grading on `encoder`; its report.
pub fn check_encoder<E: YourEncoder + ?Sized>(encoder: &E) -> EncoderReport {
    check_encoder_on(encoder, &encoder_inputs(false))
}

/// Grades `encoder` on your own `inputs` (a regression corpus, one fuzz input) the same
/// way.
pub fn check_encoder_on<E: YourEncoder + ?Sized>(
    encoder: &E,
    inputs: &[CodeUnits],
) -> EncoderReport {
    let wrapped = InProcessEncoder::new(encoder);
    let graded = GradedEncoder {
        subject: EncoderSubject {
            name: encoder.name().to_string(),
            version: Some(encoder.version()),
            kind: "builtin",
            command: None,
        },
        grade: grade(&wrapped, inputs),
    };
    EncoderReport::new(utc_now().0, vec![graded])
}

/// Grades one fuzz input, read as UTF-16 code units (little-endian pairs of bytes) when
/// the encoder takes them, else as 32-bit code points. Panics with the unexpected
/// findings, one per line, so that libFuzzer saves the input.
pub fn fuzz_encoder_one<E: YourEncoder + ?Sized>(
    encoder: &E,
    data: &[u8],
    expected: &EncoderExpectations,
) {
    let wrapped = InProcessEncoder::new(encoder);
    let input = if wrapped.forms().contains(&Form::Utf16) {
        CodeUnits::Utf16(
            data.chunks_exact(2)
                .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
                .collect(),
        )
    } else {
        CodeUnits::Utf32(
            data.chunks_exact(4)
                .map(|quad| u32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]))
                .collect(),
        )
    };
    let report = check_encoder_on(encoder, &[input]);
    let unexpected = expected.unexpected(&report);
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}

/// What a crate author expects of an encoder report: the findings it may have (by
/// behaviour) and its policies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncoderExpectations {
    findings: BTreeSet<EncoderBehaviour>,
    policy: Option<EncoderPolicy>,
    out_of_range_policy: Option<EncoderPolicy>,
}

impl EncoderExpectations {
    /// No finding, any policy.
    pub fn conformant() -> Self {
        EncoderExpectations::default()
    }

    /// These behaviours are known findings (a documented variant such as WTF-8, or a bug
    /// you track): the report must have exactly these.
    pub fn findings(mut self, behaviours: &[EncoderBehaviour]) -> Self {
        self.findings.extend(behaviours.iter().copied());
        self
    }

    /// The policy for surrogates must be recognised as `policy`.
    pub fn policy(mut self, policy: EncoderPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// The policy for values above U+10FFFF must be recognised as `policy`.
    pub fn out_of_range_policy(mut self, policy: EncoderPolicy) -> Self {
        self.out_of_range_policy = Some(policy);
        self
    }

    /// Findings the report has that are not expected, one line each with its witness
    /// (empty: nothing unexpected). Says nothing about expected findings that did not
    /// show, so it suits reports over few inputs (one fuzz input).
    pub fn unexpected(&self, report: &EncoderReport) -> Vec<String> {
        report
            .encoders
            .iter()
            .flat_map(|graded| {
                graded
                    .grade
                    .findings
                    .iter()
                    .filter(|finding| !self.findings.contains(&finding.behaviour))
                    .map(|finding| format!("{}: {}", graded.grade.encoder, finding.title))
            })
            .collect()
    }

    /// Everything in a full report that differs from these expectations: unexpected
    /// findings, expected ones that did not show, and other policies.
    pub fn mismatches(&self, report: &EncoderReport) -> Vec<String> {
        let mut lines = self.unexpected(report);
        for graded in &report.encoders {
            let grade = &graded.grade;
            for behaviour in &self.findings {
                if !grade.findings.iter().any(|f| f.behaviour == *behaviour) {
                    lines.push(format!(
                        "{}: expected the finding \"{}\", which did not show",
                        grade.encoder,
                        behaviour.describe()
                    ));
                }
            }
            let policies = [
                ("surrogates", self.policy, Some(grade.policy)),
                (
                    "values above U+10FFFF",
                    self.out_of_range_policy,
                    grade.out_of_range_policy,
                ),
            ];
            for (what, expected, recognised) in policies {
                if let Some(expected) = expected.filter(|&e| Some(e) != recognised) {
                    lines.push(format!(
                        "{}: policy for {what} is {}, expected {}",
                        grade.encoder,
                        recognised.map_or_else(|| "none (not graded)".into(), policy_name),
                        policy_name(expected)
                    ));
                }
            }
        }
        lines
    }

    /// Panics with every mismatch, one per line, if the report differs from these
    /// expectations.
    #[track_caller]
    pub fn assert(&self, report: &EncoderReport) {
        let lines = self.mismatches(report);
        assert!(
            lines.is_empty(),
            "the encoder report differs from what was expected:\n{}",
            lines.join("\n")
        );
    }
}
