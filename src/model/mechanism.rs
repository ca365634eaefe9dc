//! Findings by mechanism: the differences of a decoder's machine from the reference's,
//! explained by the fewest single-fault hypotheses.
//!
//! Grouping differences by the shape of the graph alone fails as soon as a decoder has a
//! broad bug beside a narrow one (a Latin-1 fallback touches every byte after an error).
//! So each difference's shortest witness is *re-tested* against hypotheses, each one change
//! to the reference:
//!
//! - a known convention ([`Convention`]): another U+FFFD policy, or a Latin-1 fallback;
//! - a changed transition family: the reference's machine with every transition whose
//!   difference has the same pair of outputs (the same change of behaviour, over every
//!   state and byte range where it shows) replaced by the decoder's output and target
//!   (the decoder's target is mapped to the reference state that behaves most like it).
//!
//! A hypothesis *explains* a difference when it gives the decoder's outputs on every step
//! of the difference's witness. The smallest set of hypotheses explaining every
//! difference is chosen greedily (the one explaining most of what is left, conventions
//! first on ties); each chosen hypothesis is a finding, its first explained difference
//! its witness, and the differences it explains that are reached only through another
//! difference its manifestations. A difference no hypothesis explains is a finding of its
//! own, described by the difference.

use std::collections::HashMap;

use serde::Serialize;

use super::conventions::{Convention, ConventionDecoder};
use super::difference::Difference;
use super::learner::Hypothesis;
use super::oracle::Oracle;
use super::output::{Lossy, StepOutput, Strict, UnitKind};
use super::title;
use crate::decoders::Capabilities;
use crate::taxonomy::Category;

/// What a finding's hypothesis is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Mechanism {
    /// A known convention explains the differences.
    Convention {
        /// Its name.
        name: &'static str,
        /// True for a U+FFFD policy: a policy, not a bug.
        policy: bool,
    },
    /// One changed transition family of the reference's machine.
    Transition,
    /// No single hypothesis explains the difference.
    Unexplained,
}

/// What a decoder does differently, independent of what the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Behaviour {
    /// Takes bytes RFC 3629 rejects as (part of) a character.
    AcceptsIllFormed,
    /// Rejects bytes RFC 3629 accepts.
    RejectsWellFormed,
    /// Reports a definite error where more input could still complete a character.
    IncompleteAsError,
    /// Waits for more input where the error is already definite.
    ErrorAsIncomplete,
    /// Reports the first error at another offset or with another length.
    ErrorSpan,
    /// Replaces ill-formed bytes by another number of U+FFFD.
    Replacement,
    /// Decodes a well-formed character to another value.
    Misdecodes,
    /// Produces nothing where the reference produces a scalar.
    DropsOutput,
    /// Decodes ill-formed bytes to values other than U+FFFD.
    DecodesIllFormed,
    /// Any other change.
    Other,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The hypothesis.
    pub mechanism: Mechanism,
    /// Generated from the witness difference.
    pub title: String,
    /// What the witness's bytes are (`None`: well-formed).
    pub category: Option<Category>,
    /// What the decoder did with them.
    pub behaviour: Behaviour,
    /// The shortest input showing it.
    #[serde(serialize_with = "super::json::serialize_hex")]
    pub witness: Vec<u8>,
    /// Indices of the differences it explains that are reached through agreeing
    /// transitions (the witness's first).
    pub differences: Vec<usize>,
    /// Indices of the differences it explains that are reached only through another
    /// difference.
    pub manifestations: Vec<usize>,
}

/// A candidate hypothesis and the differences it explains.
struct Candidate {
    mechanism: Mechanism,
    explains: Vec<bool>,
    /// The difference the candidate was built from (for a transition family).
    seed: Option<usize>,
}

/// The findings for `differences` between `decoder` and `reference`, both learned for
/// `capabilities`.
pub fn findings(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    capabilities: Capabilities,
) -> Vec<Finding> {
    if differences.is_empty() {
        return Vec::new();
    }
    let observed: Vec<Vec<StepOutput>> = differences
        .iter()
        .map(|d| decoder.run(&d.witness))
        .collect();
    let mut candidates: Vec<Candidate> = Vec::new();
    if capabilities.scalars {
        for convention in Convention::ALL {
            let subject = ConventionDecoder(convention);
            let mut oracle = Oracle::new(&subject, capabilities);
            let explains = differences
                .iter()
                .zip(&observed)
                .map(|(d, seen)| oracle.outputs(&d.witness) == *seen)
                .collect();
            candidates.push(Candidate {
                mechanism: Mechanism::Convention {
                    name: convention.name(),
                    policy: convention.is_policy(),
                },
                explains,
                seed: None,
            });
        }
    }
    for (key, members) in families(differences) {
        let changes = family_changes(decoder, reference, differences, &members);
        let explains = differences
            .iter()
            .zip(&observed)
            .map(|(d, seen)| run_changed(reference, &changes, &d.witness) == *seen)
            .collect();
        let _ = key;
        candidates.push(Candidate {
            mechanism: Mechanism::Transition,
            explains,
            seed: Some(members[0]),
        });
    }
    cover(differences, candidates)
}

/// Primary differences grouped by their pair of outputs, in order of first appearance.
fn families(differences: &[Difference]) -> Vec<((StepOutput, StepOutput), Vec<usize>)> {
    let mut families: Vec<((StepOutput, StepOutput), Vec<usize>)> = Vec::new();
    for (index, d) in differences.iter().enumerate().filter(|(_, d)| d.primary) {
        let key = (d.reference, d.decoder);
        match families.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(index),
            None => families.push((key, vec![index])),
        }
    }
    families
}

type Changes = HashMap<(usize, u8), (usize, StepOutput)>;

/// The reference's transitions a family changes: to the decoder's output, and to the
/// reference state most like the decoder's target.
fn family_changes(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    members: &[usize],
) -> Changes {
    let mut changes = Changes::new();
    for &index in members {
        let d = &differences[index];
        for &byte in &d.bytes {
            let (target, output) = decoder.step(d.decoder_state, byte);
            changes.insert(
                (d.reference_state, byte),
                (closest_state(decoder, target, reference), output),
            );
        }
    }
    changes
}

/// The reference state whose one-step outputs differ from decoder state `state`'s on the
/// fewest bytes.
fn closest_state(decoder: &Hypothesis, state: usize, reference: &Hypothesis) -> usize {
    (0..reference.state_count())
        .min_by_key(|&r| {
            (0..=255u8)
                .filter(|&b| decoder.step(state, b).1 != reference.step(r, b).1)
                .count()
        })
        .unwrap_or(0)
}

fn run_changed(reference: &Hypothesis, changes: &Changes, word: &[u8]) -> Vec<StepOutput> {
    let mut state = 0;
    word.iter()
        .map(|&byte| {
            let (next, output) = changes
                .get(&(state, byte))
                .copied()
                .unwrap_or_else(|| reference.step(state, byte));
            state = next;
            output
        })
        .collect()
}

/// Greedy set cover, then one finding per chosen candidate, then one per difference left.
fn cover(differences: &[Difference], candidates: Vec<Candidate>) -> Vec<Finding> {
    let mut covered = vec![false; differences.len()];
    let mut findings = Vec::new();
    loop {
        let best = candidates
            .iter()
            .map(|c| {
                let gain = c
                    .explains
                    .iter()
                    .zip(&covered)
                    .filter(|&(&e, &done)| e && !done)
                    .count();
                (gain, c)
            })
            .filter(|&(gain, _)| gain > 0)
            // The first of the largest: conventions come first among candidates.
            .fold(None, |best: Option<(usize, &Candidate)>, (gain, c)| match best {
                Some((g, _)) if g >= gain => best,
                _ => Some((gain, c)),
            });
        let Some((_, candidate)) = best else { break };
        let explained: Vec<usize> = (0..differences.len())
            .filter(|&i| candidate.explains[i] && !covered[i])
            .collect();
        for &i in &explained {
            covered[i] = true;
        }
        let witness_index = candidate
            .seed
            .filter(|s| explained.contains(s))
            .or_else(|| explained.iter().copied().find(|&i| differences[i].primary))
            .unwrap_or(explained[0]);
        findings.push(finding(
            differences,
            candidate.mechanism.clone(),
            witness_index,
            &explained,
        ));
    }
    for index in (0..differences.len()).filter(|&i| !covered[i]) {
        findings.push(finding(
            differences,
            Mechanism::Unexplained,
            index,
            &[index],
        ));
    }
    findings
}

fn finding(
    differences: &[Difference],
    mechanism: Mechanism,
    witness_index: usize,
    explained: &[usize],
) -> Finding {
    let d = &differences[witness_index];
    let behaviour = behaviour(d.reference, d.decoder);
    let category = title::category(&d.witness);
    let title = match &mechanism {
        Mechanism::Convention { name, policy: true } => {
            format!("replaces ill-formed bytes {name}: one U+FFFD per {}", title::policy_unit(name))
        }
        Mechanism::Convention { name, .. } => format!("{name}: {}", title::convention_phrase(name)),
        Mechanism::Transition | Mechanism::Unexplained => {
            let family: Vec<&Difference> = explained
                .iter()
                .map(|&i| &differences[i])
                .filter(|x| x.primary && x.reference == d.reference && x.decoder == d.decoder)
                .collect();
            title::transition_title(&family, behaviour, category)
        }
    };
    let mut primary: Vec<usize> = explained
        .iter()
        .copied()
        .filter(|&i| differences[i].primary)
        .collect();
    if let Some(position) = primary.iter().position(|&i| i == witness_index) {
        primary.remove(position);
        primary.insert(0, witness_index);
    }
    Finding {
        mechanism,
        title,
        category,
        behaviour,
        witness: d.witness.clone(),
        differences: primary,
        manifestations: explained
            .iter()
            .copied()
            .filter(|&i| !differences[i].primary)
            .collect(),
    }
}

fn accepts(strict: Strict) -> bool {
    matches!(strict, Strict::Valid | Strict::Incomplete)
}

/// The behaviour a change of output shows.
pub fn behaviour(reference: StepOutput, decoder: StepOutput) -> Behaviour {
    use Strict::*;
    match (reference.strict, decoder.strict) {
        (Incomplete, Error { .. } | Invalid) => return Behaviour::IncompleteAsError,
        (Error { .. }, Incomplete) => return Behaviour::ErrorAsIncomplete,
        (r, d) if !accepts(r) && accepts(d) => return Behaviour::AcceptsIllFormed,
        (r, d) if accepts(r) && !accepts(d) => return Behaviour::RejectsWellFormed,
        (r, d) if r != d => return Behaviour::ErrorSpan,
        _ => {}
    }
    match (reference.lossy, decoder.lossy) {
        (Some(r), Some(d)) => lossy_behaviour(r, d),
        _ => Behaviour::Other,
    }
}

fn lossy_behaviour(reference: Lossy, decoder: Lossy) -> Behaviour {
    let only = |l: Lossy, kind: UnitKind| l.kinds.iter().flatten().all(|&k| k == kind);
    if decoder.appended == 0 && reference.appended > 0 {
        return Behaviour::DropsOutput;
    }
    if only(reference, UnitKind::Replacement) && only(decoder, UnitKind::Replacement) {
        return Behaviour::Replacement;
    }
    if only(reference, UnitKind::Replacement) {
        return Behaviour::DecodesIllFormed;
    }
    if reference.kinds.contains(&Some(UnitKind::Scalar)) {
        return Behaviour::Misdecodes;
    }
    Behaviour::Other
}
