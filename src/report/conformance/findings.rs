//! The findings section of `conformance.md` and `conformance.html`: one entry per bug,
//! named by its root cause, before the categories and the departures (which are detail).
//!
//! Adapter-controlled text (a decoder's name, its answers) only reaches these views
//! through [`escape_html`] in HTML; the Markdown puts it in code spans.

use std::fmt::Write;

use crate::finding::Finding;
use crate::sanitize::{html as escape_html, markdown_code};

/// The decoder's answer as one line of JSON (`null` where a run's report has none).
fn answer_json(answer: &Option<crate::outcome::RecordedAnswer>) -> String {
    answer
        .as_ref()
        .map_or_else(|| "null".to_string(), |answer| answer.to_json())
}

fn categories_text(finding: &Finding) -> String {
    finding
        .categories
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn aspects_text(finding: &Finding) -> String {
    finding
        .aspects
        .iter()
        .map(|a| a.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `[high] character-swallowed ` before a finding's title (empty when unclassified).
fn security_label(finding: &Finding) -> String {
    finding
        .security
        .as_ref()
        .map(|impact| format!("{} ", crate::report::security::impact_label(impact)))
        .unwrap_or_default()
}

/// The Markdown findings section.
pub fn markdown(out: &mut String, findings: &[Finding]) {
    let _ = writeln!(out, "## Findings\n");
    if findings.is_empty() {
        let _ = writeln!(out, "None.\n");
        return;
    }
    for (index, finding) in findings.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. {}**{}** (`{}`): categories {}; aspects {}; {}.  \n   Witness: `{}`  \n   Reference: {}  \n   Decoder: {}  \n   Reproduce: {}",
            index + 1,
            security_label(finding),
            finding.title,
            finding.id,
            categories_text(finding),
            aspects_text(finding),
            super::counted(finding.occurrences as usize, "input", "inputs"),
            finding.witness_hex,
            finding.cause.reference_does,
            markdown_code(&answer_json(&finding.decoder_answer)),
            markdown_code(&finding.reproduce),
        );
        for manifestation in &finding.manifestations {
            let categories: Vec<&str> = manifestation
                .categories
                .iter()
                .map(|c| c.as_str())
                .collect();
            let _ = writeln!(
                out,
                "   - also shows on {}: `{}`",
                categories.join(", "),
                manifestation.input_hex
            );
        }
    }
    let _ = writeln!(out);
}

/// The HTML findings section.
pub fn html(out: &mut String, findings: &[Finding]) {
    let _ = writeln!(out, "<h2>Findings</h2>");
    if findings.is_empty() {
        let _ = writeln!(out, "<p>None.</p>");
        return;
    }
    let _ = writeln!(out, "<ol id=\"findings\">");
    for finding in findings {
        let manifestations: Vec<String> = finding
            .manifestations
            .iter()
            .map(|m| {
                let categories: Vec<&str> = m.categories.iter().map(|c| c.as_str()).collect();
                format!(
                    "{}: <code>{}</code>",
                    escape_html(&categories.join(", ")),
                    escape_html(&m.input_hex)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<li id=\"finding-{id}\">{}<strong>{}</strong> <small>{id}</small><br>Categories: {}; aspects: {}; {} inputs.<br>Witness: <code>{}</code><br>Reference: {}<br>Decoder: <code>{}</code><br>Reproduce: <code>{}</code>{}</li>",
            escape_html(&security_label(finding)),
            escape_html(&finding.title),
            escape_html(&categories_text(finding)),
            escape_html(&aspects_text(finding)),
            finding.occurrences,
            escape_html(&finding.witness_hex),
            escape_html(&finding.cause.reference_does),
            escape_html(&answer_json(&finding.decoder_answer)),
            escape_html(&finding.reproduce),
            if manifestations.is_empty() {
                String::new()
            } else {
                format!("<br>Also shows on: {}", manifestations.join("; "))
            },
            id = escape_html(&finding.id),
        );
    }
    let _ = writeln!(out, "</ol>");
}
