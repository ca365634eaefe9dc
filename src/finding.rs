//! Findings: one bug of one decoder, named by its cause.
//!
//! A decoder with one bug departs from the reference on thousands of inputs and in several
//! aspects at once (a decoder that accepts CESU-8 says `valid`, reports no `valid_up_to` and
//! decodes other `scalars`). A *finding* gathers all of them under their common root cause:
//! the first unit of the reference's parse where the decoder parts from it ([`CauseUnit`]),
//! what the decoder does there ([`DecoderAction`]), and where in the input that happens
//! ([`PositionCondition`]). Both `utf8conf run` and `utf8conf check` report findings, and
//! the SARIF / JUnit writers and the security classification read them; this file is the
//! one definition of their shape.
//!
//! The id is a stable hash of the decoder's name and the root cause's key
//! ([`RootCause::key`]), so the same bug gets the same id in every run and on every machine.

use serde::{Deserialize, Serialize};

use crate::aspect::Aspect;
use crate::stable_hash::fnv1a64_hex;
use crate::taxonomy::Category;

pub mod impact;
mod title;

/// The `schema` value of a finding written on its own (`run`'s `findings/<id>.json`).
pub const FINDING_SCHEMA: &str = "utf8conf/finding/1";

/// What the reference sees at the root-cause unit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum UnitKind {
    /// A well-formed character, of row `row` (1..=9) of Unicode Table 3-7.
    WellFormed {
        /// The row of Table 3-7 ("Well-Formed UTF-8 Byte Sequences").
        row: u8,
        /// The character's scalar value.
        scalar: u32,
    },
    /// An error unit (a maximal subpart, Unicode D93b) of this taxonomy category.
    Error {
        /// The taxonomy category of the unit's lead-sized sequence.
        category: Category,
    },
    /// The end of the input (the decoder produced output where the reference has none).
    End,
}

/// The unit of the reference's parse at which the decoder first parts from it.
///
/// The root cause's place, written for people and hashed into the finding's key: its
/// bytes in hex and as Table 3-7 byte classes, and what the reference sees there, which may
/// be a well-formed character or the end of the input. So it is not an error unit
/// (`outcome::ErrorUnit`), though it is often built from one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CauseUnit {
    /// Its byte offset in the witness.
    pub offset: usize,
    /// Its length in bytes (0 for [`UnitKind::End`]).
    pub len: usize,
    /// Its bytes, as `"ED A0 80"`.
    pub bytes_hex: String,
    /// The bytes abstracted to byte classes of Table 3-7 (`"ED A0..BF 80..BF"`).
    pub byte_classes: String,
    /// What the reference sees there.
    pub unit: UnitKind,
}

/// What the decoder does at the root-cause unit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DecoderAction {
    /// Accepts an ill-formed unit (with what follows it, for a pair) as these scalars.
    AcceptsAs {
        /// The scalars it produced there (empty when it reports no lossy decode).
        scalars: Vec<u32>,
    },
    /// Emits `emitted` U+FFFD where the reference emits `expected`.
    Replacements {
        /// U+FFFD the decoder emitted for the run of error units.
        emitted: usize,
        /// U+FFFD the reference emits (one per maximal subpart).
        expected: usize,
        /// The U+FFFD policy that predicts the decoder's count, when one does
        /// (`per-byte`, `per-run`, `per-lead-sized-sequence`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        policy: Option<crate::policy::ReplacementPolicy>,
    },
    /// Reports the error unit longer than it is: it runs into the next unit.
    MergesWithNext,
    /// Reports the error unit shorter than it is (splits one maximal subpart).
    SplitsUnit,
    /// Misjudges the end of input: reports an ill-formed unit as a prefix more input could
    /// complete (`error_len` `null`), or a real one cut by the end as invalid (a number).
    MisjudgesEnd {
        /// True when the decoder said "incomplete" (`null`) and the reference a length.
        reported_incomplete: bool,
    },
    /// Consumes the well-formed character after an error unit.
    SwallowsCharacter {
        /// The swallowed character.
        scalar: u32,
    },
    /// Stops decoding here: its output ends where the reference's goes on.
    Stops,
    /// Reports the right first error at an offset off by `by` bytes.
    ValidUpToOff {
        /// Decoder's `valid_up_to` minus the reference's.
        by: i64,
    },
    /// Rejects a well-formed character as an error.
    RejectsCharacter,
    /// Decodes a well-formed character to other scalars.
    Misdecodes {
        /// The scalars it produced for it.
        scalars: Vec<u32>,
    },
    /// Decodes the bytes from here on one scalar per byte (a Latin-1 fallback).
    Latin1Fallback,
    /// Drops a leading byte order mark (U+FEFF), a wrapper policy rather than decoding.
    StripsBom,
    /// Reports error units other than the maximal subparts.
    OtherErrorUnits,
    /// Crashes, times out or breaks the protocol (the aspect says which).
    Fails,
}

impl DecoderAction {
    /// The action's kebab-case name (its `kind` in JSON).
    pub fn name(&self) -> &'static str {
        match self {
            DecoderAction::AcceptsAs { .. } => "accepts-as",
            DecoderAction::Replacements { .. } => "replacements",
            DecoderAction::MergesWithNext => "merges-with-next",
            DecoderAction::SplitsUnit => "splits-unit",
            DecoderAction::MisjudgesEnd { .. } => "misjudges-end",
            DecoderAction::SwallowsCharacter { .. } => "swallows-character",
            DecoderAction::Stops => "stops",
            DecoderAction::ValidUpToOff { .. } => "valid-up-to-off",
            DecoderAction::RejectsCharacter => "rejects-character",
            DecoderAction::Misdecodes { .. } => "misdecodes",
            DecoderAction::Latin1Fallback => "latin1-fallback",
            DecoderAction::StripsBom => "strips-bom",
            DecoderAction::OtherErrorUnits => "other-error-units",
            DecoderAction::Fails => "fails",
        }
    }
}

/// Where the bug shows, learnt by moving the minimal witness around in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PositionCondition {
    /// Only when the root-cause unit starts at this offset or later.
    AtOrPast {
        /// The smallest offset at which the bug shows.
        offset: usize,
    },
    /// Only when the root-cause unit is at the very start of the input.
    AtStart,
    /// Only when the root-cause unit straddles a boundary of `block`-byte blocks.
    AcrossBlockBoundary {
        /// The block size (16, 32 or 64).
        block: usize,
    },
    /// Only in inputs shorter than `len` bytes.
    InputShorterThan {
        /// The smallest input length at which the bug no longer shows.
        len: usize,
    },
    /// Only in inputs longer than `len` bytes, wherever the unit is in them: a second
    /// decoding path for long inputs.
    InputLongerThan {
        /// The largest input length at which the bug does not show.
        len: usize,
    },
    /// Only when the root-cause unit (for a finding of a condition's machine, the byte its
    /// title names) is at bytes `first..=last` of a `block`-byte block: a block-based path
    /// whose edge mishandles it (a lead on a block's last byte, the byte after a boundary
    /// taken into a sequence before it).
    InBlock {
        /// The block size (16, 32 or 64).
        block: usize,
        /// The first offset within a block at which the bug shows.
        first: usize,
        /// The last offset within a block at which it shows.
        last: usize,
    },
}

impl PositionCondition {
    /// The condition in words: "only when the unit is at offset >= 64".
    pub fn describe(self) -> String {
        match self {
            PositionCondition::AtOrPast { offset } => {
                format!("only when the unit is at offset >= {offset}")
            }
            PositionCondition::AtStart => "only at the start of the input".to_string(),
            PositionCondition::AcrossBlockBoundary { block } => {
                format!("only across a {block}-byte block boundary")
            }
            PositionCondition::InputShorterThan { len } => {
                format!("only in inputs shorter than {len} bytes")
            }
            PositionCondition::InputLongerThan { len } => {
                format!("only in inputs longer than {len} bytes")
            }
            PositionCondition::InBlock { block, first, last } if first == last => {
                format!("only at byte {first} of a {block}-byte block")
            }
            PositionCondition::InBlock { block, first, last } => {
                format!("only at bytes {first} to {last} of a {block}-byte block")
            }
        }
    }
}

/// The root cause of a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootCause {
    /// The first unit where decoder and reference part.
    pub unit: CauseUnit,
    /// What the reference does there, in grammar terms.
    pub reference_does: String,
    /// What the decoder does there.
    pub decoder_does: DecoderAction,
    /// Where in the input the bug shows, when not everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PositionCondition>,
}

impl RootCause {
    /// The categories of the root-cause unit: the cause's own category when the action
    /// has one (a swallowed character, a stop, a miscounted offset), else the unit's.
    pub fn categories(&self) -> Vec<Category> {
        let own = match &self.decoder_does {
            DecoderAction::SwallowsCharacter { .. } => Some(Category::CharacterSwallowed),
            DecoderAction::Stops => Some(Category::OutputCutShort),
            DecoderAction::ValidUpToOff { .. } => Some(Category::OffsetMiscounted),
            DecoderAction::StripsBom => Some(Category::BomStripped),
            DecoderAction::Latin1Fallback => Some(Category::ValidMisdecoded),
            _ => None,
        };
        if let Some(category) = own {
            return vec![category];
        }
        match &self.unit.unit {
            UnitKind::Error { category } => vec![*category],
            UnitKind::WellFormed { scalar, .. } => vec![match self.decoder_does {
                DecoderAction::RejectsCharacter
                    if crate::taxonomy::is_noncharacter(*scalar) && self.position.is_none() =>
                {
                    Category::NoncharacterRejected
                }
                DecoderAction::RejectsCharacter | DecoderAction::Fails => Category::ValidRejected,
                _ => Category::ValidMisdecoded,
            }],
            UnitKind::End => vec![Category::ValidMisdecoded],
        }
    }

    /// What makes two root causes the same bug: the decoder's action (with the unit's
    /// category for actions that are about one kind of unit), and the position condition.
    /// Scalars and offsets are left out, so that the same bug met on different characters
    /// is one finding.
    pub fn key(&self) -> String {
        let action = self.decoder_does.name();
        let detail = match &self.decoder_does {
            DecoderAction::Replacements { policy, .. } => policy
                .map_or("unrecognised", |policy| policy.as_str())
                .to_string(),
            DecoderAction::ValidUpToOff { by } => by.to_string(),
            // A position-dependent rejection is about the position, not the character.
            DecoderAction::Stops | DecoderAction::RejectsCharacter => match &self.unit.unit {
                UnitKind::WellFormed { scalar, .. } if self.position.is_none() => {
                    StopClass::of(*scalar).as_str().to_string()
                }
                _ => String::new(),
            },
            DecoderAction::Misdecodes { .. } => match &self.unit.unit {
                UnitKind::WellFormed { row, .. } => format!("length-{}", row_length(*row)),
                _ => String::new(),
            },
            // One rule about the end of input, whatever the unit's category.
            DecoderAction::MisjudgesEnd {
                reported_incomplete,
            } => reported_incomplete.to_string(),
            DecoderAction::AcceptsAs { .. }
            | DecoderAction::MergesWithNext
            | DecoderAction::SplitsUnit
            | DecoderAction::Fails => self
                .categories()
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(","),
            _ => String::new(),
        };
        let position = self
            .position
            .map(|p| serde_json::to_string(&p).expect("conditions serialise"))
            .unwrap_or_default();
        format!("{action}/{detail}/{position}")
    }
}

/// One manifestation of a finding outside its root-cause category: an input where the
/// same cause shows, about other bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifestation {
    /// The categories of the bytes involved.
    pub categories: Vec<Category>,
    /// The (minimised) input, as hex.
    pub input_hex: String,
    /// The aspects in which it differs.
    pub aspects: Vec<Aspect>,
}

/// One bug of one decoder (see the module header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable id: 16 hex digits ([`Finding::id_for`]).
    pub id: String,
    /// The decoder it is about.
    pub decoder: String,
    /// What is wrong, in plain words.
    pub title: String,
    /// The root cause.
    pub cause: RootCause,
    /// The categories of the root-cause unit: the categories that fail because of it.
    pub categories: Vec<Category>,
    /// The smallest input that shows it, as hex.
    pub witness_hex: String,
    /// The aspects in which it shows, in [`Aspect::ALL`] order.
    pub aspects: Vec<Aspect>,
    /// How many inputs showed it.
    pub occurrences: u64,
    /// The reference's explanation of the witness, in the grammar's terms.
    pub explanation: String,
    /// The reference's outcome on the witness.
    pub reference_outcome: serde_json::Value,
    /// The decoder's answer on the witness (or its failure); `null` in a run's report,
    /// where the witness is the reference's side only.
    pub decoder_answer: Option<crate::outcome::RecordedAnswer>,
    /// A command that reproduces it.
    pub reproduce: String,
    /// A few inputs where the same cause shows in other categories.
    pub manifestations: Vec<Manifestation>,
    /// Its security impact (class, severity, citation; docs/SECURITY-IMPACT.md), set by
    /// the report that presents it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<crate::security::SecurityImpact>,
    /// Exploit-shaped inputs of the same security class that the decoder was seen to
    /// fall for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub witnesses: Vec<crate::security::witness::Witness>,
    /// How the decoder's learned machine explains it (absent for a finding the machine
    /// does not explain: a condition on position or length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelBasis>,
}

/// A finding's mechanism in the decoder's learned machine ([`crate::model`]): the input
/// axis and the behaviour axis as two typed fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelBasis {
    /// The single-fault hypothesis that explains it: `transition` (one changed
    /// transition family of RFC 3629's machine), `convention NAME` (a known policy or
    /// fallback), or `unexplained`.
    pub mechanism: String,
    /// True for a known U+FFFD policy: the decoder's policy, not a bug.
    pub policy: bool,
    /// What the witness's bytes are: the category of its first error (`null`:
    /// well-formed).
    pub input: Option<Category>,
    /// What the decoder does with them.
    pub behaviour: crate::model::mechanism::Behaviour,
    /// The differing transitions of the machine it explains, its own and those reached
    /// only through it.
    pub differences: usize,
}

impl Finding {
    /// The stable id of `cause` in `decoder`.
    pub fn id_for(decoder: &str, cause: &RootCause) -> String {
        fnv1a64_hex(format!("utf8conf/finding/1\n{decoder}\n{}", cause.key()).as_bytes())
    }
}

/// The length of the characters of a Table 3-7 row.
pub fn row_length(row: u8) -> u8 {
    match row {
        1 => 1,
        2 => 2,
        3..=6 => 3,
        _ => 4,
    }
}

/// The row of Unicode Table 3-7 that a scalar's encoding falls in.
pub fn table_row(scalar: u32) -> u8 {
    match scalar {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFF => 3,
        0x1000..=0xCFFF => 4,
        0xD000..=0xD7FF => 5,
        0xE000..=0xFFFF => 6,
        0x10000..=0x3FFFF => 7,
        0x40000..=0xFFFFF => 8,
        _ => 9,
    }
}

/// The byte classes of Table 3-7 row `row`.
pub fn row_byte_classes(row: u8) -> &'static str {
    match row {
        1 => "00..7F",
        2 => "C2..DF 80..BF",
        3 => "E0 A0..BF 80..BF",
        4 => "E1..EC 80..BF 80..BF",
        5 => "ED 80..9F 80..BF",
        6 => "EE..EF 80..BF 80..BF",
        7 => "F0 90..BF 80..BF 80..BF",
        8 => "F1..F3 80..BF 80..BF 80..BF",
        _ => "F4 80..8F 80..BF 80..BF",
    }
}

/// The characters that decoders commonly single out: where a decoder stops or which it
/// rejects is one bug per class, whatever the character within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopClass {
    /// U+0000 (C strings end there).
    Nul,
    /// U+FEFF, the byte order mark.
    Bom,
    /// A noncharacter (Unicode §23.7), which is well-formed.
    Noncharacter,
    /// Any other character.
    Character,
}

impl StopClass {
    /// The class of `scalar`.
    pub fn of(scalar: u32) -> StopClass {
        match scalar {
            0 => StopClass::Nul,
            0xFEFF => StopClass::Bom,
            s if crate::taxonomy::is_noncharacter(s) => StopClass::Noncharacter,
            _ => StopClass::Character,
        }
    }

    /// Its name in a root-cause key.
    pub fn as_str(self) -> &'static str {
        match self {
            StopClass::Nul => "nul",
            StopClass::Bom => "bom",
            StopClass::Noncharacter => "noncharacter",
            StopClass::Character => "character",
        }
    }

    /// The class in words, for titles.
    pub fn words(self) -> &'static str {
        match self {
            StopClass::Nul => "U+0000",
            StopClass::Bom => "U+FEFF",
            StopClass::Noncharacter => "a noncharacter",
            StopClass::Character => "characters",
        }
    }
}

#[cfg(test)]
mod tests;
