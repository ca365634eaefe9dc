//! What a crate author expects of a conformance report, and a readable failure when the
//! report says otherwise ([`Expectations::assert`] in `cargo test`,
//! [`Expectations::unexpected`] in fuzzing).

use std::collections::BTreeSet;

use crate::conformance::report::{CategoryRow, ConformanceReport, RecognisedPolicy};
use crate::conformance::CategoryStatus;
use crate::policy::ReplacementPolicy;
use crate::taxonomy::Category;

/// Expected verdict per category and expected U+FFFD policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    failing: BTreeSet<Category>,
    affected: BTreeSet<Category>,
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

    /// These categories are known to be `affected`: they show findings whose root cause
    /// is in a `failing` category (the report's word for it). A full report must mark
    /// exactly these `affected`. On one fuzz input the diagnosis sees no other input to
    /// place the root cause by, and may root such a departure in the category itself:
    /// [`Expectations::unexpected`] tolerates these categories for that reason, so list
    /// only what the full report marks `affected`.
    pub fn affected(mut self, categories: &[Category]) -> Self {
        self.affected.extend(categories.iter().copied());
        self
    }

    /// The decoder's U+FFFD policy must be recognised as `policy`.
    pub fn policy(mut self, policy: ReplacementPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// True when at least one of `categories` is expected to fail or to be affected (the
    /// fuzz entry point's cheap test, before a report is built).
    pub fn touches_expected(&self, categories: &[Category]) -> bool {
        categories.iter().any(|category| self.expects(category))
    }

    fn expects(&self, category: &Category) -> bool {
        self.failing.contains(category) || self.affected.contains(category)
    }

    /// Categories the report marks `fail` that are listed neither as failing nor as
    /// affected, one line each with the findings rooted there and their witnesses (empty:
    /// nothing unexpected). Says nothing about expected failures that did not show, so it
    /// suits reports over few inputs (one fuzz input).
    pub fn unexpected(&self, report: &ConformanceReport) -> Vec<String> {
        report
            .categories
            .iter()
            .filter(|row| row.status == CategoryStatus::Fail)
            .filter(|row| !self.expects(&row.category))
            .map(|row| Self::unexpected_row(report, row))
            .collect()
    }

    /// One category marked `fail` without being expected to, with the findings rooted
    /// there and their witnesses.
    fn unexpected_row(report: &ConformanceReport, row: &CategoryRow) -> String {
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
    }

    /// Everything in a full report that differs from these expectations: categories
    /// marked `fail` or `affected` other than those listed so, and a different U+FFFD
    /// policy.
    pub fn mismatches(&self, report: &ConformanceReport) -> Vec<String> {
        let mut lines = Vec::new();
        for row in &report.categories {
            let listed = if self.failing.contains(&row.category) {
                Some(CategoryStatus::Fail)
            } else if self.affected.contains(&row.category) {
                Some(CategoryStatus::Affected)
            } else {
                None
            };
            let unlisted_fail = listed.is_none() && row.status == CategoryStatus::Fail;
            if unlisted_fail {
                lines.push(Self::unexpected_row(report, row));
            } else if let Some(expected) = listed.filter(|&expected| expected != row.status) {
                let expectation = match expected {
                    CategoryStatus::Fail => "to fail",
                    _ => "to be affected",
                };
                lines.push(format!(
                    "{}: {} was expected {expectation} but is {}",
                    report.decoder.name,
                    row.category.as_str(),
                    row.status.as_str()
                ));
            }
        }
        if let Some(policy) = self.policy {
            let recognised = report.replacement_policy.recognised;
            if recognised != RecognisedPolicy::Known(policy) {
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
