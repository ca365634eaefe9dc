//! Streaming UTF-8 to UTF-16: input fed chunk by chunk, output identical to the
//! one-shot [`super::decode_utf16`] (strict) or [`super::decode_utf16_lossy`] (lossy)
//! of the whole stream, whatever the chunk boundaries.
//!
//! A character cut by a chunk boundary (at most 3 bytes: an incomplete character is
//! at most 3 bytes of a 4-byte one) is kept with its DFA state until the next chunk
//! completes or breaks it; the rest of each chunk goes to the one-shot function of the
//! decoder's backend. That split is exact: the kept bytes start with a lead, which no
//! unit before it can extend over, so the units of the stream are those of the chunk
//! bodies and of the kept characters.
//!
//! ```
//! use utf8conf::fast::utf16_stream::Utf16StreamDecoder;
//!
//! let mut decoder = Utf16StreamDecoder::new();
//! let mut out = Vec::new();
//! decoder.feed_lossy(b"caf\xC3", &mut out);
//! decoder.feed_lossy(b"\xA9 \xF0\x9F", &mut out);
//! decoder.finish_lossy(&mut out);
//! assert_eq!(String::from_utf16(&out).unwrap(), "caf\u{e9} \u{FFFD}");
//!
//! let mut strict = Utf16StreamDecoder::new();
//! out.clear();
//! strict.feed(b"\xE4\xBD", &mut out).unwrap();
//! strict.feed(b"\xA0\xFF", &mut out).unwrap_err();
//! assert_eq!(out, [0x4F60]);
//! ```

use super::utf16::push_scalar;
use super::utf16_lossy::REPLACEMENT;
use super::{decode_utf16_lossy_with, decode_utf16_with, dfa, Backend, Utf8Error};

/// A UTF-8 to UTF-16 decoder fed chunk by chunk; see the module documentation.
///
/// One stream is decoded either strictly ([`Utf16StreamDecoder::feed`],
/// [`Utf16StreamDecoder::finish`]) or lossily (the `_lossy` pair), not both.
#[derive(Clone, Debug)]
pub struct Utf16StreamDecoder {
    backend: Backend,
    /// Stream offset of the next byte to be fed.
    offset: u64,
    /// The bytes of a character cut by a chunk boundary.
    pending: [u8; 4],
    pending_len: usize,
    /// DFA state after `pending`.
    state: dfa::State,
}

impl Default for Utf16StreamDecoder {
    fn default() -> Self {
        Utf16StreamDecoder::new()
    }
}

/// What completing a kept character with the first bytes of a chunk gave.
enum Pending {
    /// Still incomplete, or nothing was pending, or it was completed: go on at this
    /// offset of the chunk.
    Continue(usize),
    /// The kept bytes are a maximal subpart (of `len` bytes, at stream offset `offset`);
    /// the chunk goes on at its offset `resume`.
    Broken {
        offset: u64,
        len: usize,
        resume: usize,
    },
}

impl Utf16StreamDecoder {
    /// A decoder using [`Backend::best`].
    pub fn new() -> Self {
        Utf16StreamDecoder::with_backend(Backend::best())
            .or_else(|| Utf16StreamDecoder::with_backend(Backend::Scalar))
            .expect("the scalar backend is available everywhere")
    }

    /// A decoder using `backend`, if it is available here.
    pub fn with_backend(backend: Backend) -> Option<Self> {
        backend.is_available().then_some(Utf16StreamDecoder {
            backend,
            offset: 0,
            pending: [0; 4],
            pending_len: 0,
            state: dfa::ACCEPT,
        })
    }

    /// The backend used inside chunks.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Decodes the next `chunk` of the stream lossily, appending code units to `out`.
    pub fn feed_lossy(&mut self, chunk: &[u8], out: &mut Vec<u16>) {
        let start = match self.finish_pending(chunk, out) {
            Pending::Continue(at) => at,
            Pending::Broken { resume, .. } => {
                out.push(REPLACEMENT);
                resume
            }
        };
        let body_end = self.keep_cut_character(chunk, start);
        let decoded = decode_utf16_lossy_with(self.backend, &chunk[start..body_end], out);
        debug_assert!(decoded.is_some(), "the backend was available when made");
        self.offset += chunk.len() as u64;
    }

    /// Ends a lossy stream: one U+FFFD for a character left incomplete; resets the
    /// decoder for another stream.
    pub fn finish_lossy(&mut self, out: &mut Vec<u16>) {
        if self.pending_len > 0 {
            out.push(REPLACEMENT);
        }
        self.reset();
    }

    /// Decodes the next `chunk` of the stream strictly, appending code units to `out`.
    /// On the stream's first error, appends those of the well-formed bytes before it and
    /// returns it, offsets counted from the start of the stream (std's shape); the
    /// stream is then ill-formed, and the decoder should be [`finish`](Self::finish)ed
    /// before it decodes another.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u16>) -> Result<(), Utf8Error> {
        let start = match self.finish_pending(chunk, out) {
            Pending::Continue(at) => at,
            Pending::Broken { offset, len, .. } => {
                return Err(Utf8Error::new(offset as usize, Some(len)));
            }
        };
        let body_end = self.keep_cut_character(chunk, start);
        let body_offset = self.offset as usize + start;
        self.offset += chunk.len() as u64;
        let body = &chunk[start..body_end];
        match decode_utf16_with(self.backend, body, out) {
            Some(Ok(())) | None => Ok(()),
            Some(Err(error)) => {
                // A unit left incomplete by the body's end is followed in the stream by
                // the kept character's lead, which ends it: a maximal subpart running
                // to the end of the body. (Nothing kept, the body ends with the chunk,
                // where a cut character is always kept, so `None` only arises here.)
                let error_len = error.error_len().or(Some(body.len() - error.valid_up_to()));
                Err(Utf8Error::new(body_offset + error.valid_up_to(), error_len))
            }
        }
    }

    /// Ends a strict stream: an error if a character was left incomplete (std's
    /// `error_len() == None`); resets the decoder for another stream.
    pub fn finish(&mut self) -> Result<(), Utf8Error> {
        let result = if self.pending_len > 0 {
            let offset = self.offset - self.pending_len as u64;
            Err(Utf8Error::new(offset as usize, None))
        } else {
            Ok(())
        };
        self.reset();
        result
    }

    fn reset(&mut self) {
        self.pending_len = 0;
        self.state = dfa::ACCEPT;
        self.offset = 0;
    }

    /// Completes or breaks the kept character with the first bytes of `chunk`, a DFA
    /// step per byte; a completed character's code units go to `out`.
    fn finish_pending(&mut self, chunk: &[u8], out: &mut Vec<u16>) -> Pending {
        let mut pos = 0;
        while self.pending_len > 0 && pos < chunk.len() {
            let byte = chunk[pos];
            let next = dfa::step(self.state, byte);
            match next & 63 {
                dfa::REJECT => {
                    let len = self.pending_len;
                    let offset = self.offset + pos as u64 - len as u64;
                    self.pending_len = 0;
                    self.state = dfa::ACCEPT;
                    // `byte` starts afresh: it is not part of the maximal subpart.
                    return Pending::Broken {
                        offset,
                        len,
                        resume: pos,
                    };
                }
                state => {
                    self.pending[self.pending_len] = byte;
                    self.pending_len += 1;
                    pos += 1;
                    self.state = next;
                    if state == dfa::ACCEPT {
                        let character = &self.pending[..self.pending_len];
                        push_scalar(scalar_of_character(character), out);
                        self.pending_len = 0;
                    }
                }
            }
        }
        Pending::Continue(pos)
    }

    /// Keeps the character that `chunk[start..]` ends with, if it is a proper prefix of
    /// a well-formed character (an incomplete one the next chunk may complete); returns
    /// where the rest, the body, ends. Nothing is kept while a character is still
    /// pending (the chunk was used up completing it).
    fn keep_cut_character(&mut self, chunk: &[u8], start: usize) -> usize {
        let end = chunk.len();
        if self.pending_len > 0 {
            return end;
        }
        let lead = dfa::boundary_before(chunk, end).max(start);
        if lead == end {
            return end;
        }
        let state = chunk[lead..]
            .iter()
            .fold(dfa::ACCEPT, |state, &byte| dfa::step(state, byte));
        if matches!(state & 63, dfa::ACCEPT | dfa::REJECT) {
            return end;
        }
        let cut = &chunk[lead..];
        self.pending[..cut.len()].copy_from_slice(cut);
        self.pending_len = cut.len();
        self.state = state;
        lead
    }
}

/// The scalar value of a well-formed character of 1 to 4 bytes.
fn scalar_of_character(character: &[u8]) -> u32 {
    match std::str::from_utf8(character) {
        Ok(text) => text.chars().next().map_or(0, u32::from),
        Err(_) => unreachable!("the DFA accepted bytes std rejects"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy_in_chunks(bytes: &[u8], cuts: &[usize]) -> Vec<u16> {
        let mut decoder = Utf16StreamDecoder::new();
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts {
            decoder.feed_lossy(&bytes[start..cut], &mut out);
            start = cut;
        }
        decoder.feed_lossy(&bytes[start..], &mut out);
        decoder.finish_lossy(&mut out);
        out
    }

    fn strict_in_chunks(bytes: &[u8], cuts: &[usize]) -> (Vec<u16>, Result<(), Utf8Error>) {
        let mut decoder = Utf16StreamDecoder::new();
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain([bytes.len()].iter()) {
            if let Err(error) = decoder.feed(&bytes[start..cut], &mut out) {
                decoder.finish().ok();
                return (out, Err(error));
            }
            start = cut;
        }
        let result = decoder.finish();
        (out, result)
    }

    #[test]
    fn every_two_cut_chunking_equals_one_shot() {
        let inputs: [&[u8]; 3] = [
            b"a\xF1\x80\x80\xE1\x80\xC2b\x80c\x80\xBFd\xF0\x9F\x98\x80\xE4\xBD",
            b"\xC3\xA9\xF0\x9F\x98\x80\xE4\xBD\xA0x\xF4\x8F\xBF\xBF",
            b"\xF0\x9F\x98\x80\xED\xA0\x80\xE4\xBD\xA0\xF0\x9F",
        ];
        for bytes in inputs {
            let lossy: Vec<u16> = String::from_utf8_lossy(bytes).encode_utf16().collect();
            let std_error = std::str::from_utf8(bytes).err().map(Utf8Error::from);
            let valid = std_error.map_or(bytes.len(), |e| e.valid_up_to());
            let prefix: Vec<u16> = std::str::from_utf8(&bytes[..valid])
                .unwrap()
                .encode_utf16()
                .collect();
            for first in 0..=bytes.len() {
                for second in first..=bytes.len() {
                    let cuts = [first, second];
                    assert_eq!(
                        lossy_in_chunks(bytes, &cuts),
                        lossy,
                        "{cuts:?} {bytes:02X?}"
                    );
                    let (out, result) = strict_in_chunks(bytes, &cuts);
                    assert_eq!(result.err(), std_error, "{cuts:?} {bytes:02X?}");
                    assert_eq!(out, prefix, "{cuts:?} {bytes:02X?}");
                }
            }
        }
    }
}
