//! `conformance.md`: the Markdown view of a [`ConformanceReport`]. Adapter-controlled
//! text goes through [`markdown_text`] or into code spans ([`markdown_code`]).

use std::fmt::Write;

use super::{categories_text, conditions, findings, model, scalars_text, verdict_sentence};
use crate::conformance::report::{ConformanceReport, PolicyExample};
use crate::sanitize::{markdown_code, markdown_text};

/// `conformance.md`.
pub fn markdown(report: &ConformanceReport) -> String {
    let mut out = String::new();
    write_header(&mut out, report);
    findings::markdown(&mut out, &report.findings);
    model::markdown(&mut out, report.model.as_ref());
    conditions::markdown(&mut out, &report.condition_models);
    write_categories(&mut out, report);
    write_policy(&mut out, report);
    write_wrappers(&mut out, report);
    out.push_str(&crate::report::security::markdown(&report.security));
    write_departures(&mut out, report);
    if let Some(streaming) = &report.streaming {
        out.push_str(&crate::report::streaming::markdown(streaming));
    }
    write_two_byte_map(&mut out, report);
    out
}

/// The title, the verdict and the facts of the run.
fn write_header(out: &mut String, report: &ConformanceReport) {
    let decoder = &report.decoder;
    let _ = writeln!(
        out,
        "# Conformance: {} ({})\n",
        markdown_text(&decoder.name),
        markdown_text(&decoder.version)
    );
    let _ = writeln!(
        out,
        "Verdict: **{}**. {}\n",
        report.verdict,
        verdict_sentence(report, markdown_text)
    );
    if report.summary.partial {
        let _ = writeln!(
            out,
            "- **Partial report**: the check stopped early ({}); it shows what was found until then.",
            markdown_text(report.summary.stopped_by.as_deref().unwrap_or("stopped"))
        );
    }
    if let Some(command) = &decoder.command {
        let _ = writeln!(out, "- Adapter: {}", markdown_code(&command.join(" ")));
    }
    let _ = writeln!(out, "- Fields reported: {}", decoder.reports.join(", "));
    let summary = &report.summary;
    let sources: Vec<String> = summary
        .inputs_per_source
        .iter()
        .map(|(source, count)| format!("{source} {count}"))
        .collect();
    let _ = writeln!(
        out,
        "- Inputs: {} ({}), {:.1} s, {:.0} inputs/s; adapter restarts: {}",
        summary.inputs,
        sources.join(", "),
        summary.duration_seconds,
        summary.inputs_per_second,
        summary.restarts
    );
    if let Some(note) = &summary.exit_note {
        let _ = writeln!(out, "- At the end: {}", markdown_text(note));
    }
    if summary.flaky_crashes > 0 {
        let _ = writeln!(
            out,
            "- Flaky adapter: {} crashes did not recur when the input was retried (first: {})",
            summary.flaky_crashes,
            markdown_text(summary.first_flaky_crash.as_deref().unwrap_or("-"))
        );
    }
    let _ = writeln!(
        out,
        "- Checked by utf8conf {} at {}\n",
        report.tool_version, report.created
    );
}

/// The category table: each category's status and what shows in it.
fn write_categories(out: &mut String, report: &ConformanceReport) {
    let _ = writeln!(out, "## Categories\n");
    let _ = writeln!(
        out,
        "| Category | Status | Inputs | Failing aspects (smallest input) |"
    );
    let _ = writeln!(out, "|---|---|---:|---|");
    for row in &report.categories {
        let detail = if !row.failures.is_empty() {
            row.failures
                .iter()
                .map(|f| format!("{} (`{}`)", f.aspect, f.input_hex))
                .collect::<Vec<_>>()
                .join("; ")
        } else if let Some(example) = &row.policy_example_hex {
            format!("policy shows on `{example}`")
        } else if !row.findings.is_empty() {
            format!("finding {}", row.findings.join(", "))
        } else if !row.affected_by.is_empty() {
            format!("shows finding {}", row.affected_by.join(", "))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            row.category,
            row.status.as_str(),
            row.inputs,
            detail
        );
    }
}

/// The U+FFFD policy section: the hypotheses and what each explains.
fn write_policy(out: &mut String, report: &ConformanceReport) {
    let policy = &report.replacement_policy;
    let _ = writeln!(out, "\n## U+FFFD policy: {}\n", policy.recognised);
    let _ = writeln!(out, "{}.\n", policy.description);
    let _ = writeln!(
        out,
        "{} ill-formed inputs differ from the reference at most in their U+FFFD; in {} the count differs from maximal subparts.\n",
        policy.observations, policy.differing_from_maximal_subpart
    );
    let _ = writeln!(out, "| Hypothesis | Explains |");
    let _ = writeln!(out, "|---|---:|");
    for hypothesis in &policy.hypotheses {
        let _ = writeln!(
            out,
            "| {} | {} of {} |",
            hypothesis.policy.as_str(),
            hypothesis.explains,
            policy.observations
        );
    }
    write_examples(out, "Examples", &policy.examples);
    write_examples(
        out,
        "Counterexamples to the closest policy",
        &policy.counterexamples,
    );
}

/// The wrapper policies (a leading U+FEFF dropped or kept).
fn write_wrappers(out: &mut String, report: &ConformanceReport) {
    let _ = writeln!(out, "\n## Wrapper policies\n");
    for wrapper in &report.wrapper_policies {
        let _ = writeln!(
            out,
            "- {}: {} (dropped a leading U+FEFF in {} inputs, kept it in {}){}",
            wrapper.policy,
            if wrapper.observed {
                "observed"
            } else {
                "not observed"
            },
            wrapper.inputs_stripped,
            wrapper.inputs_kept,
            wrapper
                .example
                .as_ref()
                .map(|e| format!(
                    "; e.g. `{}` decodes to [{}]",
                    e.input_hex,
                    scalars_text(&e.decoder_scalars)
                ))
                .unwrap_or_default()
        );
    }
}

/// The departures from the reference, numbered.
fn write_departures(out: &mut String, report: &ConformanceReport) {
    let _ = writeln!(out, "\n## Departures\n");
    if report.departures.is_empty() {
        let _ = writeln!(out, "None.");
    }
    for (index, departure) in report.departures.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. {} **{}** on {}: `{}`{} ({}): {}.  \n   Decoder: {}  \n   Reference: `{}`  \n   {}",
            index + 1,
            crate::report::security::impact_label(&departure.security),
            departure.aspect,
            categories_text(&departure.categories),
            departure.input_hex,
            if departure.minimised { " (shrunk)" } else { "" },
            super::counted(departure.count as usize, "input", "inputs"),
            departure.summary,
            markdown_code(&departure.decoder_answer.to_json()),
            departure.reference,
            departure.explanation
        );
    }
}

/// The legend of the two-byte map (the map itself is drawn in conformance.html).
fn write_two_byte_map(out: &mut String, report: &ConformanceReport) {
    let map = &report.first_two_bytes_map;
    let _ = writeln!(out, "\n## Two-byte map\n");
    let _ = writeln!(out, "{} (drawn in conformance.html).\n", map.description);
    for (code, meaning) in &map.legend {
        let _ = writeln!(
            out,
            "- `{code}` {meaning}: {}",
            map.counts.get(code).copied().unwrap_or(0)
        );
    }
}

fn write_examples(out: &mut String, title: &str, examples: &[PolicyExample]) {
    if examples.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}:\n");
    let _ = writeln!(
        out,
        "| Input | Categories | Decoder | Maximal subpart (reference) |"
    );
    let _ = writeln!(out, "|---|---|---|---|");
    for example in examples {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            example.input_hex,
            categories_text(&example.categories),
            scalars_text(&example.decoder_scalars),
            scalars_text(
                example
                    .predictions
                    .get("maximal-subpart")
                    .map_or(&[][..], |v| v)
            )
        );
    }
}
