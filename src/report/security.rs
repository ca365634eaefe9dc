//! The security section of a report as Markdown and HTML (the JSON is the serialised
//! [`SecuritySummary`]).

use std::fmt::Write;

use crate::security::witness::Witness;
use crate::security::{SecurityImpact, SecuritySummary};

/// Scalars as `U+XXXX` words.
fn scalars_text(scalars: &[u32]) -> String {
    scalars
        .iter()
        .map(|s| format!("U+{s:04X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One line per witness input: `C0 AF` → `U+002F`.
fn witness_inputs(witness: &Witness) -> String {
    witness
        .inputs
        .iter()
        .map(|input| format!("`{}` → {}", input.input_hex, scalars_text(&input.decoded)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `[high] character-swallowed`.
pub fn impact_label(impact: &SecurityImpact) -> String {
    format!("[{}] {}", impact.severity, impact.class)
}

/// The Markdown section (a `## Security impact` heading and its body).
pub fn markdown(summary: &SecuritySummary) -> String {
    let mut out = String::from("\n## Security impact\n\n");
    match summary.highest_severity {
        None => out.push_str("Nothing found.\n"),
        Some(severity) => {
            let _ = writeln!(
                out,
                "Highest severity: **{severity}** (scheme: docs/SECURITY-IMPACT.md).\n"
            );
            for class in &summary.classes {
                let _ = writeln!(
                    out,
                    "- **{}** {}: {} (RISK: {})",
                    class.severity,
                    class.class,
                    class.count,
                    class.class.risk()
                );
            }
        }
    }
    if let Some(variant) = &summary.variant {
        let _ = writeln!(
            out,
            "\nRecognised variant: **{}**, {} ({}).",
            variant.name,
            variant.description,
            variant.evidence.join("; ")
        );
    }
    if !summary.witnesses.is_empty() {
        let _ = writeln!(
            out,
            "\nExploit-shaped witnesses (the decoder was run on each):\n"
        );
        for witness in &summary.witnesses {
            let _ = writeln!(
                out,
                "- **{}** {}: {}. {}",
                witness.severity,
                witness.class,
                witness.shows,
                witness_inputs(witness)
            );
        }
    }
    out
}

/// The HTML section; `escape` escapes text for HTML.
pub fn html(summary: &SecuritySummary, escape: impl Fn(&str) -> String) -> String {
    let mut out = String::from("<h2 id=\"security\">Security impact</h2>\n");
    match summary.highest_severity {
        None => out.push_str("<p>Nothing found.</p>\n"),
        Some(severity) => {
            let _ = writeln!(
                out,
                "<p>Highest severity: <strong class=\"severity-{severity}\">{severity}</strong>.</p><table id=\"security-classes\"><tr><th>Severity</th><th>Class</th><th>Findings</th><th>Risk</th><th>Source</th></tr>"
            );
            for class in &summary.classes {
                let _ = writeln!(
                    out,
                    "<tr><td class=\"severity-{s}\">{s}</td><td>{}</td><td>{}</td><td>{}</td><td><small>{}</small></td></tr>",
                    class.class,
                    class.count,
                    escape(class.class.risk()),
                    escape(class.class.citation()),
                    s = class.severity
                );
            }
            out.push_str("</table>\n");
        }
    }
    if let Some(variant) = &summary.variant {
        let _ = writeln!(
            out,
            "<p>Recognised variant: <strong>{}</strong>, {} ({}).</p>",
            variant.name,
            escape(variant.description),
            escape(&variant.evidence.join("; "))
        );
    }
    if !summary.witnesses.is_empty() {
        out.push_str(
            "<p>Exploit-shaped witnesses (the decoder was run on each):</p><ul id=\"witnesses\">\n",
        );
        for witness in &summary.witnesses {
            let _ = writeln!(
                out,
                "<li><strong>{}</strong> {}: {} {}</li>",
                witness.severity,
                witness.class,
                escape(&witness.shows),
                escape(&witness_inputs(witness))
            );
        }
        out.push_str("</ul>\n");
    }
    out
}
