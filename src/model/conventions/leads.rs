//! The lead-byte tables a convention can carry, each read off a decoder's machine: which
//! leads size a U+FFFD unit ([`LeadSet`]), and how long an error at each lead is said to
//! be whatever follows ([`LeadLengths`]).

use super::{Convention, ConventionDecoder};
use crate::decoders::Capabilities;
use crate::model::alphabet::format_ranges;
use crate::model::learner::Hypothesis;
use crate::model::oracle::Oracle;
use crate::model::output::Strict;
use crate::outcome::ErrorLen;
use crate::reference::Reference;

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

    /// Which leads size a unit, as a title says it: "only C2..F7 size one", or "only ED
    /// sizes one". The set is the shorter of its ranges (`C2..F7`, which read well because
    /// the leads whose two units are the same count as sizing) and its *telling* members
    /// alone, the leads where sizing changes anything (`ED`): both are true of the
    /// decoder.
    pub fn sizing(self) -> String {
        let telling = LeadSet::of(
            LeadSet::telling()
                .map(|(lead, _)| lead)
                .filter(|&lead| self.contains(lead)),
        );
        let (ranges, telling) = (self.to_string(), telling.to_string());
        let set = if telling.len() < ranges.len() {
            telling
        } else {
            ranges
        };
        let one = set.len() == 2;
        format!("only {set} {} one", if one { "sizes" } else { "size" })
    }
}

/// The length a decoder gives an error at each lead byte `C0..FF`, whatever follows
/// (0: the reference's length there): entry `i` is for byte `0xC0 + i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LeadLengths([u8; 64]);

impl LeadLengths {
    /// The table of `(lead, length)` entries (each lead `C0..FF`, each length above 0).
    pub fn new(entries: impl IntoIterator<Item = (u8, u8)>) -> LeadLengths {
        let mut table = [0u8; 64];
        for (lead, len) in entries {
            table[usize::from(lead - 0xC0)] = len;
        }
        LeadLengths(table)
    }

    /// The length for an error at `lead`, if the table sets one.
    pub fn of(self, lead: u8) -> Option<u8> {
        let len = *self.0.get(usize::from(lead.checked_sub(0xC0)?))?;
        (len != 0).then_some(len)
    }

    /// The table of the decoder's machine, when some lead's error length is its own and
    /// the same whatever follows: on the lead alone at the end of input and before a
    /// byte that ends any sequence (`41`), the decoder reports an error of one length
    /// other than the reference's on the lead alone. `None` when no lead has one.
    pub fn of_machine(decoder: &Hypothesis) -> Option<LeadLengths> {
        // The length of the first error, when it starts at the word's first byte.
        let error = |word: &[u8]| {
            let outputs = decoder.run(word);
            let (step, len, back) =
                outputs
                    .iter()
                    .enumerate()
                    .find_map(|(i, o)| match o.strict {
                        Strict::Error { len, back } => Some((i, len, back)),
                        _ => None,
                    })?;
            (usize::from(back) == step + 1).then_some(len)
        };
        let mut table = Vec::new();
        for lead in 0xC0..=0xFFu8 {
            let Some(len) = error(&[lead]) else {
                continue;
            };
            // The reference's error on the lone lead: one byte for a byte no character
            // starts with, none yet where more input could complete it.
            let reference = match Reference::rfc3629().decode(&[lead]).first_error() {
                Some((_, ErrorLen::Invalid(len))) => u8::try_from(len).ok(),
                _ => None,
            };
            if len != 0 && Some(len) != reference && error(&[lead, 0x41]) == Some(len) {
                table.push((lead, len));
            }
        }
        (!table.is_empty()).then(|| LeadLengths::new(table))
    }

    /// The table as ranges of leads with their length: `C0..DF 2, E0..EF 3`.
    pub fn described(self) -> String {
        let mut ranges: Vec<(u8, u8, u8)> = Vec::new();
        for lead in 0xC0..=0xFFu8 {
            let Some(len) = self.of(lead) else { continue };
            match ranges.last_mut() {
                Some((_, end, l)) if *end + 1 == lead && *l == len => *end = lead,
                _ => ranges.push((lead, lead, len)),
            }
        }
        let ranges: Vec<String> = ranges
            .iter()
            .map(|&(start, end, len)| match start == end {
                true => format!("{start:02X} {len}"),
                false => format!("{start:02X}..{end:02X} {len}"),
            })
            .collect();
        ranges.join(", ")
    }
}

impl std::fmt::Display for LeadLengths {
    /// The table as a name part: `C0..DF-2-E0..EF-3`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.described().replace(", ", "-").replace(' ', "-"))
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
        let bytes: Vec<u8> = (0xC0..=0xFFu8).filter(|&b| self.contains(b)).collect();
        f.write_str(&format_ranges(&bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A title names the shorter true form of a lead set: its ranges, or the leads where
    /// sizing changes anything (Java's replacing decoder sizes by `ED` alone of those).
    #[test]
    fn a_lead_set_is_named_by_its_shorter_true_form() {
        let libunistring = LeadSet::of(0xC2..=0xF7);
        assert_eq!(libunistring.sizing(), "only C2..F7 size one");
        let java = LeadSet::of(same_leads().chain([0xED]));
        assert_eq!(java.to_string(), "C2..DF, E1..EF, F1..F3");
        assert_eq!(java.sizing(), "only ED sizes one");
        assert!(Convention::ReportedLeadSizedBy(java)
            .title()
            .contains("where only ED sizes one"));
    }
}
