//! The security impact of a finding, from its root cause: what the decoder does at the
//! first unit where it parts from the reference (docs/SECURITY-IMPACT.md, "How a finding
//! is classified"). It lives with the finding, whose root cause it reads, so that
//! `security` needs nothing from `finding` and the two do not import each other.
//!
//! Most actions name their class directly (a swallowed character, a stop, a BOM
//! stripped). Where the action alone does not say what the bytes became (an ill-formed
//! unit accepted as nothing, an error unit merged with the next or split, other error
//! units), the decoder's answer on the finding's witness decides, through
//! [`crate::security::classify`]; and where the lossy decode shows something more severe
//! than the action's name (bytes deleted where the action says "accepts"), that wins.

use crate::aspect::Aspect;
use crate::outcome::Answer;
use crate::reference::Decoded;
use crate::security::{acceptance_class, classify, AnswerView, SecurityClass, SecurityImpact};
use crate::taxonomy::Category;

use super::{DecoderAction, RootCause};

/// The impact of a finding whose root cause is `cause`, shown in `aspects`, with the
/// decoder's `answer` on its witness `input`.
pub fn classify_cause(
    cause: &RootCause,
    aspects: &[Aspect],
    input: &[u8],
    reference: &Decoded,
    answer: &Answer,
) -> SecurityImpact {
    let categories = cause.categories();
    let from_answer = || {
        let answer = AnswerView::of(answer);
        aspects
            .iter()
            .map(|aspect| classify(*aspect, &categories, input, reference, answer))
            .max_by_key(|impact| impact.severity)
            .unwrap_or_else(|| SecurityClass::WrongErrorPosition.impact())
    };
    let class = match &cause.decoder_does {
        DecoderAction::AcceptsAs { scalars } if scalars.is_empty() => return from_answer(),
        DecoderAction::AcceptsAs { .. } => acceptance_class(&categories),
        DecoderAction::Replacements { emitted: 0, .. } => SecurityClass::BytesDeleted,
        DecoderAction::Replacements { .. } => SecurityClass::ReplacementPolicy,
        DecoderAction::MergesWithNext
        | DecoderAction::SplitsUnit
        | DecoderAction::OtherErrorUnits => return from_answer(),
        DecoderAction::MisjudgesEnd { .. } | DecoderAction::ValidUpToOff { .. } => {
            SecurityClass::WrongErrorPosition
        }
        DecoderAction::SwallowsCharacter { .. } => SecurityClass::CharacterSwallowed,
        DecoderAction::Stops => SecurityClass::OutputCutShort,
        DecoderAction::RejectsCharacter if categories.contains(&Category::NoncharacterRejected) => {
            SecurityClass::BomOrNoncharacter
        }
        DecoderAction::RejectsCharacter => SecurityClass::WellFormedRejected,
        DecoderAction::Misdecodes { .. } => SecurityClass::WellFormedMisdecoded,
        DecoderAction::Latin1Fallback
            if categories.iter().any(|c| Category::ILL_FORMED.contains(c)) =>
        {
            SecurityClass::IllFormedAccepted
        }
        DecoderAction::Latin1Fallback => SecurityClass::WellFormedMisdecoded,
        DecoderAction::StripsBom => SecurityClass::BomOrNoncharacter,
        DecoderAction::Fails if aspects.contains(&Aspect::Crash) => SecurityClass::DecoderCrash,
        DecoderAction::Fails => SecurityClass::DecoderUnresponsive,
    };
    // The lossy decode, aligned with the reference's, can show more than the action's
    // name: a unit "accepted" as nothing, or a "stop" that is the deletion of the last
    // bytes, is a deletion. For an acceptance the decode says what the bytes became;
    // otherwise the more severe reading wins, so it never lowers a class.
    match answer {
        // A U+FFFD count or a stripped BOM is about those bytes alone; the rest of its
        // witness belongs to other findings.
        Ok(outcome)
            if !matches!(
                cause.decoder_does,
                DecoderAction::Fails
                    | DecoderAction::Replacements { .. }
                    | DecoderAction::StripsBom
            ) =>
        {
            match crate::security::class_of_output(input, reference, &categories, outcome) {
                Some(seen)
                    if seen.severity() > class.severity()
                        || matches!(cause.decoder_does, DecoderAction::AcceptsAs { .. }) =>
                {
                    seen.impact()
                }
                _ => class.impact(),
            }
        }
        _ => class.impact(),
    }
}
