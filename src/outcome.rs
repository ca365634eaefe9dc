//! The outcome model: what one decoder said about one input.
//!
//! Every decoder the harness knows (the ABNF reference, the fast decoder, Rust crates,
//! external adapters) is reduced to an [`Outcome`], and the differential engine compares
//! outcomes field by field. The JSON shape is a published contract (docs/DESIGN.md §3.2):
//!
//! ```json
//! {"decoder": "reference", "valid": false, "valid_up_to": 1, "error_len": 3,
//!  "scalars": [97, 65533], "errors": [{"offset": 1, "len": 3, "category": "truncated-interrupted"}]}
//! ```
//!
//! Two rules shape the types:
//! - `valid_up_to` and `error_len` follow Rust std's [`std::str::Utf8Error`]: `error_len` is
//!   `null` when the first error is a still-completable prefix that runs to the end of input.
//!   So `error_len` has three states (absent, `null`, a number), modelled as
//!   `Option<ErrorLen>`.
//! - A field a decoder cannot produce is absent, never invented: every field but `decoder`
//!   and `valid` is optional, and absent fields are not serialised.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::taxonomy::Category;

/// The replacement character U+FFFD, as a scalar value.
pub const REPLACEMENT: u32 = 0xFFFD;

/// The length of the first error unit, in Rust std's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorLen {
    /// The first error unit is this many bytes long and can never become valid
    /// (`Utf8Error::error_len() == Some(n)`); serialised as the number.
    Invalid(usize),
    /// The input ends inside a sequence that more bytes could still complete
    /// (`Utf8Error::error_len() == None`); serialised as `null`.
    Incomplete,
}

impl ErrorLen {
    /// The first error unit's length from the unit's `len` and whether it is `incomplete`:
    /// a prefix of a character that runs to the end of input, which more input could
    /// still complete.
    pub fn new(len: usize, incomplete: bool) -> Self {
        if incomplete {
            ErrorLen::Incomplete
        } else {
            ErrorLen::Invalid(len)
        }
    }

    /// Converts from std's `Option<usize>` convention.
    pub fn from_std(error_len: Option<usize>) -> Self {
        match error_len {
            Some(len) => ErrorLen::Invalid(len),
            None => ErrorLen::Incomplete,
        }
    }

    /// Converts to std's `Option<usize>` convention.
    pub fn to_std(self) -> Option<usize> {
        match self {
            ErrorLen::Invalid(len) => Some(len),
            ErrorLen::Incomplete => None,
        }
    }
}

impl Serialize for ErrorLen {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_std().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ErrorLen {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<usize>::deserialize(deserializer).map(ErrorLen::from_std)
    }
}

/// Deserialises a field that may be absent (`None`), `null` (`Some(Incomplete)`) or a number.
fn deserialize_error_len<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<ErrorLen>, D::Error> {
    ErrorLen::deserialize(deserializer).map(Some)
}

/// One error unit: a maximal subpart (Unicode D93b) or whatever unit a decoder reports.
///
/// This is *the* error unit of an answer, the one every layer compares and every report
/// writes (`Outcome.errors`). The other unit types are other concepts, each kept for a
/// reason its doc gives: the reference's `ErrorSpan` (a unit of the reference's own parse,
/// with the derivation state that explains it), the fast decoder's streaming `ErrorUnit`
/// (a unit of an unbounded stream, decided as bytes arrive), the automaton's `Unit` (any
/// unit of a learned machine's parse, characters too) and the finding's `CauseUnit` (the
/// one unit where a decoder parts from the reference, written for people).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ErrorUnit {
    /// Byte offset of the unit in the input.
    pub offset: usize,
    /// Length of the unit in bytes (at least 1).
    pub len: usize,
    /// The taxonomy category of the unit, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
}

/// What one decoder said about one input (docs/DESIGN.md §3.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The decoder's name, as listed by `utf8conf decoders`.
    pub decoder: String,
    /// The strict verdict: is the whole input well-formed UTF-8?
    pub valid: bool,
    /// Offset of the first error (absent when valid or not reported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_up_to: Option<usize>,
    /// Length of the first error unit (absent when valid or not reported).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "deserialize_error_len"
    )]
    pub error_len: Option<ErrorLen>,
    /// The lossy decode as scalar values, U+FFFD where the decoder substituted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scalars: Option<Vec<u32>>,
    /// Every error unit, in input order, where the decoder reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ErrorUnit>>,
    /// Free text from the decoder about its error (external adapters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Outcome {
    /// An outcome that reports only the strict verdict.
    pub fn verdict(decoder: impl Into<String>, valid: bool) -> Self {
        Outcome {
            decoder: decoder.into(),
            valid,
            valid_up_to: None,
            error_len: None,
            scalars: None,
            errors: None,
            error: None,
        }
    }

    /// An outcome built from a std-shaped strict result.
    pub fn from_strict(decoder: impl Into<String>, first_error: Option<(usize, ErrorLen)>) -> Self {
        let mut outcome = Outcome::verdict(decoder, true);
        if let Some((valid_up_to, error_len)) = first_error {
            outcome.set_first_error(valid_up_to, error_len);
        }
        outcome
    }

    /// Records the first error, std's `Utf8Error` shape: the input is invalid, valid up to
    /// `valid_up_to`, and the first error unit is `error_len`.
    pub fn set_first_error(&mut self, valid_up_to: usize, error_len: ErrorLen) {
        self.valid = false;
        self.valid_up_to = Some(valid_up_to);
        self.error_len = Some(error_len);
    }

    /// The number of U+FFFD in the lossy decode, if reported.
    pub fn replacement_count(&self) -> Option<usize> {
        self.scalars
            .as_ref()
            .map(|scalars| scalars.iter().filter(|&&s| s == REPLACEMENT).count())
    }

    /// Serialises to one line of JSON.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("an Outcome always serialises")
    }
}

/// Collects the scalar values of a `&str` (used by decoders whose lossy output is a string).
pub fn scalars_of(text: &str) -> Vec<u32> {
    text.chars().map(u32::from).collect()
}

/// A decoder's answer to one input: what it said, or why it said nothing. The one name
/// for it from the decoders to the reports.
pub type Answer = Result<Outcome, DecoderFailure>;

/// Why a decoder gave no outcome (external decoders; in-process panics are caught by the
/// engine and reported the same way).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecoderFailure {
    /// `crash`, `timeout` or `protocol` (docs/DESIGN.md §3.4 aspects).
    pub kind: FailureKind,
    /// What happened, in one line.
    pub message: String,
}

/// The kinds of decoder failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// The decoder panicked or its process died.
    Crash,
    /// No answer within the time limit.
    Timeout,
    /// The answer broke the adapter protocol.
    Protocol,
}

impl FailureKind {
    /// The aspect name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
            FailureKind::Protocol => "protocol",
        }
    }

    /// The aspect that reports a decoder failure of this kind.
    pub fn aspect(self) -> crate::aspect::Aspect {
        match self {
            FailureKind::Crash => crate::aspect::Aspect::Crash,
            FailureKind::Timeout => crate::aspect::Aspect::Timeout,
            FailureKind::Protocol => crate::aspect::Aspect::Protocol,
        }
    }
}

impl std::fmt::Display for DecoderFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

/// An [`Answer`] as the reports write it: the outcome itself, or the failure as
/// `{"failure": "crash", "message": "..."}` (the `failure` of the conformance schema).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RecordedAnswer {
    /// The decoder gave no outcome.
    Failed {
        /// Why: `crash`, `timeout` or `protocol`.
        failure: FailureKind,
        /// What happened, in one line.
        message: String,
    },
    /// What the decoder said.
    Decoded(Outcome),
}

impl RecordedAnswer {
    /// The record of `answer`.
    pub fn of(answer: &Answer) -> RecordedAnswer {
        match answer {
            Ok(outcome) => RecordedAnswer::Decoded(outcome.clone()),
            Err(failure) => RecordedAnswer::Failed {
                failure: failure.kind,
                message: failure.message.clone(),
            },
        }
    }

    /// The failure's kind, when the decoder gave no outcome.
    pub fn failure(&self) -> Option<FailureKind> {
        match self {
            RecordedAnswer::Failed { failure, .. } => Some(*failure),
            RecordedAnswer::Decoded(_) => None,
        }
    }

    /// The record as one line of JSON, as the Markdown and HTML reports quote it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("answers serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_len_has_three_json_states() {
        let mut outcome = Outcome::from_strict("t", Some((1, ErrorLen::Incomplete)));
        assert_eq!(
            outcome.to_json_line(),
            r#"{"decoder":"t","valid":false,"valid_up_to":1,"error_len":null}"#
        );
        outcome.error_len = Some(ErrorLen::Invalid(3));
        assert!(outcome.to_json_line().contains(r#""error_len":3"#));
        outcome.error_len = None;
        assert!(!outcome.to_json_line().contains("error_len"));
    }

    #[test]
    fn deserialising_keeps_absent_null_and_number_apart() {
        let absent: Outcome = serde_json::from_str(r#"{"decoder":"x","valid":true}"#).unwrap();
        assert_eq!(absent.error_len, None);
        let null: Outcome =
            serde_json::from_str(r#"{"decoder":"x","valid":false,"error_len":null}"#).unwrap();
        assert_eq!(null.error_len, Some(ErrorLen::Incomplete));
        let number: Outcome =
            serde_json::from_str(r#"{"decoder":"x","valid":false,"error_len":2}"#).unwrap();
        assert_eq!(number.error_len, Some(ErrorLen::Invalid(2)));
    }

    #[test]
    fn replacement_count_counts_only_fffd() {
        let mut outcome = Outcome::verdict("t", false);
        assert_eq!(outcome.replacement_count(), None);
        outcome.scalars = Some(vec![0x61, REPLACEMENT, 0x62, REPLACEMENT]);
        assert_eq!(outcome.replacement_count(), Some(2));
    }
}
