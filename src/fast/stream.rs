//! Streaming decoding: input fed chunk by chunk, output identical to one-shot decoding
//! whatever the chunk boundaries.
//!
//! A [`StreamDecoder`] reports to a [`Sink`]: runs of well-formed text, and error units
//! (one per maximal subpart, Unicode D93b), each as soon as the bytes seen decide it. A
//! character cut by a chunk boundary is kept (at most 3 bytes, with its DFA state) until
//! the next chunk completes or breaks it; only [`StreamDecoder::finish`] can report a
//! unit that is incomplete because the input ended ([`ErrorUnit::at_end`], std's
//! `error_len() == None`).
//!
//! Inside a chunk the decoder runs the one-shot [`super::validate_with`] of its backend,
//! so it is as fast as one-shot decoding on long chunks; the DFA only handles the few
//! bytes around a chunk boundary.
//!
//! ```
//! use utf8conf::fast::stream::{Collected, StreamDecoder};
//!
//! let mut decoder = StreamDecoder::new();
//! let mut sink = Collected::default();
//! decoder.feed(b"caf\xC3", &mut sink);
//! decoder.feed(b"\xA9 \xE4\xBD", &mut sink);
//! decoder.finish(&mut sink);
//! assert_eq!(sink.text, "caf\u{e9} \u{FFFD}");
//! assert_eq!(sink.errors[0].offset, 6);
//! assert!(sink.errors[0].at_end);
//! ```

use super::dfa;
use super::{validate_with, Backend, Utf8Error};

/// One error unit: a maximal subpart, decoded as one U+FFFD.
///
/// The streaming decoder's own unit, not `outcome::ErrorUnit`: its offset counts from the
/// start of a stream that may outgrow `usize` on 32-bit targets (`u64`), it knows whether
/// the end of the stream cut it off (`at_end`), and it names no taxonomy category, which
/// would cost a classification per error on the hot path. It is `Copy` and depends on
/// nothing above `fast/`, so the fast decoder stays usable on its own; the harness maps it
/// to the outcome's unit where it compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorUnit {
    /// Offset of its first byte from the start of the stream.
    pub offset: u64,
    /// Its length in bytes (1 to 3).
    pub len: usize,
    /// Whether it is an incomplete character cut off by the end of the stream (std's
    /// `error_len() == None`); such a unit is only reported by `finish`.
    pub at_end: bool,
}

/// Receives the decoder's output, in stream order.
pub trait Sink {
    /// A run of well-formed text.
    fn text(&mut self, text: &str);
    /// An error unit, reported as soon as it is decidable.
    fn error(&mut self, unit: ErrorUnit);
}

/// The lossy decoding: text as is, one U+FFFD per error unit.
impl Sink for String {
    fn text(&mut self, text: &str) {
        self.push_str(text);
    }
    fn error(&mut self, _unit: ErrorUnit) {
        self.push(char::REPLACEMENT_CHARACTER);
    }
}

/// A sink keeping both the lossy text and the list of error units.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    /// The lossy decoding (one U+FFFD per error unit).
    pub text: String,
    /// Every error unit, in order.
    pub errors: Vec<ErrorUnit>,
}

impl Sink for Collected {
    fn text(&mut self, text: &str) {
        self.text.push_str(text);
    }
    fn error(&mut self, unit: ErrorUnit) {
        self.text.push(char::REPLACEMENT_CHARACTER);
        self.errors.push(unit);
    }
}

/// A UTF-8 decoder fed chunk by chunk; see the module documentation.
#[derive(Clone, Debug)]
pub struct StreamDecoder {
    backend: Backend,
    /// Stream offset of the next byte to be fed.
    offset: u64,
    /// The bytes of a character cut by a chunk boundary.
    pending: [u8; 4],
    pending_len: usize,
    /// Stream offset of `pending[0]`.
    pending_offset: u64,
    /// DFA state after `pending`.
    state: dfa::State,
}

impl Default for StreamDecoder {
    fn default() -> Self {
        StreamDecoder::new()
    }
}

impl StreamDecoder {
    /// A decoder using [`Backend::best`].
    pub fn new() -> Self {
        StreamDecoder::with_backend(Backend::best())
            .or_else(|| StreamDecoder::with_backend(Backend::Scalar))
            .expect("the scalar backend is available everywhere")
    }

    /// A decoder using `backend`, if it is available here.
    pub fn with_backend(backend: Backend) -> Option<Self> {
        backend.is_available().then_some(StreamDecoder {
            backend,
            offset: 0,
            pending: [0; 4],
            pending_len: 0,
            pending_offset: 0,
            state: dfa::ACCEPT,
        })
    }

    /// The backend used inside chunks.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Total bytes fed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Decodes the next `chunk` of the stream.
    pub fn feed(&mut self, chunk: &[u8], sink: &mut impl Sink) {
        let chunk_offset = self.offset;
        let mut pos = self.finish_pending(chunk, sink);
        while pos < chunk.len() {
            let rest = &chunk[pos..];
            // Taken apart in each arm, where it is returned: moving the `Result` whole
            // read it back with one wide load just after the validator wrote it field by
            // field, a stalled store forward per call.
            let (valid_len, error_len) = match validate_with(self.backend, rest) {
                Some(result) => valid_and_error_len(rest, result),
                None => valid_and_error_len(rest, dfa::validate(rest)),
            };
            if valid_len > 0 {
                // The backend accepted `rest[..valid_len]`, and every backend agrees
                // with std, so this conversion cannot fail.
                match std::str::from_utf8(&rest[..valid_len]) {
                    Ok(text) => sink.text(text),
                    Err(_) => unreachable!("a backend accepted bytes std rejects"),
                }
            }
            let Some(error_len) = error_len else {
                break;
            };
            let unit_offset = chunk_offset + (pos + valid_len) as u64;
            match error_len {
                Some(len) => {
                    sink.error(ErrorUnit {
                        offset: unit_offset,
                        len,
                        at_end: false,
                    });
                    pos += valid_len + len;
                }
                None => {
                    // A character cut by the end of this chunk: keep it for the next.
                    let cut = &rest[valid_len..];
                    self.pending[..cut.len()].copy_from_slice(cut);
                    self.pending_len = cut.len();
                    self.pending_offset = unit_offset;
                    self.state = cut.iter().fold(dfa::ACCEPT, |s, &b| dfa::step(s, b));
                    break;
                }
            }
        }
        self.offset = chunk_offset + chunk.len() as u64;
    }

    /// Completes or rejects the pending character with the first bytes of `chunk`;
    /// returns how many bytes of `chunk` that consumed.
    fn finish_pending(&mut self, chunk: &[u8], sink: &mut impl Sink) -> usize {
        let mut pos = 0;
        while self.pending_len > 0 && pos < chunk.len() {
            let byte = chunk[pos];
            let next = dfa::step(self.state, byte);
            match next & 63 {
                dfa::REJECT => {
                    // The pending bytes are a maximal subpart; `byte` starts afresh.
                    sink.error(ErrorUnit {
                        offset: self.pending_offset,
                        len: self.pending_len,
                        at_end: false,
                    });
                    self.pending_len = 0;
                }
                state => {
                    self.pending[self.pending_len] = byte;
                    self.pending_len += 1;
                    pos += 1;
                    self.state = next;
                    if state == dfa::ACCEPT {
                        let character = &self.pending[..self.pending_len];
                        match std::str::from_utf8(character) {
                            Ok(text) => sink.text(text),
                            Err(_) => unreachable!("the DFA accepted bytes std rejects"),
                        }
                        self.pending_len = 0;
                    }
                }
            }
        }
        pos
    }

    /// Ends the stream: reports a character left incomplete, and resets the decoder so
    /// it can decode another stream.
    pub fn finish(&mut self, sink: &mut impl Sink) {
        if self.pending_len > 0 {
            sink.error(ErrorUnit {
                offset: self.pending_offset,
                len: self.pending_len,
                at_end: true,
            });
        }
        self.pending_len = 0;
        self.state = dfa::ACCEPT;
        self.offset = 0;
    }
}

/// How much of `rest` a validator accepted, and the error's `error_len` when it stopped
/// at one: `result` read field by field.
#[inline(always)]
fn valid_and_error_len(
    rest: &[u8],
    result: Result<(), Utf8Error>,
) -> (usize, Option<Option<usize>>) {
    match result {
        Ok(()) => (rest.len(), None),
        Err(error) => (error.valid_up_to(), Some(error.error_len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_chunks(bytes: &[u8], cuts: &[usize]) -> Collected {
        let mut decoder = StreamDecoder::new();
        let mut sink = Collected::default();
        let mut start = 0;
        for &cut in cuts {
            decoder.feed(&bytes[start..cut], &mut sink);
            start = cut;
        }
        decoder.feed(&bytes[start..], &mut sink);
        decoder.finish(&mut sink);
        sink
    }

    #[test]
    fn every_two_cut_chunking_equals_one_shot() {
        let bytes = b"a\xF1\x80\x80\xE1\x80\xC2b\x80c\x80\xBFd\xF0\x9F\x98\x80\xE4\xBD";
        let one_shot = decode_in_chunks(bytes, &[]);
        assert_eq!(one_shot.text, String::from_utf8_lossy(bytes));
        for first in 0..=bytes.len() {
            for second in first..=bytes.len() {
                assert_eq!(decode_in_chunks(bytes, &[first, second]), one_shot);
            }
        }
        let last = one_shot.errors.last().unwrap();
        assert_eq!((last.offset, last.len, last.at_end), (17, 2, true));
    }
}
