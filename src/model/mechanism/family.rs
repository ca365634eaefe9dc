//! Transition families: the primary differences that show one change of behaviour on
//! bytes of one category, and the reference's machine with a family's transitions changed.

use std::collections::HashMap;

use super::behaviour::behaviour;
use super::{offset_shift, Behaviour};
use crate::model::difference::Difference;
use crate::model::learner::Hypothesis;
use crate::model::output::{StepOutput, Strict};
use crate::model::title;
use crate::taxonomy::Category;

/// Primary differences grouped by the change of behaviour they show and the category of
/// their witness, in order of first appearance.
pub(super) fn families(differences: &[Difference]) -> Vec<Vec<usize>> {
    type Key = (Behaviour, Option<Category>, Option<i16>);
    let mut families: Vec<(Key, Vec<usize>)> = Vec::new();
    for (index, d) in differences.iter().enumerate().filter(|(_, d)| d.primary) {
        // An error of the right length reported further back (or further on) wherever
        // it shows is one miscount of the offset (counted from the wrong place, or in
        // characters instead of bytes, so the shift may grow with what came before),
        // whatever the error's category: one family, not one per category or shift.
        let key = match offset_shift(d) {
            Some(shift) => (Behaviour::ErrorSpan, None, Some(shift.signum())),
            None => (family_behaviour(d), kind(title::category(&d.witness)), None),
        };
        match families.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(index),
            None => families.push((key, vec![index])),
        }
    }
    families.into_iter().map(|(_, members)| members).collect()
}

/// The change of behaviour a family is keyed by: where both sides have already settled
/// their first error, only the scalars can show bytes taken into a character, so a value
/// decoded there is the acceptance that the same bytes show where nothing came before
/// (`F0 D0 C0` decoded to one character behind the error at `D0`, `C2 C0` accepted).
fn family_behaviour(d: &Difference) -> Behaviour {
    let settled = d.reference.strict == Strict::Settled && d.decoder.strict == Strict::Settled;
    match behaviour(d.reference, d.decoder) {
        Behaviour::DecodesIllFormed if settled => Behaviour::AcceptsIllFormed,
        other => other,
    }
}

pub(super) type Changes = HashMap<(usize, u8), (usize, StepOutput)>;

/// The reference's transitions a family changes: to the decoder's output, and to the
/// reference state most like the decoder's target.
pub(super) fn family_changes(
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

pub(super) fn run_changed(
    reference: &Hypothesis,
    changes: &Changes,
    word: &[u8],
) -> Vec<StepOutput> {
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

/// The kind of bytes a family is about: a category, with the overlong forms of every
/// length as one. RFC 3629 section 3 has one table of the shortest forms, and names the
/// overlong ones as one hazard ("a naive implementation may decode the overlong UTF-8
/// sequence C0 80 into the character U+0000"): a decoder that lacks the shortest-form
/// check lacks it for every length it decodes, one mechanism, not one per length.
pub(super) fn kind(category: Option<Category>) -> Option<Category> {
    match category {
        Some(Category::Overlong3 | Category::Overlong4) => Some(Category::Overlong2),
        other => other,
    }
}
