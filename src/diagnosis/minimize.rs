//! Minimisation: the smallest input that still shows the same departure.
//!
//! A departure found in a 300-byte random input is hard to read; the same departure in 6
//! bytes explains itself. The minimiser is Zeller and Hildebrandt's delta debugging
//! ("Simplifying and Isolating Failure-Inducing Input", IEEE TSE 28(2), 2002), `ddmin`,
//! over bytes: split the input into `n` parts, keep any part, or any complement of a part,
//! that still fails; otherwise split finer. "Still fails" means the decoder pair still
//! departs with the *same signature* (aspect, categories, shape), so minimisation never
//! drifts from one bug to another.
//!
//! `ddmin` guarantees 1-minimality only when it runs to the end, so a final pass then tries
//! removing each single byte, and replacing blocks, runs and single bytes with ASCII `A`
//! (so that padding left in the input reads as padding: an input that must stay over 200
//! bytes long becomes filler around the bytes that matter). Everything is bounded by a
//! budget of predicate calls, so a slow decoder cannot stall the run: when it runs out,
//! the smallest input found so far is the result; `ddmin` gets three quarters of it, so
//! that the final pass always has calls left.

/// The replacement byte of the final pass: ASCII `A`, a complete character on its own.
const FILLER: u8 = b'A';

/// What minimisation produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Minimized {
    /// The smallest input found that still fails.
    pub bytes: Vec<u8>,
    /// How many times the predicate was called.
    pub calls: usize,
    /// True when the call budget ran out before minimisation finished.
    pub budget_exhausted: bool,
}

/// Tests batches of candidates against a budget of candidates.
struct Tester<F> {
    still_fails: F,
    calls: usize,
    budget: usize,
}

impl<F: FnMut(&[Vec<u8>]) -> Vec<bool>> Tester<F> {
    /// Tests `candidates` (as many as the budget still allows) in one batch and returns
    /// the first that still fails.
    fn first_failing(&mut self, mut candidates: Vec<Vec<u8>>) -> Option<Vec<u8>> {
        candidates.truncate(self.budget.saturating_sub(self.calls));
        if candidates.is_empty() {
            return None;
        }
        self.calls += candidates.len();
        let verdicts = (self.still_fails)(&candidates);
        candidates
            .into_iter()
            .zip(verdicts)
            .find_map(|(candidate, fails)| fails.then_some(candidate))
    }

    fn exhausted(&self) -> bool {
        self.calls >= self.budget
    }
}

/// Minimises `input`, for which `still_fails` is true, testing at most `budget`
/// candidates. `still_fails` gets a batch of candidates and answers for each (so that an
/// external decoder is asked many candidates in one pipelined batch).
pub fn minimize_batched(
    input: &[u8],
    budget: usize,
    still_fails: impl FnMut(&[Vec<u8>]) -> Vec<bool>,
) -> Minimized {
    let mut tester = Tester {
        still_fails,
        calls: 0,
        budget,
    };
    // `ddmin` stops short of the whole budget: an input that cannot shrink (a departure
    // only in inputs over 200 bytes) spends its rounds failing to, and the polish that
    // turns its incidental bytes into filler needs calls of its own.
    tester.budget = budget * 3 / 4;
    let mut current = ddmin(input.to_vec(), &mut tester);
    tester.budget = budget;
    polish(&mut current, &mut tester);
    Minimized {
        bytes: current,
        budget_exhausted: tester.exhausted(),
        calls: tester.calls,
    }
}

/// [`minimize_batched`] with a predicate on one candidate at a time.
pub fn minimize(
    input: &[u8],
    budget: usize,
    mut still_fails: impl FnMut(&[u8]) -> bool,
) -> Minimized {
    minimize_batched(input, budget, |candidates| {
        candidates.iter().map(|c| still_fails(c)).collect()
    })
}

/// `ddmin` over bytes; each round's parts, then its complements, are one batch.
fn ddmin<F: FnMut(&[Vec<u8>]) -> Vec<bool>>(
    mut current: Vec<u8>,
    tester: &mut Tester<F>,
) -> Vec<u8> {
    let mut parts = 2;
    while current.len() >= 2 && !tester.exhausted() {
        let part_len = current.len().div_ceil(parts);
        let ranges: Vec<(usize, usize)> = (0..current.len())
            .step_by(part_len)
            .map(|start| (start, (start + part_len).min(current.len())))
            .collect();
        // Reduce to a part.
        let subsets = ranges
            .iter()
            .map(|&(start, end)| current[start..end].to_vec())
            .collect();
        if let Some(smaller) = tester.first_failing(subsets) {
            current = smaller;
            parts = 2;
            continue;
        }
        // Reduce to a complement (with two parts, a complement is the other part).
        if ranges.len() > 2 {
            let complements = ranges
                .iter()
                .map(|&(start, end)| [&current[..start], &current[end..]].concat())
                .collect();
            if let Some(smaller) = tester.first_failing(complements) {
                current = smaller;
                parts = (parts - 1).max(2);
                continue;
            }
        }
        if parts >= current.len() {
            break;
        }
        parts = (parts * 2).min(current.len());
    }
    current
}

/// The final pass: replace aligned blocks of bytes with `A`, remove single bytes until
/// none can go, then replace smaller runs and single bytes with `A`.
fn polish<F: FnMut(&[Vec<u8>]) -> Vec<bool>>(current: &mut Vec<u8>, tester: &mut Tester<F>) {
    // Blocks first, largest first: an input that must stay long keeps its length, and
    // what it holds besides the departure becomes filler in a few dozen calls, where one
    // byte at a time would take one call per byte.
    for block in [64, 32, 16, 8] {
        for start in (0..current.len()).step_by(block) {
            let end = (start + block).min(current.len());
            if tester.exhausted() || current[start..end].iter().all(|&b| b == FILLER) {
                continue;
            }
            let mut candidate = current.clone();
            candidate[start..end].fill(FILLER);
            if let Some(simpler) = tester.first_failing(vec![candidate]) {
                *current = simpler;
            }
        }
    }
    while current.len() > 1 && !tester.exhausted() {
        // Removing any byte of a run gives the same input: one candidate per run.
        let removals = (0..current.len())
            .rev()
            .filter(|&index| current.get(index + 1) != Some(&current[index]))
            .map(|index| {
                let mut candidate = current.clone();
                candidate.remove(index);
                candidate
            })
            .collect();
        match tester.first_failing(removals) {
            Some(smaller) => *current = smaller,
            None => break,
        }
    }
    // Replace runs of 4, 3 and 2 bytes (a whole character) by filler, keeping every
    // position: a departure that needs its unit at offset 64 keeps it there.
    for width in [4, 3, 2] {
        let mut index = 0;
        while index + width <= current.len() && !tester.exhausted() {
            if current[index..index + width].iter().any(|&b| b != FILLER) {
                let mut candidate = current.clone();
                candidate[index..index + width].fill(FILLER);
                if let Some(simpler) = tester.first_failing(vec![candidate]) {
                    *current = simpler;
                }
            }
            index += 1;
        }
    }
    for index in 0..current.len() {
        if current[index] == FILLER || tester.exhausted() {
            continue;
        }
        let mut candidate = current.clone();
        candidate[index] = FILLER;
        if let Some(simpler) = tester.first_failing(vec![candidate]) {
            *current = simpler;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_bytes_that_matter() {
        // Fails while the input contains both 0xED and 0xFF, in that order.
        let fails = |bytes: &[u8]| {
            let ed = bytes.iter().position(|&b| b == 0xED);
            let ff = bytes.iter().position(|&b| b == 0xFF);
            matches!((ed, ff), (Some(a), Some(b)) if a < b)
        };
        let input = b"hello \xED world, this is padding \xFF and more".to_vec();
        let result = minimize(&input, 10_000, fails);
        assert_eq!(result.bytes, vec![0xED, 0xFF]);
        assert!(!result.budget_exhausted);
    }

    #[test]
    fn replaces_irreducible_bytes_with_a() {
        // Fails while the input is exactly 3 bytes long and ends with 0x80.
        let fails = |bytes: &[u8]| bytes.len() == 3 && bytes[2] == 0x80;
        let result = minimize(&[0x10, 0x20, 0x80], 1_000, fails);
        assert_eq!(result.bytes, vec![b'A', b'A', 0x80]);
    }

    #[test]
    fn batches_are_answered_together() {
        let mut batches = 0;
        let input = b"padding \xED\xA0 padding".to_vec();
        let result = minimize_batched(&input, 10_000, |candidates| {
            batches += 1;
            candidates
                .iter()
                .map(|c| c.windows(2).any(|w| w == [0xED, 0xA0]))
                .collect()
        });
        assert_eq!(result.bytes, vec![0xED, 0xA0]);
        assert!(
            batches < result.calls,
            "{batches} batches, {} calls",
            result.calls
        );
    }

    #[test]
    fn an_input_that_cannot_shrink_becomes_filler_around_what_matters() {
        // Fails while the input is longer than 200 bytes and holds ED A0 80.
        let fails =
            |bytes: &[u8]| bytes.len() > 200 && bytes.windows(3).any(|w| w == [0xED, 0xA0, 0x80]);
        let mut input: Vec<u8> = (0..250u32).map(|i| b'a' + (i % 26) as u8).collect();
        input[120..123].copy_from_slice(&[0xED, 0xA0, 0x80]);
        let result = minimize(&input, 800, fails);
        assert_eq!(result.bytes.len(), 201);
        let kept: Vec<u8> = result
            .bytes
            .iter()
            .copied()
            .filter(|&b| b != FILLER)
            .collect();
        assert_eq!(kept, [0xED, 0xA0, 0x80]);
    }

    #[test]
    fn stops_at_the_budget() {
        let mut calls = 0;
        let result = minimize(&[1; 1000], 10, |bytes: &[u8]| {
            calls += 1;
            !bytes.is_empty()
        });
        assert!(calls <= 10);
        assert_eq!(result.calls, calls);
        assert!(result.budget_exhausted);
        assert!(!result.bytes.is_empty());
    }
}
