//! C and C++ decoders at in-process speed, outside the harness's process
//! (`utf8conf check --lib libfoo.so --symbol NAME`).
//!
//! The library implements one function of `include/utf8conf.h`. The harness starts a
//! worker (this same binary, re-executed as the hidden `lib-worker` command, see
//! [`worker`]) that dlopens the library; [`NativeDecoder`] sends it inputs in large
//! batches over a pipe ([`wire`]) and reads the answers back. A batch costs one write
//! and a few reads, so millions of short inputs per second go through.
//!
//! A crash, an abort, an `exit` or a hang in the library ends or stalls the worker, never
//! the harness. The worker writes a batch's answers only after the whole batch, so when a
//! batch fails the harness cannot tell which input did it: it starts a new worker and
//! sends the rest of that batch one input at a time. The input the worker dies (or stalls)
//! on gets the `crash` (or `timeout`) [`DecoderFailure`], a new worker is started, and the
//! next batch goes at full size again. A hang thus costs two answer timeouts, a crash one
//! restart plus one round trip per remaining input of its batch.

pub mod blocks;
pub mod process;
pub mod wire;
pub mod worker;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::adapter::{AdapterError, DEFAULT_ANSWER_TIMEOUT, DEFAULT_HELLO_TIMEOUT};
use crate::decoders::{Capabilities, Decoder, DecoderFailure, FailureKind};
use crate::outcome::Outcome;
use process::WorkerProcess;

/// Restarts that fail one after the other before the run is abandoned.
const MAX_CONSECUTIVE_FAILED_RESTARTS: usize = 3;

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
    /// Time limit for one batch (and, after a failure, for each single input).
    pub answer_timeout: Duration,
    /// Time limit for loading the library, at start and at every restart.
    pub hello_timeout: Duration,
}

impl NativeConfig {
    /// A configuration with the default time limits, served by the running executable.
    pub fn new(library: PathBuf, symbol: String) -> std::io::Result<NativeConfig> {
        Ok(NativeConfig {
            worker: std::env::current_exe()?,
            library,
            symbol,
            name: None,
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            hello_timeout: DEFAULT_HELLO_TIMEOUT,
        })
    }
}

struct State {
    worker: Option<WorkerProcess>,
    capabilities: Capabilities,
    restarts: u64,
    request: Vec<u8>,
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
                restarts: 0,
                request: Vec::new(),
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
        self.lock().restarts
    }

    /// Decodes many inputs in one batch. One result per input, in order; a crash,
    /// timeout or unusable answer is that input's [`DecoderFailure`]. Fails only when
    /// the worker cannot be restarted.
    pub fn decode_batch(
        &self,
        inputs: &[&[u8]],
    ) -> Result<Vec<Result<Outcome, DecoderFailure>>, AdapterError> {
        let mut state = self.lock();
        let state = &mut *state;
        let timeout = self.config.answer_timeout;
        let mut results = Vec::with_capacity(inputs.len());
        // Full batch first; after a failure, the rest one input at a time.
        let mut one_at_a_time = false;
        while results.len() < inputs.len() {
            let worker = match &mut state.worker {
                Some(worker) => worker,
                None => {
                    let worker = self.restart()?;
                    state.restarts += 1;
                    state.worker.insert(worker)
                }
            };
            let pending = &inputs[results.len()..];
            let pending = if one_at_a_time {
                &pending[..1]
            } else {
                pending
            };
            let deadline = Instant::now() + timeout;
            match worker.run_batch(pending, &self.name, &mut state.request, deadline, timeout) {
                Ok(answers) => results.extend(answers),
                Err(interrupted) => {
                    let answered = interrupted.answers.len();
                    results.extend(interrupted.answers);
                    if let Some(mut worker) = state.worker.take() {
                        worker.kill();
                    }
                    if one_at_a_time && answered == 0 {
                        results.push(Err(interrupted.failure));
                    }
                    one_at_a_time = true;
                }
            }
        }
        for outcome in results.iter().flatten() {
            note_capabilities(&mut state.capabilities, outcome);
        }
        Ok(results)
    }

    /// Starts a new worker, retrying a few times.
    fn restart(&self) -> Result<WorkerProcess, AdapterError> {
        let mut last = None;
        for _ in 0..MAX_CONSECUTIVE_FAILED_RESTARTS {
            match start_worker(&self.config) {
                Ok((worker, _)) => return Ok(worker),
                Err(error) => last = Some(error),
            }
        }
        Err(AdapterError(format!(
            "the library worker could not be restarted ({MAX_CONSECUTIVE_FAILED_RESTARTS} attempts): {}",
            last.map(|e| e.0).unwrap_or_default()
        )))
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

    /// The batched [`NativeDecoder::decode_batch`]; when the worker cannot be restarted,
    /// every input fails with that reason as a `crash`.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Result<Outcome, DecoderFailure>> {
        match NativeDecoder::decode_batch(self, inputs) {
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

fn start_worker(config: &NativeConfig) -> Result<(WorkerProcess, String), AdapterError> {
    WorkerProcess::start(
        &config.worker,
        &config.library,
        &config.symbol,
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
