//! Whether two differences are at the same place: the same bytes after the same
//! context in the decoder's reading, where one explains the other without a changed
//! machine of its own.

use super::behaviour::behaviour;
use super::family::one_value_for_those_before;
use super::Behaviour;
use crate::model::difference::Difference;
use crate::model::learner::Hypothesis;
use crate::model::output::{Lossy, Strict, UnitKind};
use crate::model::title;

/// Whether `d` shows at the place `first` does: the same bytes after the same context,
/// later in an input (`d`'s context ends with `first`'s: `80 ED A0` then `80..BF` is
/// `ED A0` then `80..BF` after an error; `C2 00` is `00` inside a character), or, for
/// bytes of the same category, any byte after that context, or, for the same change of
/// behaviour on bytes of the same category, any continuation of `first`'s context
/// (`80 C2 80` continues `80` as `80 41` does). A continuation that changes behaviour
/// otherwise is another change: a NUL rejected after `E0` does not explain a letter
/// taken as a continuation after `E0 A0`, though both witnesses start with `E0`. (A
/// verdict after the reference's first error is settled is not a change of its own.)
/// Or, last, `d` is a wait where the reference errs on bytes that `first`'s context ends
/// with (`C0` alone waits, `80 C0 80` is accepted).
pub(super) fn same_place(first: &Difference, d: &Difference, same_category: bool) -> bool {
    let context = |x: &Difference| x.witness[..x.witness.len() - 1].to_vec();
    let (cf, cd) = (context(first), context(d));
    let meets = d.bytes.iter().any(|b| first.bytes.contains(b));
    // Or, where the reference has already settled its first error in the context, a
    // change of the verdict: the decoder reports there what it did not report at the
    // first difference (Java's `C0 80` accepted, then `F0 90 80 80` its first error).
    let same_change = behaviour(first.reference, first.decoder)
        == behaviour(d.reference, d.decoder)
        || d.reference.strict == Strict::Settled;
    // Well-formed bytes are all of one "category": there, only the same change of
    // behaviour is the same bug (a NUL rejected does not explain `F0 90 90 80`
    // misdecoded, though both are well-formed and the NUL's context is empty).
    let same_kind = same_category
        && (title::category(&first.witness).is_some()
            || behaviour(first.reference, first.decoder) == behaviour(d.reference, d.decoder));
    // The decoder took the waiting bytes as opening a sequence, and what it does with
    // the sequence is the same missing check. The wait is the lesser sign of it, so the
    // sequence's family claims the wait, not the other way round.
    let wait_before = d.decoder.strict == Strict::Incomplete
        && matches!(d.reference.strict, Strict::Error { .. })
        && cf.ends_with(&d.witness);
    // A byte the decoder joins to the bytes before it (it takes back what it gave them
    // and gives one value in their place) where the reference replaces it is not where
    // a byte it takes on its own is: `C0 80` decoded to U+0000 is not a stray `80`
    // given a value after an error, though its context ends with the stray's empty one.
    // (Where the reference appends a character, or nothing, as at the `BD` of `EF BF
    // BD`, the value is the reference's character too, given late.)
    let joined = |x: &Difference| {
        let replaced = |l: Lossy| l.appended > 0 && !l.kinds.contains(&Some(UnitKind::Scalar));
        x.decoder.lossy.is_some_and(one_value_for_those_before)
            && x.reference.lossy.is_some_and(replaced)
    };
    (cd.ends_with(&cf) && (meets || same_kind) && joined(first) == joined(d))
        || (same_category && same_change && !cf.is_empty() && cd.starts_with(&cf))
        || wait_before
}

/// Whether the decoder, having read `context`, holds a sequence open (it calls the input
/// incomplete there).
pub(super) fn holds_open(decoder: &Hypothesis, context: &[u8]) -> bool {
    decoder
        .run(context)
        .last()
        .is_some_and(|out| out.strict == Strict::Incomplete)
}

/// Whether `d` completes, as a character, a sequence the decoder held open, where
/// `first` is at a character boundary (an empty context) and accepts nothing: then `d`
/// is the sequence's check, not `first`'s place, whatever the bytes. The place is the
/// decoder's: glibc's `F4 90 80 80` accepted, after three bytes it waited on, is not its
/// stray `80` reported without a length, though `80` ends both and an empty context ends
/// every context. (Other steps inside an open sequence stay at the boundary's place:
/// a NUL rejected after `E0` is the NUL rejection, a Latin-1 fallback giving `A0` after
/// `E0` its own value gives a stray `80` its own too.)
pub(super) fn inside_a_sequence(first: &Difference, d: &Difference, d_held: bool) -> bool {
    first.witness.len() == 1
        && d_held
        && behaviour(d.reference, d.decoder) == Behaviour::AcceptsIllFormed
        && behaviour(first.reference, first.decoder) != Behaviour::AcceptsIllFormed
}
