//! Markdown and HTML views of a [`ConformanceReport`].
//!
//! The HTML page is self-contained (inline CSS and JavaScript, no network): the category
//! table, the policy findings, the departures, and the 256x256 map of two-byte inputs drawn
//! on a canvas by an inline script from the map rows embedded as JSON. When the script has
//! drawn the map it records the number of cells drawn in the canvas's
//! `data-cells-drawn` attribute, so a headless browser can tell that it ran.

mod findings;
mod html;
mod markdown;

pub use html::{html, map_canvas, STYLE};
pub use markdown::markdown;

use super::report::ConformanceReport;

pub(super) fn scalars_text(scalars: &[u32]) -> String {
    scalars
        .iter()
        .map(|s| format!("{s:04X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn categories_text(categories: &[crate::taxonomy::Category]) -> String {
    categories
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn verdict_sentence(report: &ConformanceReport) -> String {
    let lossy = if report.replacement_policy.recognised == "not-observed" {
        "no lossy decode reported"
    } else {
        "U+FFFD per maximal subpart"
    };
    if report.is_conformant() {
        return format!("Every category passes; {lossy}; no wrapper policy.");
    }
    let mut parts = Vec::new();
    if report.summary.findings > 0 {
        parts.push(format!("{} findings", report.summary.findings));
    }
    if report.summary.categories_failed > 0 {
        parts.push(format!(
            "{} categories fail ({} distinct departures)",
            report.summary.categories_failed, report.summary.departures
        ));
    } else if report.summary.departures > 0 {
        parts.push(format!("{} distinct departures", report.summary.departures));
    }
    let policy = &report.replacement_policy.recognised;
    if policy != "maximal-subpart" && policy != "not-observed" {
        parts.push(format!("U+FFFD policy {policy}"));
    }
    if report.wrapper_policies.iter().any(|w| w.observed) {
        parts.push("strips a leading BOM".into());
    }
    if let Some(note) = &report.summary.exit_note {
        parts.push(note.clone());
    }
    if let Some(reason) = &report.summary.stopped_by {
        parts.push(format!("partial: {reason}"));
    }
    if report.summary.flaky_crashes > 0 {
        parts.push(format!(
            "adapter flaky: {} crashes did not recur on retry",
            report.summary.flaky_crashes
        ));
    }
    format!("{}.", parts.join("; "))
}
