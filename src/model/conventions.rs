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
//! one per byte of each ill-formed sequence).

use super::learner::Hypothesis;
use super::oracle::Oracle;
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
    /// Every byte of an ill-formed sequence as the lone surrogate U+DC00 + byte.
    SurrogateEscape,
}

impl Convention {
    /// Every convention other than the reference's own.
    pub const ALL: [Convention; 10] = [
        Convention::Policy(ReplacementPolicy::PerByte),
        Convention::Policy(ReplacementPolicy::PerRun),
        Convention::Policy(ReplacementPolicy::PerLeadSizedSequence),
        Convention::LeadSizedValidLeads,
        Convention::Reported(ReplacementPolicy::PerByte),
        Convention::Reported(ReplacementPolicy::PerRun),
        Convention::Reported(ReplacementPolicy::PerLeadSizedSequence),
        Convention::Latin1Fallback,
        Convention::Ignore,
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
            Convention::SurrogateEscape => "surrogateescape",
        };
        name.to_string()
    }

    /// Whether it is a U+FFFD policy (a policy is reported as such, not as a bug).
    pub fn is_policy(self) -> bool {
        !matches!(self, Convention::Latin1Fallback)
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
            Convention::SurrogateEscape => {
                "escapes each byte of an ill-formed sequence as the lone surrogate U+DC00 + byte"
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
            Convention::Ignore => segments
                .iter()
                .filter_map(|segment| match *segment {
                    Segment::Char { scalar } => Some(scalar),
                    Segment::Error { .. } => None,
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
        }
    }
}

/// A set of lead bytes `C0..FF` (bit `i` stands for byte `0xC0 + i`): the leads that size
/// an error unit in a member of the lead-sized family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LeadSet(u64);

impl LeadSet {
    /// Whether `byte` is in the set.
    pub fn contains(self, byte: u8) -> bool {
        byte >= 0xC0 && self.0 & (1 << (byte - 0xC0)) != 0
    }

    fn with(self, byte: u8) -> LeadSet {
        LeadSet(self.0 | 1 << (byte - 0xC0))
    }

    /// The set of `bytes` (each `C0..FF`).
    pub fn of(bytes: impl IntoIterator<Item = u8>) -> LeadSet {
        bytes.into_iter().fold(LeadSet(0), LeadSet::with)
    }

    /// The leads whose lead-sized unit can differ from their maximal subpart, each with
    /// the continuation byte that shows it: the first one Table 3-7 forbids after the
    /// lead. After `C2..DF`, `E1..EC`, `EE..EF` and `F1..F3` every continuation byte is
    /// allowed, so there the two units are the same; `FE` and `FF` announce nothing.
    fn telling() -> impl Iterator<Item = (u8, u8)> {
        (0xC0..=0xFDu8).filter_map(|lead| {
            let continuation = match lead {
                0xC0 | 0xC1 | 0xE0 | 0xF0 | 0xF5..=0xFD => 0x80,
                0xED => 0xA0,
                0xF4 => 0x90,
                _ => return None,
            };
            Some((lead, continuation))
        })
    }

    /// The sizing leads of the decoder's machine, when it is a member of the lead-sized
    /// family: after each telling lead, the decoder's lossy output on the continuation
    /// byte that tells is either the lead-sized unit's or the maximal subpart's. `None`
    /// when it is neither after some lead, and when the set is that of a known
    /// convention (every lead, the valid leads, or none: the reference).
    pub fn of_machine(decoder: &Hypothesis, capabilities: Capabilities) -> Option<LeadSet> {
        let every = LeadSet::of(0xC0..=0xFD);
        let lossy = |oracle: &mut Oracle, word: &[u8]| -> Vec<_> {
            oracle.outputs(word).iter().map(|o| o.lossy).collect()
        };
        let sized = ConventionDecoder::new(Convention::LeadSizedBy(every));
        let subparts = ConventionDecoder::new(Convention::LeadSizedBy(LeadSet(0)));
        let mut sized = Oracle::new(&sized, capabilities);
        let mut subparts = Oracle::new(&subparts, capabilities);
        // The leads whose two units are the same count as sizing: the set then reads as
        // ranges (`C2..F7`).
        let mut set = LeadSet::of(same_leads());
        for (lead, continuation) in LeadSet::telling() {
            let word = [lead, continuation];
            let seen: Vec<_> = decoder.run(&word).iter().map(|o| o.lossy).collect();
            if seen == lossy(&mut sized, &word) {
                set = set.with(lead);
            } else if seen != lossy(&mut subparts, &word) {
                return None;
            }
        }
        // Every lead, the valid leads, none that tells (the reference's maximal subparts).
        let known = [every, LeadSet::of(0xC2..=0xF4), LeadSet::of(same_leads())];
        (!known.contains(&set)).then_some(set)
    }
}

/// The leads whose lead-sized unit is always their maximal subpart.
fn same_leads() -> impl Iterator<Item = u8> {
    (0xC2..=0xDF)
        .chain(0xE1..=0xEC)
        .chain(0xEE..=0xEF)
        .chain(0xF1..=0xF3)
}

impl std::fmt::Display for LeadSet {
    /// The set as ranges of bytes: `C2..F7`, `C0..C1, E0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut ranges: Vec<(u8, u8)> = Vec::new();
        for byte in (0xC0..=0xFFu8).filter(|&b| self.contains(b)) {
            match ranges.last_mut() {
                Some((_, end)) if *end + 1 == byte => *end = byte,
                _ => ranges.push((byte, byte)),
            }
        }
        let ranges: Vec<String> = ranges
            .iter()
            .map(|&(start, end)| match start == end {
                true => format!("{start:02X}"),
                false => format!("{start:02X}..{end:02X}"),
            })
            .collect();
        f.write_str(&ranges.join(", "))
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
        // An error cut by the end of input stays incomplete: more input could complete
        // it, whatever the policy.
        if let Some(ErrorLen::Invalid(subpart)) = outcome.error_len {
            let len = match self.convention {
                Convention::Reported(policy) => {
                    first_unit_len(input, &segments, policy).expect("an error has a first unit")
                }
                Convention::ReportedLeadSizedBy(leads) => {
                    let at = outcome.valid_up_to.expect("an error has an offset");
                    if leads.contains(input[at]) {
                        lead_sized_len(input, at).max(subpart)
                    } else {
                        subpart
                    }
                }
                _ => subpart,
            };
            outcome.error_len = Some(ErrorLen::Invalid(len));
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
            per(Convention::SurrogateEscape, &[0x41, 0xE0, 0x80]),
            vec![0x41, 0xDCE0, 0xDC80]
        );
    }
}
