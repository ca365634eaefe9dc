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

    /// These categories are known to depart from the reference (a known limitation, or a
    /// bug you track): each must fail, or be affected by a finding rooted elsewhere.
    pub fn failing(mut self, categories: &[Category]) -> Self {
        self.failing.extend(categories.iter().copied());
        self
    }

    /// The decoder's U+FFFD policy must be recognised as `policy`.
    pub fn policy(mut self, policy: ReplacementPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// True when a departure in `categories` is expected (all of them may fail).
    pub fn allows(&self, categories: &[Category]) -> bool {
        categories
            .iter()
            .all(|category| self.failing.contains(category))
    }

    /// True when at least one of `categories` is expected to fail.
    pub fn touches_expected(&self, categories: &[Category]) -> bool {
        categories
            .iter()
            .any(|category| self.failing.contains(category))
    }

    /// Departures in categories not expected to fail, one line each with the smallest
    /// input (empty: nothing unexpected). Says nothing about expected failures that did
    /// not show, so it suits reports over few inputs (one fuzz input).
    pub fn unexpected(&self, report: &ConformanceReport) -> Vec<String> {
        report
            .departures
            .iter()
            .filter(|departure| !self.allows(&departure.categories))
            .map(|departure| {
                format!(
                    "{}: {} on [{}] ({}): {}",
                    report.decoder.name,
                    departure.aspect,
                    departure.input_hex,
                    departure
                        .categories
                        .iter()
                        .map(|c| c.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    departure.summary
                )
            })
            .collect()
    }

    /// Everything in a full report that differs from these expectations: unexpected
    /// departures, categories expected to fail that did not, untested categories
    /// expected to fail, and a different U+FFFD policy.
    pub fn mismatches(&self, report: &ConformanceReport) -> Vec<String> {
        let mut lines = self.unexpected(report);
        for row in &report.categories {
            // A category departs when it fails (a finding's root cause is there) or is
            // affected (it shows another finding's manifestations).
            let departs = matches!(row.status, CategoryStatus::Fail | CategoryStatus::Affected);
            if self.failing.contains(&row.category) && !departs {
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
