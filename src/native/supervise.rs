//! The supervisor's loop for a library worker: batches out, answers in, and the retry,
//! restart, circuit-breaker and pattern rules of the module header ([`super`]), the same
//! as the adapter client's (docs/PROTOCOL.md, "What the harness guarantees").

use std::time::Instant;

use super::process::{Death, Ending};
use super::{start_worker, NativeDecoder, State};
use crate::adapter::{interrupt, probe_frame, shown_input, Stop};
use crate::hex::format_hex;
use crate::outcome::{Answer, DecoderFailure, FailureKind};

/// Restarts that fail one after the other before the library is declared unusable.
const MAX_CONSECUTIVE_FAILED_RESTARTS: usize = 3;

type Answers = Vec<Answer>;

/// Why the harness must stop now, if it must: a signal, or the deadline passed.
fn stop_now(deadline: Option<Instant>) -> Option<Stop> {
    if interrupt::requested() {
        Some(Stop::Interrupted)
    } else if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
        Some(Stop::OutOfTime)
    } else {
        None
    }
}

impl NativeDecoder {
    pub(super) fn supervise(
        &self,
        state: &mut State,
        inputs: &[&[u8]],
        answers: &mut Answers,
    ) -> Result<(), Stop> {
        // The input whose crash or timeout is being retried, with that failure.
        let mut retrying: Option<(usize, DecoderFailure)> = None;
        while answers.len() < inputs.len() {
            if let Some(stop) = stop_now(state.deadline) {
                return Err(stop);
            }
            let first = answers.len();
            if let Some(failure) = state.standing.get(inputs[first]) {
                answers.push(Err(failure.clone()));
                continue;
            }
            self.ensure_worker(state)?;
            let single = state.one_at_a_time || retrying.is_some();
            let end = match state
                .standing
                .first_in(inputs[first..].iter().map(|input| Some(*input)))
            {
                _ if single => first + 1,
                Some(known) => first + known,
                None => inputs.len(),
            };
            let pending = &inputs[first..end];
            let deadline = state.deadline;
            let stop = move || stop_now(deadline);
            let worker = state.worker.as_mut().expect("started above");
            let timeout = self.config.answer_timeout;
            let (got, ending) =
                match worker.run_batch(pending, &self.name, &mut state.request, timeout, &stop) {
                    Ok(got) => (got, None),
                    Err(interrupted) => (interrupted.answers, Some(interrupted.ending)),
                };
            for answer in got {
                let index = answers.len();
                state.calls += 1;
                if let Some((at, failure)) = retrying.take() {
                    debug_assert_eq!(at, index);
                    state.one_at_a_time = false;
                    note_flaky(state, inputs[index], &failure);
                    state.lifetimes.retried(true);
                    if let Some(stop) = pattern(state) {
                        return Err(stop);
                    }
                }
                match answer {
                    Ok(outcome) => {
                        state.statistics.answers += 1;
                        state.breaker.success();
                        answers.push(Ok(outcome));
                    }
                    Err(failure) => self.failed(state, inputs[index], failure, answers)?,
                }
            }
            if let Some(ending) = ending {
                self.worker_ended(state, inputs, pending.len(), &mut retrying, ending, answers)?;
            }
        }
        Ok(())
    }

    /// Takes the end of the worker that ran a batch of `batch` inputs: a stop, or a death
    /// that is retried, sends the rest one at a time, or stands as the failure of its input.
    fn worker_ended(
        &self,
        state: &mut State,
        inputs: &[&[u8]],
        batch: usize,
        retrying: &mut Option<(usize, DecoderFailure)>,
        ending: Ending,
        answers: &mut Answers,
    ) -> Result<(), Stop> {
        if let Some(mut worker) = state.worker.take() {
            worker.kill();
        }
        let Death { failure, memory } = match ending {
            Ending::Stopped(stop) => return Err(stop),
            Ending::Failed(death) => death,
        };
        if memory {
            state.statistics.memory_kills += 1;
            state
                .statistics
                .first_memory_kill
                .get_or_insert_with(|| failure.message.clone());
        }
        let index = answers.len();
        // A crash or a broken stream in a batch cannot be pinned on an input (answers
        // not yet passed on died with the worker); a timeout can: every answer before
        // the hanging call was passed on.
        if batch > 1 && failure.kind != FailureKind::Timeout {
            state.one_at_a_time = true;
            return Ok(());
        }
        let retried = matches!(failure.kind, FailureKind::Crash | FailureKind::Timeout);
        if retried && retrying.is_none() {
            state.lifetimes.failed(state.calls + 1);
            let test = failure.kind == FailureKind::Timeout
                && state.breaker.timeout_before_retry(inputs[index], &failure);
            *retrying = Some((index, failure));
            if test {
                self.probe(state)?;
            }
            if let Some(stop) = pattern(state) {
                return Err(stop);
            }
            return Ok(());
        }
        if retrying.take().is_some() {
            state.lifetimes.retried(false);
        }
        // The failure is pinned on its input: batches resume. Should the library
        // fail by its age, the next crash in a batch goes one at a time again, and
        // the worker's age at that crash is again exact.
        state.one_at_a_time = false;
        self.failed(state, inputs[index], failure, answers)
    }

    /// Files a failure that stands (it recurred on retry, or is not retried), and tests
    /// the worker when the circuit breaker says so.
    fn failed(
        &self,
        state: &mut State,
        input: &[u8],
        failure: DecoderFailure,
        answers: &mut Answers,
    ) -> Result<(), Stop> {
        state.statistics.failures += 1;
        state.standing.remember(input, &failure);
        let test = state.breaker.failure(input, &failure);
        answers.push(Err(failure));
        if test {
            self.probe(state)?;
        }
        Ok(())
    }

    /// Starts a worker if none runs, retrying a few times.
    fn ensure_worker(&self, state: &mut State) -> Result<(), Stop> {
        let mut failed = 0;
        while state.worker.is_none() {
            if let Some(stop) = stop_now(state.deadline) {
                return Err(stop);
            }
            let started = Instant::now();
            let result = start_worker(&self.config);
            state.lifetimes.lose(started.elapsed());
            match result {
                Ok((worker, _)) => {
                    state.worker = Some(worker);
                    state.calls = 0;
                    state.statistics.restarts += 1;
                }
                Err(error) => {
                    failed += 1;
                    if failed >= MAX_CONSECUTIVE_FAILED_RESTARTS {
                        return Err(Stop::Unusable(format!(
                            "the library worker could not be restarted ({failed} attempts): {error}"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// The circuit breaker's test: a fresh worker decodes [`PROBE_INPUT`](crate::adapter::PROBE_INPUT) (an encoder encodes it). Unusable when it
    /// fails; otherwise the failures are the inputs' doing and the counts restart.
    fn probe(&self, state: &mut State) -> Result<(), Stop> {
        let evidence = state.breaker.evidence();
        if let Some(mut worker) = state.worker.take() {
            worker.kill();
        }
        self.ensure_worker(state)?;
        let deadline = state.deadline;
        let stop = move || stop_now(deadline);
        let worker = state.worker.as_mut().expect("started above");
        let timeout = self.config.answer_timeout;
        let probe = probe_frame(self.config.encode);
        let failure =
            match worker.run_batch(&[&probe], &self.name, &mut state.request, timeout, &stop) {
                Ok(mut got) => match got.pop() {
                    Some(Ok(_)) => {
                        state.calls += 1;
                        state.breaker.reset();
                        return Ok(());
                    }
                    Some(Err(failure)) => failure,
                    None => unreachable!("one answer per input"),
                },
                Err(interrupted) => match interrupted.ending {
                    Ending::Stopped(stop) => return Err(stop),
                    Ending::Failed(death) => death.failure,
                },
            };
        if let Some(mut worker) = state.worker.take() {
            worker.kill();
        }
        Err(Stop::Unusable(format!(
            "{evidence}; it also fails on the ASCII input {} that every decoder decodes and every encoder encodes ({}: {})",
            format_hex(&probe),
            failure.kind.as_str(),
            failure.message
        )))
    }
}

/// The library is unusable when its failures form a pattern; the memory deaths, if any,
/// are part of the evidence.
fn pattern(state: &State) -> Option<Stop> {
    let reason = state.lifetimes.verdict()?;
    let statistics = &state.statistics;
    Some(Stop::Unusable(match &statistics.first_memory_kill {
        Some(first) => format!(
            "{reason}; {} of {} workers died at the memory limit (first: {first})",
            statistics.memory_kills,
            statistics.restarts + 1
        ),
        None => reason,
    }))
}

/// Counts a failure that did not recur on retry.
fn note_flaky(state: &mut State, input: &[u8], failure: &DecoderFailure) {
    if failure.kind == FailureKind::Timeout {
        state.statistics.flaky_timeouts += 1;
    } else {
        state.statistics.flaky_crashes += 1;
    }
    state
        .statistics
        .first_flaky_crash
        .get_or_insert_with(|| format!("input {}: {}", shown_input(input), failure.message));
}
