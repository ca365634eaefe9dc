//! Planted-bug decoders: a correct decoder with known bugs, the evidence that diagnosis
//! gives one finding per bug, named by its cause.
//!
//! Each decoder is the correct walker (one U+FFFD per maximal subpart, Unicode §3.9;
//! `valid`, `valid_up_to`, `error_len` in Rust std's shape, and `scalars`) with [`Bug`]s
//! switched on: each bug is one mechanism, documented with the RFC 3629 or Unicode text
//! it breaks. The files, one job each:
//!
//! - [`bugs`]: the mechanisms ([`Bug`]) and the conditions a bug can sit behind
//!   ([`Gate`]: short inputs, long inputs, a SIMD block boundary);
//! - [`walker`]: the decoder ([`Planted`]) that implements them;
//! - [`expect`]: expected findings as data (mechanism, input category, minimal witness,
//!   outcome, condition, which other bugs mask the witness);
//! - [`self_test`]: the first 25 decoders, written for the harness's own tests;
//! - [`real_world`]: decoders written from real bug reports and CVEs (libtomcrypt,
//!   lexbor, protobuf.js, msgpack-javascript, cborg, Java, MySQL, PostgreSQL, Go, .NET,
//!   Python, Perl, simdjson, Expat, ...), each citing its report;
//! - the tests: `catalogue_tests` checks that every expected finding is true of its
//!   decoder, `tests` that the rule-based diagnosis gives exactly the self-test decoders'
//!   findings, and `baseline` (ignored: a measurement) prints that diagnosis's figures on
//!   the real-world decoders.
//!
//! `docs/FINDINGS.md` lists the catalogue with its citations and the rule-based
//! diagnosis's baseline on it.
//!
//! They are not in the default run; name them like any built-in decoder
//! (`utf8conf run --decoders planted-stop-at-nul`, `utf8conf decode --decoder
//! planted-stop-at-nul --hex "00 41"`).

pub mod bugs;
pub mod expect;
pub mod real_world;
pub mod self_test;
pub mod walker;

pub use bugs::{Bug, Gate};
pub use expect::Entry;
pub use walker::Planted;

use super::Decoder;
use crate::taxonomy::Category;

/// Every planted decoder, the self-test ones first.
pub fn catalogue() -> impl Iterator<Item = &'static Entry> {
    self_test::SELF_TEST.iter().chain(real_world::entries())
}

/// The catalogue entry named `name`.
pub fn entry(name: &str) -> Option<&'static Entry> {
    catalogue().find(|entry| entry.name == name)
}

/// Every planted decoder, for [`super::by_name`].
pub fn all() -> Vec<Box<dyn Decoder>> {
    catalogue()
        .map(|entry| Box::new(Planted::new(entry.name, entry.bugs)) as Box<dyn Decoder>)
        .collect()
}

/// The findings today's rule-based diagnosis gives on the self-test decoders: for each
/// decoder, the categories of each of its findings (one finding per bug).
pub const RULE_BASED: &[(&str, &[&[Category]])] = &[
    ("planted-surrogates", &[&[Category::Surrogate]]),
    ("planted-overlong-2", &[&[Category::Overlong2]]),
    ("planted-overlong-3", &[&[Category::Overlong3]]),
    ("planted-above-max", &[&[Category::AboveMax]]),
    ("planted-five-byte", &[&[Category::Legacy5Or6Byte]]),
    ("planted-stop-at-nul", &[&[Category::OutputCutShort]]),
    ("planted-utf16-pairs", &[&[Category::ValidMisdecoded]]),
    (
        "planted-noncharacters",
        &[&[Category::NoncharacterRejected]],
    ),
    // Falls back only on ill-formed input: the bytes that fail are the stray byte's,
    // and no well-formed input is misdecoded.
    (
        "planted-latin1-fallback",
        &[&[Category::UnexpectedContinuation]],
    ),
    ("planted-bom-strip", &[&[Category::BomStripped]]),
    ("planted-offset-after-bom", &[&[Category::OffsetMiscounted]]),
    ("planted-offset-in-chars", &[&[Category::OffsetMiscounted]]),
    (
        "planted-off-by-one-past-64",
        &[&[Category::OffsetMiscounted]],
    ),
    ("planted-per-byte", &[&[Category::TruncatedAtEnd]]),
    ("planted-per-run", &[&[Category::UnexpectedContinuation]]),
    ("planted-per-lead-sized", &[&[Category::Overlong2]]),
    (
        "planted-swallow-after-stray",
        &[&[Category::CharacterSwallowed]],
    ),
    (
        "planted-error-len-interrupter",
        &[&[Category::TruncatedInterrupted]],
    ),
    ("planted-error-len-at-end", &[&[Category::TruncatedAtEnd]]),
    ("planted-short-tail-c0-80", &[&[Category::Overlong2]]),
    ("planted-across-32", &[&[Category::ValidRejected]]),
    ("planted-misdecodes-e9", &[&[Category::ValidMisdecoded]]),
    (
        "planted-two-nul-and-surrogates",
        &[&[Category::OutputCutShort], &[Category::Surrogate]],
    ),
    (
        "planted-two-bom-and-overlong",
        &[&[Category::BomStripped], &[Category::Overlong2]],
    ),
    (
        "planted-two-swallow-and-past-64",
        &[
            &[Category::CharacterSwallowed],
            &[Category::OffsetMiscounted],
        ],
    ),
];

#[cfg(test)]
mod tests;

#[cfg(test)]
mod catalogue_tests;

#[cfg(test)]
mod baseline;
#[cfg(test)]
mod exact_tests;
