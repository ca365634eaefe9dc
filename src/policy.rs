//! U+FFFD policies: how many replacement characters a lossy decoder emits for ill-formed
//! input, and where.
//!
//! Unicode's recommended practice is one U+FFFD per maximal subpart (§3.9, "U+FFFD
//! Substitution of Maximal Subparts"; the WHATWG UTF-8 decoder does the same), but other
//! policies are common in the wild (docs/DESIGN.md §2) and a decoder that follows one of them
//! consistently has one finding, not one departure per input. So for every ill-formed
//! input the harness computes what each policy would produce, and a decoder's policy is
//! the one that explains all of its answers.
//!
//! All policies agree on the well-formed characters: they differ only in how the bytes
//! between them (the reference's error units, which are maximal subparts) become U+FFFD.
//! So each policy is computed from the reference's decode, split into [`Segment`]s:
//!
//! - [`ReplacementPolicy::MaximalSubpart`]: one per error unit (the reference itself).
//! - [`ReplacementPolicy::PerByte`]: one per ill-formed byte, as Go's `for range` over a
//!   string ("each iteration ... RuneError and advances one byte").
//! - [`ReplacementPolicy::PerRun`]: one per run of adjacent ill-formed units, as Go's
//!   `strings.ToValidUTF8` ("each run of invalid UTF-8 byte sequences replaced").
//! - [`ReplacementPolicy::PerLeadSizedSequence`]: one per lead-sized sequence of the
//!   taxonomy ([`taxonomy::announced_len`]): a lead byte and up to as many continuation
//!   bytes as it announces under the pre-2003 layout, so `ED A0 80` or `F8 88 80 80 80`
//!   is one U+FFFD (Perl's Encode, old ICU, the layout of Kuhn's test file).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::outcome::REPLACEMENT;
use crate::reference::{Decoded, Reference};
use crate::taxonomy;

/// A U+FFFD policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplacementPolicy {
    /// One U+FFFD per maximal subpart (Unicode §3.9, WHATWG): the reference's policy.
    MaximalSubpart,
    /// One U+FFFD per ill-formed byte.
    PerByte,
    /// One U+FFFD per run of adjacent ill-formed bytes.
    PerRun,
    /// One U+FFFD per lead-sized sequence (lead byte plus announced continuation bytes).
    PerLeadSizedSequence,
}

impl ReplacementPolicy {
    /// Every policy, the reference's first (it wins ties).
    pub const ALL: [ReplacementPolicy; 4] = [
        ReplacementPolicy::MaximalSubpart,
        ReplacementPolicy::PerByte,
        ReplacementPolicy::PerRun,
        ReplacementPolicy::PerLeadSizedSequence,
    ];

    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplacementPolicy::MaximalSubpart => "maximal-subpart",
            ReplacementPolicy::PerByte => "per-byte",
            ReplacementPolicy::PerRun => "per-run",
            ReplacementPolicy::PerLeadSizedSequence => "per-lead-sized-sequence",
        }
    }

    /// One line saying what the policy does.
    pub fn description(self) -> &'static str {
        match self {
            ReplacementPolicy::MaximalSubpart => {
                "one U+FFFD per maximal subpart (Unicode 3.9 recommended practice, WHATWG)"
            }
            ReplacementPolicy::PerByte => "one U+FFFD per ill-formed byte (like Go's range loop)",
            ReplacementPolicy::PerRun => {
                "one U+FFFD per run of ill-formed bytes (like Go's strings.ToValidUTF8)"
            }
            ReplacementPolicy::PerLeadSizedSequence => {
                "one U+FFFD per lead-byte-sized sequence (lead byte plus the continuation bytes it announces)"
            }
        }
    }
}

/// A piece of an input as the reference decoded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// A well-formed character.
    Char {
        /// Its scalar value.
        scalar: u32,
    },
    /// An error unit (a maximal subpart).
    Error {
        /// Byte offset.
        offset: usize,
        /// Length in bytes.
        len: usize,
    },
}

/// Splits the reference's decode of `input` into characters and error units, in order.
pub fn segments(input: &[u8], decoded: &Decoded) -> Vec<Segment> {
    let mut segments = Vec::with_capacity(decoded.scalars.len());
    let mut errors = decoded.errors.iter().peekable();
    let mut offset = 0;
    for &scalar in &decoded.scalars {
        match errors.peek() {
            Some(error) if error.offset == offset => {
                segments.push(Segment::Error {
                    offset,
                    len: error.len,
                });
                offset += error.len;
                errors.next();
            }
            _ => {
                segments.push(Segment::Char { scalar });
                // A well-formed character's length is the one its lead byte announces.
                offset += taxonomy::announced_len(input[offset]).max(1);
            }
        }
    }
    segments
}

/// The scalars a decoder following `policy` produces for the input split into `segments`.
pub fn expected_scalars(input: &[u8], segments: &[Segment], policy: ReplacementPolicy) -> Vec<u32> {
    let mut scalars = Vec::with_capacity(segments.len());
    // For the lead-sized policy: the input offset up to which bytes are already covered.
    let mut covered_until = 0;
    let mut previous_was_error = false;
    for segment in segments {
        match *segment {
            Segment::Char { scalar } => {
                scalars.push(scalar);
                previous_was_error = false;
            }
            Segment::Error { offset, len } => {
                match policy {
                    ReplacementPolicy::MaximalSubpart => scalars.push(REPLACEMENT),
                    ReplacementPolicy::PerByte => {
                        scalars.extend(std::iter::repeat_n(REPLACEMENT, len))
                    }
                    ReplacementPolicy::PerRun => {
                        if !previous_was_error {
                            scalars.push(REPLACEMENT);
                        }
                    }
                    ReplacementPolicy::PerLeadSizedSequence => {
                        if offset >= covered_until {
                            scalars.push(REPLACEMENT);
                            covered_until = offset + lead_sized_len(input, offset);
                        }
                    }
                }
                previous_was_error = true;
            }
        }
    }
    scalars
}

/// The length of the lead-sized sequence at `offset`: the byte and the continuation bytes
/// (80..BF) after it, up to as many as it announces; one byte for a continuation byte or
/// FE/FF, which announce nothing.
pub fn lead_sized_len(input: &[u8], offset: usize) -> usize {
    let announced = taxonomy::announced_len(input[offset]);
    let continuation_bytes = input[offset + 1..]
        .iter()
        .take(announced.saturating_sub(1))
        .take_while(|&&byte| byte & 0xC0 == 0x80)
        .count();
    1 + continuation_bytes
}

/// One U+FFFD per lead-sized unit where only the lead bytes of well-formed sequences,
/// `C2..F4`, announce a length: `C0`, `C1` and `F5..FF` are one unit each, a byte, as a
/// stray continuation byte is. A policy some decoders have and none of the four above:
/// they size an error by its lead byte only when the lead could start a character.
pub fn valid_lead_sized_scalars(input: &[u8], segments: &[Segment]) -> Vec<u32> {
    lead_sized_scalars(input, segments, |lead| matches!(lead, 0xC2..=0xF4))
}

/// One U+FFFD per lead-sized unit ([`lead_sized_len`]) for an error that starts with a
/// byte `sizes` accepts, and one per maximal subpart for any other: the family the
/// per-lead-sized policies are members of (every lead sizes a unit, or only valid leads
/// do), over any set of sizing leads.
pub fn lead_sized_scalars(
    input: &[u8],
    segments: &[Segment],
    sizes: impl Fn(u8) -> bool,
) -> Vec<u32> {
    let mut scalars = Vec::with_capacity(segments.len());
    let mut covered_until = 0;
    for segment in segments {
        match *segment {
            Segment::Char { scalar } => scalars.push(scalar),
            Segment::Error { offset, len } if offset >= covered_until => {
                scalars.push(REPLACEMENT);
                covered_until = offset
                    + if sizes(input[offset]) {
                        lead_sized_len(input, offset).max(len)
                    } else {
                        len
                    };
            }
            Segment::Error { .. } => {}
        }
    }
    scalars
}

/// The length of the first replacement unit under `policy` starting at the first error,
/// i.e. the `error_len` a strict decoder following that policy would report.
pub fn first_unit_len(
    input: &[u8],
    segments: &[Segment],
    policy: ReplacementPolicy,
) -> Option<usize> {
    let first = segments
        .iter()
        .position(|s| matches!(s, Segment::Error { .. }))?;
    let Segment::Error { offset, len } = segments[first] else {
        unreachable!("position found an error segment")
    };
    Some(match policy {
        ReplacementPolicy::MaximalSubpart => len,
        ReplacementPolicy::PerByte => 1,
        ReplacementPolicy::PerRun => segments[first..]
            .iter()
            .take_while(|s| matches!(s, Segment::Error { .. }))
            .map(|s| match s {
                Segment::Error { len, .. } => *len,
                Segment::Char { .. } => 0,
            })
            .sum(),
        ReplacementPolicy::PerLeadSizedSequence => lead_sized_len(input, offset),
    })
}

/// Collapses every run of U+FFFD into one, so that two lossy decodes can be compared
/// independently of their U+FFFD policy.
pub fn collapse_replacements(scalars: &[u32]) -> Vec<u32> {
    let mut collapsed = Vec::with_capacity(scalars.len());
    for &scalar in scalars {
        if scalar == REPLACEMENT && collapsed.last() == Some(&REPLACEMENT) {
            continue;
        }
        collapsed.push(scalar);
    }
    collapsed
}

/// The policy predictions for an input (name → scalars), for examples.
pub fn policy_predictions(input: &[u8]) -> BTreeMap<&'static str, Vec<u32>> {
    let decoded = Reference::rfc3629().decode(input);
    let segments = segments(input, &decoded);
    ReplacementPolicy::ALL
        .into_iter()
        .map(|policy| (policy.as_str(), expected_scalars(input, &segments, policy)))
        .collect()
}

/// Which policies would report the `error_len` the decoder reported for `input`.
pub fn policies_matching_error_len(input: &[u8], error_len: usize) -> Vec<&'static str> {
    let decoded = Reference::rfc3629().decode(input);
    let segments = segments(input, &decoded);
    ReplacementPolicy::ALL
        .into_iter()
        .filter(|&policy| first_unit_len(input, &segments, policy) == Some(error_len))
        .map(ReplacementPolicy::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::parse_hex;
    use crate::reference::Reference;

    fn replacements(text: &str, policy: ReplacementPolicy) -> Vec<u32> {
        let input = parse_hex(text).unwrap();
        let decoded = Reference::rfc3629().decode(&input);
        expected_scalars(&input, &segments(&input, &decoded), policy)
    }

    const F: u32 = REPLACEMENT;

    #[test]
    fn maximal_subpart_is_the_reference() {
        let input = parse_hex("61 F1 80 80 E1 80 C2 62 80 63 80 BF 64").unwrap();
        let decoded = Reference::rfc3629().decode(&input);
        assert_eq!(
            expected_scalars(
                &input,
                &segments(&input, &decoded),
                ReplacementPolicy::MaximalSubpart
            ),
            decoded.scalars
        );
    }

    #[test]
    fn the_policies_differ_as_documented() {
        use ReplacementPolicy::*;
        // Unicode 3.9's worked example, Table 3-8's row: one per maximal subpart.
        let text = "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64";
        assert_eq!(
            replacements(text, MaximalSubpart),
            [0x61, F, F, F, 0x62, F, 0x63, F, F, 0x64]
        );
        assert_eq!(
            replacements(text, PerByte),
            [0x61, F, F, F, F, F, F, 0x62, F, 0x63, F, F, 0x64]
        );
        assert_eq!(
            replacements(text, PerRun),
            [0x61, F, 0x62, F, 0x63, F, 0x64]
        );
        assert_eq!(
            replacements(text, PerLeadSizedSequence),
            [0x61, F, F, F, 0x62, F, 0x63, F, F, 0x64]
        );
        assert_eq!(replacements("ED A0 80 41", PerLeadSizedSequence), [F, 0x41]);
        assert_eq!(replacements("ED A0 80 41", MaximalSubpart), [F, F, F, 0x41]);
        assert_eq!(
            replacements("F8 88 80 80 80 80", PerLeadSizedSequence),
            [F, F]
        );
        assert_eq!(replacements("80 80", PerLeadSizedSequence), [F, F]);
        // A valid U+FFFD in the input is a character, not an error.
        assert_eq!(replacements("EF BF BD 80", PerRun), [F, F]);
    }

    #[test]
    fn first_unit_lengths() {
        use ReplacementPolicy::*;
        let input = parse_hex("41 F1 80 80 C0 42").unwrap();
        let decoded = Reference::rfc3629().decode(&input);
        let segments = segments(&input, &decoded);
        assert_eq!(first_unit_len(&input, &segments, MaximalSubpart), Some(3));
        assert_eq!(first_unit_len(&input, &segments, PerByte), Some(1));
        assert_eq!(first_unit_len(&input, &segments, PerRun), Some(4));
        assert_eq!(
            first_unit_len(&input, &segments, PerLeadSizedSequence),
            Some(3)
        );
        let valid = parse_hex("41").unwrap();
        let decoded = Reference::rfc3629().decode(&valid);
        assert_eq!(
            first_unit_len(&valid, &super::segments(&valid, &decoded), PerByte),
            None
        );
    }

    #[test]
    fn collapsing_runs() {
        assert_eq!(
            collapse_replacements(&[F, F, 0x41, F, 0x42, F, F, F]),
            [F, 0x41, F, 0x42, F]
        );
    }
}
