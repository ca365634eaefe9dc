//! `utf8conf exhaustive`: every input up to `max_len` bytes through the decoders,
//! compared with the reference.
//!
//! Sampling cannot show that a decoder is right on *every* short input; enumeration can,
//! and every UTF-8 decision is local (a lead and at most three more bytes), so all inputs
//! of up to 4 bytes (4,311,810,305 of them) exercise every pair of a unit and what
//! follows it. The space ([`space`]) is cut into blocks of 65,536 inputs; worker threads
//! (one per core) take blocks in turn and, per block:
//!
//! 1. write the block's inputs into one flat buffer;
//! 2. for each batch of 1,024 of them, decode each once with the reference, into a reused
//!    [`Decoded`](crate::reference::Decoded) per input (the precomputed reference outcome, still in cache for every
//!    decoder), and run each decoder over the batch: `decode_into` a reused outcome,
//!    ask [`agrees`](crate::diagnosis::compare::agrees) whether it agrees with the reference's, and count it per aspect (in
//!    a `Tally`, one increment per agreeing input, under the aspects
//!    [`compared_if_agreeing`](crate::diagnosis::compare::compared_if_agreeing) names); only an input that departs is [`compare`](crate::diagnosis::compare::compare)d in
//!    full. A batch runs inside one panic containment; only when a decoder
//!    panics is that batch replayed input by input through the engine's
//!    [`check_decoder`](crate::engine::check::check_decoder), so a panic is still one `crash` departure on the input that
//!    caused it.
//!
//! Nothing is allocated per input. The blocks are an engine batch source
//! ([`crate::engine::batch::Source`]): the engine's run loop merges their results in
//! block order with the collector of `utf8conf run`, which minimises and writes each new
//! departure ([`crate::engine::Minimise::BySignature`]) and writes `summary.json`; this
//! module adds `exhaustive.json` (the space and the shard) so that shard summaries can be merged
//! ([`merge::merge`]).

pub mod coverage;
pub mod merge;
mod source;
pub mod space;
mod tally;

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::SystemTime;

use crate::atomic_file::write_json_atomically;
use crate::decoders::Decoder;
use crate::engine::budget::Budget;
use crate::engine::progress::ProgressMode;
use crate::engine::{Engine, Minimise, RunError, RunOptions};
use crate::time;

use coverage::{Coverage, Finished, EXHAUSTIVE_SCHEMA};
use source::BlockSource;
use space::{Shard, Space};

/// How an exhaustive run is carried out.
pub struct ExhaustiveOptions {
    /// The inputs: every input up to this many bytes.
    pub space: Space,
    /// The part of the space this run covers.
    pub shard: Shard,
    /// Where the run directory is created.
    pub out_dir: PathBuf,
    /// Worker threads.
    pub threads: usize,
    /// How progress is shown.
    pub progress: ProgressMode,
    /// Predicate calls allowed when minimising one departure.
    pub minimization_calls: usize,
    /// Reports written at most (further distinct departures are only counted).
    pub max_reports: usize,
    /// Raised to stop early (Ctrl-C): blocks already taken are finished.
    pub stop: Arc<AtomicBool>,
    /// The `--lib` library and symbol, as given on the command line, when a C library
    /// is among the decoders (its reports' reproduction commands load it again).
    pub library: Option<(String, String)>,
    /// What learning the machine of each decoder that departs may cost
    /// ([`crate::engine::model`]); `None` skips the model.
    pub model: Option<crate::diagnosis::learn::ModelBudget>,
}

impl ExhaustiveOptions {
    /// Defaults: the whole space of `max_len`, one thread per core, progress on stderr,
    /// and `utf8conf run`'s limits on minimisation and reports.
    pub fn new(space: Space, out_dir: impl Into<PathBuf>) -> ExhaustiveOptions {
        let run = RunOptions::new(out_dir);
        ExhaustiveOptions {
            space,
            shard: Shard::WHOLE,
            out_dir: run.out_dir,
            threads: run.threads,
            progress: ProgressMode::for_stderr(),
            minimization_calls: run.minimization_calls,
            max_reports: run.max_reports,
            stop: run.stop,
            library: None,
            model: run.model,
        }
    }

    /// The name a `--lib` decoder reports under (its symbol), or `""` without one.
    pub fn library_name(&self) -> &str {
        self.library
            .as_ref()
            .map_or("", |(_, symbol)| symbol.as_str())
    }

    /// The generator name in origins and `sources`: `exhaustive-upto-4`.
    pub fn source_name(&self) -> String {
        format!("exhaustive-upto-{}", self.space.max_len())
    }
}

/// Runs every input of the shard through `decoders` (the reference itself is skipped)
/// with the engine's run loop and collector, and writes the reports, `summary.json` and
/// `exhaustive.json`.
pub fn run(decoders: Vec<Box<dyn Decoder>>, options: &ExhaustiveOptions) -> io::Result<Finished> {
    let started_at = SystemTime::now();
    let shard_inputs = options.space.shard_inputs(options.shard);
    let run_id = format!(
        "{}-exhaustive{}-shard{}of{}",
        time::compact(started_at),
        options.space.max_len(),
        options.shard.index,
        options.shard.count
    );
    let mut run = RunOptions::new(&options.out_dir);
    run.budget = Budget::Inputs(shard_inputs);
    run.run_id = Some(run_id);
    run.threads = options.threads;
    run.progress = options.progress;
    run.expected_inputs = Some(shard_inputs);
    run.minimization_calls = options.minimization_calls;
    run.max_reports = options.max_reports;
    run.stop = Arc::clone(&options.stop);
    run.model = options.model;
    run.minimise = Minimise::BySignature;
    run.library = options.library.clone();
    let source = BlockSource {
        space: options.space,
        blocks: (0..options.space.blocks())
            .filter(|&b| options.shard.owns(b))
            .collect(),
        next: AtomicU64::new(0),
        stop: &options.stop,
        name: options.source_name(),
        origins_kept: run.origins_kept,
    };
    let result = Engine::new(decoders)
        .run_source(&source, &run)
        .map_err(|error| match error {
            RunError::Setup(error) | RunError::Write { error, .. } => error,
        })?;
    let coverage = Coverage {
        schema: EXHAUSTIVE_SCHEMA.to_string(),
        max_len: options.space.max_len(),
        shards: vec![options.shard.to_string()],
        shard_count: options.shard.count,
        inputs: result.summary.total_inputs,
        complete: result.summary.total_inputs == shard_inputs,
    };
    write_json_atomically(&result.run_dir.join("exhaustive.json"), &coverage)?;
    Ok(Finished {
        run_dir: result.run_dir,
        summary: result.summary,
        coverage,
    })
}
