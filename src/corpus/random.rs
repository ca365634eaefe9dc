//! The `random` generator: seeded random bytes, plain and biased.
//!
//! The structured generators find what we thought of; random bytes find the rest. Plain
//! uniform bytes, though, are 50% ASCII and rarely form a long multibyte sequence, so two
//! biased variants take turns with them:
//!
//! - [`RandomVariant::Uniform`]: every byte uniform in 00..FF.
//! - [`RandomVariant::HighBytes`]: seven bytes in eight from 80..FF, so that leads,
//!   continuations and the never-valid bytes collide in every combination.
//! - [`RandomVariant::Flipped`]: valid multilingual text with one to four flipped bits,
//!   the way corruption actually looks: mostly good data and an error in the middle of a
//!   character.
//!
//! Input `i` uses variant `i % 3`. Lengths are 0..=300 bytes, skewed toward short inputs
//! (half are at most 16 bytes), where every byte matters and decoders' tail code runs.

use super::generator::Generator;
use super::text::random_text;
use crate::rng::Rng;

/// The generator's name in [`super::Origin::Generator`].
pub const NAME: &str = "random";

/// The kinds of random input, taken in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RandomVariant {
    /// Uniform bytes.
    Uniform,
    /// Mostly bytes 80..FF.
    HighBytes,
    /// Valid text with a few bits flipped.
    Flipped,
}

impl RandomVariant {
    /// The variants, in the order input indexes cycle through them.
    pub const ALL: [RandomVariant; 3] = [
        RandomVariant::Uniform,
        RandomVariant::HighBytes,
        RandomVariant::Flipped,
    ];

    /// The variant of input `index`.
    pub fn of(index: u64) -> RandomVariant {
        Self::ALL[(index % Self::ALL.len() as u64) as usize]
    }
}

/// The `random` generator (unbounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomGenerator {
    seed: u64,
}

impl RandomGenerator {
    /// Size buckets `(weight, min, max)`: half up to 16 bytes, 30% up to 64, the rest up to
    /// 300.
    pub const SIZES: [(u64, usize, usize); 3] = [(5, 0, 16), (3, 17, 64), (2, 65, 300)];

    /// The generator for a run seeded with `seed`.
    pub fn new(seed: u64) -> RandomGenerator {
        RandomGenerator { seed }
    }
}

impl Generator for RandomGenerator {
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
        let mut rng = Rng::for_input(self.seed, NAME, index);
        let len = rng.skewed_len(&Self::SIZES);
        let bytes = match RandomVariant::of(index) {
            RandomVariant::Uniform => (0..len).map(|_| rng.next_u64() as u8).collect(),
            RandomVariant::HighBytes => (0..len)
                .map(|_| {
                    if rng.chance(7, 8) {
                        rng.byte_in(0x80, 0xFF)
                    } else {
                        rng.byte_in(0x00, 0x7F)
                    }
                })
                .collect(),
            RandomVariant::Flipped => {
                let mut bytes = random_text(&mut rng, len.max(1)).into_bytes();
                if bytes.is_empty() {
                    bytes.push(b'x');
                }
                let flips = rng.in_range(1, 4);
                for _ in 0..flips {
                    let position = rng.index(bytes.len());
                    bytes[position] ^= 1 << rng.below(8);
                }
                bytes
            }
        };
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Reference;

    #[test]
    fn sizes_are_bounded_and_skewed_toward_short() {
        let generator = RandomGenerator::new(1);
        let lens: Vec<usize> = (0..3000)
            .map(|i| generator.bytes_at(i).unwrap().len())
            .collect();
        assert!(lens.iter().all(|&n| n <= 300));
        let short = lens.iter().filter(|&&n| n <= 16).count();
        assert!(short > 1200, "{short} of 3000 are at most 16 bytes");
        assert!(lens.iter().any(|&n| n > 250));
        assert!(lens.contains(&0));
    }

    #[test]
    fn variants_have_their_bias() {
        let generator = RandomGenerator::new(2);
        let reference = Reference::rfc3629();
        let mut high = [0usize; 3];
        let mut total = [0usize; 3];
        let mut invalid_flipped = 0;
        for index in 0..1500 {
            let bytes = generator.bytes_at(index).unwrap();
            let variant = (index % 3) as usize;
            high[variant] += bytes.iter().filter(|&&b| b >= 0x80).count();
            total[variant] += bytes.len();
            if RandomVariant::of(index) == RandomVariant::Flipped {
                invalid_flipped += usize::from(reference.first_error(&bytes).is_some());
            }
        }
        let ratio = |v: usize| high[v] as f64 / total[v] as f64;
        assert!((0.45..0.55).contains(&ratio(0)), "uniform {}", ratio(0));
        assert!(ratio(1) > 0.8, "high bytes {}", ratio(1));
        // Flipping a bit of text makes it ill-formed often, but not always (an ASCII
        // letter flipped to another stays valid).
        assert!(
            (100..500).contains(&invalid_flipped),
            "{invalid_flipped} of 500"
        );
    }

    #[test]
    fn same_seed_same_bytes() {
        let a: Vec<_> = (0..30)
            .map(|i| RandomGenerator::new(8).bytes_at(i))
            .collect();
        let b: Vec<_> = (0..30)
            .map(|i| RandomGenerator::new(8).bytes_at(i))
            .collect();
        let c: Vec<_> = (0..30)
            .map(|i| RandomGenerator::new(9).bytes_at(i))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
