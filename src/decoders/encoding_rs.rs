//! encoding_rs's UTF-8 decoder (WHATWG), one-shot and streaming.
//!
//! - `encoding_rs` ([`EncodingRsDecoder`]): the one-shot `decode_without_bom_handling` for
//!   the scalars and verdict, and the streaming decoder fed the whole input as one chunk
//!   for the error units.
//! - `encoding_rs-chunked` ([`EncodingRsStream`], a [`StreamingDecoder`]): the streaming
//!   decoder fed in chunks, in the engine's per-input chunk plan (see
//!   [`super::streaming::Chunked`]) or the fuzz crate's. Streaming is where decoders keep
//!   state between calls (a sequence whose first bytes arrived in the previous chunk).
//!
//! Both read error units the same way (`strict_units`): with
//! `decode_to_str_without_replacement`, whose `DecoderResult::Malformed(bad, after)` ends
//! each unit `after` bytes before the bytes read so far, `bad` bytes long. The chunks are
//! followed by an empty `last = true` call; a unit reported only then is bytes the decoder
//! held back waiting for more input: a still-completable prefix, std's `error_len == None`
//! when it is the first error. That is the decoder's own answer, not ours. The chunked
//! decoder's scalars come from a second, replacing pass (`decode_to_str`), so both APIs are
//! exercised. Both use `new_decoder_without_bom_handling`: BOM sniffing is a wrapper
//! policy, tested separately, not part of decoding.
//!
//! Linear time: each call writes into a fixed block of [`OUTPUT_BLOCK`] bytes, made once
//! per thread. (The `*_to_string` variants make the whole spare capacity of the `String` into
//! the call's output space and zero it first; called once per error unit with room for the
//! rest of the input, that made a decode quadratic in the input's length.)

use std::cell::RefCell;

use encoding_rs::{CoderResult, DecoderResult, UTF_8};

use super::streaming::StreamingDecoder;
use super::{push_scalars, reset_outcome, reuse_errors, reuse_scalars, Capabilities, Decoder};
use crate::outcome::{DecoderFailure, ErrorLen, ErrorUnit, Outcome};

/// The locked encoding_rs version, recorded by the build script.
pub const VERSION: &str = env!("UTF8CONF_VERSION_encoding_rs");

/// The output space given to each streaming call, in bytes: room for many characters (a
/// call stops when fewer than 4 bytes are left), small enough to stay in cache.
pub const OUTPUT_BLOCK: usize = 1024;

/// What a pass over the chunks cost: the regression test of linear time counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Work {
    /// Calls into encoding_rs.
    pub calls: usize,
    /// The largest output space given to one call, in bytes.
    pub largest_output: usize,
}

impl Work {
    fn call(&mut self, output: &str) {
        self.calls += 1;
        self.largest_output = self.largest_output.max(output.len());
    }
}

thread_local! {
    /// The output block of the streaming calls, made once per thread: [`OUTPUT_BLOCK`] NUL
    /// characters (a `str` stays UTF-8 whatever encoding_rs writes into it).
    static OUTPUT: RefCell<String> = RefCell::new("\0".repeat(OUTPUT_BLOCK));
}

/// Runs `pass` with this thread's output block.
fn with_output_block<T>(pass: impl FnOnce(&mut str) -> T) -> T {
    OUTPUT.with(|block| pass(block.borrow_mut().as_mut_str()))
}

/// The chunks followed by the end-of-input call (an empty chunk with `last = true`).
fn with_end<'a>(chunks: &'a [&'a [u8]]) -> impl Iterator<Item = (&'a [u8], bool)> + 'a {
    let end_of_input: &[u8] = &[];
    chunks
        .iter()
        .map(|&chunk| (chunk, false))
        .chain(std::iter::once((end_of_input, true)))
}

/// The error units encoding_rs's streaming decoder finds in `input` fed as one chunk, and
/// whether the last of them is a still-completable prefix (the module documentation says how that is told).
pub fn streaming_error_units(input: &[u8]) -> (Vec<ErrorUnit>, bool) {
    let mut units = Vec::new();
    let last_incomplete = strict_units(&[input], &mut units, &mut Work::default());
    (units, last_incomplete)
}

/// Feeds `chunks` to a strict streaming decoder and pushes every error unit onto `units`.
/// Returns whether the last unit pushed is a still-completable prefix: one reported only
/// by the end-of-input call (nothing can follow it, so it is the last).
pub(crate) fn strict_units(chunks: &[&[u8]], units: &mut Vec<ErrorUnit>, work: &mut Work) -> bool {
    with_output_block(|output| strict_units_into(chunks, output, units, work))
}

/// [`strict_units`] with `output` as each call's output space.
fn strict_units_into(
    chunks: &[&[u8]],
    output: &mut str,
    units: &mut Vec<ErrorUnit>,
    work: &mut Work,
) -> bool {
    let mut decoder = UTF_8.new_decoder_without_bom_handling();
    let mut read_total = 0;
    let mut last_incomplete = false;
    for (chunk, last) in with_end(chunks) {
        let mut rest = chunk;
        loop {
            work.call(output);
            let (result, read, _) = decoder.decode_to_str_without_replacement(rest, output, last);
            rest = &rest[read..];
            read_total += read;
            match result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(bad, after) => {
                    let end = read_total - usize::from(after);
                    let len = usize::from(bad);
                    last_incomplete = last;
                    units.push(ErrorUnit {
                        offset: end - len,
                        len,
                        category: None,
                    });
                }
            }
        }
    }
    last_incomplete
}

/// Feeds `chunks` to a replacing streaming decoder and pushes the scalars (the decoder
/// runs [`lossy_scalars_into`] in the same borrow of the output block as its strict pass).
#[cfg(test)]
pub(crate) fn lossy_scalars(chunks: &[&[u8]], scalars: &mut Vec<u32>, work: &mut Work) {
    with_output_block(|output| lossy_scalars_into(chunks, output, scalars, work));
}

/// [`lossy_scalars`] with `output` as each call's output space.
fn lossy_scalars_into(chunks: &[&[u8]], output: &mut str, scalars: &mut Vec<u32>, work: &mut Work) {
    let mut decoder = UTF_8.new_decoder_without_bom_handling();
    for (chunk, last) in with_end(chunks) {
        let mut rest = chunk;
        loop {
            work.call(output);
            let (result, read, written, _) = decoder.decode_to_str(rest, output, last);
            rest = &rest[read..];
            push_scalars(scalars, &output[..written]);
            match result {
                CoderResult::InputEmpty => break,
                CoderResult::OutputFull => {}
            }
        }
    }
}

/// Sets the strict fields of `outcome` from the error units of a strict pass.
fn set_first_error(outcome: &mut Outcome, units: &[ErrorUnit], last_incomplete: bool) {
    if let Some(first) = units.first() {
        outcome.valid = false;
        outcome.valid_up_to = Some(first.offset);
        let first_incomplete = last_incomplete && units.len() == 1;
        outcome.error_len = Some(ErrorLen::new(first.len, first_incomplete));
    }
}

/// encoding_rs's one-shot UTF-8 decoder (WHATWG).
pub struct EncodingRsDecoder;

impl Decoder for EncodingRsDecoder {
    fn name(&self) -> &str {
        "encoding_rs"
    }

    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn description(&self) -> &str {
        "encoding_rs UTF_8.decode_without_bom_handling (scalars), streaming decoder (error units)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        let mut errors = reuse_errors(outcome);
        let mut scalars = reuse_scalars(outcome);
        let last_incomplete = strict_units(&[input], &mut errors, &mut Work::default());
        set_first_error(outcome, &errors, last_incomplete);
        let (text, had_errors) = UTF_8.decode_without_bom_handling(input);
        // Both APIs must agree on validity; if not, the one-shot verdict is what users see.
        if !had_errors {
            outcome.valid_up_to = None;
            outcome.error_len = None;
        }
        outcome.valid = !had_errors;
        push_scalars(&mut scalars, &text);
        outcome.scalars = Some(scalars);
        outcome.errors = Some(errors);
        Ok(())
    }
}

/// encoding_rs's streaming UTF-8 decoder: a strict pass for the error units and a
/// replacing pass for the scalars, over the same chunks.
pub struct EncodingRsStream;

impl StreamingDecoder for EncodingRsStream {
    fn name(&self) -> &str {
        "encoding_rs-chunked"
    }

    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn description(&self) -> &str {
        "encoding_rs streaming UTF-8 decoder fed in chunks (strict and replacing passes)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode_chunks(&self, chunks: &[&[u8]], outcome: &mut Outcome) {
        reset_outcome(outcome, self.name());
        let mut errors = reuse_errors(outcome);
        let mut scalars = reuse_scalars(outcome);
        let mut work = Work::default();
        // Both passes in one borrow of the output block (one thread-local lookup).
        let last_incomplete = with_output_block(|output| {
            let last_incomplete = strict_units_into(chunks, output, &mut errors, &mut work);
            lossy_scalars_into(chunks, output, &mut scalars, &mut work);
            last_incomplete
        });
        set_first_error(outcome, &errors, last_incomplete);
        outcome.scalars = Some(scalars);
        outcome.errors = Some(errors);
    }
}

#[cfg(test)]
#[path = "encoding_rs/tests.rs"]
mod tests;
