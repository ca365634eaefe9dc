//! The root cause of one departure: the first unit of the reference's parse where the
//! decoder parts from it, and what the decoder does there.
//!
//! The reference splits every input into units: well-formed characters (a row of Unicode
//! Table 3-7) and error units (maximal subparts, D93b), one scalar each in its lossy decode.
//! The decoder's answer is walked against these units:
//!
//! - the lossy decode, unit by unit: a character decoded to the same scalar, or a run of
//!   error units given as many U+FFFD, agrees; the first unit that does not is the cause.
//!   At a character the decoder may stop (its output ends), reject it (U+FFFD), decode it
//!   to other scalars, or fall back to Latin-1; at a run of error units it may accept the
//!   bytes as a scalar, give another number of U+FFFD (a replacement policy, recognised
//!   over the whole input), or swallow the well-formed character after the run;
//! - when the lossy decode agrees (or is not reported), the strict fields: a `valid` that
//!   differs, a `valid_up_to` that is off (while the decoded text agrees, a miscounted
//!   offset), an `error_len` that is longer or shorter than the maximal subpart;
//! - the error-unit list last.
//!
//! A decoder that gave no answer (crash, timeout, protocol) is about the first error unit,
//! or the first character of well-formed input.

use crate::aspect::Aspect;
use crate::conformance::policy::{expected_scalars, segments, ReplacementPolicy};
use crate::decoders::{Capabilities, DecoderFailure};
use crate::engine::compare::compare;
use crate::finding::{row_byte_classes, table_row, CauseUnit, DecoderAction, RootCause, UnitKind};
use crate::hex::format_hex;
use crate::outcome::{ErrorLen, Outcome, REPLACEMENT};
use crate::reference::{Decoded, Reference};
use crate::taxonomy::{self, Category};

/// The policies other than maximal subparts, most specific first: on `C0 80` both the
/// lead-sized and the per-run policy give one U+FFFD, and on `80 80` only per-run does.
pub const POLICIES_TRIED: [ReplacementPolicy; 3] = [
    ReplacementPolicy::PerByte,
    ReplacementPolicy::PerLeadSizedSequence,
    ReplacementPolicy::PerRun,
];

/// A decoder's answer to one input: its outcome, or why it gave none.
pub type Answer = Result<Outcome, DecoderFailure>;

/// One departure, diagnosed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    /// The aspects in which the decoder departs, in [`Aspect::ALL`] order (never empty).
    pub aspects: Vec<Aspect>,
    /// The aspect the cause was read from (the lossy decode when it differs, else the
    /// first differing strict field, else the error units).
    pub about: Aspect,
    /// The root cause (without a position condition: that takes more inputs).
    pub cause: RootCause,
}

impl Diagnosis {
    /// The aspect the cause was read from.
    pub fn primary(&self) -> Aspect {
        self.about
    }
}

/// One unit of the reference's parse.
#[derive(Debug, Clone, Copy)]
struct Unit {
    offset: usize,
    len: usize,
    /// The scalar for a character, `None` for an error unit.
    scalar: Option<u32>,
}

fn units(decoded: &Decoded) -> Vec<Unit> {
    let mut units = Vec::with_capacity(decoded.scalars.len());
    let mut errors = decoded.errors.iter().peekable();
    let mut offset = 0;
    for &scalar in &decoded.scalars {
        match errors.peek() {
            Some(error) if error.offset == offset => {
                units.push(Unit {
                    offset,
                    len: error.len,
                    scalar: None,
                });
                offset += error.len;
                errors.next();
            }
            _ => {
                let len = char::from_u32(scalar).map_or(1, char::len_utf8);
                units.push(Unit {
                    offset,
                    len,
                    scalar: Some(scalar),
                });
                offset += len;
            }
        }
    }
    units
}

/// Diagnoses `answer` to `input` (the reference's decode is `reference`), comparing only
/// the aspects the decoder reports (`capabilities`). `None` when it agrees.
pub fn diagnose(
    input: &[u8],
    reference: &Decoded,
    answer: &Answer,
    capabilities: Capabilities,
) -> Option<Diagnosis> {
    let units = units(reference);
    let outcome = match answer {
        Err(failure) => {
            let at = units.iter().position(|u| u.scalar.is_none()).unwrap_or(0);
            return Some(Diagnosis {
                aspects: vec![Aspect::of_failure(failure.kind)],
                about: Aspect::of_failure(failure.kind),
                cause: cause_at(input, &units, at, DecoderAction::Fails),
            });
        }
        Ok(outcome) => outcome,
    };
    // A field the decoder left out of this answer is not held against it (an adapter may
    // give scalars only for valid input).
    let capabilities = Capabilities {
        valid_up_to: capabilities.valid_up_to && outcome.valid_up_to.is_some(),
        error_len: capabilities.error_len && outcome.error_len.is_some(),
        scalars: capabilities.scalars && outcome.scalars.is_some(),
        errors: capabilities.errors && outcome.errors.is_some(),
    };
    let comparison = compare(capabilities, outcome, reference);
    let aspects: Vec<Aspect> = comparison.diverged.iter().collect();
    if aspects.is_empty() {
        return None;
    }
    let ((at, action), about) = scalars_cause(input, reference, &units, outcome)
        .map(|cause| (cause, Aspect::Scalars))
        .or_else(|| {
            let about = [Aspect::Valid, Aspect::ValidUpTo, Aspect::ErrorLen]
                .into_iter()
                .find(|a| aspects.contains(a))?;
            strict_cause(reference, &units, outcome).map(|cause| (cause, about))
        })
        .unwrap_or_else(|| (errors_cause(&units, outcome), Aspect::Errors));
    Some(Diagnosis {
        aspects,
        about,
        cause: cause_at(input, &units, at, action),
    })
}

/// Diagnoses with a fresh reference decode.
pub fn diagnose_input(
    input: &[u8],
    answer: &Answer,
    capabilities: Capabilities,
) -> Option<Diagnosis> {
    diagnose(
        input,
        &Reference::rfc3629().decode(input),
        answer,
        capabilities,
    )
}

/// The root cause at unit index `at` (`units.len()` for the end of input).
fn cause_at(input: &[u8], units: &[Unit], at: usize, action: DecoderAction) -> RootCause {
    let Some(unit) = units.get(at) else {
        return RootCause {
            unit: CauseUnit {
                offset: input.len(),
                len: 0,
                bytes_hex: String::new(),
                byte_classes: String::new(),
                unit: UnitKind::End,
            },
            reference_does: "the input ends: the reference produces nothing more".to_string(),
            decoder_does: action,
            position: None,
        };
    };
    let bytes = &input[unit.offset..unit.offset + unit.len];
    let (kind, classes, reference_does) = match unit.scalar {
        Some(scalar) => {
            let row = table_row(scalar);
            (
                UnitKind::WellFormed { row, scalar },
                row_byte_classes(row).to_string(),
                format!(
                    "a well-formed character U+{scalar:04X}: UTF8-{} of RFC 3629 §4, row {row} of Unicode Table 3-7 ({})",
                    unit.len,
                    row_byte_classes(row)
                ),
            )
        }
        None => {
            let category =
                taxonomy::category_at(input, unit.offset).unwrap_or(Category::InvalidLead);
            let reference = Reference::rfc3629();
            let decoded = reference.decode(input);
            let explanation = decoded
                .errors
                .iter()
                .find(|e| e.offset == unit.offset)
                .map(|e| reference.explain(input, e))
                .unwrap_or_default();
            (
                UnitKind::Error { category },
                error_classes(bytes),
                format!(
                    "an error unit ({category}, one maximal subpart, one U+FFFD): {explanation}"
                ),
            )
        }
    };
    RootCause {
        unit: CauseUnit {
            offset: unit.offset,
            len: unit.len,
            bytes_hex: format_hex(bytes),
            byte_classes: classes,
            unit: kind,
        },
        reference_does,
        decoder_does: action,
        position: None,
    }
}

/// The bytes of an error unit as byte classes: the lead byte itself, each continuation
/// byte as the class it falls in (`80..8F`, `90..9F`, `A0..BF`).
fn error_classes(bytes: &[u8]) -> String {
    bytes
        .iter()
        .enumerate()
        .map(|(i, &b)| match (i, b) {
            (0, b) => format!("{b:02X}"),
            (_, 0x80..=0x8F) => "80..8F".to_string(),
            (_, 0x90..=0x9F) => "90..9F".to_string(),
            (_, 0xA0..=0xBF) => "A0..BF".to_string(),
            (_, b) => format!("{b:02X}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The cause found in the lossy decode, when the decoder reports one that differs.
fn scalars_cause(
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
    // A dropped leading BOM: the rest as the reference has it.
    if is_latin1_from(input, 0, theirs) && !reference.is_valid() {
        return Some((0, DecoderAction::Latin1Fallback));
    }
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
                        policy: Some(policy.as_str().to_string()),
                    },
                ));
            }
        }
    }
    let mut j = 0;
    let mut i = 0;
    while i < units.len() {
        let unit = units[i];
        if let Some(scalar) = unit.scalar {
            if theirs.get(j) == Some(&scalar) {
                i += 1;
                j += 1;
                continue;
            }
            let after_error = i > 0 && units[i - 1].scalar.is_none();
            let resyncs_after = theirs.get(j) == ours.get(i + 1);
            // Output that ends at a character right after an error: the error consumed it
            // (whether the decoder also stops at this character alone is checked by
            // decoding it without the error, in `super::witness`).
            let action = if after_error && (resyncs_after || j == theirs.len()) {
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
            };
            return Some((i, action));
        }
        // A run of adjacent error units, one U+FFFD each in the reference.
        let run_end = (i..units.len())
            .find(|&k| units[k].scalar.is_some())
            .unwrap_or(units.len());
        let expected = run_end - i;
        let emitted = theirs[j..]
            .iter()
            .take_while(|&&s| s == REPLACEMENT)
            .count();
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

/// The cause found in the strict fields (`valid`, `valid_up_to`, `error_len`).
fn strict_cause(
    reference: &Decoded,
    units: &[Unit],
    outcome: &Outcome,
) -> Option<(usize, DecoderAction)> {
    let unit_at = |offset: usize| units.iter().position(|u| u.offset + u.len > offset);
    let first_error = reference.first_error();
    let scalars_agree = outcome.scalars.as_ref() == Some(&reference.scalars);
    match (first_error, outcome.valid) {
        (None, true) => None,
        (None, false) => {
            // Rejected well-formed input: at the offset it names, else its noncharacter or
            // first character.
            let at = match outcome.valid_up_to {
                Some(offset) => unit_at(offset).unwrap_or(units.len()),
                None => units
                    .iter()
                    .position(|u| u.scalar.is_some_and(taxonomy::is_noncharacter))
                    .unwrap_or(0),
            };
            Some((at, DecoderAction::RejectsCharacter))
        }
        (Some(_), true) => {
            let at = units.iter().position(|u| u.scalar.is_none()).unwrap_or(0);
            Some((
                at,
                DecoderAction::AcceptsAs {
                    scalars: Vec::new(),
                },
            ))
        }
        (Some((offset, len)), false) => {
            let first = units.iter().position(|u| u.offset == offset).unwrap_or(0);
            if let Some(theirs) = outcome.valid_up_to.filter(|&v| v != offset) {
                let by = theirs as i64 - offset as i64;
                if scalars_agree {
                    return Some((first, DecoderAction::ValidUpToOff { by }));
                }
                return Some(if theirs > offset {
                    (
                        first,
                        DecoderAction::AcceptsAs {
                            scalars: Vec::new(),
                        },
                    )
                } else {
                    (
                        unit_at(theirs).unwrap_or(first),
                        DecoderAction::RejectsCharacter,
                    )
                });
            }
            let action = match (len, outcome.error_len?) {
                (a, b) if a == b => return None,
                (ErrorLen::Invalid(a), ErrorLen::Invalid(b)) if b > a => {
                    DecoderAction::MergesWithNext
                }
                (ErrorLen::Invalid(_), ErrorLen::Invalid(_)) => DecoderAction::SplitsUnit,
                (_, theirs) => DecoderAction::MisjudgesEnd {
                    reported_incomplete: theirs == ErrorLen::Incomplete,
                },
            };
            Some((first, action))
        }
    }
}

/// The cause found in the error-unit list: the first unit where the lists part.
fn errors_cause(units: &[Unit], outcome: &Outcome) -> (usize, DecoderAction) {
    let theirs = outcome.errors.as_deref().unwrap_or_default();
    let ours: Vec<&Unit> = units.iter().filter(|u| u.scalar.is_none()).collect();
    let parted = theirs
        .iter()
        .zip(&ours)
        .position(|(a, b)| (a.offset, a.len) != (b.offset, b.len))
        .unwrap_or(theirs.len().min(ours.len()));
    let offset = ours
        .get(parted)
        .map(|u| u.offset)
        .or_else(|| theirs.get(parted).map(|u| u.offset));
    let at = offset
        .and_then(|offset| units.iter().position(|u| u.offset + u.len > offset))
        .unwrap_or(units.len());
    (at, DecoderAction::OtherErrorUnits)
}

#[cfg(test)]
mod tests;
