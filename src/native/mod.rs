//! C and C++ decoders at in-process speed, outside the harness's process
//! (`utf8conf check --lib libfoo.so --symbol NAME`).
//!
//! The library implements one function of `include/utf8conf.h`. The harness starts a
//! worker (this same binary, re-executed as the hidden `lib-worker` command, see
//! [`worker`]) that dlopens the library; [`NativeDecoder`] sends it inputs in large
//! batches over a pipe ([`wire`]) and reads the answers back. A batch costs one write
//! and a few reads, so millions of short inputs per second go through.
//!
//! A crash, an abort, an `exit`, a hang or a memory exhaustion in the library ends or
//! stalls the worker, never the harness. [`NativeDecoder`] supervises the worker with the
//! guarantees of the adapter client (docs/PROTOCOL.md, "What the harness guarantees";
//! the loop is in `supervise.rs`):
//!
//! - **A time limit per call.** The worker passes answers on as they are ready, so a
//!   call that takes longer than the answer timeout is a `timeout` of that very input.
//! - **Stops.** Every wait looks at SIGINT/SIGTERM and at the whole check's deadline
//!   ([`NativeDecoder::set_deadline`]) at least every 100 ms, also while a call is in
//!   flight, and the worker is killed then.
//! - **Retry.** A crash or timeout is retried once on a fresh worker; when the retry
//!   answers, it is counted as flaky, not as a finding. A crash in the middle of a batch
//!   cannot be pinned on an input (answers not yet passed on are lost with the worker), so
//!   calls go one input at a time until a failure is pinned, and then in batches again.
//!   A failure that stands is remembered with its input ([`crate::adapter::standing`]):
//!   asked again, the harness answers it without calling the library.
//! - **The circuit breaker and patterns** of the adapter client
//!   ([`crate::adapter::breaker`], [`crate::adapter::pattern`]): failures in a row test
//!   the worker with the probe input; failures that follow the worker's age, or a check
//!   that spends its time restarting, make the library unusable.
//! - **No worker outlives the harness.** The worker is killed with its whole tree when
//!   it fails or the harness stops, and ends itself when the harness is gone (it watches
//!   its parent); its address space is limited (`RLIMIT_AS`), and a death at that limit
//!   is named as such.

pub mod blocks;
mod encode_call;
pub mod encoder;
pub mod process;
mod supervise;
pub mod wire;
pub mod worker;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::adapter::breaker::Breaker;
use crate::adapter::pattern::Lifetimes;
use crate::adapter::standing::StandingFailures;
use crate::adapter::{
    AdapterError, BatchAnswers, ProcessStatistics, DEFAULT_ANSWER_TIMEOUT, DEFAULT_HELLO_TIMEOUT,
};
use crate::decoders::{Capabilities, Decoder};
use crate::outcome::{Answer, DecoderFailure, Outcome};
use process::WorkerProcess;

/// How to run a C decoder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeConfig {
    /// The utf8conf executable that serves as the worker (`lib-worker` command); the
    /// running one for the command line.
    pub worker: PathBuf,
    /// The shared library.
    pub library: PathBuf,
    /// The exported `utf8conf_decode_fn`.
    pub symbol: String,
    /// The name to report under; the symbol's when `None`.
    pub name: Option<String>,
    /// Time limit for one call of the library's function.
    pub answer_timeout: Duration,
    /// Time limit for loading the library, at start and at every restart.
    pub hello_timeout: Duration,
    /// The worker's address-space limit in bytes (`RLIMIT_AS`).
    pub memory_limit: u64,
    /// `Some` for an encoder: the symbol is a `utf8conf_encode_utf16_fn` or
    /// `utf8conf_encode_utf32_fn`, and each input is a frame of code units.
    pub encode: Option<crate::encoders::Form>,
}

impl NativeConfig {
    /// A configuration with the default limits, served by the running executable.
    pub fn new(library: PathBuf, symbol: String) -> std::io::Result<NativeConfig> {
        Ok(NativeConfig {
            worker: std::env::current_exe()?,
            library,
            symbol,
            name: None,
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            hello_timeout: DEFAULT_HELLO_TIMEOUT,
            memory_limit: worker::DEFAULT_ADDRESS_SPACE_LIMIT,
            encode: None,
        })
    }
}

struct State {
    worker: Option<WorkerProcess>,
    capabilities: Capabilities,
    request: Vec<u8>,
    /// Calls the current worker answered.
    calls: u64,
    /// Set by a crash in the middle of a batch, until a failure is pinned on one input:
    /// answers not yet passed on died with the worker, so only calls made one at a time
    /// find the input, and count the worker's age at the crash exactly (a library that
    /// dies by its age, of a leak or a counter, shows the same age at every crash, which
    /// is what the age pattern looks for). A library that never crashes keeps its
    /// batches, and one that crashes on some inputs returns to them after each.
    one_at_a_time: bool,
    statistics: ProcessStatistics,
    breaker: Breaker,
    lifetimes: Lifetimes,
    /// Inputs whose failure stood, answered from memory when asked again.
    standing: StandingFailures,
    deadline: Option<Instant>,
}

/// A C decoder driven through its worker process.
pub struct NativeDecoder {
    config: NativeConfig,
    name: String,
    version: String,
    description: String,
    state: Mutex<State>,
}

impl NativeDecoder {
    /// Starts the worker and loads the library. Fails with a one-line reason when the
    /// library or symbol cannot be loaded.
    pub fn start(config: NativeConfig) -> Result<NativeDecoder, AdapterError> {
        let (worker, version) = start_worker(&config)?;
        let name = config.name.clone().unwrap_or_else(|| config.symbol.clone());
        let description = format!(
            "C library {} through `{}` (include/utf8conf.h)",
            config.library.display(),
            config.symbol
        );
        Ok(NativeDecoder {
            name,
            version,
            description,
            state: Mutex::new(State {
                worker: Some(worker),
                capabilities: Capabilities::default(),
                request: Vec::new(),
                calls: 0,
                one_at_a_time: false,
                statistics: ProcessStatistics::default(),
                breaker: Breaker::default(),
                lifetimes: Lifetimes::default(),
                standing: StandingFailures::default(),
                deadline: None,
            }),
            config,
        })
    }

    /// The library and symbol, as a command line would name them.
    pub fn command(&self) -> Vec<String> {
        vec![
            "--lib".into(),
            self.config.library.display().to_string(),
            "--symbol".into(),
            self.config.symbol.clone(),
        ]
    }

    /// Worker restarts after a crash or timeout so far.
    pub fn restarts(&self) -> u64 {
        self.lock().statistics.restarts
    }

    /// Calls, answers, failures, restarts, flaky inputs and memory deaths so far.
    pub fn statistics(&self) -> ProcessStatistics {
        self.lock().statistics.clone()
    }

    /// Sets the time after which batches stop with
    /// [`Stop::OutOfTime`](crate::adapter::Stop::OutOfTime), looked at while a call is
    /// in flight too.
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        self.lock().deadline = deadline;
    }

    /// Decodes many inputs in batches. One result per input, in order, for a prefix of
    /// the inputs: a crash, timeout or unusable answer is that input's
    /// [`DecoderFailure`]; the batch stops early when the library is unusable, on a
    /// signal, or at the deadline.
    pub fn decode_batch(&self, inputs: &[&[u8]]) -> BatchAnswers {
        let mut state = self.lock();
        let state = &mut *state;
        let mut answers = Vec::with_capacity(inputs.len());
        let stopped = self.supervise(state, inputs, &mut answers).err();
        for outcome in answers.iter().flatten() {
            note_capabilities(&mut state.capabilities, outcome);
        }
        BatchAnswers { answers, stopped }
    }

    /// Ends the worker (closes its input, expects exit 0). Returns a note when it did
    /// not exit cleanly.
    pub fn finish(&self) -> Option<String> {
        let worker = self.lock().worker.take()?;
        worker.finish(Duration::from_secs(2))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves the state usable: at worst a worker that
        // gets restarted.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for NativeDecoder {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl Decoder for NativeDecoder {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        self.version.clone()
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

    /// The batched [`NativeDecoder::decode_batch`]; every input it did not answer (the
    /// library is unusable, a signal, the deadline) fails as a `crash` naming why.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Answer> {
        NativeDecoder::decode_batch(self, inputs).into_results(inputs.len())
    }
}

fn start_worker(config: &NativeConfig) -> Result<(WorkerProcess, String), AdapterError> {
    WorkerProcess::start(
        &config.worker,
        &config.library,
        &config.symbol,
        config.memory_limit,
        config.encode,
        config.hello_timeout,
    )
    .map_err(|reason| AdapterError(format!("--lib {}: {reason}", config.library.display())))
}

/// Records which fields an answer carried.
fn note_capabilities(capabilities: &mut Capabilities, outcome: &Outcome) {
    capabilities.valid_up_to |= outcome.valid_up_to.is_some();
    capabilities.error_len |= outcome.error_len.is_some();
    capabilities.scalars |= outcome.scalars.is_some();
}
