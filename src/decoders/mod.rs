//! The `Decoder` abstraction: anything that turns bytes into an [`Outcome`].
//!
//! The engine compares decoders without knowing what they are: the ABNF reference, the
//! project's fast decoder, Rust crates, or a program in another language behind the adapter
//! protocol. Each says what it can report ([`Capabilities`]) so that the engine compares
//! only the fields both sides really produce; a field a decoder cannot produce is absent
//! from its outcome, never invented.
//!
//! The files, one job each:
//!
//! - this module: the [`Decoder`] trait (implement [`Decoder::decode_into`]; `decode` and
//!   `decode_batch` are provided), what a decoder reports ([`Capabilities`]; how it fails is
//!   [`DecoderFailure`], in the vocabulary layer), and the registry of built-in decoders ([`builtin`],
//!   [`by_name`]);
//! - [`chunk_plan`]: how an input is cut into chunks for a streaming decoder (the engine's
//!   per-input plan, the fuzz crate's cycled sizes and their byte format);
//! - [`streaming`]: the [`streaming::StreamingDecoder`] trait, and [`streaming::Chunked`],
//!   which makes one a [`Decoder`] under a chunk plan;
//! - one file per decoded library: [`reference`](mod@reference), [`rust_std`],
//!   [`encoding_rs`] (one-shot and streaming), [`simdutf8`], [`bstr`], [`fast`] (each
//!   backend, and the streaming decoder), [`fast_utf16`], and [`mutants`] and
//!   [`planted`], the
//!   deliberately wrong decoders that test the harness.
//!
//! Shapes that look alike on purpose:
//!
//! - every `impl Decoder` answers the same four questions (`name`, `version`,
//!   `description`, `capabilities`) before its `decode_into`: the answers differ, the
//!   shape is the trait's (the named capability sets, such as
//!   [`Capabilities::FIRST_ERROR`], keep each answer to one line);
//! - the error units of a decoder's own API (the reference's `ErrorSpan`, which carries
//!   the matcher state that explains an error, and the fast streaming decoder's unit,
//!   which says whether it ended at end of input) are converted at the edge to
//!   [`crate::outcome::ErrorUnit`], the one shape outcomes share, with
//!   [`crate::outcome::ErrorLen::new`] for the first unit's length.

pub mod bstr;
pub mod chunk_plan;
pub mod encoding_rs;
pub mod fast;
pub mod fast_utf16;
pub mod mutants;
pub mod planted;
pub mod reference;
pub mod rust_std;
pub mod simdutf8;
pub mod streaming;

use serde::Serialize;

use crate::outcome::{Answer, DecoderFailure, ErrorUnit, Outcome};

/// Which fields of an [`Outcome`] a decoder reports (`valid` is always reported).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Capabilities {
    /// Reports the offset of the first error.
    pub valid_up_to: bool,
    /// Reports the first error unit's length, std-shaped (`null` for incomplete-at-end).
    pub error_len: bool,
    /// Reports the lossy decode as scalars.
    pub scalars: bool,
    /// Reports every error unit with its offset and length.
    pub errors: bool,
}

impl Capabilities {
    /// Everything a decoder can report.
    pub const ALL: Capabilities = Capabilities {
        valid_up_to: true,
        error_len: true,
        scalars: true,
        errors: true,
    };

    /// The verdict alone (a validator: simdutf8's basic API).
    pub const VERDICT: Capabilities = Capabilities {
        valid_up_to: false,
        error_len: false,
        scalars: false,
        errors: false,
    };

    /// The verdict and the first error, std's `Utf8Error` shape (`str::from_utf8`).
    pub const FIRST_ERROR: Capabilities = Capabilities {
        valid_up_to: true,
        error_len: true,
        scalars: false,
        errors: false,
    };

    /// The first error and the lossy decode, but not every error unit (the fast decoder's
    /// one-shot APIs, and the mutants built like them).
    pub const FIRST_ERROR_AND_SCALARS: Capabilities = Capabilities {
        valid_up_to: true,
        error_len: true,
        scalars: true,
        errors: false,
    };

    /// The lossy decode alone (`String::from_utf8_lossy`).
    pub const SCALARS: Capabilities = Capabilities {
        valid_up_to: false,
        error_len: false,
        scalars: true,
        errors: false,
    };

    /// The capability names that are set, for listings: `valid, valid_up_to, ...`.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names = vec!["valid"];
        for (set, name) in [
            (self.valid_up_to, "valid_up_to"),
            (self.error_len, "error_len"),
            (self.scalars, "scalars"),
            (self.errors, "errors"),
        ] {
            if set {
                names.push(name);
            }
        }
        names
    }
}

/// A UTF-8 decoder under test.
pub trait Decoder: Send + Sync {
    /// The name used on the command line and in reports (`reference`, `std`, ...).
    fn name(&self) -> &str;
    /// The decoder's version: a crate version, a rustc version, a runtime's version.
    fn version(&self) -> String;
    /// One line saying what is called.
    fn description(&self) -> &str;
    /// Which outcome fields it reports.
    fn capabilities(&self) -> Capabilities;
    /// Decodes one input into `outcome`, which the caller reuses from input to input (the
    /// engine's hot path). Implementations may keep the allocations of `outcome.scalars` and
    /// `outcome.errors` (see [`reuse_scalars`], [`reuse_errors`]) but must set every field:
    /// after the call `outcome` says exactly what [`Decoder::decode`] says for `input`,
    /// whatever it held before (start with [`reset_outcome`]).
    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure>;

    /// Decodes one input into a fresh [`Outcome`].
    fn decode(&self, input: &[u8]) -> Answer {
        let mut outcome = Outcome::verdict(self.name(), true);
        self.decode_into(input, &mut outcome)?;
        Ok(outcome)
    }

    /// Decodes many inputs: one result per input, in order. The default decodes them one by
    /// one; a decoder with a per-call cost (a process behind the adapter protocol) overrides
    /// it to pipeline the batch.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Answer> {
        inputs.iter().map(|input| self.decode(input)).collect()
    }
}

/// Resets `outcome` to "valid, nothing else reported" under the decoder name `name`, keeping
/// the allocations of its `scalars` and `errors` buffers for [`reuse_scalars`] and
/// [`reuse_errors`].
#[inline]
pub fn reset_outcome(outcome: &mut Outcome, name: &str) {
    // Almost always the same name (a decoder decodes many inputs into one outcome):
    // compared byte by byte, as a `memcmp` call costs more than these few bytes.
    let same_name = outcome.decoder.len() == name.len()
        && outcome
            .decoder
            .bytes()
            .zip(name.bytes())
            .all(|(a, b)| a == b);
    if !same_name {
        outcome.decoder.clear();
        outcome.decoder.push_str(name);
    }
    outcome.valid = true;
    outcome.valid_up_to = None;
    outcome.error_len = None;
    outcome.error = None;
}

/// Takes the scalar buffer out of `outcome`, emptied, so a decoder can fill it and put it
/// back with `outcome.scalars = Some(buffer)` without a fresh allocation.
#[inline]
pub fn reuse_scalars(outcome: &mut Outcome) -> Vec<u32> {
    let mut scalars = outcome.scalars.take().unwrap_or_default();
    scalars.clear();
    scalars
}

/// Takes the error-unit buffer out of `outcome`, emptied (see [`reuse_scalars`]).
#[inline]
pub fn reuse_errors(outcome: &mut Outcome) -> Vec<ErrorUnit> {
    let mut errors = outcome.errors.take().unwrap_or_default();
    errors.clear();
    errors
}

/// Appends the scalar values of `text` to `scalars`, as
/// `scalars.extend(text.chars().map(u32::from))` does, without that `extend`'s capacity
/// check and possible growth at every scalar: a decode has at most one scalar per byte,
/// so the room is made once and the scalars are written into it.
#[inline]
pub fn push_scalars(scalars: &mut Vec<u32>, text: &str) {
    let start = scalars.len();
    scalars.reserve(text.len());
    let mut written = 0;
    // `text.len()` spare slots, and at most that many chars: `zip` writes every char.
    for (slot, c) in scalars.spare_capacity_mut().iter_mut().zip(text.chars()) {
        slot.write(u32::from(c));
        written += 1;
    }
    // SAFETY: the `written` slots after the first `start` were initialised just above,
    // and `reserve` made them part of the allocation.
    unsafe { scalars.set_len(start + written) };
}

/// The built-in decoders, the reference first.
pub fn builtin() -> Vec<Box<dyn Decoder>> {
    let mut decoders: Vec<Box<dyn Decoder>> = vec![
        Box::new(reference::ReferenceDecoder),
        Box::new(rust_std::StdDecoder),
        Box::new(rust_std::StdFromUtf8),
        Box::new(rust_std::StdLossy),
        Box::new(rust_std::StdUtf8Chunks),
        Box::new(encoding_rs::EncodingRsDecoder),
        Box::new(streaming::Chunked::per_input(encoding_rs::EncodingRsStream)),
        Box::new(simdutf8::Simdutf8Basic),
        Box::new(simdutf8::Simdutf8Compat),
        Box::new(bstr::BstrDecoder),
    ];
    decoders.extend(fast::all());
    decoders.extend(fast_utf16::all());
    decoders
}

/// Finds a decoder by name: a built-in one, or one of the deliberately wrong
/// [`mutants`] and [`planted`] decoders that exist to test the harness itself.
pub fn by_name(name: &str) -> Option<Box<dyn Decoder>> {
    builtin()
        .into_iter()
        .chain(mutants::all())
        .chain(planted::all())
        .find(|decoder| decoder.name() == name)
}

/// The names of the built-in decoders, for error messages.
pub fn builtin_names() -> Vec<String> {
    builtin()
        .iter()
        .map(|decoder| decoder.name().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::push_scalars;

    /// `push_scalars` appends what `chars()` yields, after what the buffer held, for text
    /// of one- to four-byte characters (as many scalars as bytes, and a quarter).
    #[test]
    fn push_scalars_appends_the_chars() {
        for text in [
            "",
            "a",
            "abc",
            "\u{E9}t\u{E9}",
            "\u{FFFD}\u{FFFD}",
            "\u{1F600}x\u{10FFFF}",
        ] {
            let mut scalars = vec![7, 8];
            push_scalars(&mut scalars, text);
            let expected: Vec<u32> = [7, 8]
                .into_iter()
                .chain(text.chars().map(u32::from))
                .collect();
            assert_eq!(scalars, expected, "{text:?}");
        }
    }
}
