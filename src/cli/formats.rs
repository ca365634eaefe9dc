//! `--format json|sarif|junit` of `run` and `check`: the CI formats, written beside the
//! JSON reports (which are always written: `reproduce` and other tools read them).
//!
//! - `run`: `<run-dir>/utf8conf.sarif` and `<run-dir>/junit.xml` (one test case per
//!   decoder and input source: each vector file, each generator).
//! - `check`: `<out>/utf8conf.sarif` and `<out>/junit.xml` (one test case per decoder and
//!   category); with `--all`, in the matrix directory, covering every decoder checked, and
//!   an adapter that was not run is a skipped test case.
//!
//! Each path written is printed on stdout (`sarif: PATH`, `junit: PATH`), so a script or
//! the GitHub Action can pick it up.

use std::path::{Path, PathBuf};

use super::CliError;
use crate::conformance::report::ConformanceReport;
use crate::engine::RunResult;
use crate::report::export::{
    relative_to_cwd, ExportedFinding, OutputFormat, JUNIT_FILE, SARIF_FILE,
};
use crate::report::junit::{self, CaseOutcome, TestCase, TestSuite};
use crate::report::matrix::Skipped;
use crate::report::sarif;

/// Writes the requested CI formats of a finished run.
pub fn write_run_formats(formats: &[OutputFormat], result: &RunResult) -> Result<(), CliError> {
    let findings: Vec<ExportedFinding> = result
        .reports
        .iter()
        .map(|report| {
            let path = result
                .run_dir
                .join("divergences")
                .join(format!("{}.json", report.id));
            ExportedFinding::from_finding_report(report, &relative_to_cwd(&path))
        })
        .collect();
    if formats.contains(&OutputFormat::Sarif) {
        let path = result.run_dir.join(SARIF_FILE);
        write(&path, "sarif", |p| sarif::write_sarif(p, &findings))?;
    }
    if formats.contains(&OutputFormat::Junit) {
        // The summary's sources: `vectors/<file>` per vector file, then each generator.
        let sources: Vec<String> = result.summary.sources.keys().cloned().collect();
        let suites = junit::run_suites(&result.summary, &sources, &findings);
        let path = result.run_dir.join(JUNIT_FILE);
        write(&path, "junit", |p| junit::write_junit(p, &suites))?;
    }
    Ok(())
}

/// Writes the requested CI formats of one or more checks into `directory`: `reports` with
/// the directory each was written to, and the adapters that were not run.
pub fn write_check_formats(
    formats: &[OutputFormat],
    directory: &Path,
    reports: &[(ConformanceReport, PathBuf)],
    skipped: &[Skipped],
) -> Result<(), CliError> {
    let exported: Vec<(&ConformanceReport, Vec<ExportedFinding>)> = reports
        .iter()
        .map(|(report, written_to)| {
            let findings = ExportedFinding::from_conformance(report, &relative_to_cwd(written_to));
            (report, findings)
        })
        .collect();
    if formats.contains(&OutputFormat::Sarif) {
        let findings: Vec<ExportedFinding> = exported
            .iter()
            .flat_map(|(_, findings)| findings.iter().cloned())
            .collect();
        write(&directory.join(SARIF_FILE), "sarif", |p| {
            sarif::write_sarif(p, &findings)
        })?;
    }
    if formats.contains(&OutputFormat::Junit) {
        let mut suites = junit::check_suites(&exported);
        suites.extend(skipped.iter().map(|skipped| TestSuite {
            name: skipped.name.clone(),
            cases: vec![TestCase {
                classname: skipped.name.clone(),
                name: "adapter".to_string(),
                outcome: CaseOutcome::Skipped(skipped.reason.clone()),
                output: None,
            }],
        }));
        write(&directory.join(JUNIT_FILE), "junit", |p| {
            junit::write_junit(p, &suites)
        })?;
    }
    Ok(())
}

fn write(
    path: &Path,
    label: &str,
    writer: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), CliError> {
    writer(path).map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
    println!("{label}: {}", path.display());
    Ok(())
}
