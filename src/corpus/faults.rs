//! The `faults` generator: valid multilingual text with one injected fault.
//!
//! Random bytes rarely contain the errors decoders get wrong (a CESU-8 pair is 6 specific
//! bytes; a truncated 4-byte sequence interrupted by a lead byte is a rare accident). This
//! generator injects each ill-formed category of the taxonomy ([`Category::ILL_FORMED`])
//! on purpose, into realistic text, so every error path of a decoder is exercised in
//! context: after Cyrillic, before an emoji, at the end of input.
//!
//! Input `i` injects category `ILL_FORMED[i % 11]` (so the first 11 inputs already cover
//! every category) into text from [`super::text::random_text`], at a seeded site:
//!
//! - **boundary**: between two characters, where the fault is *inserted*, or *substituted*
//!   for the following character, deriving its bytes from that character where that is
//!   how such faults arise (the overlong or CESU-8 encoding of the scalar, a character cut
//!   short). Here the fault keeps its category: the reference decoder's error units include
//!   it (tested).
//! - **inside a character**: between a lead byte and its continuation bytes. The fault
//!   then also breaks the character around it, and what the reference sees may be a
//!   different category (a lone `C0` before a continuation byte is an overlong): these
//!   inputs test decoders on errors that overlap.
//! - **end**: `truncated-at-end` is a prefix of a character at the very end of the input.
//!
//! The byte patterns per category (Unicode Table 3-7 and the taxonomy's definitions):
//!
//! | category                  | bytes                                                   |
//! |---------------------------|---------------------------------------------------------|
//! | `invalid-lead`            | one of C0, C1, F5..FF, not followed by a continuation   |
//! | `unexpected-continuation` | 1..=3 bytes of 80..BF after a complete character        |
//! | `truncated-at-end`        | a proper prefix of a 2/3/4-byte character, at the end   |
//! | `truncated-interrupted`   | the same prefix followed by a non-continuation byte     |
//! | `overlong-2`              | a scalar ≤ U+007F in two bytes (C0/C1 xx)               |
//! | `overlong-3`              | a scalar ≤ U+07FF in three bytes (E0 80..9F xx)         |
//! | `overlong-4`              | a scalar ≤ U+FFFF in four bytes (F0 80..8F xx xx)       |
//! | `surrogate`               | one of D800..DFFF in three bytes (ED A0..BF xx)         |
//! | `cesu8-pair`              | an astral scalar as two encoded surrogates (CESU-8)     |
//! | `above-max`               | 110000..1FFFFF in four bytes (F4 90.., F5..F7)          |
//! | `legacy-5-6-byte`         | RFC 2279's five- and six-byte forms (F8..FD)            |
//!
//! A quarter of the overlong, surrogate, above-max and legacy patterns are cut to a prefix
//! of at least two bytes, which keeps the category (it is decided by the first two bytes).

use super::generator::Generator;
use super::text::random_text;
use crate::rng::Rng;
use crate::taxonomy::Category;

/// The generator's name in [`super::Origin::Generator`].
pub const NAME: &str = "faults";

/// Encodes `value` in the `length`-byte layout of RFC 2279 (1..=6 bytes), whether or not
/// that is the shortest form or a Unicode scalar: the lead byte carries `length` high one
/// bits, a zero, and the top value bits; each continuation byte is `10xxxxxx`.
///
/// This is how overlongs, surrogates, values above U+10FFFF and legacy forms are built.
///
/// # Panics
///
/// If `length` is not 1..=6 or `value` does not fit: it must be below `2^7` for one byte,
/// `2^(5 * length + 1)` otherwise.
pub fn encode_in_length(value: u32, length: usize) -> Vec<u8> {
    assert!((1..=6).contains(&length), "length {length}");
    if length == 1 {
        assert!(value < 0x80, "{value:#x} in one byte");
        return vec![value as u8];
    }
    let value_bits = 5 * length as u32 + 1;
    assert!(
        u64::from(value) < 1u64 << value_bits,
        "{value:#x} in {length} bytes"
    );
    let continuation_bits = 6 * (length as u32 - 1);
    let lead_marker = (0xFF00u16 >> length) as u8;
    let mut bytes = vec![lead_marker | (value >> continuation_bits) as u8];
    for shift in (0..length as u32 - 1).rev() {
        bytes.push(0x80 | ((value >> (6 * shift)) & 0x3F) as u8);
    }
    bytes
}

/// The CESU-8 form of an astral scalar (U+10000..U+10FFFF): its UTF-16 surrogate pair, each
/// surrogate encoded in three bytes.
///
/// # Panics
///
/// If `scalar` is not in U+10000..U+10FFFF.
pub fn cesu8_pair(scalar: u32) -> Vec<u8> {
    assert!((0x1_0000..=0x10_FFFF).contains(&scalar), "{scalar:#x}");
    let offset = scalar - 0x1_0000;
    let high = 0xD800 + (offset >> 10);
    let low = 0xDC00 + (offset & 0x3FF);
    let mut bytes = encode_in_length(high, 3);
    bytes.extend(encode_in_length(low, 3));
    bytes
}

/// A random scalar value encoded in `length` (2, 3 or 4) bytes: a valid character.
fn random_char_of_length(rng: &mut Rng, length: usize) -> char {
    let (low, high) = match length {
        2 => (0x80, 0x7FF),
        3 => (0x800, 0xFFFF),
        _ => (0x1_0000, 0x10_FFFF),
    };
    loop {
        if let Some(c) = char::from_u32(rng.in_range(low, high) as u32) {
            return c;
        }
    }
}

/// The bytes of one fault of `category`. `replaced` is the character the fault is
/// substituted for, if any; some patterns derive from it (its overlong or CESU-8 form, or
/// a prefix of it) when it fits.
///
/// # Panics
///
/// If `category` is not one of [`Category::ILL_FORMED`].
pub fn fault_bytes(rng: &mut Rng, category: Category, replaced: Option<char>) -> Vec<u8> {
    let replaced_scalar = replaced.map(u32::from);
    let scalar_at_most = |rng: &mut Rng, max: u32| match replaced_scalar {
        Some(scalar) if scalar <= max => scalar,
        _ => rng.in_range(0, u64::from(max)) as u32,
    };
    let mut bytes = match category {
        Category::InvalidLead => {
            let leads: Vec<u8> = [0xC0, 0xC1].into_iter().chain(0xF5..=0xFF).collect();
            vec![*rng.pick(&leads)]
        }
        Category::UnexpectedContinuation => {
            let count = rng.skewed_len(&[(6, 1, 1), (2, 2, 2), (1, 3, 3)]);
            (0..count).map(|_| rng.byte_in(0x80, 0xBF)).collect()
        }
        Category::TruncatedAtEnd | Category::TruncatedInterrupted => {
            let character = match replaced {
                Some(c) if c.len_utf8() > 1 => c,
                _ => {
                    let length = rng.in_range(2, 4) as usize;
                    random_char_of_length(rng, length)
                }
            };
            let mut encoded = character.to_string().into_bytes();
            let keep = rng.in_range(1, encoded.len() as u64 - 1) as usize;
            encoded.truncate(keep);
            return encoded;
        }
        Category::Overlong2 => encode_in_length(scalar_at_most(rng, 0x7F), 2),
        Category::Overlong3 => encode_in_length(scalar_at_most(rng, 0x7FF), 3),
        Category::Overlong4 => encode_in_length(scalar_at_most(rng, 0xFFFF), 4),
        Category::Surrogate => encode_in_length(rng.in_range(0xD800, 0xDFFF) as u32, 3),
        Category::Cesu8Pair => {
            let scalar = match replaced_scalar {
                Some(scalar) if scalar >= 0x1_0000 => scalar,
                _ => u32::from(random_char_of_length(rng, 4)),
            };
            return cesu8_pair(scalar);
        }
        Category::AboveMax => encode_in_length(rng.in_range(0x11_0000, 0x1F_FFFF) as u32, 4),
        Category::Legacy5Or6Byte => {
            if rng.chance(1, 2) {
                encode_in_length(rng.below(1 << 26) as u32, 5)
            } else {
                encode_in_length(rng.below(1 << 31) as u32, 6)
            }
        }
        other => panic!("{other} is not an ill-formed category"),
    };
    // Cut some multi-byte patterns short; the first two bytes keep the category.
    if bytes.len() > 2 && category != Category::UnexpectedContinuation && rng.chance(1, 4) {
        let keep = rng.in_range(2, bytes.len() as u64 - 1) as usize;
        bytes.truncate(keep);
    }
    bytes
}

/// Where a fault was put.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Site {
    /// Inserted between two characters.
    Inserted,
    /// Substituted for the character that followed the boundary.
    Substituted,
    /// Inserted between a lead byte and its continuation bytes.
    InsideCharacter,
    /// Appended at the end of the input.
    End,
}

/// One injected fault: what was put where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectedFault {
    /// The category injected.
    pub category: Category,
    /// Where the fault's bytes start in the output.
    pub offset: usize,
    /// How many bytes the fault is.
    pub len: usize,
    /// How the site was chosen.
    pub site: Site,
}

impl InjectedFault {
    /// True when the fault sits between characters (or at the end), where its category
    /// is guaranteed to survive into the reference decoder's error units.
    pub fn keeps_its_category(&self) -> bool {
        self.site != Site::InsideCharacter
    }
}

/// An input of the `faults` generator and a description of its fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Faulted {
    /// The bytes: valid text with one fault.
    pub bytes: Vec<u8>,
    /// The fault.
    pub fault: InjectedFault,
}

/// The `faults` generator: an unbounded sequence of texts of 1..=1024 bytes (before
/// injection), each with one fault, the categories in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultGenerator {
    seed: u64,
}

impl FaultGenerator {
    /// Size buckets `(weight, min, max)` of the carrier text.
    pub const SIZES: [(u64, usize, usize); 3] = [(4, 1, 16), (4, 17, 128), (2, 129, 1024)];

    /// The generator for a run seeded with `seed`.
    pub fn new(seed: u64) -> FaultGenerator {
        FaultGenerator { seed }
    }

    /// The category input `index` injects.
    pub fn category_of(index: u64) -> Category {
        Category::ILL_FORMED[(index % Category::ILL_FORMED.len() as u64) as usize]
    }

    /// Input `index` with the description of its fault.
    pub fn faulted(&self, index: u64) -> Faulted {
        let mut rng = Rng::for_input(self.seed, NAME, index);
        let category = Self::category_of(index);
        let max_len = rng.skewed_len(&Self::SIZES);
        let text = random_text(&mut rng, max_len);
        inject(&mut rng, &text, category)
    }
}

/// Injects one fault of the ill-formed `category` into valid `text` at a site drawn from
/// `rng` (see the module documentation for the sites). An empty `text` is taken as `"x"`,
/// so that there is a character for a truncation to be interrupted by.
///
/// # Panics
///
/// If `category` is not one of [`Category::ILL_FORMED`].
pub fn inject(rng: &mut Rng, text: &str, category: Category) -> Faulted {
    let text = if text.is_empty() { "x" } else { text };
    let boundaries: Vec<usize> = (0..=text.len())
        .filter(|&offset| text.is_char_boundary(offset))
        .collect();
    let insides: Vec<usize> = (0..text.len())
        .filter(|&offset| !text.is_char_boundary(offset))
        .collect();
    let site = if category == Category::TruncatedAtEnd {
        Site::End
    } else if !insides.is_empty() && rng.chance(1, 3) {
        Site::InsideCharacter
    } else if rng.chance(1, 2) {
        Site::Substituted
    } else {
        Site::Inserted
    };
    let (position, removed_len, replaced) = match site {
        Site::End => (text.len(), 0, None),
        Site::InsideCharacter => (*rng.pick(&insides), 0, None),
        Site::Inserted | Site::Substituted => {
            // A truncation needs a character after it to interrupt it: not the end.
            let last = if category == Category::TruncatedInterrupted {
                boundaries.len() - 1
            } else {
                boundaries.len()
            };
            let position = boundaries[rng.index(last)];
            match (site, text[position..].chars().next()) {
                (Site::Substituted, Some(next)) if position + next.len_utf8() < text.len() => {
                    (position, next.len_utf8(), Some(next))
                }
                _ => (position, 0, None),
            }
        }
    };
    let site = if site == Site::Substituted && replaced.is_none() {
        Site::Inserted
    } else {
        site
    };
    let fault = fault_bytes(rng, category, replaced);
    let text = text.as_bytes();
    let mut bytes = Vec::with_capacity(text.len() + fault.len());
    bytes.extend_from_slice(&text[..position]);
    bytes.extend_from_slice(&fault);
    bytes.extend_from_slice(&text[position + removed_len..]);
    Faulted {
        bytes,
        fault: InjectedFault {
            category,
            offset: position,
            len: fault.len(),
            site,
        },
    }
}

impl Generator for FaultGenerator {
    fn name(&self) -> &'static str {
        NAME
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn len_hint(&self) -> Option<u64> {
        None
    }

    fn bytes_at(&self, index: u64) -> Option<Vec<u8>> {
        Some(self.faulted(index).bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Reference;
    use crate::taxonomy::categories_of_units;

    fn reference_categories(bytes: &[u8]) -> Vec<Category> {
        let decoded = Reference::rfc3629().decode(bytes);
        categories_of_units(bytes, decoded.errors.iter().map(|e| (e.offset, e.len)))
    }

    #[test]
    fn encode_in_length_matches_std_for_shortest_forms() {
        for scalar in [0x41u32, 0x80, 0x7FF, 0x800, 0xFFFD, 0x1_0000, 0x10_FFFF] {
            let c = char::from_u32(scalar).unwrap();
            assert_eq!(
                encode_in_length(scalar, c.len_utf8()),
                c.to_string().into_bytes()
            );
        }
        assert_eq!(encode_in_length(0, 2), [0xC0, 0x80]);
        assert_eq!(encode_in_length(0x2F, 3), [0xE0, 0x80, 0xAF]);
        assert_eq!(encode_in_length(0xD800, 3), [0xED, 0xA0, 0x80]);
        assert_eq!(encode_in_length(0x11_0000, 4), [0xF4, 0x90, 0x80, 0x80]);
        assert_eq!(
            encode_in_length(0x3FF_FFFF, 5),
            [0xFB, 0xBF, 0xBF, 0xBF, 0xBF]
        );
        assert_eq!(
            encode_in_length(0x7FFF_FFFF, 6),
            [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]
        );
        assert_eq!(cesu8_pair(0x1F600), [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]);
    }

    #[test]
    fn every_ill_formed_category_is_produced_in_the_first_inputs() {
        let generator = FaultGenerator::new(1);
        let mut produced: Vec<Category> = Vec::new();
        for index in 0..(2 * Category::ILL_FORMED.len() as u64) {
            produced.extend(reference_categories(&generator.faulted(index).bytes));
        }
        for category in Category::ILL_FORMED {
            assert!(produced.contains(&category), "{category} not produced");
        }
    }

    #[test]
    fn faults_between_characters_keep_their_category() {
        for seed in [0, 1, 2] {
            let generator = FaultGenerator::new(seed);
            for index in 0..1100 {
                let Faulted { bytes, fault } = generator.faulted(index);
                assert_eq!(fault.category, FaultGenerator::category_of(index));
                let categories = reference_categories(&bytes);
                assert!(!categories.is_empty(), "input {index} is valid");
                if fault.keeps_its_category() {
                    assert!(
                        categories.contains(&fault.category),
                        "seed {seed} input {index}: {fault:?} in {} gave {categories:?}",
                        crate::hex::format_hex(&bytes)
                    );
                    // Around the fault the text is intact.
                    assert!(std::str::from_utf8(&bytes[..fault.offset]).is_ok());
                    assert!(std::str::from_utf8(&bytes[fault.offset + fault.len..]).is_ok());
                }
                if fault.site == Site::End {
                    assert_eq!(fault.offset + fault.len, bytes.len());
                }
            }
        }
    }

    #[test]
    fn inject_works_on_any_given_text() {
        let mut rng = Rng::new(12);
        for text in ["", "a", "é", "😀", "Привет, мир", "a😀b"] {
            for category in Category::ILL_FORMED {
                for _ in 0..20 {
                    let Faulted { bytes, fault } = inject(&mut rng, text, category);
                    assert_eq!(fault.category, category);
                    if fault.keeps_its_category() {
                        assert!(reference_categories(&bytes).contains(&category), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_site_kind_occurs() {
        let generator = FaultGenerator::new(4);
        let sites: std::collections::HashSet<Site> = (0..200)
            .map(|index| generator.faulted(index).fault.site)
            .collect();
        assert_eq!(sites.len(), 4, "{sites:?}");
    }

    #[test]
    fn same_seed_same_faults() {
        let a: Vec<_> = (0..50).map(|i| FaultGenerator::new(3).faulted(i)).collect();
        let b: Vec<_> = (0..50).map(|i| FaultGenerator::new(3).faulted(i)).collect();
        assert_eq!(a, b);
        assert_ne!(
            a[0..20],
            (0..20)
                .map(|i| FaultGenerator::new(4).faulted(i))
                .collect::<Vec<_>>()[..]
        );
    }
}
