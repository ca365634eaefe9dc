//! What `utf8conf check` prints on the terminal: a decoder's summary line, its findings,
//! and where its report was written.

use std::path::Path;

use crate::conformance::report::ConformanceReport;
use crate::sanitize;
use crate::security::Severity;

/// Prints a check's summary line and its findings (the report's path follows once the
/// report is written: [`print_report_path`]).
pub(super) fn print_summary(report: &ConformanceReport) {
    let failed: Vec<&str> = report
        .categories
        .iter()
        .filter(|row| row.status == crate::conformance::CategoryStatus::Fail)
        .map(|row| row.category.as_str())
        .collect();
    println!(
        "{} ({}): {}; {} finding{}; highest severity: {}; U+FFFD policy: {}; BOM: {}; failing categories: {}; {} distinct departures; {} inputs in {:.1} s",
        sanitize::terminal(&report.decoder.name),
        sanitize::terminal(&report.decoder.version),
        report.verdict,
        report.summary.findings,
        if report.summary.findings == 1 { "" } else { "s" },
        report
            .security
            .highest_severity
            .map_or("none", Severity::as_str),
        report.replacement_policy.recognised,
        if report.wrapper_policies.iter().any(|w| w.observed) { "stripped" } else { "kept" },
        if failed.is_empty() { "none".to_string() } else { failed.join(", ") },
        report.summary.departures,
        report.summary.inputs,
        report.summary.duration_seconds
    );
    if let Some(line) = crate::report::conformance::process_line(&report.summary) {
        println!("  {line}");
    }
    for finding in &report.findings {
        let categories: Vec<&str> = finding.categories.iter().map(|c| c.as_str()).collect();
        println!(
            "  {}  {}  [{}]  {}",
            finding.id,
            finding.title,
            categories.join(","),
            finding.witness_hex
        );
    }
    if let Some(model) = &report.model {
        println!("  model: {}", model.recognition.summary);
    }
}

/// Prints where a check's report is, once it has been written there.
pub(super) fn print_report_path(directory: &Path) {
    println!("report: {}", directory.join("conformance.md").display());
}
