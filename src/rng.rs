//! The generators' pseudo-random numbers: SplitMix64, seeded per input.
//!
//! A generated input must be reproducible from `(generator name, seed, index)` alone, on any
//! platform and in any later version of this crate, because a finding report's
//! `reproduce` command is exactly that triple. So the generators do not use an external
//! random number crate (whose streams may change between versions) but this small,
//! fully specified generator, and every input gets its *own* stream, derived from the
//! triple, instead of continuing one long stream: input `i` can be rebuilt without
//! producing inputs `0..i`.
//!
//! The generator is SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number
//! Generators", OOPSLA 2014, with the finaliser constants of Vigna's public-domain C
//! version): a 64-bit counter advanced by the golden-ratio gamma and passed through a
//! bijective mixing function. It is not cryptographic and need not be; it passes BigCrush,
//! costs a few cycles, and its whole definition is the dozen lines below.
//!
//! Deriving a stream: `state = mix(mix(seed ^ fnv1a(name)) ^ index * GAMMA)`. FNV-1a
//! (64-bit) turns the generator's name into a stream tag so that two generators run with the
//! same seed do not see the same numbers.

/// The golden-ratio gamma of SplitMix64: 2^64 / φ, rounded to odd.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser: a bijection on `u64` with good avalanche (every input bit flips
/// each output bit with probability close to 1/2).
pub fn mix64(value: u64) -> u64 {
    let mut z = value;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64-bit FNV-1a of a string (offset basis 0xcbf29ce484222325, prime 0x100000001b3), used to
/// turn a generator name into a stream tag.
pub fn fnv1a(text: &str) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for &byte in text.as_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

/// A SplitMix64 stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A stream starting from `seed` (the first output is `mix64(seed + GAMMA)`).
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The stream of input `index` of generator `name` in a run seeded with `seed`.
    pub fn for_input(seed: u64, name: &str, index: u64) -> Rng {
        let generator_state = mix64(seed ^ fnv1a(name));
        Rng::new(mix64(generator_state ^ index.wrapping_mul(GAMMA)))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix64(self.state)
    }

    /// A uniform number in `0..bound` (`bound > 0`), without modulo bias: Lemire's
    /// multiply-and-shift ("Fast Random Integer Generation in an Interval", 2019), rejecting
    /// the few low products that would over-represent some results.
    pub fn below(&mut self, bound: u64) -> u64 {
        assert!(bound > 0, "Rng::below(0)");
        let threshold = bound.wrapping_neg() % bound;
        loop {
            let product = u128::from(self.next_u64()) * u128::from(bound);
            if (product as u64) >= threshold {
                return (product >> 64) as u64;
            }
        }
    }

    /// A uniform number in the inclusive range `low..=high` (`low <= high`).
    pub fn in_range(&mut self, low: u64, high: u64) -> u64 {
        assert!(low <= high, "Rng::in_range({low}, {high})");
        match (high - low).checked_add(1) {
            Some(span) => low + self.below(span),
            None => self.next_u64(),
        }
    }

    /// A uniform index into a collection of `len` elements (`len > 0`).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// A uniform element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// True with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    /// A uniform byte in `low..=high`.
    pub fn byte_in(&mut self, low: u8, high: u8) -> u8 {
        self.in_range(u64::from(low), u64::from(high)) as u8
    }

    /// A length skewed toward short ones: each `(weight, low, high)` bucket is chosen with
    /// probability proportional to its weight, then a length uniform within it.
    pub fn skewed_len(&mut self, buckets: &[(u64, usize, usize)]) -> usize {
        let total: u64 = buckets.iter().map(|&(weight, _, _)| weight).sum();
        let mut roll = self.below(total);
        for &(weight, low, high) in buckets {
            if roll < weight {
                return self.in_range(low as u64, high as u64) as usize;
            }
            roll -= weight;
        }
        unreachable!("the roll is below the total weight")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_published_reference_outputs() {
        // The first outputs of Vigna's splitmix64.c seeded with 0, the values other
        // SplitMix64 implementations test against.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn fnv1a_matches_the_published_test_values() {
        // FNV-1a 64 of "" is the offset basis; of "a" it is 0xaf63dc4c8601ec8c.
        assert_eq!(fnv1a(""), 0xCBF2_9CE4_8422_2325);
        assert_eq!(fnv1a("a"), 0xAF63_DC4C_8601_EC8C);
    }

    #[test]
    fn per_input_streams_are_reproducible_and_distinct() {
        let first = Rng::for_input(7, "faults", 3).next_u64();
        assert_eq!(first, Rng::for_input(7, "faults", 3).next_u64());
        assert_ne!(first, Rng::for_input(7, "faults", 4).next_u64());
        assert_ne!(first, Rng::for_input(8, "faults", 3).next_u64());
        assert_ne!(first, Rng::for_input(7, "random", 3).next_u64());
    }

    #[test]
    fn below_stays_in_bounds_and_reaches_every_value() {
        let mut rng = Rng::new(1);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let value = rng.below(7);
            assert!(value < 7);
            seen[value as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(rng.in_range(5, 5), 5);
        // The full range has no `high - low + 1`; the call must not overflow.
        rng.in_range(0, u64::MAX);
    }

    #[test]
    fn skewed_len_respects_buckets() {
        let mut rng = Rng::new(2);
        let buckets = [(3, 0, 4), (1, 100, 200)];
        let lens: Vec<usize> = (0..2000).map(|_| rng.skewed_len(&buckets)).collect();
        assert!(lens.iter().all(|&n| n <= 4 || (100..=200).contains(&n)));
        let short = lens.iter().filter(|&&n| n <= 4).count();
        // Expected 1500 of 2000; allow generous slack.
        assert!((1300..=1700).contains(&short), "{short}");
    }
}
