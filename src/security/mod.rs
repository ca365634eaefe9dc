//! Security impact: what a departure from the reference lets an attacker do, as a class
//! with a severity and the paragraph of the specification that says why.
//!
//! The scheme is documented in `docs/SECURITY-IMPACT.md`; this module is its one
//! implementation. A departure is classified from what the decoder *did* on the
//! departure's own input (its answer, aligned against the reference's decode by
//! [`behaviour`]), together with the aspect that differs and the taxonomy categories of
//! the bytes involved. Nothing here knows what any particular decoder does.
//!
//! [`witness`] adds exploit-shaped witnesses (`C0 AF` decoding to `/`, `<scr FF ipt>`
//! decoding to `<script>`) and recognises known variants of UTF-8 (Modified UTF-8,
//! CESU-8, WTF-8), both by running the decoder on fixed probes.

pub mod behaviour;
mod severity;
pub mod witness;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::aspect::Aspect;
use crate::outcome::{ErrorLen, Outcome};
use crate::policy::{self, ReplacementPolicy};
use crate::reference::Decoded;
use crate::taxonomy::Category;
use behaviour::{align, Alignment};
pub use severity::Severity;

/// A class of security impact (docs/SECURITY-IMPACT.md has one section per class).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SecurityClass {
    /// An overlong (non-shortest) form accepted or decoded to its value.
    NonShortestAccepted,
    /// A well-formed character consumed by an error unit.
    CharacterSwallowed,
    /// Ill-formed bytes removed without a U+FFFD or an error in their place.
    BytesDeleted,
    /// Other ill-formed bytes (a stray continuation byte, FE/FF, a truncated sequence)
    /// interpreted as characters.
    IllFormedAccepted,
    /// Values above U+10FFFF or 5- and 6-byte forms accepted.
    AboveMaxAccepted,
    /// Encoded surrogates or CESU-8 pairs accepted.
    SurrogatesAccepted,
    /// The decoder crashed on the input.
    DecoderCrash,
    /// The decoder hung or broke its protocol on the input.
    DecoderUnresponsive,
    /// The decoder stopped early: its output is a prefix of the right one.
    OutputCutShort,
    /// Well-formed input decoded to other characters.
    WellFormedMisdecoded,
    /// Well-formed input rejected.
    WellFormedRejected,
    /// `valid_up_to` or `error_len` wrong.
    WrongErrorPosition,
    /// A byte order mark stripped or a noncharacter rejected.
    BomOrNoncharacter,
    /// Only the number of U+FFFD (or the error unit length) differs, as a known
    /// replacement policy predicts.
    ReplacementPolicy,
}

impl SecurityClass {
    /// Every class, most severe first (the order of docs/SECURITY-IMPACT.md).
    pub const ALL: [SecurityClass; 14] = [
        SecurityClass::NonShortestAccepted,
        SecurityClass::CharacterSwallowed,
        SecurityClass::BytesDeleted,
        SecurityClass::IllFormedAccepted,
        SecurityClass::AboveMaxAccepted,
        SecurityClass::DecoderCrash,
        SecurityClass::SurrogatesAccepted,
        SecurityClass::DecoderUnresponsive,
        SecurityClass::OutputCutShort,
        SecurityClass::WellFormedMisdecoded,
        SecurityClass::WellFormedRejected,
        SecurityClass::WrongErrorPosition,
        SecurityClass::BomOrNoncharacter,
        SecurityClass::ReplacementPolicy,
    ];

    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            SecurityClass::NonShortestAccepted => "non-shortest-accepted",
            SecurityClass::CharacterSwallowed => "character-swallowed",
            SecurityClass::BytesDeleted => "bytes-deleted",
            SecurityClass::IllFormedAccepted => "ill-formed-accepted",
            SecurityClass::AboveMaxAccepted => "above-max-accepted",
            SecurityClass::SurrogatesAccepted => "surrogates-accepted",
            SecurityClass::DecoderCrash => "decoder-crash",
            SecurityClass::DecoderUnresponsive => "decoder-unresponsive",
            SecurityClass::OutputCutShort => "output-cut-short",
            SecurityClass::WellFormedMisdecoded => "well-formed-misdecoded",
            SecurityClass::WellFormedRejected => "well-formed-rejected",
            SecurityClass::WrongErrorPosition => "wrong-error-position",
            SecurityClass::BomOrNoncharacter => "bom-or-noncharacter",
            SecurityClass::ReplacementPolicy => "replacement-policy",
        }
    }

    /// The class's severity, and why (docs/SECURITY-IMPACT.md gives the full argument).
    pub fn severity(self) -> Severity {
        match self {
            SecurityClass::NonShortestAccepted => Severity::Critical,
            SecurityClass::CharacterSwallowed
            | SecurityClass::BytesDeleted
            | SecurityClass::IllFormedAccepted
            | SecurityClass::AboveMaxAccepted
            | SecurityClass::DecoderCrash => Severity::High,
            SecurityClass::SurrogatesAccepted
            | SecurityClass::DecoderUnresponsive
            | SecurityClass::OutputCutShort
            | SecurityClass::WellFormedMisdecoded => Severity::Medium,
            SecurityClass::WellFormedRejected
            | SecurityClass::WrongErrorPosition
            | SecurityClass::BomOrNoncharacter => Severity::Low,
            SecurityClass::ReplacementPolicy => Severity::Info,
        }
    }

    /// One sentence: what an attacker can do with it.
    pub fn risk(self) -> &'static str {
        match self {
            SecurityClass::NonShortestAccepted => {
                "a byte-level filter that forbids `/` or NUL is bypassed by an overlong form the decoder turns into the same character"
            }
            SecurityClass::CharacterSwallowed => {
                "an ill-formed byte placed before a quote or `<` makes that character vanish, breaking out of the surrounding markup or quoting"
            }
            SecurityClass::BytesDeleted => {
                "deleting the bad byte joins the text around it: `<scr` FF `ipt>` becomes `<script>` after a filter has looked for `<script>`"
            }
            SecurityClass::IllFormedAccepted => {
                "bytes a validator would reject are interpreted as characters, so checks on the encoded form and on the decoded text disagree"
            }
            SecurityClass::AboveMaxAccepted => {
                "code points beyond U+10FFFF (up to 6 bytes each) reach code that sizes buffers or tables for U+10FFFF, or wrap around to a valid character"
            }
            SecurityClass::SurrogatesAccepted => {
                "encoded surrogates produce ill-formed UTF-16 downstream, and a CESU-8 pair is a second spelling of a supplementary character"
            }
            SecurityClass::DecoderCrash => "hostile input crashes the process (denial of service, possibly memory corruption)",
            SecurityClass::DecoderUnresponsive => "hostile input stalls the decoder (denial of service)",
            SecurityClass::OutputCutShort => {
                "everything after a chosen byte is silently lost, including closing markup or the rest of a checked value"
            }
            SecurityClass::WellFormedMisdecoded => {
                "well-formed text becomes other characters, so two programs read the same bytes differently"
            }
            SecurityClass::WellFormedRejected => "legitimate text is refused (availability, not integrity)",
            SecurityClass::WrongErrorPosition => {
                "code that slices at the reported offset keeps or drops the wrong bytes; the decoded text itself is right"
            }
            SecurityClass::BomOrNoncharacter => {
                "a leading U+FEFF or a noncharacter is handled differently from other programs; mostly interoperability"
            }
            SecurityClass::ReplacementPolicy => {
                "only the number of U+FFFD differs; every policy here replaces each ill-formed byte, so nothing is hidden or joined"
            }
        }
    }

    /// The specification text the class rests on.
    pub fn citation(self) -> &'static str {
        match self {
            SecurityClass::NonShortestAccepted => {
                "RFC 3629 §10, second paragraph: a parser that \"performs security-critical validity checks against the UTF-8 encoded form of its input, but interprets certain illegal octet sequences as characters\" (C0 80 as NUL; 2F C0 AE 2E 2F as \"/../\"); Unicode §3.9 D92 and Table 3-7 (non-shortest forms are ill-formed); UTS #36 §3.6.1"
            }
            SecurityClass::CharacterSwallowed => {
                "Unicode §3.9, Constraints on Conversion Processes: a converter \"must not consume the successor bytes as part of the ill-formed subsequence whenever those successor bytes themselves constitute part of a well-formed UTF-8 code unit subsequence\"; UTS #36 §3.6.1"
            }
            SecurityClass::BytesDeleted => {
                "UTS #36 §3.6.2, Substituting for Ill-Formed Subsequences (deletion lets text before and after the error join); Unicode §3.2 C10 (ill-formed sequences are an error condition)"
            }
            SecurityClass::IllFormedAccepted => {
                "Unicode §3.2 C10: a process \"shall treat ill-formed code unit sequences as an error condition and shall not interpret such sequences as characters\"; RFC 3629 §10, first paragraph"
            }
            SecurityClass::AboveMaxAccepted => {
                "RFC 3629 §10, third paragraph: a risk of buffer overflow \"if the range of character numbers is not explicitly limited to U+10FFFF or if buffer sizing doesn't take into account the possibility of 5- and 6-byte sequences\"; RFC 3629 §3"
            }
            SecurityClass::SurrogatesAccepted => {
                "Unicode §3.9 D92: \"any UTF-8 byte sequence that would otherwise map to code points D800..DFFF is ill-formed\"; RFC 3629 §3 (surrogate pairs such as ED A1 8C ED BE B4 must not be decoded)"
            }
            SecurityClass::DecoderCrash | SecurityClass::DecoderUnresponsive => {
                "RFC 3629 §10, first paragraph: \"an attacker would be able to exploit an incautious UTF-8 parser by sending it an octet sequence that is not permitted by the UTF-8 syntax\""
            }
            SecurityClass::OutputCutShort => {
                "Unicode §3.2 C10 (an error is to be signalled or replaced, not used to end the text); UTS #36 §3.6.2"
            }
            SecurityClass::WellFormedMisdecoded | SecurityClass::WellFormedRejected => {
                "Unicode §3.9 D92 and Table 3-7 (the well-formed byte sequences and their scalar values); RFC 3629 §3-§4"
            }
            SecurityClass::WrongErrorPosition => {
                "Unicode §3.9 D93b (maximal subpart of an ill-formed subsequence) and its U+FFFD Substitution of Maximal Subparts"
            }
            SecurityClass::BomOrNoncharacter => {
                "Unicode §23.7 (noncharacters are valid in interchange) and §23.8 / RFC 3629 §6 (a leading U+FEFF is a signature only by agreement)"
            }
            SecurityClass::ReplacementPolicy => {
                "Unicode §3.9, U+FFFD Substitution of Maximal Subparts: a recommended practice, not a requirement"
            }
        }
    }

    /// The impact record for a report.
    pub fn impact(self) -> SecurityImpact {
        SecurityImpact {
            class: self,
            severity: self.severity(),
            risk: self.risk().to_string(),
            citation: self.citation().to_string(),
        }
    }
}

impl fmt::Display for SecurityClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The security impact of one departure, as serialised in `check` and `run` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityImpact {
    /// The class.
    pub class: SecurityClass,
    /// Its severity.
    pub severity: Severity,
    /// What an attacker can do with it.
    pub risk: String,
    /// The specification paragraph it rests on.
    pub citation: String,
}

/// The security section of a report: what was found, by severity and class, and what
/// running the decoder on the exploit-shaped probes showed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SecuritySummary {
    /// The highest severity found (absent when nothing was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub highest_severity: Option<Severity>,
    /// Findings per class, most severe class first.
    pub classes: Vec<ClassCount>,
    /// Exploit-shaped witnesses the decoder fell for (checked by running it).
    pub witnesses: Vec<witness::Witness>,
    /// The known variant of UTF-8 the decoder matches by design, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<witness::Variant>,
}

/// How many findings fall in one class.
#[derive(Debug, Clone, Serialize)]
pub struct ClassCount {
    /// The class.
    pub class: SecurityClass,
    /// Its severity.
    pub severity: Severity,
    /// How many.
    pub count: usize,
}

impl SecuritySummary {
    /// Counts `impacts` per class.
    pub fn of<'a>(impacts: impl IntoIterator<Item = &'a SecurityImpact>) -> SecuritySummary {
        let mut counts = [0usize; SecurityClass::ALL.len()];
        for impact in impacts {
            let index = SecurityClass::ALL
                .iter()
                .position(|&c| c == impact.class)
                .expect("every class is in ALL");
            counts[index] += 1;
        }
        let classes: Vec<ClassCount> = SecurityClass::ALL
            .into_iter()
            .zip(counts)
            .filter(|&(_, count)| count > 0)
            .map(|(class, count)| ClassCount {
                class,
                severity: class.severity(),
                count,
            })
            .collect();
        SecuritySummary {
            highest_severity: classes.iter().map(|c| c.severity).max(),
            classes,
            witnesses: Vec::new(),
            variant: None,
        }
    }

    /// True when some class found is at least `threshold`.
    pub fn reaches(&self, threshold: Severity) -> bool {
        self.highest_severity.is_some_and(|s| s >= threshold)
    }

    /// True when the class was found.
    pub fn has(&self, class: SecurityClass) -> bool {
        self.classes.iter().any(|c| c.class == class)
    }
}

/// What the decoder gave for the departure's input, as the classification reads it.
///
/// A borrowed view of a [`crate::outcome::Answer`] ([`AnswerView::of`]) that keeps only
/// what the classes need: the outcome, or whether the failure was a crash or an
/// unresponsive decoder. It is its own type because `run` classifies from a pair checker's
/// last outcome and failure, where no `Answer` value exists to borrow.
#[derive(Debug, Clone, Copy)]
pub enum AnswerView<'a> {
    /// An outcome.
    Outcome(&'a Outcome),
    /// A crash.
    Crash,
    /// A timeout or protocol failure.
    Unresponsive,
}

impl<'a> AnswerView<'a> {
    /// What the classification reads of a decoder's answer: its outcome, or whether its
    /// failure was a crash or an unresponsive decoder.
    pub fn of(answer: &'a crate::outcome::Answer) -> AnswerView<'a> {
        match answer {
            Ok(outcome) => AnswerView::Outcome(outcome),
            Err(failure) if failure.kind == crate::outcome::FailureKind::Crash => AnswerView::Crash,
            Err(_) => AnswerView::Unresponsive,
        }
    }
}

/// Classifies a departure: `aspect` is the aspect that differs (`valid`, `valid_up_to`,
/// `error_len`, `scalars`, `errors`, `crash`, `timeout`, `protocol`), `categories` the
/// taxonomy categories of the bytes it is about, `input` the (smallest) input showing it
/// and `answer` what the decoder gave for it.
pub fn classify(
    aspect: Aspect,
    categories: &[Category],
    input: &[u8],
    reference: &Decoded,
    answer: AnswerView,
) -> SecurityImpact {
    classify_class(aspect, categories, input, reference, answer).impact()
}

fn classify_class(
    aspect: Aspect,
    categories: &[Category],
    input: &[u8],
    reference: &Decoded,
    answer: AnswerView,
) -> SecurityClass {
    let outcome = match answer {
        AnswerView::Crash => return SecurityClass::DecoderCrash,
        AnswerView::Unresponsive => return SecurityClass::DecoderUnresponsive,
        AnswerView::Outcome(outcome) => outcome,
    };
    match aspect {
        Aspect::Crash => return SecurityClass::DecoderCrash,
        Aspect::Timeout | Aspect::Protocol => return SecurityClass::DecoderUnresponsive,
        _ => {}
    }
    let reference_valid = reference.errors.is_empty();
    // The lossy decode is the best evidence of what the decoder does with the bytes.
    if let Some(class) = class_of_output(input, reference, categories, outcome) {
        return class;
    }
    if reference_valid {
        return if categories.contains(&Category::NoncharacterRejected)
            || categories.contains(&Category::BomStripped)
        {
            SecurityClass::BomOrNoncharacter
        } else if aspect == Aspect::Scalars {
            SecurityClass::WellFormedMisdecoded
        } else if aspect == Aspect::Valid {
            SecurityClass::WellFormedRejected
        } else {
            SecurityClass::WrongErrorPosition
        };
    }
    let first = reference.first_error();
    // Here the lossy decode, when the decoder reports one, showed no value for the bytes
    // (they became U+FFFD as the reference's did): the decoder calls them valid but
    // does not turn them into a character, so no class of a decoded value applies.
    // Without a lossy decode, what it calls valid is taken to be decoded.
    let accepted = || match outcome.scalars {
        Some(_) => SecurityClass::IllFormedAccepted,
        None => acceptance_class(categories),
    };
    match aspect {
        // Ill-formed input called valid: the decoder took the bytes as characters.
        Aspect::Valid if outcome.valid => accepted(),
        Aspect::ValidUpTo => match (first, outcome.valid_up_to) {
            (Some((expected, _)), Some(reported)) if reported > expected => {
                match accepted() {
                    // Only these categories decode to a value a decoder could emit;
                    // anything else past the error is an offset bug.
                    class @ (SecurityClass::NonShortestAccepted
                    | SecurityClass::SurrogatesAccepted
                    | SecurityClass::AboveMaxAccepted) => class,
                    _ => SecurityClass::WrongErrorPosition,
                }
            }
            _ if categories.contains(&Category::NoncharacterRejected) => {
                SecurityClass::BomOrNoncharacter
            }
            _ => SecurityClass::WrongErrorPosition,
        },
        Aspect::ErrorLen => error_len_class(input, reference, outcome),
        _ => SecurityClass::WrongErrorPosition,
    }
}

/// The class of ill-formed bytes being accepted as characters, by their category.
pub(crate) fn acceptance_class(categories: &[Category]) -> SecurityClass {
    let has = |wanted: &[Category]| categories.iter().any(|c| wanted.contains(c));
    if has(&[
        Category::Overlong2,
        Category::Overlong3,
        Category::Overlong4,
    ]) {
        SecurityClass::NonShortestAccepted
    } else if has(&[Category::AboveMax, Category::Legacy5Or6Byte]) {
        SecurityClass::AboveMaxAccepted
    } else if has(&[Category::Surrogate, Category::Cesu8Pair]) {
        SecurityClass::SurrogatesAccepted
    } else {
        SecurityClass::IllFormedAccepted
    }
}

/// What the decoder's lossy decode of `input` shows, when it shows a class at all.
pub(crate) fn class_of_output(
    input: &[u8],
    reference: &Decoded,
    categories: &[Category],
    outcome: &Outcome,
) -> Option<SecurityClass> {
    let scalars = outcome.scalars.as_ref()?;
    class_of_alignment(&align(input, reference, scalars), categories)
}

fn class_of_alignment(alignment: &Alignment, categories: &[Category]) -> Option<SecurityClass> {
    if alignment.cut_short {
        Some(SecurityClass::OutputCutShort)
    } else if alignment.swallowed {
        Some(SecurityClass::CharacterSwallowed)
    } else if !alignment.accepted_categories.is_empty() {
        Some(acceptance_class(&alignment.accepted_categories))
    } else if alignment.bytes_as_characters {
        Some(SecurityClass::IllFormedAccepted)
    } else if alignment.deleted {
        Some(SecurityClass::BytesDeleted)
    } else if alignment.misdecoded {
        Some(if categories.contains(&Category::NoncharacterRejected) {
            SecurityClass::BomOrNoncharacter
        } else {
            SecurityClass::WellFormedMisdecoded
        })
    } else {
        None
    }
}

/// A wrong `error_len`: a swallowed character when the decoder's unit runs into a
/// well-formed character, a policy difference when a known policy predicts it, else a
/// wrong position.
fn error_len_class(
    input: &[u8],
    reference: &crate::reference::Decoded,
    outcome: &Outcome,
) -> SecurityClass {
    let (Some(first), Some(reported)) = (reference.errors.first(), outcome.error_len) else {
        return SecurityClass::WrongErrorPosition;
    };
    let reported = match reported {
        ErrorLen::Invalid(len) => len,
        ErrorLen::Incomplete => return SecurityClass::WrongErrorPosition,
    };
    let unit_end = first.offset + reported;
    let next_error = reference.errors.get(1).map_or(input.len(), |e| e.offset);
    // The reference's error unit ends at first.offset + first.len; a well-formed
    // character starts there unless another error unit does.
    if reported > first.len && first.offset + first.len < next_error.min(unit_end) {
        return SecurityClass::CharacterSwallowed;
    }
    let pieces = policy::segments(input, reference);
    let predicted = ReplacementPolicy::ALL
        .into_iter()
        .any(|p| policy::first_unit_len(input, &pieces, p) == Some(reported));
    if predicted {
        SecurityClass::ReplacementPolicy
    } else {
        SecurityClass::WrongErrorPosition
    }
}

#[cfg(test)]
mod tests;
