//! The `chunking` generator: short inputs worth cutting everywhere, for the streaming
//! decoders.
//!
//! A streaming decoder must carry an unfinished sequence from one chunk to the next; the
//! engine cuts each input by its chunk plan ([`crate::decoders::chunk_plan`]). This
//! generator makes short inputs (at most [`ChunkingGenerator::MAX_LEN`] bytes) dense in
//! multibyte characters and fault patterns, so that nearly every split point of nearly
//! every input cuts a character or an error.

use super::faults::fault_bytes;
use super::generator::Generator;
use super::patterns::PATTERNS;
use crate::rng::Rng;
use crate::taxonomy::Category;

/// The generator's name in [`super::Origin::Generator`].
pub const NAME: &str = "chunking";

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
