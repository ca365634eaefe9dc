//! The conformance report: `conformance.json` (schema `utf8conf/conformance/1`, in
//! `schemas/conformance.schema.json`), `conformance.md` and a self-contained
//! `conformance.html`, written atomically into one directory.
//!
//! The JSON is built first ([`ConformanceReport::from_run`]); the Markdown and HTML are
//! views of it, so the three never disagree.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::grade::MapState;
use super::policy::ReplacementPolicy;
use super::{
    answer_json, hex_of, policies_matching_error_len, policy_predictions, recognise_policy,
    reference_outcome_json, CategoryStatus, CheckRun, Example, CONFORMANCE_SCHEMA,
};
use crate::adapter::Stop;
use crate::corpus::Origin;
use crate::finding::{DecoderAction, Finding};
use crate::reference::Reference;
use crate::report::time;
use crate::report::write_atomically;
use crate::taxonomy::Category;

/// `conformance.json`.
#[derive(Debug, Clone, Serialize)]
pub struct ConformanceReport {
    /// Always [`CONFORMANCE_SCHEMA`].
    pub schema: &'static str,
    /// utf8conf's version.
    pub tool_version: &'static str,
    /// When the check ran (UTC, RFC 3339).
    pub created: String,
    /// The decoder checked.
    pub decoder: DecoderInfo,
    /// `conformant` or `deviations`.
    pub verdict: &'static str,
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
    /// Every distinct departure, once, with its smallest input.
    pub departures: Vec<DepartureEntry>,
    /// The 256x256 map of two-byte inputs.
    pub first_two_bytes_map: MapSection,
    /// Streaming mode's grading (split-point equivalence, promptness), for an adapter
    /// whose hello negotiated it ([`super::streaming`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streaming: Option<super::streaming::StreamingSection>,
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
    /// The first of them, as evidence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_flaky_crash: Option<String>,
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
    pub aspect: &'static str,
    /// The smallest failing input.
    pub input_hex: String,
    /// Index into `departures`.
    pub departure: usize,
}

/// A distinct departure.
#[derive(Debug, Clone, Serialize)]
pub struct DepartureEntry {
    /// The aspect that differs.
    pub aspect: &'static str,
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
    pub decoder_answer: Value,
    /// The reference's outcome for `input_hex`.
    pub reference: Value,
    /// The reference's explanation, in the grammar's terms.
    pub explanation: String,
    /// What this departure means, in one sentence.
    pub summary: String,
    /// The finding this departure is a manifestation of, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<String>,
    /// The command that shows the decoder's answer on `input_hex`.
    pub reproduce: String,
}

/// The U+FFFD policy finding.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyFinding {
    /// `maximal-subpart`, `per-byte`, `per-run`, `per-lead-sized-sequence`, `other`
    /// (none explains every observation) or `not-observed` (no lossy decode of ill-formed
    /// input was reported).
    pub recognised: String,
    /// The policy explaining the most observations.
    pub closest: &'static str,
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

impl ConformanceReport {
    /// Builds the report from a run.
    pub fn from_run(run: &CheckRun, created: String) -> ConformanceReport {
        let departures: Vec<DepartureEntry> = run
            .departures
            .iter()
            .map(|(departure, group)| {
                let input = &group.smallest.bytes;
                let answer = &group.smallest.answer;
                DepartureEntry {
                    aspect: departure.aspect.as_str(),
                    categories: departure.categories.clone(),
                    count: group.count,
                    input_hex: hex_of(input),
                    minimised: group.minimised,
                    origin: group.smallest.origin.clone(),
                    decoder_answer: answer_json(answer),
                    reference: reference_outcome_json(input),
                    explanation: explanation(input),
                    summary: departure_summary(departure.aspect.as_str(), input, answer),
                    finding: finding_of_departure(&run.findings, input, answer, run.capabilities),
                    reproduce: super::reproduce_command(
                        &run.decoder_name,
                        run.command.as_deref(),
                        input,
                    ),
                }
            })
            .collect();

        let (all, closest) = recognise_policy(&run.policy);
        let recognised = if run.policy.observations == 0 {
            "not-observed".to_string()
        } else {
            all.map_or("other".to_string(), |p| p.as_str().to_string())
        };
        let description = match all {
            Some(policy) if run.policy.observations > 0 => policy.description().to_string(),
            _ if run.policy.observations == 0 => {
                "the decoder reported no lossy decode of ill-formed input".to_string()
            }
            _ => format!(
                "no single policy explains every answer; closest: {}",
                closest.description()
            ),
        };
        let closest_index = ReplacementPolicy::ALL
            .iter()
            .position(|&p| p == closest)
            .expect("closest is a policy");
        let policy_departs =
            run.policy.observations > 0 && all != Some(ReplacementPolicy::MaximalSubpart);
        let replacement_policy = PolicyFinding {
            recognised: recognised.clone(),
            closest: closest.as_str(),
            description,
            observations: run.policy.observations,
            differing_from_maximal_subpart: run.policy.differing,
            hypotheses: ReplacementPolicy::ALL
                .into_iter()
                .zip(run.policy.explained)
                .map(|(policy, explains)| Hypothesis {
                    policy,
                    description: policy.description(),
                    explains,
                })
                .collect(),
            examples: {
                // Single-category examples first, then the smallest; a dozen at most.
                let mut examples: Vec<(&Vec<Category>, &Example)> =
                    run.policy.examples.iter().collect();
                examples.sort_by_key(|(categories, example)| {
                    (
                        categories.len() > 1,
                        example.bytes.len(),
                        example.bytes.clone(),
                    )
                });
                examples
                    .into_iter()
                    .take(POLICY_EXAMPLES_SHOWN)
                    .map(|(categories, example)| policy_example(example, categories.clone()))
                    .collect()
            },
            counterexamples: if all.is_some() {
                Vec::new()
            } else {
                run.policy.counterexamples[closest_index]
                    .iter()
                    .map(|example| {
                        let reference = super::grade::ReferenceView::of(&example.bytes);
                        policy_example(example, reference.error_categories(&example.bytes))
                    })
                    .collect()
            },
        };

        let bom = WrapperPolicyFinding {
            policy: "bom-stripped",
            observed: run.bom.stripped > 0,
            inputs_stripped: run.bom.stripped,
            inputs_kept: run.bom.kept,
            example: run
                .bom
                .example
                .as_ref()
                .map(|example| policy_example(example, vec![Category::BomStripped])),
        };

        let categories: Vec<CategoryRow> = Category::ALL
            .into_iter()
            .map(|category| {
                let inputs = run.inputs_per_category.get(&category).copied().unwrap_or(0);
                let mut failures: Vec<CategoryFailure> = Vec::new();
                for (index, entry) in departures.iter().enumerate() {
                    if !entry.categories.contains(&category) {
                        continue;
                    }
                    match failures.iter_mut().find(|f| f.aspect == entry.aspect) {
                        Some(existing) => {
                            let current = &departures[existing.departure].input_hex;
                            if (entry.input_hex.len(), &entry.input_hex) < (current.len(), current)
                            {
                                existing.input_hex = entry.input_hex.clone();
                                existing.departure = index;
                            }
                        }
                        None => failures.push(CategoryFailure {
                            aspect: entry.aspect,
                            input_hex: entry.input_hex.clone(),
                            departure: index,
                        }),
                    }
                }
                let policy_example_hex = if category == Category::BomStripped {
                    bom.example.as_ref().map(|e| e.input_hex.clone())
                } else if policy_departs {
                    run.policy
                        .examples
                        .iter()
                        // Only inputs about this category alone: in a mixed input the
                        // difference may come from another category's bytes.
                        .filter(|(categories, _)| categories.as_slice() == [category])
                        .map(|(_, example)| &example.bytes)
                        .min_by_key(|bytes| (bytes.len(), bytes.to_vec()))
                        .map(|bytes| hex_of(bytes))
                } else {
                    None
                };
                // Causal status: `fail` only when a finding's root cause is of this
                // category; departures here that belong to other findings only affect it.
                let own: Vec<String> = run
                    .findings
                    .iter()
                    .filter(|f| f.categories.contains(&category) && !is_policy_finding(f))
                    .map(|f| f.id.clone())
                    .collect();
                let mut affected_by: Vec<String> = departures
                    .iter()
                    .filter(|d| d.categories.contains(&category))
                    .filter_map(|d| d.finding.clone())
                    .filter(|id| !own.contains(id))
                    .collect();
                affected_by.sort();
                affected_by.dedup();
                let status = if !own.is_empty() {
                    CategoryStatus::Fail
                } else if !failures.is_empty() {
                    CategoryStatus::Affected
                } else if policy_example_hex.is_some() {
                    CategoryStatus::Policy
                } else if inputs == 0 {
                    CategoryStatus::Untested
                } else {
                    CategoryStatus::Pass
                };
                CategoryRow {
                    category,
                    status,
                    inputs,
                    failures,
                    policy_example_hex,
                    findings: own,
                    affected_by,
                }
            })
            .collect();

        let conformant = departures.is_empty()
            && !policy_departs
            && !bom.observed
            && run.exit_note.is_none()
            && run.flaky_crashes == 0;
        let inputs: u64 = run.inputs_per_source.values().sum();
        let summary = Summary {
            inputs,
            inputs_per_source: run.inputs_per_source.clone(),
            duration_seconds: round3(run.duration_seconds),
            inputs_per_second: round3(inputs as f64 / run.duration_seconds.max(1e-9)),
            categories_failed: categories
                .iter()
                .filter(|row| row.status == CategoryStatus::Fail)
                .count(),
            findings: run.findings.len(),
            departures: departures.len(),
            restarts: run.restarts,
            exit_note: run.exit_note.clone(),
            partial: run.stopped.is_some(),
            stopped_by: run.stopped.as_ref().map(ToString::to_string),
            flaky_crashes: run.flaky_crashes,
            first_flaky_crash: run.first_flaky_crash.clone(),
        };
        ConformanceReport {
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
                Some(Stop::Unusable(_)) => "adapter-unusable",
                Some(_) => "incomplete",
                None if conformant => "conformant",
                None => "deviations",
            },
            findings: run.findings.clone(),
            summary,
            categories,
            replacement_policy,
            wrapper_policies: vec![bom],
            departures,
            first_two_bytes_map: map_section(&run.map),
            streaming: None,
        }
    }

    /// Adds the streaming section; a departure or failure in it makes a conformant
    /// verdict `deviations`, and a stop (signal, time limit, unusable adapter) makes it
    /// `incomplete`.
    pub fn add_streaming(&mut self, section: super::streaming::StreamingSection) {
        if self.verdict == "conformant" && section.stop.is_some() {
            self.verdict = "incomplete";
        } else if self.verdict == "conformant" && !section.is_clean() {
            self.verdict = "deviations";
        }
        self.streaming = Some(section);
    }

    /// True when the decoder conforms (exit status 0).
    pub fn is_conformant(&self) -> bool {
        self.verdict == "conformant"
    }

    /// Writes `conformance.json`, `.md` and `.html` into `directory` (created if needed),
    /// each atomically.
    pub fn write(&self, directory: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(directory)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_atomically(&directory.join("conformance.json"), json.as_bytes())?;
        write_atomically(
            &directory.join("conformance.md"),
            super::render::markdown(self).as_bytes(),
        )?;
        write_atomically(
            &directory.join("conformance.html"),
            super::render::html(self).as_bytes(),
        )
    }
}

/// A finding that is a replacement or wrapper policy (its categories show as `policy`).
fn is_policy_finding(finding: &Finding) -> bool {
    matches!(
        finding.cause.decoder_does,
        DecoderAction::Replacements { .. } | DecoderAction::StripsBom
    )
}

/// The finding a departure belongs to: the one whose cause has the same kind of action as
/// the departure's own diagnosis, the same unit categories first.
fn finding_of_departure(
    findings: &[Finding],
    input: &[u8],
    answer: &Result<crate::outcome::Outcome, crate::decoders::DecoderFailure>,
    capabilities: crate::decoders::Capabilities,
) -> Option<String> {
    let diagnosis = crate::diagnosis::diagnose_input(input, answer, capabilities)?;
    let action = diagnosis.cause.decoder_does.name();
    let same_action = |f: &&Finding| f.cause.decoder_does.name() == action;
    findings
        .iter()
        .filter(same_action)
        .find(|f| f.categories == diagnosis.cause.categories())
        .or_else(|| findings.iter().find(same_action))
        .or_else(|| findings.first())
        .map(|f| f.id.clone())
}

/// Policy examples shown in a report.
const POLICY_EXAMPLES_SHOWN: usize = 12;

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

fn policy_example(example: &Example, categories: Vec<Category>) -> PolicyExample {
    PolicyExample {
        input_hex: hex_of(&example.bytes),
        categories,
        decoder_scalars: example
            .answer
            .as_ref()
            .ok()
            .and_then(|o| o.scalars.clone())
            .unwrap_or_default(),
        predictions: policy_predictions(&example.bytes),
    }
}

/// The reference's explanation of every error unit, or what the well-formed input is.
fn explanation(input: &[u8]) -> String {
    let reference = Reference::rfc3629();
    let decoded = reference.decode(input);
    if decoded.errors.is_empty() {
        let scalars: Vec<String> = decoded
            .scalars
            .iter()
            .map(|s| format!("U+{s:04X}"))
            .collect();
        return format!(
            "well-formed: {} = {} character(s): {}",
            reference.sequence_rule(),
            scalars.len(),
            scalars.join(" ")
        );
    }
    const SHOWN_UNITS: usize = 3;
    let mut text = decoded
        .errors
        .iter()
        .take(SHOWN_UNITS)
        .map(|error| reference.explain(input, error))
        .collect::<Vec<_>>()
        .join(" | ");
    if decoded.errors.len() > SHOWN_UNITS {
        text.push_str(&format!(
            " | ... ({} error units in all)",
            decoded.errors.len()
        ));
    }
    text
}

fn departure_summary(
    aspect: &str,
    input: &[u8],
    answer: &Result<crate::outcome::Outcome, crate::decoders::DecoderFailure>,
) -> String {
    let reference = Reference::rfc3629().outcome("reference", input);
    let outcome = match answer {
        Err(failure) => return format!("the decoder failed: {failure}"),
        Ok(outcome) => outcome,
    };
    let show_len = |len: Option<crate::outcome::ErrorLen>| match len {
        Some(crate::outcome::ErrorLen::Invalid(n)) => n.to_string(),
        Some(crate::outcome::ErrorLen::Incomplete) => "null (incomplete)".to_string(),
        None => "absent".to_string(),
    };
    match aspect {
        "valid" if outcome.valid => "accepts ill-formed input".to_string(),
        "valid" => "rejects well-formed input".to_string(),
        "valid_up_to" => format!(
            "reports the first error at offset {}, the reference at {}",
            outcome.valid_up_to.unwrap_or(0),
            reference.valid_up_to.unwrap_or(0)
        ),
        "error_len" => {
            let mut text = format!(
                "reports error_len {}, the reference {}",
                show_len(outcome.error_len),
                show_len(reference.error_len)
            );
            if let (
                Some(crate::outcome::ErrorLen::Invalid(len)),
                Some(crate::outcome::ErrorLen::Invalid(_)),
            ) = (outcome.error_len, reference.error_len)
            {
                let policies = policies_matching_error_len(input, len);
                if !policies.is_empty() {
                    text.push_str(&format!(" (the first unit under {})", policies.join(", ")));
                }
            }
            text
        }
        _ => {
            let show = |scalars: &[u32]| {
                scalars
                    .iter()
                    .map(|s| format!("{s:04X}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!(
                "decodes to [{}], the reference to [{}]",
                show(outcome.scalars.as_deref().unwrap_or(&[])),
                show(reference.scalars.as_deref().unwrap_or(&[]))
            )
        }
    }
}

fn map_section(map: &[u8]) -> MapSection {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for &code in map {
        *counts.entry((code as char).to_string()).or_default() += 1;
    }
    MapSection {
        description: "row = first byte (00..FF), column = second byte (00..FF); each cell is the two-byte input's state, decoder against reference",
        legend: MapState::LEGEND
            .iter()
            .map(|(state, meaning)| (state.code().to_string(), *meaning))
            .chain(std::iter::once(("?".to_string(), "not checked")))
            .collect(),
        counts,
        rows: map
            .chunks(256)
            .map(|row| row.iter().map(|&code| code as char).collect())
            .collect(),
    }
}

/// The current UTC time as RFC 3339 (`2026-11-22T03:15:00Z`) and as a compact run id
/// (`20261122T031500Z`).
pub fn utc_now() -> (String, String) {
    let now = std::time::SystemTime::now();
    (time::rfc3339(now), time::compact(now))
}
