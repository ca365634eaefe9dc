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
