//! Minimisation: the smallest input that still shows the same divergence.
//!
//! A divergence found in a 300-byte random input is hard to read; the same divergence in 6
//! bytes explains itself. The minimiser is Zeller and Hildebrandt's delta debugging
//! ("Simplifying and Isolating Failure-Inducing Input", IEEE TSE 28(2), 2002), `ddmin`,
//! over bytes: split the input into `n` parts, keep any part, or any complement of a part,
//! that still fails; otherwise split finer. "Still fails" means the decoder pair still
//! diverges with the *same signature* (aspect, categories, shape), so minimisation never
//! drifts from one bug to another.
//!
//! `ddmin` guarantees 1-minimality only when it runs to the end, so a final pass then tries
//! removing each single byte, and replacing each byte with ASCII `A` (so that padding left
//! in the input reads as padding). Everything is bounded by a budget of predicate calls, so
//! a slow decoder cannot stall the run: when it runs out, the smallest input found so far
//! is the result.

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

/// Counts predicate calls against a budget.
struct Tester<F> {
    still_fails: F,
    calls: usize,
    budget: usize,
}

impl<F: FnMut(&[u8]) -> bool> Tester<F> {
    /// Calls the predicate, or answers `false` once the budget is spent.
    fn test(&mut self, candidate: &[u8]) -> bool {
        if self.calls >= self.budget {
            return false;
        }
        self.calls += 1;
        (self.still_fails)(candidate)
    }

    fn exhausted(&self) -> bool {
        self.calls >= self.budget
    }
}

/// Minimises `input`, for which `still_fails` is true, calling it at most `budget` times.
pub fn minimize(input: &[u8], budget: usize, still_fails: impl FnMut(&[u8]) -> bool) -> Minimized {
    let mut tester = Tester {
        still_fails,
        calls: 0,
        budget,
    };
    let mut current = ddmin(input.to_vec(), &mut tester);
    polish(&mut current, &mut tester);
    Minimized {
        bytes: current,
        budget_exhausted: tester.exhausted(),
        calls: tester.calls,
    }
}

/// `ddmin` over bytes.
fn ddmin<F: FnMut(&[u8]) -> bool>(mut current: Vec<u8>, tester: &mut Tester<F>) -> Vec<u8> {
    let mut parts = 2;
    while current.len() >= 2 && !tester.exhausted() {
        let part_len = current.len().div_ceil(parts);
        let ranges: Vec<(usize, usize)> = (0..current.len())
            .step_by(part_len)
            .map(|start| (start, (start + part_len).min(current.len())))
            .collect();
        let mut reduced = false;
        // Reduce to a part.
        for &(start, end) in &ranges {
            if tester.test(&current[start..end]) {
                current = current[start..end].to_vec();
                parts = 2;
                reduced = true;
                break;
            }
        }
        // Reduce to a complement (with two parts, a complement is the other part).
        if !reduced && ranges.len() > 2 {
            for &(start, end) in &ranges {
                let complement: Vec<u8> = [&current[..start], &current[end..]].concat();
                if tester.test(&complement) {
                    current = complement;
                    parts = (parts - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if parts >= current.len() {
                break;
            }
            parts = (parts * 2).min(current.len());
        }
    }
    current
}

/// The final pass: remove single bytes until none can go, then replace bytes with `A`.
fn polish<F: FnMut(&[u8]) -> bool>(current: &mut Vec<u8>, tester: &mut Tester<F>) {
    let mut changed = true;
    while changed && !tester.exhausted() {
        changed = false;
        let mut index = current.len();
        while index > 0 && !tester.exhausted() {
            index -= 1;
            let mut candidate = current.clone();
            candidate.remove(index);
            if tester.test(&candidate) {
                *current = candidate;
                changed = true;
            }
        }
    }
    for index in 0..current.len() {
        if current[index] == FILLER || tester.exhausted() {
            continue;
        }
        let original = current[index];
        current[index] = FILLER;
        if !tester.test(current) {
            current[index] = original;
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
    fn stops_at_the_budget() {
        let mut calls = 0;
        let result = minimize(&[1; 1000], 10, |bytes: &[u8]| {
            calls += 1;
            !bytes.is_empty()
        });
        assert_eq!(calls, 10);
        assert_eq!(result.calls, 10);
        assert!(result.budget_exhausted);
        assert!(!result.bytes.is_empty());
    }
}
