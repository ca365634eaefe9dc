//! What a crate author expects of a conformance report, and a readable failure when the
//! report says otherwise ([`Expectations::assert`] in `cargo test`,
//! [`Expectations::unexpected`] in fuzzing).

use std::collections::BTreeSet;

use crate::conformance::policy::ReplacementPolicy;
use crate::conformance::report::ConformanceReport;
use crate::conformance::CategoryStatus;
use crate::taxonomy::Category;

/// Expected verdict per category and expected U+FFFD policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    failing: BTreeSet<Category>,
    policy: Option<ReplacementPolicy>,
}

impl Expectations {
    /// Every category passes (a U+FFFD or BOM policy of its own is allowed), any U+FFFD
    /// policy.
    pub fn conformant() -> Self {
        Expectations::default()
    }

    /// These categories are known to fail (a known limitation, or a bug you track): the
    /// report must mark exactly these `fail`, the status of a category where a finding's
    /// root cause lies. A category marked `affected` (it only shows a finding rooted in
    /// another category) need not be listed: listing the root cause covers it.
    pub fn failing(mut self, categories: &[Category]) -> Self {
        self.failing.extend(categories.iter().copied());
        self
    }

    /// The decoder's U+FFFD policy must be recognised as `policy`.
    pub fn policy(mut self, policy: ReplacementPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// True when at least one of `categories` is expected to fail (the fuzz entry
    /// point's cheap test, before a report is built).
    pub fn touches_expected(&self, categories: &[Category]) -> bool {
        categories
            .iter()
            .any(|category| self.failing.contains(category))
    }

    /// Categories the report marks `fail` that are not expected to, one line each with
    /// the findings rooted there and their witnesses (empty: nothing unexpected). Says
    /// nothing about expected failures that did not show, so it suits reports over few
    /// inputs (one fuzz input).
    pub fn unexpected(&self, report: &ConformanceReport) -> Vec<String> {
        report
            .categories
            .iter()
            .filter(|row| row.status == CategoryStatus::Fail)
            .filter(|row| !self.failing.contains(&row.category))
            .map(|row| {
                let findings: Vec<String> = report
                    .findings
                    .iter()
                    .filter(|finding| row.findings.contains(&finding.id))
                    .map(|finding| format!("{} on [{}]", finding.title, finding.witness_hex))
                    .collect();
                format!(
                    "{}: {} fails: {}",
                    report.decoder.name,
                    row.category.as_str(),
                    if findings.is_empty() {
                        "a departure rooted there".to_string()
                    } else {
                        findings.join("; ")
                    }
                )
            })
            .collect()
    }

    /// Everything in a full report that differs from these expectations: categories
    /// marked `fail` that are not expected to, expected ones marked otherwise, and a
    /// different U+FFFD policy.
    pub fn mismatches(&self, report: &ConformanceReport) -> Vec<String> {
        let mut lines = self.unexpected(report);
        for row in &report.categories {
            if self.failing.contains(&row.category) && row.status != CategoryStatus::Fail {
                lines.push(format!(
                    "{}: {} was expected to fail but is {}",
                    report.decoder.name,
                    row.category.as_str(),
                    row.status.as_str()
                ));
            }
        }
        if let Some(policy) = self.policy {
            let recognised = &report.replacement_policy.recognised;
            if recognised != policy.as_str() {
                lines.push(format!(
                    "{}: U+FFFD policy is {recognised} (closest: {}), expected {}",
                    report.decoder.name,
                    report.replacement_policy.closest,
                    policy.as_str()
                ));
            }
        }
        lines
    }

    /// Panics with every mismatch, one per line, if the report differs from these
    /// expectations.
    #[track_caller]
    pub fn assert(&self, report: &ConformanceReport) {
        let lines = self.mismatches(report);
        assert!(
            lines.is_empty(),
            "the conformance report differs from what was expected:\n{}",
            lines.join("\n")
        );
    }
}
