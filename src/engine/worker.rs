//! The workers: each takes batches of inputs from the shared feed, decodes every input
//! once with the reference and once with each decoder (contained), compares, counts, and
//! notes each divergence under its signature, keeping the first occurrence per batch.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::corpus::{Input, Origin};
use crate::outcome::Outcome;
use crate::reference::{Decoded, Reference};

use super::check::{check_decoder, signature_of};
use super::signature::Signature;
use super::Engine;

/// The shared input source.
pub(super) struct Feed<'a> {
    pub(super) inputs: Box<dyn Iterator<Item = Input> + Send + 'a>,
    pub(super) next_batch: u64,
    pub(super) next_index: u64,
    pub(super) remaining: Option<u64>,
    pub(super) exhausted: bool,
}

/// A batch of consecutive inputs.
pub(super) struct Batch {
    pub(super) index: u64,
    pub(super) first_input: u64,
    pub(super) inputs: Vec<Input>,
}

/// Takes the next batch, or `None` when the budget is spent, the corpus is exhausted or
/// a stop was requested.
pub(super) fn take_batch(
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

use crate::engine::summary::count_inputs;
pub(super) use crate::engine::summary::AspectCounters;

/// The occurrences of one signature within one batch.
pub(super) struct Found {
    pub(super) signature: Signature,
    pub(super) decoder: usize,
    pub(super) first_input: u64,
    pub(super) bytes: Vec<u8>,
    pub(super) origin: Origin,
    pub(super) count: u64,
    pub(super) other_origins: Vec<Origin>,
}

/// What a worker learnt from one batch.
pub(super) struct BatchResult {
    pub(super) batch: u64,
    pub(super) inputs: u64,
    pub(super) bytes: u64,
    pub(super) sources: Vec<(String, u64)>,
    pub(super) counters: Vec<AspectCounters>,
    pub(super) found: Vec<Found>,
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
pub(super) struct Worker<'e> {
    engine: &'e Engine,
    capabilities: Vec<crate::decoders::Capabilities>,
    decoded: Decoded,
    outcomes: Vec<Outcome>,
    origins_kept: usize,
}

impl<'e> Worker<'e> {
    pub(super) fn new(engine: &'e Engine, origins_kept: usize) -> Self {
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

    pub(super) fn process(&mut self, batch: Batch) -> BatchResult {
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
                count_inputs(
                    &mut result.counters[index],
                    checked.comparison.compared,
                    checked.comparison.diverged,
                    1,
                );
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
