//! The encoder report's model: what one check of encoders found, built by whoever runs
//! the grading (`check --encoder`, `check-encoder`, the author API) and written by the
//! presentation layer, `report/encoder.rs` (`encoder.json`, valid against
//! `schemas/encoder.schema.json`, and `encoder.md`).

use serde::Serialize;

use super::{EncoderGrade, EncoderPolicy};
use crate::security::Severity;
use crate::verdict::Verdict;

/// The schema identifier of [`EncoderReport`].
pub const ENCODER_SCHEMA: &str = "utf8conf-encoder-report/1";

/// How an encoder was run.
#[derive(Debug, Clone, Serialize)]
pub struct EncoderSubject {
    /// The name it is reported under.
    pub name: String,
    /// What it said its version is (`null` for a built-in encoder).
    pub version: Option<String>,
    /// How it was reached: `builtin`, `adapter` or `library`.
    pub kind: &'static str,
    /// The adapter command or library and symbol (`null` for a built-in encoder).
    pub command: Option<String>,
}

/// The report of one check of one or more encoders.
#[derive(Debug, Clone, Serialize)]
pub struct EncoderReport {
    /// [`ENCODER_SCHEMA`].
    pub schema: &'static str,
    /// When the check ran (RFC 3339, UTC).
    pub created: String,
    /// The utf8conf version.
    pub tool_version: &'static str,
    /// `conformant` (no finding), `deviations`, or `incomplete` (a grade stopped early).
    pub verdict: Verdict,
    /// Each encoder graded: how it was run, and its grade.
    pub encoders: Vec<GradedEncoder>,
}

/// One encoder of a report.
#[derive(Debug, Clone, Serialize)]
pub struct GradedEncoder {
    /// How it was run.
    pub subject: EncoderSubject,
    /// Its grade.
    pub grade: EncoderGrade,
}

impl EncoderReport {
    /// A report of `encoders`, created `created`.
    pub fn new(created: String, encoders: Vec<GradedEncoder>) -> EncoderReport {
        let verdict = if encoders.iter().any(|e| e.grade.stopped_by.is_some()) {
            Verdict::Incomplete
        } else if encoders.iter().any(|e| !e.grade.findings.is_empty()) {
            Verdict::Deviations
        } else {
            Verdict::Conformant
        };
        EncoderReport {
            schema: ENCODER_SCHEMA,
            created,
            tool_version: env!("CARGO_PKG_VERSION"),
            verdict,
            encoders,
        }
    }

    /// True when a finding reaches `threshold` (any finding when `None`).
    pub fn fails(&self, threshold: Option<Severity>) -> bool {
        self.encoders
            .iter()
            .flat_map(|e| &e.grade.findings)
            .any(|finding| threshold.is_none_or(|t| finding.severity >= t))
    }
}

/// The kebab-case name of a policy, as in the JSON.
pub fn policy_name(policy: EncoderPolicy) -> String {
    serde_json::to_value(policy)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}
