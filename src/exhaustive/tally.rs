//! Per-aspect counts of one decoder's batch, without touching eight counters per input.
//!
//! The engine counts every input under `crash` (the "did it answer" aspect), every
//! compared aspect, and every departure ([`count_comparison`]). Over the 4.3 billion
//! inputs of an exhaustive run that loop over an [`AspectSet`] per input was a sizeable
//! part of the harness's own time. Almost every input agrees with the reference, and an
//! agreeing comparison is fully described by the set of aspects compared (at most 2^8 of
//! them), so [`Tally`] counts agreeing inputs per set, one increment each, and expands
//! the counts into [`AspectCounters`] once per batch. Departing inputs take the engine's
//! path. The result is the same counters, added in another order.

use crate::aspect::AspectSet;
use crate::diagnosis::compare::Comparison;
use crate::engine::summary::{count_inputs, AspectCounters};

/// The counts of one batch.
pub(super) struct Tally {
    /// Agreeing inputs, by the bits of their compared set.
    agreeing: [u64; 256],
    /// Inputs with at least one departure (or a failure), counted in full.
    counters: AspectCounters,
}

impl Tally {
    /// No input counted.
    pub(super) fn new() -> Tally {
        Tally {
            agreeing: [0; 256],
            counters: AspectCounters::default(),
        }
    }

    /// Forgets every input counted.
    pub(super) fn clear(&mut self) {
        self.agreeing = [0; 256];
        self.counters = AspectCounters::default();
    }

    /// Adds the counts of `other`.
    pub(super) fn absorb(&mut self, other: &Tally) {
        for (total, count) in self.agreeing.iter_mut().zip(&other.agreeing) {
            *total += count;
        }
        for (total, count) in self.counters.iter_mut().zip(&other.counters) {
            total.compared += count.compared;
            total.departures += count.departures;
        }
    }

    /// Counts one agreeing input, compared on `compared` (what
    /// [`compared_if_agreeing`](crate::diagnosis::compare::compared_if_agreeing) says): the
    /// same count as [`Tally::add`] of its comparison, without building it.
    #[inline]
    pub(super) fn add_agreeing(&mut self, compared: AspectSet) {
        self.agreeing[usize::from(compared.bits())] += 1;
    }

    /// Counts one input's comparison.
    #[inline]
    pub(super) fn add(&mut self, comparison: &Comparison) {
        if comparison.departed.is_empty() {
            self.agreeing[usize::from(comparison.compared.bits())] += 1;
        } else {
            count_inputs(
                &mut self.counters,
                comparison.compared,
                comparison.departed,
                1,
            );
        }
    }

    /// The per-aspect counters of every input added.
    pub(super) fn counters(&self) -> AspectCounters {
        let mut counters = self.counters;
        for (bits, &count) in self.agreeing.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let compared = AspectSet::from_bits(bits as u8);
            count_inputs(&mut counters, compared, AspectSet::default(), count);
        }
        counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoders::{builtin, mutants};
    use crate::engine::check::check_decoder;
    use crate::outcome::Outcome;
    use crate::reference::Reference;

    /// The tally's counters equal the per-input counting of the engine, on agreeing and
    /// departing inputs alike (the mutants depart on some, one by panicking).
    #[test]
    fn tally_counts_as_per_input_counting_does() {
        let reference = Reference::rfc3629();
        let inputs: [&[u8]; 8] = [
            b"",
            b"a",
            b"\xC3\xA9",
            b"\xE0\x80",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
            b"\xF0\x9F\x98",
            b"a\xFFb",
        ];
        for decoder in builtin().into_iter().chain(mutants::all()) {
            let capabilities = decoder.capabilities();
            // Half the inputs in a second tally, absorbed: the same counts.
            let (mut tally, mut half) = (Tally::new(), Tally::new());
            let mut expected = AspectCounters::default();
            let mut outcome = Outcome::verdict(decoder.name(), true);
            for (i, input) in inputs.into_iter().enumerate() {
                // Contained: a mutant panics on FF, a `crash` departure.
                let comparison = check_decoder(
                    decoder.as_ref(),
                    capabilities,
                    input,
                    &reference.decode(input),
                    &mut outcome,
                )
                .comparison;
                if i % 2 == 0 {
                    tally.add(&comparison);
                } else {
                    half.add(&comparison);
                }
                count_inputs(&mut expected, comparison.compared, comparison.departed, 1);
            }
            tally.absorb(&half);
            assert_eq!(tally.counters(), expected, "{}", decoder.name());
            tally.clear();
            assert_eq!(tally.counters(), AspectCounters::default());
        }
    }
}
