//! The input space of `utf8conf exhaustive`: every input of 0 to `max_len` bytes, cut
//! into blocks, and the blocks dealt to shards.
//!
//! Inputs are numbered by length, then lexicographically (the first byte varies slowest),
//! the order of the `exhaustive` generator of [`crate::corpus::exhaustive`] for the
//! lengths it covers. A *block* is every input of one length that shares all but its last
//! two bytes: 65,536 inputs (the lengths 0, 1 and 2 are one block each). Shard `I/N`
//! takes the blocks whose number is `I - 1` modulo `N`, so shards are as even as the
//! blocks allow, and together they hold every input exactly once.

use std::fmt;
use std::str::FromStr;

/// The longest inputs `exhaustive` accepts: 256^5 (1.1 x 10^12) inputs of 5 bytes is
/// already days of work per decoder; 6 would overflow nothing but patience.
pub const MAX_LEN_LIMIT: usize = 5;

/// Inputs per block of length 2 or more: the last two bytes vary.
pub const BLOCK_INPUTS: u64 = 1 << 16;

/// One shard of the space, `index` of `count` (1-based: `1/4` .. `4/4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u64,
    /// How many shards.
    pub count: u64,
}

impl Shard {
    /// The whole space.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Whether block `block` belongs to this shard.
    pub fn owns(self, block: u64) -> bool {
        block % self.count == self.index - 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `I/N` with `1 <= I <= N`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let invalid = || format!("shard '{text}' must be I/N with 1 <= I <= N, e.g. 2/4");
        let (index, count) = text.split_once('/').ok_or_else(invalid)?;
        let index: u64 = index.trim().parse().map_err(|_| invalid())?;
        let count: u64 = count.trim().parse().map_err(|_| invalid())?;
        if index == 0 || index > count {
            return Err(invalid());
        }
        Ok(Shard { index, count })
    }
}

/// Every input of up to `max_len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    max_len: usize,
}

/// One block: inputs `first_index .. first_index + count` of the space, all `len` bytes
/// long, all starting with `prefix` (its `len - 2` bytes, big-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// The block's number in the space.
    pub number: u64,
    /// The length of its inputs.
    pub len: usize,
    /// The bytes all its inputs start with, as a big-endian number of `len - 2` bytes.
    pub prefix: u64,
    /// The index of its first input in the space.
    pub first_index: u64,
    /// How many inputs it holds.
    pub count: u64,
}

impl Block {
    /// Writes input `i` of the block (`i < count`) into `out` (exactly `len` bytes).
    pub fn input(&self, i: u64, out: &mut [u8]) {
        let len = self.len;
        let value = if len >= 2 { (self.prefix << 16) | i } else { i };
        for (k, byte) in out[..len].iter_mut().enumerate() {
            *byte = (value >> (8 * (len - 1 - k))) as u8;
        }
    }
}

impl Space {
    /// The space of inputs up to `max_len` bytes; `None` above [`MAX_LEN_LIMIT`].
    pub fn new(max_len: usize) -> Option<Space> {
        (max_len <= MAX_LEN_LIMIT).then_some(Space { max_len })
    }

    /// The longest input length.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Number of inputs: 1 + 256 + ... + 256^max_len.
    pub fn inputs(&self) -> u64 {
        (0..=self.max_len).map(|len| 256u64.pow(len as u32)).sum()
    }

    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        (0..=self.max_len).map(blocks_of_len).sum()
    }

    /// Block number `number` (< [`Space::blocks`]).
    pub fn block(&self, number: u64) -> Block {
        let mut rest = number;
        let mut first_index = 0;
        for len in 0..=self.max_len {
            let blocks = blocks_of_len(len);
            let inputs = 256u64.pow(len as u32);
            if rest < blocks {
                let count = inputs_per_block(len);
                return Block {
                    number,
                    len,
                    prefix: rest,
                    first_index: first_index + rest * count,
                    count,
                };
            }
            rest -= blocks;
            first_index += inputs;
        }
        panic!(
            "block {number} is outside the space of {} blocks",
            self.blocks()
        )
    }

    /// Number of inputs in `shard`.
    pub fn shard_inputs(&self, shard: Shard) -> u64 {
        // Blocks of one length have the same size; count the shard's blocks per length.
        let mut start = 0;
        let mut total = 0;
        for len in 0..=self.max_len {
            let blocks = blocks_of_len(len);
            let per_block = inputs_per_block(len);
            let owned = owned_in_range(shard, start, start + blocks);
            total += owned * per_block;
            start += blocks;
        }
        total
    }
}

/// Inputs in each block of inputs of `len` bytes: 1 for the empty input, 256 for one
/// byte, [`BLOCK_INPUTS`] for longer inputs (those sharing all but their last two bytes).
pub fn inputs_per_block(len: usize) -> u64 {
    256u64.pow(len as u32) / blocks_of_len(len)
}

/// Blocks of inputs of `len` bytes.
fn blocks_of_len(len: usize) -> u64 {
    if len <= 2 {
        1
    } else {
        256u64.pow(len as u32 - 2)
    }
}

/// Blocks in `start..end` that `shard` owns.
fn owned_in_range(shard: Shard, start: u64, end: u64) -> u64 {
    // Block b is owned iff b = index - 1 + k * count.
    let below = |n: u64| -> u64 {
        // Owned blocks in 0..n.
        let first = shard.index - 1;
        if n <= first {
            0
        } else {
            (n - first - 1) / shard.count + 1
        }
    };
    below(end) - below(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_number_inputs_in_order() {
        let space = Space::new(3).unwrap();
        assert_eq!(space.inputs(), 16_843_009);
        assert_eq!(space.blocks(), 3 + 256);
        let mut expected_index = 0;
        let mut previous: Option<Vec<u8>> = None;
        for number in 0..space.blocks() {
            let block = space.block(number);
            assert_eq!(block.first_index, expected_index);
            expected_index += block.count;
            let mut bytes = vec![0u8; block.len];
            let ends = if block.count == 1 {
                vec![0]
            } else {
                vec![0, block.count - 1]
            };
            for i in ends {
                block.input(i, &mut bytes);
                if let Some(previous) = &previous {
                    // Length first, then lexicographic.
                    assert!(
                        (previous.len(), previous.as_slice()) < (bytes.len(), bytes.as_slice())
                    );
                }
                previous = Some(bytes.clone());
            }
        }
        assert_eq!(expected_index, space.inputs());
        let block = space.block(3 + 0x41);
        let mut bytes = [0u8; 3];
        block.input(0xE282, &mut bytes);
        assert_eq!(bytes, [0x41, 0xE2, 0x82]);
    }

    /// Every input of up to 3 bytes is in exactly one shard, for several shard counts.
    #[test]
    fn shards_cover_every_input_exactly_once() {
        let space = Space::new(3).unwrap();
        for count in [1, 2, 3, 7, 300] {
            let mut seen = vec![0u8; space.inputs() as usize];
            let mut per_shard = 0;
            for index in 1..=count {
                let shard = Shard { index, count };
                let mut inputs = 0;
                for number in (0..space.blocks()).filter(|&b| shard.owns(b)) {
                    let block = space.block(number);
                    for i in block.first_index..block.first_index + block.count {
                        seen[i as usize] += 1;
                    }
                    inputs += block.count;
                }
                assert_eq!(inputs, space.shard_inputs(shard), "{shard}");
                per_shard += inputs;
            }
            assert_eq!(per_shard, space.inputs());
            assert!(seen.iter().all(|&n| n == 1), "{count} shards");
        }
    }

    #[test]
    fn shards_parse() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "1", "a/b", "1/0", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert!(Space::new(MAX_LEN_LIMIT + 1).is_none());
        assert_eq!(Space::new(4).unwrap().inputs(), 4_311_810_305);
    }
}
