//! Grading an encoder: what it wrote, element by element, against the reference encoder,
//! and the findings and policy that follow.
//!
//! An encoder's answer is walked beside its input one element at a time (a code point, a
//! surrogate pair, or a lone code unit). A well-formed element must be written exactly as
//! the reference writes it: RFC 3629 §3, "there is only one valid way to encode a given
//! character". Where it is not, the bytes the encoder wrote there are read back with the
//! reference decoder to name what they are: a non-shortest form (§10), an encoded
//! surrogate, a form above U+10FFFF, nothing at all (the element was dropped), or some
//! other value. An unencodable element (a lone surrogate, a value above U+10FFFF) has no
//! UTF-8 form; an encoder may refuse it, or substitute U+FFFD or `?` (UTS #36 §3.6), and
//! those are policies, not bugs; writing it anyway, or dropping it silently, is a bug.
//!
//! The walk stops at the first bug of an input, so one input gives one bug and the
//! policies before it. Bugs are grouped into findings by behaviour, each with the input
//! categories it shows in and its smallest witness.

use serde::Serialize;

use crate::encoders::{CodeUnits, Encoded, Encoder};
use crate::outcome::FailureKind;
use crate::reference::encode::{distribute_bits, Unencodable};
use crate::reference::Reference;
use crate::security::Severity;
use crate::taxonomy::{self, Category};

/// What kind of element an encoder was given: the axis "what are these code units".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncoderCategory {
    /// A high surrogate code unit with no low one after it.
    LoneHighSurrogate,
    /// A low surrogate code unit with no high one before it.
    LoneLowSurrogate,
    /// A low surrogate directly followed by a high one.
    ReversedPair,
    /// A surrogate code point given as a 32-bit value.
    SurrogateCodePoint,
    /// A value in U+110000..0x7FFFFFFF (RFC 2279's range beyond Unicode's).
    AboveMax,
    /// A value above 0x7FFFFFFF (no UTF-8 form in any RFC).
    Above31Bits,
    /// U+0000.
    Nul,
    /// A scalar at a length boundary: U+007F/0080, 07FF/0800, FFFF/10000, D7FF/E000 (the
    /// edges of the surrogate gap) and U+10FFFF.
    Boundary,
    /// A noncharacter (U+FDD0..FDEF, U+xFFFE/xFFFF), which must encode normally.
    Noncharacter,
    /// U+FEFF, which must encode normally wherever it stands.
    Bom,
    /// A supplementary scalar (U+10000 and above), a surrogate pair in UTF-16.
    Supplementary,
    /// Any other scalar.
    Ordinary,
}

/// What an encoder did with one element: the axis "what did it do".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncoderBehaviour {
    /// Refused an unencodable element (the reference's policy).
    Refuses,
    /// Wrote U+FFFD for an unencodable element.
    Replacement,
    /// Wrote `?` for an unencodable element.
    QuestionMark,
    /// Wrote a scalar in more octets than its shortest form.
    NonShortestForm,
    /// Wrote a surrogate code point in three octets (`ED A0..BF xx`).
    SurrogateWritten,
    /// Wrote a value above U+10FFFF (`F4 90..` or a longer RFC 2279 form).
    AboveMaxWritten,
    /// Wrote the lone byte 80..FF that a surrogate U+DC80..U+DCFF stands for (Python's
    /// `surrogateescape`, PEP 383): output that is not UTF-8.
    EscapedByte,
    /// Wrote nothing for an element (or for a code unit of it) and went on: a skipped
    /// lone surrogate, or a character lost after an error.
    DropsInput,
    /// Wrote other bytes for an element.
    Misencodes,
    /// Wrote bytes after the last element.
    ExtraBytes,
    /// Refused a well-formed element.
    RejectsWellFormed,
    /// Refused, naming another element than the first unencodable one.
    WrongErrorPosition,
    /// Its process died (or its library call crashed) on the input.
    Crashes,
    /// Gave no answer within the time limit.
    Hangs,
    /// Answered with something the protocol or the C interface does not allow.
    BreaksProtocol,
}

impl EncoderBehaviour {
    /// True for what an encoder may legitimately do with an unencodable element.
    pub fn is_policy(self) -> bool {
        matches!(
            self,
            EncoderBehaviour::Refuses
                | EncoderBehaviour::Replacement
                | EncoderBehaviour::QuestionMark
        )
    }

    /// How serious the behaviour is, with the text it breaks.
    pub fn severity(self) -> (Severity, &'static str) {
        use EncoderBehaviour as B;
        match self {
            B::Refuses | B::Replacement | B::QuestionMark => {
                (Severity::Info, "UTS #36 §3.6: refuse or substitute")
            }
            B::NonShortestForm => (
                Severity::Critical,
                "RFC 3629 §3 (one valid way to encode a character) and §10 (non-shortest forms)",
            ),
            B::SurrogateWritten => (
                Severity::High,
                "RFC 3629 §3: UTF-8 prohibits encoding U+D800..U+DFFF",
            ),
            B::AboveMaxWritten => (
                Severity::High,
                "RFC 3629 §3: character numbers are restricted to U+0000..U+10FFFF",
            ),
            B::EscapedByte => (
                Severity::High,
                "RFC 3629 §4: a lone byte 80..FF is not a UTF8-char (PEP 383 escapes)",
            ),
            B::DropsInput => (
                Severity::High,
                "UTS #36 §3.6 and Unicode §3.9 C10: deleting input silently enables attacks",
            ),
            B::Misencodes | B::ExtraBytes => (
                Severity::Medium,
                "RFC 3629 §3: the bit distribution of each character",
            ),
            B::RejectsWellFormed | B::WrongErrorPosition => (
                Severity::Low,
                "RFC 3629 §3: every scalar value has an encoding",
            ),
            B::Crashes => (
                Severity::High,
                "UTS #36 §3.6: ill-formed input must not take the process down",
            ),
            B::Hangs | B::BreaksProtocol => (
                Severity::Medium,
                "docs/PROTOCOL.md, Encode mode: one answer per frame, in time",
            ),
        }
    }

    /// One line saying what the behaviour is, for a finding's title.
    pub fn describe(self) -> &'static str {
        use EncoderBehaviour as B;
        match self {
            B::Refuses => "refuses unencodable input",
            B::Replacement => "writes U+FFFD for unencodable input",
            B::QuestionMark => "writes '?' for unencodable input",
            B::NonShortestForm => "writes a non-shortest form",
            B::SurrogateWritten => "writes a surrogate code point as UTF-8",
            B::AboveMaxWritten => "writes a value above U+10FFFF",
            B::EscapedByte => "writes the lone byte a surrogate escapes (surrogateescape)",
            B::DropsInput => "silently drops input",
            B::Misencodes => "writes other bytes than the character's encoding",
            B::ExtraBytes => "writes bytes after the end of the input",
            B::RejectsWellFormed => "refuses a well-formed character",
            B::WrongErrorPosition => {
                "refuses at another position than the first unencodable element"
            }
            B::Crashes => "crashes",
            B::Hangs => "gives no answer in time",
            B::BreaksProtocol => "answers outside the protocol",
        }
    }
}

/// One element's grade: where, what kind of element, what the encoder did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Observation {
    /// Index of the element in the input.
    pub position: usize,
    /// What the element is.
    pub category: EncoderCategory,
    /// What the encoder did with it.
    pub behaviour: EncoderBehaviour,
}

/// The category of the element `value`, given why the reference refuses it, if it does.
pub fn category_of(value: u32, unencodable: Option<Unencodable>) -> EncoderCategory {
    use EncoderCategory as C;
    const BOUNDARIES: [u32; 9] = [
        0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x1_0000, 0xD7FF, 0xE000, 0x10_FFFF,
    ];
    match unencodable {
        Some(Unencodable::LoneHighSurrogate) => C::LoneHighSurrogate,
        Some(Unencodable::LoneLowSurrogate) => C::LoneLowSurrogate,
        Some(Unencodable::ReversedPair) => C::ReversedPair,
        Some(Unencodable::SurrogateCodePoint) => C::SurrogateCodePoint,
        Some(Unencodable::AboveMax | Unencodable::BeyondTemplates) if value > 0x7FFF_FFFF => {
            C::Above31Bits
        }
        Some(Unencodable::AboveMax | Unencodable::BeyondTemplates) => C::AboveMax,
        None if value == 0 => C::Nul,
        None if BOUNDARIES.contains(&value) => C::Boundary,
        None if value == 0xFEFF => C::Bom,
        None if (0xFDD0..=0xFDEF).contains(&value) || value & 0xFFFE == 0xFFFE => C::Noncharacter,
        None if value >= 0x1_0000 => C::Supplementary,
        None => C::Ordinary,
    }
}

/// Grades one answer of `encoder`: the policies seen and at most one bug, in input order.
/// The encoder is asked again, on the input less one code unit, to tell a dropped unit
/// from other bytes.
pub fn observe(encoder: &dyn Encoder, input: &CodeUnits, answer: &Encoded) -> Vec<Observation> {
    match answer {
        Encoded::Bytes(bytes) => observe_bytes(encoder, input, bytes),
        Encoded::Refused { position } => refusal::observe(encoder, input, *position),
        Encoded::Failed { kind, .. } => {
            let position = refusal::most_notable(input);
            let category = if input.is_empty() {
                EncoderCategory::Ordinary
            } else {
                let (value, _, unencodable) = input.element(position);
                category_of(value, unencodable)
            };
            vec![Observation {
                position,
                category,
                behaviour: match kind {
                    FailureKind::Crash => EncoderBehaviour::Crashes,
                    FailureKind::Timeout => EncoderBehaviour::Hangs,
                    FailureKind::Protocol => EncoderBehaviour::BreaksProtocol,
                },
            }]
        }
    }
}

fn observe_bytes(encoder: &dyn Encoder, input: &CodeUnits, bytes: &[u8]) -> Vec<Observation> {
    let reference = Reference::rfc3629();
    let mut observations = Vec::new();
    let (mut position, mut offset) = (0, 0);
    while position < input.len() {
        let (value, taken, unencodable) = input.element(position);
        let category = category_of(value, unencodable);
        let rest = &bytes[offset..];
        let next = position + taken;
        let (behaviour, written) = match unencodable {
            None => {
                let expected = reference.encode_scalar(value).expect("a scalar");
                if rest.starts_with(expected.as_bytes()) {
                    offset += expected.as_bytes().len();
                    position = next;
                    continue;
                }
                (classify_written(encoder, input, position, rest), 0)
            }
            Some(kind) => substitution(input, next, rest, value, kind),
        };
        observations.push(Observation {
            position,
            category,
            behaviour,
        });
        if !behaviour.is_policy() {
            return observations;
        }
        offset += written;
        position = next;
    }
    if offset < bytes.len() {
        let last = input.len().saturating_sub(1);
        let (value, _, unencodable) = input.element(last.min(input.len()));
        observations.push(Observation {
            position: input.len(),
            category: if input.is_empty() {
                EncoderCategory::Ordinary
            } else {
                category_of(value, unencodable)
            },
            behaviour: EncoderBehaviour::ExtraBytes,
        });
    }
    observations
}

/// True when `rest` goes on as the reference writes the element at `next` (or both end).
fn resumes_at(input: &CodeUnits, next: usize, rest: &[u8]) -> bool {
    if next >= input.len() {
        return rest.is_empty();
    }
    match input.element(next) {
        (value, _, None) => {
            let expected = Reference::rfc3629().encode_scalar(value).expect("a scalar");
            rest.starts_with(expected.as_bytes())
        }
        // The next element has no form either: any substitution may follow.
        (_, _, Some(_)) => true,
    }
}

/// What the bytes an encoder wrote for the well-formed element at `position` are: read
/// back with the reference decoder, or, when they are well-formed, compared with what the
/// encoder writes for the input from the next element or the next code unit on (a dropped
/// element, or half of a surrogate pair lost).
fn classify_written(
    encoder: &dyn Encoder,
    input: &CodeUnits,
    position: usize,
    rest: &[u8],
) -> EncoderBehaviour {
    let decoded = Reference::rfc3629().decode(rest);
    if decoded
        .errors
        .first()
        .is_some_and(|error| error.offset == 0)
    {
        match taxonomy::category_at(rest, 0) {
            Some(Category::Overlong2 | Category::Overlong3 | Category::Overlong4) => {
                return EncoderBehaviour::NonShortestForm
            }
            Some(Category::Surrogate | Category::Cesu8Pair) => {
                return EncoderBehaviour::SurrogateWritten
            }
            Some(Category::AboveMax | Category::Legacy5Or6Byte) => {
                return EncoderBehaviour::AboveMaxWritten
            }
            _ => {}
        }
    }
    let (_, taken, _) = input.element(position);
    let dropped =
        |from: usize| encoder.encode(&input.suffix(from)) == Encoded::Bytes(rest.to_vec());
    if resumes_at(input, position + taken, rest)
        || dropped(position + 1)
        || dropped(position + taken)
    {
        EncoderBehaviour::DropsInput
    } else {
        EncoderBehaviour::Misencodes
    }
}

/// `value` in one of the forms longer than RFC 3629's four octets, which encoders of the
/// older definition still write: RFC 2279 §2's five octets (`111110xx`, 26 bits) and six
/// (`1111110x`, 31 bits), and the seven octets led by `FE` (36 bits) with which Perl
/// extends the same bit distribution to any 32-bit value. `None` when `value` does not fit.
fn legacy_form(value: u32, octets: usize) -> Option<Vec<u8>> {
    let (lead, payload_bits) = match octets {
        5 => (0xF8u8, 26),
        6 => (0xFC, 31),
        7 => (0xFE, 36),
        _ => return None,
    };
    if payload_bits < 32 && value >> payload_bits != 0 {
        return None;
    }
    let mut bytes = vec![0u8; octets];
    let mut rest = u64::from(value);
    for byte in bytes[1..].iter_mut().rev() {
        *byte = 0x80 | (rest & 0x3F) as u8;
        rest >>= 6;
    }
    bytes[0] = lead | rest as u8;
    Some(bytes)
}

/// What an encoder wrote for an unencodable element, and how many bytes: a substitution
/// (U+FFFD, `?`), the element's raw bit distribution (a surrogate or a value above
/// U+10FFFF written anyway), or nothing. Each candidate must leave the bytes after it
/// resuming at the next element, so `?` written for a lone surrogate is told from a
/// dropped surrogate before a real `?`.
fn substitution(
    input: &CodeUnits,
    next: usize,
    rest: &[u8],
    value: u32,
    kind: Unencodable,
) -> (EncoderBehaviour, usize) {
    let raw: Vec<Vec<u8>> = (2..=4)
        .filter_map(|octets| distribute_bits(value, octets))
        .map(|form| form.as_bytes().to_vec())
        .chain((5..=7).filter_map(|octets| legacy_form(value, octets)))
        .collect();
    let written_anyway = match kind {
        Unencodable::AboveMax | Unencodable::BeyondTemplates => EncoderBehaviour::AboveMaxWritten,
        _ => EncoderBehaviour::SurrogateWritten,
    };
    let candidates = [
        (EncoderBehaviour::Replacement, vec![vec![0xEF, 0xBF, 0xBD]]),
        (EncoderBehaviour::QuestionMark, vec![vec![b'?']]),
        (written_anyway, raw),
        (EncoderBehaviour::EscapedByte, escaped_byte(value, kind)),
        (EncoderBehaviour::DropsInput, vec![Vec::new()]),
    ];
    // First a candidate after which the bytes resume at the next element; then, failing
    // that, any substitution the bytes start with (what follows it is graded on its own:
    // an encoder that substitutes and then loses the next element shows that there).
    for needs_resumption in [true, false] {
        for (behaviour, forms) in &candidates {
            for form in forms {
                let fits = rest.starts_with(form)
                    && (!form.is_empty() || needs_resumption)
                    && (!needs_resumption || resumes_at(input, next, &rest[form.len()..]));
                if fits {
                    return (*behaviour, form.len());
                }
            }
        }
    }
    (EncoderBehaviour::Misencodes, 0)
}

/// The byte a lone low surrogate U+DC80..U+DCFF escapes (PEP 383: "lone surrogate codes
/// U+DC80..U+DCFF ... are translated back to the bytes 0x80..0xFF"), as a candidate.
fn escaped_byte(value: u32, kind: Unencodable) -> Vec<Vec<u8>> {
    // A low surrogate before a high one (a reversed pair) stands alone too.
    let lone_low = matches!(
        kind,
        Unencodable::LoneLowSurrogate | Unencodable::ReversedPair | Unencodable::SurrogateCodePoint
    );
    if lone_low && (0xDC80..=0xDCFF).contains(&value) {
        vec![vec![(value & 0xFF) as u8]]
    } else {
        Vec::new()
    }
}

mod grade;
mod refusal;
pub mod report;
pub use grade::{grade, EncoderFinding, EncoderGrade, EncoderPolicy};

#[cfg(test)]
mod tests;
