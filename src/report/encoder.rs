//! The encoder report's renderers: the Markdown `check --encoder` writes beside
//! `encoder.json` (`encoder.md`), and the terminal lines `check --encoder` and
//! `check-encoder` print. The report's model is
//! [`crate::diagnosis::encoder::report::EncoderReport`].

use std::fmt::Write as _;

use crate::diagnosis::encoder::report::{policy_name, EncoderReport, GradedEncoder};
use crate::sanitize;
use crate::security::Severity;

impl EncoderReport {
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
