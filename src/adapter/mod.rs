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
//! A hostile or broken adapter must never hang, mislead or exhaust the harness, so on top
//! of that:
//!
//! - **Pairing.** An answer is only taken when one was asked for: a line waiting before a
//!   batch is sent, or left over after its last answer, or after the end of input, means
//!   the adapter is out of step, and the adapter is declared unusable (its answers can no
//!   longer be matched to inputs). In protocol 2, every answer's `seq` must be the index
//!   of the frame it answers.
//! - **Retry.** A crash or a timeout is retried once on a fresh process: if the retry
//!   answers, the failure did not depend on the input, and it is counted as *flaky*, not
//!   as a finding. A failure that stands is remembered with its input ([`standing`]):
//!   asked for again, the input is answered with it without being sent.
//! - **Patterns.** Failures that pass on retry and follow the process's age, and checks
//!   that spend most of their time restarting, make the adapter unusable
//!   ([`pattern`]).
//! - **Circuit breaker.** After [`BREAKER_FAILURES`] failed inputs in a row (or
//!   [`BREAKER_TIMEOUTS`] timeouts in a row), or when failures are at least 75 % of a
//!   window of [`BREAKER_WINDOW`] inputs, a fresh process is asked to decode the ASCII
//!   input `61`, which every decoder decodes. If it fails that too, the adapter is
//!   unusable and the check stops, with the evidence; if not, the failures depend on the
//!   inputs and are findings.
//! - **Bounds.** A deadline for the whole check ([`ExternalDecoder::set_deadline`]), a
//!   stop on SIGINT/SIGTERM ([`interrupt`]), bounded answer lines and a bounded queue
//!   ([`process`]), and the whole process tree killed with the adapter ([`tree`]).
//!
//! Failing to *start* is different: a program that is missing, not executable, exits
//! before its hello, or does not say a valid hello within the start-up time limit is an
//! [`AdapterError`], which the command line reports as one line with exit status 2.
//!
//! What the adapter can report is learned from what it actually returns: the
//! [`Capabilities`] are the fields seen in its answers so far.

pub mod answer;
mod batch;
pub mod breaker;
pub mod command;
mod config;
pub mod encoder;
mod exchange;
pub mod interrupt;
pub mod list;
pub mod pattern;
pub mod process;
pub mod selftest;
pub mod standing;
mod start;
pub mod tree;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::decoders::{Capabilities, Decoder};
use crate::outcome::{Answer, DecoderFailure, Outcome};
use answer::{excerpt, Hello};
use breaker::Breaker;
use process::AdapterProcess;
use start::start_process;

pub(crate) use exchange::probe_frame;

use batch::Request;
pub use batch::{shown_input, BatchAnswers, ProcessStatistics, Stop, StreamedOutcome};
pub use config::{
    AdapterConfig, AdapterError, DEFAULT_ANSWER_TIMEOUT, DEFAULT_HELLO_TIMEOUT, MAX_TIME_LIMIT,
};

/// Restarts that fail one after the other before the run is abandoned.
const MAX_CONSECUTIVE_FAILED_RESTARTS: usize = 3;
pub use breaker::{BREAKER_FAILURES, BREAKER_TIMEOUTS, BREAKER_WINDOW};
/// How long the harness waits for a stray line after the first batch a new adapter
/// process answered: an adapter that answers twice, or before being asked, shows it then.
const FIRST_BATCH_GRACE: Duration = Duration::from_millis(20);
/// The input every decoder decodes: U+0061, one ASCII byte.
pub const PROBE_INPUT: &[u8] = b"a";

struct State {
    process: Option<AdapterProcess>,
    /// Frames sent to the current process (protocol 2's next `seq`).
    frames_to_process: u64,
    capabilities: Capabilities,
    statistics: ProcessStatistics,
    breaker: Breaker,
    lifetimes: pattern::Lifetimes,
    /// Whole inputs whose failure stood, answered from memory when asked again.
    standing: standing::StandingFailures,
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
                lifetimes: pattern::Lifetimes::default(),
                standing: standing::StandingFailures::default(),
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
        let batch = self.exchange(&requests);
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
        let batch = self.exchange(&requests);
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
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Answer> {
        ExternalDecoder::decode_batch(self, inputs).into_results(inputs.len())
    }
}
