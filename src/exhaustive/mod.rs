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
//!    [`Decoded`] per input (the precomputed reference outcome, still in cache for every
//!    decoder), and run each decoder over the batch: `decode_into` a reused outcome,
//!    ask [`agrees`] whether it agrees with the reference's, and count it per aspect (in
//!    a `Tally`, one increment per agreeing input, under the aspects
//!    [`compared_if_agreeing`] names); only an input that departs is [`compare`]d in
//!    full. A batch runs inside one panic containment; only when a decoder
//!    panics is that batch replayed input by input through the engine's
//!    [`check_decoder`], so a panic is still one `crash` divergence on the input that
//!    caused it.
//!
//! Nothing is allocated per input. Block results are merged in block order by
//! [`collect::Collector`], which minimises and writes each new divergence with the
//! engine's own report builder, and writes `summary.json` as `utf8conf run` does, plus
//! `exhaustive.json` (the space and the shard) so that shard summaries can be merged
//! ([`merge::merge`]).

pub mod collect;
pub mod merge;
pub mod space;
mod tally;

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Instant, SystemTime};

use crate::decoders::{Capabilities, Decoder};
use crate::diagnosis::compare::{agrees, compare, compared_if_agreeing, AspectSet, Comparison};
use crate::engine::budget::Budget;
use crate::engine::check::{check_decoder, signature_of, Checked, REFERENCE_NAME};
use crate::engine::contain::contained;
use crate::engine::progress::{Progress, ProgressMode};
use crate::engine::signature::Signature;
use crate::engine::RunOptions;
use crate::outcome::Outcome;
use crate::reference::{Decoded, Reference};

use collect::Collector;
use space::{Block, Shard, Space};
use tally::Tally;

pub use crate::engine::summary::AspectCounters;

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
    /// Predicate calls allowed when minimising one divergence.
    pub minimization_calls: usize,
    /// Reports written at most (further distinct divergences are only counted).
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

/// The occurrences of one signature within one block.
pub struct Found {
    /// The divergence.
    pub signature: Signature,
    /// Index of the decoder in the run's list.
    pub decoder: usize,
    /// Index of the first input showing it, in the space.
    pub first_index: u64,
    /// That input.
    pub bytes: Vec<u8>,
    /// Inputs of the block showing it.
    pub count: u64,
    /// Indices of a few later ones.
    pub other_indices: Vec<u64>,
}

/// What a worker learnt from one block.
pub struct BlockResult {
    /// The block.
    pub block: Block,
    /// Per decoder.
    pub counters: Vec<AspectCounters>,
    /// Divergences, in input order of first occurrence.
    pub found: Vec<Found>,
}

/// Later occurrences kept per signature and block.
const OTHER_INDICES_KEPT: usize = 4;

/// Runs every input of the shard through `decoders` (the reference itself is skipped)
/// and writes the reports and summary; returns the collector's result.
pub fn run(
    decoders: Vec<Box<dyn Decoder>>,
    options: &ExhaustiveOptions,
) -> io::Result<collect::Finished> {
    let decoders: Vec<Box<dyn Decoder>> = decoders
        .into_iter()
        .filter(|decoder| decoder.name() != REFERENCE_NAME)
        .collect();
    let started_at = SystemTime::now();
    let started = Instant::now();
    let blocks: Vec<u64> = (0..options.space.blocks())
        .filter(|&b| options.shard.owns(b))
        .collect();
    let shard_inputs = options.space.shard_inputs(options.shard);
    let mut collector = Collector::new(&decoders, options, started_at)?;
    let next = AtomicU64::new(0);
    let threads = options.threads.max(1);
    let (sender, receiver) = mpsc::channel::<BlockResult>();
    let write_error = std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let (next, blocks, decoders) = (&next, &blocks, &decoders);
            scope.spawn(move || {
                let mut worker = Worker::new(decoders);
                loop {
                    if options.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let taken = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&number) = blocks.get(taken) else {
                        break;
                    };
                    let result = worker.process(options.space.block(number));
                    if sender.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut progress = Progress::new(
            options.progress,
            Budget::Inputs(shard_inputs),
            Some(shard_inputs),
        );
        // Merge in block order, whatever order the threads finish in.
        let mut pending: BTreeMap<u64, BlockResult> = BTreeMap::new();
        let mut next_position = 0usize;
        let mut first_error = None;
        loop {
            match receiver.recv_timeout(options.progress.interval()) {
                Ok(result) => {
                    pending.insert(result.block.number, result);
                    while let Some(result) = blocks
                        .get(next_position)
                        .and_then(|number| pending.remove(number))
                    {
                        next_position += 1;
                        if let Err(error) = collector.merge(result) {
                            first_error.get_or_insert(error);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            progress.update(collector.total_inputs(), collector.report_count());
        }
        progress.finish(collector.total_inputs(), collector.report_count());
        first_error
    });
    if let Some(error) = write_error {
        return Err(error);
    }
    let interrupted = collector.total_inputs() < shard_inputs;
    collector.finish(started.elapsed().as_secs_f64(), threads, interrupted)
}

/// Inputs per batch: every decoder runs over one batch before the next batch's
/// reference outcomes are made, so that those (with their heap buffers, about 150 bytes
/// an input) are read from cache rather than memory by all decoders.
const BATCH: usize = 1024;

/// One worker thread's reusable buffers.
struct Worker<'d> {
    decoders: &'d [Box<dyn Decoder>],
    capabilities: Vec<Capabilities>,
    /// Per decoder: the aspects an agreeing input is compared on, for an ill-formed
    /// input (`[0]`) and a well-formed one (`[1]`).
    agreeing: Vec<[AspectSet; 2]>,
    inputs: Vec<u8>,
    /// The reference outcomes of the current batch.
    decoded: Vec<Decoded>,
    outcome: Outcome,
    /// Per decoder: the counts of the block so far.
    tallies: Vec<Tally>,
    /// Per decoder: the block's divergent inputs so far (index in the block).
    divergent: Vec<Vec<(usize, Checked)>>,
}

impl<'d> Worker<'d> {
    fn new(decoders: &'d [Box<dyn Decoder>]) -> Self {
        Worker {
            decoders,
            capabilities: decoders.iter().map(|d| d.capabilities()).collect(),
            agreeing: decoders
                .iter()
                .map(|d| {
                    let capabilities = d.capabilities();
                    [false, true].map(|valid| compared_if_agreeing(capabilities, valid))
                })
                .collect(),
            inputs: Vec::new(),
            decoded: Vec::new(),
            outcome: Outcome::verdict("", true),
            tallies: decoders.iter().map(|_| Tally::new()).collect(),
            divergent: decoders.iter().map(|_| Vec::new()).collect(),
        }
    }

    fn process(&mut self, block: Block) -> BlockResult {
        let len = block.len;
        let count = block.count as usize;
        self.inputs.resize(count * len, 0);
        for (i, input) in self.inputs.chunks_exact_mut(len.max(1)).enumerate() {
            block.input(i as u64, input);
        }
        if self.decoded.len() < BATCH.min(count) {
            self.decoded.resize_with(BATCH.min(count), Decoded::default);
        }
        for tally in &mut self.tallies {
            tally.clear();
        }
        let reference = Reference::rfc3629();
        for start in (0..count).step_by(BATCH) {
            let end = (start + BATCH).min(count);
            for i in start..end {
                let input = &self.inputs[i * len..(i + 1) * len];
                reference.decode_into(input, &mut self.decoded[i - start]);
            }
            for index in 0..self.decoders.len() {
                self.batch(index, len, start..end);
            }
        }
        let mut result = BlockResult {
            block,
            counters: self.tallies.iter().map(Tally::counters).collect(),
            found: Vec::new(),
        };
        for index in 0..self.decoders.len() {
            let divergent = std::mem::take(&mut self.divergent[index]);
            self.note_divergences(index, &block, divergent, &mut result);
        }
        result.found.sort_by_key(|found| found.first_index);
        result
    }

    /// Runs decoder `index` over the inputs `range` of the block (whose reference
    /// outcomes are in `self.decoded`, from 0); one panic containment for the whole
    /// batch.
    fn batch(&mut self, index: usize, len: usize, range: std::ops::Range<usize>) {
        let decoder = self.decoders[index].as_ref();
        let capabilities = self.capabilities[index];
        let agreeing = self.agreeing[index];
        let (inputs, decoded) = (&self.inputs, &self.decoded);
        let mut tally = Tally::new();
        let divergent = &mut self.divergent[index];
        let divergent_before = divergent.len();
        let outcome = &mut self.outcome;
        let start = range.start;
        let batch = contained(|| {
            for i in range.clone() {
                let input = &inputs[i * len..(i + 1) * len];
                let checked = match decoder.decode_into(input, outcome) {
                    Ok(()) => {
                        let reference = &decoded[i - start];
                        if agrees(capabilities, outcome, reference) {
                            tally.add_agreeing(agreeing[usize::from(reference.is_valid())]);
                            continue;
                        }
                        let comparison = compare(capabilities, outcome, reference);
                        tally.add(&comparison);
                        if comparison.primary.is_none() {
                            continue;
                        }
                        Checked {
                            comparison,
                            failure: None,
                        }
                    }
                    Err(failure) => {
                        let comparison = Comparison::failure(failure.kind.aspect());
                        tally.add(&comparison);
                        Checked {
                            comparison,
                            failure: Some(failure.message),
                        }
                    }
                };
                divergent.push((i, checked));
            }
        });
        if batch.is_err() {
            // A panic: replay the batch input by input, each contained.
            *outcome = Outcome::verdict(decoder.name(), true);
            tally = Tally::new();
            divergent.truncate(divergent_before);
            for i in range {
                let input = &inputs[i * len..(i + 1) * len];
                let checked =
                    check_decoder(decoder, capabilities, input, &decoded[i - start], outcome);
                tally.add(&checked.comparison);
                if checked.comparison.primary.is_some() {
                    divergent.push((i, checked));
                }
            }
        }
        self.tallies[index].absorb(&tally);
    }

    /// Files the divergent inputs of one decoder's batch under their signatures.
    fn note_divergences(
        &mut self,
        index: usize,
        block: &Block,
        divergent: Vec<(usize, Checked)>,
        result: &mut BlockResult,
    ) {
        let decoder = self.decoders[index].as_ref();
        let len = block.len;
        let mut slot_of: HashMap<Signature, usize> = HashMap::new();
        let mut reference = Decoded::default();
        for (i, checked) in divergent {
            let input = &self.inputs[i * len..(i + 1) * len];
            // The batch's reference outcomes are gone: decode this one again.
            Reference::rfc3629().decode_into(input, &mut reference);
            // Re-run the decoder for the outcome the signature is computed from.
            if checked.failure.is_none() {
                let _ = contained(|| decoder.decode_into(input, &mut self.outcome));
            }
            let Some(signature) =
                signature_of(decoder.name(), input, &reference, &checked, &self.outcome)
            else {
                continue;
            };
            let input_index = block.first_index + i as u64;
            match slot_of.get(&signature) {
                Some(&slot) => {
                    let found: &mut Found = &mut result.found[slot];
                    found.count += 1;
                    if found.other_indices.len() < OTHER_INDICES_KEPT {
                        found.other_indices.push(input_index);
                    }
                }
                None => {
                    slot_of.insert(signature.clone(), result.found.len());
                    result.found.push(Found {
                        signature,
                        decoder: index,
                        first_index: input_index,
                        bytes: input.to_vec(),
                        count: 1,
                        other_indices: Vec::new(),
                    });
                }
            }
        }
    }
}
