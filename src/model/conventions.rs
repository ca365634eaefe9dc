//! Known lossy conventions as decoders: the reference's strict answers with another
//! U+FFFD policy, or a Latin-1 fallback. Each is a single-fault hypothesis that
//! [`super::mechanism`] tests a difference's witness against: a decoder whose differences
//! one of them explains *has that policy*; it is not a set of bugs.
//!
//! The policies are those of [`crate::policy`] (one U+FFFD per ill-formed
//! byte, per run, per lead-sized sequence) and one more seen in real decoders: one per
//! lead-sized sequence where only a *valid* lead byte (`C2..F4`) sizes a unit, so that
//! `C0 80` or `F8 88 80 80 80` is one U+FFFD per byte while `E0 80` is one. And the
//! `ignore` policy (Python's `errors="ignore"`, iconv's `//IGNORE`): an ill-formed
//! sequence gives nothing and decoding goes on, which Unicode §3.9 allows ("a
//! conformant process ... shall not interpret ... ill-formed code unit sequences as
//! characters"; deleting them is one of its examples of not interpreting them,
//! though "not recommended" for security). And Python's `surrogateescape` (PEP 383:
//! "bytes that cannot be decoded are represented as lone surrogate codes U+DC80..U+DCFF",
//! one per byte of each ill-formed sequence). And a decoder that stops at the first
//! error (MySQL's non-strict mode cuts a value "at the first character it cannot
//! store"; a loop over `mbrtowc` that returns at the first -1): the characters before
//! the error, and nothing of the error or of what follows it.

mod bytes;
mod leads;
mod substitute;

pub use bytes::ByteValues;
pub use leads::{LeadLengths, LeadSet};
pub use substitute::Substitute;

use crate::decoders::{Capabilities, Decoder};
use crate::outcome::{DecoderFailure, ErrorLen, Outcome};
use crate::policy::{
    expected_scalars, first_unit_len, lead_sized_len, lead_sized_scalars, segments,
    valid_lead_sized_scalars, ReplacementPolicy, Segment,
};
use crate::reference::{Decoded, Reference};

/// A known convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Convention {
    /// One of the U+FFFD policies of [`ReplacementPolicy`].
    Policy(ReplacementPolicy),
    /// One U+FFFD per lead-sized sequence, sized only by valid lead bytes (`C2..F4`).
    LeadSizedValidLeads,
    /// One U+FFFD per lead-sized sequence, sized by the lead bytes of the set and per
    /// maximal subpart otherwise: a member of the lead-sized family other than the two
    /// above, read off a decoder's machine ([`LeadSet::of_machine`]).
    LeadSizedBy(LeadSet),
    /// [`Convention::LeadSizedBy`] with a strict answer that agrees with it: the first
    /// error reported as its first unit (as [`Convention::Reported`] does for the known
    /// policies; GNU libunistring's `u8_mbtoucr` and `u8_mbtouc` size `E0 80` alike).
    ReportedLeadSizedBy(LeadSet),
    /// A policy other than maximal subparts whose strict answer agrees with it: the
    /// first error is reported as the policy's first unit (its `error_len`), not as the
    /// maximal subpart. Perl's Encode reports `C0 80`, `F5 80 80 80` and
    /// `F8 88 80 80 80` each as one malformed sequence and replaces each with one
    /// U+FFFD, one lead-sized unit for both answers; a decoder whose error is always one
    /// byte long and which replaces byte by byte is the per-byte case.
    Reported(ReplacementPolicy),
    /// On ill-formed input, every byte decoded as its own value.
    Latin1Fallback,
    /// Every ill-formed sequence dropped, nothing in its place.
    Ignore,
    /// The characters before the first error, and nothing of it or after it.
    StopsAtFirstError,
    /// Every byte of an ill-formed sequence as the lone surrogate U+DC00 + byte.
    SurrogateEscape,
    /// The reference's scalars, but the first error, where it starts at a lead byte of
    /// the table, reported as long as the table says for that lead whatever follows (and
    /// so even past the end of input): the length a decoder reads off the lead before
    /// looking at the bytes, read off the decoder's machine ([`LeadLengths::of_machine`]).
    ErrorLenByLead(LeadLengths),
    /// Each ill-formed byte replaced by a character chosen by the byte alone, another
    /// member of the byte-by-byte family than the per-byte policy and `surrogateescape`
    /// (a Latin-1 or Windows-1252 reading of the bytes), read off the decoder's machine
    /// ([`ByteValues::of_machine`]).
    PerByteValues(ByteValues),
    /// A U+FFFD policy's units, each replaced by another character (`?`): the strict
    /// answer the reference's. The character is read off the decoder
    /// ([`Substitute::of_decoder`]).
    Substitute(Substitute),
    /// The strict answer always "valid": a lossy-only interface, whose scalars alone
    /// show ill-formed bytes. Not a hypothesis of [`Convention::ALL`]: it is read off
    /// the decoder's machine (no step ever reports an error).
    NeverReports,
}

impl Convention {
    /// Every convention other than the reference's own.
    pub const ALL: [Convention; 11] = [
        Convention::Policy(ReplacementPolicy::PerByte),
        Convention::Policy(ReplacementPolicy::PerRun),
        Convention::Policy(ReplacementPolicy::PerLeadSizedSequence),
        Convention::LeadSizedValidLeads,
        Convention::Reported(ReplacementPolicy::PerByte),
        Convention::Reported(ReplacementPolicy::PerRun),
        Convention::Reported(ReplacementPolicy::PerLeadSizedSequence),
        Convention::Latin1Fallback,
        Convention::Ignore,
        Convention::StopsAtFirstError,
        Convention::SurrogateEscape,
    ];

    /// The name used in reports.
    pub fn name(self) -> String {
        let name = match self {
            Convention::LeadSizedBy(leads) => {
                return format!("per-lead-sized-sequence-leads-{leads}")
            }
            Convention::ReportedLeadSizedBy(leads) => {
                return format!("per-lead-sized-sequence-leads-{leads}-reported")
            }
            Convention::Policy(policy) => policy.as_str(),
            Convention::LeadSizedValidLeads => "per-lead-sized-sequence-valid-leads",
            Convention::Reported(ReplacementPolicy::PerByte) => "per-byte-reported",
            Convention::Reported(ReplacementPolicy::PerRun) => "per-run-reported",
            Convention::Reported(_) => "per-lead-sized-sequence-reported",
            Convention::Latin1Fallback => "latin-1-fallback",
            Convention::Ignore => "ignore",
            Convention::StopsAtFirstError => "stops-at-first-error",
            Convention::SurrogateEscape => "surrogateescape",
            Convention::NeverReports => "never-reports-errors",
            Convention::ErrorLenByLead(lengths) => return format!("error-len-by-lead-{lengths}"),
            Convention::PerByteValues(values) => return format!("per-byte-values-{values}"),
            Convention::Substitute(substitute) => {
                return format!(
                    "{}-substitute-U+{:04X}",
                    substitute.policy.as_str(),
                    substitute.scalar
                )
            }
        };
        name.to_string()
    }

    /// Whether it is a U+FFFD policy (a policy is reported as such, not as a bug).
    pub fn is_policy(self) -> bool {
        !matches!(
            self,
            Convention::Latin1Fallback
                | Convention::StopsAtFirstError
                | Convention::NeverReports
                | Convention::ErrorLenByLead(_)
                | Convention::PerByteValues(_)
                | Convention::Substitute(_)
        )
    }

    /// Whether its strict answer is the reference's (it changes the scalars alone).
    pub fn strict_is_the_reference(self) -> bool {
        !matches!(
            self,
            Convention::Reported(_)
                | Convention::ReportedLeadSizedBy(_)
                | Convention::ErrorLenByLead(_)
                | Convention::NeverReports
        )
    }

    /// The title of its finding: what the decoder does, then the unit it counts.
    pub fn title(self) -> String {
        let title = match self {
            Convention::Ignore => {
                "drops ill-formed bytes (the ignore policy): nothing, not U+FFFD, in their place"
            }
            Convention::SurrogateEscape => {
                "escapes ill-formed bytes as lone surrogates (surrogateescape): U+DC00 + each byte"
            }
            Convention::StopsAtFirstError => {
                "stops decoding at the first error: nothing of it, and nothing after it, is \
                 decoded"
            }
            Convention::Latin1Fallback => {
                "latin-1-fallback: decodes an ill-formed input's bytes as their own values"
            }
            Convention::NeverReports => {
                "never reports an error: every input is valid, only the scalars show ill-formed \
                 bytes"
            }
            Convention::PerByteValues(values) => {
                return format!(
                    "decodes each ill-formed byte as a character of its own, not U+FFFD: {}",
                    values.described()
                )
            }
            Convention::Substitute(substitute) => {
                return format!(
                    "replaces ill-formed bytes with {}, not U+FFFD: one per {}",
                    substitute.character(),
                    Convention::Policy(substitute.policy).unit()
                )
            }
            Convention::ErrorLenByLead(lengths) => {
                return format!(
                    "reports an error at a lead byte as long as the lead alone says, whatever \
                     follows (even past the end of input): {}",
                    lengths.described()
                )
            }
            Convention::LeadSizedBy(leads) => {
                return format!(
                    "replaces ill-formed bytes per lead-sized sequence where {}: one U+FFFD per \
                     lead-byte-sized sequence for those leads, per maximal subpart for others",
                    leads.sizing()
                )
            }
            Convention::ReportedLeadSizedBy(leads) => {
                return format!(
                    "reports and replaces ill-formed bytes per lead-sized sequence where {}: one \
                     error and one U+FFFD per lead-byte-sized sequence for those leads, per \
                     maximal subpart for others",
                    leads.sizing()
                )
            }
            // The strict answer's first error is the policy's unit too.
            Convention::Reported(policy) => {
                return format!(
                    "reports and replaces ill-formed bytes {}: one error and one U+FFFD per {}",
                    policy.as_str(),
                    self.unit()
                )
            }
            Convention::Policy(_) | Convention::LeadSizedValidLeads => {
                return format!(
                    "replaces ill-formed bytes {}: one U+FFFD per {}",
                    self.name(),
                    self.unit()
                )
            }
        };
        title.to_string()
    }

    /// The unit a U+FFFD policy counts, for its title.
    fn unit(self) -> &'static str {
        match self {
            Convention::Policy(ReplacementPolicy::MaximalSubpart) => "maximal subpart",
            Convention::Policy(ReplacementPolicy::PerByte)
            | Convention::Reported(ReplacementPolicy::PerByte) => "ill-formed byte",
            Convention::Policy(ReplacementPolicy::PerRun)
            | Convention::Reported(ReplacementPolicy::PerRun) => "run of ill-formed bytes",
            Convention::Policy(ReplacementPolicy::PerLeadSizedSequence)
            | Convention::Reported(ReplacementPolicy::PerLeadSizedSequence) => {
                "lead-byte-sized sequence"
            }
            Convention::LeadSizedValidLeads => {
                "lead-byte-sized sequence, only valid leads (C2..F4) sizing one"
            }
            _ => "unit",
        }
    }

    /// One line saying what it does.
    pub fn description(self) -> String {
        let description = match self {
            Convention::LeadSizedBy(leads) => {
                return format!(
                    "one U+FFFD per lead-byte-sized sequence where the lead is one of {leads}, \
                     else one per maximal subpart"
                )
            }
            Convention::ReportedLeadSizedBy(leads) => {
                return format!(
                    "one error and one U+FFFD per lead-byte-sized sequence where the lead is \
                     one of {leads}, else per maximal subpart"
                )
            }
            Convention::Policy(policy) => policy.description(),
            Convention::Reported(ReplacementPolicy::PerByte) => {
                "one U+FFFD per ill-formed byte, and the first error reported one byte long"
            }
            Convention::Reported(ReplacementPolicy::PerRun) => {
                "one U+FFFD per run of ill-formed bytes, and the first error reported as the whole run"
            }
            Convention::Reported(_) => {
                "one U+FFFD per lead-byte-sized sequence, and the first error reported as that sequence"
            }
            Convention::LeadSizedValidLeads => {
                "one U+FFFD per lead-byte-sized sequence, only valid lead bytes (C2..F4) sizing one"
            }
            Convention::Latin1Fallback => {
                "decodes the whole input as Latin-1 when it is ill-formed"
            }
            Convention::Ignore => "drops every ill-formed sequence and goes on",
            Convention::StopsAtFirstError => {
                "decodes the characters before the first error and drops the rest of the input"
            }
            Convention::SurrogateEscape => {
                "escapes each byte of an ill-formed sequence as the lone surrogate U+DC00 + byte"
            }
            Convention::NeverReports => {
                "reports every input as valid; the scalars are the reference's"
            }
            Convention::PerByteValues(values) => {
                return format!(
                    "each ill-formed byte replaced by a character of its own: {}",
                    values.described()
                )
            }
            Convention::Substitute(substitute) => {
                return format!(
                    "{}, with {} in place of U+FFFD",
                    substitute.policy.description(),
                    substitute.character()
                )
            }
            Convention::ErrorLenByLead(lengths) => {
                return format!(
                    "the first error at a lead byte reported as long as the lead says ({}), \
                     else as the reference's",
                    lengths.described()
                )
            }
        };
        description.to_string()
    }

    /// The scalars it gives for `input`.
    pub fn scalars(self, input: &[u8]) -> Vec<u32> {
        let decoded = Reference::rfc3629().decode(input);
        let segments = segments(input, &decoded);
        self.scalars_of(input, &decoded, &segments)
    }

    /// [`Convention::scalars`], given the reference's decode of `input` and its segments.
    fn scalars_of(self, input: &[u8], decoded: &Decoded, segments: &[Segment]) -> Vec<u32> {
        match self {
            Convention::Policy(policy) | Convention::Reported(policy) => {
                expected_scalars(input, segments, policy)
            }
            Convention::LeadSizedValidLeads => valid_lead_sized_scalars(input, segments),
            Convention::LeadSizedBy(leads) | Convention::ReportedLeadSizedBy(leads) => {
                lead_sized_scalars(input, segments, |lead| leads.contains(lead))
            }
            Convention::Latin1Fallback if decoded.is_valid() => decoded.scalars.clone(),
            Convention::Latin1Fallback => input.iter().map(|&b| u32::from(b)).collect(),
            // A literal `EF BF BD` is a character and stays.
            Convention::Ignore => segments.iter().filter_map(character).collect(),
            Convention::StopsAtFirstError => segments.iter().map_while(character).collect(),
            Convention::PerByteValues(values) => segments
                .iter()
                .flat_map(|segment| match *segment {
                    Segment::Char { scalar } => vec![scalar],
                    Segment::Error { offset, len } => input[offset..offset + len]
                        .iter()
                        .map(|&b| values.scalar(b))
                        .collect(),
                })
                .collect(),
            Convention::SurrogateEscape => segments
                .iter()
                .flat_map(|segment| match *segment {
                    Segment::Char { scalar } => vec![scalar],
                    Segment::Error { offset, len } => input[offset..offset + len]
                        .iter()
                        .map(|&b| 0xDC00 + u32::from(b))
                        .collect(),
                })
                .collect(),
            Convention::Substitute(substitute) => substitute.scalars(input, segments),
            Convention::NeverReports | Convention::ErrorLenByLead(_) => {
                expected_scalars(input, segments, ReplacementPolicy::MaximalSubpart)
            }
        }
    }
}

/// The scalar of a character segment; `None` for an ill-formed one.
fn character(segment: &Segment) -> Option<u32> {
    match *segment {
        Segment::Char { scalar } => Some(scalar),
        Segment::Error { .. } => None,
    }
}

/// A convention as a [`Decoder`]: the reference's strict answer (its first error sized by
/// the policy for [`Convention::Reported`]), the convention's scalars.
pub struct ConventionDecoder {
    convention: Convention,
    name: String,
    description: String,
}

impl ConventionDecoder {
    /// The decoder of `convention`.
    pub fn new(convention: Convention) -> ConventionDecoder {
        ConventionDecoder {
            convention,
            name: convention.name(),
            description: convention.description(),
        }
    }
}

impl Decoder for ConventionDecoder {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        format!("utf8conf {}", env!("CARGO_PKG_VERSION"))
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR_AND_SCALARS
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        // One reference decode serves the strict answer, the segments and the scalars.
        let decoded = Reference::rfc3629().decode(input);
        let segments = segments(input, &decoded);
        *outcome = decoded.to_outcome(&self.name, input);
        outcome.errors = None;
        outcome.scalars = Some(self.convention.scalars_of(input, &decoded, &segments));
        let at = outcome.valid_up_to;
        match (self.convention, outcome.error_len) {
            (Convention::NeverReports, _) => {
                outcome.valid = true;
                outcome.valid_up_to = None;
                outcome.error_len = None;
            }
            // Whatever follows the lead, even the end of input.
            (Convention::ErrorLenByLead(lengths), Some(_)) => {
                if let Some(len) = at.and_then(|at| lengths.of(input[at])) {
                    outcome.error_len = Some(ErrorLen::Invalid(usize::from(len)));
                }
            }
            // An error cut by the end of input stays incomplete: more input could
            // complete it, whatever the policy.
            (Convention::Reported(policy), Some(ErrorLen::Invalid(_))) => {
                let len =
                    first_unit_len(input, &segments, policy).expect("an error has a first unit");
                outcome.error_len = Some(ErrorLen::Invalid(len));
            }
            (Convention::ReportedLeadSizedBy(leads), Some(ErrorLen::Invalid(subpart))) => {
                let at = at.expect("an error has an offset");
                if leads.contains(input[at]) {
                    let len = lead_sized_len(input, at).max(subpart);
                    outcome.error_len = Some(ErrorLen::Invalid(len));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::REPLACEMENT;

    #[test]
    fn valid_leads_alone_size_a_unit() {
        let fffd = |n| vec![REPLACEMENT; n];
        let per = |c: Convention, input: &[u8]| c.scalars(input);
        assert_eq!(per(Convention::LeadSizedValidLeads, &[0xE0, 0x80]), fffd(1));
        assert_eq!(per(Convention::LeadSizedValidLeads, &[0xC0, 0x80]), fffd(2));
        let lead_sized = Convention::Policy(ReplacementPolicy::PerLeadSizedSequence);
        assert_eq!(per(lead_sized, &[0xC0, 0x80]), fffd(1));
        assert_eq!(
            per(Convention::Latin1Fallback, &[0x41, 0x80]),
            vec![0x41, 0x80]
        );
        assert_eq!(
            per(Convention::Ignore, &[0x41, 0xE0, 0x80, 0xEF, 0xBF, 0xBD]),
            vec![0x41, REPLACEMENT]
        );
        assert_eq!(
            per(Convention::StopsAtFirstError, &[0x41, 0x80, 0x42, 0xC2]),
            vec![0x41]
        );
        assert_eq!(
            per(Convention::SurrogateEscape, &[0x41, 0xE0, 0x80]),
            vec![0x41, 0xDCE0, 0xDC80]
        );
    }
}
