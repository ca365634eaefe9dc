//! Which of a finding's differences witnesses it.

use crate::model::difference::Difference;
use crate::model::output::{StepOutput, UnitKind};

/// The witness of a finding explaining the primary differences `explained`: its seed's,
/// else the first's. A family whose bytes swallow a well-formed character in one context
/// and only ill-formed bytes in another (a stray continuation byte that absorbs the
/// sequence after it, `80 C0 80` and `80 E1 80 80`) is shown by the harm it does
/// instead, so that its reader sees the character lost.
pub(super) fn witness_of(
    differences: &[Difference],
    seed: Option<usize>,
    explained: &[usize],
) -> usize {
    let witness = seed
        .filter(|s| explained.contains(s))
        .unwrap_or(explained[0]);
    if harms_well_formed(&differences[witness]) {
        return witness;
    }
    explained
        .iter()
        .copied()
        .filter(|&i| harms_well_formed(&differences[i]))
        .min_by_key(|&i| differences[i].witness.len())
        .unwrap_or(witness)
}

/// Whether the decoder's step loses a well-formed character the reference's step gives
/// (the reference appends more scalars of their own value than the decoder does).
fn harms_well_formed(d: &Difference) -> bool {
    let characters = |output: StepOutput| {
        output.lossy.map_or(0, |lossy| {
            lossy
                .kinds
                .iter()
                .filter(|kind| **kind == Some(UnitKind::Scalar))
                .count()
        })
    };
    characters(d.reference) > characters(d.decoder)
}
