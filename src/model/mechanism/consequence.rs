//! Whether a difference reached through another one follows from it, or is a bug of its
//! own behind it.

use crate::model::difference::{agree, Difference};
use crate::model::learner::Hypothesis;
use crate::model::output::{StepOutput, Strict, UnitKind, COUNT_CAP};
use crate::model::title;
use crate::taxonomy::Category;

/// For each difference, whether it follows from the earlier difference its witness
/// first departs at (`origins`), rather than being a bug of its own behind it.
pub(super) fn consequences(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    origins: &[Option<usize>],
) -> Vec<bool> {
    differences
        .iter()
        .zip(origins)
        .map(|(d, origin)| {
            consequence(reference, d)
                || origin.is_some_and(|o| differences[o].decoder == d.decoder)
                || (title::category(&d.witness).is_some() && !shows_alone(decoder, reference, d))
        })
        .collect()
}

/// A difference reached through another one is a consequence of it when the decoder
/// does there what the reference does in *some* state (it is only in another state
/// because of the earlier difference) or what it did at that difference (the same
/// departure going on); otherwise it is a bug behind that one.
fn consequence(reference: &Hypothesis, d: &Difference) -> bool {
    d.primary || (0..reference.state_count()).any(|r| reference.step(r, d.bytes[0]).1 == d.decoder)
}

/// Whether the last step of `d`'s witness departs from the reference on some shorter
/// input (asked only of ill-formed witnesses: what a decoder does to well-formed input,
/// a byte order mark dropped after a policy's difference on its incomplete prefix, is
/// reported whatever came before it): a proper suffix of the witness whose steps agree
/// up to a departure at its last byte. A difference that shows only behind an earlier
/// one (a held-back U+FFFD coming out at the next byte) follows from it (an error
/// offset counted from a stripped BOM shows only behind the strip too, but filing takes
/// an offset moved behind a departure that moved none for a fault of its own); one
/// whose bytes also depart alone may be a bug of its own that the earlier one happens
/// to precede. (Asking for the very same step alone instead would also take a
/// surrogate decoded behind a stray byte read as a character for a consequence of the
/// stray byte: the stricter test hides bugs behind bugs.)
fn shows_alone(decoder: &Hypothesis, reference: &Hypothesis, d: &Difference) -> bool {
    let witness = &d.witness;
    (1..witness.len()).any(|start| {
        let suffix = &witness[start..];
        let (ours, theirs) = (decoder.run(suffix), reference.run(suffix));
        let last = suffix.len() - 1;
        ours[..last]
            .iter()
            .zip(&theirs[..last])
            .all(|(a, b)| agree(*a, *b))
            && !agree(ours[last], theirs[last])
    })
}

/// The steps of `word` on which the two machines' outputs differ: the byte's position,
/// the pair of states it is read in, and the two outputs.
fn departing_steps(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    word: &[u8],
) -> Vec<(usize, (usize, usize), StepOutput, StepOutput)> {
    let (mut d, mut r) = (0, 0);
    let mut steps = Vec::new();
    for (at, &byte) in word.iter().enumerate() {
        let (dn, dout) = decoder.step(d, byte);
        let (rn, rout) = reference.step(r, byte);
        if !agree(dout, rout) {
            steps.push((at, (d, r), dout, rout));
        }
        (d, r) = (dn, rn);
    }
    steps
}

/// The difference taken last along `word` before its last byte: the departure the last
/// step is reached through (a bug behind another bug is reached through that bug, which
/// may itself be behind the first departure).
pub(super) fn last_departure(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    word: &[u8],
) -> Option<usize> {
    departing_steps(decoder, reference, word)
        .into_iter()
        .rev()
        .filter(|&(at, ..)| at + 1 < word.len())
        .find_map(|(at, (d, r), dout, rout)| {
            let taken = |x: &Difference| {
                x.decoder_state == d
                    && x.reference_state == r
                    && x.decoder == dout
                    && x.reference == rout
                    && x.bytes.contains(&word[at])
            };
            // Of a transition's copies (one per value check reaching it), the one
            // witnessed by this very prefix where there is one: `F4 90 80` is where
            // `F4 90 80 80` comes from, though a decoder without the overlong check
            // reaches it in the pair of `F0 80 80`.
            differences
                .iter()
                .position(|x| taken(x) && x.witness == word[..=at])
                .or_else(|| differences.iter().position(taken))
        })
}

/// Whether `word`, before its last byte, first departs where the decoder rejects
/// well-formed bytes (the reference's step is valid, the decoder's is not): a later
/// rejection of a well-formed input along it is that rejection going on (a decoder that
/// rejects `00` rejects `00 E0 A0 80` for its `00`, not for the character after it).
pub(super) fn first_rejects_well_formed(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    word: &[u8],
) -> bool {
    departing_steps(decoder, reference, word)
        .first()
        .is_some_and(|&(at, _, dout, rout)| {
            at + 1 < word.len() && rout.strict == Strict::Valid && dout.strict != Strict::Valid
        })
}

/// Whether `d` shows only at the start of an input: its witness has a context, and after
/// a character (`41`) the same bytes no longer depart at the last step (a byte order
/// mark dropped at the start only: `EF BB BF` departs, `41 EF BB BF` does not).
pub(super) fn shows_only_at_start(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    d: &Difference,
) -> bool {
    if d.witness.len() < 2 {
        return false;
    }
    let later: Vec<u8> = std::iter::once(b'A')
        .chain(d.witness.iter().copied())
        .collect();
    match (decoder.run(&later).last(), reference.run(&later).last()) {
        (Some(&ours), Some(&theirs)) => agree(ours, theirs),
        _ => false,
    }
}

/// The primary difference taken first along `word`: where the machines part.
pub(super) fn first_difference(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &[Difference],
    word: &[u8],
) -> Option<usize> {
    let (at, (d, r), ..) = departing_steps(decoder, reference, word)
        .into_iter()
        .next()?;
    differences.iter().position(|x| {
        x.primary && x.decoder_state == d && x.reference_state == r && x.bytes.contains(&word[at])
    })
}

/// The category of the bytes a decoder gives a value to at the last step of `d`'s
/// witness, `outputs` being the decoder's outputs along it. Where the step appends one
/// value, the bytes are read off the outputs ([`value_start`]): a decoder that takes a
/// letter as a continuation byte and then a third byte gives `E0 20 90` one value, made
/// of all three, though `20` is not a continuation byte. Otherwise it is the sequence
/// from the last byte that is not a continuation byte (the lead whose bits the value is
/// made of; `80 F4 BF BF BF` decodes `F4 BF BF BF`, above U+10FFFF, behind the stray `80`
/// that is the witness's first error), before the last byte where the decoder puts one
/// value in place of what it gave the bytes before.
pub(super) fn valued_category(d: &Difference, outputs: &[StepOutput]) -> Option<Category> {
    let witness = &d.witness;
    let start = value_start(witness, outputs).unwrap_or_else(|| {
        // One value in place of what the bytes before had: it is made of them too.
        let one_for_more = d
            .decoder
            .lossy
            .is_some_and(|l| l.taken_back > 0 && l.appended == 1);
        lead_before(witness, witness.len() - usize::from(one_for_more))
    });
    title::category(&witness[start..]).or_else(|| title::category(witness))
}

/// The last byte of `witness[..end]` that is not a continuation byte (0 if none): the
/// lead of the sequence a value given there is made of.
fn lead_before(witness: &[u8], end: usize) -> usize {
    witness[..end]
        .iter()
        .rposition(|&b| !(0x80..=0xBF).contains(&b))
        .unwrap_or(0)
}

/// Where the one value appended at the last step of `witness` starts, `outputs` being
/// the decoder's outputs along it. A value that takes the place of values appended
/// before is made of their bytes too, so it starts where the first of them did; a value
/// appended in place of nothing starts at the last byte so far that is not a
/// continuation byte (its lead). `None` where the last step appends no value or several,
/// or takes back values whose start is not known (counted past the cap).
pub(super) fn value_start(witness: &[u8], outputs: &[StepOutput]) -> Option<usize> {
    // The first byte of each value in the answer so far, where known.
    let mut starts: Vec<Option<usize>> = Vec::new();
    // Whether `starts` holds every value of the answer: a count at the cap means "that
    // many or more", exact only where no more values than that were there to take.
    let mut counted = true;
    let mut last = None;
    for (at, output) in outputs.iter().enumerate() {
        let lossy = output.lossy?;
        let (taken, appended) = (usize::from(lossy.taken_back), usize::from(lossy.appended));
        let from = if taken == 0 {
            Some(lead_before(witness, at + 1))
        } else if (taken < usize::from(COUNT_CAP) || (counted && taken == starts.len()))
            && taken <= starts.len()
        {
            let keep = starts.len() - taken;
            starts.drain(keep..).next().flatten()
        } else {
            None
        };
        if appended >= usize::from(COUNT_CAP) || taken >= usize::from(COUNT_CAP) {
            // How many values there are is no longer known: neither are their starts.
            starts.clear();
            counted = false;
        } else if appended == 1 {
            starts.push(from);
        }
        last = (appended == 1).then_some(from).flatten();
    }
    last
}

/// The kinds of value other than U+FFFD and a well-formed character's that a step appends.
pub(super) fn value_kinds(output: StepOutput) -> Vec<UnitKind> {
    output.lossy.map_or_else(Vec::new, |lossy| {
        lossy
            .kinds
            .iter()
            .flatten()
            .copied()
            .filter(|k| matches!(k, UnitKind::Bits | UnitKind::OwnByte | UnitKind::Other))
            .collect()
    })
}

/// Whether the decoder gives ill-formed bytes a value the reference does not: appends a
/// value that is not U+FFFD and not a well-formed character's, or (a decoder that
/// reports no scalars) turns to "valid" where the reference has an error, after
/// reporting something else at the departure it is reached through (`previous`).
pub(super) fn gives_a_value(d: &Difference, previous: Option<&Difference>) -> bool {
    let values = |output: StepOutput| output.lossy.map(|_| value_kinds(output).len());
    match (values(d.decoder), values(d.reference)) {
        (Some(ours), Some(theirs)) => ours > theirs,
        _ => {
            d.decoder.strict == Strict::Valid
                && d.reference.strict != Strict::Valid
                && previous.is_none_or(|p| p.decoder.strict != Strict::Valid)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::output::Lossy;

    fn appends(taken_back: u8, appended: u8) -> StepOutput {
        StepOutput {
            strict: Strict::Valid,
            lossy: Some(Lossy {
                taken_back,
                appended,
                kinds: [Some(UnitKind::Other), None],
            }),
        }
    }

    #[test]
    fn a_count_at_the_cap_is_exact_where_no_more_values_were_there() {
        // `E0 E0 80` from a decoder that gives each byte of a cut sequence its own value
        // and then one value for the three: the two taken back (a count at the cap) are
        // all there were, so the value starts at the first `E0`.
        let outputs = [appends(0, 1), appends(0, 1), appends(2, 1)];
        assert_eq!(value_start(&[0xE0, 0xE0, 0x80], &outputs), Some(0));
        // Behind an unknown count, two taken back may have been more.
        let outputs = [appends(0, 2), appends(0, 1), appends(2, 1)];
        assert_eq!(value_start(&[0x41, 0xE0, 0x80], &outputs), None);
    }
}
