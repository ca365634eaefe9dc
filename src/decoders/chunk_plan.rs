//! Deterministic chunk plans for streaming decoders.
//!
//! A streaming decoder is only tested when its input arrives in pieces that cut through
//! sequences: `E2 | 82 AC`, `F0 9F | | 98 80`. [`crate::corpus::chunking::chunkings`] lists
//! the splittings worth trying for an input (every two-chunk split, one byte per chunk,
//! seeded multi-chunk splittings with empty chunks). The engine feeds each input to a
//! streaming decoder once, so each input gets *one* of them, and that choice must depend on
//! the bytes alone: a report is reproduced by decoding its minimised input again, which
//! must be split the same way. The plan is therefore the splitting whose position in
//! `chunkings(input, CHUNKING_SEED)` is the input's FNV-1a hash modulo their number. Over
//! a corpus of millions of inputs every kind of splitting is exercised; trying *every*
//! splitting of each input is the streaming decoders' own test suites' job.

use crate::corpus::chunking::{chunking_count, chunkings, chunks};
use crate::stable_hash::fnv1a64;

/// The seed of the seeded splittings: fixed, so that a plan depends on the input alone.
pub const CHUNKING_SEED: u64 = 0;

/// The chunk boundaries of `input`'s plan (see [`crate::corpus::chunking::chunks`]).
pub fn chunk_boundaries(input: &[u8]) -> Vec<usize> {
    let count = chunking_count(input.len()) as u64;
    let choice = fnv1a64(input) % count.max(1);
    chunkings(input, CHUNKING_SEED)
        .nth(choice as usize)
        .unwrap_or_default()
}

/// Calls `feed(chunk)` for each chunk of `input`'s plan, in order.
pub fn for_each_chunk(input: &[u8], mut feed: impl FnMut(&[u8])) {
    let boundaries = chunk_boundaries(input);
    for chunk in chunks(input, &boundaries) {
        feed(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_concatenate_to_the_input_and_are_deterministic() {
        let input: Vec<u8> = (0..=255).collect();
        let mut cut_somewhere = false;
        for len in [0, 1, 2, 3, 7, 100, 256] {
            let mut pieces: Vec<Vec<u8>> = Vec::new();
            for_each_chunk(&input[..len], |chunk| pieces.push(chunk.to_vec()));
            assert_eq!(pieces.concat(), &input[..len]);
            cut_somewhere |= pieces.len() > 1;
            assert_eq!(
                chunk_boundaries(&input[..len]),
                chunk_boundaries(&input[..len])
            );
        }
        assert!(cut_somewhere);
    }
}
