//! The cause found in the lossy decode (`scalars`): the first place where the decoder's
//! scalars part from the reference's, and what the decoder does there.

use super::{Unit, POLICIES_TRIED};
use crate::finding::DecoderAction;
use crate::outcome::{Outcome, REPLACEMENT};
use crate::policy::{expected_scalars, segments};
use crate::reference::Decoded;

/// The cause found in the lossy decode, when the decoder reports one that differs.
pub(super) fn scalars_cause(
    input: &[u8],
    reference: &Decoded,
    units: &[Unit],
    outcome: &Outcome,
) -> Option<(usize, DecoderAction)> {
    let theirs = outcome.scalars.as_deref()?;
    let ours = &reference.scalars;
    if theirs == ours.as_slice() {
        return None;
    }
    if let Some(cause) = whole_input_cause(input, reference, units, theirs) {
        return Some(cause);
    }
    // Walk the reference's units and the decoder's scalars side by side (`i`, `j`) to the
    // first place they part.
    let mut j = 0;
    let mut i = 0;
    while i < units.len() {
        if let Some(scalar) = units[i].scalar {
            if theirs.get(j) == Some(&scalar) {
                i += 1;
                j += 1;
                continue;
            }
            return Some((
                i,
                character_cause(input, units, (i, j), scalar, theirs, ours),
            ));
        }
        // A run of adjacent error units, one U+FFFD each in the reference.
        let run_end = (i..units.len())
            .find(|&k| units[k].scalar.is_some())
            .unwrap_or(units.len());
        let emitted = theirs[j..]
            .iter()
            .take_while(|&&s| s == REPLACEMENT)
            .count();
        if let Some(cause) = run_cause(input, units, (i, j), run_end, emitted, theirs, ours) {
            return Some(cause);
        }
        i = run_end;
        j += emitted;
    }
    // Every unit agreed and the decoder produced more.
    Some((
        units.len(),
        DecoderAction::Misdecodes {
            scalars: theirs[j..].iter().copied().take(4).collect(),
        },
    ))
}

/// A cause that concerns the whole input: a Latin-1 fallback, a dropped leading BOM, or a
/// replacement policy other than maximal subparts.
fn whole_input_cause(
    input: &[u8],
    reference: &Decoded,
    units: &[Unit],
    theirs: &[u32],
) -> Option<(usize, DecoderAction)> {
    let ours = &reference.scalars;
    if is_latin1_from(input, 0, theirs) && !reference.is_valid() {
        return Some((0, DecoderAction::Latin1Fallback));
    }
    // A dropped leading BOM: the rest as the reference has it.
    let first = theirs.first().copied();
    if input.starts_with(&[0xEF, 0xBB, 0xBF])
        && (theirs == &ours[1..] || (first != Some(0xFEFF) && first != Some(REPLACEMENT)))
    {
        return Some((0, DecoderAction::StripsBom));
    }
    // A replacement policy other than maximal subparts, over the whole input.
    if !reference.is_valid() {
        let segments = segments(input, reference);
        for policy in &POLICIES_TRIED {
            if expected_scalars(input, &segments, *policy) == theirs {
                let at = units.iter().position(|u| u.scalar.is_none()).unwrap_or(0);
                let emitted = theirs.iter().filter(|&&s| s == REPLACEMENT).count();
                return Some((
                    at,
                    DecoderAction::Replacements {
                        emitted,
                        expected: reference.errors.len(),
                        policy: Some(*policy),
                    },
                ));
            }
        }
    }
    None
}

/// What the decoder does at the reference's well-formed character `units[i]`, where its
/// scalar `theirs[j]` is not that character (`at` is `(i, j)`).
fn character_cause(
    input: &[u8],
    units: &[Unit],
    (i, j): (usize, usize),
    scalar: u32,
    theirs: &[u32],
    ours: &[u32],
) -> DecoderAction {
    let unit = units[i];
    let after_error = i > 0 && units[i - 1].scalar.is_none();
    let resyncs_after = theirs.get(j) == ours.get(i + 1);
    // Output that ends at a character right after an error: the error consumed it
    // (whether the decoder also stops at this character alone is checked by
    // decoding it without the error, in `super::witness`).
    if after_error && (resyncs_after || j == theirs.len()) {
        DecoderAction::SwallowsCharacter { scalar }
    } else if j == theirs.len() {
        DecoderAction::Stops
    } else if is_latin1_from(input, unit.offset, &theirs[j..]) {
        DecoderAction::Latin1Fallback
    } else if theirs[j] == REPLACEMENT {
        DecoderAction::RejectsCharacter
    } else {
        DecoderAction::Misdecodes {
            scalars: resync(&theirs[j..], &ours[i + 1..]),
        }
    }
}

/// What the decoder does at the run of error units `units[i..run_end]`, where it emitted
/// `emitted` U+FFFD from `theirs[j]` on (`at` is `(i, j)`); `None` when it emitted one per
/// unit, as the reference does.
fn run_cause(
    input: &[u8],
    units: &[Unit],
    (i, j): (usize, usize),
    run_end: usize,
    emitted: usize,
    theirs: &[u32],
    ours: &[u32],
) -> Option<(usize, DecoderAction)> {
    let unit = units[i];
    let expected = run_end - i;
    if emitted == 0 {
        let action = if j == theirs.len() {
            DecoderAction::Stops
        } else if is_latin1_from(input, unit.offset, &theirs[j..]) {
            DecoderAction::Latin1Fallback
        } else {
            DecoderAction::AcceptsAs {
                scalars: resync(&theirs[j..], &ours[run_end..]),
            }
        };
        return Some((i, action));
    }
    if emitted != expected {
        // One U+FFFD too many where a character should follow, and the rest as the
        // reference has it after that character: the character was consumed.
        if let Some(next) = units.get(run_end).and_then(|u| u.scalar) {
            let missing = theirs.get(j + emitted) != Some(&next);
            // (A prefix is enough: the decoder may part again later, for another cause.)
            let rest_agrees = match (theirs.get(j + expected + 1..), ours.get(run_end + 1..)) {
                (Some(rest), Some(reference_rest)) => reference_rest.starts_with(rest),
                _ => false,
            };
            if emitted > expected
                && theirs.get(j + expected) == Some(&REPLACEMENT)
                && (missing || rest_agrees)
            {
                return Some((run_end, DecoderAction::SwallowsCharacter { scalar: next }));
            }
        }
        // Fewer U+FFFD, the character after the run missing and the rest agreeing:
        // the error consumed the character.
        if let Some(next) = units.get(run_end).and_then(|u| u.scalar) {
            if emitted < expected
                && theirs.get(j + emitted) != Some(&next)
                && theirs.get(j + emitted..) == ours.get(run_end + 1..)
            {
                return Some((run_end, DecoderAction::SwallowsCharacter { scalar: next }));
            }
        }
        // Fewer U+FFFD, then a scalar that is not the character after the run: the
        // decoder accepted a unit inside the run.
        let after = theirs.get(j + emitted);
        if emitted < expected && after.is_some() && after != ours.get(run_end) {
            let at = i + emitted;
            let rest_from = j + emitted;
            return Some((
                at,
                DecoderAction::AcceptsAs {
                    scalars: resync(&theirs[rest_from..], &ours[run_end..]),
                },
            ));
        }
        return Some((
            i,
            DecoderAction::Replacements {
                emitted,
                expected,
                policy: None,
            },
        ));
    }
    None
}

/// True when `theirs` is the input from `offset` on, one scalar per byte (Latin-1), and
/// that covers a non-ASCII byte.
fn is_latin1_from(input: &[u8], offset: usize, theirs: &[u32]) -> bool {
    let rest = &input[offset..];
    rest.len() == theirs.len()
        && rest.iter().any(|&b| b >= 0x80)
        && rest.iter().zip(theirs).all(|(&b, &s)| u32::from(b) == s)
}

/// The decoder's scalars up to where it agrees with the reference again (at most 4).
fn resync(theirs: &[u32], ours_after: &[u32]) -> Vec<u32> {
    let k = (1..=theirs.len().min(4))
        .find(|&k| theirs.get(k) == ours_after.first())
        .unwrap_or(theirs.len().min(4));
    theirs[..k].to_vec()
}
