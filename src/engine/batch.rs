//! What flows from the workers to the collector, and the one thing an input source must
//! do to feed the run loop.
//!
//! The run loop ([`super::Engine::run_source`]) does not know where inputs come from: a
//! [`Source`] hands each worker thread batches and turns each into a [`BatchResult`]
//! (counts per decoder and aspect, and each departure's first occurrence under its
//! signature). A seeded or vector corpus is one source (`utf8conf run`); the numbered
//! space of every short input is another (`utf8conf exhaustive`), which counts with a
//! tally of its own because it runs billions of inputs. Whatever the source, one
//! collector merges the results in batch order, so a run's reports depend only on its
//! inputs.

use std::collections::HashMap;

use crate::corpus::Origin;
use crate::decoders::Decoder;

use super::signature::Signature;
use super::summary::AspectCounters;

/// The occurrences of one signature within one batch.
#[derive(Debug, Clone)]
pub struct Found {
    /// The departure.
    pub signature: Signature,
    /// Index of the decoder in the run's list.
    pub decoder: usize,
    /// The first input showing it: its position in the run's input sequence.
    pub first_input: u64,
    /// That input.
    pub bytes: Vec<u8>,
    /// Where that input came from.
    pub origin: Origin,
    /// Inputs of the batch showing it.
    pub count: u64,
    /// Where a few later ones came from.
    pub other_origins: Vec<Origin>,
}

/// What a worker learnt from one batch.
#[derive(Debug, Clone)]
pub struct BatchResult {
    /// The batch's position in the run (0, 1, 2, ...): the collector merges in this order.
    pub batch: u64,
    /// Inputs in the batch.
    pub inputs: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Inputs per source name (`summary.json`'s `sources`).
    pub sources: Vec<(String, u64)>,
    /// Per decoder.
    pub counters: Vec<AspectCounters>,
    /// Departures, in input order of first occurrence (decoders in order within one
    /// input).
    pub found: Vec<Found>,
}

/// One input that shows a departure, as a worker files it.
#[derive(Debug, Clone, Copy)]
pub struct Occurrence<'a> {
    /// Index of the decoder in the run's list.
    pub decoder: usize,
    /// The input's position in the run's input sequence.
    pub input: u64,
    /// Its bytes.
    pub bytes: &'a [u8],
}

impl BatchResult {
    /// Files `occurrence` under `signature`: the batch's first input with it becomes its
    /// [`Found`] (`slots` maps each signature to its place in `found`), a later one is
    /// counted, and up to `origins_kept` of the later ones' origins are kept. `origin` is
    /// asked only when an origin is kept.
    pub fn file(
        &mut self,
        slots: &mut HashMap<Signature, usize>,
        signature: Signature,
        occurrence: Occurrence<'_>,
        origin: impl FnOnce() -> Origin,
        origins_kept: usize,
    ) {
        match slots.get(&signature) {
            Some(&slot) => {
                let found = &mut self.found[slot];
                found.count += 1;
                if found.other_origins.len() < origins_kept {
                    found.other_origins.push(origin());
                }
            }
            None => {
                slots.insert(signature.clone(), self.found.len());
                self.found.push(Found {
                    signature,
                    decoder: occurrence.decoder,
                    first_input: occurrence.input,
                    bytes: occurrence.bytes.to_vec(),
                    origin: origin(),
                    count: 1,
                    other_origins: Vec::new(),
                });
            }
        }
    }
}

/// Where a run's inputs come from, shared by its worker threads.
pub trait Source: Sync {
    /// Runs on one worker thread: takes batches until none is left (or a stop is
    /// requested), runs each through `decoders` and hands its result to `deliver`;
    /// returns as soon as `deliver` answers `false` (the collector is gone). Batches are
    /// numbered from 0 across all threads, each number given once.
    fn work(&self, decoders: &[Box<dyn Decoder>], deliver: &mut dyn FnMut(BatchResult) -> bool);

    /// True once every input of the source has been handed out (the run ends as
    /// `corpus-exhausted` rather than by its budget or a stop).
    fn exhausted(&self) -> bool;
}
