//! Planted decoders written from real decoder bug reports and CVEs. Each decoder is the
//! correct walker with the mechanisms the report describes (or, where a report describes
//! more than four, a subset, said in its `source`); its `source` names the report.
//! The decoders are models of the reported behaviour, not copies of the code: where a
//! report leaves a detail open (what a read past the buffer returns, which lead bytes a
//! policy counts), the choice is said in the `source` too.
//!
//! The files: [`libraries`] (serialisation formats, parsers, crypto and SIMD validators),
//! [`platforms`] (language runtimes, databases and C libraries) and [`advisories`]
//! (security advisories and validation code reported as too lenient); this file holds
//! the witnesses several of them share.

pub mod advisories;
pub mod libraries;
pub mod platforms;

use super::bugs::Bug::*;
use super::expect::Input::{IllFormed, WellFormed};
use super::expect::Kind::Policy;
use super::expect::{expect, Entry, Expected};
use crate::taxonomy::Category::*;

/// Every decoder written from a real report.
pub fn entries() -> impl Iterator<Item = &'static Entry> {
    libraries::LIBRARIES
        .iter()
        .chain(platforms::PLATFORMS)
        .chain(advisories::ADVISORIES)
}

/// `C2 41` taken whole: the `A` is lost in U+0081.
pub(super) const UNCHECKED: Expected = expect(
    ContinuationUnchecked,
    IllFormed(TruncatedInterrupted),
    "C2 41",
    "valid; 0081",
);
pub(super) const SURROGATE: Expected = expect(
    AcceptsSurrogates,
    IllFormed(Surrogate),
    "ED A0 80",
    "valid; D800",
);
pub(super) const OVERLONG: Expected = expect(
    AcceptsOverlongAll,
    IllFormed(Overlong2),
    "C0 80",
    "valid; 0000",
);
pub(super) const FIVE_BYTE: Expected = expect(
    AcceptsFiveByte,
    IllFormed(Legacy5Or6Byte),
    "F8 88 80 80 80",
    "valid; 200000",
);
pub(super) const F5: Expected = expect(
    AcceptsAboveMax,
    IllFormed(AboveMax),
    "F5 80 80 80",
    "valid; 140000",
);
pub(super) const SUPPLEMENTARY: Expected = expect(
    RejectsSupplementary,
    WellFormed,
    "F0 9F 98 80",
    "invalid at 0 len 4; FFFD",
);
pub(super) const NUL: Expected = expect(RejectsNul, WellFormed, "00", "invalid at 0 len 1; FFFD");
/// A lossy-only decoder's verdict on a stray byte, where nothing else changes it.
pub(super) const LOSSY_ONLY: Expected = expect(
    NeverReports,
    IllFormed(UnexpectedContinuation),
    "80",
    "valid; FFFD",
)
.kind(Policy);
/// `E2 82` cut by the end of input, read as if a zero-payload byte followed.
pub(super) const READS_ZERO: Expected = expect(
    TruncatedEndReadsZero,
    IllFormed(TruncatedAtEnd),
    "E2 82",
    "valid; 2080",
);
pub(super) const PER_BYTE_E0_A0: Expected = expect(
    PerBytePolicy,
    IllFormed(TruncatedInterrupted),
    "E0 A0 41",
    "valid; FFFD FFFD 0041",
)
.kind(Policy)
.masked(&[NeverReports]);
/// A lossy-only decoder's verdict on a stray byte it gives its own value (Latin-1).
pub(super) const LOSSY_ONLY_LATIN1: Expected = expect(
    NeverReports,
    IllFormed(UnexpectedContinuation),
    "80",
    "valid; 0080",
)
.kind(Policy)
.masked(&[InvalidByteAsLatin1]);
/// A stray byte given its own value (Latin-1) by a lossy-only decoder.
pub(super) const LATIN1_SILENT: Expected = expect(
    InvalidByteAsLatin1,
    IllFormed(UnexpectedContinuation),
    "80",
    "valid; 0080",
)
.masked(&[NeverReports]);
/// A lossy-only decoder's verdict on a stray byte it deletes.
pub(super) const LOSSY_ONLY_IGNORE: Expected = expect(
    NeverReports,
    IllFormed(UnexpectedContinuation),
    "80",
    "valid; -",
)
.kind(Policy)
.masked(&[IgnoresErrors]);
/// A stray byte deleted, and decoding going on, in a lossy-only decoder.
pub(super) const IGNORE_SILENT: Expected = expect(
    IgnoresErrors,
    IllFormed(UnexpectedContinuation),
    "80 41",
    "valid; 0041",
)
.kind(Policy)
.masked(&[NeverReports]);
/// `F4 90 80 80`, the first value above U+10FFFF, taken as its value.
pub(super) const ABOVE_MAX: Expected = expect(
    AcceptsAboveMax,
    IllFormed(AboveMax),
    "F4 90 80 80",
    "valid; 110000",
);
/// `C0 80` decoded to U+0000 by a decoder without the 2-byte shortest-form check.
pub(super) const OVERLONG_2: Expected = expect(
    AcceptsOverlong2,
    IllFormed(Overlong2),
    "C0 80",
    "valid; 0000",
);
/// U+FDD0, the first noncharacter, rejected.
pub(super) const NONCHARACTER: Expected = expect(
    RejectsNoncharacters,
    WellFormed,
    "EF B7 90",
    "invalid at 0 len 3; FFFD",
);
