//! Bounded-exhaustive inputs: every short input, and every longer one over boundary bytes.
//!
//! Random testing samples; enumeration proves. Every UTF-8 decision is local (a lead byte
//! and at most three more bytes), so a decoder that agrees with the reference on *every*
//! input of length ≤ 3 has no bug in how it classifies a lead and its first two followers,
//! and one that agrees on every input of length 4..=6 over the *class boundary bytes*
//! below has been shown every combination of ranges the specification distinguishes, with
//! room for an error unit followed by another character.
//!
//! Three generators, all with an index ↔ bytes bijection, so [`super::regenerate`] is O(1)
//! and nothing is ever materialised:
//!
//! - `exhaustive` ([`ShortInputs`]): all 16,843,009 inputs of length 0..=3 (1 + 256 +
//!   65,536 + 16,777,216), ordered by length, then lexicographically (the first byte
//!   varies slowest).
//! - `exhaustive-boundary` ([`BoundaryInputs`]): all inputs of length 4, 5 and 6 over the
//!   24 [`EDGE_ALPHABET`]: 24^4 + 24^5 + 24^6 = 199,397,376 inputs, in the same order.
//!   Too many for a one-minute run through several decoders, so the engine bounds it by
//!   budget or uses the sampler.
//! - `exhaustive-boundary-sampled` ([`BoundarySample`]): the same space in a seeded
//!   pseudo-random order, a permutation (a 4-round Feistel network over 28 bits with cycle
//!   walking, see [`Permutation`]), so any prefix of it is a uniform sample *without repetition*, and input `i`
//!   is still computed in constant (expected) time.
//!
//! ## The boundary bytes
//!
//! Unicode Table 3-7 (Well-Formed UTF-8 Byte Sequences) splits the byte values into 14
//! classes, runs of bytes that every cell of the table treats alike
//! ([`crate::byte_class::TABLE_3_7_CLASSES`], with the role of each). [`EDGE_ALPHABET`] is
//! the first and last byte of each class, 24 bytes: a decoder whose range check is off by
//! one at any edge of the table disagrees with the reference on some input over them.
//!
use super::generator::Generator;
use crate::byte_class::table_3_7_edges;
use crate::rng::{fnv1a, mix64, Rng};

/// The name of [`ShortInputs`].
pub const SHORT_NAME: &str = "exhaustive";
/// The name of [`BoundaryInputs`].
pub const BOUNDARY_NAME: &str = "exhaustive-boundary";
/// The name of [`BoundarySample`].
pub const BOUNDARY_SAMPLE_NAME: &str = "exhaustive-boundary-sampled";

/// The alphabet of `exhaustive-boundary`: both edges of each Table 3-7 byte class
/// ([`crate::byte_class::table_3_7_edges`]), 24 bytes in increasing order.
///
/// It differs from `check`'s `boundary-3-4` alphabet (22 bytes): this one runs inputs of
/// length 4..=6 and goes by Table 3-7 alone, so it takes *both* ends of every class (an
/// off-by-one at either end of a lead range is met); F5..FF is one class here, whose edges
/// F5 and FF also stand for RFC 2279's leads. Its size is pinned: the count
/// 24⁴ + 24⁵ + 24⁶ = 199,397,376 and the order of the inputs are documented.
pub const EDGE_ALPHABET: [u8; 24] = table_3_7_edges();

/// The number of inputs of length 0..=3: 1 + 256 + 256² + 256³.
pub const SHORT_COUNT: u64 = 1 + 256 + 65_536 + 16_777_216;

/// Input `index` of the length ≤ 3 enumeration, or `None` past its end.
pub fn short_input(index: u64) -> Option<Vec<u8>> {
    let mut rest = index;
    for length in 0..=3u32 {
        let count = 256u64.pow(length);
        if rest < count {
            return Some(digits(rest, 256, length as usize));
        }
        rest -= count;
    }
    None
}

/// The index of `bytes` in the length ≤ 3 enumeration (the inverse of [`short_input`]).
pub fn short_index(bytes: &[u8]) -> Option<u64> {
    if bytes.len() > 3 {
        return None;
    }
    let before: u64 = (0..bytes.len() as u32)
        .map(|length| 256u64.pow(length))
        .sum();
    let within = bytes
        .iter()
        .fold(0u64, |value, &byte| value * 256 + u64::from(byte));
    Some(before + within)
}

/// `value` as `length` base-`base` digits, most significant first.
fn digits(mut value: u64, base: u64, length: usize) -> Vec<u8> {
    let mut out = vec![0u8; length];
    for slot in out.iter_mut().rev() {
        *slot = (value % base) as u8;
        value /= base;
    }
    out
}

/// The lengths of the boundary enumeration.
pub const BOUNDARY_LENGTHS: std::ops::RangeInclusive<u32> = 4..=6;

/// The number of inputs of length 4..=6 over [`EDGE_ALPHABET`]: 24⁴ + 24⁵ + 24⁶.
pub const BOUNDARY_COUNT: u64 = 331_776 + 7_962_624 + 191_102_976;

/// Input `index` of the boundary-byte enumeration, or `None` past its end.
pub fn boundary_input(index: u64) -> Option<Vec<u8>> {
    let base = EDGE_ALPHABET.len() as u64;
    let mut rest = index;
    for length in BOUNDARY_LENGTHS {
        let count = base.pow(length);
        if rest < count {
            let positions = digits(rest, base, length as usize);
            return Some(
                positions
                    .into_iter()
                    .map(|p| EDGE_ALPHABET[p as usize])
                    .collect(),
            );
        }
        rest -= count;
    }
    None
}

/// The index of `bytes` in the boundary-byte enumeration (the inverse of
/// [`boundary_input`]); `None` if a byte is not a boundary byte or the length is not 4..=6.
pub fn boundary_index(bytes: &[u8]) -> Option<u64> {
    let base = EDGE_ALPHABET.len() as u64;
    let length = bytes.len() as u32;
    if !BOUNDARY_LENGTHS.contains(&length) {
        return None;
    }
    let before: u64 = (*BOUNDARY_LENGTHS.start()..length)
        .map(|l| base.pow(l))
        .sum();
    let mut within = 0u64;
    for byte in bytes {
        let position = EDGE_ALPHABET.iter().position(|b| b == byte)?;
        within = within * base + position as u64;
    }
    Some(before + within)
}

/// `exhaustive`: every input of length 0..=3 (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortInputs {
    seed: u64,
}

impl ShortInputs {
    /// The enumeration, labelled with the run's seed (which it does not use).
    pub fn new(seed: u64) -> ShortInputs {
        ShortInputs { seed }
    }
}

impl Generator for ShortInputs {
    fn name(&self) -> &'static str {
        SHORT_NAME
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn len_hint(&self) -> Option<u64> {
        Some(SHORT_COUNT)
    }

    fn bytes_at(&self, index: u64) -> Option<Vec<u8>> {
        short_input(index)
    }
}

/// `exhaustive-boundary`: every input of length 4..=6 over the boundary bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundaryInputs {
    seed: u64,
}

impl BoundaryInputs {
    /// The enumeration, labelled with the run's seed (which it does not use).
    pub fn new(seed: u64) -> BoundaryInputs {
        BoundaryInputs { seed }
    }
}

impl Generator for BoundaryInputs {
    fn name(&self) -> &'static str {
        BOUNDARY_NAME
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn len_hint(&self) -> Option<u64> {
        Some(BOUNDARY_COUNT)
    }

    fn bytes_at(&self, index: u64) -> Option<Vec<u8>> {
        boundary_input(index)
    }
}

/// A seeded permutation of `0..domain` (`domain` up to 2^62): a balanced Feistel network
/// over the smallest even number of bits `2h` with `2^(2h) >= domain`, which is a bijection
/// on `0..2^(2h)` whatever its round function, restricted to `0..domain` by cycle walking
/// (apply it again while the result is out of range; the walk ends because its start is in
/// range, and takes fewer than 4 steps on average since `domain > 2^(2h) / 4`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    round_keys: [u64; 4],
    half_bits: u32,
    domain: u64,
}

impl Permutation {
    /// The permutation of `0..domain` for `seed`.
    pub fn new(seed: u64, domain: u64) -> Permutation {
        assert!(domain > 0 && domain <= 1 << 62, "domain {domain}");
        let mut half_bits = 1;
        while 1u64 << (2 * half_bits) < domain {
            half_bits += 1;
        }
        let mut rng = Rng::new(mix64(seed ^ fnv1a(BOUNDARY_SAMPLE_NAME)));
        let round_keys = [
            rng.next_u64(),
            rng.next_u64(),
            rng.next_u64(),
            rng.next_u64(),
        ];
        Permutation {
            round_keys,
            half_bits,
            domain,
        }
    }

    fn feistel(&self, value: u64) -> u64 {
        let half_mask = (1u64 << self.half_bits) - 1;
        let mut left = value >> self.half_bits;
        let mut right = value & half_mask;
        for key in self.round_keys {
            let mixed = mix64(right ^ key) & half_mask;
            (left, right) = (right, left ^ mixed);
        }
        (left << self.half_bits) | right
    }

    /// The image of `index` (`index < domain`).
    pub fn apply(&self, index: u64) -> u64 {
        assert!(index < self.domain, "{index} outside 0..{}", self.domain);
        let mut value = self.feistel(index);
        while value >= self.domain {
            value = self.feistel(value);
        }
        value
    }
}

/// `exhaustive-boundary-sampled`: the boundary-byte enumeration in a seeded order without
/// repetition; input `i` is `boundary_input(permutation(i))`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundarySample {
    seed: u64,
    permutation: Permutation,
}

impl BoundarySample {
    /// The sampler for a run seeded with `seed`.
    pub fn new(seed: u64) -> BoundarySample {
        BoundarySample {
            seed,
            permutation: Permutation::new(seed, BOUNDARY_COUNT),
        }
    }

    /// The index in the [`BoundaryInputs`] enumeration of sample `index`.
    pub fn enumeration_index(&self, index: u64) -> Option<u64> {
        (index < BOUNDARY_COUNT).then(|| self.permutation.apply(index))
    }
}

impl Generator for BoundarySample {
    fn name(&self) -> &'static str {
        BOUNDARY_SAMPLE_NAME
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn len_hint(&self) -> Option<u64> {
        Some(BOUNDARY_COUNT)
    }

    fn bytes_at(&self, index: u64) -> Option<Vec<u8>> {
        boundary_input(self.enumeration_index(index)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::byte_class::TABLE_3_7_CLASSES;
    use std::collections::HashSet;

    #[test]
    fn the_edge_alphabet_is_both_ends_of_every_table_3_7_class() {
        // Pinned: the documented count and order of `exhaustive-boundary` rest on it.
        let pinned = [
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        assert_eq!(EDGE_ALPHABET, pinned);
        for class in TABLE_3_7_CLASSES {
            assert!(EDGE_ALPHABET.contains(&class.first), "{class:?}");
            assert!(EDGE_ALPHABET.contains(&class.last), "{class:?}");
        }
        assert_eq!(BOUNDARY_COUNT, 199_397_376);
    }

    #[test]
    fn short_enumeration_is_a_bijection_in_the_documented_order() {
        assert_eq!(SHORT_COUNT, 16_843_009);
        assert_eq!(short_input(0), Some(vec![]));
        assert_eq!(short_input(1), Some(vec![0x00]));
        assert_eq!(short_input(256), Some(vec![0xFF]));
        assert_eq!(short_input(257), Some(vec![0x00, 0x00]));
        assert_eq!(short_input(258), Some(vec![0x00, 0x01]));
        assert_eq!(short_input(SHORT_COUNT - 1), Some(vec![0xFF, 0xFF, 0xFF]));
        assert_eq!(short_input(SHORT_COUNT), None);
        // Every input up to length 2, and a stride through length 3.
        let mut previous: Option<Vec<u8>> = None;
        for index in (0..65_793).chain((65_793..SHORT_COUNT).step_by(997)) {
            let bytes = short_input(index).unwrap();
            assert_eq!(short_index(&bytes), Some(index));
            if let Some(previous) = previous {
                assert!((previous.len(), &previous) < (bytes.len(), &bytes));
            }
            previous = Some(bytes);
        }
    }

    #[test]
    fn boundary_enumeration_is_a_bijection_in_the_documented_order() {
        assert_eq!(BOUNDARY_COUNT, 24u64.pow(4) + 24u64.pow(5) + 24u64.pow(6));
        assert_eq!(boundary_input(0), Some(vec![0x00; 4]));
        assert_eq!(boundary_input(1), Some(vec![0x00, 0x00, 0x00, 0x7F]));
        assert_eq!(boundary_input(331_776), Some(vec![0x00; 5]));
        assert_eq!(boundary_input(BOUNDARY_COUNT - 1), Some(vec![0xFF; 6]));
        assert_eq!(boundary_input(BOUNDARY_COUNT), None);
        for index in (0..BOUNDARY_COUNT)
            .step_by(9_973)
            .chain([331_775, 331_776, 8_294_399, 8_294_400])
        {
            let bytes = boundary_input(index).unwrap();
            assert_eq!(boundary_index(&bytes), Some(index));
        }
        assert_eq!(boundary_index(&[0x41; 4]), None);
        assert_eq!(boundary_index(&[0x00; 3]), None);
    }

    #[test]
    fn the_sampler_is_a_seeded_permutation() {
        let sample = BoundarySample::new(5);
        let mut seen = HashSet::new();
        let mut lengths = HashSet::new();
        for index in 0..20_000 {
            let position = sample.enumeration_index(index).unwrap();
            assert!(position < BOUNDARY_COUNT);
            assert!(seen.insert(position), "repeated {position}");
            let bytes = sample.bytes_at(index).unwrap();
            assert_eq!(boundary_index(&bytes), Some(position));
            lengths.insert(bytes.len());
        }
        assert_eq!(lengths.len(), 3);
        assert_eq!(sample.bytes_at(BOUNDARY_COUNT), None);
        let again = BoundarySample::new(5);
        let other = BoundarySample::new(6);
        let first: Vec<_> = (0..50).map(|i| sample.bytes_at(i)).collect();
        assert_eq!(
            first,
            (0..50).map(|i| again.bytes_at(i)).collect::<Vec<_>>()
        );
        assert_ne!(
            first,
            (0..50).map(|i| other.bytes_at(i)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn permutation_is_a_bijection_on_small_domains() {
        for domain in [1, 2, 3, 5, 1000, 4096, 4097] {
            let permutation = Permutation::new(3, domain);
            let images: HashSet<u64> = (0..domain).map(|i| permutation.apply(i)).collect();
            assert_eq!(images.len() as u64, domain);
            assert!(images.iter().all(|&image| image < domain));
        }
        assert_eq!(Permutation::new(0, BOUNDARY_COUNT).half_bits, 14);
    }
}
