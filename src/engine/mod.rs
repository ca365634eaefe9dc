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
//!   contained, [`contain`]), compare on every aspect both report ([`compare`]), count, and
//!   note each divergence under its [`signature::Signature`], keeping the first few
//!   occurrences per batch.
//! - The **collector** (the calling thread) merges batch results *in input order*, whatever
//!   order the threads finish in, so the first occurrence of a signature, and so its
//!   minimised input and report, depend only on the inputs, not on thread timing. A new
//!   signature is minimised ([`minimize`]), explained ([`explain`]) and written as a report
//!   at once; later occurrences only add to its count. At the end every report is rewritten
//!   with its final count, and `summary.json` is written.
//!
//! The run ends when the budget ([`budget::Budget`]) is spent, the corpus runs out, or
//! [`RunOptions::stop`] is raised (by Ctrl-C in `utf8conf run`); in every case the batches
//! already taken are finished and the reports and summary are written.

pub mod budget;
pub mod check;
pub mod compare;
pub mod progress;
pub mod signature;

pub use crate::diagnosis::{contain, explain, minimize};

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use crate::corpus::{Input, Origin};
use crate::decoders::Decoder;
use crate::hex::format_hex;
use crate::outcome::Outcome;
use crate::reference::{Decoded, Reference};
use crate::report::divergence::{DivergenceReport, Failure, Minimization, DIVERGENCE_SCHEMA};
use crate::report::summary::{
    AspectCount, BudgetEntry, DecoderCounts, DecoderEntry, Summary, Tool, SUMMARY_SCHEMA,
};
use crate::report::{shell_quote, time, write_json_atomically};

use budget::Budget;
use check::{check_decoder, signature_of, PairChecker, REFERENCE_NAME};
use compare::Aspect;
use progress::{Progress, ProgressMode};
use signature::Signature;

/// Exit code of a run without divergences.
pub const EXIT_CLEAN: u8 = 0;
/// Exit code of a run that found divergences.
pub const EXIT_DIVERGENCES: u8 = 1;

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
    pub reports: Vec<DivergenceReport>,
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
    ) -> io::Result<RunResult> {
        let started_at = SystemTime::now();
        let run_id = options
            .run_id
            .clone()
            .unwrap_or_else(|| format!("{}-seed{}", time::compact(started_at), options.seed));
        let run_dir = fresh_run_dir(&options.out_dir, &run_id)?;
        let run_id = run_dir
            .file_name()
            .map_or(run_id, |name| name.to_string_lossy().into_owned());
        std::fs::create_dir_all(run_dir.join("divergences"))?;

        let feed = Mutex::new(Feed {
            inputs: Box::new(inputs),
            next_batch: 0,
            next_index: 0,
            remaining: match options.budget {
                Budget::Inputs(count) => Some(count),
                Budget::Time(_) => None,
            },
            exhausted: false,
        });
        let started = Instant::now();
        let deadline = match options.budget {
            Budget::Time(limit) => Some(started + limit),
            Budget::Inputs(_) => None,
        };
        let mut collector = Collector::new(self, options, &run_id, &run_dir);
        let threads = options.threads.max(1);
        let (sender, receiver) = mpsc::channel::<BatchResult>();
        let worker_error = std::thread::scope(|scope| {
            for _ in 0..threads {
                let sender = sender.clone();
                let feed = &feed;
                scope.spawn(move || {
                    let mut worker = Worker::new(self, options.origins_kept);
                    while let Some(batch) =
                        take_batch(feed, deadline, &options.stop, options.batch_size)
                    {
                        if sender.send(worker.process(batch)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            let mut progress =
                Progress::new(options.progress, options.budget, options.expected_inputs);
            let mut pending: BTreeMap<u64, BatchResult> = BTreeMap::new();
            let mut next_batch = 0;
            let mut first_error: Option<io::Error> = None;
            loop {
                match receiver.recv_timeout(options.progress.interval()) {
                    Ok(result) => {
                        pending.insert(result.batch, result);
                        while let Some(result) = pending.remove(&next_batch) {
                            next_batch += 1;
                            if let Err(error) = collector.merge(result) {
                                first_error.get_or_insert(error);
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                progress.update(collector.total_inputs, collector.reports.len());
            }
            progress.finish(collector.total_inputs, collector.reports.len());
            first_error
        });
        if let Some(error) = worker_error {
            return Err(error);
        }
        let duration = started.elapsed();
        let feed = feed
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let stopped_by = if feed.exhausted {
            "corpus-exhausted"
        } else if options.stop.load(Ordering::Relaxed) {
            "interrupted"
        } else {
            "budget"
        };
        collector.finish(started_at, duration.as_secs_f64(), threads, stopped_by)
    }
}

/// Finds a run directory that does not exist yet: `<out_dir>/<run_id>`, or with `-2`,
/// `-3`, ... appended when two runs start in the same second with the same seed.
fn fresh_run_dir(out_dir: &Path, run_id: &str) -> io::Result<PathBuf> {
    std::fs::create_dir_all(out_dir)?;
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
            Err(error) => return Err(error),
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

/// The shared input source.
struct Feed<'a> {
    inputs: Box<dyn Iterator<Item = Input> + Send + 'a>,
    next_batch: u64,
    next_index: u64,
    remaining: Option<u64>,
    exhausted: bool,
}

/// A batch of consecutive inputs.
struct Batch {
    index: u64,
    first_input: u64,
    inputs: Vec<Input>,
}

/// Takes the next batch, or `None` when the budget is spent, the corpus is exhausted or
/// a stop was requested.
fn take_batch(
    feed: &Mutex<Feed<'_>>,
    deadline: Option<Instant>,
    stop: &AtomicBool,
    size: usize,
) -> Option<Batch> {
    if deadline.is_some_and(|deadline| Instant::now() >= deadline) || stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut feed = feed.lock().ok()?;
    let size = match feed.remaining {
        Some(remaining) => size.min(usize::try_from(remaining).unwrap_or(usize::MAX)),
        None => size,
    };
    if size == 0 || feed.exhausted {
        return None;
    }
    let inputs: Vec<Input> = feed.inputs.by_ref().take(size).collect();
    if inputs.len() < size {
        feed.exhausted = true;
    }
    if inputs.is_empty() {
        return None;
    }
    let batch = Batch {
        index: feed.next_batch,
        first_input: feed.next_index,
        inputs,
    };
    feed.next_batch += 1;
    feed.next_index += batch.inputs.len() as u64;
    if let Some(remaining) = feed.remaining.as_mut() {
        *remaining -= batch.inputs.len() as u64;
    }
    Some(batch)
}

/// Per-aspect counters of one decoder, indexed by [`Aspect::index`].
type AspectCounters = [AspectCount; Aspect::ALL.len()];

/// The occurrences of one signature within one batch.
struct Found {
    signature: Signature,
    decoder: usize,
    first_input: u64,
    bytes: Vec<u8>,
    origin: Origin,
    count: u64,
    other_origins: Vec<Origin>,
}

/// What a worker learnt from one batch.
struct BatchResult {
    batch: u64,
    inputs: u64,
    bytes: u64,
    sources: Vec<(String, u64)>,
    counters: Vec<AspectCounters>,
    found: Vec<Found>,
}

/// The name an input is counted under in `summary.json`'s `sources`.
fn source_name(origin: &Origin) -> std::borrow::Cow<'_, str> {
    match origin {
        Origin::Vector { file, .. } => std::borrow::Cow::Owned(format!("vectors/{file}")),
        Origin::Generator { name, .. } => std::borrow::Cow::Borrowed(name),
        other => std::borrow::Cow::Owned(other.source()),
    }
}

/// One worker thread's reusable state.
struct Worker<'e> {
    engine: &'e Engine,
    capabilities: Vec<crate::decoders::Capabilities>,
    decoded: Decoded,
    outcomes: Vec<Outcome>,
    origins_kept: usize,
}

impl<'e> Worker<'e> {
    fn new(engine: &'e Engine, origins_kept: usize) -> Self {
        Worker {
            engine,
            capabilities: engine.decoders.iter().map(|d| d.capabilities()).collect(),
            decoded: Decoded::default(),
            outcomes: engine
                .decoders
                .iter()
                .map(|d| Outcome::verdict(d.name(), true))
                .collect(),
            origins_kept,
        }
    }

    fn process(&mut self, batch: Batch) -> BatchResult {
        let reference = Reference::rfc3629();
        let decoders = &self.engine.decoders;
        let mut result = BatchResult {
            batch: batch.index,
            inputs: batch.inputs.len() as u64,
            bytes: 0,
            sources: Vec::new(),
            counters: vec![AspectCounters::default(); decoders.len()],
            found: Vec::new(),
        };
        let mut found_index: HashMap<Signature, usize> = HashMap::new();
        let mut last_source: Option<usize> = None;
        for (offset, input) in batch.inputs.into_iter().enumerate() {
            let bytes = &input.bytes;
            result.bytes += bytes.len() as u64;
            // Count the source; consecutive inputs mostly share one.
            let name = source_name(&input.origin);
            let slot = match last_source {
                Some(slot) if result.sources[slot].0 == name => slot,
                _ => match result.sources.iter().position(|(n, _)| *n == name) {
                    Some(slot) => slot,
                    None => {
                        result.sources.push((name.into_owned(), 0));
                        result.sources.len() - 1
                    }
                },
            };
            result.sources[slot].1 += 1;
            last_source = Some(slot);

            reference.decode_into(bytes, &mut self.decoded);
            for (index, decoder) in decoders.iter().enumerate() {
                let outcome = &mut self.outcomes[index];
                let checked = check_decoder(
                    decoder.as_ref(),
                    self.capabilities[index],
                    bytes,
                    &self.decoded,
                    outcome,
                );
                let counters = &mut result.counters[index];
                counters[Aspect::Crash.index()].compared += 1;
                for aspect in checked.comparison.compared.iter() {
                    if aspect != Aspect::Crash {
                        counters[aspect.index()].compared += 1;
                    }
                }
                for aspect in checked.comparison.diverged.iter() {
                    counters[aspect.index()].divergences += 1;
                }
                let Some(signature) =
                    signature_of(decoder.name(), bytes, &self.decoded, &checked, outcome)
                else {
                    continue;
                };
                match found_index.get(&signature) {
                    Some(&slot) => {
                        let found = &mut result.found[slot];
                        found.count += 1;
                        if found.other_origins.len() < self.origins_kept {
                            found.other_origins.push(input.origin.clone());
                        }
                    }
                    None => {
                        found_index.insert(signature.clone(), result.found.len());
                        result.found.push(Found {
                            signature,
                            decoder: index,
                            first_input: batch.first_input + offset as u64,
                            bytes: bytes.clone(),
                            origin: input.origin.clone(),
                            count: 1,
                            other_origins: Vec::new(),
                        });
                    }
                }
            }
        }
        result
    }
}

/// The collector: merges batch results in order, minimises and writes reports.
struct Collector<'e> {
    engine: &'e Engine,
    options: &'e RunOptions,
    run_id: String,
    run_dir: PathBuf,
    reports: Vec<DivergenceReport>,
    report_of: HashMap<Signature, usize>,
    over_limit: HashSet<Signature>,
    counters: Vec<AspectCounters>,
    sources: BTreeMap<String, u64>,
    total_inputs: u64,
    total_bytes: u64,
    divergent_inputs: u64,
}

impl<'e> Collector<'e> {
    fn new(engine: &'e Engine, options: &'e RunOptions, run_id: &str, run_dir: &Path) -> Self {
        Collector {
            engine,
            options,
            run_id: run_id.to_string(),
            run_dir: run_dir.to_path_buf(),
            reports: Vec::new(),
            report_of: HashMap::new(),
            over_limit: HashSet::new(),
            counters: vec![AspectCounters::default(); engine.decoders.len()],
            sources: BTreeMap::new(),
            total_inputs: 0,
            total_bytes: 0,
            divergent_inputs: 0,
        }
    }

    fn merge(&mut self, result: BatchResult) -> io::Result<()> {
        self.total_inputs += result.inputs;
        self.total_bytes += result.bytes;
        for (name, count) in result.sources {
            *self.sources.entry(name).or_default() += count;
        }
        for (total, batch) in self.counters.iter_mut().zip(&result.counters) {
            for (t, b) in total.iter_mut().zip(batch) {
                t.compared += b.compared;
                t.divergences += b.divergences;
            }
        }
        for found in result.found {
            self.divergent_inputs += found.count;
            if let Some(&slot) = self.report_of.get(&found.signature) {
                self.add_occurrences(slot, found);
                continue;
            }
            if self.reports.len() >= self.options.max_reports {
                self.over_limit.insert(found.signature);
                continue;
            }
            let raw_signature = found.signature.clone();
            let (signature, minimized) = self.minimize(&found);
            if let Some(&slot) = self.report_of.get(&signature) {
                // Another input already led to the same minimised divergence.
                self.report_of.insert(raw_signature, slot);
                self.add_occurrences(slot, found);
                continue;
            }
            let report = self.new_report(found, &signature, &minimized)?;
            self.report_of.insert(raw_signature, self.reports.len());
            self.report_of.insert(signature, self.reports.len());
            self.reports.push(report);
        }
        Ok(())
    }

    /// Counts `found` under the report in `slot`, keeping a few more origins.
    fn add_occurrences(&mut self, slot: usize, found: Found) {
        let report = &mut self.reports[slot];
        report.occurrences += found.count;
        let room =
            self.options.origins_kept - report.other_origins.len().min(self.options.origins_kept);
        report.other_origins.extend(
            std::iter::once(found.origin)
                .chain(found.other_origins)
                .take(room),
        );
    }

    /// Minimises the first occurrence of a new signature; returns the signature the report
    /// is filed under, with the minimised input.
    ///
    /// Most divergences keep their whole signature while shrinking. A crash, a timeout or a
    /// protocol error cannot say which bytes caused it, so its signature's categories are
    /// those of every error in the input; it shrinks keeping only the decoder, aspect and
    /// shape, and is filed under the signature of what remains, so one panic met in many
    /// inputs is one report.
    fn minimize(&self, found: &Found) -> (Signature, minimize::Minimized) {
        let decoder = self.engine.decoders[found.decoder].as_ref();
        let mut checker = PairChecker::new(decoder);
        let target = found.signature.clone();
        let is_failure = matches!(
            target.aspect,
            Aspect::Crash | Aspect::Timeout | Aspect::Protocol
        );
        let minimized =
            minimize::minimize(&found.bytes, self.options.minimization_calls, |candidate| {
                checker.signature(candidate).is_some_and(|signature| {
                    if is_failure {
                        (&signature.aspect, &signature.shape) == (&target.aspect, &target.shape)
                    } else {
                        signature == target
                    }
                })
            });
        let signature = if is_failure {
            checker.signature(&minimized.bytes).unwrap_or(target)
        } else {
            target
        };
        (signature, minimized)
    }

    /// Writes the report of a new signature.
    fn new_report(
        &self,
        found: Found,
        signature: &Signature,
        minimized: &minimize::Minimized,
    ) -> io::Result<DivergenceReport> {
        let decoder = self.engine.decoders[found.decoder].as_ref();
        let report = build_report(
            decoder,
            signature,
            &found.bytes,
            minimized,
            ReportContext {
                run_id: &self.run_id,
                report_dir: &self.run_dir.join("divergences"),
                origin: found.origin,
                other_origins: found
                    .other_origins
                    .into_iter()
                    .take(self.options.origins_kept)
                    .collect(),
                occurrences: found.count,
                first_input: found.first_input,
                conditions: None,
            },
        );
        write_json_atomically(&report_path(&self.run_dir, &report.id), &report)?;
        Ok(report)
    }

    fn finish(
        self,
        started_at: SystemTime,
        duration_seconds: f64,
        threads: usize,
        stopped_by: &str,
    ) -> io::Result<RunResult> {
        for report in &self.reports {
            write_json_atomically(&report_path(&self.run_dir, &report.id), report)?;
        }
        let entry = |decoder: &dyn Decoder| DecoderEntry {
            name: decoder.name().to_string(),
            version: decoder.version(),
            description: decoder.description().to_string(),
            capabilities: decoder
                .capabilities()
                .names()
                .into_iter()
                .map(str::to_string)
                .collect(),
        };
        let comparisons = self
            .engine
            .decoders
            .iter()
            .zip(&self.counters)
            .map(|(decoder, counters)| DecoderCounts {
                decoder: decoder.name().to_string(),
                inputs: counters[Aspect::Crash.index()].compared,
                aspects: Aspect::ALL
                    .into_iter()
                    .filter(|aspect| counters[aspect.index()].compared > 0)
                    .map(|aspect| (aspect.as_str().to_string(), counters[aspect.index()]))
                    .collect(),
            })
            .collect();
        let exit_code = if self.divergent_inputs > 0 {
            EXIT_DIVERGENCES
        } else {
            EXIT_CLEAN
        };
        let (budget_kind, budget_amount) = match self.options.budget {
            Budget::Time(limit) => ("time", limit.as_secs_f64()),
            Budget::Inputs(count) => ("inputs", count as f64),
        };
        let summary = Summary {
            schema: SUMMARY_SCHEMA.to_string(),
            run_id: self.run_id.clone(),
            tool: Tool {
                name: "utf8conf".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            seed: self.options.seed,
            budget: BudgetEntry {
                text: self.options.budget.describe(),
                kind: budget_kind.to_string(),
                amount: budget_amount,
            },
            stopped_by: stopped_by.to_string(),
            started: time::rfc3339(started_at),
            finished: time::rfc3339(SystemTime::now()),
            duration_seconds,
            threads,
            reference: entry(&crate::decoders::reference::ReferenceDecoder),
            decoders: self
                .engine
                .decoders
                .iter()
                .map(|d| entry(d.as_ref()))
                .collect(),
            sources: self.sources,
            total_inputs: self.total_inputs,
            total_bytes: self.total_bytes,
            throughput_inputs_per_second: if duration_seconds > 0.0 {
                (self.total_inputs as f64 / duration_seconds).round()
            } else {
                0.0
            },
            comparisons,
            divergent_inputs: self.divergent_inputs,
            reports: self.reports.iter().map(|r| r.id.clone()).collect(),
            unreported_signatures: self.over_limit.len() as u64,
            exit_code,
        };
        write_json_atomically(&self.run_dir.join("summary.json"), &summary)?;
        Ok(RunResult {
            run_dir: self.run_dir,
            summary,
            reports: self.reports,
        })
    }
}

/// Where the report with `id` lives.
pub fn report_path(run_dir: &Path, id: &str) -> PathBuf {
    run_dir.join("divergences").join(format!("{id}.json"))
}

/// The facts of a report that depend on where its divergence was found (a run, a fuzz
/// target), not on the divergence itself.
pub struct ReportContext<'a> {
    /// The run id (`fuzz-<target>` for fuzzing).
    pub run_id: &'a str,
    /// The folder the report is written to (its `reproduce` command names the file there).
    pub report_dir: &'a Path,
    /// Where the first occurrence came from.
    pub origin: Origin,
    /// Where a few later occurrences came from.
    pub other_origins: Vec<Origin>,
    /// How many inputs showed this divergence.
    pub occurrences: u64,
    /// The index of the first occurrence among the run's inputs.
    pub first_input: u64,
    /// Conditions the decoder ran under that are not part of the signature (a fuzz
    /// target's chunk plan or alignment), appended to the explanation in parentheses.
    pub conditions: Option<String>,
}

/// Builds the report of `signature`, first seen in `input`, minimised to `minimized`: the
/// one place a [`DivergenceReport`] is assembled, for `utf8conf run` and for `cargo fuzz`.
pub fn build_report(
    decoder: &dyn Decoder,
    signature: &Signature,
    input: &[u8],
    minimized: &minimize::Minimized,
    context: ReportContext<'_>,
) -> DivergenceReport {
    let bytes = &minimized.bytes;
    let reference_outcome = Reference::rfc3629().outcome(REFERENCE_NAME, bytes);
    let mut checker = PairChecker::new(decoder);
    let checked = checker.check(bytes);
    let mut outcomes = serde_json::Map::new();
    outcomes.insert(
        REFERENCE_NAME.to_string(),
        serde_json::to_value(&reference_outcome).expect("outcomes serialise"),
    );
    let failure = match &checked.failure {
        None => {
            outcomes.insert(
                decoder.name().to_string(),
                serde_json::to_value(checker.last_outcome()).expect("outcomes serialise"),
            );
            None
        }
        Some(message) => Some(Failure {
            decoder: decoder.name().to_string(),
            kind: checked
                .comparison
                .primary
                .map_or("crash", |d| d.aspect.as_str())
                .to_string(),
            message: message.clone(),
        }),
    };
    let also_differs = checked
        .comparison
        .diverged
        .iter()
        .filter(|&aspect| aspect != signature.aspect)
        .map(|aspect| aspect.as_str().to_string())
        .collect();
    let answer = match &checked.failure {
        None => crate::security::Answer::Outcome(checker.last_outcome()),
        Some(_)
            if checked
                .comparison
                .primary
                .is_some_and(|d| d.aspect.as_str() != "crash") =>
        {
            crate::security::Answer::Unresponsive
        }
        Some(_) => crate::security::Answer::Crash,
    };
    let security = crate::security::classify(
        signature.aspect.as_str(),
        &signature.categories,
        bytes,
        answer,
    );
    let id = signature.id();
    let hex = format_hex(bytes);
    let path = context.report_dir.join(format!("{id}.json"));
    let mut explanation = explain::explain(bytes);
    if let Some(conditions) = &context.conditions {
        explanation.push_str(&format!("\n({conditions})"));
    }
    DivergenceReport {
        schema: DIVERGENCE_SCHEMA.to_string(),
        id,
        run_id: context.run_id.to_string(),
        decoders: vec![signature.reference.clone(), signature.decoder.clone()],
        aspect: signature.aspect.as_str().to_string(),
        shape: signature.shape.clone(),
        categories: signature.categories.clone(),
        also_differs,
        input_hex: format_hex(input),
        minimized_hex: hex.clone(),
        outcomes,
        failure,
        explanation,
        origin: context.origin,
        other_origins: context.other_origins,
        occurrences: context.occurrences,
        first_seen: time::rfc3339(SystemTime::now()),
        first_input_index: context.first_input,
        reproduce: format!(
            "utf8conf reproduce {}",
            shell_quote(&path.to_string_lossy())
        ),
        reproduce_decode: [signature.reference.as_str(), signature.decoder.as_str()]
            .iter()
            .map(|name| {
                format!(
                    "utf8conf decode --decoder {} --hex {}",
                    shell_quote(name),
                    shell_quote(&hex)
                )
            })
            .collect(),
        minimization: Minimization {
            input_len: input.len(),
            minimized_len: bytes.len(),
            calls: minimized.calls,
            budget_exhausted: minimized.budget_exhausted,
        },
        security: Some(security),
    }
}
