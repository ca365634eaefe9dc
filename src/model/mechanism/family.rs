//! Transition families: the primary differences that show one change of behaviour on
//! bytes of one category, and the reference's machine with a family's transitions changed.

use std::collections::HashMap;

use super::behaviour::behaviour;
use super::{offset_shift, Behaviour};
use crate::model::difference::{agree, Difference};
use crate::model::learner::Hypothesis;
use crate::model::output::{Lossy, StepOutput, Strict, UnitKind};
use crate::model::title;
use crate::taxonomy::Category;

/// Primary differences grouped by the change of behaviour they show and the category of
/// their bytes as the decoder reads them (`categories`, from [`unit_category`]), in order
/// of first appearance.
///
/// A wait behind an error the reference has settled (`waiting`, from
/// [`waits_behind_an_error`]) is keyed as the wait it is where nothing came before: the
/// decoder holds `E0 80` open behind `80` as at the start of input, and only the U+FFFD
/// it leaves out shows there.
pub(super) fn families(
    differences: &[Difference],
    categories: &[Option<Category>],
    (waiting, consumed): (&[bool], &[bool]),
) -> Vec<Vec<usize>> {
    type Key = (Behaviour, Option<Category>, Option<i16>);
    let mut families: Vec<(Key, Vec<usize>)> = Vec::new();
    for (index, d) in differences.iter().enumerate().filter(|(_, d)| d.primary) {
        // An error of the right length reported further back (or further on) wherever
        // it shows is one miscount of the offset (counted from the wrong place, or in
        // characters instead of bytes, so the shift may grow with what came before),
        // whatever the error's category: one family, not one per category or shift.
        let key = match offset_shift(d) {
            Some(shift) => (Behaviour::ErrorSpan, None, Some(shift.signum())),
            // A byte taken as a continuation byte is one missing check wherever it
            // shows ([`taken_as_continuation`]), whatever the lead before it was to
            // the grammar and whatever value the sequence then had: `C2 41` decoded to
            // U+0081, and `C0 41` or `E0 41` to one U+FFFD, are the same bug.
            None if consumed[index] => (
                Behaviour::AcceptsIllFormed,
                Some(Category::TruncatedInterrupted),
                None,
            ),
            None if waiting[index] => (Behaviour::ErrorAsIncomplete, categories[index], None),
            None => (family_behaviour(d), categories[index], None),
        };
        match families.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(index),
            None => families.push((key, vec![index])),
        }
    }
    families.into_iter().map(|(_, members)| members).collect()
}

/// Whether the decoder, in the middle of a sequence, takes `d`'s byte, which is not a
/// continuation byte, as one: it goes where some continuation byte would take it, with
/// the same verdict and as many units taken back and appended (their values may differ:
/// a value check after the sequence may pass on one and fail on the other), gives an
/// ASCII byte no scalar of its own, and decodes letters again after it. RFC 3629
/// section 3: "In a sequence of n octets, n>1, ... The following octet(s) all have the
/// higher-order bit set to 1 and the following bit set to 0". A decoder that
/// ends an open sequence and starts anew on the byte does differently on the two (it
/// gives `41` its scalar, or holds a lead byte open); one that has stopped at an error
/// decodes nothing after it.
pub(super) fn taken_as_continuation(decoder: &Hypothesis, d: &Difference) -> bool {
    continuation_alike(decoder, d.decoder_state, d.witness[d.witness.len() - 1]).is_some()
}

/// The continuation byte the decoder takes `byte` as in `state` ([`taken_as_continuation`]):
/// the one with the same low six bits where that one goes alike (the bits a decoder that
/// masks each byte with `0x3F` reads), else the first that does.
fn continuation_alike(decoder: &Hypothesis, state: usize, byte: u8) -> Option<u8> {
    // At a character boundary (a state alike the start on every byte) nothing is open
    // to take the byte in: a byte rejected there as a stray continuation byte is not
    // taken as one.
    if (0x80..=0xBF).contains(&byte) || likeness(decoder, state, 0) == 256 {
        return None;
    }
    let shape = |output: StepOutput| {
        (
            output.strict,
            output.lossy.map(|l| (l.taken_back, l.appended)),
        )
    };
    let (to, output) = decoder.step(state, byte);
    let own_scalar = byte < 0x80
        && output
            .lossy
            .is_some_and(|l| l.appended > 0 && l.kinds.contains(&Some(UnitKind::Scalar)));
    let recovers = decoder.run_from(to, &[b'A'; 4]).iter().any(|o| {
        o.lossy.map_or(o.strict == Strict::Valid, |l| {
            l.kinds.contains(&Some(UnitKind::Scalar))
        })
    });
    let held = output.lossy.is_some_and(|l| l.appended == 0);
    if own_scalar || !recovers || starts_anew(decoder, (to, held), byte) {
        return None;
    }
    // Where the two go may differ only in which values later bytes are given (a value
    // check passed on one, failed on the other): alike on every byte is the same place.
    // Only a continuation byte the decoder goes on with counts: one it reports, or
    // replaces, there (`E0 80`) ends the sequence as the byte may.
    let goes_on = |there: StepOutput| {
        !matches!(there.strict, Strict::Error { .. })
            && there
                .lossy
                .is_none_or(|l| !l.kinds.contains(&Some(UnitKind::Replacement)))
    };
    let alike = |c: u8| {
        let (at, there) = decoder.step(state, c);
        goes_on(there)
            && shape(there) == shape(output)
            && (at == to || likeness(decoder, at, to) == 256)
    };
    let masked = 0x80 | (byte & 0x3F);
    std::iter::once(masked)
        .chain(0x80..=0xBF)
        .find(|&c| alike(c))
}

/// Whether the decoder, having read lead byte `byte` into state `to` (`held`: giving it
/// nothing yet), decodes the character that lead begins as that character once its
/// continuation bytes follow: it started anew at the lead (a decoder that drops or
/// replaces what it held before does so too, and holds the lead as one that took it in
/// would hold the sequence). The character must take the place of what the lead was
/// given, or come where it was given nothing: after `C2` taken in as a continuation
/// byte, `80` read as its own value is U+0080 too. The shortest continuation bytes are
/// the lowest allowed after each lead (RFC 3629 section 4: `E0 %xA0-BF`,
/// `F0 %x90-BF`).
fn starts_anew(decoder: &Hypothesis, (to, held): (usize, bool), byte: u8) -> bool {
    let rest: &[u8] = match byte {
        0xC2..=0xDF => &[0x80],
        0xE0 => &[0xA0, 0x80],
        0xE1..=0xEF => &[0x80, 0x80],
        0xF0 => &[0x90, 0x80, 0x80],
        0xF1..=0xF4 => &[0x80, 0x80, 0x80],
        _ => return false,
    };
    decoder.run_from(to, rest).last().is_some_and(|output| {
        output.lossy.is_some_and(|l| {
            l.kinds.contains(&Some(UnitKind::Scalar)) && (held || l.taken_back > 0)
        })
    })
}

/// `word` as the decoder reads it: each byte it takes as a continuation byte
/// ([`taken_as_continuation`]) replaced by the continuation byte it is taken as. A value
/// the decoder makes of `E0 41 90` is the overlong form `E0 81 90` to it.
pub(super) fn as_the_decoder_reads(decoder: &Hypothesis, word: &[u8]) -> Vec<u8> {
    let mut state = 0;
    word.iter()
        .map(|&byte| {
            let read = continuation_alike(decoder, state, byte).unwrap_or(byte);
            state = decoder.step(state, byte).0;
            read
        })
        .collect()
}

/// The change of behaviour a family is keyed by: where both sides have already settled
/// their first error, only the scalars can show bytes taken into a character, so a value
/// decoded there is the acceptance that the same bytes show where nothing came before
/// (`F0 D0 C0` decoded to one character behind the error at `D0`, `C2 C0` accepted).
fn family_behaviour(d: &Difference) -> Behaviour {
    // (Where neither side reports errors, as in a lossy-only comparison, only the
    // scalars show anything anywhere.)
    let settled = matches!(
        (d.reference.strict, d.decoder.strict),
        (Strict::Settled, Strict::Settled) | (Strict::Valid, Strict::Valid)
    );
    // Taking back what the bytes before were given and giving one value in their place
    // is taking those bytes and these as one character, whatever the reference gives
    // these bytes (`80 C2 41`: `A` is a character to the reference, and the decoder's
    // `C2 41` is the acceptance `C2 41` shows at the start).
    match behaviour(d.reference, d.decoder) {
        Behaviour::DecodesIllFormed if settled => Behaviour::AcceptsIllFormed,
        Behaviour::Misdecodes if settled && joins(d.decoder) => Behaviour::AcceptsIllFormed,
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

/// A well-formed prefix the grammar holds open (more input could complete its
/// character) and the decoder reads as the grammar does: the reference state it reaches,
/// its access word, and the decoder's state after it.
pub(super) struct OpenPrefix {
    word: Vec<u8>,
    reference_state: usize,
    decoder_state: usize,
}

/// The open prefixes of the reference's states (their access words), shortest first.
pub(super) fn open_prefixes(decoder: &Hypothesis, reference: &Hypothesis) -> Vec<OpenPrefix> {
    let mut open: Vec<OpenPrefix> = (0..reference.state_count())
        .filter(|&r| {
            let prefix = &reference.access[r];
            let theirs = reference.run(prefix);
            let ours = decoder.run(prefix);
            theirs
                .last()
                .is_some_and(|o| o.strict == Strict::Incomplete)
                && ours.iter().zip(&theirs).all(|(a, b)| agree(*a, *b))
        })
        .map(|r| OpenPrefix {
            word: reference.access[r].clone(),
            reference_state: r,
            decoder_state: decoder.state_after(&reference.access[r]),
        })
        .collect();
    open.sort_by_key(|prefix| prefix.word.len());
    open
}

/// The category of the bytes a difference is about, as the decoder reads them.
///
/// A witness's category is where the grammar first errs, and the grammar may have erred a
/// step before the decoder departs: `C0 41` is an invalid lead to RFC 3629, but a decoder
/// that took `C0` for a 2-byte lead and takes `41` as its continuation departs at `41`,
/// in the middle of a sequence, and does there what it does on `C2 41`. So where the
/// decoder, on these bytes, does what it does in the middle of some well-formed prefix
/// that it reads as the grammar does, and departs from the grammar there too, the bytes
/// are what they are after that prefix (`C2 41`: a sequence cut by another byte). Where
/// it does something it does after no such prefix (`C0 80` decoded to U+0000), it
/// departed earlier, at the lead the grammar rejected, and the witness's category stands.
/// Asked only of a step that makes one character of its byte and those before it
/// (`joins`): a U+FFFD or a rejection there is about the bytes the grammar names (a NUL
/// rejected behind a stray byte is not `E0 00`, though the decoder rejects both alike).
pub(super) fn unit_category(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    (d, waiting): (&Difference, bool),
    open: &[OpenPrefix],
) -> Option<Category> {
    let own = title::category(&d.witness);
    // Behind an error the reference has settled (`waiting`, from
    // [`waits_behind_an_error`]), the witness's first error is that
    // earlier one; what the decoder departs on is the sequence it holds open (`80 E0 80`:
    // `E0 80` held as the start of an overlong form, not the stray `80`).
    if waiting {
        return open_sequence_category(decoder, &d.witness).or(own);
    }
    if own.is_none() || !joins(d.decoder) {
        return own;
    }
    let byte = d.bytes[0];
    // Alike on more bytes than the decoder's state at the start of input is: its state
    // is in the middle of a sequence, not at a character boundary after an error.
    let boundary = likeness(decoder, d.decoder_state, 0);
    open.iter()
        .filter(|prefix| prefix.reference_state != d.reference_state)
        .find(|prefix| {
            let there = decoder.step(prefix.decoder_state, byte).1;
            !agree(there, reference.step(prefix.reference_state, byte).1)
                && same_action(there, d.decoder)
                && likeness(decoder, d.decoder_state, prefix.decoder_state) > boundary
        })
        .map_or(own, |prefix| {
            let mut word = prefix.word.clone();
            word.push(byte);
            title::category(&word).or(own)
        })
}

/// Whether `d` is a wait behind an error the reference has settled: the decoder gives its
/// byte nothing where the reference gives it U+FFFD, and holds a sequence open after it
/// ([`holds_a_sequence`]), which only its lossy side can show once the first error is
/// settled.
pub(super) fn waits_behind_an_error(decoder: &Hypothesis, d: &Difference) -> bool {
    // (Where neither side reports errors, as in a lossy-only comparison, the scalars are
    // all there is anywhere: a wait shows so at the start too.)
    let settled = matches!(
        (d.decoder.strict, d.reference.strict),
        (Strict::Settled, Strict::Settled) | (Strict::Valid, Strict::Valid)
    );
    settled
        && leaves_out_a_replacement(d)
        && holds_a_sequence(decoder, decoder.state_after(&d.witness))
}

/// Whether the decoder gives `d`'s byte nothing where the reference gives it U+FFFD (or
/// more).
pub(super) fn leaves_out_a_replacement(d: &Difference) -> bool {
    matches!(
        (d.decoder.lossy, d.reference.lossy),
        (Some(ours), Some(theirs)) if ours.appended == 0 && theirs.appended > 0
    )
}

/// Whether a byte read in `state` takes back a value the machine appended before: the
/// value it gave its input so far is provisional there (a sequence not yet complete,
/// answered as if the input ended).
pub(super) fn takes_back(machine: &Hypothesis, state: usize) -> bool {
    (0..=255u8).any(|byte| {
        machine
            .step(state, byte)
            .1
            .lossy
            .is_some_and(|l| l.taken_back > 0)
    })
}

/// Whether the machine holds a sequence open in `state`: a byte can take back what it
/// gave before, or does so after up to two more bytes given nothing (a decoder that
/// reads `F5` as a 4-byte lead holds `F5 80` open and takes back its U+FFFD only at the
/// fourth byte).
pub(super) fn holds_a_sequence(machine: &Hypothesis, state: usize) -> bool {
    let mut states = vec![state];
    for _ in 0..3 {
        if states.iter().any(|&s| takes_back(machine, s)) {
            return true;
        }
        let mut next: Vec<usize> = states
            .iter()
            .flat_map(|&s| (0..=255u8).map(move |byte| machine.step(s, byte)))
            .filter(|(_, output)| {
                output
                    .lossy
                    .is_some_and(|l| l.appended == 0 && l.taken_back == 0)
            })
            .map(|(to, _)| to)
            .collect();
        next.sort_unstable();
        next.dedup();
        states = next;
    }
    false
}

/// The category of the sequence the decoder holds open at the end of `witness`, read from
/// the byte where it opened it (after the last step at which nothing it gave could be
/// taken back); `None` when it holds nothing open there.
fn open_sequence_category(decoder: &Hypothesis, witness: &[u8]) -> Option<Category> {
    let start = (0..witness.len())
        .rev()
        .find(|&at| !holds_a_sequence(decoder, decoder.state_after(&witness[..at])))?;
    (start > 0)
        .then(|| title::category(&witness[start..]))
        .flatten()
}

/// Whether the decoder's step makes one character of this byte and the ones before it:
/// it calls the input valid (asked of a witness the grammar rejects), or it takes back
/// what it gave them and gives one value in their place.
fn joins(output: StepOutput) -> bool {
    output.strict == Strict::Valid || output.lossy.is_some_and(one_value_for_those_before)
}

/// Whether a lossy step takes back what the bytes before were given and gives one value,
/// not U+FFFD, in their place and this byte's.
pub(super) fn one_value_for_those_before(lossy: Lossy) -> bool {
    lossy.taken_back > 0 && lossy.appended == 1 && lossy.kinds[0] != Some(UnitKind::Replacement)
}

/// On how many bytes the decoder does the same thing in states `a` and `b`.
fn likeness(decoder: &Hypothesis, a: usize, b: usize) -> usize {
    (0..=255u8)
        .filter(|&byte| same_action(decoder.step(a, byte).1, decoder.step(b, byte).1))
        .count()
}

/// Whether two of the decoder's outputs do the same thing with a byte: the same verdict
/// (or one of them only says an earlier error stands), and as many scalars appended,
/// U+FFFD where the other has U+FFFD and a value where it has a value, however many
/// earlier ones each took back (those are the earlier bytes' business). Which value a
/// value is depends on the bytes before it: `C0 00` read as a 2-byte character gives
/// U+0000, the scalar of `00` by coincidence, where `C2 00` gives U+0080.
fn same_action(a: StepOutput, b: StepOutput) -> bool {
    let verdict =
        a.strict == b.strict || a.strict == Strict::Settled || b.strict == Strict::Settled;
    let replacements = |lossy: Lossy| lossy.kinds.map(|k| k.map(|k| k == UnitKind::Replacement));
    let scalars = match (a.lossy, b.lossy) {
        (Some(x), Some(y)) => x.appended == y.appended && replacements(x) == replacements(y),
        _ => true,
    };
    verdict && scalars
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
