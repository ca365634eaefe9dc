//! The circuit breaker of the adapter client (docs/PROTOCOL.md): counts failed inputs in
//! a row, timeouts in a row, and failures per window, and says when the adapter must be
//! tested with the probe input. The adapter client ([`super::ExternalDecoder`]) and the
//! library worker's supervisor (`NativeDecoder`, in `native/`) both use it.

use crate::outcome::{DecoderFailure, FailureKind};

/// Failed inputs in a row that make the circuit breaker test the adapter.
pub const BREAKER_FAILURES: u32 = 8;
/// Timeouts in a row that make the circuit breaker test the adapter (each costs a whole
/// answer timeout, so fewer are waited for).
pub const BREAKER_TIMEOUTS: u32 = 3;
/// Inputs per window of the circuit breaker's failure ratio.
pub const BREAKER_WINDOW: u32 = 256;

/// The circuit breaker's counts.
#[derive(Debug, Default)]
pub struct Breaker {
    failures_in_row: u32,
    timeouts_in_row: u32,
    window_inputs: u32,
    window_failures: u32,
    /// A window filled with mostly failures, on a success.
    dominated_window: bool,
    /// The last failure, for the evidence.
    last_failure: Option<String>,
}

impl Breaker {
    /// Counts an input that was answered.
    pub fn success(&mut self) {
        self.failures_in_row = 0;
        self.timeouts_in_row = 0;
        // A window that fills on a success is acted on at the next failure (none, if the
        // adapter keeps answering: then there is nothing to test).
        self.dominated_window |= self.count_in_window(false);
    }

    /// Counts a timeout that will be retried before it counts as a failure: a decoder that
    /// hangs on everything then reaches [`BREAKER_TIMEOUTS`] after two inputs, not three
    /// inputs and their retries. True when the adapter must be tested with the probe input.
    pub fn timeout_before_retry(&mut self, input: &[u8], failure: &DecoderFailure) -> bool {
        self.timeouts_in_row += 1;
        self.note(input, failure);
        self.timeouts_in_row >= BREAKER_TIMEOUTS
    }

    fn note(&mut self, input: &[u8], failure: &DecoderFailure) {
        self.last_failure = Some(format!(
            "{} on input {}: {}",
            failure.kind.as_str(),
            super::batch::shown_input(input),
            failure.message
        ));
    }

    /// Counts a failure; true when the adapter must be tested with the probe input.
    pub fn failure(&mut self, input: &[u8], failure: &DecoderFailure) -> bool {
        self.failures_in_row += 1;
        if failure.kind == FailureKind::Timeout {
            self.timeouts_in_row += 1;
        } else {
            self.timeouts_in_row = 0;
        }
        self.note(input, failure);
        let dominated = self.count_in_window(true) || std::mem::take(&mut self.dominated_window);
        self.failures_in_row >= BREAKER_FAILURES
            || self.timeouts_in_row >= BREAKER_TIMEOUTS
            || dominated
    }

    /// Counts one input; true when a window just filled with at least 75 % failures (with
    /// fewer than [`BREAKER_FAILURES`] in a row, at most 7 in 8 can fail, so a lower ratio
    /// is needed for the window to catch what the row misses).
    fn count_in_window(&mut self, failed: bool) -> bool {
        self.window_inputs += 1;
        self.window_failures += u32::from(failed);
        if self.window_inputs < BREAKER_WINDOW {
            return false;
        }
        let dominated = self.window_failures * 4 >= self.window_inputs * 3;
        self.window_inputs = 0;
        self.window_failures = 0;
        dominated
    }

    /// What tripped it, for the "adapter unusable" message.
    pub fn evidence(&self) -> String {
        if self.timeouts_in_row >= BREAKER_TIMEOUTS {
            return format!(
                "{} timeouts in a row, retries included (last: {})",
                self.timeouts_in_row,
                self.last_failure.as_deref().unwrap_or("none")
            );
        }
        format!(
            "{} failed inputs in a row (last: {})",
            self.failures_in_row,
            self.last_failure.as_deref().unwrap_or("none")
        )
    }

    /// Starts counting afresh (the probe input passed).
    pub fn reset(&mut self) {
        *self = Breaker::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(kind: FailureKind) -> DecoderFailure {
        DecoderFailure {
            kind,
            message: "x".into(),
        }
    }

    #[test]
    fn failures_in_a_row_and_timeouts_in_a_row_trip_it() {
        let mut breaker = Breaker::default();
        let trips: Vec<bool> = (0..BREAKER_FAILURES)
            .map(|_| breaker.failure(b"a", &failure(FailureKind::Crash)))
            .collect();
        assert_eq!(trips.iter().filter(|&&t| t).count(), 1);
        assert!(trips[BREAKER_FAILURES as usize - 1]);
        assert!(breaker.evidence().contains("crash on input 61"));
        breaker.reset();
        assert!(!breaker.failure(b"a", &failure(FailureKind::Timeout)));
        assert!(!breaker.failure(b"a", &failure(FailureKind::Timeout)));
        assert!(breaker.failure(b"a", &failure(FailureKind::Timeout)));
    }

    #[test]
    fn a_window_dominated_by_failures_trips_it_without_a_long_row() {
        let mut breaker = Breaker::default();
        let mut tripped_at = None;
        for index in 0..BREAKER_WINDOW {
            // Two failures, then one success: 66.7 % failed.
            let tripped = if index % 3 == 2 {
                breaker.success();
                false
            } else {
                breaker.failure(b"a", &failure(FailureKind::Protocol))
            };
            if tripped {
                tripped_at.get_or_insert(index);
            }
        }
        assert_eq!(tripped_at, None, "66.7 % is below the 75 % rule");
        let mut breaker = Breaker::default();
        let mut tripped_at = None;
        for index in 0..BREAKER_WINDOW {
            // Every fourth input succeeds: 75 % failed, never 8 in a row.
            let tripped = if index % 4 == 3 {
                breaker.success();
                false
            } else {
                breaker.failure(b"a", &failure(FailureKind::Protocol))
            };
            if tripped {
                tripped_at.get_or_insert(index);
            }
        }
        // The window fills on a success (input 255); the next failure trips it.
        assert_eq!(tripped_at, None);
        assert!(breaker.failure(b"a", &failure(FailureKind::Protocol)));
    }
}
