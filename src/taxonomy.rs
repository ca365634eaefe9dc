//! The error taxonomy: which kind of ill-formed (or mishandled) UTF-8 a byte is about.
//!
//! A finding report names the categories of the bytes it is about (docs/DESIGN.md §2), so
//! that a reader sees "surrogate" or "overlong-3" instead of a hex dump. Classification is
//! independent of any decoder: it looks only at the input bytes.
//!
//! The unit of classification is the *lead-sized sequence*: at an offending lead byte `L`
//! the announced length is `n` (2 for C0..DF, 3 for E0..EF, 4 for F0..F7, 5 for F8..FB, 6
//! for FC..FD, the pre-2003 RFC 2279 layout), and the sequence is `L` plus the continuation
//! bytes (80..BF) that follow it, up to `n - 1` of them. Every maximal subpart inside that
//! sequence takes the sequence's category. This is why `ED A0 80` is three error units
//! (Unicode's maximal subparts) but one `surrogate` in a report.
//!
//! The byte ranges below restate Unicode Table 3-7 to *name* what is wrong; they are not
//! used to decide well-formedness. That is the reference decoder's job, and it takes its
//! ranges from the RFC 3629 grammar text alone.

use serde::{Deserialize, Serialize};

/// A taxonomy category (docs/DESIGN.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// A byte that can never start a sequence: FE, FF, or C0, C1, F5..FD with no
    /// continuation byte after it.
    InvalidLead,
    /// A continuation byte (80..BF) that no lead byte announced.
    UnexpectedContinuation,
    /// A well-formed prefix cut by the end of input.
    TruncatedAtEnd,
    /// A well-formed prefix cut by a byte that cannot continue it.
    TruncatedInterrupted,
    /// C0 or C1 with a continuation byte: a 2-byte encoding of U+0000..U+007F
    /// (Modified UTF-8's `C0 80` among them).
    #[serde(rename = "overlong-2")]
    Overlong2,
    /// E0 80..9F: a 3-byte encoding of a scalar below U+0800.
    #[serde(rename = "overlong-3")]
    Overlong3,
    /// F0 80..8F: a 4-byte encoding of a scalar below U+10000.
    #[serde(rename = "overlong-4")]
    Overlong4,
    /// ED A0..BF: an encoded UTF-16 surrogate code point (D800..DFFF), as in WTF-8.
    Surrogate,
    /// A high surrogate followed by a low surrogate, each encoded in 3 bytes (CESU-8).
    #[serde(rename = "cesu8-pair")]
    Cesu8Pair,
    /// F4 90..BF or F5..F7 with continuation bytes: a code point above U+10FFFF.
    AboveMax,
    /// F8..FD with continuation bytes: the 5- and 6-byte forms of RFC 2279.
    #[serde(rename = "legacy-5-6-byte")]
    Legacy5Or6Byte,
    /// A decoder rejected a noncharacter (U+FDD0..FDEF, U+xFFFE/xFFFF), which is well-formed.
    NoncharacterRejected,
    /// A decoder dropped a leading byte order mark, a wrapper policy rather than decoding.
    BomStripped,
    /// A decoder rejected well-formed input.
    ValidRejected,
    /// A decoder accepted well-formed input but produced other scalar values.
    ValidMisdecoded,
    /// A well-formed character was consumed by an error unit before it: Perl's lax
    /// decoder turns `83 F3 BF BF BF` into two U+FFFD, losing U+FFFFF. Unicode §3.9
    /// (Conformance requirement C10 and "U+FFFD Substitution of Maximal Subparts"): a
    /// conversion process "must not [...] interpret any ill-formed code unit subsequences"
    /// and must not consume well-formed characters as part of an error; UTS #36 §3.6
    /// ("Substituting for Ill-Formed Subsequences") shows how a swallowed delimiter turns
    /// into an injection.
    CharacterSwallowed,
    /// The decoder stopped early: its output ends where the reference's goes on (a decoder
    /// that treats U+0000 as the end of the string). Unicode §3.9, C10: a conforming process
    /// interprets the whole code unit sequence; UTS #36 §3.6 lists truncation at a
    /// character the decoder treats as special among the security risks.
    OutputCutShort,
    /// The decoder found the right first error but reported its offset counted another way
    /// (after a byte order mark, or in characters instead of bytes): `valid_up_to` is off by
    /// a constant while the decoded text agrees. Rust std's `Utf8Error::valid_up_to` is
    /// "the index in the given string up to which valid UTF-8 was verified", in bytes.
    OffsetMiscounted,
}

impl Category {
    /// Every category, in the order of docs/DESIGN.md §2.
    pub const ALL: [Category; 18] = [
        Category::InvalidLead,
        Category::UnexpectedContinuation,
        Category::TruncatedAtEnd,
        Category::TruncatedInterrupted,
        Category::Overlong2,
        Category::Overlong3,
        Category::Overlong4,
        Category::Surrogate,
        Category::Cesu8Pair,
        Category::AboveMax,
        Category::Legacy5Or6Byte,
        Category::NoncharacterRejected,
        Category::BomStripped,
        Category::ValidRejected,
        Category::ValidMisdecoded,
        Category::CharacterSwallowed,
        Category::OutputCutShort,
        Category::OffsetMiscounted,
    ];

    /// The categories of ill-formed input (the ones a classifier assigns to bytes).
    pub const ILL_FORMED: [Category; 11] = [
        Category::InvalidLead,
        Category::UnexpectedContinuation,
        Category::TruncatedAtEnd,
        Category::TruncatedInterrupted,
        Category::Overlong2,
        Category::Overlong3,
        Category::Overlong4,
        Category::Surrogate,
        Category::Cesu8Pair,
        Category::AboveMax,
        Category::Legacy5Or6Byte,
    ];

    /// The kebab-case name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::InvalidLead => "invalid-lead",
            Category::UnexpectedContinuation => "unexpected-continuation",
            Category::TruncatedAtEnd => "truncated-at-end",
            Category::TruncatedInterrupted => "truncated-interrupted",
            Category::Overlong2 => "overlong-2",
            Category::Overlong3 => "overlong-3",
            Category::Overlong4 => "overlong-4",
            Category::Surrogate => "surrogate",
            Category::Cesu8Pair => "cesu8-pair",
            Category::AboveMax => "above-max",
            Category::Legacy5Or6Byte => "legacy-5-6-byte",
            Category::NoncharacterRejected => "noncharacter-rejected",
            Category::BomStripped => "bom-stripped",
            Category::ValidRejected => "valid-rejected",
            Category::ValidMisdecoded => "valid-misdecoded",
            Category::CharacterSwallowed => "character-swallowed",
            Category::OutputCutShort => "output-cut-short",
            Category::OffsetMiscounted => "offset-miscounted",
        }
    }

    /// Parses a kebab-case name.
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// A category in words, written once for every place that shows it: generated finding
/// titles, the SARIF rules, the reports (docs/DESIGN.md §2, Unicode §3.9 Table 3-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prose {
    /// A short heading ("Overlong 3-byte form").
    pub title: &'static str,
    /// One sentence: which bytes, and what went wrong with them.
    pub description: &'static str,
    /// The bytes as a finding's title names them ("3-byte overlong forms").
    pub words: &'static str,
}

impl Category {
    /// This category in words.
    pub fn prose(self) -> Prose {
        match self {
            Category::InvalidLead => Prose {
                title: "Invalid lead byte",
                description: "A byte that can never start a sequence (C0, C1, F5..FF) was not treated as an error unit.",
                words: "a byte that cannot start a sequence",
            },
            Category::UnexpectedContinuation => Prose {
                title: "Unexpected continuation byte",
                description: "A continuation byte (80..BF) that no lead byte announced was not treated as an error unit.",
                words: "a stray continuation byte",
            },
            Category::TruncatedAtEnd => Prose {
                title: "Sequence truncated at end of input",
                description: "A well-formed prefix cut by the end of input was mishandled.",
                words: "a sequence cut by the end of input",
            },
            Category::TruncatedInterrupted => Prose {
                title: "Sequence interrupted",
                description: "A well-formed prefix cut by a byte that cannot continue it was mishandled.",
                words: "a sequence cut by another byte",
            },
            Category::Overlong2 => Prose {
                title: "Overlong 2-byte form",
                description: "C0 or C1 with a continuation byte (a 2-byte encoding of U+0000..U+007F) was mishandled.",
                words: "2-byte overlong forms",
            },
            Category::Overlong3 => Prose {
                title: "Overlong 3-byte form",
                description: "E0 80..9F (a 3-byte encoding of a scalar below U+0800) was mishandled.",
                words: "3-byte overlong forms",
            },
            Category::Overlong4 => Prose {
                title: "Overlong 4-byte form",
                description: "F0 80..8F (a 4-byte encoding of a scalar below U+10000) was mishandled.",
                words: "4-byte overlong forms",
            },
            Category::Surrogate => Prose {
                title: "Encoded surrogate",
                description: "ED A0..BF (an encoded UTF-16 surrogate, as in WTF-8) was mishandled.",
                words: "an encoded surrogate",
            },
            Category::Cesu8Pair => Prose {
                title: "CESU-8 surrogate pair",
                description: "A high and a low surrogate, each encoded in 3 bytes (CESU-8), were mishandled.",
                words: "CESU-8 surrogate pairs",
            },
            Category::AboveMax => Prose {
                title: "Code point above U+10FFFF",
                description: "F4 90..BF or F5..F7 with continuation bytes (a code point above U+10FFFF) was mishandled.",
                words: "code points above U+10FFFF",
            },
            Category::Legacy5Or6Byte => Prose {
                title: "5- or 6-byte form",
                description: "F8..FD with continuation bytes (the 5- and 6-byte forms of RFC 2279) was mishandled.",
                words: "5- and 6-byte forms",
            },
            Category::NoncharacterRejected => Prose {
                title: "Noncharacter rejected",
                description: "A noncharacter (U+FDD0..FDEF, U+xFFFE/xFFFF), which is well-formed, was rejected.",
                words: "a noncharacter",
            },
            Category::BomStripped => Prose {
                title: "Byte order mark stripped",
                description: "A leading U+FEFF was dropped: a wrapper policy rather than decoding.",
                words: "a byte order mark",
            },
            Category::ValidRejected => Prose {
                title: "Well-formed input rejected",
                description: "Well-formed UTF-8 was rejected.",
                words: "a well-formed character",
            },
            Category::ValidMisdecoded => Prose {
                title: "Well-formed input misdecoded",
                description: "Well-formed UTF-8 was accepted but decoded to other scalar values.",
                words: "a well-formed character",
            },
            Category::CharacterSwallowed => Prose {
                title: "Well-formed character swallowed",
                description: "A well-formed character was consumed as part of an error unit (Unicode 3.9; UTS #36 3.6).",
                words: "a character after an error",
            },
            Category::OutputCutShort => Prose {
                title: "Output cut short",
                description: "The decoder stopped early: its output ends where the reference's goes on.",
                words: "the rest of the input",
            },
            Category::OffsetMiscounted => Prose {
                title: "Error offset miscounted",
                description: "The first error is right but its offset is counted another way (after a BOM, or in characters).",
                words: "the first error's offset",
            },
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// True for the 66 noncharacters: U+FDD0..U+FDEF and the last two code points of every
/// plane, U+xFFFE and U+xFFFF up to U+10FFFF (Unicode §23.7, D14). They are well-formed:
/// "Noncharacters [...] are not illegal in interchange".
pub fn is_noncharacter(scalar: u32) -> bool {
    (0xFDD0..=0xFDEF).contains(&scalar) || (scalar & 0xFFFE == 0xFFFE && scalar <= 0x10FFFF)
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The value of `sequence`, a lead byte (`C0..FD`) and exactly as many continuation bytes
/// as it announces, read from its bits alone under the RFC 2279 layout, with none of RFC
/// 3629's range checks: the value a decoder without them gives (`C0 AF` is `/`, `ED A0 80`
/// is U+D800). `None` for any other sequence.
pub fn lax_value(sequence: &[u8]) -> Option<u32> {
    let (&lead, tails) = sequence.split_first()?;
    let len = announced_len(lead);
    if len < 2 || sequence.len() != len || !tails.iter().all(|&b| is_continuation(b)) {
        return None;
    }
    let lead_bits = u32::from(lead) & (0x7F >> len);
    Some(
        tails
            .iter()
            .fold(lead_bits, |value, &b| value << 6 | u32::from(b & 0x3F)),
    )
}

/// The length a lead byte announces under the RFC 2279 layout (1 for ASCII, 0 for a
/// continuation byte or FE/FF, which announce nothing).
pub fn announced_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0x80..=0xBF => 0,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        0xF8..=0xFB => 5,
        0xFC..=0xFD => 6,
        0xFE..=0xFF => 0,
    }
}

/// The category of the lead-sized sequence that starts at `lead_offset`, or `None` when
/// that sequence is a complete well-formed character (or plain ASCII).
///
/// `lead_offset` must be in bounds.
pub fn sequence_category(input: &[u8], lead_offset: usize) -> Option<Category> {
    let lead = input[lead_offset];
    let at = |i: usize| input.get(lead_offset + i).copied();
    let continues = |i: usize| at(i).is_some_and(is_continuation);
    let second = at(1);
    // Categories decided by the first two bytes (Unicode Table 3-7's special rows).
    let decided = match (lead, second) {
        (0x00..=0x7F, _) => return None,
        (0x80..=0xBF, _) => return Some(Category::UnexpectedContinuation),
        (0xFE..=0xFF, _) => return Some(Category::InvalidLead),
        (0xC0..=0xC1 | 0xF5..=0xFD, _) if !continues(1) => return Some(Category::InvalidLead),
        (0xC0..=0xC1, _) => Some(Category::Overlong2),
        (0xE0, Some(0x80..=0x9F)) => Some(Category::Overlong3),
        (0xF0, Some(0x80..=0x8F)) => Some(Category::Overlong4),
        (0xED, Some(0xA0..=0xBF)) => Some(surrogate_or_cesu8(input, lead_offset)),
        (0xF4, Some(0x90..=0xBF)) | (0xF5..=0xF7, _) => Some(Category::AboveMax),
        (0xF8..=0xFD, _) => Some(Category::Legacy5Or6Byte),
        _ => None,
    };
    if decided.is_some() {
        return decided;
    }
    // A valid lead (C2..F4) with an acceptable second byte: complete or truncated.
    let needed = announced_len(lead) - 1;
    let present = (1..=needed).take_while(|&i| continues(i)).count();
    if present == needed {
        None
    } else if lead_offset + 1 + present == input.len() {
        Some(Category::TruncatedAtEnd)
    } else {
        Some(Category::TruncatedInterrupted)
    }
}

/// `ED A0..BF xx` is a surrogate; it is half of a CESU-8 pair when a complete high
/// surrogate (ED A0..AF xx) is directly followed by a complete low one (ED B0..BF xx).
fn surrogate_or_cesu8(input: &[u8], lead_offset: usize) -> Category {
    let is_half = |start: usize, second_range: std::ops::RangeInclusive<u8>| {
        input.len() >= start + 3
            && input[start] == 0xED
            && second_range.contains(&input[start + 1])
            && is_continuation(input[start + 2])
    };
    let pair_starts_here =
        is_half(lead_offset, 0xA0..=0xAF) && is_half(lead_offset + 3, 0xB0..=0xBF);
    let pair_ends_here = lead_offset >= 3
        && is_half(lead_offset - 3, 0xA0..=0xAF)
        && is_half(lead_offset, 0xB0..=0xBF);
    if pair_starts_here || pair_ends_here {
        Category::Cesu8Pair
    } else {
        Category::Surrogate
    }
}

/// The category of the byte at `offset`: that of the lead-sized sequence covering it, or
/// `None` when the byte belongs to a well-formed character.
pub fn category_at(input: &[u8], offset: usize) -> Option<Category> {
    if !is_continuation(input[offset]) {
        return sequence_category(input, offset);
    }
    // Walk back over continuation bytes to the lead that may announce this one.
    let mut lead = offset;
    while lead > 0 && offset - lead < 5 && is_continuation(input[lead]) {
        lead -= 1;
    }
    let distance = offset - lead;
    if !is_continuation(input[lead]) && distance < announced_len(input[lead]) {
        sequence_category(input, lead)
    } else {
        Some(Category::UnexpectedContinuation)
    }
}

/// The sorted, de-duplicated categories of the error units `(offset, len)` of `input`.
pub fn categories_of_units(
    input: &[u8],
    units: impl IntoIterator<Item = (usize, usize)>,
) -> Vec<Category> {
    let mut categories: Vec<Category> = units
        .into_iter()
        .filter_map(|(offset, _)| category_at(input, offset))
        .collect();
    categories.sort();
    categories.dedup();
    categories
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> Vec<u8> {
        crate::hex::parse_hex(text).unwrap()
    }

    fn all_categories(text: &str) -> Vec<Option<Category>> {
        let input = hex(text);
        (0..input.len()).map(|i| category_at(&input, i)).collect()
    }

    #[test]
    fn noncharacters_are_the_66_and_stop_at_10ffff() {
        let count = (0..=0x11FFFFu32).filter(|&s| is_noncharacter(s)).count();
        assert_eq!(count, 66);
        assert!(is_noncharacter(0x10FFFF) && !is_noncharacter(0x11FFFF));
    }

    #[test]
    fn names_round_trip_through_json_and_from_name() {
        for category in Category::ALL {
            let json = serde_json::to_string(&category).unwrap();
            assert_eq!(json, format!("\"{}\"", category.as_str()));
            assert_eq!(Category::from_name(category.as_str()), Some(category));
        }
    }

    #[test]
    fn whole_sequences_take_the_lead_category() {
        use Category::*;
        assert_eq!(all_categories("ED A0 80"), vec![Some(Surrogate); 3]);
        assert_eq!(
            all_categories("ED A0 BD ED B2 A9"),
            vec![Some(Cesu8Pair); 6]
        );
        assert_eq!(all_categories("C0 80"), vec![Some(Overlong2); 2]);
        assert_eq!(all_categories("E0 80 AF"), vec![Some(Overlong3); 3]);
        assert_eq!(all_categories("F0 8F BF BF"), vec![Some(Overlong4); 4]);
        assert_eq!(all_categories("F4 90 80 80"), vec![Some(AboveMax); 4]);
        assert_eq!(
            all_categories("F8 88 80 80 80"),
            vec![Some(Legacy5Or6Byte); 5]
        );
        assert_eq!(
            all_categories("FC 84 80 80 80 80"),
            vec![Some(Legacy5Or6Byte); 6]
        );
    }

    #[test]
    fn lone_bad_leads_and_stray_continuations() {
        use Category::*;
        assert_eq!(all_categories("C0 41"), vec![Some(InvalidLead), None]);
        assert_eq!(all_categories("FE FF"), vec![Some(InvalidLead); 2]);
        assert_eq!(all_categories("F5"), vec![Some(InvalidLead)]);
        assert_eq!(
            all_categories("C2 80 80"),
            vec![None, None, Some(UnexpectedContinuation)]
        );
        assert_eq!(all_categories("80"), vec![Some(UnexpectedContinuation)]);
        // Beyond what the lead announces.
        assert_eq!(
            category_at(&hex("F0 80 80 80 80"), 4),
            Some(UnexpectedContinuation)
        );
    }

    #[test]
    fn truncation_at_end_and_interrupted() {
        use Category::*;
        assert_eq!(category_at(&hex("E4 BD"), 0), Some(TruncatedAtEnd));
        assert_eq!(category_at(&hex("E4 BD"), 1), Some(TruncatedAtEnd));
        assert_eq!(category_at(&hex("E4 BD 41"), 0), Some(TruncatedInterrupted));
        assert_eq!(
            category_at(&hex("F1 80 80 E1"), 0),
            Some(TruncatedInterrupted)
        );
        assert_eq!(category_at(&hex("F1 80 80 E1"), 3), Some(TruncatedAtEnd));
        // Overlong and surrogate prefixes are decided by their first two bytes.
        assert_eq!(category_at(&hex("E0 80"), 0), Some(Overlong3));
        assert_eq!(category_at(&hex("ED A0 41"), 0), Some(Surrogate));
    }

    #[test]
    fn well_formed_characters_have_no_category() {
        for text in [
            "41",
            "C2 80",
            "EF BB BF",
            "EF BF BF",
            "F4 8F BF BF",
            "ED 9F BF",
        ] {
            assert!(all_categories(text).iter().all(Option::is_none), "{text}");
        }
    }

    #[test]
    fn categories_of_units_sorts_and_dedups() {
        let input = hex("80 ED A0 80 80");
        let units = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1)];
        assert_eq!(
            categories_of_units(&input, units),
            vec![Category::UnexpectedContinuation, Category::Surrogate]
        );
    }
}
