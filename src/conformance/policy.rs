//! The evidence of a decoder's U+FFFD policy gathered over a check, and the policy it
//! shows. The policies themselves, and what each predicts for an input, are the shared
//! model in [`crate::policy`]; what is here is check's tally of them.

use std::collections::BTreeMap;

use super::Example;
use crate::policy::ReplacementPolicy;
use crate::taxonomy::Category;

/// Evidence about the decoder's U+FFFD policy.
#[derive(Debug, Clone, Default)]
pub struct PolicyEvidence {
    /// Ill-formed inputs answered with scalars that differ from the reference at most in
    /// U+FFFD count.
    pub observations: u64,
    /// Of those, the ones where the count differs.
    pub differing: u64,
    /// Per policy of [`ReplacementPolicy::ALL`]: observations it predicts exactly.
    pub explained: [u64; 4],
    /// Smallest differing example per set of categories.
    pub examples: BTreeMap<Vec<Category>, Example>,
    /// Per policy: the smallest observations it does not predict.
    pub counterexamples: [Vec<Example>; 4],
}

impl PolicyEvidence {
    /// The policy that explains the evidence: the first of [`ReplacementPolicy::ALL`] that
    /// predicts every observation, else `None` (with the closest as the second value).
    pub fn recognise(&self) -> (Option<ReplacementPolicy>, ReplacementPolicy) {
        let closest = ReplacementPolicy::ALL
            .into_iter()
            .zip(self.explained)
            .max_by_key(|&(policy, explained)| (explained, std::cmp::Reverse(policy)))
            .map(|(policy, _)| policy)
            .expect("four policies");
        let all = ReplacementPolicy::ALL
            .into_iter()
            .zip(self.explained)
            .find(|&(_, explained)| explained == self.observations)
            .map(|(policy, _)| policy);
        (all, closest)
    }
}
