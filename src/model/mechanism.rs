//! Findings by mechanism: the differences of a decoder's machine from the reference's,
//! explained by the fewest single-fault hypotheses.
//!
//! Grouping differences by the shape of the graph alone fails as soon as a decoder has a
//! broad bug beside a narrow one (a Latin-1 fallback touches every byte after an error).
//! So each primary difference's shortest witness is *re-tested* against hypotheses, each
//! one change to the reference:
//!
//! - a known convention ([`Convention`]): another U+FFFD policy, or a Latin-1 fallback;
//! - a changed transition family: the primary differences with the same change of
//!   behaviour on bytes of the same category (over every state and byte range where it
//!   shows), as the reference's machine with those transitions replaced by the decoder's
//!   output and target (the decoder's target mapped to the reference state that behaves
//!   most like it). It also explains the same change at the same place later in an input
//!   (after an error, inside another character).
//!
//! A hypothesis *explains* a difference when it gives the decoder's outputs on every step
//! of the difference's witness. The smallest set of hypotheses explaining every primary
//! difference is chosen greedily (the one explaining most of what is left, conventions
//! first on ties, a convention only for two differences or more); each chosen hypothesis
//! is a finding, and a primary difference none explains is a finding of its own. Every
//! other difference goes where its witness first departs: a manifestation of the finding
//! holding that departure when the decoder does there what the reference does in some
//! state (or what it did at the departure), otherwise a bug behind that one, one finding
//! per category of bytes.

use serde::{Deserialize, Serialize};

use super::conventions::Convention;
use super::difference::Difference;
use super::learner::Hypothesis;
use super::output::{StepOutput, Strict};
use super::title;
use crate::decoders::Capabilities;
use crate::taxonomy::Category;

pub mod behaviour;
mod candidates;
mod consequence;
mod cover;
mod family;
mod filing;
mod place;
mod valued;
mod witness;

use behaviour::behaviour;
use candidates::convention_candidates;
pub(in crate::model) use candidates::conventions;
use consequence::{
    consequences, first_difference, first_rejects_well_formed, last_departure, shows_only_at_start,
    valued_category,
};
use cover::cover;
use family::{
    as_the_decoder_reads, families, family_changes, kind, open_prefixes, run_changed,
    taken_as_continuation, unit_category, waits_behind_an_error,
};
use place::{holds_open, inside_a_sequence, same_place};
use witness::witness_of;

/// What a finding's hypothesis is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// A known convention explains the differences.
    Convention(Convention),
    /// One changed transition family of the reference's machine.
    Transition,
    /// No single hypothesis explains the difference.
    Unexplained,
}

impl Serialize for Mechanism {
    /// `{"kind": "convention", "name": ..., "policy": ...}`, `{"kind": "transition"}` or
    /// `{"kind": "unexplained"}`: a convention by its name, and whether it is a U+FFFD
    /// policy (a policy, not a bug).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self {
            Mechanism::Convention(convention) => {
                map.serialize_entry("kind", "convention")?;
                map.serialize_entry("name", &convention.name())?;
                map.serialize_entry("policy", &convention.is_policy())?;
            }
            Mechanism::Transition => map.serialize_entry("kind", "transition")?,
            Mechanism::Unexplained => map.serialize_entry("kind", "unexplained")?,
        }
        map.end()
    }
}

/// What a decoder does differently, independent of what the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// A chosen hypothesis: its candidate (none for a difference nothing explains), what it
/// is, its witness, and the primary differences it explains.
struct Group {
    candidate: Option<usize>,
    mechanism: Mechanism,
    witness: usize,
    explained: Vec<usize>,
}

/// A candidate hypothesis and the differences it explains.
struct Candidate {
    mechanism: Mechanism,
    explains: Vec<bool>,
    /// The difference the candidate was built from (for a transition family).
    seed: Option<usize>,
}

/// The findings for `differences` between `decoder` and `reference`, both learned for
/// `capabilities`; `conventions` are the decoder's (this module's `conventions()`,
/// with the character it puts in place of ill-formed bytes where that is one and not
/// U+FFFD, which the machine's outputs cannot tell), each tried as a hypothesis where it
/// reports scalars.
pub fn findings(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    capabilities: Capabilities,
    conventions: &[Convention],
) -> Vec<Finding> {
    if differences.is_empty() {
        return Vec::new();
    }
    let observed: Vec<Vec<StepOutput>> = differences
        .iter()
        .map(|d| decoder.run(&d.witness))
        .collect();
    let expected: Vec<Vec<StepOutput>> = differences
        .iter()
        .map(|d| reference.run(&d.witness))
        .collect();
    let mut candidates: Vec<Candidate> = Vec::new();
    if capabilities.scalars {
        candidates = convention_candidates(
            decoder,
            differences,
            capabilities,
            conventions,
            (&observed, &expected),
        );
    }
    // Bytes taken as continuation bytes, wherever the decoder does so.
    let consumed: Vec<bool> = differences
        .iter()
        .map(|d| taken_as_continuation(decoder, d))
        .collect();
    candidates.extend(transition_candidates(
        decoder,
        reference,
        differences,
        (&observed, &consumed),
    ));
    let origins: Vec<Option<usize>> = differences
        .iter()
        .enumerate()
        .map(|(index, d)| {
            last_departure(decoder, reference, differences, &d.witness)
                .filter(|&p| p < index)
                .or_else(|| first_difference(decoder, reference, differences, &d.witness))
        })
        .collect();
    let consequences = consequences(decoder, reference, differences, &origins);
    let after_rejection: Vec<bool> = differences
        .iter()
        .map(|d| first_rejects_well_formed(decoder, reference, &d.witness))
        .collect();
    // Each witness as the decoder reads it: whether it takes a byte before the last in,
    // and the category of the bytes given a value.
    let (after_taken, valued): (Vec<bool>, Vec<Option<Category>>) = differences
        .iter()
        .zip(&observed)
        .map(|(d, seen)| {
            let read = Difference {
                witness: as_the_decoder_reads(decoder, &d.witness),
                ..d.clone()
            };
            let last = d.witness.len() - 1;
            (
                read.witness[..last] != d.witness[..last],
                valued_category(&read, seen),
            )
        })
        .unzip();
    let mut findings = cover(
        differences,
        candidates,
        &origins,
        &filing::Reached {
            follows: &consequences,
            after_rejection: &after_rejection,
            valued: &valued,
            taken: &consumed,
            after_taken: &after_taken,
        },
    );
    witness::witness_acceptances(decoder, differences, &mut findings);
    witness::witness_completions(decoder, reference, differences, &mut findings);
    valued::by_bytes_given_a_value(differences, &valued, &mut findings);
    title_start_only(decoder, reference, differences, &mut findings);
    findings
}

/// One candidate per transition family: the differences the reference's machine with the
/// family's transitions changed explains, or that show at a member's place.
fn transition_candidates(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    (observed, consumed): (&[Vec<StepOutput>], &[bool]),
) -> Vec<Candidate> {
    let mut candidates = Vec::new();
    // What a witness is to the grammar (where it first errs), and what the departing
    // bytes are to the decoder. Families are keyed by the second, and the same place is
    // judged by it: `C0 41` taken as one character is the continuation check's, not the
    // lead's. The changed machine is asked only about witnesses of its family's kind.
    let categories: Vec<Option<Category>> = differences
        .iter()
        .map(|d| kind(title::category(&d.witness)))
        .collect();
    let open = open_prefixes(decoder, reference);
    let waiting: Vec<bool> = differences
        .iter()
        .map(|d| waits_behind_an_error(decoder, d))
        .collect();
    // A byte taken as a continuation byte is, to the decoder, a sequence cut by another
    // byte that it does not see cut: such a family is witnessed where the grammar sees
    // the same (`C2 41` rather than `C0 41`).
    let read: Vec<Option<Category>> = differences
        .iter()
        .zip(&waiting)
        .zip(consumed)
        .map(|((d, &waits), &taken)| {
            if taken {
                Some(Category::TruncatedInterrupted)
            } else {
                kind(unit_category(decoder, reference, (d, waits), &open))
            }
        })
        .collect();
    let held: Vec<bool> = differences
        .iter()
        .map(|d| holds_open(decoder, &d.witness[..d.witness.len() - 1]))
        .collect();
    for mut members in families(differences, &read, (&waiting, consumed)) {
        // A family is witnessed by a member whose bytes the grammar reads as the decoder
        // does (`C2 41` rather than `C0 41` for a continuation taken unchecked).
        members.sort_by_key(|&m| categories[m] != read[m]);
        let changes = family_changes(decoder, reference, differences, &members);
        let category = categories[members[0]];
        // Bytes taken as continuation bytes are known wherever they show: that family
        // explains every one.
        let taking = consumed[members[0]];
        let explains = differences
            .iter()
            .zip(observed)
            .enumerate()
            .map(|(index, (d, seen))| {
                // The changed machine must give the decoder's outputs on the whole
                // witness, and about bytes of the same kind: a changed transition of a
                // state the reference shares between contexts must not claim another
                // context's bug.
                members.contains(&index)
                    || (taking && consumed[index])
                    || (categories[index] == category
                        && run_changed(reference, &changes, &d.witness) == *seen)
                    || members.iter().any(|&m| {
                        same_place(&differences[m], d, read[m] == read[index])
                            && !inside_a_sequence(&differences[m], d, held[index])
                    })
            })
            .collect();
        candidates.push(Candidate {
            mechanism: Mechanism::Transition,
            explains,
            seed: Some(members[0]),
        });
    }
    candidates
}

/// A family whose every difference shows only at the start of an input says so: its
/// contexts ("after `EF BB`") are read from the start.
fn title_start_only(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    findings: &mut [Finding],
) {
    for finding in findings {
        let at_start = finding.mechanism == Mechanism::Transition
            && !finding.differences.is_empty()
            && finding
                .differences
                .iter()
                .all(|&i| shows_only_at_start(decoder, reference, &differences[i]));
        if at_start {
            finding.title = format!("at the start of input, {}", finding.title);
        }
    }
}

/// Whether a convention giving `outputs` on a witness explains the decoder's `seen`: the
/// same output at the last step, and at each step before it the same output, or the
/// same lossy side where both have already reported an error (where the first error is
/// was settled by an earlier step), or a departure of the decoder from the reference
/// (`reference`) of its own, which another hypothesis explains: a policy's unit behind a
/// lead byte reported as an error at the end of input (`C2 C0 80`) is still the policy's.
fn explains_steps(outputs: &[StepOutput], seen: &[StepOutput], reference: &[StepOutput]) -> bool {
    let Some(last) = seen.len().checked_sub(1) else {
        return true;
    };
    let reported = |s: Strict| {
        matches!(
            s,
            Strict::Error { .. } | Strict::Settled | Strict::Revised | Strict::Invalid
        )
    };
    outputs.len() == seen.len()
        && outputs[last] == seen[last]
        && (0..last).all(|i| {
            outputs[i] == seen[i]
                || (reported(outputs[i].strict)
                    && reported(seen[i].strict)
                    && outputs[i].lossy == seen[i].lossy)
                || !super::difference::agree(seen[i], reference[i])
        })
}

/// How many bytes further back than the reference the decoder reports an error of the
/// same length, with the same lossy side; `None` for any other difference.
pub(crate) fn offset_shift(d: &Difference) -> Option<i16> {
    match (d.reference.strict, d.decoder.strict) {
        (Strict::Error { len: r, back: rb }, Strict::Error { len: l, back: db })
            if r == l && rb != db && d.reference.lossy == d.decoder.lossy =>
        {
            Some(i16::from(db) - i16::from(rb))
        }
        _ => None,
    }
}

fn finding(
    differences: &[Difference],
    mechanism: Mechanism,
    witness_index: usize,
    explained: &[usize],
) -> Finding {
    let category = title::category(&differences[witness_index].witness);
    finding_about(differences, mechanism, witness_index, explained, category)
}

/// [`finding`] about bytes of `category` (not necessarily the witness's first error).
fn finding_about(
    differences: &[Difference],
    mechanism: Mechanism,
    witness_index: usize,
    explained: &[usize],
    category: Option<Category>,
) -> Finding {
    let d = &differences[witness_index];
    let behaviour = behaviour(d.reference, d.decoder);
    let title = match &mechanism {
        Mechanism::Convention(convention) => convention.title(),
        Mechanism::Transition | Mechanism::Unexplained => {
            // The witness's transition first: the title describes its outputs, and the
            // places where the family shows the same.
            let shown = behaviour::shown(d.reference, d.decoder);
            let family: Vec<&Difference> = std::iter::once(d)
                .chain(
                    explained
                        .iter()
                        .filter(|&&i| i != witness_index)
                        .map(|&i| &differences[i])
                        .filter(|x| {
                            x.primary == d.primary
                                && x.decoder == d.decoder
                                && behaviour::shown(x.reference, x.decoder) == shown
                        }),
                )
                .collect();
            // Every error of the finding moved by its own length is one statement, not
            // the witness's shift.
            let all: Vec<&Difference> = explained.iter().map(|&i| &differences[i]).collect();
            title::error_at_its_end(&all)
                .unwrap_or_else(|| title::transition_title(&family, shown, category))
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
        manifestations: Vec::new(),
    }
}

/// The finding of a decoder whose strict answer is always "valid": witnessed by the first
/// difference (the shortest ill-formed input).
pub fn never_reports_errors(differences: &[Difference]) -> Finding {
    let witness = differences
        .first()
        .map(|d| d.witness.clone())
        .unwrap_or_default();
    Finding {
        mechanism: Mechanism::Convention(Convention::NeverReports),
        title: Convention::NeverReports.title(),
        category: title::category(&witness),
        behaviour: Behaviour::AcceptsIllFormed,
        witness,
        differences: (0..differences.len().min(1)).collect(),
        manifestations: (1..differences.len()).collect(),
    }
}

/// The finding of a convention chosen outside [`findings`] (a lossy convention beside
/// strict bugs): witnessed by difference `witness`, explaining `explained`.
pub fn convention_finding(
    convention: Convention,
    differences: &[Difference],
    witness: usize,
    explained: &[usize],
) -> Finding {
    finding(
        differences,
        Mechanism::Convention(convention),
        witness,
        explained,
    )
}
