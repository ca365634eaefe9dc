//! Failure patterns the failure counts of [`super::breaker`] cannot see: failures that
//! follow a process's age instead of its inputs, and checks that spend their time
//! restarting processes (docs/PROTOCOL.md, "What the harness guarantees").
//!
//! Both supervisors, the adapter client and the library worker's (in `native/`),
//! retry a crash or a timeout once on a fresh process. Each such failure ends one process
//! *lifetime*, noted here with the number of calls that process had received when it
//! failed, and the retry says whether the failing input was to blame:
//!
//! - a retry that fails too means the input is to blame (a finding); the run of
//!   input-independent failures is broken;
//! - a retry that passes means it was not. When the last [`PATTERN_PROCESSES`] lifetimes
//!   all ended that way, after about the same number of calls, the process fails by its
//!   age or call count (a leak, a counter, a periodic stall), and no input can be graded
//!   fairly: the decoder is unusable, with those call counts as the evidence.
//!
//! A correct decoder, however slow, ends no lifetime, so neither rule can touch it.

use std::time::{Duration, Instant};

/// Consecutive process lifetimes ended by failures that passed on retry, at about the same
/// call count, that make the decoder unusable.
pub const PATTERN_PROCESSES: usize = 3;
/// How far (in percent of their median) the call counts of those lifetimes may differ.
const PATTERN_SPREAD_PERCENT: u64 = 25;
/// Failures after which the share of time lost to failures and restarts is judged: a
/// decoder that fails on a few inputs (each costing a timeout and a retry) early in a
/// check is not a decoder that spends its time failing.
const TIME_RULE_FAILURES: u64 = 10;

/// What the process lifetimes of one decoder looked like so far.
#[derive(Debug)]
pub struct Lifetimes {
    started: Instant,
    /// Time spent starting replacement processes. Waits for answers that never came are
    /// not counted: a decoder that hangs on some inputs costs a timeout for each, and
    /// those are findings, not restarts.
    lost: Duration,
    /// Lifetimes that ended in a failure, so far.
    failures: u64,
    /// The call count at the failure now being retried.
    pending: Option<u64>,
    /// Call counts of the latest lifetimes whose failing input passed on retry, oldest
    /// first; cleared by a failure that recurred on retry.
    recovered: Vec<u64>,
}

impl Default for Lifetimes {
    fn default() -> Lifetimes {
        Lifetimes {
            started: Instant::now(),
            lost: Duration::ZERO,
            failures: 0,
            pending: None,
            recovered: Vec::new(),
        }
    }
}

impl Lifetimes {
    /// A process failed on its `calls`-th call (counting that one); its input will be
    /// retried on a fresh process.
    pub fn failed(&mut self, calls: u64) {
        self.failures += 1;
        self.pending = Some(calls);
    }

    /// The retry of the last failure `passed`, or failed again.
    pub fn retried(&mut self, passed: bool) {
        let Some(calls) = self.pending.take() else {
            return;
        };
        if passed {
            self.recovered.push(calls);
            let excess = self.recovered.len().saturating_sub(PATTERN_PROCESSES);
            self.recovered.drain(..excess);
        } else {
            self.recovered.clear();
        }
    }

    /// Adds time that went to starting a replacement process.
    pub fn lose(&mut self, time: Duration) {
        self.lost += time;
    }

    /// Why the decoder cannot be graded, when a pattern says so.
    pub fn verdict(&self) -> Option<String> {
        self.age_pattern().or_else(|| self.time_pattern())
    }

    /// "fails after about N calls in every process".
    fn age_pattern(&self) -> Option<String> {
        if self.recovered.len() < PATTERN_PROCESSES {
            return None;
        }
        let mut sorted = self.recovered.clone();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        let spread = median * PATTERN_SPREAD_PERCENT / 100;
        // A process that fails on its first call is the probe input's business (the
        // circuit breaker), not a pattern of age.
        let alike = median >= 2
            && sorted
                .iter()
                .all(|&calls| calls.abs_diff(median) <= spread.max(1));
        alike.then(|| {
            let counts: Vec<String> = self.recovered.iter().map(u64::to_string).collect();
            format!(
                "fails after about {median} calls in every process: the last {} processes failed at call {}, and each failing input passed when retried on a fresh process",
                self.recovered.len(),
                counts.join(", ")
            )
        })
    }

    /// More than half of the time went to restarts.
    fn time_pattern(&self) -> Option<String> {
        let elapsed = self.started.elapsed();
        (self.failures >= TIME_RULE_FAILURES && self.lost * 2 > elapsed).then(|| {
            format!(
                "more than half of the check's time went to restarting it ({:.1} s of {:.1} s, {} failed processes)",
                self.lost.as_secs_f64(),
                elapsed.as_secs_f64(),
                self.failures
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_at_the_same_age_that_pass_on_retry_are_a_pattern() {
        let mut lifetimes = Lifetimes::default();
        for calls in [1001, 1001] {
            lifetimes.failed(calls);
            lifetimes.retried(true);
            assert_eq!(lifetimes.age_pattern(), None);
        }
        lifetimes.failed(998);
        lifetimes.retried(true);
        let verdict = lifetimes.age_pattern().expect("a pattern");
        assert!(
            verdict.starts_with("fails after about 1001 calls"),
            "{verdict}"
        );
        assert!(verdict.contains("1001, 1001, 998"), "{verdict}");
    }

    #[test]
    fn an_input_that_fails_again_or_scattered_ages_are_no_pattern() {
        let mut lifetimes = Lifetimes::default();
        for (calls, passed) in [(100, true), (100, true), (100, false), (100, true)] {
            lifetimes.failed(calls);
            lifetimes.retried(passed);
        }
        assert_eq!(
            lifetimes.age_pattern(),
            None,
            "the recurring failure broke the run"
        );
        let mut lifetimes = Lifetimes::default();
        for calls in [10, 400, 3000] {
            lifetimes.failed(calls);
            lifetimes.retried(true);
        }
        assert_eq!(lifetimes.age_pattern(), None, "random ages are flakiness");
    }

    #[test]
    fn time_lost_to_restarts_counts_only_after_a_few_failures() {
        let mut lifetimes = Lifetimes::default();
        lifetimes.lose(Duration::from_secs(3600));
        lifetimes.failed(5);
        lifetimes.retried(false);
        assert_eq!(lifetimes.verdict(), None);
        for calls in 7..(5 + TIME_RULE_FAILURES) {
            lifetimes.failed(calls);
            lifetimes.retried(false);
            assert_eq!(lifetimes.verdict(), None);
        }
        lifetimes.failed(99);
        let verdict = lifetimes.verdict().expect("time rule");
        assert!(verdict.starts_with("more than half"), "{verdict}");
    }
}
