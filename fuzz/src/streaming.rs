//! Streaming decoders fed in chunks whose sizes come from the fuzz input.
//!
//! The `streaming` target's input is a *chunk plan* followed by the text to decode:
//!
//! ```text
//! byte 0          k = byte % 8, the number of chunk sizes (0: the whole text in one chunk)
//! bytes 1..=k     chunk sizes, each byte % 65 (0..=64; a 0 feeds an empty chunk)
//! bytes k+1..     the text
//! ```
//!
//! The sizes are used in turn, cycling, until the text is used up, so a short plan still
//! cuts a long text everywhere; sizes up to 64 put cuts inside and across 16/32/64-byte
//! blocks. A streaming decoder that decodes the chunks must give the same outcome as the
//! reference on the whole text: a sequence split across chunks is still one character, and an
//! error unit split across chunks is still one unit.

use encoding_rs::{DecoderResult, UTF_8};
use utf8conf::decoders::Capabilities;
use utf8conf::outcome::{scalars_of, ErrorLen, ErrorUnit, Outcome};

/// The largest number of chunk sizes in a plan.
pub const MAX_PLAN_LEN: usize = 7;
/// The largest chunk size.
pub const MAX_CHUNK: usize = 64;

/// A text and the sizes of the chunks it is fed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPlan<'a> {
    /// Chunk sizes, used in turn and cycled; empty means one chunk.
    pub sizes: Vec<usize>,
    /// The text to decode.
    pub text: &'a [u8],
}

impl<'a> ChunkPlan<'a> {
    /// Reads a plan from fuzz input (see the module header). Every input is a plan.
    pub fn parse(data: &'a [u8]) -> ChunkPlan<'a> {
        let Some((&count, rest)) = data.split_first() else {
            return ChunkPlan {
                sizes: Vec::new(),
                text: data,
            };
        };
        let count = (usize::from(count) % (MAX_PLAN_LEN + 1)).min(rest.len());
        let (plan, text) = rest.split_at(count);
        let mut sizes: Vec<usize> = plan
            .iter()
            .map(|&byte| usize::from(byte) % (MAX_CHUNK + 1))
            .collect();
        if sizes.iter().all(|&size| size == 0) {
            // A plan of empty chunks alone would never finish: feed the text in one chunk.
            sizes.clear();
        }
        ChunkPlan { sizes, text }
    }

    /// Writes a plan as fuzz input (the inverse of [`ChunkPlan::parse`]), for seed corpora.
    /// Sizes must be at most [`MAX_CHUNK`] and at most [`MAX_PLAN_LEN`] of them.
    pub fn encode(sizes: &[usize], text: &[u8]) -> Vec<u8> {
        assert!(sizes.len() <= MAX_PLAN_LEN && sizes.iter().all(|&s| s <= MAX_CHUNK));
        let mut data = Vec::with_capacity(1 + sizes.len() + text.len());
        data.push(sizes.len() as u8);
        data.extend(sizes.iter().map(|&size| size as u8));
        data.extend_from_slice(text);
        data
    }

    /// The chunks, in order; their concatenation is the text.
    pub fn chunks(&self) -> Vec<&'a [u8]> {
        if self.sizes.is_empty() {
            return vec![self.text];
        }
        let mut chunks = Vec::new();
        let mut rest = self.text;
        for &size in self.sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (chunk, tail) = rest.split_at(size.min(rest.len()));
            chunks.push(chunk);
            rest = tail;
        }
        chunks
    }

    /// The plan in words, for reports.
    pub fn describe(&self) -> String {
        if self.sizes.is_empty() {
            "fed in one chunk".to_string()
        } else {
            format!("fed in chunks of {:?} bytes, cycled", self.sizes)
        }
    }
}

/// A decoder that takes its input in chunks.
pub trait StreamingDecoder: Send + Sync {
    /// The name used in reports.
    fn name(&self) -> &str;
    /// Which outcome fields it reports.
    fn capabilities(&self) -> Capabilities;
    /// Decodes the chunks as one input.
    fn decode_chunks(&self, chunks: &[&[u8]]) -> Outcome;
}

/// encoding_rs's streaming UTF-8 decoder, without replacement so that it reports every
/// malformed sequence (`DecoderResult::Malformed(bad_len, consumed_after)`).
pub struct EncodingRsStream;

impl StreamingDecoder for EncodingRsStream {
    fn name(&self) -> &str {
        "encoding_rs-stream"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            valid_up_to: true,
            error_len: false,
            scalars: true,
            errors: true,
        }
    }

    fn decode_chunks(&self, chunks: &[&[u8]]) -> Outcome {
        let mut decoder = UTF_8.new_decoder_without_bom_handling();
        let mut text = String::new();
        let mut units = Vec::new();
        let mut read_total = 0;
        let last_chunk = chunks.len();
        // After the chunks, an empty final call with `last = true` flushes what is pending.
        for (index, chunk) in chunks.iter().chain([&&[][..]]).enumerate() {
            let last = index == last_chunk;
            let mut source = *chunk;
            loop {
                let needed = decoder
                    .max_utf8_buffer_length_without_replacement(source.len())
                    .unwrap_or(source.len() * 3 + 16);
                text.reserve(needed);
                let (result, read) =
                    decoder.decode_to_string_without_replacement(source, &mut text, last);
                read_total += read;
                source = &source[read..];
                match result {
                    DecoderResult::InputEmpty => break,
                    DecoderResult::OutputFull => {}
                    DecoderResult::Malformed(bad, after) => {
                        let end = read_total - after as usize;
                        units.push(ErrorUnit {
                            offset: end - bad as usize,
                            len: bad as usize,
                            category: None,
                        });
                        text.push('\u{FFFD}');
                    }
                }
            }
        }
        let first_error = units
            .first()
            .map(|unit| (unit.offset, ErrorLen::Invalid(unit.len)));
        let mut outcome = Outcome::from_strict(self.name(), first_error);
        // This decoder cannot tell "incomplete at end" from an invalid unit by itself.
        outcome.error_len = None;
        outcome.scalars = Some(scalars_of(&text));
        outcome.errors = Some(units);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_round_trip_and_cycle() {
        let data = ChunkPlan::encode(&[2, 0, 3], b"abcdefghij");
        let plan = ChunkPlan::parse(&data);
        assert_eq!(plan.sizes, [2, 0, 3]);
        assert_eq!(plan.text, b"abcdefghij");
        let chunks: Vec<&[u8]> = plan.chunks();
        assert_eq!(chunks.concat(), b"abcdefghij");
        assert_eq!(chunks[..4], [&b"ab"[..], b"", b"cde", b"fg"]);
    }

    #[test]
    fn all_zero_plans_feed_one_chunk() {
        let data = ChunkPlan::encode(&[0, 0], b"xyz");
        assert_eq!(ChunkPlan::parse(&data).chunks(), [&b"xyz"[..]]);
    }
}
