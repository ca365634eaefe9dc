//! The workers: each takes batches of inputs from the shared feed, decodes every input
//! once with the reference and once with each decoder (contained), compares, counts, and
//! notes each departure under its signature, keeping the first occurrence per batch.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::corpus::{Input, Origin};
use crate::decoders::Decoder;
use crate::outcome::Outcome;
use crate::reference::{Decoded, Reference};

use super::batch::{BatchResult, Occurrence, Source};
use super::check::{check_decoder, signature_of};
use super::signature::Signature;
use super::summary::{count_inputs, AspectCounters};

/// The shared input source.
pub(super) struct Feed<'a> {
    pub(super) inputs: Box<dyn Iterator<Item = Input> + Send + 'a>,
    pub(super) next_batch: u64,
    pub(super) next_index: u64,
    pub(super) remaining: Option<u64>,
    pub(super) exhausted: bool,
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

/// A corpus as a [`Source`]: batches of `size` consecutive inputs of the shared feed,
/// until the budget is spent, the corpus runs out or a stop is requested.
pub(super) struct CorpusSource<'a> {
    pub(super) feed: Mutex<Feed<'a>>,
    pub(super) deadline: Option<Instant>,
    pub(super) stop: &'a AtomicBool,
    pub(super) size: usize,
    pub(super) origins_kept: usize,
}

impl Source for CorpusSource<'_> {
    fn work(&self, decoders: &[Box<dyn Decoder>], deliver: &mut dyn FnMut(BatchResult) -> bool) {
        let mut worker = Worker::new(decoders, self.origins_kept);
        while let Some(batch) = take_batch(&self.feed, self.deadline, self.stop, self.size) {
            if !deliver(worker.process(batch)) {
                break;
            }
        }
    }

    fn exhausted(&self) -> bool {
        self.feed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .exhausted
    }
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
    decoders: &'e [Box<dyn Decoder>],
    capabilities: Vec<crate::decoders::Capabilities>,
    decoded: Decoded,
    outcomes: Vec<Outcome>,
    origins_kept: usize,
}

impl<'e> Worker<'e> {
    fn new(decoders: &'e [Box<dyn Decoder>], origins_kept: usize) -> Self {
        Worker {
            decoders,
            capabilities: decoders.iter().map(|d| d.capabilities()).collect(),
            decoded: Decoded::default(),
            outcomes: decoders
                .iter()
                .map(|d| Outcome::verdict(d.name(), true))
                .collect(),
            origins_kept,
        }
    }

    fn process(&mut self, batch: Batch) -> BatchResult {
        let reference = Reference::rfc3629();
        let decoders = self.decoders;
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
                    checked.comparison.departed,
                    1,
                );
                let Some(signature) =
                    signature_of(decoder.name(), bytes, &self.decoded, &checked, outcome)
                else {
                    continue;
                };
                result.file(
                    &mut found_index,
                    signature,
                    Occurrence {
                        decoder: index,
                        input: batch.first_input + offset as u64,
                        bytes,
                    },
                    || input.origin.clone(),
                    self.origins_kept,
                );
            }
        }
        result
    }
}
