//! The differential engine: every input through every decoder, compared with the reference.
//!
//! ```text
//!  inputs ──► batches ──► workers (one per core) ──► batch results ──► collector
//!                          reference.decode_into          (in input order)
//!                          each decoder, contained          dedupe by signature
//!                          compare aspect by aspect         minimise first occurrence
//!                                                           write report (atomically)
//! ```
//!
//! - **Workers** pull batches of inputs from the shared source, decode each input once with
//!   the reference (reusing buffers) and once with each decoder under test (panics
//!   contained, [`contain`](crate::diagnosis::contain)), compare on every aspect both report ([`compare`](crate::diagnosis::compare)), count, and
//!   note each departure under its [`signature::Signature`], keeping the first few
//!   occurrences per batch.
//! - The **collector** (the calling thread) merges batch results *in input order*, whatever
//!   order the threads finish in, so the first occurrence of a signature, and so its
//!   minimised input and report, depend only on the inputs, not on thread timing. A new
//!   signature is minimised ([`minimize`](crate::diagnosis::minimize)), explained
//!   ([`explain`](crate::diagnosis::explain)) and written as a report
//!   at once; later occurrences only add to its count. At the end every report is rewritten
//!   with its final count, and `summary.json` is written.
//!
//! The run ends when the budget ([`budget::Budget`]) is spent, the corpus runs out, or
//! [`RunOptions::stop`] is raised (by Ctrl-C in `utf8conf run`); in every case the batches
//! already taken are finished and the reports and summary are written. A report or
//! summary that cannot be written (a full disk) stops the run at once: no new batch is
//! started, nothing more is written, and [`RunError::Write`] carries the error together
//! with everything found so far, so the caller can still show it.

pub mod batch;
pub mod budget;
pub mod check;
mod collector;
pub mod finding_report;
pub mod model;
pub mod progress;
pub mod report;
pub mod signature;
pub mod summary;
mod worker;

pub use report::{build_report, report_path, ReportContext};

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use crate::corpus::Input;
use crate::decoders::Decoder;
use crate::engine::finding_report::FindingReport;
use crate::engine::summary::{RunStop, Summary};
use crate::time;
use batch::{BatchResult, Source};

use budget::Budget;
use check::REFERENCE_NAME;
use collector::Collector;
use progress::{Progress, ProgressMode};
use worker::{CorpusSource, Feed};

pub use crate::engine::summary::{EXIT_CLEAN, EXIT_DEPARTURES};

/// How a run is carried out.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The seed of the generated corpora (recorded; the engine itself draws no randomness).
    pub seed: u64,
    /// When to stop.
    pub budget: Budget,
    /// The reports directory; the run writes into `<out_dir>/<run_id>/`.
    pub out_dir: PathBuf,
    /// The run id; by default the UTC start time and the seed, `20261122T031500Z-seed0`.
    pub run_id: Option<String>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// How progress is shown.
    pub progress: ProgressMode,
    /// The number of inputs the source will give, when known (for the progress bar).
    pub expected_inputs: Option<u64>,
    /// Inputs per batch handed to a worker.
    pub batch_size: usize,
    /// Decode-and-compare calls the minimiser may spend per report.
    pub minimization_calls: usize,
    /// Reports written at most; further new signatures are counted but not reported.
    pub max_reports: usize,
    /// Origins kept per report besides the first.
    pub origins_kept: usize,
    /// Raised to end the run early (no new batch is started once it is set).
    pub stop: Arc<AtomicBool>,
    /// What learning the machine of each decoder that departed may cost ([`model`]);
    /// `None` skips the model, and the findings are the rule-based ones alone.
    pub model: Option<crate::diagnosis::learn::ModelBudget>,
    /// How the first occurrence of a new signature is minimised and filed.
    pub minimise: Minimise,
    /// The `--lib` library and symbol, as given on the command line, when a C library
    /// is among the decoders: the reports of the decoder named by the symbol carry
    /// reproduction commands that load it again.
    pub library: Option<(String, String)>,
}

/// How the collector minimises a new signature's first occurrence and files it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Minimise {
    /// With the grading core ([`crate::diagnosis::in_process_finding`]): remove bytes
    /// while the decoder departs in the same aspect with the same kind of action, then
    /// probe the position; one report per finding, a signature met again under a known
    /// root cause is one of its manifestations (`utf8conf run`).
    ByFinding,
    /// Remove bytes while the whole signature stays (for a crash, timeout or protocol
    /// failure: its aspect and shape), within [`RunOptions::minimization_calls`]; one
    /// report per signature of the minimised input, its finding read from that input.
    /// `utf8conf exhaustive` files this way: every shard of a space minimises each
    /// signature on its own, and equal signatures must give equal report ids for the
    /// shards to merge.
    BySignature,
}

impl RunOptions {
    /// Defaults for `out_dir`: the default budget, all cores, no progress display.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        RunOptions {
            seed: 0,
            budget: budget::DEFAULT_BUDGET,
            out_dir: out_dir.into(),
            run_id: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            progress: ProgressMode::Off,
            expected_inputs: None,
            batch_size: 256,
            minimization_calls: 4_000,
            max_reports: 1_000,
            origins_kept: 4,
            stop: Arc::new(AtomicBool::new(false)),
            model: Some(crate::diagnosis::learn::ModelBudget::default()),
            minimise: Minimise::ByFinding,
            library: None,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// `<out_dir>/<run_id>`.
    pub run_dir: PathBuf,
    /// The summary, as written to `summary.json`.
    pub summary: Summary,
    /// The reports, as written to `divergences/<id>.json`, in order of first occurrence.
    pub reports: Vec<FindingReport>,
}

/// Why [`Engine::run`] failed.
#[derive(Debug)]
pub enum RunError {
    /// The run could not start (e.g. the run directory cannot be created).
    Setup(io::Error),
    /// A report or `summary.json` could not be written. The run stopped at once; the
    /// result holds what was found up to then (not all of it on disk).
    Write {
        /// The first failed write; its message names the file.
        error: io::Error,
        /// The table's counts and the findings so far.
        partial: Box<RunResult>,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Setup(error) | RunError::Write { error, .. } => error.fmt(f),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Setup(error) | RunError::Write { error, .. } => Some(error),
        }
    }
}

/// The decoders under test, compared with the reference.
pub struct Engine {
    decoders: Vec<Box<dyn Decoder>>,
}

impl Engine {
    /// An engine comparing `decoders` with the reference. A decoder named `reference`
    /// (the built-in one) is skipped: it *is* the oracle.
    pub fn new(decoders: Vec<Box<dyn Decoder>>) -> Self {
        Engine {
            decoders: decoders
                .into_iter()
                .filter(|decoder| decoder.name() != REFERENCE_NAME)
                .collect(),
        }
    }

    /// The decoders under test.
    pub fn decoders(&self) -> &[Box<dyn Decoder>] {
        &self.decoders
    }

    /// Runs every input of `inputs` (until the budget is spent) through every decoder and
    /// writes the reports and `summary.json`.
    pub fn run<'a>(
        &self,
        inputs: impl Iterator<Item = Input> + Send + 'a,
        options: &RunOptions,
    ) -> Result<RunResult, RunError> {
        let source = CorpusSource {
            feed: Mutex::new(Feed {
                inputs: Box::new(inputs),
                next_batch: 0,
                next_index: 0,
                remaining: match options.budget {
                    Budget::Inputs(count) => Some(count),
                    Budget::Time(_) => None,
                },
                exhausted: false,
            }),
            deadline: match options.budget {
                Budget::Time(limit) => Some(Instant::now() + limit),
                Budget::Inputs(_) => None,
            },
            stop: &options.stop,
            size: options.batch_size,
            origins_kept: options.origins_kept,
        };
        self.run_source(&source, options)
    }

    /// Runs the batches of `source` through every decoder on `options.threads` threads
    /// and writes the reports and `summary.json`: the one run loop of every driver.
    pub fn run_source(
        &self,
        source: &dyn Source,
        options: &RunOptions,
    ) -> Result<RunResult, RunError> {
        let started_at = SystemTime::now();
        let run_id = options
            .run_id
            .clone()
            .unwrap_or_else(|| format!("{}-seed{}", time::compact(started_at), options.seed));
        let run_dir = fresh_run_dir(&options.out_dir, &run_id).map_err(RunError::Setup)?;
        let run_id = run_dir
            .file_name()
            .map_or(run_id, |name| name.to_string_lossy().into_owned());
        let departures = run_dir.join("divergences");
        std::fs::create_dir_all(&departures)
            .map_err(|error| RunError::Setup(named(&departures, error)))?;

        let started = Instant::now();
        let mut collector = Collector::new(self, options, &run_id, &run_dir);
        let threads = options.threads.max(1);
        collector.write_stub(started_at, threads);
        self.collect_in_order(source, options, threads, &mut collector);
        let duration = started.elapsed();
        let stopped_by = if collector.write_error.is_some() {
            // Stopped by the disk, not by a signal (which also sets the stop flag).
            RunStop::DiskError
        } else if source.exhausted() {
            RunStop::CorpusExhausted
        } else if options.stop.load(Ordering::Relaxed) {
            RunStop::Interrupted
        } else {
            RunStop::Budget
        };
        match collector.finish(started_at, duration.as_secs_f64(), threads, stopped_by) {
            (result, None) => Ok(result),
            (result, Some(error)) => Err(RunError::Write {
                error,
                partial: Box::new(result),
            }),
        }
    }

    /// Runs `threads` workers over `source` and merges their batch results into
    /// `collector` in batch order, whatever order the threads finish in.
    fn collect_in_order(
        &self,
        source: &dyn Source,
        options: &RunOptions,
        threads: usize,
        collector: &mut Collector<'_>,
    ) {
        let (sender, receiver) = mpsc::channel::<BatchResult>();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let sender = sender.clone();
                scope.spawn(move || {
                    source.work(&self.decoders, &mut |result| sender.send(result).is_ok());
                });
            }
            drop(sender);
            let mut progress =
                Progress::new(options.progress, options.budget, options.expected_inputs);
            let mut pending: BTreeMap<u64, BatchResult> = BTreeMap::new();
            let mut next_batch = 0;
            loop {
                match receiver.recv_timeout(options.progress.interval()) {
                    Ok(result) => {
                        pending.insert(result.batch, result);
                        while let Some(result) = pending.remove(&next_batch) {
                            next_batch += 1;
                            collector.merge(result);
                            if collector.write_error.is_some() {
                                // A disk error stops the run at once (no new batches)
                                // instead of spending the rest of the budget.
                                options.stop.store(true, Ordering::SeqCst);
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                progress.update(collector.total_inputs, collector.reports.len());
            }
            progress.finish(collector.total_inputs, collector.reports.len());
        });
    }
}

/// `error` with the path it is about in its message.
fn named(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// Finds a run directory that does not exist yet: `<out_dir>/<run_id>`, or with `-2`,
/// `-3`, ... appended when two runs start in the same second with the same seed.
pub fn fresh_run_dir(out_dir: &Path, run_id: &str) -> io::Result<PathBuf> {
    std::fs::create_dir_all(out_dir).map_err(|error| named(out_dir, error))?;
    for attempt in 1..1000 {
        let name = if attempt == 1 {
            run_id.to_string()
        } else {
            format!("{run_id}-{attempt}")
        };
        let candidate = out_dir.join(name);
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(named(&candidate, error)),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "no free run directory for {run_id} in {}",
            out_dir.display()
        ),
    ))
}
