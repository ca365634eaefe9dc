//! What a batch sent to an adapter gives back: one answer per input ([`BatchAnswers`]),
//! why a batch stopped early ([`Stop`]), the answer to an input fed in chunks
//! ([`StreamedOutcome`]), the counts of what happened to the process
//! ([`ProcessStatistics`]), and the request the exchange sends ([`Request`]).

use super::answer::StreamAnswer;
use super::process::AdapterProcess;
use crate::hex::format_hex;
use crate::outcome::{DecoderFailure, FailureKind, Outcome};

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

impl<T> BatchAnswers<T> {
    /// One result per input, `len` in all: every input the batch did not answer (the
    /// decoder became unusable, a signal, the deadline) fails as a `crash` naming why,
    /// which is what the [`crate::decoders::Decoder`] interface can say about it.
    pub fn into_results(self, len: usize) -> Vec<Result<T, DecoderFailure>> {
        let mut results = self.answers;
        let why = self
            .stopped
            .map_or_else(|| "no answer".to_string(), |stop| stop.to_string());
        while results.len() < len {
            results.push(Err(DecoderFailure {
                kind: FailureKind::Crash,
                message: why.clone(),
            }));
        }
        results
    }
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
pub(super) enum Request<'a> {
    Whole(&'a [u8]),
    Chunked(&'a [&'a [u8]]),
}

impl Request<'_> {
    pub(super) fn send(&self, process: &AdapterProcess) {
        match self {
            Request::Whole(input) => process.send_frame(input),
            Request::Chunked(chunks) => process.send_chunked(chunks),
        }
    }

    /// The input's bytes, for messages and the circuit breaker's evidence.
    pub(super) fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Request::Whole(input) => std::borrow::Cow::Borrowed(input),
            Request::Chunked(chunks) => std::borrow::Cow::Owned(chunks.concat()),
        }
    }

    /// The input of a whole-input request; `None` for a chunked one (its chunking is
    /// part of what is asked, so its failure is not the input's alone).
    pub(super) fn whole(&self) -> Option<&[u8]> {
        match self {
            Request::Whole(input) => Some(input),
            Request::Chunked(_) => None,
        }
    }

    /// How many chunks the answer must account for (`None` for a whole input).
    pub(super) fn chunk_count(&self) -> Option<usize> {
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
    /// The first flaky crash or timeout: input hex and the message.
    pub first_flaky_crash: Option<String>,
    /// Timeouts that did not happen again when the same input was sent to a fresh process.
    pub flaky_timeouts: u64,
    /// Processes that died at their memory limit (library workers only).
    pub memory_kills: u64,
    /// The first of those deaths, as evidence.
    pub first_memory_kill: Option<String>,
}

/// An input for a message: its hex, cut after 16 bytes.
pub fn shown_input(input: &[u8]) -> String {
    const SHOWN: usize = 16;
    if input.len() > SHOWN {
        format!("{}... ({} bytes)", format_hex(&input[..SHOWN]), input.len())
    } else if input.is_empty() {
        "(empty)".into()
    } else {
        format_hex(input)
    }
}
