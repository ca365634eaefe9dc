//! What the CI formats (`--format sarif|junit`) say about a run or a check, in one shape.
//!
//! `utf8conf run` writes one finding report per finding and `utf8conf check` lists its
//! findings first ([`crate::finding::Finding`]: one bug of one decoder, named by its root
//! cause). Code scanning (SARIF) and test-report viewers (JUnit) want a few facts about
//! each: its stable id, the decoder, the taxonomy categories of its root cause, its title,
//! the witness, the reference's explanation, a command that reproduces it, and where it
//! came from (a vector file and line, or the report file itself). [`ExportedFinding`] is
//! that shape, built from a finding and the inputs that showed it, so the two writers
//! ([`super::sarif`], [`super::junit`]) know nothing of which command found it.
//!
//! Vector locations: a vector file's cases are TOML tables whose `id = "..."` line names
//! them (`vectors/README.md`), so a finding from a vector points at that line of that file.
//! The embedded files are found by name among [`vectors::EMBEDDED_FILES`] (reported as
//! `vectors/<name>`, their place in the repository); a file given with `--vectors` is read
//! again from its path.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::aspect::Aspect;
use crate::conformance::report::ConformanceReport;
use crate::corpus::{vectors, Origin};
use crate::engine::finding_report::FindingReport;
use crate::finding::Finding;
use crate::taxonomy::Category;

/// The report formats of `run` and `check`. JSON (with Markdown and HTML for `check`) is
/// always written: it is the contract that `utf8conf reproduce` and other tools read. The
/// other formats are written beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The JSON reports (always written).
    Json,
    /// SARIF 2.1.0 for code scanning, `utf8conf.sarif`.
    Sarif,
    /// JUnit XML for test-report viewers, `junit.xml`.
    Junit,
}

/// The file name of the SARIF log in a run or check directory.
pub const SARIF_FILE: &str = "utf8conf.sarif";
/// The file name of the JUnit report in a run or check directory.
pub const JUNIT_FILE: &str = "junit.xml";

/// Where a finding points in the source tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLocation {
    /// A path relative to the working directory (repository root), with `/` separators,
    /// or an absolute path.
    pub path: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
}

/// One finding, as the CI formats show it (see the module header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedFinding {
    /// The finding's stable id.
    pub id: String,
    /// The decoder under test.
    pub decoder: String,
    /// The aspects that differ (`valid`, `scalars`, `crash`, ...), in [`Aspect`] order;
    /// SARIF writes them as a list, so a reader never splits a string.
    pub aspects: Vec<Aspect>,
    /// The taxonomy categories of the root-cause unit.
    pub categories: Vec<Category>,
    /// One line in plain words.
    pub title: String,
    /// The smallest input that shows it, as hex bytes.
    pub witness_hex: String,
    /// The reference's account of the witness, in RFC 3629's grammar terms.
    pub explanation: String,
    /// A command that reproduces it, when there is one.
    pub reproduce: Option<String>,
    /// Set when the decoder gave no outcome (`crash`, `timeout`, `protocol`).
    pub failure_kind: Option<String>,
    /// Severity (`critical`, `high`, `medium`, `low`, `info`) where one is assigned.
    pub severity: Option<String>,
    /// Where the first input came from.
    pub origin: Origin,
    /// Where later inputs came from (a few).
    pub other_origins: Vec<Origin>,
    /// The vector case, or else the JSON report, this finding points at.
    pub location: SourceLocation,
}

impl ExportedFinding {
    /// The shape of `finding` ([`crate::finding::Finding`], one bug of one decoder), first
    /// seen in an input from `origin` (and later in `other_origins`); `report_path` is the
    /// JSON file that holds it (the location when `origin` is not a vector case).
    pub fn from_finding(
        finding: &Finding,
        origin: Origin,
        other_origins: Vec<Origin>,
        report_path: &Path,
    ) -> ExportedFinding {
        let failure_kind = finding
            .decoder_answer
            .as_ref()
            .and_then(|answer| answer.failure())
            .map(|kind| kind.as_str().to_string());
        ExportedFinding {
            id: finding.id.clone(),
            decoder: finding.decoder.clone(),
            aspects: finding.aspects.clone(),
            categories: finding.categories.clone(),
            title: format!("{}: {}", finding.decoder, finding.title),
            witness_hex: finding.witness_hex.clone(),
            explanation: finding.explanation.clone(),
            reproduce: Some(finding.reproduce.clone()).filter(|command| !command.is_empty()),
            failure_kind,
            severity: finding
                .security
                .as_ref()
                .map(|impact| impact.severity.as_str().to_string()),
            location: location_of(&origin).unwrap_or_else(|| file_location(report_path)),
            origin,
            other_origins,
        }
    }

    /// A finding report of `utf8conf run` (one report per finding), written at
    /// `report_path`.
    pub fn from_finding_report(report: &FindingReport, report_path: &Path) -> ExportedFinding {
        let mut exported = ExportedFinding::from_finding(
            &report.finding,
            report.origin.clone(),
            report.other_origins.clone(),
            report_path,
        );
        // The report's own command re-runs the pair from the report file.
        exported.reproduce = Some(report.finding.reproduce.clone());
        exported
    }

    /// Every finding of a `utf8conf check` report (written into `directory`), located at
    /// the first of its departures that came from a vector case, if any.
    pub fn from_conformance(report: &ConformanceReport, directory: &Path) -> Vec<ExportedFinding> {
        let json_path = directory.join("conformance.json");
        report
            .findings
            .iter()
            .map(|finding| {
                let mut origins = report
                    .departures
                    .iter()
                    .filter(|departure| departure.finding.as_deref() == Some(finding.id.as_str()))
                    .map(|departure| departure.origin.clone());
                let first = origins.next().unwrap_or_else(|| Origin::User {
                    source: format!("utf8conf check of {}", finding.decoder),
                });
                let mut others: Vec<Origin> = origins.collect();
                // A vector case, when there is one, is the better place to point at.
                if location_of(&first).is_none() {
                    if let Some(index) = others.iter().position(|o| location_of(o).is_some()) {
                        let vector = others.remove(index);
                        others.insert(0, first);
                        return ExportedFinding::from_finding(finding, vector, others, &json_path);
                    }
                }
                ExportedFinding::from_finding(finding, first, others, &json_path)
            })
            .collect()
    }

    /// True when the finding came from (or was also seen in) inputs of `source` (a vector
    /// file name or a generator name, see [`origin_source`]).
    pub fn seen_in(&self, source: &str) -> bool {
        std::iter::once(&self.origin)
            .chain(&self.other_origins)
            .any(|origin| origin_source(origin) == source)
    }
}

/// The input source of an origin, as `summary.json` counts them: `vectors/<file>` for a
/// vector, else [`Origin::source`] (the generator name, `fuzz:<target>` or `user`).
pub fn origin_source(origin: &Origin) -> String {
    match origin {
        Origin::Vector { file, .. } => format!("vectors/{file}"),
        other => other.source(),
    }
}

/// The file and line of a vector case, when `origin` is one and the case is found.
pub fn location_of(origin: &Origin) -> Option<SourceLocation> {
    let Origin::Vector { file, id } = origin else {
        return None;
    };
    let embedded = vectors::EMBEDDED_FILES
        .iter()
        .find(|(name, _)| name == file)
        .map(|(name, text)| (format!("vectors/{name}"), text.to_string()));
    let (path, text) = match embedded {
        Some(found) => found,
        None => (
            portable_path(Path::new(file)),
            std::fs::read_to_string(file).ok()?,
        ),
    };
    Some(SourceLocation {
        line: case_line(&text, id),
        path,
    })
}

/// The 1-based line of the `id = "<id>"` line of a vector file's text.
pub fn case_line(text: &str, id: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let Some(rest) = line.trim().strip_prefix("id") else {
                return false;
            };
            let Some(value) = rest.trim_start().strip_prefix('=') else {
                return false;
            };
            let value = value.trim();
            value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) == Some(id)
                || value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) == Some(id)
        })
        .map(|index| index + 1)
}

fn file_location(path: &Path) -> SourceLocation {
    SourceLocation {
        path: portable_path(path),
        line: None,
    }
}

/// `path` with `/` separators and no leading `./`.
fn portable_path(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    text.strip_prefix("./").map(str::to_string).unwrap_or(text)
}

/// `path` relative to the working directory when it lies below it (SARIF locations and
/// the paths printed for CI are repository-relative), else unchanged.
pub fn relative_to_cwd(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_is_found_by_its_id_line() {
        let text = "[meta]\ntitle = \"t\"\n\n[[case]]\nid = \"a-1\"\nhex = \"41\"\n\n[[case]]\nid = \"a-2\"\n";
        assert_eq!(case_line(text, "a-1"), Some(5));
        assert_eq!(case_line(text, "a-2"), Some(9));
        assert_eq!(case_line(text, "a"), None);
    }

    #[test]
    fn an_embedded_vector_points_at_its_line_in_the_repository() {
        let location = location_of(&Origin::Vector {
            file: "kuhn.toml".to_string(),
            id: "kuhn-1".to_string(),
        })
        .expect("kuhn-1 is an embedded case");
        assert_eq!(location.path, "vectors/kuhn.toml");
        let line = location.line.expect("the case line is found");
        let text = include_str!("../../vectors/kuhn.toml");
        assert_eq!(text.lines().nth(line - 1), Some("id = \"kuhn-1\""));
    }

    #[test]
    fn a_generated_input_has_no_vector_location() {
        let origin = Origin::Generator {
            name: "faults".to_string(),
            seed: 0,
            index: 3,
        };
        assert_eq!(location_of(&origin), None);
        assert_eq!(origin_source(&origin), "faults");
    }
}
