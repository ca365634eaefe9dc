//! What every generator is, how its inputs are streamed, and the default mix.
//!
//! A generator is a *function* from an index to an input: [`Generator::bytes_at`] builds
//! input `i` from `(name, seed, i)` alone (seeded generators draw from a random stream of
//! their own per input, see [`crate::rng`]; enumerations decode the index directly). Three
//! properties follow and are relied on:
//!
//! - **Laziness.** Streaming is `bytes_at(0)`, `bytes_at(1)`, ...; nothing holds the
//!   sequence, so the 16.8 million inputs of length ≤ 3 or the 199 million boundary-byte
//!   inputs cost one small vector at a time.
//! - **Reproduction.** [`super::regenerate`] rebuilds one input from a report's
//!   `origin` (`{"kind": "generator", "name", "seed", "index"}`) in constant time, without
//!   running the sequence up to it.
//! - **Determinism.** The same seed gives the same inputs on every platform and in every
//!   version that keeps the generators' tests (they pin fingerprints of the sequences).
//!
//! The registry of generators by name and the main job's mix ([`super::default_generators`],
//! a round-robin interleaving of all generators) are in the corpus module.

use super::input::{Input, Origin};

/// A deterministic source of inputs, addressable by index.
pub trait Generator: Send + Sync {
    /// The stable name written in [`Origin::Generator`] and accepted by [`super::regenerate`].
    fn name(&self) -> &'static str;

    /// The seed of the run (enumerations ignore it for their bytes but still report it).
    fn seed(&self) -> u64;

    /// How many inputs the sequence has, or `None` when it is unbounded (then the caller
    /// chooses how many to take).
    fn len_hint(&self) -> Option<u64>;

    /// The bytes of input `index`, or `None` past the end of a bounded sequence.
    fn bytes_at(&self, index: u64) -> Option<Vec<u8>>;

    /// Every input of the generator, as an iterator (see [`Inputs::limited`] for a prefix).
    fn inputs(self) -> Inputs<Self>
    where
        Self: Sized,
    {
        Inputs::new(self)
    }

    /// Input `index` with its origin.
    fn input_at(&self, index: u64) -> Option<Input> {
        self.bytes_at(index).map(|bytes| Input {
            bytes,
            origin: Origin::Generator {
                name: self.name().to_string(),
                seed: self.seed(),
                index,
            },
        })
    }
}

impl<G: Generator + ?Sized> Generator for Box<G> {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn seed(&self) -> u64 {
        (**self).seed()
    }

    fn len_hint(&self) -> Option<u64> {
        (**self).len_hint()
    }

    fn bytes_at(&self, index: u64) -> Option<Vec<u8>> {
        (**self).bytes_at(index)
    }

    fn input_at(&self, index: u64) -> Option<Input> {
        (**self).input_at(index)
    }
}

/// A generator's inputs as an iterator, from index 0 up to its end or a chosen limit.
#[derive(Debug, Clone)]
pub struct Inputs<G> {
    generator: G,
    pub(super) next_index: u64,
    end: Option<u64>,
}

impl<G: Generator> Inputs<G> {
    /// Every input of `generator` (unbounded if the generator is).
    pub fn new(generator: G) -> Inputs<G> {
        let end = generator.len_hint();
        Inputs {
            generator,
            next_index: 0,
            end,
        }
    }

    /// At most the first `count` inputs.
    pub fn limited(generator: G, count: u64) -> Inputs<G> {
        let end = Some(generator.len_hint().map_or(count, |len| len.min(count)));
        Inputs {
            generator,
            next_index: 0,
            end,
        }
    }

    /// How many inputs this iterator yields in total, when known (for a progress bar).
    pub fn len_hint(&self) -> Option<u64> {
        self.end
    }

    /// How many inputs are left, when known.
    pub fn remaining(&self) -> Option<u64> {
        self.end.map(|end| end.saturating_sub(self.next_index))
    }

    /// The generator behind the iterator.
    pub fn generator(&self) -> &G {
        &self.generator
    }
}

impl<G: Generator> Iterator for Inputs<G> {
    type Item = Input;

    fn next(&mut self) -> Option<Input> {
        if self.end.is_some_and(|end| self.next_index >= end) {
            return None;
        }
        let input = self.generator.input_at(self.next_index)?;
        self.next_index += 1;
        Some(input)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self.remaining() {
            Some(left) => {
                let left = usize::try_from(left).unwrap_or(usize::MAX);
                (left, Some(left))
            }
            None => (usize::MAX, None),
        }
    }
}

/// Several generators interleaved round-robin: one input from each source in turn,
/// skipping sources that have run out. Every input keeps its own generator's origin, so
/// the engine can count inputs per source.
pub struct Mixed {
    sources: Vec<Inputs<Box<dyn Generator>>>,
    turn: usize,
}

impl Mixed {
    /// Interleaves `sources` in the given order.
    pub fn new(sources: Vec<Inputs<Box<dyn Generator>>>) -> Mixed {
        Mixed { sources, turn: 0 }
    }

    /// The total number of inputs, when every source is bounded.
    pub fn len_hint(&self) -> Option<u64> {
        self.sources.iter().map(Inputs::len_hint).sum()
    }

    /// Each source's generator name and total count, in interleaving order.
    pub fn sources(&self) -> Vec<(&'static str, Option<u64>)> {
        self.sources
            .iter()
            .map(|source| (source.generator().name(), source.len_hint()))
            .collect()
    }
}

impl Iterator for Mixed {
    type Item = Input;

    fn next(&mut self) -> Option<Input> {
        for _ in 0..self.sources.len() {
            let source = self.turn;
            self.turn = (self.turn + 1) % self.sources.len();
            if let Some(input) = self.sources[source].next() {
                return Some(input);
            }
        }
        None
    }
}
