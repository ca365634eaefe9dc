//! Grading a refusal: at the first element the encoder's policy cannot write, or
//! elsewhere (a well-formed element refused, or another position named).

use super::{category_of, observe_bytes, EncoderBehaviour, EncoderCategory, Observation};
use crate::encoders::{CodeUnits, Encoded, Encoder};

/// A refusal, graded. One that names a later element than the first unencodable one may
/// come from an encoder whose policy writes some unencodable elements and refuses others
/// (CPython's `surrogateescape` writes `DC80` as `80` and refuses `D800`): a refusal
/// carries no bytes to show that, so the encoder is asked again for the elements before
/// the one it named. When it writes them, what it wrote is graded as any answer is, and
/// the refusal is of the element it named; when it refuses them too, the position is
/// wrong.
pub(super) fn observe(
    encoder: &dyn Encoder,
    input: &CodeUnits,
    position: Option<usize>,
) -> Vec<Observation> {
    let observation = observe_refusal(input, position);
    let claimed = match position {
        Some(claimed)
            if observation.behaviour == EncoderBehaviour::WrongErrorPosition
                && claimed < input.len() =>
        {
            claimed
        }
        _ => return vec![observation],
    };
    let before = input.prefix(claimed);
    let Encoded::Bytes(bytes) = encoder.encode(&before) else {
        return vec![observation];
    };
    let mut observations = observe_bytes(encoder, &before, &bytes);
    let (value, _, unencodable) = input.element(claimed);
    observations.push(Observation {
        position: claimed,
        category: category_of(value, unencodable),
        behaviour: match unencodable {
            Some(_) => EncoderBehaviour::Refuses,
            None => EncoderBehaviour::RejectsWellFormed,
        },
    });
    observations
}

fn observe_refusal(input: &CodeUnits, position: Option<usize>) -> Observation {
    let first_unencodable = (0..input.len())
        .scan(0, |next, index| {
            if index < *next {
                return Some(None);
            }
            let (value, taken, unencodable) = input.element(index);
            *next = index + taken;
            Some(unencodable.map(|kind| (index, category_of(value, Some(kind)))))
        })
        .flatten()
        .next();
    let at = |index: usize| {
        let (value, _, unencodable) = input.element(index);
        category_of(value, unencodable)
    };
    let (position, category, behaviour) = match (first_unencodable, position) {
        (Some((index, category)), None) => (index, category, EncoderBehaviour::Refuses),
        (Some((index, category)), Some(claimed)) if claimed == index => {
            (index, category, EncoderBehaviour::Refuses)
        }
        (Some((index, _)), Some(claimed)) if claimed < index => {
            (claimed, at(claimed), EncoderBehaviour::RejectsWellFormed)
        }
        (Some((index, category)), Some(_)) => {
            (index, category, EncoderBehaviour::WrongErrorPosition)
        }
        (None, claimed) => {
            let index = claimed
                .filter(|&index| index < input.len())
                .unwrap_or_else(|| most_notable(input));
            (index, at(index), EncoderBehaviour::RejectsWellFormed)
        }
    };
    Observation {
        position,
        category,
        behaviour,
    }
}

/// The first element that is not an ordinary scalar (or the first element): where a
/// refusal that names no position most likely comes from.
pub(super) fn most_notable(input: &CodeUnits) -> usize {
    (0..input.len())
        .find(|&index| {
            let (value, _, unencodable) = input.element(index);
            category_of(value, unencodable) != EncoderCategory::Ordinary
        })
        .unwrap_or(0)
}
