//! The external decoder protocol, harness side: any program in any language becomes a
//! [`Decoder`].
//!
//! DESIGN.md §3.3, version 1:
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
//! [`ExternalDecoder`] keeps one [`process::AdapterProcess`] behind a mutex. Inputs are
//! pipelined ([`ExternalDecoder::decode_batch`]): all frames of a batch are queued to a
//! writer thread, then the answers are read one by one, each with its own deadline. Since
//! an adapter answers its frames in order, a missing answer belongs to the first input
//! without one: that input gets the [`DecoderFailure`], the adapter is killed and started
//! again, and the rest of the batch is sent to the new process.
//!
//! Failing to *start* is different: a program that is missing, not executable, exits
//! before its hello, or does not say a valid hello within the start-up time limit is an
//! [`AdapterError`], which the command line reports as one line with exit status 2.
//!
//! What the adapter can report is learned from what it actually returns: the
//! [`Capabilities`] are the fields seen in its answers so far.

pub mod answer;
pub mod command;
pub mod list;
pub mod process;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::decoders::{Capabilities, Decoder, DecoderFailure, FailureKind};
use crate::outcome::Outcome;
use answer::{parse_answer, parse_hello, Hello};
use process::{AdapterProcess, NextLine};

/// Default time limit for one answer.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// Default time limit for the hello line after start.
pub const DEFAULT_HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// Restarts that fail one after the other before the run is abandoned.
const MAX_CONSECUTIVE_FAILED_RESTARTS: usize = 3;

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

/// Counts of what happened to the adapter process during a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessStatistics {
    /// Frames sent.
    pub frames: u64,
    /// Answers received and parsed.
    pub answers: u64,
    /// Restarts after a failure.
    pub restarts: u64,
}

struct State {
    process: Option<AdapterProcess>,
    capabilities: Capabilities,
    statistics: ProcessStatistics,
}

/// A decoder behind the adapter protocol.
pub struct ExternalDecoder {
    config: AdapterConfig,
    name: String,
    hello: Hello,
    description: String,
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
            state: Mutex::new(State {
                process: Some(process),
                capabilities: Capabilities::default(),
                statistics: ProcessStatistics::default(),
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

    /// Frames, answers and restarts so far.
    pub fn statistics(&self) -> ProcessStatistics {
        self.lock().statistics
    }

    /// Decodes many inputs, pipelined. One result per input, in order; a crash, timeout or
    /// malformed answer is that input's [`DecoderFailure`], after which the adapter is
    /// restarted. Fails only when a restart fails repeatedly.
    pub fn decode_batch(
        &self,
        inputs: &[&[u8]],
    ) -> Result<Vec<Result<Outcome, DecoderFailure>>, AdapterError> {
        let mut state = self.lock();
        let mut results = Vec::with_capacity(inputs.len());
        let mut failed_restarts = 0;
        while results.len() < inputs.len() {
            if state.process.is_none() {
                match start_process(&self.config) {
                    Ok((process, _)) => {
                        state.process = Some(process);
                        state.statistics.restarts += 1;
                        failed_restarts = 0;
                    }
                    Err(error) => {
                        failed_restarts += 1;
                        if failed_restarts >= MAX_CONSECUTIVE_FAILED_RESTARTS {
                            return Err(AdapterError(format!(
                                "adapter could not be restarted ({failed_restarts} attempts): {error}"
                            )));
                        }
                        continue;
                    }
                }
            }
            let pending = &inputs[results.len()..];
            let process = state.process.as_ref().expect("started above");
            for input in pending {
                process.send_frame(input);
            }
            state.statistics.frames += pending.len() as u64;
            let mut failed = false;
            for _ in pending {
                let deadline = Instant::now() + self.config.answer_timeout;
                let process = state.process.as_mut().expect("started above");
                let result = read_answer(process, &self.name, deadline, self.config.answer_timeout);
                match result {
                    Ok(outcome) => {
                        note_capabilities(&mut state.capabilities, &outcome);
                        state.statistics.answers += 1;
                        results.push(Ok(outcome));
                    }
                    Err(failure) => {
                        results.push(Err(failure));
                        failed = true;
                        break;
                    }
                }
            }
            if failed {
                if let Some(mut process) = state.process.take() {
                    process.kill();
                }
            }
        }
        Ok(results)
    }

    /// Ends the adapter the protocol's way (close stdin, expect exit 0). Returns a message
    /// when it did not exit cleanly.
    pub fn finish(&self) -> Option<String> {
        let process = self.lock().process.take()?;
        let argv = process.argv().join(" ");
        match process.finish(Duration::from_secs(2)) {
            Some(status) if status.success() => None,
            Some(status) => Some(format!("`{argv}` exited with {status} at end of input")),
            None => Some(format!(
                "`{argv}` did not exit within 2 s of the end of its input"
            )),
        }
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

    /// The pipelined [`ExternalDecoder::decode_batch`]; when the adapter cannot be
    /// restarted, every input it did not answer fails with that reason as a `crash`.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Result<Outcome, DecoderFailure>> {
        match ExternalDecoder::decode_batch(self, inputs) {
            Ok(results) => results,
            Err(AdapterError(message)) => inputs
                .iter()
                .map(|_| {
                    Err(DecoderFailure {
                        kind: FailureKind::Crash,
                        message: message.clone(),
                    })
                })
                .collect(),
        }
    }
}

/// Starts the adapter and waits for its hello.
fn start_process(config: &AdapterConfig) -> Result<(AdapterProcess, Hello), AdapterError> {
    let program = &config.argv[0];
    let mut process = AdapterProcess::spawn(&config.argv).map_err(|error| {
        let reason = match error.kind() {
            std::io::ErrorKind::NotFound => "no such program".to_string(),
            std::io::ErrorKind::PermissionDenied => "not executable (permission denied)".into(),
            _ => error.to_string(),
        };
        AdapterError(format!("cannot start adapter `{program}`: {reason}"))
    })?;
    let command = config.argv.join(" ");
    let deadline = Instant::now() + config.hello_timeout;
    let line = match process.next_line(deadline) {
        NextLine::Line(line) => line,
        NextLine::TooLong => {
            return Err(AdapterError(format!(
                "adapter `{command}`: hello line longer than {} bytes",
                process::MAX_LINE_BYTES
            )))
        }
        NextLine::Ended => {
            let status = process.exit_status(Duration::from_millis(500)).map_or_else(
                || "closed its stdout".to_string(),
                |s| format!("exited ({s})"),
            );
            return Err(AdapterError(format!(
                "adapter `{command}` {status} before its hello line{}",
                stderr_suffix(&process)
            )));
        }
        NextLine::TimedOut => {
            let message = format!(
                "adapter `{command}` said no hello line within {}{}",
                seconds(config.hello_timeout),
                stderr_suffix(&process)
            );
            process.kill();
            return Err(AdapterError(message));
        }
    };
    match parse_hello(&line) {
        Ok(hello) => Ok((process, hello)),
        Err(reason) => {
            process.kill();
            Err(AdapterError(format!(
                "adapter `{command}`: bad hello line: {reason}"
            )))
        }
    }
}

/// Reads and parses the next answer; every way of not getting one is a failure.
fn read_answer(
    process: &mut AdapterProcess,
    decoder_name: &str,
    deadline: Instant,
    timeout: Duration,
) -> Result<Outcome, DecoderFailure> {
    match process.next_line(deadline) {
        NextLine::Line(line) => {
            parse_answer(decoder_name, &line).map_err(|reason| DecoderFailure {
                kind: FailureKind::Protocol,
                message: format!("malformed answer: {reason}"),
            })
        }
        NextLine::TooLong => Err(DecoderFailure {
            kind: FailureKind::Protocol,
            message: format!("answer line longer than {} bytes", process::MAX_LINE_BYTES),
        }),
        NextLine::Ended => {
            let status = process.exit_status(Duration::from_millis(500)).map_or_else(
                || "closed its stdout".to_string(),
                |s| format!("exited ({s})"),
            );
            Err(DecoderFailure {
                kind: FailureKind::Crash,
                message: format!(
                    "adapter {status} without answering{}",
                    stderr_suffix(process)
                ),
            })
        }
        NextLine::TimedOut => Err(DecoderFailure {
            kind: FailureKind::Timeout,
            message: format!("no answer within {}", seconds(timeout)),
        }),
    }
}

fn stderr_suffix(process: &AdapterProcess) -> String {
    const LIMIT: usize = 300;
    let tail = process.stderr_tail();
    if tail.is_empty() {
        return String::new();
    }
    let skip = tail.chars().count().saturating_sub(LIMIT);
    let shown: String = tail.chars().skip(skip).collect();
    format!("; stderr: {}{shown}", if skip > 0 { "..." } else { "" })
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
