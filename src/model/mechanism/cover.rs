//! The fewest hypotheses that explain the primary differences, chosen greedily: each
//! chosen one a finding, and every other difference filed under the finding it follows
//! from.

use super::{filing, finding, witness_of, Candidate, Finding, Group, Mechanism};
use crate::model::difference::Difference;

/// Greedy set cover of the primary differences, then one finding per chosen candidate and
/// one per primary difference left; every other difference is a manifestation of the
/// finding that holds the primary difference where its witness first departs.
pub(super) fn cover(
    differences: &[Difference],
    candidates: Vec<Candidate>,
    origins: &[Option<usize>],
    reached: &filing::Reached<'_>,
) -> Vec<Finding> {
    let primary: Vec<usize> = (0..differences.len())
        .filter(|&i| differences[i].primary)
        .collect();
    let mut covered = vec![false; differences.len()];
    let mut groups: Vec<Group> = Vec::new();
    loop {
        let gain = |c: &Candidate| {
            primary
                .iter()
                .filter(|&&i| c.explains[i] && !covered[i])
                .count()
        };
        // The first of the largest: conventions come first among candidates. A
        // convention must explain two differences, so that one coincidence is not a
        // policy. Of two that explain as many, the one that also explains more of what
        // follows them (the manifestations) is the truer account: dropping an error and
        // stopping there are alike at the error, not after it.
        let also = |c: &Candidate| {
            (0..differences.len())
                .filter(|&i| c.explains[i] && !covered[i] && !differences[i].primary)
                .count()
        };
        let best = candidates
            .iter()
            .map(|c| ((gain(c), also(c)), c))
            .filter(|&((g, _), c)| g > 1 || (g == 1 && c.seed.is_some()))
            .fold(
                None,
                |best: Option<((usize, usize), &Candidate)>, (g, c)| match best {
                    Some((b, _)) if b >= g => best,
                    _ => Some((g, c)),
                },
            );
        let Some((_, candidate)) = best else { break };
        let chosen = candidates.iter().position(|c| std::ptr::eq(c, candidate));
        let explained: Vec<usize> = primary
            .iter()
            .copied()
            .filter(|&i| candidate.explains[i] && !covered[i])
            .collect();
        for &i in &explained {
            covered[i] = true;
        }
        let witness = witness_of(differences, candidate.seed, &explained);
        groups.push(Group {
            candidate: chosen,
            mechanism: candidate.mechanism,
            witness,
            explained,
        });
    }
    for &index in primary.iter().filter(|&&i| !covered[i]) {
        groups.push(Group {
            candidate: None,
            mechanism: Mechanism::Unexplained,
            witness: index,
            explained: vec![index],
        });
    }
    let mut findings: Vec<Finding> = groups
        .iter()
        .map(|g| finding(differences, g.mechanism, g.witness, &g.explained))
        .collect();
    filing::file(
        differences,
        &groups,
        &candidates,
        origins,
        reached,
        &mut findings,
    );
    findings
}
