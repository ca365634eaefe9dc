//! The byte format between the harness and its library worker (both are this crate, so
//! it is private: the library author's contract is `include/utf8conf.h`).
//!
//! Everything is little-endian.
//! - Worker → harness, once at start: the hello, `u32 n` then `n` bytes of UTF-8:
//!   `ok <version>` or `error <one-line reason>`.
//! - Harness → worker, per batch: `u32 count`, then `count` times `u32 len` and `len`
//!   input bytes. End of input ends the worker (exit 0).
//! - Worker → harness, per input of the batch, in order: tag `0` then `u8 valid`,
//!   `i64 valid_up_to`, `i32 error_len`, `i64 scalars_len` and `scalars_len` times
//!   `u32 scalar` (the C answer as the header defines it, -1 meaning "not reported"); or
//!   tag `1`, `u32 n` and `n` bytes of UTF-8: the shim's answer was unusable, and why.
//!   The worker writes a batch's answers at its end and, while it runs, whatever answers
//!   are ready every few milliseconds (see [`super::worker::serve`]).

use std::io::{self, Read};

use crate::outcome::{ErrorLen, Outcome};

/// Largest batch payload a worker accepts (bytes of inputs); larger is a harness bug.
pub const MAX_BATCH_BYTES: usize = 1 << 30;

/// Tag of an answer record.
const TAG_ANSWER: u8 = 0;
/// Tag of a "the shim's answer was unusable" record.
const TAG_UNUSABLE: u8 = 1;
/// Bytes of an answer record before its scalars.
const ANSWER_HEADER: usize = 1 + 1 + 8 + 4 + 8;

/// Appends a batch request for `inputs` to `out`.
pub fn encode_batch(inputs: &[&[u8]], out: &mut Vec<u8>) {
    let count = u32::try_from(inputs.len()).expect("batches hold fewer than 2^32 inputs");
    out.extend_from_slice(&count.to_le_bytes());
    for input in inputs {
        let len = u32::try_from(input.len()).expect("inputs are shorter than 4 GiB");
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(input);
    }
}

/// One batch request as read: every input's bytes one after the other, and where each
/// ends. Reused from batch to batch, so reading a batch allocates nothing once the
/// buffers have grown to the batch size.
#[derive(Debug, Default)]
pub struct Batch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Batch {
    /// The inputs, in order.
    pub fn inputs(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.bytes[start..end])
    }
}

/// Reads one batch request into `batch`; `false` at a clean end of input (no more
/// batches).
pub fn read_batch(reader: &mut impl Read, batch: &mut Batch) -> io::Result<bool> {
    let mut word = [0u8; 4];
    match reader.read_exact(&mut word) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
        Err(error) => return Err(error),
    }
    let count = u32::from_le_bytes(word) as usize;
    batch.bytes.clear();
    batch.ends.clear();
    batch.ends.reserve(count.min(1 << 16));
    for _ in 0..count {
        reader.read_exact(&mut word)?;
        let len = u32::from_le_bytes(word) as usize;
        let start = batch.bytes.len();
        let end = start.saturating_add(len);
        if end > MAX_BATCH_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "batch larger than 1 GiB",
            ));
        }
        batch.bytes.resize(end, 0);
        reader.read_exact(&mut batch.bytes[start..])?;
        batch.ends.push(end);
    }
    Ok(true)
}

/// Appends the hello record.
pub fn encode_hello(text: &str, out: &mut Vec<u8>) {
    encode_text(text, out);
}

fn encode_text(text: &str, out: &mut Vec<u8>) {
    let bytes = &text.as_bytes()[..text.len().min(4096)];
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The C answer as the worker read it, already checked against the header's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawAnswer {
    /// 0 or 1.
    pub valid: bool,
    /// -1 or an offset within the input.
    pub valid_up_to: i64,
    /// -1, 0 (incomplete) or a length.
    pub error_len: i32,
    /// -1 or the number of scalars that follow.
    pub scalars_len: i64,
}

/// Appends an answer record.
pub fn encode_answer(answer: &RawAnswer, scalars: &[u32], out: &mut Vec<u8>) {
    out.push(TAG_ANSWER);
    out.push(u8::from(answer.valid));
    out.extend_from_slice(&answer.valid_up_to.to_le_bytes());
    out.extend_from_slice(&answer.error_len.to_le_bytes());
    out.extend_from_slice(&answer.scalars_len.to_le_bytes());
    for scalar in scalars {
        out.extend_from_slice(&scalar.to_le_bytes());
    }
}

/// Appends an "unusable answer" record.
pub fn encode_unusable(reason: &str, out: &mut Vec<u8>) {
    out.push(TAG_UNUSABLE);
    encode_text(reason, out);
}

/// One record parsed from the worker's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// The decoder's answer, as an outcome named `decoder`.
    Answer(Outcome),
    /// The shim's answer broke the header's rules.
    Unusable(String),
}

/// Parses the record at the start of `buffer`: `Ok(Some((record, bytes used)))`,
/// `Ok(None)` when more bytes are needed, `Err` when the bytes cannot be a record.
pub fn parse_record(buffer: &[u8], decoder: &str) -> Result<Option<(Record, usize)>, String> {
    let Some(&tag) = buffer.first() else {
        return Ok(None);
    };
    match tag {
        TAG_UNUSABLE => {
            Ok(parse_text(&buffer[1..]).map(|(text, used)| (Record::Unusable(text), used + 1)))
        }
        TAG_ANSWER => {
            if buffer.len() < ANSWER_HEADER {
                return Ok(None);
            }
            let valid = buffer[1] == 1;
            let valid_up_to = i64::from_le_bytes(buffer[2..10].try_into().expect("8 bytes"));
            let error_len = i32::from_le_bytes(buffer[10..14].try_into().expect("4 bytes"));
            let scalars_len = i64::from_le_bytes(buffer[14..22].try_into().expect("8 bytes"));
            let scalar_count = usize::try_from(scalars_len).unwrap_or(0);
            let end = scalar_count
                .checked_mul(4)
                .and_then(|n| n.checked_add(ANSWER_HEADER))
                .ok_or("scalar count out of range")?;
            if buffer.len() < end {
                return Ok(None);
            }
            let mut outcome = Outcome::verdict(decoder, valid);
            if !valid {
                outcome.valid_up_to = usize::try_from(valid_up_to).ok();
                outcome.error_len = match error_len {
                    0 => Some(ErrorLen::Incomplete),
                    n if n > 0 => Some(ErrorLen::Invalid(n as usize)),
                    _ => None,
                };
            }
            if scalars_len >= 0 {
                outcome.scalars = Some(
                    buffer[ANSWER_HEADER..end]
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                        .collect(),
                );
            }
            Ok(Some((Record::Answer(outcome), end)))
        }
        other => Err(format!("unknown record tag {other}")),
    }
}

/// Parses a length-prefixed text: `Some((text, bytes used))`, `None` if incomplete.
pub fn parse_text(buffer: &[u8]) -> Option<(String, usize)> {
    let len = u32::from_le_bytes(buffer.get(..4)?.try_into().expect("4 bytes")) as usize;
    let text = buffer.get(4..4 + len)?;
    Some((String::from_utf8_lossy(text).into_owned(), 4 + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_round_trips() {
        let inputs: Vec<&[u8]> = vec![b"", b"a", &[0xF0, 0x9F, 0x98, 0x80]];
        let mut bytes = Vec::new();
        encode_batch(&inputs, &mut bytes);
        encode_batch(&inputs[1..], &mut bytes);
        let mut reader = bytes.as_slice();
        let mut batch = Batch::default();
        assert!(read_batch(&mut reader, &mut batch).unwrap());
        assert_eq!(batch.inputs().collect::<Vec<_>>(), inputs);
        // The buffers are reused: the second batch holds only its own inputs.
        assert!(read_batch(&mut reader, &mut batch).unwrap());
        assert_eq!(batch.inputs().collect::<Vec<_>>(), &inputs[1..]);
        assert!(!read_batch(&mut reader, &mut batch).unwrap());
    }

    #[test]
    fn answers_parse_only_when_complete_and_keep_not_reported_fields_absent() {
        let mut bytes = Vec::new();
        let answer = RawAnswer {
            valid: false,
            valid_up_to: 1,
            error_len: 0,
            scalars_len: 2,
        };
        encode_answer(&answer, &[0x61, 0xFFFD], &mut bytes);
        assert_eq!(parse_record(&bytes[..bytes.len() - 1], "lib"), Ok(None));
        let (record, used) = parse_record(&bytes, "lib").unwrap().unwrap();
        assert_eq!(used, bytes.len());
        let Record::Answer(outcome) = record else {
            panic!("an answer")
        };
        assert_eq!(outcome.valid_up_to, Some(1));
        assert_eq!(outcome.error_len, Some(ErrorLen::Incomplete));
        assert_eq!(outcome.scalars, Some(vec![0x61, 0xFFFD]));

        let mut bytes = Vec::new();
        let verdict_only = RawAnswer {
            valid: false,
            valid_up_to: -1,
            error_len: -1,
            scalars_len: -1,
        };
        encode_answer(&verdict_only, &[], &mut bytes);
        let (Record::Answer(outcome), _) = parse_record(&bytes, "lib").unwrap().unwrap() else {
            panic!("an answer")
        };
        assert_eq!(outcome, Outcome::verdict("lib", false));
    }

    #[test]
    fn unusable_records_and_bad_tags() {
        let mut bytes = Vec::new();
        encode_unusable("valid was 7", &mut bytes);
        assert_eq!(
            parse_record(&bytes, "lib").unwrap().unwrap(),
            (Record::Unusable("valid was 7".into()), bytes.len())
        );
        assert!(parse_record(&[9], "lib").is_err());
    }
}
