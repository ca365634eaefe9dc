//! Chunk splits for streaming decoders, and the `chunking` generator of inputs for them.
//!
//! A streaming decoder sees its input in pieces and must carry an unfinished sequence
//! from one piece to the next: `E4 | BD A0` is one character, `E4 BD | 41` one truncation,
//! `ED | A0 80` a surrogate however it is cut. The bugs live in that carried state (a
//! partial sequence forgotten, a lookbehind not reset, an error reported at the wrong
//! offset), so the engine feeds each streaming decoder the same input under many
//! splittings and expects the same outcome as in one piece. [`chunkings`] lists them:
//!
//! 1. every split into two chunks, at each offset `1..len`;
//! 2. one byte per chunk (for inputs of 3 bytes or more; shorter ones are covered by 1);
//! 3. [`SEEDED_SPLITTINGS`] seeded splittings into chunks of skewed sizes (mostly 1..=3
//!    bytes, some up to 300), including *empty* chunks now and then: a decoder must treat
//!    an empty chunk as nothing, not as the end of input.
//!
//! A splitting is written as its chunk boundaries: a non-decreasing list of offsets in
//! `0..=len`; the chunks are the spans between `0`, the boundaries, and `len` (see
//! [`chunks`]). An empty list is the whole input in one chunk; a repeated offset, or `0`
//! or `len`, makes an empty chunk.
//!
//! The `chunking` generator makes short inputs (at most [`ChunkingGenerator::MAX_LEN`]
//! bytes) dense in multibyte characters and fault patterns, so that nearly every split
//! point of nearly every input cuts a character or an error: the inputs worth splitting
//! everywhere. Short, because the engine multiplies each by `len + 16` splittings.

use super::faults::{fault_bytes, PATTERNS};
use super::generator::Generator;
use super::rng::Rng;
use crate::taxonomy::Category;

/// The generator's name in [`super::Origin::Generator`].
pub const NAME: &str = "chunking";

/// How many seeded multi-chunk splittings [`chunkings`] adds after the systematic ones.
pub const SEEDED_SPLITTINGS: usize = 16;

/// Every splitting of an input of `bytes.len()` bytes to try (see the module
/// documentation), as chunk boundaries. The seeded splittings depend on `seed` and the
/// input's length only, so they are reproducible from a report.
pub fn chunkings(bytes: &[u8], seed: u64) -> impl Iterator<Item = Vec<usize>> {
    let len = bytes.len();
    let two_chunks = (1..len).map(|split| vec![split]);
    let byte_per_chunk = (len >= 3).then(|| (1..len).collect::<Vec<usize>>());
    let mut rng = Rng::for_input(seed, "chunkings", len as u64);
    let seeded = (0..SEEDED_SPLITTINGS).map(move |_| seeded_splitting(&mut rng, len));
    two_chunks.chain(byte_per_chunk).chain(seeded)
}

/// How many splittings [`chunkings`] yields for an input of `len` bytes.
pub fn chunking_count(len: usize) -> usize {
    len.saturating_sub(1) + usize::from(len >= 3) + SEEDED_SPLITTINGS
}

/// One splitting with chunk sizes skewed toward short ones, one chunk in sixteen empty.
fn seeded_splitting(rng: &mut Rng, len: usize) -> Vec<usize> {
    const SIZES: [(u64, usize, usize); 5] =
        [(1, 0, 0), (8, 1, 3), (4, 4, 16), (2, 17, 64), (1, 65, 300)];
    let mut boundaries = Vec::new();
    let mut position = 0;
    loop {
        position += rng.skewed_len(&SIZES);
        if position >= len {
            break;
        }
        boundaries.push(position);
    }
    if boundaries.is_empty() && len >= 2 {
        // The first chunk was drawn longer than the input: split it somewhere after all.
        boundaries.push(rng.in_range(1, len as u64 - 1) as usize);
    }
    if rng.chance(1, 8) {
        // An empty last chunk.
        boundaries.push(len);
    }
    boundaries
}

/// The chunks of `bytes` for the chunk `boundaries` (non-decreasing, each at most
/// `bytes.len()`), in order; empty chunks included.
pub fn chunks<'a>(bytes: &'a [u8], boundaries: &'a [usize]) -> impl Iterator<Item = &'a [u8]> {
    let starts = std::iter::once(0).chain(boundaries.iter().copied());
    let ends = boundaries
        .iter()
        .copied()
        .chain(std::iter::once(bytes.len()));
    starts.zip(ends).map(move |(start, end)| &bytes[start..end])
}

/// The `chunking` generator: an unbounded sequence of short inputs made of 1..=8 pieces,
/// each an ASCII byte, a valid 2-, 3- or 4-byte character, a canonical fault pattern or a
/// freshly generated fault of a random category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkingGenerator {
    seed: u64,
}

impl ChunkingGenerator {
    /// The longest input it makes.
    pub const MAX_LEN: usize = 32;

    /// The generator for a run seeded with `seed`.
    pub fn new(seed: u64) -> ChunkingGenerator {
        ChunkingGenerator { seed }
    }
}

impl Generator for ChunkingGenerator {
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
        const CHARACTERS: [char; 10] = [
            '\u{80}',
            'é',
            '\u{7FF}',
            '\u{800}',
            '中',
            '\u{FEFF}',
            '\u{FFFF}',
            '\u{10000}',
            '😀',
            '\u{10FFFF}',
        ];
        let mut rng = Rng::for_input(self.seed, NAME, index);
        let pieces = rng.in_range(1, 8);
        let mut bytes = Vec::new();
        for _ in 0..pieces {
            let piece: Vec<u8> = match rng.below(4) {
                0 => vec![rng.byte_in(0x20, 0x7E)],
                1 => rng.pick(&CHARACTERS).to_string().into_bytes(),
                2 => rng.pick(PATTERNS).bytes.to_vec(),
                _ => {
                    let category = *rng.pick(&Category::ILL_FORMED);
                    fault_bytes(&mut rng, category, None)
                }
            };
            if bytes.len() + piece.len() > Self::MAX_LEN {
                break;
            }
            bytes.extend(piece);
        }
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_splitting_reassembles_the_input() {
        for len in [0usize, 1, 2, 3, 7, 40, 700] {
            let bytes: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let splittings: Vec<Vec<usize>> = chunkings(&bytes, 9).collect();
            assert_eq!(splittings.len(), chunking_count(len), "len {len}");
            for boundaries in &splittings {
                assert!(boundaries.windows(2).all(|pair| pair[0] <= pair[1]));
                assert!(boundaries.iter().all(|&b| b <= len));
                let joined: Vec<u8> = chunks(&bytes, boundaries).flatten().copied().collect();
                assert_eq!(joined, bytes);
                assert_eq!(chunks(&bytes, boundaries).count(), boundaries.len() + 1);
            }
            // Every two-chunk split is there.
            for split in 1..len {
                assert!(splittings.contains(&vec![split]));
            }
            if len >= 3 {
                assert!(splittings.contains(&(1..len).collect::<Vec<_>>()));
            }
            // Seeded splittings of inputs of 2 bytes or more make at least two chunks.
            if len >= 2 {
                assert!(splittings.iter().all(|boundaries| !boundaries.is_empty()));
            }
        }
    }

    #[test]
    fn seeded_splittings_are_deterministic_and_vary_with_the_seed() {
        let bytes = [0u8; 200];
        let a: Vec<_> = chunkings(&bytes, 1).collect();
        assert_eq!(a, chunkings(&bytes, 1).collect::<Vec<_>>());
        assert_ne!(a, chunkings(&bytes, 2).collect::<Vec<_>>());
    }

    #[test]
    fn seeded_splittings_include_empty_and_multi_byte_chunks() {
        let bytes = [0u8; 100];
        let mut empty = 0;
        let mut many = 0;
        for seed in 0..20 {
            for boundaries in chunkings(&bytes, seed).skip(100) {
                empty += chunks(&bytes, &boundaries).filter(|c| c.is_empty()).count();
                many += usize::from(boundaries.len() > 3);
            }
        }
        assert!(
            empty > 0 && many > 100,
            "{empty} empty chunks, {many} splittings"
        );
    }

    #[test]
    fn chunking_inputs_are_short_and_dense_in_multibyte_sequences() {
        let generator = ChunkingGenerator::new(3);
        let mut non_ascii = 0;
        for index in 0..500 {
            let bytes = generator.bytes_at(index).unwrap();
            assert!(bytes.len() <= ChunkingGenerator::MAX_LEN);
            assert_eq!(Some(&bytes), generator.bytes_at(index).as_ref());
            non_ascii += usize::from(bytes.iter().any(|&b| b >= 0x80));
        }
        assert!(non_ascii > 400, "{non_ascii}");
    }
}
