//! The encoder report: what `check --encoder` writes (`encoder.json`, valid against
//! `schemas/encoder.schema.json`, and `encoder.md`) and `check-encoder --json` prints,
//! and the terminal lines both print. One report for every way an encoder is given:
//! built in, an adapter (`--cmd`), a C library (`--lib`).

use std::fmt::Write as _;

use serde::Serialize;

use crate::diagnosis::encoder::{EncoderGrade, EncoderPolicy};
use crate::sanitize;
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

    /// The report as Markdown: every text from an encoder escaped.
    pub fn markdown(&self) -> String {
        let mut out = String::from("# UTF-8 encoder conformance\n\n");
        let _ = writeln!(
            out,
            "Verdict: **{}**. Graded against the RFC 3629 reference encoder on {} by utf8conf {}.\n",
            self.verdict, self.created, self.tool_version
        );
        for graded in &self.encoders {
            markdown_encoder(&mut out, graded);
        }
        out
    }

    /// The lines printed on the terminal: one per encoder, one per finding.
    pub fn terminal(&self) -> String {
        let mut out = String::new();
        for graded in &self.encoders {
            let grade = &graded.grade;
            let findings = grade.findings.len();
            let _ = writeln!(
                out,
                "{}: {} input{}, {} finding{}; surrogates: {}{}",
                sanitize::terminal(&grade.encoder),
                grade.inputs,
                plural(grade.inputs),
                findings,
                plural(findings),
                policy_name(grade.policy),
                grade
                    .out_of_range_policy
                    .map(|p| format!("; above U+10FFFF: {}", policy_name(p)))
                    .unwrap_or_default(),
            );
            for finding in &grade.findings {
                let _ = writeln!(
                    out,
                    "  [{}] {} (expected {}; {} input{}; {})",
                    severity_name(finding.severity),
                    sanitize::terminal(&finding.title),
                    finding.expected,
                    finding.inputs,
                    plural(finding.inputs),
                    finding.citation
                );
            }
            if let Some(reason) = &grade.stopped_by {
                let _ = writeln!(out, "  stopped early: {}", sanitize::terminal(reason));
            }
        }
        out
    }
}

fn markdown_encoder(out: &mut String, graded: &GradedEncoder) {
    let grade = &graded.grade;
    let subject = &graded.subject;
    let _ = writeln!(out, "## {}\n", sanitize::markdown_text(&grade.encoder));
    let _ = writeln!(
        out,
        "- Reached as: {}{}",
        subject.kind,
        subject
            .command
            .as_deref()
            .map(|c| format!(", {}", sanitize::markdown_code(c)))
            .unwrap_or_default()
    );
    if let Some(version) = &subject.version {
        let _ = writeln!(out, "- Version: {}", sanitize::markdown_text(version));
    }
    let _ = writeln!(out, "- Inputs encoded: {}", grade.inputs);
    let _ = writeln!(
        out,
        "- Policy for surrogates: **{}**",
        policy_name(grade.policy)
    );
    if let Some(policy) = grade.out_of_range_policy {
        let _ = writeln!(out, "- Policy above U+10FFFF: **{}**", policy_name(policy));
    }
    if let Some(reason) = &grade.stopped_by {
        let _ = writeln!(
            out,
            "- Partial report: stopped early: {}",
            sanitize::markdown_text(reason)
        );
    }
    out.push('\n');
    if grade.findings.is_empty() {
        out.push_str("No finding: every input encoded as the reference encodes it, or refused or substituted under the policy above.\n\n");
        return;
    }
    out.push_str(
        "| Severity | Finding | Categories | Witness | Written | Expected | Inputs | Cites |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    for finding in &grade.findings {
        let categories: Vec<String> = finding
            .categories
            .iter()
            .map(|c| {
                serde_json::to_value(c)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            severity_name(finding.severity),
            sanitize::markdown_text(finding.behaviour.describe()),
            categories.join(", "),
            sanitize::markdown_code(&finding.witness),
            sanitize::markdown_code(&finding.written),
            sanitize::markdown_code(&finding.expected),
            finding.inputs,
            sanitize::markdown_text(finding.citation),
        );
    }
    out.push('\n');
}

/// The kebab-case name of a policy, as in the JSON.
pub fn policy_name(policy: EncoderPolicy) -> String {
    serde_json::to_value(policy)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

fn severity_name(severity: Severity) -> String {
    serde_json::to_value(severity)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}
