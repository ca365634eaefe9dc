//! Canonical fault patterns: the bytes of each ill-formed category at the edges of Unicode
//! Table 3-7 (§3.9), used where a generator places a known fault at chosen offsets
//! (`placement`) or builds short structured inputs (`chunking`).

use crate::taxonomy::Category;

/// A fixed fault pattern: the canonical bytes of one category, for placing at chosen
/// offsets (the `placement` generator) and for short structured inputs (`chunking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultPattern {
    /// The category when more text follows the pattern.
    pub category: Category,
    /// The bytes.
    pub bytes: &'static [u8],
}

impl FaultPattern {
    /// The category when the pattern is the last thing in the input: a truncation then
    /// runs to the end of input; every other pattern keeps its category.
    pub fn category_at_end(&self) -> Category {
        match self.category {
            Category::TruncatedInterrupted => Category::TruncatedAtEnd,
            other => other,
        }
    }
}

const fn pattern(category: Category, bytes: &'static [u8]) -> FaultPattern {
    FaultPattern { category, bytes }
}

/// Canonical fault patterns, several per category: the edges of each ill-formed range of
/// Unicode Table 3-7 and the classic examples (Modified UTF-8's `C0 80`, WTF-8's lone
/// surrogate, U+1F600 in CESU-8, RFC 2279's 5- and 6-byte forms).
pub const PATTERNS: &[FaultPattern] = &[
    pattern(Category::InvalidLead, &[0xC0]),
    pattern(Category::InvalidLead, &[0xC1]),
    pattern(Category::InvalidLead, &[0xF5]),
    pattern(Category::InvalidLead, &[0xFF]),
    pattern(Category::UnexpectedContinuation, &[0x80]),
    pattern(Category::UnexpectedContinuation, &[0xBF]),
    pattern(Category::UnexpectedContinuation, &[0x80, 0xBF, 0x90]),
    // A truncated character is interrupted by what follows, or at the end of input.
    pattern(Category::TruncatedInterrupted, &[0xC3]),
    pattern(Category::TruncatedInterrupted, &[0xE4, 0xBD]),
    pattern(Category::TruncatedInterrupted, &[0xF0, 0x9F, 0x98]),
    pattern(Category::TruncatedInterrupted, &[0xF4, 0x8F]),
    pattern(Category::Overlong2, &[0xC0, 0x80]),
    pattern(Category::Overlong2, &[0xC1, 0xBF]),
    pattern(Category::Overlong3, &[0xE0, 0x80, 0x80]),
    pattern(Category::Overlong3, &[0xE0, 0x9F, 0xBF]),
    pattern(Category::Overlong4, &[0xF0, 0x80, 0x80, 0x80]),
    pattern(Category::Overlong4, &[0xF0, 0x8F, 0xBF, 0xBF]),
    pattern(Category::Surrogate, &[0xED, 0xA0, 0x80]),
    pattern(Category::Surrogate, &[0xED, 0xBF, 0xBF]),
    pattern(Category::Cesu8Pair, &[0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]),
    pattern(Category::AboveMax, &[0xF4, 0x90, 0x80, 0x80]),
    pattern(Category::AboveMax, &[0xF7, 0xBF, 0xBF, 0xBF]),
    pattern(Category::Legacy5Or6Byte, &[0xF8, 0x88, 0x80, 0x80, 0x80]),
    pattern(
        Category::Legacy5Or6Byte,
        &[0xFC, 0x84, 0x80, 0x80, 0x80, 0x80],
    ),
];

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
    fn canonical_patterns_cover_every_category_and_classify_as_claimed() {
        for category in Category::ILL_FORMED {
            assert!(
                PATTERNS
                    .iter()
                    .any(|p| p.category == category || p.category_at_end() == category),
                "{category}"
            );
        }
        for pattern in PATTERNS {
            let mut followed = pattern.bytes.to_vec();
            followed.push(b'a');
            assert!(reference_categories(&followed).contains(&pattern.category));
            assert!(reference_categories(pattern.bytes).contains(&pattern.category_at_end()));
        }
    }
}
