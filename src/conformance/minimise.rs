//! Shrinking a failing input to a small one that fails the same way (delta debugging).
//!
//! Zeller and Hildebrandt's *ddmin*: split the input into `n` chunks; if one chunk alone,
//! or the input without one chunk, still fails, keep that and start again; otherwise split
//! finer, until chunks are single bytes. Then two finishing passes that ddmin's chunking
//! misses: remove single bytes, and replace single bytes by ASCII `A`, as long as the input
//! still fails.
//!
//! An external decoder answers over a pipe, so the candidates of one round are tested
//! together in one batch (the predicate takes a slice and answers for each), and the total
//! number of candidates is bounded.

/// Shrinks `input` while `still_fails` says a candidate fails the same way. `still_fails`
/// gets a batch of candidates and returns one verdict per candidate. At most `budget`
/// candidates are tested in all. Returns the smallest failing input found.
pub fn minimise(
    input: &[u8],
    budget: usize,
    mut still_fails: impl FnMut(&[Vec<u8>]) -> Vec<bool>,
) -> Vec<u8> {
    let mut current = input.to_vec();
    let mut tested = 0usize;
    let mut test = |candidates: Vec<Vec<u8>>, tested: &mut usize| -> Option<Vec<u8>> {
        if candidates.is_empty() || *tested + candidates.len() > budget {
            return None;
        }
        *tested += candidates.len();
        let verdicts = still_fails(&candidates);
        candidates
            .into_iter()
            .zip(verdicts)
            .find_map(|(candidate, fails)| fails.then_some(candidate))
    };

    let mut chunks = 2usize;
    while current.len() >= 2 {
        let chunk_len = current.len().div_ceil(chunks);
        let pieces: Vec<(usize, usize)> = (0..current.len())
            .step_by(chunk_len)
            .map(|start| (start, (start + chunk_len).min(current.len())))
            .collect();
        let subsets: Vec<Vec<u8>> = pieces
            .iter()
            .map(|&(start, end)| current[start..end].to_vec())
            .collect();
        if let Some(smaller) = test(subsets, &mut tested) {
            current = smaller;
            chunks = 2;
            continue;
        }
        let complements: Vec<Vec<u8>> = pieces
            .iter()
            .map(|&(start, end)| [&current[..start], &current[end..]].concat())
            .collect();
        if pieces.len() > 2 {
            if let Some(smaller) = test(complements, &mut tested) {
                current = smaller;
                chunks = (chunks - 1).max(2);
                continue;
            }
        }
        if chunk_len == 1 {
            break;
        }
        chunks = (chunks * 2).min(current.len());
        if tested >= budget {
            break;
        }
    }

    // Finishing passes: drop one byte; replace one byte by 'A'.
    loop {
        let removals: Vec<Vec<u8>> = (0..current.len())
            .map(|i| [&current[..i], &current[i + 1..]].concat())
            .collect();
        if current.len() > 1 {
            if let Some(smaller) = test(removals, &mut tested) {
                current = smaller;
                continue;
            }
        }
        let simpler: Vec<Vec<u8>> = (0..current.len())
            .filter(|&i| current[i] != b'A')
            .map(|i| {
                let mut candidate = current.clone();
                candidate[i] = b'A';
                candidate
            })
            .collect();
        match test(simpler, &mut tested) {
            Some(candidate) => current = candidate,
            None => break,
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinks_to_the_failing_core() {
        // Fails whenever ED A0 appears.
        let input = b"hello \xED\xA0\x80 world".to_vec();
        let fails = |candidates: &[Vec<u8>]| {
            candidates
                .iter()
                .map(|c| c.windows(2).any(|w| w == [0xED, 0xA0]))
                .collect()
        };
        assert_eq!(minimise(&input, 10_000, fails), vec![0xED, 0xA0]);
    }

    #[test]
    fn replaces_bytes_by_a_when_that_keeps_the_failure() {
        // Fails when the input is exactly two bytes long and ends in FF.
        let fails = |candidates: &[Vec<u8>]| {
            candidates
                .iter()
                .map(|c| c.len() == 2 && c[1] == 0xFF)
                .collect()
        };
        assert_eq!(minimise(&[0x80, 0xFF], 100, fails), vec![b'A', 0xFF]);
    }

    #[test]
    fn respects_the_budget() {
        let mut calls = 0;
        let input = vec![0u8; 200];
        minimise(&input, 50, |candidates| {
            calls += candidates.len();
            vec![false; candidates.len()]
        });
        assert!(calls <= 50);
    }
}
