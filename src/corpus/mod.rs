//! Inputs for the engine: published-style vectors and generated corpora.
//!

//! The modules, each with one job:
//!
//! - [`input`]: [`Input`] and its [`Origin`].
//! - [`generator`]: what a generator is ([`Generator`]), streaming its inputs ([`Inputs`])
//!   and interleaving several ([`Mixed`]).
//! - The generators: [`text`], [`faults`] (over the canonical [`patterns`]), [`placement`],
//!   [`chunking`], [`random`], [`exhaustive`]; [`crate::rng`] is their random stream.
//! - [`vectors`]: the TOML vector files.
//! - This module: the registry of generators by name and the main job's default mix.

pub mod chunking;
pub mod code_units;
pub mod exhaustive;
pub mod faults;
pub mod generator;
pub mod input;
pub mod patterns;
pub mod placement;
pub mod random;
pub mod text;
pub mod vectors;

pub use generator::{Generator, Inputs, Mixed};
pub use input::{Input, Origin};

use chunking::ChunkingGenerator;
use exhaustive::{BoundaryInputs, BoundarySample, ShortInputs};
use faults::FaultGenerator;
use placement::PlacementGenerator;
use random::RandomGenerator;
use text::TextGenerator;

/// How many inputs of each generator the default mix takes.
///
/// The counts are chosen so that everything but the length ≤ 3 enumeration is fed in the
/// first ~2 × 10^5 inputs of the interleaving (a few seconds of a one-minute budget); the
/// enumeration then fills the rest of the budget in its fixed order.
pub mod default_counts {
    /// `text`: valid multilingual texts.
    pub const TEXT: u64 = 2_000;
    /// `faults`: texts with one injected fault, the eleven categories in turn.
    pub const FAULTS: u64 = 22_000;
    /// `chunking`: short inputs meant to be split at every offset by streaming decoders.
    pub const CHUNKING: u64 = 2_000;
    /// `random`: random bytes and their biased variants.
    pub const RANDOM: u64 = 20_000;
    /// `exhaustive-boundary-sampled`: a seeded sample of the 4..=6-byte boundary inputs.
    pub const BOUNDARY_SAMPLE: u64 = 30_000;
}

/// The generated corpus of the main job (`utf8conf run`), in interleaving order:
///
/// | source                        | inputs                                   |
/// |-------------------------------|------------------------------------------|
/// | `faults`                      | 22,000 (2,000 per ill-formed category)   |
/// | `placement`                   | all (every pattern at every SIMD-block offset and padding 0..=128) |
/// | `text`                        | 2,000                                    |
/// | `chunking`                    | 2,000                                    |
/// | `random`                      | 20,000                                   |
/// | `exhaustive-boundary-sampled` | 30,000 of the 199,397,376                |
/// | `exhaustive`                  | all 16,843,009 inputs of length 0..=3    |
///
/// One input is taken from each source in turn (see [`Mixed`]), so a run cut short by its
/// time budget has still seen every source in proportion; the bounded sources run out
/// first and the length ≤ 3 enumeration, which alone cannot finish in a minute through
/// several decoders, takes the remaining budget. The full 4..=6-byte enumeration
/// ([`BoundaryInputs`]) is not in the default mix; ask for it by name.
pub fn default_generators(seed: u64) -> Mixed {
    let bounded = |generator: Box<dyn Generator>, count: u64| Inputs::limited(generator, count);
    Mixed::new(vec![
        bounded(Box::new(FaultGenerator::new(seed)), default_counts::FAULTS),
        Inputs::new(Box::new(PlacementGenerator::new(seed))),
        bounded(Box::new(TextGenerator::new(seed)), default_counts::TEXT),
        bounded(
            Box::new(ChunkingGenerator::new(seed)),
            default_counts::CHUNKING,
        ),
        bounded(Box::new(RandomGenerator::new(seed)), default_counts::RANDOM),
        bounded(
            Box::new(BoundarySample::new(seed)),
            default_counts::BOUNDARY_SAMPLE,
        ),
        Inputs::new(Box::new(ShortInputs::new(seed))),
    ])
}

/// Every generator name [`generator_by_name`] and [`regenerate`] accept.
pub const GENERATOR_NAMES: [&str; 8] = [
    text::NAME,
    faults::NAME,
    placement::NAME,
    chunking::NAME,
    exhaustive::SHORT_NAME,
    exhaustive::BOUNDARY_NAME,
    exhaustive::BOUNDARY_SAMPLE_NAME,
    random::NAME,
];

/// The generator called `name`, seeded with `seed`, or `None` for an unknown name.
pub fn generator_by_name(name: &str, seed: u64) -> Option<Box<dyn Generator>> {
    let generator: Box<dyn Generator> = match name {
        text::NAME => Box::new(TextGenerator::new(seed)),
        faults::NAME => Box::new(FaultGenerator::new(seed)),
        placement::NAME => Box::new(PlacementGenerator::new(seed)),
        chunking::NAME => Box::new(ChunkingGenerator::new(seed)),
        exhaustive::SHORT_NAME => Box::new(ShortInputs::new(seed)),
        exhaustive::BOUNDARY_NAME => Box::new(BoundaryInputs::new(seed)),
        exhaustive::BOUNDARY_SAMPLE_NAME => Box::new(BoundarySample::new(seed)),
        random::NAME => Box::new(RandomGenerator::new(seed)),
        _ => return None,
    };
    Some(generator)
}

/// Rebuilds input `index` of generator `name` run with `seed` (the `reproduce` command of
/// a report), in constant time. `None` for an unknown name or an index past the end.
pub fn regenerate(name: &str, seed: u64, index: u64) -> Option<Input> {
    generator_by_name(name, seed)?.input_at(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::generator::{Generator, Inputs, Mixed};
    use std::collections::HashMap;

    #[test]
    fn every_name_round_trips() {
        for name in GENERATOR_NAMES {
            let generator = generator_by_name(name, 1).unwrap();
            assert_eq!(generator.name(), name);
            assert_eq!(generator.seed(), 1);
        }
        assert!(generator_by_name("no-such-generator", 1).is_none());
        assert!(regenerate("no-such-generator", 1, 0).is_none());
    }

    #[test]
    fn regenerate_equals_the_streamed_input_for_every_generator() {
        for name in GENERATOR_NAMES {
            let streamed: Vec<Input> =
                Inputs::limited(generator_by_name(name, 42).unwrap(), 200).collect();
            assert_eq!(streamed.len(), 200, "{name}");
            for input in streamed.iter().step_by(7) {
                let Origin::Generator { name, seed, index } = &input.origin else {
                    panic!("generated inputs have generator origins");
                };
                assert_eq!(regenerate(name, *seed, *index).as_ref(), Some(input));
            }
        }
    }

    #[test]
    fn bounded_sequences_end_and_regenerate_nothing_past_the_end() {
        let short = regenerate(exhaustive::SHORT_NAME, 0, 16_843_008).unwrap();
        assert_eq!(short.bytes, vec![0xFF, 0xFF, 0xFF]);
        assert!(regenerate(exhaustive::SHORT_NAME, 0, 16_843_009).is_none());
        let placement = PlacementGenerator::new(0);
        let count = placement.len_hint().unwrap();
        assert!(placement.bytes_at(count - 1).is_some());
        assert!(placement.bytes_at(count).is_none());
        let mut tail = Inputs::new(placement);
        tail.next_index = count - 2;
        assert_eq!(tail.size_hint(), (2, Some(2)));
        assert_eq!(tail.count(), 2);
    }

    #[test]
    fn default_mix_interleaves_every_source_with_its_own_name() {
        let mix = default_generators(3);
        let sources = mix.sources();
        assert_eq!(sources.len(), 7);
        let expected_total: u64 = sources.iter().map(|(_, count)| count.unwrap()).sum();
        assert_eq!(mix.len_hint(), Some(expected_total));
        let mut per_source: HashMap<String, u64> = HashMap::new();
        for input in mix.take(7 * 100) {
            *per_source.entry(input.origin.source()).or_default() += 1;
        }
        for (name, _) in sources {
            assert_eq!(per_source.get(name), Some(&100), "{name}");
        }
    }

    #[test]
    fn inputs_stream_from_index_zero_with_origins() {
        let streamed: Vec<Input> = TextGenerator::new(6).inputs().take(3).collect();
        for (index, input) in (0u64..).zip(&streamed) {
            let expected_origin = Origin::Generator {
                name: "text".to_string(),
                seed: 6,
                index,
            };
            assert_eq!(input.origin, expected_origin);
            assert_eq!(
                Some(&input.bytes),
                TextGenerator::new(6).bytes_at(index).as_ref()
            );
        }
        let mut short = ShortInputs::new(0).inputs();
        assert_eq!(short.len_hint(), Some(16_843_009));
        assert_eq!(short.nth(257).map(|input| input.bytes), Some(vec![0, 0]));
    }

    #[test]
    fn mixed_skips_exhausted_sources() {
        let short: Box<dyn Generator> = Box::new(ShortInputs::new(0));
        let text: Box<dyn Generator> = Box::new(TextGenerator::new(0));
        let mix = Mixed::new(vec![Inputs::limited(short, 2), Inputs::limited(text, 5)]);
        assert_eq!(mix.len_hint(), Some(7));
        let names: Vec<String> = mix.map(|input| input.origin.source()).collect();
        assert_eq!(
            names,
            [
                "exhaustive",
                "text",
                "exhaustive",
                "text",
                "text",
                "text",
                "text"
            ]
        );
    }

    /// FNV-1a over the first 64 inputs, each prefixed by its length.
    fn fingerprint(name: &str, seed: u64) -> u64 {
        let generator = generator_by_name(name, seed).unwrap();
        let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
        for index in 0..64 {
            let bytes = generator.bytes_at(index).unwrap();
            for byte in (bytes.len() as u32).to_le_bytes().into_iter().chain(bytes) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
            }
        }
        hash
    }

    /// Reports name `(generator, seed, index)` and promise that `regenerate` rebuilds the
    /// same bytes in later versions. These fingerprints were recorded when the generators
    /// were written; if one changes, generation changed, and old reports' `reproduce`
    /// commands no longer give their inputs: do that only on purpose, with a note in the
    /// README.
    #[test]
    fn sequences_are_pinned_across_versions() {
        let pinned: [(&str, u64); 8] = [
            ("text", 0x9AC9_9076_05F9_9E9B),
            ("faults", 0xBE27_2229_A57F_FC5D),
            ("placement", 0xDCB9_1910_95E6_87A5),
            ("chunking", 0x454C_BB41_449D_FD54),
            ("exhaustive", 0x2C56_CBEE_E023_6489),
            ("exhaustive-boundary", 0xA61F_51BE_321F_B04D),
            ("exhaustive-boundary-sampled", 0xD997_4A4C_BB45_E8C1),
            ("random", 0x3321_7971_A726_7F84),
        ];
        for (name, expected) in pinned {
            let actual = fingerprint(name, 0x5EED);
            assert_eq!(actual, expected, "{name}: {actual:#018X}");
        }
    }

    #[test]
    fn unbounded_mix_reports_no_total() {
        let text: Box<dyn Generator> = Box::new(TextGenerator::new(0));
        assert_eq!(Mixed::new(vec![Inputs::new(text)]).len_hint(), None);
    }
}
