//! The streaming section of a conformance report as Markdown.

use std::fmt::Write;

use crate::conformance::streaming::StreamingSection;
use crate::conformance::streaming_model::StreamedMachine;

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
    if let Some(machine) = &section.machine {
        out.push_str(&machine_markdown(machine));
    }
    out
}

/// The machine's part of the streaming section, as Markdown.
fn machine_markdown(machine: &StreamedMachine) -> String {
    let learned = &machine.learned;
    let mut out = format!(
        "\nFed one byte per chunk, its machine has {} states ({} decodes, {} ms)",
        learned.machine.states.len(),
        learned.queries.decodes,
        learned.queries.milliseconds
    );
    match (&learned.incomplete, machine.same_as_one_shot) {
        (Some(why), _) => {
            let _ = writeln!(out, ", incomplete: {why}.");
        }
        (None, Some(true)) => out.push_str(
            ": the one-shot machine. No input decodes differently fed one byte at a time.\n",
        ),
        (None, Some(false)) => out.push_str(": not the one-shot machine.\n"),
        (None, None) => {
            out.push_str("; the one-shot machine is not complete, so the two are not compared.\n")
        }
    }
    if !machine.findings.is_empty() {
        out.push_str("\n| Streaming finding | Witness, one byte per chunk |\n|---|---|\n");
        for finding in &machine.findings {
            let _ = writeln!(
                out,
                "| {} | `{}` |",
                finding.title,
                crate::hex::format_hex(&finding.witness)
            );
        }
    }
    out
}
