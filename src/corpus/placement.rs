//! The `placement` generator: every fault pattern at every SIMD block boundary.
//!
//! Vectorised decoders validate input in blocks: 16 bytes for SSE and NEON, 32 for AVX2,
//! 64 for AVX-512 (or for a 4 × 16-byte unrolled loop). Their classic bugs are at the seams:
//! a sequence that starts in one block and ends in the next must be checked with the
//! previous block's last bytes (the "lookbehind"), a truncation in the last block must be
//! reported even though no next block comes, and the scalar tail after the last full block
//! is a separate code path. So this generator puts each canonical fault pattern
//! ([`super::patterns::PATTERNS`]) at exact offsets:
//!
//! 1. **Boundaries.** For each block boundary `B` in 16, 32, 64 and 128 (128 = two AVX-512
//!    blocks, so that a two-block lookbehind is crossed as well), the pattern starts at every
//!    offset from `B - len` (ending just before the boundary) to `B` (starting on it): so
//!    it starts at 15 or 16, 31 or 32, 63 or 64, 127 or 128, and straddles each boundary at
//!    every split of its bytes. After it comes either nothing (the error is at the end of
//!    input, in the tail) or 64 bytes of padding (the error is mid-stream).
//! 2. **Padding sweep.** With `p` in 0..=128 bytes of padding before the pattern and none
//!    after, none before and `p` after, and `p` on both sides (docs/DESIGN.md §6: "inputs padded
//!    0..=128 bytes so errors cross 16/32/64-byte boundaries").
//!
//! Padding is valid text of exactly the requested length, of one of five kinds: ASCII
//! (the fast path most decoders take), two-, three- or four-byte characters (so the bytes
//! next to the fault are continuation bytes of a *valid* character, which a broken
//! lookbehind mistakes for part of the error), and a seeded mix. When the length is not a
//! multiple of the character width, the ASCII remainder goes at the far end, keeping
//! multibyte characters next to the fault.
//!
//! The sequence is finite and enumerated in a fixed order (section 1 first); index ↔
//! parameters is a bijection, so [`PlacementGenerator::placement`] is constant-time.

use super::generator::Generator;
use super::patterns::{FaultPattern, PATTERNS};
use crate::rng::Rng;
use crate::taxonomy::Category;

/// The generator's name in [`super::Origin::Generator`].
pub const NAME: &str = "placement";

/// The block boundaries the patterns are placed around (SSE/NEON, AVX2, AVX-512, and two
/// AVX-512 blocks).
pub const BLOCK_BOUNDARIES: [usize; 4] = [16, 32, 64, 128];

/// The padding after a pattern placed at a boundary, when it is not at the end of input.
pub const MID_STREAM_PADDING: usize = 64;

/// The largest padding of the sweep.
pub const MAX_PADDING: usize = 128;

/// What the padding around a pattern is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Padding {
    /// ASCII letters.
    Ascii,
    /// Two-byte characters (é ж א).
    TwoByte,
    /// Three-byte characters (€ 中 한).
    ThreeByte,
    /// Four-byte characters (😀 𝄞).
    FourByte,
    /// A seeded mix of characters of every width.
    Mixed,
}

impl Padding {
    /// Every padding kind, in enumeration order.
    pub const ALL: [Padding; 5] = [
        Padding::Ascii,
        Padding::TwoByte,
        Padding::ThreeByte,
        Padding::FourByte,
        Padding::Mixed,
    ];

    fn characters(self) -> &'static [char] {
        match self {
            Padding::Ascii => &['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
            Padding::TwoByte => &['é', 'ж', 'א'],
            Padding::ThreeByte => &['€', '中', '한'],
            Padding::FourByte => &['😀', '𝄞'],
            Padding::Mixed => &['z', 'ß', 'Ω', 'ज', '語', '\u{FEFF}', '🎉', '\u{10FFFF}'],
        }
    }

    /// Exactly `len` bytes of valid text; the ASCII remainder (when `len` is not a multiple
    /// of the width) goes first when `remainder_first`, else last.
    fn text(self, len: usize, remainder_first: bool, rng: &mut Rng) -> Vec<u8> {
        let characters = self.characters();
        let mut pieces: Vec<char> = Vec::new();
        let mut filled = 0;
        if self == Padding::Mixed {
            while filled < len {
                let fitting: Vec<char> = characters
                    .iter()
                    .copied()
                    .filter(|c| c.len_utf8() <= len - filled)
                    .collect();
                let c = *rng.pick(&fitting);
                filled += c.len_utf8();
                pieces.push(c);
            }
        } else {
            let width = characters[0].len_utf8();
            for i in 0..len / width {
                pieces.push(characters[i % characters.len()]);
            }
            filled = len / width * width;
        }
        let remainder = std::iter::repeat_n('a', len - filled);
        let text: String = if remainder_first {
            remainder.chain(pieces).collect()
        } else {
            pieces.into_iter().chain(remainder).collect()
        };
        text.into_bytes()
    }
}

/// One input of the generator with the parameters that built it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The bytes: padding, pattern, padding.
    pub bytes: Vec<u8>,
    /// The pattern placed.
    pub pattern: FaultPattern,
    /// The category the pattern has where it is (a truncation at the end of input is
    /// `truncated-at-end`).
    pub category: Category,
    /// Offset of the pattern's first byte (= the padding before it).
    pub start: usize,
    /// Padding bytes after the pattern.
    pub after: usize,
    /// What the padding is made of.
    pub padding: Padding,
    /// The block boundary the pattern was placed around (section 1), or `None` (sweep).
    pub boundary: Option<usize>,
}

/// The `placement` generator (finite; see the module documentation for the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementGenerator {
    seed: u64,
}

/// The padding shapes of the sweep: `(before, after)` for padding `p`.
const SWEEP_SHAPES: usize = 3;

/// The afters of the boundary section.
const BOUNDARY_AFTERS: [usize; 2] = [0, MID_STREAM_PADDING];

impl PlacementGenerator {
    /// The generator for a run seeded with `seed` (the seed only chooses the characters of
    /// [`Padding::Mixed`]).
    pub fn new(seed: u64) -> PlacementGenerator {
        PlacementGenerator { seed }
    }

    /// Inputs of section 1 per pattern and padding kind: starts `B - len ..= B` at each
    /// boundary, each with each after.
    fn boundary_cases(pattern: &FaultPattern) -> u64 {
        ((pattern.bytes.len() + 1) * BLOCK_BOUNDARIES.len() * BOUNDARY_AFTERS.len()) as u64
    }

    /// The number of inputs of section 1.
    pub fn boundary_section_len() -> u64 {
        PATTERNS.iter().map(Self::boundary_cases).sum::<u64>() * Padding::ALL.len() as u64
    }

    /// The number of inputs of section 2.
    pub fn sweep_section_len() -> u64 {
        (PATTERNS.len() * Padding::ALL.len() * (MAX_PADDING + 1) * SWEEP_SHAPES) as u64
    }

    /// The total number of inputs.
    pub fn count() -> u64 {
        Self::boundary_section_len() + Self::sweep_section_len()
    }

    /// Input `index` with its parameters, or `None` past the end.
    pub fn placement(&self, index: u64) -> Option<Placement> {
        let kinds = Padding::ALL.len() as u64;
        let (pattern, padding, start, after, boundary) = if index < Self::boundary_section_len() {
            // Pattern-major; within a pattern: padding kind, boundary, start, after.
            let mut rest = index;
            let mut chosen = None;
            for pattern in PATTERNS {
                let cases = Self::boundary_cases(pattern) * kinds;
                if rest < cases {
                    chosen = Some(pattern);
                    break;
                }
                rest -= cases;
            }
            let pattern = chosen.expect("the index is inside section 1");
            let per_kind = Self::boundary_cases(pattern);
            let padding = Padding::ALL[(rest / per_kind) as usize];
            let rest = (rest % per_kind) as usize;
            let per_boundary = (pattern.bytes.len() + 1) * BOUNDARY_AFTERS.len();
            let boundary = BLOCK_BOUNDARIES[rest / per_boundary];
            let rest = rest % per_boundary;
            let start = boundary - pattern.bytes.len() + rest / BOUNDARY_AFTERS.len();
            let after = BOUNDARY_AFTERS[rest % BOUNDARY_AFTERS.len()];
            (pattern, padding, start, after, Some(boundary))
        } else {
            let rest = index - Self::boundary_section_len();
            if rest >= Self::sweep_section_len() {
                return None;
            }
            // Pattern-major; within a pattern: padding kind, p, shape.
            let per_pattern = kinds * (MAX_PADDING as u64 + 1) * SWEEP_SHAPES as u64;
            let pattern = &PATTERNS[(rest / per_pattern) as usize];
            let rest = rest % per_pattern;
            let per_kind = (MAX_PADDING as u64 + 1) * SWEEP_SHAPES as u64;
            let padding = Padding::ALL[(rest / per_kind) as usize];
            let rest = rest % per_kind;
            let p = (rest / SWEEP_SHAPES as u64) as usize;
            let (before, after) = match rest % SWEEP_SHAPES as u64 {
                0 => (p, 0),
                1 => (0, p),
                _ => (p, p),
            };
            (pattern, padding, before, after, None)
        };
        let mut rng = Rng::for_input(self.seed, NAME, index);
        let mut bytes = padding.text(start, true, &mut rng);
        bytes.extend_from_slice(pattern.bytes);
        bytes.extend(padding.text(after, false, &mut rng));
        let category = if after == 0 {
            pattern.category_at_end()
        } else {
            pattern.category
        };
        Some(Placement {
            bytes,
            pattern: *pattern,
            category,
            start,
            after,
            padding,
            boundary,
        })
    }
}

impl Generator for PlacementGenerator {
    fn name(&self) -> &'static str {
        NAME
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn len_hint(&self) -> Option<u64> {
        Some(Self::count())
    }

    fn bytes_at(&self, index: u64) -> Option<Vec<u8>> {
        self.placement(index).map(|placement| placement.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Reference;
    use crate::taxonomy::categories_of_units;
    use std::collections::HashSet;

    fn all_placements(seed: u64) -> impl Iterator<Item = Placement> {
        let generator = PlacementGenerator::new(seed);
        (0..PlacementGenerator::count()).map(move |i| generator.placement(i).unwrap())
    }

    #[test]
    fn offsets_and_paddings_are_what_they_claim() {
        let mut starts_per_boundary: HashSet<(usize, usize, usize)> = HashSet::new();
        let mut sweep: HashSet<(usize, usize, usize)> = HashSet::new();
        for placement in all_placements(1) {
            let len = placement.pattern.bytes.len();
            let end = placement.start + len;
            assert_eq!(
                &placement.bytes[placement.start..end],
                placement.pattern.bytes
            );
            assert_eq!(placement.bytes.len(), end + placement.after);
            let before = std::str::from_utf8(&placement.bytes[..placement.start]).unwrap();
            let after = std::str::from_utf8(&placement.bytes[end..]).unwrap();
            // Multibyte padding puts a multibyte character next to the pattern.
            let width = placement.padding.characters()[0].len_utf8();
            if placement.padding != Padding::Mixed && placement.start >= width {
                assert_eq!(before.chars().last().unwrap().len_utf8(), width);
            }
            if placement.padding != Padding::Mixed && placement.after >= width {
                assert_eq!(after.chars().next().unwrap().len_utf8(), width);
            }
            match placement.boundary {
                Some(boundary) => {
                    // The pattern starts at, ends at, or straddles the boundary.
                    assert!(placement.start <= boundary && end >= boundary);
                    starts_per_boundary.insert((boundary, placement.start, len));
                }
                None => {
                    let shape = (placement.start, placement.after, len);
                    sweep.insert(shape);
                }
            }
        }
        for boundary in BLOCK_BOUNDARIES {
            for len in 1..=6 {
                // For one byte: 15/16, 31/32, 63/64, 127/128.
                for start in boundary - len..=boundary {
                    assert!(starts_per_boundary.contains(&(boundary, start, len)));
                }
            }
        }
        for p in 0..=MAX_PADDING {
            assert!(sweep.contains(&(p, 0, 1)) && sweep.contains(&(0, p, 1)));
            assert!(sweep.contains(&(p, p, 6)));
        }
    }

    #[test]
    fn the_reference_sees_the_claimed_error_at_the_claimed_offset() {
        let reference = Reference::rfc3629();
        for placement in all_placements(2) {
            let decoded = reference.decode(&placement.bytes);
            assert_eq!(decoded.errors[0].offset, placement.start, "{placement:?}");
            let categories = categories_of_units(
                &placement.bytes,
                decoded.errors.iter().map(|e| (e.offset, e.len)),
            );
            assert_eq!(categories, vec![placement.category], "{placement:?}");
        }
    }

    #[test]
    fn count_is_exact_and_regeneration_is_stable() {
        let generator = PlacementGenerator::new(7);
        let count = PlacementGenerator::count();
        assert_eq!(generator.len_hint(), Some(count));
        assert!(generator.placement(count).is_none());
        let distinct: HashSet<Vec<u8>> = (0..count)
            .filter_map(|i| generator.bytes_at(i))
            .filter(|bytes| bytes.len() > 1)
            .collect();
        // Duplicates come only from the sweep's (0, 0) shapes and identical shapes of
        // different kinds at p = 0; almost every input is distinct.
        assert!(
            distinct.len() as u64 > count * 9 / 10,
            "{} of {count}",
            distinct.len()
        );
        assert_eq!(
            generator.placement(12345),
            PlacementGenerator::new(7).placement(12345)
        );
    }
}
