//! Grading one decoder's answer to one input against the reference.
//!
//! Every answer is compared on the aspects the decoder reported (a field it left out is
//! not held against it), by the one comparison of the grading core
//! ([`crate::diagnosis::compare`]), and sorted into one of three kinds of evidence:
//!
//! - a **departure**: the strict verdict differs (`valid`: accepts ill-formed or rejects
//!   well-formed input; `valid_up_to`; `error_len`), or the lossy decode differs in more
//!   than the number of U+FFFD (a surrogate decoded to D800, an overlong decoded to its
//!   value, a character swallowed after an error), or the decoder failed (`crash`,
//!   `timeout`, `protocol`). Each departure is classified by the taxonomy categories of
//!   the bytes it is about.
//! - a **policy observation**: the lossy decode differs from the reference only in how
//!   many U+FFFD stand for the ill-formed bytes ([`collapse_replacements`] makes them
//!   equal); which [`ReplacementPolicy`] predicts the answer exactly is recorded.
//! - a **BOM observation**: for input starting with `EF BB BF`, whether the decoder kept
//!   or dropped the U+FEFF (dropping it is the WHATWG `decode` wrapper, not decoding).

use crate::aspect::Shape;
use crate::decoders::Capabilities;
use crate::diagnosis::compare::compare;
use crate::outcome::{Answer, ErrorLen, Outcome};
use crate::reference::{Decoded, Reference};
use crate::taxonomy::{self, Category};

use crate::policy::{collapse_replacements, expected_scalars, segments, ReplacementPolicy};

use crate::aspect::Aspect;

/// A departure: which aspect, about which categories.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Departure {
    /// The aspect that differs.
    pub aspect: Aspect,
    /// The categories of the bytes it is about (sorted, never empty).
    pub categories: Vec<Category>,
}

/// A lossy decode that differs from the reference at most in its U+FFFD count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyObservation {
    /// Whether each policy of [`ReplacementPolicy::ALL`] predicts the answer exactly.
    pub explained_by: [bool; 4],
    /// True when the answer is not the reference's (maximal subpart) answer.
    pub differs_from_reference: bool,
}

/// What the decoder did with a leading byte order mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BomObservation {
    /// U+FEFF kept as the first scalar.
    Kept,
    /// U+FEFF dropped, the rest decoded as the reference does (up to the U+FFFD policy).
    Stripped,
}

/// How a two-byte input shows on the report's 256x256 map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MapState {
    /// Agrees with the reference on every aspect it reports.
    Agree,
    /// Only the U+FFFD count differs, as the decoder's policy predicts.
    Policy,
    /// The lossy decode differs beyond the U+FFFD count.
    ScalarsDiffer,
    /// The strict verdict (`valid`, `valid_up_to`, `error_len`) differs.
    StrictDiffers,
    /// Crash, timeout or protocol failure.
    Failure,
}

impl MapState {
    /// The one-letter code in the map rows of `conformance.json`.
    pub fn code(self) -> char {
        match self {
            MapState::Agree => '=',
            MapState::Policy => 'p',
            MapState::ScalarsDiffer => 's',
            MapState::StrictDiffers => 'v',
            MapState::Failure => 'x',
        }
    }

    /// Every state, with its code and meaning, for the map legend.
    pub const LEGEND: [(MapState, &'static str); 5] = [
        (MapState::Agree, "agrees with the reference"),
        (
            MapState::Policy,
            "only the U+FFFD count differs (replacement policy)",
        ),
        (
            MapState::ScalarsDiffer,
            "lossy decode differs beyond the U+FFFD count",
        ),
        (
            MapState::StrictDiffers,
            "strict verdict differs (valid, valid_up_to or error_len)",
        ),
        (MapState::Failure, "crash, timeout or protocol failure"),
    ];
}

/// Everything learned from one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// Departures, at most one per aspect.
    pub departures: Vec<Departure>,
    /// Present for ill-formed input answered with scalars that differ from the reference's
    /// at most in U+FFFD count.
    pub policy: Option<PolicyObservation>,
    /// Present for input starting with a BOM, answered with scalars.
    pub bom: Option<BomObservation>,
    /// The input's state on the map.
    pub map_state: MapState,
}

/// The reference's view of an input, computed once and shared by all comparisons.
pub struct ReferenceView {
    /// The reference's decode.
    pub decoded: Decoded,
    /// The reference's outcome (docs/DESIGN.md §3.2 shape).
    pub first_error: Option<(usize, ErrorLen)>,
}

impl ReferenceView {
    /// Decodes `input` with the RFC 3629 reference.
    pub fn of(input: &[u8]) -> ReferenceView {
        let decoded = Reference::rfc3629().decode(input);
        let first_error = decoded.first_error();
        ReferenceView {
            decoded,
            first_error,
        }
    }

    /// The sorted categories of every error unit.
    pub fn error_categories(&self, input: &[u8]) -> Vec<Category> {
        taxonomy::categories_of_units(input, self.decoded.errors.iter().map(|e| (e.offset, e.len)))
    }
}

use crate::taxonomy::is_noncharacter;

const BOM: u32 = 0xFEFF;

/// Grades one answer against the reference.
pub fn evaluate(input: &[u8], reference: &ReferenceView, answer: &Answer) -> Evaluation {
    let reference_valid = reference.first_error.is_none();
    let mut evaluation = Evaluation {
        departures: Vec::new(),
        policy: None,
        bom: None,
        map_state: MapState::Agree,
    };
    let outcome = match answer {
        Ok(outcome) => outcome,
        Err(failure) => {
            let categories = if reference_valid {
                vec![rejected_category(input, reference, None)]
            } else {
                reference.error_categories(input)
            };
            evaluation.departures.push(Departure {
                aspect: failure.kind.aspect(),
                categories,
            });
            evaluation.map_state = MapState::Failure;
            return evaluation;
        }
    };

    // The strict verdict, then the first error's position and length.
    strict_departures(input, reference, outcome, &mut evaluation);
    if !evaluation.departures.is_empty() {
        evaluation.map_state = MapState::StrictDiffers;
    }

    // The lossy decode.
    if let Some(scalars) = &outcome.scalars {
        evaluate_scalars(input, reference, scalars, &mut evaluation);
    }
    evaluation
}

// The categories a departure on an input is about: those of the first error for strict
// aspects, of every error for the lossy decode; for well-formed input, the well-formed
// categories the decoder got wrong.

/// The category of the reference's first error (the input is ill-formed).
fn first_error_category(input: &[u8], reference: &ReferenceView) -> Vec<Category> {
    let (offset, _) = reference.first_error.expect("ill-formed input");
    vec![taxonomy::category_at(input, offset).unwrap_or(Category::InvalidLead)]
}

/// The category of well-formed input the decoder rejected: a noncharacter where it
/// stopped (or anywhere, when it reported no position), else a well-formed character.
fn rejected_category(
    input: &[u8],
    reference: &ReferenceView,
    answer_outcome: Option<&Outcome>,
) -> Category {
    let scalars = &reference.decoded.scalars;
    let rejected_noncharacter = match answer_outcome.and_then(|o| o.valid_up_to) {
        Some(offset) => scalar_at(input, scalars, offset).is_some_and(is_noncharacter),
        None => scalars.iter().any(|&s| is_noncharacter(s)),
    };
    if rejected_noncharacter {
        Category::NoncharacterRejected
    } else {
        Category::ValidRejected
    }
}

/// The fields `outcome` carries, as capabilities: an answer is graded on what it
/// reports, so a field an adapter left out is never a difference.
fn reported(outcome: &Outcome) -> Capabilities {
    Capabilities {
        valid_up_to: outcome.valid_up_to.is_some(),
        error_len: outcome.error_len.is_some(),
        scalars: outcome.scalars.is_some(),
        errors: false,
    }
}

/// The departure in the strict fields: the verdict, else the first error's position,
/// else its length. Which of them differs is the one comparison every grading path uses
/// ([`compare`]): its primary difference, when that is a strict aspect (the aspects are
/// compared in that order). This only says which bytes the difference is about.
fn strict_departures(
    input: &[u8],
    reference: &ReferenceView,
    outcome: &Outcome,
    evaluation: &mut Evaluation,
) {
    let comparison = compare(reported(outcome), outcome, &reference.decoded);
    let Some(difference) = comparison.primary else {
        return;
    };
    let categories = match (difference.aspect, difference.shape) {
        (Aspect::Valid, Shape::RejectsWellFormed) => {
            vec![rejected_category(input, reference, Some(outcome))]
        }
        (Aspect::Valid, _) | (Aspect::ValidUpTo, Shape::Later) | (Aspect::ErrorLen, _) => {
            first_error_category(input, reference)
        }
        // Reported before the real first error: the decoder rejected a well-formed
        // character there.
        (Aspect::ValidUpTo, _) => {
            let reported = outcome.valid_up_to.expect("compared only when reported");
            let scalar = scalar_at(input, &reference.decoded.scalars, reported);
            if scalar.is_some_and(is_noncharacter) {
                vec![Category::NoncharacterRejected]
            } else {
                vec![Category::ValidRejected]
            }
        }
        // The lossy decode is graded on its own (a policy or a BOM is not a departure).
        _ => return,
    };
    evaluation.departures.push(Departure {
        aspect: difference.aspect,
        categories,
    });
}

/// The lossy decode `scalars`: a stripped or kept BOM, a U+FFFD policy, or a departure.
fn evaluate_scalars(
    input: &[u8],
    reference: &ReferenceView,
    scalars: &[u32],
    evaluation: &mut Evaluation,
) {
    let reference_valid = reference.first_error.is_none();
    let expected = &reference.decoded.scalars;
    let starts_with_bom = input.starts_with(&[0xEF, 0xBB, 0xBF]);
    let mut skip = 0;
    if starts_with_bom {
        // Checked in this order so that `EF BB BF EF BB BF` decoded to one U+FEFF is a
        // stripped BOM, not a kept one followed by a lost character.
        if collapse_replacements(scalars) == collapse_replacements(&expected[1..]) {
            evaluation.bom = Some(BomObservation::Stripped);
            skip = 1;
        } else if scalars.first() == Some(&BOM) {
            evaluation.bom = Some(BomObservation::Kept);
        }
    }
    let answered = scalars;
    if answered == &expected[skip..] {
        if !reference_valid {
            evaluation.policy = Some(observe_policies(input, reference, answered, skip, false));
        }
    } else if !reference_valid
        && collapse_replacements(answered) == collapse_replacements(&expected[skip..])
    {
        evaluation.policy = Some(observe_policies(input, reference, answered, skip, true));
        if evaluation.map_state == MapState::Agree {
            evaluation.map_state = MapState::Policy;
        }
    } else {
        let count = |scalars: &[u32], wanted: u32| scalars.iter().filter(|&&s| s == wanted).count();
        let lost_noncharacter = expected
            .iter()
            .any(|&s| is_noncharacter(s) && count(answered, s) < count(expected, s));
        let categories = if lost_noncharacter {
            vec![Category::NoncharacterRejected]
        } else if reference_valid {
            vec![Category::ValidMisdecoded]
        } else {
            reference.error_categories(input)
        };
        evaluation.departures.push(Departure {
            aspect: Aspect::Scalars,
            categories,
        });
        if evaluation.map_state < MapState::ScalarsDiffer {
            evaluation.map_state = MapState::ScalarsDiffer;
        }
    }
}

fn observe_policies(
    input: &[u8],
    reference: &ReferenceView,
    answered: &[u32],
    skip: usize,
    differs_from_reference: bool,
) -> PolicyObservation {
    let segments = segments(input, &reference.decoded);
    let mut explained_by = [false; 4];
    for (slot, policy) in explained_by.iter_mut().zip(ReplacementPolicy::ALL) {
        let expected = expected_scalars(input, &segments, policy);
        *slot = expected.get(skip..) == Some(answered);
    }
    PolicyObservation {
        explained_by,
        differs_from_reference,
    }
}

/// The scalar of the well-formed character starting at byte `offset`, if one does.
fn scalar_at(input: &[u8], scalars: &[u32], offset: usize) -> Option<u32> {
    let mut at = 0;
    for &scalar in scalars {
        if at == offset {
            return Some(scalar);
        }
        if at > offset {
            return None;
        }
        at += taxonomy::announced_len(input[at]).max(1);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::parse_hex;
    use crate::outcome::DecoderFailure;
    use crate::outcome::REPLACEMENT;

    fn grade(text: &str, answer: Outcome) -> Evaluation {
        let input = parse_hex(text).unwrap();
        evaluate(&input, &ReferenceView::of(&input), &Ok(answer))
    }

    fn reference(text: &str) -> Outcome {
        Reference::rfc3629().outcome("t", &parse_hex(text).unwrap())
    }

    #[test]
    fn the_reference_agrees_with_itself() {
        for text in [
            "",
            "41",
            "E4 BD",
            "ED A0 80 41",
            "EF BB BF 41",
            "61 F1 80 80 E1 80 C2 62",
        ] {
            let evaluation = grade(text, reference(text));
            assert!(evaluation.departures.is_empty(), "{text}");
            assert_eq!(evaluation.map_state, MapState::Agree);
        }
    }

    #[test]
    fn accepting_a_surrogate_is_a_valid_and_scalars_departure() {
        let mut answer = Outcome::verdict("t", true);
        answer.scalars = Some(vec![0xD800]);
        let evaluation = grade("ED A0 80", answer);
        assert_eq!(
            evaluation.departures,
            vec![
                Departure {
                    aspect: Aspect::Valid,
                    categories: vec![Category::Surrogate]
                },
                Departure {
                    aspect: Aspect::Scalars,
                    categories: vec![Category::Surrogate]
                },
            ]
        );
        assert_eq!(evaluation.map_state, MapState::StrictDiffers);
    }

    #[test]
    fn a_different_replacement_count_is_a_policy_observation() {
        let mut answer = reference("ED A0 80 41");
        answer.scalars = Some(vec![REPLACEMENT, 0x41]);
        let evaluation = grade("ED A0 80 41", answer);
        assert!(evaluation.departures.is_empty());
        let policy = evaluation.policy.unwrap();
        assert!(policy.differs_from_reference);
        assert_eq!(policy.explained_by, [false, false, true, true]);
        assert_eq!(evaluation.map_state, MapState::Policy);
    }

    #[test]
    fn wrong_error_len_and_swallowed_characters_are_departures() {
        let mut answer = reference("E1 80 41");
        answer.error_len = Some(ErrorLen::Invalid(1));
        answer.scalars = Some(vec![REPLACEMENT]);
        let evaluation = grade("E1 80 41", answer);
        assert_eq!(
            evaluation.departures,
            vec![
                Departure {
                    aspect: Aspect::ErrorLen,
                    categories: vec![Category::TruncatedInterrupted]
                },
                Departure {
                    aspect: Aspect::Scalars,
                    categories: vec![Category::TruncatedInterrupted]
                },
            ]
        );
    }

    #[test]
    fn bom_stripping_and_noncharacter_rejection() {
        let mut answer = reference("EF BB BF 41");
        answer.scalars = Some(vec![0x41]);
        let evaluation = grade("EF BB BF 41", answer);
        assert_eq!(evaluation.bom, Some(BomObservation::Stripped));
        assert!(evaluation.departures.is_empty());

        let mut answer = Outcome::from_strict("t", Some((1, ErrorLen::Invalid(3))));
        answer.scalars = Some(vec![0x41, REPLACEMENT]);
        let evaluation = grade("41 EF BF BF", answer);
        assert_eq!(
            evaluation
                .departures
                .iter()
                .map(|d| (d.aspect, d.categories.clone()))
                .collect::<Vec<_>>(),
            vec![
                (Aspect::Valid, vec![Category::NoncharacterRejected]),
                (Aspect::Scalars, vec![Category::NoncharacterRejected]),
            ]
        );
    }

    #[test]
    fn failures_are_departures_about_the_input_categories() {
        let input = parse_hex("41 FF").unwrap();
        let failure = DecoderFailure {
            kind: crate::outcome::FailureKind::Crash,
            message: "died".into(),
        };
        let evaluation = evaluate(&input, &ReferenceView::of(&input), &Err(failure));
        assert_eq!(
            evaluation.departures,
            vec![Departure {
                aspect: Aspect::Crash,
                categories: vec![Category::InvalidLead]
            }]
        );
        assert_eq!(evaluation.map_state, MapState::Failure);
    }
}
