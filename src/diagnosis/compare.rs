//! Comparing one decoder's outcome with the reference's, aspect by aspect.
//!
//! An *aspect* is one question both decoders can answer about an input (docs/DESIGN.md §3.4):
//! is it valid, where is the first error, how long is it, what is the lossy decode, where
//! are all the error units; or a way of not answering at all (a crash, a timeout, a broken
//! protocol). Only aspects *both* sides report are compared: a decoder that cannot produce
//! `scalars` is never said to disagree on them. The reference (the oracle) reports every
//! aspect, so the decoder's [`Capabilities`] decide.
//!
//! One input can differ in several aspects at once (a decoder that accepts a CESU-8 pair
//! also decodes other scalars). Every differing aspect is counted, but the departure is
//! *about* the first in the order of [`Aspect::COMPARED`], its *primary* aspect: the
//! others follow from it.
//!
//! Comparison works on the reference's [`Decoded`] and the decoder's reused [`Outcome`]
//! directly, without building JSON, because it runs millions of times per run.

use crate::aspect::{Aspect, AspectSet, Shape};
use crate::decoders::Capabilities;
use crate::outcome::{ErrorLen, Outcome, REPLACEMENT};
use crate::reference::Decoded;

/// The primary difference between a decoder and the reference on one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Difference {
    /// The first differing aspect.
    pub aspect: Aspect,
    /// How it differs, part of the signature.
    pub shape: Shape,
}

/// The result of comparing one decoder with the reference on one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Comparison {
    /// The aspects both sides reported.
    pub compared: AspectSet,
    /// The compared aspects on which they differ.
    pub departed: AspectSet,
    /// The first differing aspect, if any.
    pub primary: Option<Difference>,
}

impl Comparison {
    fn record(&mut self, aspect: Aspect, difference: Option<Shape>) {
        self.compared.insert(aspect);
        if let Some(shape) = difference {
            self.departed.insert(aspect);
            self.primary.get_or_insert(Difference { aspect, shape });
        }
    }

    /// The comparison of a decoder that gave no outcome: only the failure aspect is
    /// "compared" (the reference never fails), and it differs.
    pub fn failure(aspect: Aspect) -> Comparison {
        let mut comparison = Comparison::default();
        comparison.record(aspect, Some(Shape::of_failure(aspect)));
        comparison
    }
}

/// Compares `outcome` (from a decoder with `capabilities`) with the reference's `reference`
/// on every aspect both report.
#[inline]
pub fn compare(capabilities: Capabilities, outcome: &Outcome, reference: &Decoded) -> Comparison {
    let mut comparison = Comparison::default();
    let first_error = reference.first_error();

    // valid: always reported by both.
    let valid_shape = match (first_error.is_none(), outcome.valid) {
        (false, true) => Some(Shape::AcceptsIllFormed),
        (true, false) => Some(Shape::RejectsWellFormed),
        _ => None,
    };
    comparison.record(Aspect::Valid, valid_shape);

    // valid_up_to and error_len: only when both sides found an error.
    if let (Some((offset, len)), false) = (first_error, outcome.valid) {
        if capabilities.valid_up_to {
            let shape = match outcome.valid_up_to {
                None => Some(Shape::Absent),
                Some(theirs) if theirs < offset => Some(Shape::Earlier),
                Some(theirs) if theirs > offset => Some(Shape::Later),
                Some(_) => None,
            };
            comparison.record(Aspect::ValidUpTo, shape);
        }
        if capabilities.error_len {
            comparison.record(Aspect::ErrorLen, error_len_shape(len, outcome.error_len));
        }
    }

    if capabilities.scalars {
        let shape = match &outcome.scalars {
            None => Some(Shape::Absent),
            Some(theirs) if same_scalars(theirs, &reference.scalars) => None,
            Some(theirs) => Some(scalars_shape(theirs, &reference.scalars)),
        };
        comparison.record(Aspect::Scalars, shape);
    }

    if capabilities.errors {
        let shape = match &outcome.errors {
            None => Some(Shape::Absent),
            Some(theirs) => {
                let same = theirs.len() == reference.errors.len()
                    && theirs
                        .iter()
                        .zip(&reference.errors)
                        .all(|(a, b)| a.offset == b.offset && a.len == b.len);
                match theirs.len().cmp(&reference.errors.len()) {
                    _ if same => None,
                    std::cmp::Ordering::Greater => Some(Shape::MoreUnits),
                    std::cmp::Ordering::Less => Some(Shape::FewerUnits),
                    std::cmp::Ordering::Equal => Some(Shape::OtherUnits),
                }
            }
        };
        comparison.record(Aspect::Errors, shape);
    }
    comparison
}

/// `theirs == reference`, without a `memcmp` call for the short decodes that make up
/// most comparisons (every one of an exhaustive run).
#[inline]
fn same_scalars(theirs: &[u32], reference: &[u32]) -> bool {
    const SHORT: usize = 8;
    if theirs.len() != reference.len() {
        return false;
    }
    if theirs.len() <= SHORT {
        return theirs.iter().zip(reference).all(|(a, b)| a == b);
    }
    theirs == reference
}

/// True when `outcome` (from a decoder with `capabilities`) agrees with the reference's
/// `reference` on every aspect both report: exactly `compare(..).primary.is_none()`, asked
/// the cheap way, for screening many decoders per input. The strict verdict and the first
/// error come first, then lengths before contents, and it stops at the first difference
/// without recording anything; only a decoder that departs needs [`compare`] (the tests
/// check the two answer alike).
#[inline]
pub fn agrees(capabilities: Capabilities, outcome: &Outcome, reference: &Decoded) -> bool {
    let first_error = reference.first_error();
    if first_error.is_none() != outcome.valid {
        return false;
    }
    if let Some((offset, len)) = first_error {
        if capabilities.valid_up_to && outcome.valid_up_to != Some(offset) {
            return false;
        }
        if capabilities.error_len && outcome.error_len != Some(len) {
            return false;
        }
    }
    if capabilities.scalars
        && !outcome
            .scalars
            .as_deref()
            .is_some_and(|theirs| same_scalars(theirs, &reference.scalars))
    {
        return false;
    }
    if capabilities.errors {
        let Some(theirs) = &outcome.errors else {
            return false;
        };
        if theirs.len() != reference.errors.len()
            || !theirs
                .iter()
                .zip(&reference.errors)
                .all(|(a, b)| a.offset == b.offset && a.len == b.len)
        {
            return false;
        }
    }
    true
}

/// The aspects [`compare`] compares when `outcome` agrees with the reference (when
/// [`agrees`] is true), told without the outcome: the verdict, the first error's
/// aspects when the input is ill-formed (both sides found it), and the decodes. So an
/// agreeing input can be counted without building its [`Comparison`].
pub fn compared_if_agreeing(capabilities: Capabilities, reference_valid: bool) -> AspectSet {
    let mut compared = AspectSet::default();
    compared.insert(Aspect::Valid);
    let reported = [
        (
            Aspect::ValidUpTo,
            capabilities.valid_up_to && !reference_valid,
        ),
        (Aspect::ErrorLen, capabilities.error_len && !reference_valid),
        (Aspect::Scalars, capabilities.scalars),
        (Aspect::Errors, capabilities.errors),
    ];
    for (aspect, compared_here) in reported {
        if compared_here {
            compared.insert(aspect);
        }
    }
    compared
}

fn error_len_shape(reference: ErrorLen, theirs: Option<ErrorLen>) -> Option<Shape> {
    match (reference, theirs) {
        (_, None) => Some(Shape::Absent),
        (a, Some(b)) if a == b => None,
        (ErrorLen::Incomplete, Some(ErrorLen::Invalid(_))) => {
            Some(Shape::IncompleteReportedInvalid)
        }
        (ErrorLen::Invalid(_), Some(ErrorLen::Incomplete)) => {
            Some(Shape::InvalidReportedIncomplete)
        }
        (ErrorLen::Invalid(a), Some(ErrorLen::Invalid(b))) if b < a => Some(Shape::Shorter),
        _ => Some(Shape::Longer),
    }
}

/// How two different lossy decodes differ: by the number of U+FFFD (a different
/// substitution policy), by a dropped leading U+FEFF, or otherwise.
fn scalars_shape(theirs: &[u32], reference: &[u32]) -> Shape {
    let count = |scalars: &[u32]| scalars.iter().filter(|&&s| s == REPLACEMENT).count();
    if reference.first() == Some(&0xFEFF) && theirs == &reference[1..] {
        return Shape::BomStripped;
    }
    match count(theirs).cmp(&count(reference)) {
        std::cmp::Ordering::Greater => Shape::MoreReplacements,
        std::cmp::Ordering::Less => Shape::FewerReplacements,
        std::cmp::Ordering::Equal => Shape::OtherScalars,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoders::{rust_std::StdFromUtf8, Decoder};
    use crate::reference::Reference;

    fn reference(bytes: &[u8]) -> Decoded {
        Reference::rfc3629().decode(bytes)
    }

    #[test]
    fn agreeing_outcomes_compare_every_reported_aspect_and_differ_in_none() {
        let input = [0x61, 0xE4, 0xBD];
        let outcome = StdFromUtf8.decode(&input).unwrap();
        let comparison = compare(StdFromUtf8.capabilities(), &outcome, &reference(&input));
        assert_eq!(comparison.primary, None);
        let compared: Vec<Aspect> = comparison.compared.iter().collect();
        assert_eq!(
            compared,
            vec![Aspect::Valid, Aspect::ValidUpTo, Aspect::ErrorLen]
        );
    }

    #[test]
    fn the_first_differing_aspect_is_primary() {
        let input = [0xED, 0xA0, 0x80];
        let mut outcome = Outcome::verdict("x", true);
        outcome.scalars = Some(vec![0xD800]);
        let comparison = compare(Capabilities::ALL, &outcome, &reference(&input));
        assert_eq!(
            comparison.primary,
            Some(Difference {
                aspect: Aspect::Valid,
                shape: Shape::AcceptsIllFormed
            })
        );
        assert!(comparison.departed.contains(Aspect::Scalars));
        assert!(!comparison.compared.contains(Aspect::ValidUpTo));
    }

    #[test]
    fn agrees_answers_as_compare_does() {
        use crate::outcome::ErrorUnit;
        let inputs: [&[u8]; 6] = [
            b"",
            b"abc",
            &[0x61, 0xE4, 0xBD],
            &[0xED, 0xA0, 0x80, 0x41],
            &[0xEF, 0xBB, 0xBF, 0x41],
            &[0xC0, 0x80, 0xF4, 0x90, 0x80, 0x80],
        ];
        let capability_sets = [
            Capabilities::ALL,
            StdFromUtf8.capabilities(),
            Capabilities {
                scalars: true,
                ..StdFromUtf8.capabilities()
            },
            Capabilities {
                errors: false,
                ..Capabilities::ALL
            },
            Capabilities {
                valid_up_to: false,
                error_len: false,
                scalars: false,
                errors: false,
            },
        ];
        for input in inputs {
            let decoded = reference(input);
            let right = Reference::rfc3629().outcome("x", input);
            // The right outcome, and one wrong in each field in turn.
            let mut outcomes = vec![right.clone()];
            let mut wrong = right.clone();
            wrong.valid = !wrong.valid;
            outcomes.push(wrong);
            for valid_up_to in [None, Some(0), Some(1), Some(9)] {
                let mut wrong = right.clone();
                wrong.valid_up_to = valid_up_to;
                outcomes.push(wrong);
            }
            for error_len in [None, Some(ErrorLen::Incomplete), Some(ErrorLen::Invalid(1))] {
                let mut wrong = right.clone();
                wrong.error_len = error_len;
                outcomes.push(wrong);
            }
            let mut wrong = right.clone();
            wrong.scalars = None;
            outcomes.push(wrong);
            let mut wrong = right.clone();
            wrong.scalars.as_mut().unwrap().push(REPLACEMENT);
            outcomes.push(wrong);
            let mut wrong = right.clone();
            wrong.errors = None;
            outcomes.push(wrong);
            let mut wrong = right.clone();
            wrong.errors.as_mut().unwrap().push(ErrorUnit {
                offset: 0,
                len: 1,
                category: None,
            });
            outcomes.push(wrong);
            if let Some(first) = right.errors.as_ref().and_then(|errors| errors.first()) {
                let mut wrong = right.clone();
                wrong.errors.as_mut().unwrap()[0].len = first.len + 1;
                outcomes.push(wrong);
            }
            for capabilities in capability_sets {
                for outcome in &outcomes {
                    let comparison = compare(capabilities, outcome, &decoded);
                    let agreeing = agrees(capabilities, outcome, &decoded);
                    assert_eq!(
                        agreeing,
                        comparison.primary.is_none(),
                        "{input:02X?} {outcome:?} {capabilities:?}"
                    );
                    if agreeing {
                        assert_eq!(
                            comparison.compared,
                            compared_if_agreeing(capabilities, decoded.is_valid()),
                            "{input:02X?} {capabilities:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn shapes_name_directions() {
        let input = [0xEF, 0xBB, 0xBF, 0x41];
        let mut outcome = Outcome::verdict("x", true);
        outcome.scalars = Some(vec![0x41]);
        let comparison = compare(Capabilities::ALL, &outcome, &reference(&input));
        assert_eq!(comparison.primary.unwrap().shape, Shape::BomStripped);

        let input = [0xE0, 0x80, 0x41];
        let outcome = Outcome::from_strict("x", Some((0, ErrorLen::Invalid(2))));
        let caps = StdFromUtf8.capabilities();
        let comparison = compare(caps, &outcome, &reference(&input));
        assert_eq!(
            comparison.primary,
            Some(Difference {
                aspect: Aspect::ErrorLen,
                shape: Shape::Longer
            })
        );
    }
}
