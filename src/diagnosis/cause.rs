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
use crate::decoders::Capabilities;
use crate::diagnosis::compare::compare;
use crate::finding::{row_byte_classes, table_row, CauseUnit, DecoderAction, RootCause, UnitKind};
use crate::hex::format_hex;
use crate::outcome::{Answer, ErrorLen, Outcome};
use crate::policy::ReplacementPolicy;
use crate::reference::{Decoded, Reference};
use crate::taxonomy::{self, Category};

mod scalars;

use scalars::scalars_cause;

/// The policies other than maximal subparts, most specific first: on `C0 80` both the
/// lead-sized and the per-run policy give one U+FFFD, and on `80 80` only per-run does.
pub const POLICIES_TRIED: [ReplacementPolicy; 3] = [
    ReplacementPolicy::PerByte,
    ReplacementPolicy::PerLeadSizedSequence,
    ReplacementPolicy::PerRun,
];

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
                aspects: vec![failure.kind.aspect()],
                about: failure.kind.aspect(),
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
    let aspects: Vec<Aspect> = comparison.departed.iter().collect();
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
