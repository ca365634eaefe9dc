//! encoding_rs's streaming UTF-8 decoder fed in chunks.
//!
//! The one-shot [`super::encoding_rs::EncodingRsDecoder`] hands encoding_rs the whole input
//! at once. Streaming is where decoders keep state between calls (a sequence whose first
//! bytes arrived in the previous chunk), so this decoder feeds the same input in the
//! deterministic chunk plan of its bytes ([`super::chunk_plan`]), then signals the end of
//! input with an empty `last = true` call, twice:
//!
//! - with `decode_to_string_without_replacement`, whose `DecoderResult::Malformed(bad,
//!   after)` gives each error unit (it ends `after` bytes before the bytes read so far and
//!   is `bad` bytes long). A unit reported only by the final `last = true` call is bytes the
//!   decoder held back waiting for more input: a still-completable prefix, std's
//!   `error_len == None` when it is the first error. That is the decoder's own answer.
//! - with `decode_to_string` (replacement), for the scalars.
//!
//! Both passes use `new_decoder_without_bom_handling`: BOM sniffing is a wrapper policy,
//! tested separately, not part of decoding.

use std::cell::RefCell;

use encoding_rs::{CoderResult, DecoderResult, UTF_8};

use super::chunk_plan::chunk_boundaries;
use super::{
    decode_fresh, reset_outcome, reuse_errors, reuse_scalars, Capabilities, Decoder, DecoderFailure,
};
use crate::corpus::chunking::chunks;
use crate::outcome::{ErrorLen, ErrorUnit, Outcome};

/// encoding_rs's streaming decoder, fed in the input's chunk plan.
pub struct EncodingRsChunked;

thread_local! {
    /// The UTF-8 output buffer of the streaming calls, reused from input to input.
    static OUTPUT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Feeds `input` in the chunks cut at `boundaries` (none: one chunk) to a strict streaming
/// decoder and pushes every error unit: `(offset, len, incomplete)`. A unit reported only
/// once the decoder is told the input has ended is a still-completable prefix.
pub(super) fn strict_units(
    input: &[u8],
    boundaries: &[usize],
    output: &mut String,
    units: &mut Vec<(usize, usize, bool)>,
) {
    let mut decoder = UTF_8.new_decoder_without_bom_handling();
    let mut read_total = 0;
    let end_of_input: &[u8] = &[];
    for (chunk, last) in chunks(input, boundaries)
        .map(|chunk| (chunk, false))
        .chain(std::iter::once((end_of_input, true)))
    {
        let mut consumed = 0;
        loop {
            output.clear();
            let needed = decoder
                .max_utf8_buffer_length_without_replacement(chunk.len() - consumed)
                .unwrap_or(chunk.len() * 3 + 16);
            output.reserve(needed);
            let (result, read) =
                decoder.decode_to_string_without_replacement(&chunk[consumed..], output, last);
            consumed += read;
            read_total += read;
            match result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => output.reserve(needed.max(16)),
                DecoderResult::Malformed(bad, after) => {
                    let end = read_total - usize::from(after);
                    units.push((end - usize::from(bad), usize::from(bad), last));
                }
            }
        }
    }
}

/// Feeds `input` in its chunk plan to a replacing streaming decoder and pushes the scalars.
fn lossy_scalars(input: &[u8], boundaries: &[usize], output: &mut String, scalars: &mut Vec<u32>) {
    let mut decoder = UTF_8.new_decoder_without_bom_handling();
    let end_of_input: &[u8] = &[];
    for (chunk, last) in chunks(input, boundaries)
        .map(|chunk| (chunk, false))
        .chain(std::iter::once((end_of_input, true)))
    {
        let mut consumed = 0;
        loop {
            output.clear();
            let needed = decoder
                .max_utf8_buffer_length(chunk.len() - consumed)
                .unwrap_or(chunk.len() * 3 + 16);
            output.reserve(needed);
            let (result, read, _) = decoder.decode_to_string(&chunk[consumed..], output, last);
            consumed += read;
            scalars.extend(output.chars().map(u32::from));
            match result {
                CoderResult::InputEmpty => break,
                CoderResult::OutputFull => output.reserve(needed.max(16)),
            }
        }
    }
}

impl Decoder for EncodingRsChunked {
    fn name(&self) -> &str {
        "encoding_rs-chunked"
    }

    fn version(&self) -> String {
        super::encoding_rs::VERSION.to_string()
    }

    fn description(&self) -> &str {
        "encoding_rs streaming UTF-8 decoder fed in a per-input chunk plan (strict and replacing passes)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode(&self, input: &[u8]) -> Result<Outcome, DecoderFailure> {
        decode_fresh(self, input)
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        let mut scalars = reuse_scalars(outcome);
        let mut errors = reuse_errors(outcome);
        let boundaries = chunk_boundaries(input);
        OUTPUT.with(|output| {
            let mut output = output.borrow_mut();
            let mut units = Vec::new();
            strict_units(input, &boundaries, &mut output, &mut units);
            if let Some(&(offset, len, incomplete)) = units.first() {
                outcome.valid = false;
                outcome.valid_up_to = Some(offset);
                outcome.error_len = Some(if incomplete {
                    ErrorLen::Incomplete
                } else {
                    ErrorLen::Invalid(len)
                });
            }
            errors.extend(units.iter().map(|&(offset, len, _)| ErrorUnit {
                offset,
                len,
                category: None,
            }));
            lossy_scalars(input, &boundaries, &mut output, &mut scalars);
        });
        outcome.scalars = Some(scalars);
        outcome.errors = Some(errors);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Reference;

    #[test]
    fn agrees_with_the_reference_on_the_worked_examples() {
        let reference = Reference::rfc3629();
        for text in [
            "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
            "C0 AF E0 80 BF F0 81 82 41",
            "ED A0 80 ED BF BF ED AF 41",
            "F4 91 92 93 FF 41 80 BF 42",
            "E1 80 E2 F0 91 92 F1 BF 41",
            "E4 BD",
            "E0 80",
            "",
            "F0 9F 98 80 F0 9F 98",
        ] {
            let input = crate::hex::parse_hex(text).unwrap();
            let expected = reference.decode(&input);
            let outcome = EncodingRsChunked.decode(&input).unwrap();
            assert_eq!(outcome.scalars.as_ref(), Some(&expected.scalars), "{text}");
            assert_eq!(outcome.valid, expected.is_valid(), "{text}");
            let first = expected.first_error();
            assert_eq!(outcome.valid_up_to, first.map(|f| f.0), "{text}");
            assert_eq!(outcome.error_len, first.map(|f| f.1), "{text}");
            let units: Vec<(usize, usize)> = outcome
                .errors
                .unwrap()
                .iter()
                .map(|unit| (unit.offset, unit.len))
                .collect();
            let expected_units: Vec<(usize, usize)> =
                expected.errors.iter().map(|e| (e.offset, e.len)).collect();
            assert_eq!(units, expected_units, "{text}");
        }
    }
}
