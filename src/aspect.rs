//! Aspects: the questions a decoder's answer is graded on, one vocabulary for `run`,
//! `check`, the fuzz targets and the findings.
//!
//! An *aspect* is one question both decoders can answer about an input: is it valid, where
//! is the first error, how long is it, what is the lossy decode, where are all the error
//! units; or a way of not answering at all (a crash, a timeout, a broken protocol, the
//! three kinds of decoder failure). Only aspects both sides report are compared.

use serde::{Deserialize, Serialize};

/// One aspect of an outcome (the `aspect` field of a divergence report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aspect {
    /// The strict verdict.
    Valid,
    /// The offset of the first error.
    ValidUpTo,
    /// The length of the first error unit (std's shape, `null` for incomplete-at-end).
    ErrorLen,
    /// The lossy decode.
    Scalars,
    /// Every error unit's offset and length.
    Errors,
    /// The decoder panicked (in process) or its process died.
    Crash,
    /// The decoder gave no answer in time.
    Timeout,
    /// The decoder's answer broke the adapter protocol.
    Protocol,
}

impl Aspect {
    /// Every aspect, in report order.
    pub const ALL: [Aspect; 8] = [
        Aspect::Valid,
        Aspect::ValidUpTo,
        Aspect::ErrorLen,
        Aspect::Scalars,
        Aspect::Errors,
        Aspect::Crash,
        Aspect::Timeout,
        Aspect::Protocol,
    ];

    /// The aspects compared field by field, in the order that decides the primary one.
    pub const COMPARED: [Aspect; 5] = [
        Aspect::Valid,
        Aspect::ValidUpTo,
        Aspect::ErrorLen,
        Aspect::Scalars,
        Aspect::Errors,
    ];

    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Aspect::Valid => "valid",
            Aspect::ValidUpTo => "valid_up_to",
            Aspect::ErrorLen => "error_len",
            Aspect::Scalars => "scalars",
            Aspect::Errors => "errors",
            Aspect::Crash => "crash",
            Aspect::Timeout => "timeout",
            Aspect::Protocol => "protocol",
        }
    }

    /// Parses a name written by [`Aspect::as_str`].
    pub fn from_name(name: &str) -> Option<Aspect> {
        Aspect::ALL
            .into_iter()
            .find(|aspect| aspect.as_str() == name)
    }

    /// The aspect's position in [`Aspect::ALL`] (an index into per-aspect counters).
    pub fn index(self) -> usize {
        self as usize
    }

    /// True for the strict-verdict aspects.
    pub fn is_strict(self) -> bool {
        matches!(self, Aspect::Valid | Aspect::ValidUpTo | Aspect::ErrorLen)
    }

    /// True for a decoder failure rather than a wrong answer.
    pub fn is_failure(self) -> bool {
        matches!(self, Aspect::Crash | Aspect::Timeout | Aspect::Protocol)
    }
}

impl std::fmt::Display for Aspect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of aspects as a bit mask over [`Aspect::index`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AspectSet(u8);

impl AspectSet {
    /// Adds `aspect`.
    pub fn insert(&mut self, aspect: Aspect) {
        self.0 |= 1 << aspect.index();
    }

    /// True when `aspect` is in the set.
    pub fn contains(self, aspect: Aspect) -> bool {
        self.0 & (1 << aspect.index()) != 0
    }

    /// The set as a bit mask: bit [`Aspect::index`] for each aspect in it.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The set of a bit mask made by [`AspectSet::bits`].
    pub fn from_bits(bits: u8) -> AspectSet {
        AspectSet(bits)
    }

    /// True when the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The aspects in the set, in [`Aspect::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Aspect> {
        Aspect::ALL.into_iter().filter(move |&a| self.contains(a))
    }
}
