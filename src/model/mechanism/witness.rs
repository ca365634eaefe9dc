//! Which of a finding's differences witnesses it.

use super::behaviour::behaviour;
use super::consequence::value_kinds;
use super::family::{
    holds_a_sequence, leaves_out_a_replacement, one_value_for_those_before, takes_back,
};
use super::place::holds_open;
use super::{finding, offset_shift, Behaviour, Finding, Mechanism};
use crate::model::difference::Difference;
use crate::model::learner::Hypothesis;
use crate::model::output::{StepOutput, Strict, UnitKind};

/// The witness of a finding explaining the primary differences `explained`: its seed's,
/// else the first's. A family whose bytes swallow a well-formed character in one context
/// and only ill-formed bytes in another (a stray continuation byte that absorbs the
/// sequence after it, `80 C0 80` and `80 E1 80 80`) is shown by the harm it does
/// instead, so that its reader sees the character lost.
pub(super) fn witness_of(
    differences: &[Difference],
    seed: Option<usize>,
    explained: &[usize],
) -> usize {
    let witness = seed
        .filter(|s| explained.contains(s))
        .unwrap_or(explained[0]);
    // An error offset miscounted is shown by the shift alone: a member that also loses a
    // character (a decoder that swallows the byte after a broken sequence and counts
    // offsets in UTF-16 units, `C2 80 E0 A0 41`) shows another bug beside it.
    if harms_well_formed(&differences[witness]) || offset_shift(&differences[witness]).is_some() {
        return witness;
    }
    explained
        .iter()
        .copied()
        .filter(|&i| harms_well_formed(&differences[i]))
        .min_by_key(|&i| differences[i].witness.len())
        .unwrap_or(witness)
}

/// Whether the decoder's step loses a well-formed character the reference's step gives
/// (the reference appends more scalars of their own value than the decoder does).
fn harms_well_formed(d: &Difference) -> bool {
    let characters = |output: StepOutput| {
        output.lossy.map_or(0, |lossy| {
            lossy
                .kinds
                .iter()
                .filter(|kind| **kind == Some(UnitKind::Scalar))
                .count()
        })
    };
    characters(d.reference) > characters(d.decoder)
}

/// Retitles each transition finding witnessed by a wait where RFC 3629 has an error by
/// the sequence the decoder then accepts, where the finding holds one: a decoder that
/// decodes surrogates waits after `ED A0`, and `ED A0 80` accepted is the harm, the
/// wait only its first sign. The finding's title, category, behaviour and witness are
/// the acceptance's; what it explains is unchanged.
///
/// The sequence may need more than one byte to end: glibc's `F4 90` waited on is
/// `F4 90 80 80` accepted, after a wait at `F4 90 80` too. The shortest acceptance of
/// the finding's whose witness goes on from the wait, the decoder holding the sequence
/// open on every byte between, is the one shown.
pub(super) fn witness_acceptances(
    decoder: &Hypothesis,
    differences: &[Difference],
    findings: &mut [Finding],
) {
    rewitness(differences, findings, |found| {
        // A wait, or where the verdict cannot show one (a lossy-only decoder, or behind
        // a settled error), the U+FFFD the decoder leaves out for the bytes it holds.
        let held = |witness: &[u8]| {
            holds_open(decoder, witness) || holds_a_sequence(decoder, decoder.state_after(witness))
        };
        let waits = differences.iter().any(|d| {
            d.witness == found.witness
                && ((d.decoder.strict == Strict::Incomplete
                    && matches!(d.reference.strict, Strict::Error { .. }))
                    || (leaves_out_a_replacement(d) && held(&d.witness)))
        });
        if !waits {
            return None;
        }
        // Any difference, not only the finding's own: the acceptance may have been
        // filed with a family that explains it (`C0 80` with the overlong forms), while
        // the wait at `C0` made a family of its own; retitled by the acceptance, the wait
        // is then one finding with that family (`valued::by_bytes_given_a_value`).
        (0..differences.len())
            .filter(|&i| {
                let d = &differences[i];
                d.witness.len() > found.witness.len()
                    && d.witness.starts_with(&found.witness)
                    && (found.witness.len()..d.witness.len()).all(|end| held(&d.witness[..end]))
                    && accepts(d)
            })
            .min_by_key(|&i| (differences[i].witness.len(), differences[i].witness.clone()))
    });
}

/// Whether the decoder takes `d`'s bytes into a character where the reference rejects
/// them: it calls the input valid there, or (where its verdict cannot show it) it takes
/// back what it gave the bytes before and gives one value, not U+FFFD, in their place.
pub(super) fn accepts(d: &Difference) -> bool {
    let strict = d.decoder.strict == Strict::Valid
        && behaviour(d.reference, d.decoder) == Behaviour::AcceptsIllFormed;
    let lossy = d.decoder.strict == d.reference.strict
        && d.decoder.lossy.is_some_and(one_value_for_those_before)
        && behaviour(d.reference, d.decoder) == Behaviour::DecodesIllFormed;
    strict || lossy
}

/// Rewitnesses each transition finding whose witness leaves the decoder in the middle of
/// a sequence where the reference has finished: the value shown there is what the
/// decoder makes of the end of input as much as of the finding's bytes (a letter taken
/// as the second byte of three, then the missing third read as zero, is two faults in
/// one witness). The finding is witnessed instead by one of its differences that
/// extends the witness by a byte and replaces that provisional value with a value of
/// its own: the sequence completed, its value the finding's alone. The finding's title,
/// category, behaviour and witness are that difference's; what it explains is unchanged.
pub(super) fn witness_completions(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    findings: &mut [Finding],
) {
    rewitness(differences, findings, |found| {
        let (_, context) = found.witness.split_last()?;
        // The departing byte goes on with a sequence the decoder had begun (a finding
        // about where a sequence begins, a lead read past the end, is about the end).
        let pending = takes_back(decoder, decoder.state_after(context))
            && takes_back(decoder, decoder.state_after(&found.witness))
            && !takes_back(reference, reference.state_after(&found.witness));
        if !pending {
            return None;
        }
        extensions(found, differences)
            .filter(|&i| {
                let d = &differences[i];
                d.decoder.lossy.is_some_and(|l| l.taken_back > 0)
                    && !value_kinds(d.decoder).is_empty()
                    && !takes_back(decoder, decoder.state_after(&d.witness))
            })
            // Completed by a continuation byte where one does: the one byte RFC 3629
            // lets end a sequence, so that the witness holds no second fault.
            .min_by_key(|&i| {
                let last = *differences[i].witness.last().unwrap_or(&0);
                (!(0x80..=0xBF).contains(&last), last)
            })
    });
}

/// The differences of `found` (primary or manifestations) whose witness is its witness
/// and one byte more.
fn extensions<'a>(
    found: &'a Finding,
    differences: &'a [Difference],
) -> impl Iterator<Item = usize> + 'a {
    continuations(found, differences)
        .filter(move |&i| differences[i].witness.len() == found.witness.len() + 1)
}

/// The differences of `found` (primary or manifestations) whose witness goes on from its
/// witness by one byte or more.
fn continuations<'a>(
    found: &'a Finding,
    differences: &'a [Difference],
) -> impl Iterator<Item = usize> + 'a {
    found
        .differences
        .iter()
        .chain(&found.manifestations)
        .copied()
        .filter(move |&i| {
            let witness = &differences[i].witness;
            witness.len() > found.witness.len() && witness.starts_with(&found.witness)
        })
}

/// Gives each transition finding for which `pick` names one of its differences that
/// difference's title, category, behaviour and witness; what it explains is unchanged.
fn rewitness(
    differences: &[Difference],
    findings: &mut [Finding],
    mut pick: impl FnMut(&Finding) -> Option<usize>,
) {
    for found in findings
        .iter_mut()
        .filter(|f| f.mechanism == Mechanism::Transition)
    {
        if let Some(index) = pick(found) {
            let shown = finding(differences, Mechanism::Transition, index, &[index]);
            found.title = shown.title;
            found.category = shown.category;
            found.behaviour = shown.behaviour;
            found.witness = shown.witness;
        }
    }
}
