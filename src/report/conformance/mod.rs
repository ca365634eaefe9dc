//! Markdown and HTML views of a [`ConformanceReport`].
//!
//! The HTML page is self-contained (inline CSS and JavaScript, no network): the category
//! table, the policy findings, the departures, and the 256x256 map of two-byte inputs drawn
//! on a canvas by an inline script from the map rows embedded as JSON. When the script has
//! drawn the map it records the number of cells drawn in the canvas's
//! `data-cells-drawn` attribute, so a headless browser can tell that it ran.

mod conditions;
mod findings;
mod html;
mod markdown;
mod model;
mod write;

pub use html::{html, map_canvas, STYLE};
pub use markdown::markdown;

use crate::conformance::report::{ConformanceReport, RecognisedPolicy};
use crate::policy::ReplacementPolicy;

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

/// `count` and the noun, singular or plural: "1 finding", "2 findings".
pub(super) fn counted(count: usize, singular: &str, plural: &str) -> String {
    format!("{count} {}", if count == 1 { singular } else { plural })
}

/// The verdict in one sentence. The harness writes it, except the parts that quote the
/// decoder (its exit note, the reason it stopped), which go through `escape` (Markdown
/// or HTML), so the sentence's own punctuation is never escaped.
pub(super) fn verdict_sentence(report: &ConformanceReport, escape: fn(&str) -> String) -> String {
    let lossy = if report.replacement_policy.recognised == RecognisedPolicy::NotObserved {
        "no lossy decode reported"
    } else {
        "U+FFFD per maximal subpart"
    };
    if report.is_conformant() {
        return format!("Every category passes; {lossy}; no wrapper policy.");
    }
    let mut parts = Vec::new();
    if report.summary.findings > 0 {
        parts.push(counted(report.summary.findings, "finding", "findings"));
    }
    if report.summary.categories_failed > 0 {
        parts.push(format!(
            "{} ({})",
            counted(
                report.summary.categories_failed,
                "category fails",
                "categories fail"
            ),
            counted(
                report.summary.departures,
                "distinct departure",
                "distinct departures"
            )
        ));
    } else if report.summary.departures > 0 {
        parts.push(counted(
            report.summary.departures,
            "distinct departure",
            "distinct departures",
        ));
    }
    let policy = report.replacement_policy.recognised;
    if !matches!(
        policy,
        RecognisedPolicy::Known(ReplacementPolicy::MaximalSubpart) | RecognisedPolicy::NotObserved
    ) {
        parts.push(format!("U+FFFD policy {policy}"));
    }
    if report.wrapper_policies.iter().any(|w| w.observed) {
        parts.push("strips a leading BOM".into());
    }
    if let Some(note) = &report.summary.exit_note {
        parts.push(escape(note));
    }
    if let Some(reason) = &report.summary.stopped_by {
        parts.push(format!("partial: {}", escape(reason)));
    }
    if let Some(line) = process_line(&report.summary) {
        parts.push(line);
    }
    format!("{}.", parts.join("; "))
}

/// Restarts, flaky inputs and memory deaths, when there were any: "adapter flaky: 2
/// crashes and 1 timeout did not recur on retry; 3 restarts; 1 worker died at its memory
/// limit".
pub fn process_line(summary: &crate::conformance::report::Summary) -> Option<String> {
    let mut parts = Vec::new();
    let mut flaky = Vec::new();
    if summary.flaky_crashes > 0 {
        flaky.push(counted(summary.flaky_crashes as usize, "crash", "crashes"));
    }
    if summary.flaky_timeouts > 0 {
        flaky.push(counted(
            summary.flaky_timeouts as usize,
            "timeout",
            "timeouts",
        ));
    }
    if !flaky.is_empty() {
        parts.push(format!(
            "adapter flaky: {} did not recur on retry",
            flaky.join(" and ")
        ));
    }
    if summary.restarts > 0 {
        parts.push(counted(summary.restarts as usize, "restart", "restarts"));
    }
    if summary.memory_kills > 0 {
        parts.push(format!(
            "{} at {} memory limit",
            counted(summary.memory_kills as usize, "worker died", "workers died"),
            if summary.memory_kills == 1 {
                "its"
            } else {
                "their"
            }
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
