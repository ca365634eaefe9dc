//! Aspects: the questions a decoder's answer is graded on, one vocabulary for `run`,
//! `check`, the fuzz targets and the findings.
//!
//! An *aspect* is one question both decoders can answer about an input: is it valid, where
//! is the first error, how long is it, what is the lossy decode, where are all the error
//! units; or a way of not answering at all (a crash, a timeout, a broken protocol, the
//! three kinds of decoder failure). Only aspects both sides report are compared.

use serde::{Deserialize, Serialize};

/// One aspect of an outcome (the `aspect` field of a finding report).
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

/// How a decoder's answer differs from the reference's in one aspect (the `shape` field
/// of a finding report). It is part of a departure's signature, so it must survive
/// minimisation: it names a direction (`earlier`, `more-replacements`), never values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// `valid` where the reference has an error.
    AcceptsIllFormed,
    /// An error where the reference has none.
    RejectsWellFormed,
    /// The decoder claims the aspect but left it out of its answer.
    Absent,
    /// The first error is reported before the reference's.
    Earlier,
    /// The first error is reported after the reference's.
    Later,
    /// An incomplete tail reported as a definite error.
    IncompleteReportedInvalid,
    /// A definite error reported as an incomplete tail.
    InvalidReportedIncomplete,
    /// The first error unit is shorter than the reference's.
    Shorter,
    /// The first error unit is longer than the reference's.
    Longer,
    /// The lossy decode is the reference's without its leading U+FEFF.
    BomStripped,
    /// More U+FFFD than the reference's lossy decode.
    MoreReplacements,
    /// Fewer U+FFFD than the reference's lossy decode.
    FewerReplacements,
    /// Other scalars, with as many U+FFFD.
    OtherScalars,
    /// More error units than the reference's.
    MoreUnits,
    /// Fewer error units than the reference's.
    FewerUnits,
    /// As many error units, at other offsets or of other lengths.
    OtherUnits,
    /// No outcome at all (a crash).
    NoOutcome,
    /// No answer in time (a timeout).
    NoAnswer,
    /// An answer that broke the protocol.
    MalformedAnswer,
}

impl Shape {
    /// Every shape, in declaration order.
    pub const ALL: [Shape; 19] = [
        Shape::AcceptsIllFormed,
        Shape::RejectsWellFormed,
        Shape::Absent,
        Shape::Earlier,
        Shape::Later,
        Shape::IncompleteReportedInvalid,
        Shape::InvalidReportedIncomplete,
        Shape::Shorter,
        Shape::Longer,
        Shape::BomStripped,
        Shape::MoreReplacements,
        Shape::FewerReplacements,
        Shape::OtherScalars,
        Shape::MoreUnits,
        Shape::FewerUnits,
        Shape::OtherUnits,
        Shape::NoOutcome,
        Shape::NoAnswer,
        Shape::MalformedAnswer,
    ];

    /// The name in reports (kebab-case), which signature ids hash.
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::AcceptsIllFormed => "accepts-ill-formed",
            Shape::RejectsWellFormed => "rejects-well-formed",
            Shape::Absent => "absent",
            Shape::Earlier => "earlier",
            Shape::Later => "later",
            Shape::IncompleteReportedInvalid => "incomplete-reported-invalid",
            Shape::InvalidReportedIncomplete => "invalid-reported-incomplete",
            Shape::Shorter => "shorter",
            Shape::Longer => "longer",
            Shape::BomStripped => "bom-stripped",
            Shape::MoreReplacements => "more-replacements",
            Shape::FewerReplacements => "fewer-replacements",
            Shape::OtherScalars => "other-scalars",
            Shape::MoreUnits => "more-units",
            Shape::FewerUnits => "fewer-units",
            Shape::OtherUnits => "other-units",
            Shape::NoOutcome => "no-outcome",
            Shape::NoAnswer => "no-answer",
            Shape::MalformedAnswer => "malformed-answer",
        }
    }

    /// The shape recorded when a decoder gave no outcome, by the failure aspect.
    pub fn of_failure(aspect: Aspect) -> Shape {
        match aspect {
            Aspect::Crash => Shape::NoOutcome,
            Aspect::Timeout => Shape::NoAnswer,
            _ => Shape::MalformedAnswer,
        }
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
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

#[cfg(test)]
mod tests {
    use super::Shape;

    #[test]
    fn shapes_serialise_as_their_report_names() {
        for shape in Shape::ALL {
            let json = serde_json::to_value(shape).unwrap();
            assert_eq!(json, shape.as_str(), "{shape:?}");
            assert_eq!(serde_json::from_value::<Shape>(json).unwrap(), shape);
        }
    }

    #[test]
    fn the_report_schema_lists_every_shape() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../schemas/divergence.schema.json")).unwrap();
        let listed = &schema["properties"]["shape"]["enum"];
        let names: Vec<&str> = Shape::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(listed, &serde_json::json!(names));
    }
}
