//! Deterministic chunk plans for streaming decoders.
//!
//! A streaming decoder is only tested when its input arrives in pieces that cut through
//! sequences: `E2 | 82 AC`, `F0 9F | | 98 | 80`. The engine feeds each input once, so each
//! input gets one chunk plan, and that plan must be a function of the bytes alone: a report
//! is reproduced by decoding its minimised input again, which must be split the same way.
//! The plan is therefore drawn from a SplitMix64 generator seeded with the FNV-1a hash of
//! the input. Chunks are mostly 1 to 4 bytes long (so that every UTF-8 sequence length is
//! cut at every position somewhere in a corpus), sometimes up to 64 (so that a decoder's
//! bulk paths run too), and now and then empty (a legal call that decoders must accept).

use crate::stable_hash::fnv1a64;

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, one output per step.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The chunk plan of one input: an iterator over consecutive, possibly empty, sub-slices
/// that together are the whole input, in order.
#[derive(Debug, Clone)]
pub struct ChunkPlan<'a> {
    input: &'a [u8],
    position: usize,
    state: u64,
    finished: bool,
}

/// The chunk plan of `input` (deterministic: the same bytes always give the same plan).
pub fn chunk_plan(input: &[u8]) -> ChunkPlan<'_> {
    ChunkPlan {
        input,
        position: 0,
        state: fnv1a64(input),
        finished: false,
    }
}

impl<'a> Iterator for ChunkPlan<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.finished {
            return None;
        }
        let remaining = self.input.len() - self.position;
        let draw = splitmix64(&mut self.state);
        let wanted = match draw % 16 {
            0 => 0,
            1..=4 => 1 + (draw >> 8) as usize % 64,
            _ => 1 + (draw >> 8) as usize % 4,
        };
        let len = wanted.min(remaining);
        let chunk = &self.input[self.position..self.position + len];
        self.position += len;
        if self.position == self.input.len() && (len > 0 || remaining == 0) {
            self.finished = true;
        }
        Some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_concatenate_to_the_input_and_are_deterministic() {
        let input: Vec<u8> = (0..=255).collect();
        for len in [0, 1, 2, 3, 7, 100, 256] {
            let chunks: Vec<&[u8]> = chunk_plan(&input[..len]).collect();
            assert_eq!(chunks.concat(), &input[..len]);
            let again: Vec<&[u8]> = chunk_plan(&input[..len]).collect();
            assert_eq!(chunks, again);
        }
        let chunks: Vec<&[u8]> = chunk_plan(&input).collect();
        assert!(chunks.len() > 10, "a long input is cut many times");
    }
}
