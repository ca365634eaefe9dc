//! The streaming section of a conformance report as Markdown.

use std::fmt::Write;

use crate::conformance::streaming::StreamingSection;

/// The section as Markdown (adapter-controlled text is only hex and numbers here).
pub fn markdown(section: &StreamingSection) -> String {
    let mut out = String::from("\n## Streaming\n\n");
    let _ = writeln!(
        out,
        "{} inputs fed in chunks, {} feeds, {} failed; split-point departures: {}; promptness departures: {} ({} inputs not graded for promptness: their one-chunk decode differs from the reference).",
        section.inputs,
        section.feeds,
        section.failed_feeds,
        section.split_point_departures,
        section.promptness_departures,
        section.promptness_not_graded
    );
    if let Some(stopped) = &section.stopped {
        let _ = writeln!(
            out,
            "\nStopped early: {}",
            crate::sanitize::markdown_text(stopped)
        );
    }
    if let Some(failure) = &section.first_failure {
        let _ = writeln!(
            out,
            "\nFirst failure: {}",
            crate::sanitize::markdown_text(failure)
        );
    }
    if !section.departures.is_empty() {
        let _ = writeln!(
            out,
            "\n| Property | Input | Chunks | What happened |\n|---|---|---|---|"
        );
        for departure in &section.departures {
            let _ = writeln!(
                out,
                "| {} | `{}` | `{}` | {} |",
                departure.property,
                departure.input,
                departure.chunks.join(" / "),
                departure.detail
            );
        }
    }
    out
}
