//! The space of every short input as an engine [`Source`]: worker threads take blocks
//! in turn and run each through the decoders with a [`Tally`] and without a per-input
//! allocation (see the [module header](super)).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::aspect::AspectSet;
use crate::corpus::Origin;
use crate::decoders::{Capabilities, Decoder};
use crate::diagnosis::compare::{agrees, compare, compared_if_agreeing, Comparison};
use crate::diagnosis::contain::contained;
use crate::engine::batch::{BatchResult, Occurrence, Source};
use crate::engine::check::{check_decoder, signature_of, Checked};
use crate::engine::signature::Signature;
use crate::outcome::Outcome;
use crate::reference::{Decoded, Reference};

use super::space::{Block, Space};
use super::tally::Tally;

/// The blocks of one shard of the space, handed out in order.
pub(super) struct BlockSource<'a> {
    /// The space the blocks are of.
    pub(super) space: Space,
    /// The numbers of the shard's blocks, in order; the batch number of a block is its
    /// position here.
    pub(super) blocks: Vec<u64>,
    /// Blocks handed out so far (may run past the end).
    pub(super) next: AtomicU64,
    /// Raised to stop early: blocks already taken are finished.
    pub(super) stop: &'a AtomicBool,
    /// The generator name in origins and `sources`: `exhaustive-upto-4`.
    pub(super) name: String,
    /// Later occurrences kept per signature and block.
    pub(super) origins_kept: usize,
}

impl Source for BlockSource<'_> {
    fn work(&self, decoders: &[Box<dyn Decoder>], deliver: &mut dyn FnMut(BatchResult) -> bool) {
        let mut worker = Worker::new(decoders, self);
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let taken = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(&number) = usize::try_from(taken)
                .ok()
                .and_then(|position| self.blocks.get(position))
            else {
                break;
            };
            let mut result = worker.process(self.space.block(number));
            result.batch = taken;
            if !deliver(result) {
                break;
            }
        }
    }

    fn exhausted(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.blocks.len() as u64
    }
}

impl BlockSource<'_> {
    /// The origin of input `index` of the space.
    fn origin(&self, index: u64) -> Origin {
        Origin::Generator {
            name: self.name.clone(),
            seed: 0,
            index,
        }
    }
}

/// Inputs per batch: every decoder runs over one batch before the next batch's
/// reference outcomes are made, so that those (with their heap buffers, about 150 bytes
/// an input) are read from cache rather than memory by all decoders.
const BATCH: usize = 1024;

/// One worker thread's reusable buffers.
struct Worker<'d> {
    decoders: &'d [Box<dyn Decoder>],
    source: &'d BlockSource<'d>,
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
    /// Per decoder: the block's departing inputs so far (index in the block).
    departing: Vec<Vec<(usize, Checked)>>,
}

impl<'d> Worker<'d> {
    fn new(decoders: &'d [Box<dyn Decoder>], source: &'d BlockSource<'d>) -> Self {
        Worker {
            decoders,
            source,
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
            departing: decoders.iter().map(|_| Vec::new()).collect(),
        }
    }

    /// Runs every input of `block`; the result's batch number is for the caller to set.
    fn process(&mut self, block: Block) -> BatchResult {
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
        let mut result = BatchResult {
            batch: 0,
            inputs: block.count,
            bytes: block.count * len as u64,
            sources: vec![(format!("{}/len-{len}", self.source.name), block.count)],
            counters: self.tallies.iter().map(Tally::counters).collect(),
            found: Vec::new(),
        };
        for index in 0..self.decoders.len() {
            let departing = std::mem::take(&mut self.departing[index]);
            self.note_departures(index, &block, departing, &mut result);
        }
        result.found.sort_by_key(|found| found.first_input);
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
        let departing = &mut self.departing[index];
        let departing_before = departing.len();
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
                departing.push((i, checked));
            }
        });
        if batch.is_err() {
            // A panic: replay the batch input by input, each contained.
            *outcome = Outcome::verdict(decoder.name(), true);
            tally = Tally::new();
            departing.truncate(departing_before);
            for i in range {
                let input = &inputs[i * len..(i + 1) * len];
                let checked =
                    check_decoder(decoder, capabilities, input, &decoded[i - start], outcome);
                tally.add(&checked.comparison);
                if checked.comparison.primary.is_some() {
                    departing.push((i, checked));
                }
            }
        }
        self.tallies[index].absorb(&tally);
    }

    /// Files the departing inputs of one decoder's batch under their signatures.
    fn note_departures(
        &mut self,
        index: usize,
        block: &Block,
        departing: Vec<(usize, Checked)>,
        result: &mut BatchResult,
    ) {
        let decoder = self.decoders[index].as_ref();
        let len = block.len;
        let mut slot_of: HashMap<Signature, usize> = HashMap::new();
        let mut reference = Decoded::default();
        for (i, checked) in departing {
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
            result.file(
                &mut slot_of,
                signature,
                Occurrence {
                    decoder: index,
                    input: input_index,
                    bytes: input,
                },
                || self.source.origin(input_index),
                self.source.origins_kept,
            );
        }
    }
}
