//! The behaviour a change of output shows: the second axis of a finding, beside its input
//! category ("what did the decoder do" against "what are these bytes").

use super::Behaviour;
use crate::model::output::{Lossy, StepOutput, Strict, UnitKind};

fn accepts(strict: Strict) -> bool {
    matches!(strict, Strict::Valid | Strict::Incomplete)
}

/// The behaviour a change of output shows.
pub fn behaviour(reference: StepOutput, decoder: StepOutput) -> Behaviour {
    use Strict::*;
    match (reference.strict, decoder.strict) {
        (Incomplete, Error { .. } | Invalid | Revised | Settled) => {
            return Behaviour::IncompleteAsError
        }
        (Error { .. }, Incomplete) => return Behaviour::ErrorAsIncomplete,
        (r, d) if !accepts(r) && accepts(d) => return Behaviour::AcceptsIllFormed,
        (r, d) if accepts(r) && !accepts(d) => return Behaviour::RejectsWellFormed,
        (r, d) if r != d => return Behaviour::ErrorSpan,
        _ => {}
    }
    match (reference.lossy, decoder.lossy) {
        (Some(r), Some(d)) => lossy_behaviour(r, d),
        _ => Behaviour::Other,
    }
}

fn lossy_behaviour(reference: Lossy, decoder: Lossy) -> Behaviour {
    let only = |l: Lossy, kind: UnitKind| l.kinds.iter().flatten().all(|&k| k == kind);
    if decoder.appended == 0 && reference.appended > 0 {
        return Behaviour::DropsOutput;
    }
    if only(reference, UnitKind::Replacement) && only(decoder, UnitKind::Replacement) {
        return Behaviour::Replacement;
    }
    if only(reference, UnitKind::Replacement) {
        return Behaviour::DecodesIllFormed;
    }
    if reference.kinds.contains(&Some(UnitKind::Scalar)) {
        return Behaviour::Misdecodes;
    }
    Behaviour::Other
}

/// The behaviour a title names for a change of output: [`behaviour`], except that where
/// both have already reported an error and the lossy sides differ, what was decoded is
/// what the reader needs to see (a character swallowed behind a stray byte also moves
/// where the decoder puts its first error, but the lost character is the harm).
pub fn shown(reference: StepOutput, decoder: StepOutput) -> Behaviour {
    let reported =
        |s: Strict| matches!(s, Strict::Error { .. } | Strict::Settled | Strict::Revised);
    match (reference.lossy, decoder.lossy) {
        (Some(r), Some(d)) if r != d && reported(reference.strict) && reported(decoder.strict) => {
            lossy_behaviour(r, d)
        }
        _ => behaviour(reference, decoder),
    }
}
