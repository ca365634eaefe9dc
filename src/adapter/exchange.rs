//! The exchange with an adapter process: frames out, answers in, one deadline per answer,
//! with the pairing, retry, restart and circuit-breaker rules of the module header
//! ([`super`]). [`ExternalDecoder`]'s public batch methods call [`ExternalDecoder::exchange`].

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::answer::{excerpt, parse_answer, parse_encode_answer, ParsedAnswer};
use super::batch::{shown_input, BatchAnswers, Request, Stop};
use super::config::seconds;
use super::interrupt;
use super::process::{self, NextLine};
use super::start::{start_process, stderr_suffix};
use super::{
    ExternalDecoder, State, FIRST_BATCH_GRACE, MAX_CONSECUTIVE_FAILED_RESTARTS, PROBE_INPUT,
};
use crate::decoders::Capabilities;
use crate::encoders::Form;
use crate::hex::format_hex;
use crate::outcome::{DecoderFailure, FailureKind, Outcome};

impl ExternalDecoder {
    pub(super) fn exchange(&self, requests: &[Request]) -> BatchAnswers<ParsedAnswer> {
        let mut state = self.lock();
        let mut answers = Vec::with_capacity(requests.len());
        let stopped = self.decode_into(&mut state, requests, &mut answers).err();
        BatchAnswers { answers, stopped }
    }

    fn decode_into(
        &self,
        state: &mut State,
        inputs: &[Request],
        answers: &mut Vec<Result<ParsedAnswer, DecoderFailure>>,
    ) -> Result<(), Stop> {
        // The input whose crash or timeout is being retried, with that failure.
        let mut retrying: Option<(usize, DecoderFailure)> = None;
        while answers.len() < inputs.len() {
            self.check_limits(state)?;
            let first = answers.len();
            let remembered = inputs[first].whole().and_then(|i| state.standing.get(i));
            if let Some(failure) = remembered {
                answers.push(Err(failure.clone()));
                self.settled.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            self.ensure_process(state)?;
            let end = match state
                .standing
                .first_in(inputs[first..].iter().map(Request::whole))
            {
                Some(known) => first + known,
                None => inputs.len(),
            };
            let pending = &inputs[first..end];
            let process = state.process.as_ref().expect("started above");
            if let Some(line) = process.waiting_line(Duration::ZERO) {
                return Err(out_of_step(&line, "before any input was sent to it"));
            }
            let new_process = state.frames_to_process == 0;
            for input in pending {
                input.send(process);
            }
            state.statistics.frames += pending.len() as u64;
            let mut failed = false;
            for (offset, input) in pending.iter().enumerate() {
                let index = first + offset;
                match self.read_answer(state, input)? {
                    Ok(outcome) => self.answered(state, &mut retrying, input, outcome, answers)?,
                    Err(failure) => {
                        failed = true;
                        self.failed_on(state, &mut retrying, (index, input), failure, answers)?;
                        break;
                    }
                }
            }
            if !failed {
                let grace = if new_process {
                    FIRST_BATCH_GRACE
                } else {
                    Duration::ZERO
                };
                if let Some(line) = state.process.as_ref().and_then(|p| p.waiting_line(grace)) {
                    // These answers cannot be matched to their inputs: drop them.
                    answers.truncate(first);
                    return Err(out_of_step(&line, "after answering every input sent"));
                }
            }
        }
        Ok(())
    }

    /// Takes the decoder's answer to `input`: a retried input that now answers was a flaky
    /// failure.
    fn answered(
        &self,
        state: &mut State,
        retrying: &mut Option<(usize, DecoderFailure)>,
        input: &Request,
        outcome: ParsedAnswer,
        answers: &mut Vec<Result<ParsedAnswer, DecoderFailure>>,
    ) -> Result<(), Stop> {
        if let Some((_, failure)) = retrying.take() {
            note_flaky(&mut state.statistics, &input.bytes(), &failure);
            state.lifetimes.retried(true);
            if let Some(reason) = state.lifetimes.verdict() {
                return Err(Stop::Unusable(reason));
            }
        }
        note_capabilities(&mut state.capabilities, &outcome.outcome);
        state.statistics.answers += 1;
        state.breaker.success();
        answers.push(Ok(outcome));
        self.settled.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Takes a failure on input `index`: the process is gone; a first crash or timeout is
    /// retried (the input is sent again to a new process), while a failure that recurs, or
    /// of another kind, stands and is remembered with its input.
    fn failed_on(
        &self,
        state: &mut State,
        retrying: &mut Option<(usize, DecoderFailure)>,
        (index, input): (usize, &Request),
        failure: DecoderFailure,
        answers: &mut Vec<Result<ParsedAnswer, DecoderFailure>>,
    ) -> Result<(), Stop> {
        if let Some(mut process) = state.process.take() {
            process.kill();
        }
        let retried = matches!(failure.kind, FailureKind::Crash | FailureKind::Timeout);
        let first_failure = retried && retrying.as_ref().is_none_or(|(at, _)| *at != index);
        if first_failure {
            state.lifetimes.failed(state.frames_to_process);
            let test_adapter = failure.kind == FailureKind::Timeout
                && state.breaker.timeout_before_retry(&input.bytes(), &failure);
            *retrying = Some((index, failure));
            if test_adapter {
                self.probe(state)?;
            }
            if let Some(reason) = state.lifetimes.verdict() {
                return Err(Stop::Unusable(reason));
            }
            return Ok(());
        }
        if retrying.take().is_some() {
            state.lifetimes.retried(false);
        }
        state.statistics.failures += 1;
        if let Some(whole) = input.whole() {
            state.standing.remember(whole, &failure);
        }
        self.failed.fetch_add(1, Ordering::Relaxed);
        let test_adapter = state.breaker.failure(&input.bytes(), &failure);
        answers.push(Err(failure));
        self.settled.fetch_add(1, Ordering::Relaxed);
        if test_adapter {
            self.probe(state)?;
        }
        Ok(())
    }

    fn check_limits(&self, state: &State) -> Result<(), Stop> {
        if interrupt::requested() {
            return Err(Stop::Interrupted);
        }
        if state
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(Stop::OutOfTime);
        }
        Ok(())
    }

    fn ensure_process(&self, state: &mut State) -> Result<(), Stop> {
        let mut failed_restarts = 0;
        while state.process.is_none() {
            self.check_limits(state)?;
            let started = Instant::now();
            let result = start_process(&self.config);
            state.lifetimes.lose(started.elapsed());
            match result {
                Ok((process, _)) => {
                    state.process = Some(process);
                    state.frames_to_process = 0;
                    state.statistics.restarts += 1;
                    self.restarts.fetch_add(1, Ordering::Relaxed);
                }
                Err(error) => {
                    failed_restarts += 1;
                    if failed_restarts >= MAX_CONSECUTIVE_FAILED_RESTARTS {
                        return Err(Stop::Unusable(format!(
                            "could not be restarted ({failed_restarts} attempts): {error}"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// The circuit breaker's test: a fresh process decodes [`PROBE_INPUT`] (an encoder
    /// encodes it, [`probe_frame`]). Unusable when it fails; otherwise the failures are
    /// the inputs' doing and the counts restart.
    fn probe(&self, state: &mut State) -> Result<(), Stop> {
        let evidence = state.breaker.evidence();
        self.ensure_process(state)?;
        let process = state.process.as_ref().expect("started above");
        if let Some(line) = process.waiting_line(Duration::ZERO) {
            return Err(out_of_step(&line, "before any input was sent to it"));
        }
        let probe = probe_frame(self.hello.encode);
        let request = Request::Whole(&probe);
        request.send(process);
        match self.read_answer(state, &request)? {
            Ok(_) => {
                state.breaker.reset();
                Ok(())
            }
            Err(failure) => {
                if let Some(mut process) = state.process.take() {
                    process.kill();
                }
                Err(Stop::Unusable(format!(
                    "{evidence}; it also fails on the ASCII input {} that every decoder decodes and every encoder encodes ({}: {})",
                    format_hex(&probe),
                    failure.kind.as_str(),
                    failure.message
                )))
            }
        }
    }

    /// Reads and parses the next answer; every way of not getting one is a failure. Stops
    /// on a signal, at the deadline, and when a protocol 2 `seq` is not the frame's.
    /// In streaming mode the answer to a chunked `request` must have one `emitted` list per
    /// chunk; in encode mode, an `error_at` must name one of the frame's code units.
    fn read_answer(
        &self,
        state: &mut State,
        request: &Request,
    ) -> Result<Result<ParsedAnswer, DecoderFailure>, Stop> {
        let chunks = request.chunk_count();
        let timeout = self.config.answer_timeout;
        let mut deadline = Instant::now() + timeout;
        let whole_check = state.deadline;
        if let Some(limit) = whole_check {
            deadline = deadline.min(limit);
        }
        let expected_seq = state.frames_to_process;
        state.frames_to_process += 1;
        let process = state.process.as_mut().expect("started by the caller");
        let failure = |kind, message| Ok(Err(DecoderFailure { kind, message }));
        match process.next_line(deadline) {
            NextLine::Line(line) => match self.parse(&line, request) {
                Ok(answer) => match (self.hello.protocol, answer.seq) {
                    (_, Some(seq)) if seq == expected_seq => match (chunks, &answer.stream) {
                        (None, _) => Ok(Ok(answer)),
                        (Some(sent), Some(stream)) if stream.emitted.len() == sent => {
                            Ok(Ok(answer))
                        }
                        (Some(sent), Some(stream)) => failure(
                            FailureKind::Protocol,
                            format!(
                                "malformed answer: {} \"emitted\" lists for {sent} chunks",
                                stream.emitted.len()
                            ),
                        ),
                        (Some(_), None) => failure(
                            FailureKind::Protocol,
                            "malformed answer: an input sent as chunks answered without \"emitted\" and \"flush\"".into(),
                        ),
                    },
                    (1, _) => Ok(Ok(answer)),
                    (_, Some(seq)) => Err(Stop::Unusable(format!(
                        "out of step: answer with seq {seq} where frame {expected_seq} was due ({})",
                        excerpt(&line)
                    ))),
                    (_, None) => failure(
                        FailureKind::Protocol,
                        "malformed answer: protocol 2 answer without \"seq\"".into(),
                    ),
                },
                Err(reason) => failure(
                    FailureKind::Protocol,
                    format!("malformed answer: {reason}"),
                ),
            },
            NextLine::TooLong => failure(
                FailureKind::Protocol,
                format!("answer line longer than {} bytes", process::MAX_LINE_BYTES),
            ),
            NextLine::Ended => {
                let status = process.exit_status(Duration::from_millis(500)).map_or_else(
                    || "closed its stdout".to_string(),
                    |s| format!("exited ({s})"),
                );
                failure(
                    FailureKind::Crash,
                    format!(
                        "adapter {status} without answering{}",
                        stderr_suffix(process)
                    ),
                )
            }
            NextLine::TimedOut if whole_check.is_some_and(|limit| Instant::now() >= limit) => {
                Err(Stop::OutOfTime)
            }
            NextLine::TimedOut => {
                failure(
                FailureKind::Timeout,
                format!("no answer within {}", seconds(timeout)),
            )},
            NextLine::Interrupted => Err(Stop::Interrupted),
        }
    }
}

/// The most octets an encoder may write for one code unit (see [`ExternalDecoder::parse`]).
const MAX_OCTETS_PER_UNIT: usize = 7;

impl ExternalDecoder {
    /// Parses an answer line as the hello's mode says: a decoder's, or an encoder's whose
    /// `error_at` must be below the number of code units in the frame.
    fn parse(&self, line: &[u8], request: &Request) -> Result<ParsedAnswer, String> {
        let Some(form) = self.hello.encode else {
            return parse_answer(&self.name, line);
        };
        let answer = parse_encode_answer(&self.name, line)?;
        let elements = request.bytes().len() / form.unit_bytes();
        // No encoding of a code unit takes more than seven octets (RFC 2279's six, and
        // the `FE` form with which Perl writes a u32 from 0x80000000 up): more bytes are
        // not an encoding of the input, and are not kept (a batch of answers each near
        // the line limit would otherwise hold gigabytes).
        let written = answer.outcome.scalars.as_ref().map_or(0, Vec::len);
        match answer.outcome.valid_up_to {
            Some(at) if at >= elements => Err(format!(
                "\"error_at\": {at} is not one of the frame's {elements} code units"
            )),
            _ if written > MAX_OCTETS_PER_UNIT * elements => Err(format!(
                "{written} bytes for {elements} code units (at most {MAX_OCTETS_PER_UNIT} each)"
            )),
            _ => Ok(answer),
        }
    }
}

/// The circuit breaker's probe frame: [`PROBE_INPUT`] for a decoder, and the same text as
/// code units of the form an encoder takes.
pub(crate) fn probe_frame(encode: Option<Form>) -> Vec<u8> {
    match encode {
        None => PROBE_INPUT.to_vec(),
        Some(form) => {
            let units: Vec<u32> = PROBE_INPUT.iter().map(|&b| u32::from(b)).collect();
            form.frame(&units)
        }
    }
}

/// The stop for an adapter that wrote a line nobody asked for.
fn out_of_step(line: &NextLine, when: &str) -> Stop {
    let shown = match line {
        NextLine::Line(line) => excerpt(line),
        _ => "(a line over the size limit)".into(),
    };
    Stop::Unusable(format!(
        "out of step: it wrote an answer line nobody asked for, {when}: {shown}; its answers can no longer be matched to inputs"
    ))
}

/// Counts a failure that did not recur on retry.
fn note_flaky(statistics: &mut super::ProcessStatistics, input: &[u8], failure: &DecoderFailure) {
    if failure.kind == FailureKind::Timeout {
        statistics.flaky_timeouts += 1;
    } else {
        statistics.flaky_crashes += 1;
    }
    statistics
        .first_flaky_crash
        .get_or_insert_with(|| format!("input {}: {}", shown_input(input), failure.message));
}

fn note_capabilities(capabilities: &mut Capabilities, outcome: &Outcome) {
    capabilities.valid_up_to |= outcome.valid_up_to.is_some();
    capabilities.error_len |= outcome.error_len.is_some();
    capabilities.scalars |= outcome.scalars.is_some();
    capabilities.errors |= outcome.errors.is_some();
}
