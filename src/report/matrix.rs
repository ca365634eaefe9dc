//! The conformance matrix of `utf8conf check --all`: several decoders side by side,
//! `matrix.json` (schema `utf8conf/matrix/1`), `matrix.md` and a self-contained
//! `matrix.html`.
//!
//! A row per decoder, a column per taxonomy category, plus the recognised U+FFFD policy
//! and wrapper policy; below the table, each decoder's departures, each once, with its
//! smallest input and the aspect that differs. Each decoder's full report is written
//! beside the matrix (`<name>/conformance.*`).

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use super::conformance::STYLE;
use crate::atomic_file::write_atomically;
use crate::conformance::report::{ConformanceReport, DepartureEntry, RecognisedPolicy};
use crate::conformance::CategoryStatus;
use crate::policy::ReplacementPolicy;
use crate::sanitize::html as escape_html;
use crate::security::{SecurityClass, Severity};
use crate::taxonomy::Category;
use crate::verdict::Verdict;

/// The reference's own policy, which the matrix does not list as a policy departure.
const MAXIMAL_SUBPART: RecognisedPolicy =
    RecognisedPolicy::Known(ReplacementPolicy::MaximalSubpart);

/// The `schema` value of `matrix.json`.
pub const MATRIX_SCHEMA: &str = "utf8conf/matrix/1";

/// `matrix.json`.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// Always [`MATRIX_SCHEMA`].
    pub schema: &'static str,
    /// utf8conf's version.
    pub tool_version: &'static str,
    /// When it ran (UTC, RFC 3339).
    pub created: String,
    /// The category columns, in order.
    pub categories: Vec<Category>,
    /// One row per decoder checked.
    pub decoders: Vec<MatrixRow>,
    /// Adapters not run, with the reason.
    pub skipped: Vec<Skipped>,
}

/// One decoder's row.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixRow {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// `builtin` or `adapter`.
    pub kind: &'static str,
    /// The adapter's argv.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Answer fields it reported.
    pub reports: Vec<&'static str>,
    /// What the check concluded.
    pub verdict: Verdict,
    /// The recognised U+FFFD policy.
    pub replacement_policy: RecognisedPolicy,
    /// True when it strips a leading BOM.
    pub bom_stripped: bool,
    /// The highest severity of its findings (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub highest_severity: Option<Severity>,
    /// The security classes of its findings, most severe first.
    pub security_classes: Vec<SecurityClass>,
    /// The known variant of UTF-8 it matches by design, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<&'static str>,
    /// Status per category, in the order of `categories`.
    pub statuses: Vec<CategoryStatus>,
    /// Its departures (as in its report).
    pub departures: Vec<DepartureEntry>,
    /// Inputs checked.
    pub inputs: u64,
    /// Seconds taken.
    pub duration_seconds: f64,
    /// Its full report's directory, relative to the matrix.
    pub report: String,
}

/// An adapter that was not run.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// Its name.
    pub name: String,
    /// Why.
    pub reason: String,
}

impl MatrixRow {
    /// A row from a decoder's report.
    pub fn from_report(report: &ConformanceReport, report_directory: &str) -> MatrixRow {
        MatrixRow {
            name: report.decoder.name.clone(),
            version: report.decoder.version.clone(),
            kind: if report.decoder.command.is_some() {
                "adapter"
            } else {
                "builtin"
            },
            command: report.decoder.command.clone(),
            reports: report.decoder.reports.clone(),
            verdict: report.verdict,
            replacement_policy: report.replacement_policy.recognised,
            bom_stripped: report.wrapper_policies.iter().any(|w| w.observed),
            highest_severity: report.security.highest_severity,
            security_classes: report.security.classes.iter().map(|c| c.class).collect(),
            variant: report.security.variant.as_ref().map(|v| v.name),
            statuses: report.categories.iter().map(|row| row.status).collect(),
            departures: report.departures.clone(),
            inputs: report.summary.inputs,
            duration_seconds: report.summary.duration_seconds,
            report: report_directory.to_string(),
        }
    }
}

impl Matrix {
    /// Writes `matrix.json`, `matrix.md` and `matrix.html` into `directory`, atomically.
    pub fn write(&self, directory: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(directory)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_atomically(&directory.join("matrix.json"), json.as_bytes())?;
        write_atomically(&directory.join("matrix.md"), self.markdown().as_bytes())?;
        write_atomically(&directory.join("matrix.html"), self.html().as_bytes())
    }

    /// `matrix.md`.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Conformance matrix\n");
        let _ = writeln!(
            out,
            "utf8conf {}, {}. Status per taxonomy category: pass, FAIL, policy (only the decoder's U+FFFD or BOM policy shows), - (untested). Each decoder's full report is in its directory.\n",
            self.tool_version, self.created
        );
        let mut header =
            "| Decoder | Version | Verdict | Severity | U+FFFD policy | BOM |".to_string();
        let mut rule = "|---|---|---|---|---|---|".to_string();
        for category in &self.categories {
            let _ = write!(header, " {category} |");
            rule.push_str("---|");
        }
        let _ = writeln!(out, "{header}\n{rule}");
        for row in &self.decoders {
            let mut line = format!(
                "| [{}]({}/conformance.md) | {} | {} | {} | {} | {} |",
                row.name,
                row.report,
                row.version.replace('|', "/"),
                row.verdict,
                row.severity_text(),
                row.replacement_policy,
                if row.bom_stripped { "stripped" } else { "kept" }
            );
            for status in &row.statuses {
                let _ = write!(line, " {} |", status_mark(*status));
            }
            let _ = writeln!(out, "{line}");
        }
        if !self.skipped.is_empty() {
            let _ = writeln!(out, "\nNot run:\n");
            for skipped in &self.skipped {
                let _ = writeln!(out, "- {}: {}", skipped.name, skipped.reason);
            }
        }
        out.push_str(&self.security_ranking_markdown());
        let _ = writeln!(out, "\n## Departures\n");
        for row in &self.decoders {
            let _ = writeln!(out, "### {}\n", row.name);
            if row.departures.is_empty()
                && row.replacement_policy == MAXIMAL_SUBPART
                && !row.bom_stripped
            {
                let _ = writeln!(out, "None.\n");
                continue;
            }
            if row.replacement_policy != MAXIMAL_SUBPART
                && row.replacement_policy != RecognisedPolicy::NotObserved
            {
                let _ = writeln!(out, "- policy: U+FFFD {}", row.replacement_policy);
            }
            if row.bom_stripped {
                let _ = writeln!(out, "- policy: strips a leading BOM");
            }
            for departure in &row.departures {
                let _ = writeln!(
                    out,
                    "- [{}] {} **{}** on {}: `{}`: {} ({} inputs)",
                    departure.security.severity,
                    departure.security.class,
                    departure.aspect,
                    departure
                        .categories
                        .iter()
                        .map(|c| c.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    departure.input_hex,
                    departure.summary,
                    departure.count
                );
            }
            let _ = writeln!(out);
        }
        out
    }

    /// `matrix.html`.
    pub fn html(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Conformance matrix</title><style>{STYLE} .matrix td {{ text-align: center; }} .matrix td:first-child {{ text-align: left; }}</style></head><body>\n<h1>Conformance matrix</h1>\n<p>utf8conf {}, {}. Status per taxonomy category; <em>policy</em> means only the decoder's U+FFFD or BOM policy shows there.</p>\n",
            self.tool_version,
            escape_html(&self.created)
        );
        let _ = write!(out, "<table class=\"matrix\" id=\"matrix\"><tr><th>Decoder</th><th>Verdict</th><th>Severity</th><th>U+FFFD policy</th><th>BOM</th>");
        for category in &self.categories {
            let _ = write!(out, "<th>{category}</th>");
        }
        let _ = writeln!(out, "</tr>");
        for row in &self.decoders {
            let _ = write!(
                out,
                "<tr data-decoder=\"{n}\"><td><a href=\"{}/conformance.html\">{n}</a><br><small>{}</small></td><td class=\"verdict-{v}\">{v}</td><td class=\"severity\">{}</td><td>{}</td><td>{}</td>",
                escape_html(&row.report),
                escape_html(&row.version),
                row.severity_text(),
                row.replacement_policy,
                if row.bom_stripped { "stripped" } else { "kept" },
                n = escape_html(&row.name),
                v = row.verdict
            );
            for status in &row.statuses {
                let _ = write!(out, "<td class=\"{s}\">{s}</td>", s = status.as_str());
            }
            let _ = writeln!(out, "</tr>");
        }
        let _ = writeln!(out, "</table>");
        if !self.skipped.is_empty() {
            let _ = writeln!(out, "<p>Not run:</p><ul>");
            for skipped in &self.skipped {
                let _ = writeln!(
                    out,
                    "<li>{}: {}</li>",
                    escape_html(&skipped.name),
                    escape_html(&skipped.reason)
                );
            }
            let _ = writeln!(out, "</ul>");
        }
        let _ = writeln!(out, "<h2>Departures</h2><table><tr><th>Decoder</th><th>Severity</th><th>Aspect</th><th>Categories</th><th>Smallest input</th><th>What differs</th><th>Inputs</th></tr>");
        for row in &self.decoders {
            for departure in &row.departures {
                let _ = writeln!(
                    out,
                    "<tr><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                    escape_html(&row.name),
                    departure.security.severity,
                    departure.security.class,
                    departure.aspect,
                    departure.categories.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "),
                    escape_html(&departure.input_hex),
                    escape_html(&departure.summary),
                    departure.count
                );
            }
        }
        let _ = writeln!(out, "</table></body></html>");
        out
    }
}

impl MatrixRow {
    /// The severity cell: the highest severity, with the variant when one is recognised.
    fn severity_text(&self) -> String {
        let severity = self.highest_severity.map_or("none", Severity::as_str);
        match self.variant {
            Some(variant) => format!("{severity} ({variant})"),
            None => severity.to_string(),
        }
    }
}

/// The classes the matrix ranks decoders by, the three exploitable ones of UTS #36 and
/// RFC 3629 §10 first.
const RANKED_CLASSES: [(SecurityClass, &str); 6] = [
    (
        SecurityClass::NonShortestAccepted,
        "Accept non-shortest (overlong) forms",
    ),
    (
        SecurityClass::CharacterSwallowed,
        "Swallow well-formed characters after an error",
    ),
    (
        SecurityClass::BytesDeleted,
        "Delete ill-formed bytes without a replacement",
    ),
    (
        SecurityClass::AboveMaxAccepted,
        "Accept values above U+10FFFF or 5-6-byte forms",
    ),
    (
        SecurityClass::SurrogatesAccepted,
        "Accept surrogates or CESU-8 pairs",
    ),
    (SecurityClass::OutputCutShort, "Cut their output short"),
];

impl Matrix {
    /// Which decoders show each of the ranked classes, and the decoders ordered by
    /// their highest severity.
    pub fn security_ranking_markdown(&self) -> String {
        let mut out = String::from("\n## Security ranking\n\n");
        let mut ranked: Vec<&MatrixRow> = self.decoders.iter().collect();
        ranked.sort_by_key(|row| std::cmp::Reverse(row.highest_severity));
        let order: Vec<String> = ranked
            .iter()
            .map(|row| format!("{} ({})", row.name, row.severity_text()))
            .collect();
        let _ = writeln!(out, "By highest severity: {}.\n", order.join(", "));
        for (class, title) in RANKED_CLASSES {
            let names: Vec<&str> = self
                .decoders
                .iter()
                .filter(|row| row.security_classes.contains(&class))
                .map(|row| row.name.as_str())
                .collect();
            let _ = writeln!(
                out,
                "- {title} ({}, {}): {}",
                class,
                class.severity(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            );
        }
        out
    }
}

fn status_mark(status: CategoryStatus) -> &'static str {
    match status {
        CategoryStatus::Pass => "pass",
        CategoryStatus::Fail => "FAIL",
        CategoryStatus::Affected => "affected",
        CategoryStatus::Policy => "policy",
        CategoryStatus::Untested => "-",
    }
}
