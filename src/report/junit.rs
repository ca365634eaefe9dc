//! `junit.xml`: a run or a check as JUnit XML, for CI test-report viewers
//! (`--format junit` of `run` and `check`).
//!
//! JUnit XML has no standard, but every reader (Jenkins, GitLab, GitHub test-report
//! actions, `junitparser`) accepts the shape of Ant's JUnit task: `<testsuites>` holding
//! `<testsuite name tests failures errors skipped>`, each holding `<testcase classname
//! name>` with at most one `<failure message type>` or `<skipped message>` child.
//! `.ci/ci-formats.sh` reads every file written in CI back with `junitparser`.
//!
//! - `check`: one suite per decoder, one test case per taxonomy category: a `fail`
//!   category fails with the findings whose root cause is of that category, an `untested`
//!   one is skipped, `pass`, `policy` and `affected` pass (the policy, or the findings about
//!   other categories that show there, noted in `system-out`).
//! - `run`: one suite per decoder, one test case per input source (each vector file, each
//!   generator): it fails with the findings first seen, or also seen, in that source's
//!   inputs.
//!
//! A failure's message is its findings' titles; its text gives each finding's witness, the
//! reference's explanation and the reproduction command. Adapter-controlled text (decoder
//! names, versions, messages) is escaped, and characters XML 1.0 cannot carry (§2.2:
//! `Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`) are
//! written as `\u{..}`.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::export::ExportedFinding;
use crate::atomic_file::write_atomically;
use crate::conformance::report::ConformanceReport;
use crate::conformance::CategoryStatus;
use crate::engine::summary::Summary;
use crate::sanitize::xml as escape;

/// One `<testsuite>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestSuite {
    /// Its name (the decoder).
    pub name: String,
    /// Its test cases.
    pub cases: Vec<TestCase>,
}

/// One `<testcase>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCase {
    /// `classname`: the decoder.
    pub classname: String,
    /// `name`: the category or the input source.
    pub name: String,
    /// How it ended.
    pub outcome: CaseOutcome,
    /// Extra text for `<system-out>`.
    pub output: Option<String>,
}

/// How a test case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseOutcome {
    /// Passed.
    Passed,
    /// Failed: a one-line message and the details.
    Failed {
        /// The `message` attribute.
        message: String,
        /// The element's text.
        details: String,
    },
    /// Not run, with the reason.
    Skipped(String),
}

/// The failure of a test case showing `findings` (none: passed).
fn outcome_of(findings: &[&ExportedFinding]) -> CaseOutcome {
    if findings.is_empty() {
        return CaseOutcome::Passed;
    }
    let titles: Vec<&str> = findings.iter().map(|f| f.title.as_str()).collect();
    let message = if findings.len() == 1 {
        titles[0].to_string()
    } else {
        format!("{} findings: {}", findings.len(), titles.join("; "))
    };
    let mut details = String::new();
    for finding in findings {
        let _ = writeln!(details, "{} [{}]", finding.title, finding.id);
        let _ = writeln!(details, "  witness: [{}]", finding.witness_hex);
        let _ = writeln!(details, "  reference: {}", finding.explanation);
        if let Some(command) = &finding.reproduce {
            let _ = writeln!(details, "  reproduce: {command}");
        }
    }
    CaseOutcome::Failed { message, details }
}

/// The suites of `utf8conf check`: per report (decoder), one case per category. `findings`
/// are each report's findings (see [`ExportedFinding::from_conformance`]).
pub fn check_suites(reports: &[(&ConformanceReport, Vec<ExportedFinding>)]) -> Vec<TestSuite> {
    reports
        .iter()
        .map(|(report, findings)| {
            let decoder = &report.decoder.name;
            let cases = report
                .categories
                .iter()
                .map(|row| {
                    let outcome = match row.status {
                        CategoryStatus::Untested => {
                            CaseOutcome::Skipped("no input of this category was checked".into())
                        }
                        CategoryStatus::Fail => {
                            let shown: Vec<&ExportedFinding> = findings
                                .iter()
                                .filter(|finding| row.findings.contains(&finding.id))
                                .collect();
                            match outcome_of(&shown) {
                                CaseOutcome::Passed => CaseOutcome::Failed {
                                    message: format!("{} fails", row.category),
                                    details: String::new(),
                                },
                                failed => failed,
                            }
                        }
                        CategoryStatus::Pass
                        | CategoryStatus::Policy
                        | CategoryStatus::Affected => CaseOutcome::Passed,
                    };
                    let output = if row.status == CategoryStatus::Affected {
                        Some(format!(
                            "affected by findings about other categories: {}",
                            row.affected_by.join(", ")
                        ))
                    } else {
                        row.policy_example_hex.as_ref().map(|hex| {
                            format!("a policy, not a departure; smallest input showing it: [{hex}]")
                        })
                    };
                    TestCase {
                        classname: decoder.clone(),
                        name: row.category.as_str().to_string(),
                        outcome,
                        output,
                    }
                })
                .collect();
            TestSuite {
                name: decoder.clone(),
                cases,
            }
        })
        .collect()
}

/// The suites of `utf8conf run`: per decoder of the run's summary, one case per input
/// source. `sources` are the run's sources as `summary.json` names them (`vectors/<file>`,
/// generator names).
pub fn run_suites(
    summary: &Summary,
    sources: &[String],
    findings: &[ExportedFinding],
) -> Vec<TestSuite> {
    let decoders: Vec<&str> = summary.decoders.iter().map(|d| d.name.as_str()).collect();
    suites_by_source(&decoders, sources, findings)
}

fn suites_by_source(
    decoders: &[&str],
    sources: &[String],
    findings: &[ExportedFinding],
) -> Vec<TestSuite> {
    decoders
        .iter()
        .map(|&decoder| {
            let cases = sources
                .iter()
                .map(|source| {
                    let shown: Vec<&ExportedFinding> = findings
                        .iter()
                        .filter(|f| f.decoder == decoder && f.seen_in(source))
                        .collect();
                    TestCase {
                        classname: decoder.to_string(),
                        name: source.clone(),
                        outcome: outcome_of(&shown),
                        output: None,
                    }
                })
                .collect();
            TestSuite {
                name: decoder.to_string(),
                cases,
            }
        })
        .collect()
}

/// The JUnit XML text of `suites`.
pub fn render(suites: &[TestSuite]) -> String {
    let count = |suite: &TestSuite, wanted: fn(&CaseOutcome) -> bool| {
        suite.cases.iter().filter(|c| wanted(&c.outcome)).count()
    };
    let is_failed = |o: &CaseOutcome| matches!(o, CaseOutcome::Failed { .. });
    let is_skipped = |o: &CaseOutcome| matches!(o, CaseOutcome::Skipped(_));
    let total: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().map(|s| count(s, is_failed)).sum();
    let skipped: usize = suites.iter().map(|s| count(s, is_skipped)).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"utf8conf\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">"
    );
    for suite in suites {
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
            escape(&suite.name),
            suite.cases.len(),
            count(suite, is_failed),
            count(suite, is_skipped)
        );
        for case in &suite.cases {
            let _ = write!(
                xml,
                "    <testcase classname=\"{}\" name=\"{}\"",
                escape(&case.classname),
                escape(&case.name)
            );
            if case.outcome == CaseOutcome::Passed && case.output.is_none() {
                xml.push_str("/>\n");
                continue;
            }
            xml.push_str(">\n");
            match &case.outcome {
                CaseOutcome::Passed => {}
                CaseOutcome::Failed { message, details } => {
                    let _ = writeln!(
                        xml,
                        "      <failure message=\"{}\" type=\"departure\">{}</failure>",
                        escape(message),
                        escape(details)
                    );
                }
                CaseOutcome::Skipped(reason) => {
                    let _ = writeln!(xml, "      <skipped message=\"{}\"/>", escape(reason));
                }
            }
            if let Some(output) = &case.output {
                let _ = writeln!(xml, "      <system-out>{}</system-out>", escape(output));
            }
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// Writes `suites` as JUnit XML to `path` (atomically).
pub fn write_junit(path: &Path, suites: &[TestSuite]) -> io::Result<()> {
    write_atomically(path, render(suites).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aspect::Aspect;
    use crate::corpus::Origin;
    use crate::report::export::SourceLocation;

    fn finding(decoder: &str, origin: Origin) -> ExportedFinding {
        ExportedFinding {
            id: "00000000000000aa".to_string(),
            decoder: decoder.to_string(),
            aspects: vec![Aspect::Valid],
            categories: Vec::new(),
            title: "stops <early> & \"quietly\"".to_string(),
            witness_hex: "00 41".to_string(),
            explanation: "UTF8-1".to_string(),
            reproduce: Some("utf8conf reproduce x.json".to_string()),
            failure_kind: None,
            severity: None,
            origin,
            other_origins: Vec::new(),
            location: SourceLocation {
                path: "x.json".to_string(),
                line: None,
            },
        }
    }

    #[test]
    fn escaping_covers_markup_and_characters_xml_cannot_carry() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(escape("x\u{1}y\u{FFFE}"), "x\\u{1}y\\u{fffe}");
        assert_eq!(escape("line\nnext\ttab"), "line\nnext\ttab");
    }

    #[test]
    fn a_run_case_fails_with_the_findings_seen_in_its_source() {
        let vector = Origin::Vector {
            file: "kuhn.toml".to_string(),
            id: "kuhn-1".to_string(),
        };
        let findings = [finding("mutant", vector)];
        let sources = ["vectors/kuhn.toml".to_string(), "faults".to_string()];
        let suites = suites_by_source(&["std", "mutant"], &sources, &findings);
        assert_eq!(suites.len(), 2);
        assert!(suites[0]
            .cases
            .iter()
            .all(|c| c.outcome == CaseOutcome::Passed));
        let mutant = &suites[1].cases;
        assert!(
            matches!(&mutant[0].outcome, CaseOutcome::Failed { details, .. }
            if details.contains("witness: [00 41]") && details.contains("utf8conf reproduce"))
        );
        assert_eq!(mutant[1].outcome, CaseOutcome::Passed);
        let xml = render(&suites);
        assert!(xml.contains("failures=\"1\""));
        assert!(xml.contains("message=\"stops &lt;early&gt; &amp; &quot;quietly&quot;\""));
    }
}
