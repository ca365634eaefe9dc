//! Streaming decoders through the crate-author API: your decoder is fed each input in
//! chunks, the way network and file code calls it.
//!
//! [`Chunked`] turns a [`YourStreamingDecoder`] into a [`YourDecoder`] that feeds each
//! input by the engine's deterministic chunk plan ([`crate::decoders::chunk_plan`]: cuts
//! through sequences, one byte per chunk, empty chunks), so [`super::check`] grades what
//! the streaming API really produced. [`split_point_mismatches`] adds the property only
//! streaming has: the same input must decode the same under every splitting
//! (split-point equivalence); it tries every two-chunk split and one byte per chunk on
//! each short input against the one-chunk decode.

use crate::decoders::chunk_plan::{chunk_boundaries, chunks};
use crate::hex::format_hex;
use crate::outcome::{Outcome, REPLACEMENT};

use super::YourDecoder;

/// Your streaming decoder. A session is one stream.
pub trait YourStreamingDecoder: Send + Sync {
    /// The decoder's state for one stream.
    type Session;
    /// The name in reports.
    fn name(&self) -> &str;
    /// The version in reports.
    fn version(&self) -> String {
        "unknown".into()
    }
    /// A new stream.
    fn start(&self) -> Self::Session;
    /// Feeds one chunk (possibly empty); appends the scalars it emitted, with U+FFFD for
    /// each error it reported, to `scalars`. Returns the number of errors reported (a
    /// decoder that only says whether there were any returns 0 or 1).
    fn feed(&self, session: &mut Self::Session, chunk: &[u8], scalars: &mut Vec<u32>) -> usize;
    /// Ends the stream (the flush); appends what it emitted and returns its errors.
    fn finish(&self, session: Self::Session, scalars: &mut Vec<u32>) -> usize;
}

/// A streaming decoder fed by chunks, as a one-shot [`YourDecoder`]: `valid` is "no error
/// reported", `scalars` everything emitted.
pub struct Chunked<'a, S: YourStreamingDecoder + ?Sized> {
    stream: &'a S,
}

impl<'a, S: YourStreamingDecoder + ?Sized> Chunked<'a, S> {
    /// Wraps `stream`.
    pub fn new(stream: &'a S) -> Self {
        Chunked { stream }
    }

    /// Decodes `input` fed as `pieces`: (errors, scalars).
    fn decode_pieces<'p>(&self, pieces: impl IntoIterator<Item = &'p [u8]>) -> (usize, Vec<u32>) {
        let mut session = self.stream.start();
        let mut scalars = Vec::new();
        let mut errors = 0;
        for piece in pieces {
            errors += self.stream.feed(&mut session, piece, &mut scalars);
        }
        errors += self.stream.finish(session, &mut scalars);
        (errors, scalars)
    }
}

impl<S: YourStreamingDecoder + ?Sized> YourDecoder for Chunked<'_, S> {
    fn name(&self) -> &str {
        self.stream.name()
    }

    fn version(&self) -> String {
        self.stream.version()
    }

    fn decode(&self, input: &[u8]) -> Outcome {
        let mut pieces = Vec::new();
        let boundaries = chunk_boundaries(input);
        pieces.extend(chunks(input, &boundaries).map(<[u8]>::to_vec));
        let (errors, scalars) = self.decode_pieces(pieces.iter().map(Vec::as_slice));
        let mut outcome = Outcome::verdict(self.stream.name(), errors == 0);
        outcome.scalars = Some(scalars);
        outcome
    }
}

/// Inputs up to this long get every two-chunk split.
const EVERY_SPLIT_UP_TO: usize = 16;

/// Split-point equivalence: for each input of `inputs` up to 16 bytes, every two-chunk
/// split and the one-byte-per-chunk feed must give the same errors and scalars as the
/// whole input in one chunk. One line per input that breaks it (empty: equivalent).
pub fn split_point_mismatches<S: YourStreamingDecoder + ?Sized>(
    stream: &S,
    inputs: &[&[u8]],
) -> Vec<String> {
    let chunked = Chunked::new(stream);
    let mut lines = Vec::new();
    for input in inputs.iter().filter(|i| i.len() <= EVERY_SPLIT_UP_TO) {
        // Errors are compared as "any or none": an API may report one flag per call.
        let decode = |pieces: &mut dyn Iterator<Item = &[u8]>| {
            let (errors, scalars) = chunked.decode_pieces(pieces);
            (errors > 0, scalars)
        };
        let whole = decode(&mut std::iter::once(*input));
        let mut splittings: Vec<Vec<usize>> = (1..input.len()).map(|at| vec![at]).collect();
        splittings.push((1..input.len()).collect());
        for boundaries in splittings {
            let split = decode(&mut chunks(input, &boundaries));
            if split != whole {
                lines.push(format!(
                    "{}: [{}] split at {boundaries:?} gives errors: {}, scalars {}; in one chunk errors: {}, scalars {}",
                    stream.name(),
                    format_hex(input),
                    split.0,
                    scalars_text(&split.1),
                    whole.0,
                    scalars_text(&whole.1)
                ));
                break;
            }
        }
    }
    lines
}

fn scalars_text(scalars: &[u32]) -> String {
    let text: Vec<String> = scalars
        .iter()
        .map(|&s| {
            if s == REPLACEMENT {
                "U+FFFD".to_string()
            } else {
                format!("U+{s:04X}")
            }
        })
        .collect();
    format!("[{}]", text.join(" "))
}
