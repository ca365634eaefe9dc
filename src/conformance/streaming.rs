//! Streaming grading: how an adapter's streaming API behaves when one input arrives in
//! chunks (the protocol is docs/PROTOCOL.md, "Streaming mode").
//!
//! A streaming decoder is what network and file code calls, and its bugs live in the
//! state carried between chunks. Two properties are graded, each against the adapter's
//! own decode of the whole input in one chunk (so a different U+FFFD policy or a one-shot
//! departure, which the rest of the check reports, is not counted again here):
//!
//! - **Split-point equivalence.** Every chunking gives the same `valid` and the same
//!   scalars as the one-chunk feed. Inputs up to [`EVERY_CHUNKING_UP_TO`] bytes get every
//!   chunking (each of the `len - 1` gaps cut or not); longer ones get the chunk plans of
//!   [`crate::decoders::chunk_plan::chunkings`] (every two-chunk split, one byte per
//!   chunk, seeded random chunkings), only the seeded ones and one byte per chunk above
//!   [`SYSTEMATIC_UP_TO`] bytes.
//! - **Promptness.** After each chunk, what was emitted so far must include everything the
//!   reference decoder has *decided* for the bytes fed so far: every complete character,
//!   and a U+FFFD for every error unit whose maximal subpart (Unicode §3.9, D93b) can no
//!   longer grow. The only thing a decoder may hold back is a trailing prefix of a
//!   `UTF8-char` that more bytes could complete (RFC 3629 §4: `UTF8-char` ends with its
//!   last continuation byte). Promptness is graded on inputs where the one-chunk decode
//!   equals the reference's lossy decode (otherwise "decided" is not defined for this
//!   decoder's policy).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::adapter::{ExternalDecoder, Stop, StreamedOutcome};
use crate::corpus::vectors;
use crate::decoders::chunk_plan::{chunking_count, chunkings, chunks, SEEDED_SPLITTINGS};
use crate::hex::format_hex;
use crate::outcome::{DecoderFailure, REPLACEMENT};
use crate::reference::Reference;

use super::inputs::probes;

/// Inputs up to this many bytes are fed under every chunking (2^(len-1) of them).
pub const EVERY_CHUNKING_UP_TO: usize = 8;
/// Inputs up to this many bytes also get every two-chunk split.
pub const SYSTEMATIC_UP_TO: usize = 64;
/// Longer inputs are not fed in streaming grading (the check's long inputs are a few
/// KiB; the seeded chunkings of the embedded vectors cover long streams).
pub const LONGEST_INPUT: usize = 4096;
/// The seed of the random chunkings (fixed: a report is reproducible).
pub const STREAMING_SEED: u64 = 14;
/// Requests sent in one pipelined batch (the first batch is smaller, so that an adapter
/// whose streaming mode fails on everything is found quickly).
const BATCH_REQUESTS: usize = 2048;
/// Requests in the first batch: as many as the failures that abandon grading, so that a
/// streaming mode that fails on everything is given up after one batch of about
/// [`MAX_FAILED_FEEDS`] restarts, not twice as many.
const FIRST_BATCH_REQUESTS: usize = MAX_FAILED_FEEDS;
/// Failed feeds after which streaming grading gives up (each failure restarts the
/// adapter): the streaming mode is broken, and the failures so far are the evidence.
pub const MAX_FAILED_FEEDS: usize = 32;
/// Departures kept in the report per property (all are counted).
pub const KEPT_DEPARTURES: usize = 50;

/// The "streaming" section of a conformance report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StreamingSection {
    /// Inputs fed in chunks.
    pub inputs: usize,
    /// Chunked feeds answered (every chunking of every input, the one-chunk feeds too).
    pub feeds: usize,
    /// Feeds that failed (crash, timeout, malformed answer): findings of the main check's
    /// kinds, counted here.
    pub failed_feeds: usize,
    /// The first failure, as evidence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<String>,
    /// Inputs whose chunkings did not all decode like the one-chunk feed.
    pub split_point_departures: usize,
    /// Inputs on which something decided was emitted late.
    pub promptness_departures: usize,
    /// Inputs not graded for promptness: the one-chunk decode differs from the
    /// reference's.
    pub promptness_not_graded: usize,
    /// The first [`KEPT_DEPARTURES`] of each property.
    pub departures: Vec<StreamingDeparture>,
    /// Why grading stopped early (adapter unusable, time limit, signal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The stop itself, for the exit status.
    #[serde(skip)]
    pub stop: Option<Stop>,
    /// The decoder's machine fed one byte per chunk, and what it adds to the one-shot
    /// machine ([`super::streaming_model`]); absent when the model was skipped or
    /// grading stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<super::streaming_model::StreamedMachine>,
}

impl StreamingSection {
    /// True when every feed was answered and both properties hold.
    pub fn is_clean(&self) -> bool {
        self.failed_feeds == 0
            && self.split_point_departures == 0
            && self.promptness_departures == 0
            && self.stopped.is_none()
            && self
                .machine
                .as_ref()
                .is_none_or(|machine| machine.findings.is_empty())
    }
}

/// One input that breaks a streaming property, with the first chunking that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamingDeparture {
    /// `split-point` or `promptness`.
    pub property: &'static str,
    /// The input, hex.
    pub input: String,
    /// The chunks fed, hex each (`""` for an empty chunk).
    pub chunks: Vec<String>,
    /// What happened, in one line.
    pub detail: String,
}

/// The inputs of streaming grading: the check's probes and the embedded test vectors up
/// to [`LONGEST_INPUT`] bytes, each once, shortest first.
pub fn streaming_inputs() -> Result<Vec<Vec<u8>>, String> {
    let mut set: BTreeSet<(usize, Vec<u8>)> = BTreeSet::new();
    for bytes in probes() {
        set.insert((bytes.len(), bytes));
    }
    for vector in vectors::embedded().map_err(|e| format!("vectors: {e}"))? {
        if vector.bytes.len() <= LONGEST_INPUT {
            set.insert((vector.bytes.len(), vector.bytes));
        }
    }
    Ok(set.into_iter().map(|(_, bytes)| bytes).collect())
}

/// The chunk boundaries an input of `input.len()` bytes is fed under (see the module
/// documentation); the one-chunk feed is not among them.
pub fn boundaries_for(input: &[u8]) -> Vec<Vec<usize>> {
    let len = input.len();
    if len <= EVERY_CHUNKING_UP_TO {
        let gaps = len.saturating_sub(1);
        return (1u32..(1 << gaps))
            .map(|mask| {
                (1..len)
                    .filter(|gap| mask & (1 << (gap - 1)) != 0)
                    .collect()
            })
            .collect();
    }
    let mut all = chunkings(input, STREAMING_SEED);
    if len <= SYSTEMATIC_UP_TO {
        return all.collect();
    }
    let mut chosen = vec![(1..len).collect::<Vec<usize>>()];
    let systematic = chunking_count(len) - SEEDED_SPLITTINGS;
    if systematic > 0 {
        let _ = all.nth(systematic - 1);
    }
    chosen.extend(all);
    chosen
}

/// Grades the streaming mode of `adapter` (whose hello said `"streaming": true`) on
/// `inputs`.
pub fn grade_streaming(adapter: &ExternalDecoder, inputs: &[Vec<u8>]) -> StreamingSection {
    let mut section = StreamingSection::default();
    let mut start = 0;
    while start < inputs.len() {
        // Whole inputs per batch, about BATCH_REQUESTS feeds.
        let mut end = start;
        let mut plans: Vec<Vec<Vec<usize>>> = Vec::new();
        let mut requests = 0;
        let limit = if start == 0 {
            FIRST_BATCH_REQUESTS
        } else {
            BATCH_REQUESTS
        };
        while end < inputs.len() && (requests == 0 || requests < limit) {
            let mut plan = vec![Vec::new()];
            plan.extend(boundaries_for(&inputs[end]));
            requests += plan.len();
            plans.push(plan);
            end += 1;
        }
        let feeds: Vec<Vec<&[u8]>> = inputs[start..end]
            .iter()
            .zip(&plans)
            .flat_map(|(input, plan)| plan.iter().map(|b| chunks(input, b).collect()))
            .collect();
        let batch = adapter.decode_streams(&feeds);
        let mut answers = batch.answers.into_iter();
        for (input, plan) in inputs[start..end].iter().zip(&plans) {
            let answered: Vec<_> = answers.by_ref().take(plan.len()).collect();
            if answered.len() < plan.len() {
                break;
            }
            section.inputs += 1;
            grade_input(&mut section, input, plan, answered);
        }
        if let Some(stop) = batch.stopped {
            section.stopped = Some(stop.to_string());
            section.stop = Some(stop);
            break;
        }
        if section.failed_feeds >= MAX_FAILED_FEEDS {
            section.stopped = Some(format!(
                "streaming grading abandoned after {} failed feeds",
                section.failed_feeds
            ));
            break;
        }
        start = end;
    }
    section
}

/// Grades one input's feeds: `plan[0]` is the one-chunk feed.
fn grade_input(
    section: &mut StreamingSection,
    input: &[u8],
    plan: &[Vec<usize>],
    answered: Vec<Result<StreamedOutcome, DecoderFailure>>,
) {
    let mut answers = Vec::with_capacity(plan.len());
    for answer in answered {
        section.feeds += 1;
        match answer {
            Ok(answer) => answers.push(Some(answer)),
            Err(failure) => {
                section.failed_feeds += 1;
                section.first_failure.get_or_insert_with(|| {
                    format!(
                        "[{}]: {}: {}",
                        format_hex(input),
                        failure.kind.as_str(),
                        failure.message
                    )
                });
                answers.push(None);
            }
        }
    }
    let Some(Some(whole)) = answers.first() else {
        return;
    };
    let whole_result = (whole.outcome.valid, whole.stream.all_scalars());
    let reference = Reference::rfc3629();
    let gradable = whole_result.1 == reference.decode(input).scalars;
    if !gradable {
        section.promptness_not_graded += 1;
    }
    let mut split_found = false;
    let mut late_found = false;
    for (boundaries, answer) in plan.iter().zip(&answers) {
        let Some(answer) = answer else { continue };
        let fed: Vec<&[u8]> = chunks(input, boundaries).collect();
        if !split_found && (answer.outcome.valid, answer.stream.all_scalars()) != whole_result {
            split_found = true;
            section.split_point_departures += 1;
            let detail = format!(
                "fed as {} chunk(s): valid {}, scalars {}; in one chunk: valid {}, scalars {}",
                fed.len(),
                answer.outcome.valid,
                scalars_text(&answer.stream.all_scalars()),
                whole_result.0,
                scalars_text(&whole_result.1)
            );
            keep(section, "split-point", input, &fed, detail);
        }
        if gradable && !late_found {
            if let Some(detail) = lateness(reference, input, &fed, &answer.stream.emitted) {
                late_found = true;
                section.promptness_departures += 1;
                keep(section, "promptness", input, &fed, detail);
            }
        }
    }
}

fn keep(
    section: &mut StreamingSection,
    property: &'static str,
    input: &[u8],
    fed: &[&[u8]],
    detail: String,
) {
    let kept = section
        .departures
        .iter()
        .filter(|d| d.property == property)
        .count();
    if kept < KEPT_DEPARTURES {
        section.departures.push(StreamingDeparture {
            property,
            input: format_hex(input),
            chunks: fed.iter().map(|chunk| format_hex(chunk)).collect(),
            detail,
        });
    }
}

/// What the reference has decided for `prefix`, the bytes fed so far: its lossy decode,
/// without the U+FFFD of a trailing unit that more bytes could still complete.
pub fn decided(reference: &Reference, prefix: &[u8]) -> Vec<u32> {
    let decoded = reference.decode(prefix);
    let mut scalars = decoded.scalars;
    let open_tail = decoded
        .errors
        .last()
        .is_some_and(|error| error.incomplete && error.offset + error.len == prefix.len());
    if open_tail {
        scalars.pop();
    }
    scalars
}

/// The first chunk after which less than what was decided had been emitted, described;
/// `None` when the feed was prompt.
fn lateness(
    reference: &Reference,
    input: &[u8],
    fed: &[&[u8]],
    emitted: &[Vec<u32>],
) -> Option<String> {
    let mut so_far: Vec<u32> = Vec::new();
    let mut bytes = 0;
    for (index, (chunk, out)) in fed.iter().zip(emitted).enumerate() {
        bytes += chunk.len();
        so_far.extend_from_slice(out);
        let due = decided(reference, &input[..bytes]);
        if so_far.len() < due.len() {
            let missing = due[so_far.len()];
            let what = if missing == REPLACEMENT {
                "an error the reference had decided (U+FFFD) was not yet reported".to_string()
            } else {
                format!("the complete character U+{missing:04X} was not yet emitted")
            };
            return Some(format!(
                "after chunk {} ({bytes} of {} bytes fed): {what}; emitted {} scalar(s), {} decided",
                index + 1,
                input.len(),
                so_far.len(),
                due.len()
            ));
        }
    }
    None
}

fn scalars_text(scalars: &[u32]) -> String {
    let text: Vec<String> = scalars.iter().map(|s| format!("U+{s:04X}")).collect();
    format!("[{}]", text.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unicode §3.9 Table 3-8's `F1 80 80` is an open prefix (U+FFFD not yet decided);
    /// `E0 80` can never complete (E0 needs A0..BF, RFC 3629 §4), so it is decided at once.
    #[test]
    fn decided_holds_back_only_an_open_tail() {
        let reference = Reference::rfc3629();
        assert_eq!(decided(reference, &[0x61, 0xF1, 0x80, 0x80]), vec![0x61]);
        assert_eq!(decided(reference, &[0xE0, 0x80]), vec![0xFFFD, 0xFFFD]);
        assert_eq!(decided(reference, &[0xE4, 0xBD, 0xA0]), vec![0x4F60]);
        assert_eq!(decided(reference, &[0xC2, 0x41]), vec![0xFFFD, 0x41]);
    }

    #[test]
    fn short_inputs_get_every_chunking() {
        let boundaries = boundaries_for(&[1, 2, 3, 4]);
        assert_eq!(boundaries.len(), 7);
        assert!(boundaries.contains(&vec![1, 2, 3]));
        assert!(boundaries.contains(&vec![2]));
        assert!(boundaries_for(&[1]).is_empty());
        let long = vec![0x41; 200];
        assert_eq!(boundaries_for(&long).len(), 1 + SEEDED_SPLITTINGS);
    }

    #[test]
    fn lateness_names_the_first_late_chunk() {
        let reference = Reference::rfc3629();
        let input = [0x41, 0xE4, 0xBD, 0xA0];
        let fed: Vec<&[u8]> = vec![&input[..1], &input[1..3], &input[3..]];
        let prompt = [vec![0x41], vec![], vec![0x4F60]];
        assert_eq!(lateness(reference, &input, &fed, &prompt), None);
        let late = [vec![], vec![], vec![0x41, 0x4F60]];
        let detail = lateness(reference, &input, &fed, &late).unwrap();
        assert!(
            detail.starts_with("after chunk 1 (1 of 4 bytes fed)"),
            "{detail}"
        );
        let input = [0xC2, 0x41];
        let fed: Vec<&[u8]> = vec![&input[..1], &input[1..]];
        let held = [vec![], vec![0xFFFD, 0x41]];
        assert_eq!(lateness(reference, &input, &fed, &held), None);
    }
}
