//! The conformance report: `conformance.json` (schema `utf8conf/conformance/1`, in
//! `schemas/conformance.schema.json`), `conformance.md` and a self-contained
//! `conformance.html`, written atomically into one directory.
//!
//! The JSON is built first ([`ConformanceReport::from_run`]); the Markdown and HTML are
//! views of it, so the three never disagree.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::aspect::Aspect;
use crate::corpus::Origin;
use crate::finding::Finding;
use crate::policy::ReplacementPolicy;
use crate::security::witness::Witness;
use crate::security::{SecurityImpact, SecuritySummary};
use crate::taxonomy::Category;
use crate::time;
use crate::verdict::Verdict;

/// `conformance.json`.
#[derive(Debug, Clone, Serialize)]
pub struct ConformanceReport {
    /// Always [`super::CONFORMANCE_SCHEMA`].
    pub schema: &'static str,
    /// utf8conf's version.
    pub tool_version: &'static str,
    /// When the check ran (UTC, RFC 3339).
    pub created: String,
    /// The decoder checked.
    pub decoder: DecoderInfo,
    /// What the check concludes.
    pub verdict: Verdict,
    /// The findings: one per bug, named by its root cause (first, the departures below are
    /// the detail).
    pub findings: Vec<Finding>,
    /// Counts and timing.
    pub summary: Summary,
    /// One row per taxonomy category.
    pub categories: Vec<CategoryRow>,
    /// The recognised U+FFFD policy.
    pub replacement_policy: PolicyFinding,
    /// Wrapper policies (BOM stripping).
    pub wrapper_policies: Vec<WrapperPolicyFinding>,
    /// Every distinct departure, once, with its smallest input, most severe first.
    pub departures: Vec<DepartureEntry>,
    /// The security impact of what was found (docs/SECURITY-IMPACT.md).
    pub security: SecuritySummary,
    /// The 256x256 map of two-byte inputs.
    pub first_two_bytes_map: MapSection,
    /// Streaming mode's grading (split-point equivalence, promptness), for an adapter
    /// whose hello negotiated it ([`super::streaming`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streaming: Option<super::streaming::StreamingSection>,
    /// The decoder's learned machine, its difference from RFC 3629's, the findings by
    /// mechanism and what learning cost (`schemas/model.schema.json`'s shape); absent
    /// when the check did not learn it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<crate::model::ModelReport>,
    /// The machines learned under a position or length condition (a second path for
    /// long inputs, a block's last byte) that gave findings, each with the filler its
    /// queries were placed after; absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub condition_models: Vec<crate::diagnosis::condition::ConditionModel>,
}

/// The decoder checked.
#[derive(Debug, Clone, Serialize)]
pub struct DecoderInfo {
    /// Its name.
    pub name: String,
    /// Its version (an adapter's hello `version`).
    pub version: String,
    /// The adapter's argv (absent for a built-in decoder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Answer fields it reported at least once.
    pub reports: Vec<&'static str>,
}

/// Counts and timing.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Inputs checked (before shrinking).
    pub inputs: u64,
    /// Inputs per source.
    pub inputs_per_source: BTreeMap<String, u64>,
    /// Wall-clock seconds.
    pub duration_seconds: f64,
    /// Inputs per second.
    pub inputs_per_second: f64,
    /// Findings.
    pub findings: usize,
    /// Categories with status `fail`.
    pub categories_failed: usize,
    /// Distinct departures.
    pub departures: usize,
    /// Adapter restarts after crash, timeout or protocol failures.
    pub restarts: u64,
    /// A note when the adapter did not end cleanly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_note: Option<String>,
    /// True when the check stopped before every input was checked: what was found so far.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Why a partial check stopped (an unusable adapter, a signal, --max-time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// Crashes that did not recur when the same input was retried on a fresh process.
    #[serde(skip_serializing_if = "is_zero")]
    pub flaky_crashes: u64,
    /// The first flaky crash or timeout, as evidence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_flaky_crash: Option<String>,
    /// Timeouts that did not recur when the same input was retried on a fresh process.
    #[serde(skip_serializing_if = "is_zero")]
    pub flaky_timeouts: u64,
    /// Library workers that died at their memory limit (`check --lib`).
    #[serde(skip_serializing_if = "is_zero")]
    pub memory_kills: u64,
    /// The first of those deaths, as evidence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_memory_kill: Option<String>,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// One taxonomy category.
#[derive(Debug, Clone, Serialize)]
pub struct CategoryRow {
    /// The category.
    pub category: Category,
    /// pass, fail, policy or untested.
    pub status: CategoryStatus,
    /// Inputs exercising it.
    pub inputs: u64,
    /// Per failing aspect, the smallest failing input.
    pub failures: Vec<CategoryFailure>,
    /// When the status is `policy`: the smallest input where the policy shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_example_hex: Option<String>,
    /// The findings whose root cause is of this category (status `fail`), or, for status
    /// `affected`, the findings the departures here are manifestations of.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// The findings the departures in this category are manifestations of, when the
    /// category is not their cause.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub affected_by: Vec<String>,
}

/// A failing aspect of a category.
#[derive(Debug, Clone, Serialize)]
pub struct CategoryFailure {
    /// The aspect.
    pub aspect: Aspect,
    /// The smallest failing input.
    pub input_hex: String,
    /// Index into `departures`.
    pub departure: usize,
}

/// A distinct departure.
#[derive(Debug, Clone, Serialize)]
pub struct DepartureEntry {
    /// The aspect that differs.
    pub aspect: Aspect,
    /// The categories of the bytes it is about.
    pub categories: Vec<Category>,
    /// Inputs that showed it.
    pub count: u64,
    /// The smallest input showing it.
    pub input_hex: String,
    /// True when that input was shrunk from a larger one.
    pub minimised: bool,
    /// Where the (unshrunk) input came from.
    pub origin: Origin,
    /// The decoder's answer to `input_hex`.
    pub decoder_answer: crate::outcome::RecordedAnswer,
    /// The reference's outcome for `input_hex`.
    pub reference: Value,
    /// The reference's explanation, in the grammar's terms.
    pub explanation: String,
    /// What this departure means, in one sentence.
    pub summary: String,
    /// Its security impact: class, severity, citation.
    pub security: SecurityImpact,
    /// Exploit-shaped inputs of the same class that the decoder was seen to fall for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub witnesses: Vec<Witness>,
    /// The finding this departure is a manifestation of, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<String>,
    /// The command that shows the decoder's answer on `input_hex`.
    pub reproduce: String,
}

/// The U+FFFD policy finding.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyFinding {
    /// The policy that explains every observation, if one does.
    pub recognised: RecognisedPolicy,
    /// The policy explaining the most observations.
    pub closest: &'static str,
    /// The security impact when the policy is not maximal subparts (`replacement-policy`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<SecurityImpact>,
    /// What the recognised policy does.
    pub description: String,
    /// Ill-formed inputs whose lossy decode differs from the reference at most in U+FFFD.
    pub observations: u64,
    /// Of those, the ones whose U+FFFD count differs from maximal subparts.
    pub differing_from_maximal_subpart: u64,
    /// Each hypothesis and how many observations it predicts exactly.
    pub hypotheses: Vec<Hypothesis>,
    /// The smallest differing input per category set.
    pub examples: Vec<PolicyExample>,
    /// The smallest observations the closest policy does not predict.
    pub counterexamples: Vec<PolicyExample>,
}

/// One policy hypothesis.
#[derive(Debug, Clone, Serialize)]
pub struct Hypothesis {
    /// The policy.
    pub policy: ReplacementPolicy,
    /// What it does.
    pub description: &'static str,
    /// Observations it predicts exactly.
    pub explains: u64,
}

/// An input with the decoder's and the policies' lossy decodes.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyExample {
    /// The input.
    pub input_hex: String,
    /// Its categories.
    pub categories: Vec<Category>,
    /// The decoder's scalars.
    pub decoder_scalars: Vec<u32>,
    /// Each policy's scalars (`maximal-subpart` is the reference).
    pub predictions: BTreeMap<&'static str, Vec<u32>>,
}

/// A wrapper policy finding.
#[derive(Debug, Clone, Serialize)]
pub struct WrapperPolicyFinding {
    /// `bom-stripped`.
    pub policy: &'static str,
    /// True when the decoder dropped a leading U+FEFF.
    pub observed: bool,
    /// Inputs starting with a BOM where it was dropped.
    pub inputs_stripped: u64,
    /// Inputs starting with a BOM where it was kept.
    pub inputs_kept: u64,
    /// The security impact when observed (`bom-or-noncharacter`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<SecurityImpact>,
    /// The smallest input where it was dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<PolicyExample>,
}

/// The map of every two-byte input.
#[derive(Debug, Clone, Serialize)]
pub struct MapSection {
    /// How to read it.
    pub description: &'static str,
    /// Code → meaning.
    pub legend: BTreeMap<String, &'static str>,
    /// Cells per code.
    pub counts: BTreeMap<String, u64>,
    /// 256 rows (first byte 00..FF), each 256 codes (second byte 00..FF).
    pub rows: Vec<String>,
}

/// The current UTC time as RFC 3339 (`2026-11-22T03:15:00Z`) and as a compact run id
/// (`20261122T031500Z`).
pub fn utc_now() -> (String, String) {
    let now = std::time::SystemTime::now();
    (time::rfc3339(now), time::compact(now))
}

/// Status of a category in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CategoryStatus {
    /// Exercised, and no departure.
    Pass,
    /// A finding's root-cause unit is of this category.
    Fail,
    /// The decoder departs here only as a manifestation of a finding about another
    /// category (see the row's `affected_by`).
    Affected,
    /// No departure, but the decoder's U+FFFD or BOM policy shows here.
    Policy,
    /// No input exercised it.
    Untested,
}

impl CategoryStatus {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            CategoryStatus::Pass => "pass",
            CategoryStatus::Fail => "fail",
            CategoryStatus::Affected => "affected",
            CategoryStatus::Policy => "policy",
            CategoryStatus::Untested => "untested",
        }
    }
}

/// The U+FFFD policy a check recognises in the decoder's lossy decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecognisedPolicy {
    /// This policy predicts every observation.
    Known(ReplacementPolicy),
    /// No known policy explains every observation (the section names the closest).
    Other,
    /// No lossy decode of ill-formed input was the reference's up to the U+FFFD count:
    /// none was reported, or another character stood in the bytes' place.
    NotObserved,
}

impl RecognisedPolicy {
    /// The name in reports: a policy's own name, `other` or `not-observed`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecognisedPolicy::Known(policy) => policy.as_str(),
            RecognisedPolicy::Other => "other",
            RecognisedPolicy::NotObserved => "not-observed",
        }
    }
}

impl std::fmt::Display for RecognisedPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RecognisedPolicy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
