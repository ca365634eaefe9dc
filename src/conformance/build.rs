//! Building a [`ConformanceReport`] from a check run: findings first, then the category
//! table, the departures, the U+FFFD and BOM policies, the security summary and the map.
//! The types are in [`super::report`]; the Markdown and HTML views are in
//! the presentation layer (`report/conformance/`).

use super::report::{
    ConformanceReport, DecoderInfo, DepartureEntry, PolicyFinding, WrapperPolicyFinding,
};
use super::{CheckRun, CONFORMANCE_SCHEMA};
use crate::adapter::Stop;
use crate::finding::Finding;
use crate::security::witness::Assessment;
use crate::security::{SecuritySummary, Severity};
use crate::verdict::Verdict;

use super::sections::{
    bom_section, category_rows, departure_entries, map_section, replacement_policy_section,
    summary_section,
};

impl ConformanceReport {
    /// Builds the report from a run, one section at a time.
    pub fn from_run(run: &CheckRun, created: String) -> ConformanceReport {
        let departures = departure_entries(run);
        let (replacement_policy, policy_departs) = replacement_policy_section(run);
        let bom = bom_section(run);
        let categories = category_rows(run, &departures, &bom, policy_departs);
        let conformant = departures.is_empty()
            && !policy_departs
            && !bom.observed
            && run.exit_note.is_none()
            && run.flaky_crashes == 0
            && run.flaky_timeouts == 0
            && run.memory_kills == 0;
        let summary = summary_section(run, &categories, departures.len());
        // Findings most severe first (stable: equal severities keep the diagnosis order).
        let mut findings = run.findings.clone();
        findings.sort_by_key(|f| std::cmp::Reverse(f.security.as_ref().map(|i| i.severity)));
        let security = security_section(&findings, &departures, &replacement_policy, &bom);
        ConformanceReport {
            security,
            schema: CONFORMANCE_SCHEMA,
            tool_version: env!("CARGO_PKG_VERSION"),
            created,
            decoder: DecoderInfo {
                name: run.decoder_name.clone(),
                version: run.decoder_version.clone(),
                command: run.command.clone(),
                reports: run.reported_fields.clone(),
            },
            verdict: match &run.stopped {
                Some(Stop::Unusable(_)) => Verdict::AdapterUnusable,
                Some(_) => Verdict::Incomplete,
                None if conformant => Verdict::Conformant,
                None => Verdict::Deviations,
            },
            findings,
            summary,
            categories,
            replacement_policy,
            wrapper_policies: vec![bom],
            departures,
            first_two_bytes_map: map_section(&run.map),
            streaming: None,
            model: run.model.clone(),
            condition_models: run.conditions.clone(),
        }
    }

    /// Adds the streaming section; a departure or failure in it makes a conformant
    /// verdict `deviations`, and a stop (signal, time limit, unusable adapter) makes it
    /// `incomplete`.
    pub fn add_streaming(&mut self, section: super::streaming::StreamingSection) {
        if self.verdict == Verdict::Conformant && section.stop.is_some() {
            self.verdict = Verdict::Incomplete;
        } else if self.verdict == Verdict::Conformant && !section.is_clean() {
            self.verdict = Verdict::Deviations;
        }
        self.streaming = Some(section);
    }

    /// Adds the exploit-shaped witnesses and the recognised variant, from running the
    /// decoder on the probes of [`crate::security::witness`]. A departure gets the witnesses of
    /// its own class.
    pub fn attach_assessment(&mut self, assessment: Assessment) {
        for finding in &mut self.findings {
            if let Some(impact) = &finding.security {
                finding.witnesses = assessment.witnesses_of(impact.class);
            }
        }
        for entry in &mut self.departures {
            entry.witnesses = assessment.witnesses_of(entry.security.class);
        }
        self.security.witnesses = assessment.witnesses;
        self.security.variant = assessment.variant;
    }

    /// The highest severity found, if anything was.
    pub fn highest_severity(&self) -> Option<Severity> {
        self.security.highest_severity
    }

    /// True when the decoder conforms (exit status 0).
    pub fn is_conformant(&self) -> bool {
        self.verdict == Verdict::Conformant
    }
}

/// Classes counted over the findings (one per bug); the highest severity over
/// everything reported, departures and policy findings included, so that `--fail-on`
/// never misses a departure classed higher than its finding.
fn security_section(
    findings: &[Finding],
    departures: &[DepartureEntry],
    policy: &PolicyFinding,
    bom: &WrapperPolicyFinding,
) -> SecuritySummary {
    let mut summary = SecuritySummary::of(findings.iter().filter_map(|f| f.security.as_ref()));
    summary.highest_severity = departures
        .iter()
        .map(|d| &d.security)
        .chain(policy.security.iter())
        .chain(bom.security.iter())
        .map(|impact| impact.severity)
        .chain(summary.highest_severity)
        .max();
    summary
}
