//! The machine of a streaming decoder, learned and diagnosed like a one-shot decoder's.
//!
//! Split-point grading ([`super::streaming`]) asks whether each chunking of a fixed set
//! of inputs decodes like the whole input; it finds a bug of the state carried between
//! chunks when one of those inputs meets it. The machine asks the question for every
//! input at once: fed one byte per chunk, a streaming decoder is a machine over bytes
//! whose every transition crosses a chunk boundary, and it is learned with the same
//! learner, the same abstract outputs and the same equivalence oracle as the one-shot
//! machine ([`crate::model`]). Its difference from RFC 3629's machine is diagnosed the
//! same way, into mechanisms with generated titles and shortest witnesses.
//!
//! What the streaming section reports is the part of that difference the one-shot
//! machine does not have: a mechanism of the byte-at-a-time machine whose title is not
//! one of the one-shot machine's is a bug of streaming itself (a lead byte forgotten at
//! a chunk boundary, an error held back past its end), while the one-shot machine's own
//! mechanisms are the check's findings already. When both machines are complete, the
//! section also says whether they are the same machine: no input, fed one byte at a
//! time, decodes differently from the same input in one piece.

use serde::Serialize;

use crate::adapter::ExternalDecoder;
use crate::decoders::chunk_plan::chunks;
use crate::decoders::{Capabilities, Decoder};
use crate::diagnosis::learn::{learn, ModelBudget};
use crate::model::mechanism::Finding;
use crate::model::{LearnedMachine, ModelReport};
use crate::outcome::{Answer, DecoderFailure, Outcome};

/// An adapter's streaming mode with every input fed one byte per chunk, as a decoder.
/// Its capabilities are those of the adapter that its chunked answers carry: a chunked
/// answer must have `valid` and what was emitted, and may have the first error's fields
/// (docs/PROTOCOL.md, Streaming mode), so they are asked for on two ill-formed inputs
/// before learning.
pub struct ByteAtATime<'a> {
    adapter: &'a ExternalDecoder,
    name: String,
    capabilities: Capabilities,
}

impl<'a> ByteAtATime<'a> {
    /// `adapter` (whose hello negotiated streaming) fed one byte per chunk.
    pub fn new(adapter: &'a ExternalDecoder) -> ByteAtATime<'a> {
        let mut fed = ByteAtATime {
            adapter,
            name: format!("{} (one byte per chunk)", adapter.name()),
            capabilities: adapter.capabilities(),
        };
        // `80` is an error of length 1 at 0, `C2` an incomplete sequence at the end.
        let probes = fed.decode_batch(&[&[0x80], &[0xC2]]);
        let answered =
            |has: fn(&Outcome) -> bool| probes.iter().all(|answer| answer.as_ref().is_ok_and(has));
        let offered = adapter.capabilities();
        fed.capabilities = Capabilities {
            valid_up_to: offered.valid_up_to && answered(|o| o.valid_up_to.is_some()),
            // `C2` at the end is incomplete, whose std-shaped error length is none.
            error_len: offered.error_len
                && probes[0]
                    .as_ref()
                    .is_ok_and(|outcome| outcome.error_len.is_some()),
            scalars: offered.scalars,
            errors: offered.errors && answered(|o| o.errors.is_some()),
        };
        fed
    }
}

impl Decoder for ByteAtATime<'_> {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        self.adapter.version()
    }

    fn description(&self) -> &str {
        "the adapter's streaming mode, fed one byte per chunk"
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        let mut answers = self.decode_batch(&[input]);
        *outcome = answers.pop().expect("one answer per input")?;
        Ok(())
    }

    /// One pipelined batch of chunked feeds; an input left unanswered (the adapter
    /// became unusable) fails as a `crash` naming why.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Answer> {
        let cuts: Vec<Vec<usize>> = inputs
            .iter()
            .map(|input| (1..input.len()).collect())
            .collect();
        let feeds: Vec<Vec<&[u8]>> = inputs
            .iter()
            .zip(&cuts)
            .map(|(input, cuts)| chunks(input, cuts).collect())
            .collect();
        self.adapter
            .decode_streams(&feeds)
            .into_results(inputs.len())
            .into_iter()
            .map(|answer| answer.map(|streamed| streamed.outcome))
            .collect()
    }
}

/// A decoder that reports only some of what it can: the one-shot adapter seen through
/// the fields its chunked answers carry, so that its machine and the byte-at-a-time one
/// are learned with one abstraction and can be compared.
struct Restricted<'a> {
    decoder: &'a dyn Decoder,
    capabilities: Capabilities,
}

impl Decoder for Restricted<'_> {
    fn name(&self) -> &str {
        self.decoder.name()
    }

    fn version(&self) -> String {
        self.decoder.version()
    }

    fn description(&self) -> &str {
        self.decoder.description()
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        self.decoder.decode_into(input, outcome)
    }

    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Answer> {
        self.decoder.decode_batch(inputs)
    }
}

/// The streaming section's machine: what the byte-at-a-time machine adds to the
/// one-shot one.
#[derive(Debug, Clone, Serialize)]
pub struct StreamedMachine {
    /// The machine learned one byte per chunk, with what learning it cost (the model
    /// schema's learned machine).
    pub learned: LearnedMachine,
    /// The answers the machines are compared on: the adapter's, less the fields its
    /// chunked answers leave out.
    pub capabilities: Vec<&'static str>,
    /// True when no input tells this machine from the one-shot machine of `check`;
    /// `None` when either is incomplete or the one-shot machine was not learned.
    pub same_as_one_shot: Option<bool>,
    /// The mechanisms of its difference from RFC 3629's machine that the one-shot
    /// machine does not have: bugs of streaming itself. Each witness is fed one byte
    /// per chunk. Empty unless `same_as_one_shot` is `Some(false)`.
    pub findings: Vec<Finding>,
}

/// Learns `adapter`'s machine fed one byte per chunk within `budget` and compares it
/// with its one-shot machine: `one_shot`, the check's own, when there is one and the
/// chunked answers carry every field it was learned from, else the one-shot machine
/// learned (again) from those fields alone. `None` when the grammar's machine cannot be
/// built.
pub fn learn_streamed(
    adapter: &ExternalDecoder,
    one_shot: Option<&ModelReport>,
    budget: ModelBudget,
) -> Option<StreamedMachine> {
    let fed = ByteAtATime::new(adapter);
    let streamed = learn(&fed, budget, None)?;
    let relearned;
    let one_shot =
        if let (Some(one_shot), true) = (one_shot, fed.capabilities == adapter.capabilities()) {
            Some(one_shot)
        } else {
            let restricted = Restricted {
                decoder: adapter,
                capabilities: fed.capabilities,
            };
            relearned = learn(&restricted, budget, None);
            relearned.as_ref()
        };
    let complete = |report: &ModelReport| report.model.incomplete.is_none();
    let same_as_one_shot = one_shot
        .filter(|one_shot| complete(one_shot) && complete(&streamed))
        .map(|one_shot| {
            let (differences, _) = crate::model::difference::differences(
                streamed.model.hypothesis(),
                one_shot.model.hypothesis(),
            );
            differences.is_empty()
        });
    // Which mechanisms are streaming's own can only be told against a complete one-shot
    // machine: without one, every mechanism could be the decoder's one-shot bug.
    let findings = match (same_as_one_shot, one_shot) {
        (Some(false), Some(one_shot)) => {
            let known: Vec<&str> = one_shot.findings.iter().map(|f| f.title.as_str()).collect();
            streamed
                .findings
                .into_iter()
                .filter(|finding| !known.contains(&finding.title.as_str()))
                .collect()
        }
        _ => Vec::new(),
    };
    Some(StreamedMachine {
        learned: streamed.model,
        capabilities: fed.capabilities.names(),
        same_as_one_shot,
        findings,
    })
}
