//! The sections of a conformance report, one function each, built from a [`CheckRun`]:
//! departures, the U+FFFD policy, the wrapper (BOM) policy, the category table with its
//! causal status, the summary and the two-byte map. [`ConformanceReport::from_run`]
//! (in `build.rs`) puts them together.
//!
//! [`ConformanceReport::from_run`]: super::report::ConformanceReport::from_run

use std::collections::BTreeMap;

use super::grade::MapState;
use super::report::{
    CategoryFailure, CategoryRow, DepartureEntry, Hypothesis, MapSection, PolicyExample,
    PolicyFinding, RecognisedPolicy, Summary, WrapperPolicyFinding,
};
use super::{CategoryStatus, CheckRun, Example};
use crate::aspect::Aspect;
use crate::finding::{DecoderAction, Finding};
use crate::hex::format_hex;
use crate::outcome::RecordedAnswer;
use crate::policy::ReplacementPolicy;
use crate::policy::{policies_matching_error_len, policy_predictions};
use crate::reference::{Decoded, Reference};
use crate::security::{self, SecurityClass};
use crate::taxonomy::Category;

/// The departures section: one entry per distinct departure, most severe first.
pub(super) fn departure_entries(run: &CheckRun) -> Vec<DepartureEntry> {
    let mut departures: Vec<DepartureEntry> = run
        .departures
        .iter()
        .map(|(departure, group)| {
            let input = &group.smallest.bytes;
            let answer = &group.smallest.answer;
            // The reference's decode of the input, made once for every field below.
            let decoded = Reference::rfc3629().decode(input);
            let reference = decoded.to_outcome("reference", input);
            DepartureEntry {
                aspect: departure.aspect,
                categories: departure.categories.clone(),
                count: group.count,
                input_hex: format_hex(input),
                minimised: group.minimised,
                origin: group.smallest.origin.clone(),
                decoder_answer: RecordedAnswer::of(answer),
                explanation: explanation(input, &decoded),
                summary: departure_summary(departure.aspect, input, &reference, answer),
                reference: serde_json::to_value(reference).expect("outcomes serialise"),
                security: security::classify(
                    departure.aspect,
                    &departure.categories,
                    input,
                    &decoded,
                    security::AnswerView::of(answer),
                ),
                witnesses: Vec::new(),
                finding: finding_of_departure(&run.findings, input, answer, run.capabilities),
                reproduce: super::reproduce_command(
                    &run.decoder_name,
                    run.command.as_deref(),
                    input,
                ),
            }
        })
        .collect();
    // Most severe first (stable, so equal severities keep the aspect/category order).
    departures.sort_by_key(|entry| std::cmp::Reverse(entry.security.severity));
    departures
}

/// The U+FFFD policy section, and whether the policy departs from the reference's.
pub(super) fn replacement_policy_section(run: &CheckRun) -> (PolicyFinding, bool) {
    let (all, closest) = run.policy.recognise();
    let recognised = if run.policy.observations == 0 {
        RecognisedPolicy::NotObserved
    } else {
        all.map_or(RecognisedPolicy::Other, RecognisedPolicy::Known)
    };
    let description = match all {
        Some(policy) if run.policy.observations > 0 => policy.description().to_string(),
        _ if run.policy.observations == 0 && !run.capabilities.scalars => {
            "the decoder reported no lossy decode of ill-formed input".to_string()
        }
        // Scalars were given, but never the reference's with only the U+FFFD counted
        // differently: another character (`?`) or the bytes' own values stood there.
        _ if run.policy.observations == 0 => "no lossy decode of ill-formed input had U+FFFD \
                                               alone in the bytes' place (the findings say what \
                                               it had)"
            .to_string(),
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
        recognised,
        closest: closest.as_str(),
        security: policy_departs.then(|| SecurityClass::ReplacementPolicy.impact()),
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
    (replacement_policy, policy_departs)
}

/// The wrapper-policy section: BOM stripping.
pub(super) fn bom_section(run: &CheckRun) -> WrapperPolicyFinding {
    WrapperPolicyFinding {
        policy: "bom-stripped",
        observed: run.bom.stripped > 0,
        inputs_stripped: run.bom.stripped,
        inputs_kept: run.bom.kept,
        security: (run.bom.stripped > 0).then(|| SecurityClass::BomOrNoncharacter.impact()),
        example: run
            .bom
            .example
            .as_ref()
            .map(|example| policy_example(example, vec![Category::BomStripped])),
    }
}

/// The category table, with causal status: `fail` only when a finding's root cause is of
/// the category.
pub(super) fn category_rows(
    run: &CheckRun,
    departures: &[DepartureEntry],
    bom: &WrapperPolicyFinding,
    policy_departs: bool,
) -> Vec<CategoryRow> {
    Category::ALL
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
                        if (entry.input_hex.len(), &entry.input_hex) < (current.len(), current) {
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
                    .map(|bytes| format_hex(bytes))
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
        .collect()
}

/// The summary section.
pub(super) fn summary_section(
    run: &CheckRun,
    categories: &[CategoryRow],
    departures: usize,
) -> Summary {
    let inputs: u64 = run.inputs_per_source.values().sum();
    Summary {
        inputs,
        inputs_per_source: run.inputs_per_source.clone(),
        duration_seconds: round3(run.duration_seconds),
        inputs_per_second: round3(inputs as f64 / run.duration_seconds.max(1e-9)),
        categories_failed: categories
            .iter()
            .filter(|row| row.status == CategoryStatus::Fail)
            .count(),
        findings: run.findings.len(),
        departures,
        restarts: run.restarts,
        exit_note: run.exit_note.clone(),
        partial: run.stopped.is_some(),
        stopped_by: run.stopped.as_ref().map(ToString::to_string),
        flaky_crashes: run.flaky_crashes,
        first_flaky_crash: run.first_flaky_crash.clone(),
        flaky_timeouts: run.flaky_timeouts,
        memory_kills: run.memory_kills,
        first_memory_kill: run.first_memory_kill.clone(),
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
    answer: &crate::outcome::Answer,
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
        input_hex: format_hex(&example.bytes),
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
fn explanation(input: &[u8], decoded: &Decoded) -> String {
    let reference = Reference::rfc3629();
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
    aspect: Aspect,
    input: &[u8],
    reference: &crate::outcome::Outcome,
    answer: &crate::outcome::Answer,
) -> String {
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
        Aspect::Valid if outcome.valid => "accepts ill-formed input".to_string(),
        Aspect::Valid => "rejects well-formed input".to_string(),
        Aspect::ValidUpTo => format!(
            "reports the first error at offset {}, the reference at {}",
            outcome.valid_up_to.unwrap_or(0),
            reference.valid_up_to.unwrap_or(0)
        ),
        Aspect::ErrorLen => {
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

pub(super) fn map_section(map: &[u8]) -> MapSection {
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
