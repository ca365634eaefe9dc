//! The known conventions, and the decoder's own members of the families read off its
//! machine, as candidate hypotheses: each run as a decoder on every difference's witness.

use super::family::leaves_out_a_replacement;
use super::{explains_steps, Candidate, Mechanism};
use crate::decoders::Capabilities;
use crate::model::conventions::{
    ByteValues, Convention, ConventionDecoder, LeadLengths, LeadSet, Substitute,
};
use crate::model::difference::Difference;
use crate::model::learner::Hypothesis;
use crate::model::oracle::Oracle;
use crate::model::output::{StepOutput, Strict, UnitKind};
use crate::policy::ReplacementPolicy;

/// One candidate per convention of `conventions` (the decoder's, from [`conventions`]).
/// `steps` are the decoder's and the reference's outputs on each witness.
pub(super) fn convention_candidates(
    decoder: &Hypothesis,
    differences: &[Difference],
    capabilities: Capabilities,
    conventions: &[Convention],
    steps: (&[Vec<StepOutput>], &[Vec<StepOutput>]),
) -> Vec<Candidate> {
    let (observed, expected) = steps;
    // A machine whose every step is "valid" is a lossy-only decoder's (diagnosed from its
    // scalars alone): a convention is compared with it on the scalars alone too.
    let lossy_only = decoder
        .output
        .iter()
        .flatten()
        .all(|o| o.strict == Strict::Valid);
    // Whether each difference is a U+FFFD left out for a value (asked once, not per
    // convention; only of a lossy-only decoder).
    let held: Vec<bool> = differences
        .iter()
        .map(|d| lossy_only && held_for_a_value(decoder, d))
        .collect();
    let mut candidates = Vec::new();
    for &convention in conventions {
        let subject = ConventionDecoder::new(convention);
        let mut oracle = Oracle::new(&subject, capabilities);
        let explains = differences
            .iter()
            .zip(observed.iter().zip(expected))
            .zip(&held)
            .map(|((d, (seen, expected)), &held)| {
                let mut outputs = oracle.outputs(&d.witness);
                if lossy_only {
                    for output in &mut outputs {
                        output.strict = Strict::Valid;
                    }
                }
                explains_steps(&outputs, seen, expected) && !(held && convention.is_policy())
            })
            .collect::<Vec<bool>>();
        // A policy shows wherever there are ill-formed bytes, at the start of an input
        // as well as behind an error. One that explains only differences behind an
        // error the reference has settled, where the verdict cannot be read and only
        // the scalars show anything, and none where the verdict can, is a coincidence of
        // the scalars: a decoder holding `E0 80` open as an overlong form leaves out a
        // U+FFFD behind `80` as a lead-sized policy would, and at the start it waits for
        // more input, which no policy does. (A lossy-only decoder's verdict is never
        // readable.)
        let readable = |d: &Difference| {
            !(d.reference.strict == Strict::Settled && d.decoder.strict == Strict::Settled)
        };
        let shown = lossy_only
            || explains
                .iter()
                .zip(differences)
                .any(|(&explained, d)| explained && readable(d));
        let explains = if shown {
            explains
        } else {
            vec![false; explains.len()]
        };
        candidates.push(Candidate {
            mechanism: Mechanism::Convention(convention),
            explains,
            seed: None,
        });
    }
    // Of the substitute's policies, one that explains only part of what another does is
    // not its policy (a `?` per byte also gives one `?` for every one-byte unit).
    let substituted = |c: &Candidate| {
        matches!(
            c.mechanism,
            Mechanism::Convention(Convention::Substitute(_))
        )
    };
    let dominated: Vec<bool> = candidates
        .iter()
        .map(|c| {
            substituted(c)
                && candidates.iter().any(|other| {
                    substituted(other)
                        && other.explains != c.explains
                        && c.explains
                            .iter()
                            .zip(&other.explains)
                            .all(|(&a, &b)| !a || b)
                })
        })
        .collect();
    let mut index = 0;
    candidates.retain(|_| {
        index += 1;
        !dominated[index - 1]
    });
    candidates
}

/// Whether `d` is a U+FFFD left out because the decoder holds the bytes open as a
/// sequence it can still complete to a value: it gives the byte nothing where the
/// reference gives U+FFFD, and some next byte takes back what it gave and gives a value
/// that is not U+FFFD. A U+FFFD policy's unit is never completed to a value; a decoder
/// that decodes surrogates holds `ED A0` open for `ED A0 80` (U+D800), which a lead-sized
/// policy would leave out the same U+FFFD for. Asked of a lossy-only decoder, whose
/// verdict never tells a wait from a policy's unit; where the verdict can be read, a
/// policy is judged by where it shows (`readable` below).
fn held_for_a_value(decoder: &Hypothesis, d: &Difference) -> bool {
    let state = decoder.state_after(&d.witness);
    leaves_out_a_replacement(d)
        && (0..=255u8).any(|byte| {
            decoder.step(state, byte).1.lossy.is_some_and(|l| {
                l.taken_back > 0
                    && l.appended > 0
                    && l.kinds
                        .iter()
                        .flatten()
                        .any(|&kind| kind != UnitKind::Replacement)
            })
        })
}

/// The conventions to try on `decoder`, in order: its own member of the lead-sized
/// family when it has one ([`LeadSet::of_machine`]), each U+FFFD policy with its
/// `substitute` character in place of U+FFFD when it has one, the known conventions,
/// its error lengths read off the lead when it has them ([`LeadLengths::of_machine`]),
/// its own member of the byte-by-byte family ([`ByteValues::of_machine`]). Worked out
/// once per diagnosis and handed to each use.
pub(in crate::model) fn conventions(
    decoder: &Hypothesis,
    capabilities: Capabilities,
    substitute: Option<u32>,
) -> Vec<Convention> {
    // The decoder's own member of the lead-sized family first: it wins a tie with the
    // known members, which differ from it on inputs where it agrees with the reference
    // (and so explain no fewer of its differences).
    let learned = LeadSet::of_machine(decoder, capabilities).map(|leads| {
        [
            Convention::LeadSizedBy(leads),
            Convention::ReportedLeadSizedBy(leads),
        ]
    });
    // An error length the decoder reads off the lead alone, last: a known convention
    // that explains as much is the truer name.
    let lengths = LeadLengths::of_machine(decoder).map(Convention::ErrorLenByLead);
    // The decoder's own member of the byte-by-byte family, last too.
    let values = ByteValues::of_machine(decoder).map(Convention::PerByteValues);
    // A substitute is a policy's marker: each policy with it.
    let substitutes = substitute.into_iter().flat_map(|scalar| {
        ReplacementPolicy::ALL.map(|policy| Convention::Substitute(Substitute { policy, scalar }))
    });
    learned
        .into_iter()
        .flatten()
        .chain(substitutes)
        .chain(Convention::ALL)
        .chain(lengths)
        .chain(values)
        .collect()
}
