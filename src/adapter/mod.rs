//! The external decoder protocol, harness side: any program in any language becomes a
//! [`Decoder`]. The full rules are in `docs/PROTOCOL.md`; in short (docs/PROTOCOL.md,
//! version 1):
//!
//! > An adapter is any program. The harness starts it once (argv, no shell) and keeps it.
//! > 1. The adapter first prints one JSON line: `{"protocol": "utf8conf/1", "name": "...",
//! >    "version": "..."}`.
//! > 2. For each input the harness writes a 4-byte little-endian length N, then N raw bytes.
//! > 3. The adapter answers with exactly one JSON line holding `valid` (required) and, where
//! >    it can, `valid_up_to`, `error_len`, `scalars`, and `error` (free text).
//! > 4. End of stdin: the adapter exits 0.
//! >
//! > A crash, a malformed line or no answer within the timeout is itself a finding
//! > (`crash`, `protocol`, `timeout`); the harness restarts the adapter and goes on.
//!
//! Version 2 (`"protocol": "utf8conf/2"` in the hello) adds `seq` to every answer.
//!
//! [`ExternalDecoder`] keeps one [`process::AdapterProcess`] behind a mutex. Inputs are
//! pipelined ([`ExternalDecoder::decode_batch`]): all frames of a batch are queued to a
//! writer thread, then the answers are read one by one, each with its own deadline. Since
//! an adapter answers its frames in order, a missing answer belongs to the first input
//! without one: that input gets the [`DecoderFailure`], the adapter is killed and started
//! again, and the rest of the batch is sent to the new process.
//!
//! A hostile or broken adapter must never hang, mislead or exhaust the harness (issue 10),
//! so on top of that:
//!
//! - **Pairing.** An answer is only taken when one was asked for: a line waiting before a
//!   batch is sent, or left over after its last answer, or after the end of input, means
//!   the adapter is out of step, and the adapter is declared unusable (its answers can no
//!   longer be matched to inputs). In protocol 2, every answer's `seq` must be the index
//!   of the frame it answers.
//! - **Retry.** A crash is retried once on a fresh process: if the retry answers, the
//!   crash did not depend on the input, and it is counted as *flaky*, not as a finding.
//! - **Circuit breaker.** After [`BREAKER_FAILURES`] failed inputs in a row (or
//!   [`BREAKER_TIMEOUTS`] timeouts in a row), or when failures are at least 75 % of a
//!   window of [`BREAKER_WINDOW`] inputs, a fresh process is asked to decode the ASCII
//!   input `61`, which every decoder decodes. If it fails that too, the adapter is
//!   unusable and the check stops, with the evidence; if not, the failures depend on the
//!   inputs and are findings.
//! - **Bounds.** A deadline for the whole check ([`ExternalDecoder::set_deadline`]), a
//!   stop on SIGINT/SIGTERM ([`interrupt`]), bounded answer lines and a bounded queue
//!   ([`process`]).
//!
//! Failing to *start* is different: a program that is missing, not executable, exits
//! before its hello, or does not say a valid hello within the start-up time limit is an
//! [`AdapterError`], which the command line reports as one line with exit status 2.
//!
//! What the adapter can report is learned from what it actually returns: the
//! [`Capabilities`] are the fields seen in its answers so far.

pub mod answer;
mod breaker;
pub mod command;
pub mod interrupt;
pub mod list;
pub mod process;
pub mod selftest;
mod start;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::decoders::{Capabilities, Decoder, DecoderFailure, FailureKind};
use crate::hex::format_hex;
use crate::outcome::Outcome;
use answer::{excerpt, parse_answer, Answer, Hello, StreamAnswer};
use breaker::Breaker;
use process::{AdapterProcess, NextLine};
use start::{start_process, stderr_suffix};

/// Default time limit for one answer.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// Default time limit for the hello line after start.
pub const DEFAULT_HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest time limit accepted for an answer, a hello or a whole check: one day.
pub const MAX_TIME_LIMIT: Duration = Duration::from_secs(86_400);
/// Restarts that fail one after the other before the run is abandoned.
const MAX_CONSECUTIVE_FAILED_RESTARTS: usize = 3;
pub use breaker::{BREAKER_FAILURES, BREAKER_TIMEOUTS, BREAKER_WINDOW};
/// How long the harness waits for a stray line after the first batch a new adapter
/// process answered: an adapter that answers twice, or before being asked, shows it then.
const FIRST_BATCH_GRACE: Duration = Duration::from_millis(20);
/// The input every decoder decodes: U+0061, one ASCII byte.
pub const PROBE_INPUT: &[u8] = b"a";

/// How to run an adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterConfig {
    /// The program and its arguments (split with [`command::split_command_line`]).
    pub argv: Vec<String>,
    /// The name to report under; the hello's name when `None`.
    pub name: Option<String>,
    /// Time limit for each answer.
    pub answer_timeout: Duration,
    /// Time limit for the hello line, at start and at every restart.
    pub hello_timeout: Duration,
}

impl AdapterConfig {
    /// A configuration with the default time limits.
    pub fn new(argv: Vec<String>) -> AdapterConfig {
        AdapterConfig {
            argv,
            name: None,
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            hello_timeout: DEFAULT_HELLO_TIMEOUT,
        }
    }
}

/// An adapter could not be started (or restarted): the check cannot go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterError(pub String);

impl std::fmt::Display for AdapterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AdapterError {}

/// Why a batch stopped before every input was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The adapter cannot be used (out of step, fails even the probe input, cannot be
    /// restarted): the message says what is wrong, with the evidence.
    Unusable(String),
    /// SIGINT or SIGTERM.
    Interrupted,
    /// The deadline for the whole check passed.
    OutOfTime,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Unusable(reason) => write!(f, "adapter unusable: {reason}"),
            Stop::Interrupted => f.write_str("interrupted"),
            Stop::OutOfTime => f.write_str("time limit for the whole check (--max-time) reached"),
        }
    }
}

/// The answers to a batch: one per input, in order, for a prefix of the inputs (all of
/// them unless `stopped`). `T` is an [`Outcome`], or in streaming mode a
/// [`StreamedOutcome`].
#[derive(Debug, Clone)]
pub struct BatchAnswers<T = Outcome> {
    /// The answers, for the first `answers.len()` inputs.
    pub answers: Vec<Result<T, DecoderFailure>>,
    /// Why the batch stopped early.
    pub stopped: Option<Stop>,
}

/// The answer to one input fed in chunks: the outcome, and what was emitted when.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamedOutcome {
    /// `valid` and the other one-shot fields; `scalars` is everything emitted.
    pub outcome: Outcome,
    /// The scalars emitted after each chunk and by the flush.
    pub stream: StreamAnswer,
}

/// One request to an adapter: a whole input as one frame, or (streaming mode) an input
/// as chunk frames and the end mark.
#[derive(Debug, Clone, Copy)]
enum Request<'a> {
    Whole(&'a [u8]),
    Chunked(&'a [&'a [u8]]),
}

impl Request<'_> {
    fn send(&self, process: &AdapterProcess) {
        match self {
            Request::Whole(input) => process.send_frame(input),
            Request::Chunked(chunks) => process.send_chunked(chunks),
        }
    }

    /// The input's bytes, for messages and the circuit breaker's evidence.
    fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Request::Whole(input) => std::borrow::Cow::Borrowed(input),
            Request::Chunked(chunks) => std::borrow::Cow::Owned(chunks.concat()),
        }
    }

    /// How many chunks the answer must account for (`None` for a whole input).
    fn chunk_count(&self) -> Option<usize> {
        match self {
            Request::Whole(_) => None,
            Request::Chunked(chunks) => Some(chunks.len()),
        }
    }
}

impl<T> BatchAnswers<T> {
    /// Every answer, or why not all were given.
    pub fn complete(self) -> Result<Vec<Result<T, DecoderFailure>>, Stop> {
        match self.stopped {
            None => Ok(self.answers),
            Some(stop) => Err(stop),
        }
    }
}

/// Counts of what happened to the adapter process during a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessStatistics {
    /// Frames sent.
    pub frames: u64,
    /// Answers received and parsed.
    pub answers: u64,
    /// Inputs that got a failure (crash, timeout, protocol).
    pub failures: u64,
    /// Restarts after a failure.
    pub restarts: u64,
    /// Crashes that did not happen again when the same input was sent to a fresh process.
    pub flaky_crashes: u64,
    /// The first flaky crash: input hex and the crash message.
    pub first_flaky_crash: Option<String>,
}

struct State {
    process: Option<AdapterProcess>,
    /// Frames sent to the current process (protocol 2's next `seq`).
    frames_to_process: u64,
    capabilities: Capabilities,
    statistics: ProcessStatistics,
    breaker: Breaker,
    deadline: Option<Instant>,
}

/// A decoder behind the adapter protocol.
pub struct ExternalDecoder {
    config: AdapterConfig,
    name: String,
    hello: Hello,
    description: String,
    /// Inputs answered or failed so far, readable while a batch runs (for progress).
    settled: AtomicU64,
    /// Failed inputs and restarts so far, readable while a batch runs.
    failed: AtomicU64,
    restarts: AtomicU64,
    state: Mutex<State>,
}

impl ExternalDecoder {
    /// Starts the adapter and reads its hello. Fails with a one-line reason when the
    /// program is missing, not executable, or says no valid hello in time.
    pub fn start(config: AdapterConfig) -> Result<ExternalDecoder, AdapterError> {
        if config.argv.is_empty() {
            return Err(AdapterError("empty adapter command".into()));
        }
        let (process, hello) = start_process(&config)?;
        let name = config.name.clone().unwrap_or_else(|| hello.name.clone());
        let description = format!("external adapter: {}", config.argv.join(" "));
        Ok(ExternalDecoder {
            name,
            hello,
            description,
            settled: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            restarts: AtomicU64::new(0),
            state: Mutex::new(State {
                process: Some(process),
                frames_to_process: 0,
                capabilities: Capabilities::default(),
                statistics: ProcessStatistics::default(),
                breaker: Breaker::default(),
                deadline: None,
            }),
            config,
        })
    }

    /// The hello line's contents.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// The command the adapter runs.
    pub fn argv(&self) -> &[String] {
        &self.config.argv
    }

    /// Frames, answers, failures and restarts so far.
    pub fn statistics(&self) -> ProcessStatistics {
        self.lock().statistics.clone()
    }

    /// Inputs answered or failed so far; does not wait for a running batch.
    pub fn settled(&self) -> u64 {
        self.settled.load(Ordering::Relaxed)
    }

    /// Failed inputs and restarts so far; does not wait for a running batch.
    pub fn statistics_snapshot(&self) -> (u64, u64) {
        (
            self.failed.load(Ordering::Relaxed),
            self.restarts.load(Ordering::Relaxed),
        )
    }

    /// Sets the time after which batches stop with [`Stop::OutOfTime`].
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        self.lock().deadline = deadline;
    }

    /// Decodes many inputs, pipelined. One result per input, in order; a crash, timeout or
    /// malformed answer is that input's [`DecoderFailure`], after which the adapter is
    /// restarted (a crash is retried once first). Stops early, keeping the answers so
    /// far, when the adapter is unusable, on a signal, or at the deadline.
    pub fn decode_batch(&self, inputs: &[&[u8]]) -> BatchAnswers {
        let requests: Vec<Request> = inputs.iter().map(|input| Request::Whole(input)).collect();
        let batch = self.answer_requests(&requests);
        BatchAnswers {
            answers: batch
                .answers
                .into_iter()
                .map(|answer| answer.map(|answer| answer.outcome))
                .collect(),
            stopped: batch.stopped,
        }
    }

    /// True when the adapter's hello negotiated streaming mode.
    pub fn streams(&self) -> bool {
        self.hello.streaming
    }

    /// Streaming mode: decodes each input fed as its chunks (one list of chunks per
    /// input), pipelined, with every guarantee of [`ExternalDecoder::decode_batch`]. An
    /// answer without one `emitted` list per chunk is a `protocol` failure. Only for an
    /// adapter whose hello said `"streaming": true` ([`ExternalDecoder::streams`]).
    pub fn decode_streams(&self, inputs: &[Vec<&[u8]>]) -> BatchAnswers<StreamedOutcome> {
        assert!(
            self.streams(),
            "streaming requests need a streaming adapter"
        );
        let requests: Vec<Request> = inputs
            .iter()
            .map(|chunks| Request::Chunked(chunks))
            .collect();
        let batch = self.answer_requests(&requests);
        BatchAnswers {
            answers: batch
                .answers
                .into_iter()
                .map(|answer| {
                    answer.map(|answer| StreamedOutcome {
                        outcome: answer.outcome,
                        stream: answer.stream.expect("checked by read_answer"),
                    })
                })
                .collect(),
            stopped: batch.stopped,
        }
    }

    fn answer_requests(&self, requests: &[Request]) -> BatchAnswers<Answer> {
        let mut state = self.lock();
        let mut answers = Vec::with_capacity(requests.len());
        let stopped = self.decode_into(&mut state, requests, &mut answers).err();
        BatchAnswers { answers, stopped }
    }

    fn decode_into(
        &self,
        state: &mut State,
        inputs: &[Request],
        answers: &mut Vec<Result<Answer, DecoderFailure>>,
    ) -> Result<(), Stop> {
        // The input whose crash is being retried, with that crash.
        let mut retrying: Option<(usize, DecoderFailure)> = None;
        while answers.len() < inputs.len() {
            self.check_limits(state)?;
            self.ensure_process(state)?;
            let first = answers.len();
            let pending = &inputs[first..];
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
                match self.read_answer(state, input.chunk_count())? {
                    Ok(outcome) => {
                        if let Some((_, crash)) = retrying.take() {
                            state.statistics.flaky_crashes += 1;
                            state.statistics.first_flaky_crash.get_or_insert_with(|| {
                                format!("input {}: {}", shown_input(&input.bytes()), crash.message)
                            });
                        }
                        note_capabilities(&mut state.capabilities, &outcome.outcome);
                        state.statistics.answers += 1;
                        state.breaker.success();
                        answers.push(Ok(outcome));
                        self.settled.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(failure) => {
                        failed = true;
                        if let Some(mut process) = state.process.take() {
                            process.kill();
                        }
                        let first_crash = failure.kind == FailureKind::Crash
                            && retrying.as_ref().is_none_or(|(at, _)| *at != index);
                        if first_crash {
                            retrying = Some((index, failure));
                            break;
                        }
                        retrying = None;
                        state.statistics.failures += 1;
                        self.failed.fetch_add(1, Ordering::Relaxed);
                        let test_adapter = state.breaker.failure(&input.bytes(), &failure);
                        answers.push(Err(failure));
                        self.settled.fetch_add(1, Ordering::Relaxed);
                        if test_adapter {
                            self.probe(state)?;
                        }
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
            match start_process(&self.config) {
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

    /// The circuit breaker's test: a fresh process decodes [`PROBE_INPUT`]. Unusable when
    /// it fails; otherwise the failures are the inputs' doing and the counts restart.
    fn probe(&self, state: &mut State) -> Result<(), Stop> {
        let evidence = state.breaker.evidence();
        self.ensure_process(state)?;
        let process = state.process.as_ref().expect("started above");
        if let Some(line) = process.waiting_line(Duration::ZERO) {
            return Err(out_of_step(&line, "before any input was sent to it"));
        }
        process.send_frame(PROBE_INPUT);
        match self.read_answer(state, None)? {
            Ok(_) => {
                state.breaker.reset();
                Ok(())
            }
            Err(failure) => {
                if let Some(mut process) = state.process.take() {
                    process.kill();
                }
                Err(Stop::Unusable(format!(
                    "{evidence}; it also fails on the ASCII input {} that every decoder decodes ({}: {})",
                    format_hex(PROBE_INPUT),
                    failure.kind.as_str(),
                    failure.message
                )))
            }
        }
    }

    /// Reads and parses the next answer; every way of not getting one is a failure. Stops
    /// on a signal, at the deadline, and when a protocol 2 `seq` is not the frame's.
    /// In streaming mode (`chunks` is the number of chunks sent) the answer must have one
    /// `emitted` list per chunk.
    fn read_answer(
        &self,
        state: &mut State,
        chunks: Option<usize>,
    ) -> Result<Result<Answer, DecoderFailure>, Stop> {
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
            NextLine::Line(line) => match parse_answer(&self.name, &line) {
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
            NextLine::TimedOut => failure(
                FailureKind::Timeout,
                format!("no answer within {}", seconds(timeout)),
            ),
            NextLine::Interrupted => Err(Stop::Interrupted),
        }
    }

    /// Ends the adapter the protocol's way (close stdin, expect exit 0). Returns a message
    /// when it did not exit cleanly, or wrote lines after its last answer.
    pub fn finish(&self) -> Option<String> {
        let process = self.lock().process.take()?;
        let argv = process.argv().join(" ");
        let finished = process.finish(Duration::from_secs(2));
        let mut notes = Vec::new();
        if finished.extra_lines > 0 {
            notes.push(format!(
                "out of step: `{argv}` wrote {} line(s) after its last answer, first {}",
                finished.extra_lines,
                finished
                    .first_extra
                    .as_deref()
                    .map_or_else(|| "too long".to_string(), excerpt)
            ));
        }
        match finished.status {
            Some(status) if status.success() => {}
            Some(status) => notes.push(format!("`{argv}` exited with {status} at end of input")),
            None => notes.push(format!(
                "`{argv}` did not exit within 2 s of the end of its input"
            )),
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves the state usable: at worst a process that
        // gets restarted.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for ExternalDecoder {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl Decoder for ExternalDecoder {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        self.hello.version.clone()
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn capabilities(&self) -> Capabilities {
        self.lock().capabilities
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        let mut results = Decoder::decode_batch(self, &[input]);
        *outcome = results.pop().expect("one result per input")?;
        Ok(())
    }

    /// The pipelined [`ExternalDecoder::decode_batch`]; every input it did not answer
    /// (the adapter became unusable, a signal, the deadline) fails as a `crash` naming why.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Result<Outcome, DecoderFailure>> {
        let batch = ExternalDecoder::decode_batch(self, inputs);
        let mut results = batch.answers;
        let why = batch
            .stopped
            .map_or_else(|| "no answer".to_string(), |stop| stop.to_string());
        while results.len() < inputs.len() {
            results.push(Err(DecoderFailure {
                kind: FailureKind::Crash,
                message: why.clone(),
            }));
        }
        results
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

/// An input for a message: its hex, cut after 16 bytes.
fn shown_input(input: &[u8]) -> String {
    const SHOWN: usize = 16;
    if input.len() > SHOWN {
        format!("{}... ({} bytes)", format_hex(&input[..SHOWN]), input.len())
    } else if input.is_empty() {
        "(empty)".into()
    } else {
        format_hex(input)
    }
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

fn note_capabilities(capabilities: &mut Capabilities, outcome: &Outcome) {
    capabilities.valid_up_to |= outcome.valid_up_to.is_some();
    capabilities.error_len |= outcome.error_len.is_some();
    capabilities.scalars |= outcome.scalars.is_some();
    capabilities.errors |= outcome.errors.is_some();
}
