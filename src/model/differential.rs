//! Differential learning: the decoder's machine and the reference's, each checked on the
//! witnesses of their differences and learned further where one is wrong.
//!
//! The equivalence oracle's own words ([`super::equivalence`]) are bounded, and a machine
//! they accept can still be wrong behind a state its outputs barely tell apart: behind a
//! settled error the verdict no longer changes, and the reference's machine learned two
//! representatives deep had `80 EF 80 80` end one byte late. The product of the two
//! machines points at exactly the words that matter: a difference of the machines is
//! either the decoder's or a machine's mistake, and asking both decoders for its witness
//! tells which. A mistake is a counterexample, so the machine that made it is learned
//! further (SFADiff's differential equivalence: Argyros, Stais, Jana, Keromytis and
//! Kemerlis, CCS 2016). The differences reported are then the decoder's, not the
//! learner's.

use super::learner::{Hypothesis, Limits};
use super::oracle::Oracle;
use super::{difference, learn, LearnedMachine, REFERENCE_TEST_DEPTH};
use crate::automaton::grammar::Grammar;
use crate::decoders::reference::ReferenceDecoder;
use crate::decoders::{Capabilities, Decoder};

/// Rounds of correcting one machine against the other. Each round relearns the
/// reference (in process, a fraction of a second) and, only if the new witnesses show
/// it wrong, the decoder; two were enough on every shipped adapter.
const ROUNDS: usize = 3;

/// The witnesses of every difference of `a` from `b` that a report would show (the
/// product's, and the copies [`difference::value_checks`] adds with other values), each
/// with the first and the last byte of its family.
fn witnesses(a: &Hypothesis, b: &Hypothesis) -> Vec<Vec<u8>> {
    let (mut differences, _) = difference::differences(a, b);
    difference::value_checks(a, b, &mut differences);
    differences
        .iter()
        .flat_map(|d| {
            let last = *d.bytes.last().expect("a difference has a byte");
            let mut other = d.witness.clone();
            *other.last_mut().expect("a witness has a byte") = last;
            [d.witness.clone(), other]
        })
        .collect()
}

/// [`super::learn_machine`], with every equivalence round also testing the witnesses of
/// the hypothesis's differences from `beside`.
pub fn learn_machine_beside(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    grammar: &Grammar,
    limits: Limits,
    beside: &Hypothesis,
) -> LearnedMachine {
    learn(decoder, capabilities, grammar, limits, &|hypothesis| {
        witnesses(hypothesis, beside)
    })
}

/// True when `machine` gives `decoder`'s own step outputs on every word.
fn right_on(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    machine: &Hypothesis,
    words: &[Vec<u8>],
) -> bool {
    let mut oracle = Oracle::new(decoder, capabilities);
    oracle.prefetch(words.iter().map(Vec::as_slice));
    words.iter().all(|w| oracle.outputs(w) == machine.run(w))
}

/// `decoder`'s machine learned beside `reference` (the reference's machine for its
/// capabilities), and the reference's machine corrected where their differences show
/// it wrong; the decoder's machine is learned again only when the corrected reference's
/// differences show it wrong in turn. A decoder whose learning stopped at its budget is
/// returned as it is.
pub fn learn_against(
    decoder: &dyn Decoder,
    grammar: &Grammar,
    limits: Limits,
    reference: LearnedMachine,
) -> (LearnedMachine, LearnedMachine) {
    let capabilities = decoder.capabilities();
    let mut model = learn_machine_beside(
        decoder,
        capabilities,
        grammar,
        limits,
        reference.hypothesis(),
    );
    let mut reference = reference;
    for _ in 0..ROUNDS {
        if model.incomplete.is_some() {
            break;
        }
        let words = witnesses(model.hypothesis(), reference.hypothesis());
        if right_on(
            &ReferenceDecoder,
            capabilities,
            reference.hypothesis(),
            &words,
        ) {
            break;
        }
        let deeper = Limits {
            test_depth: REFERENCE_TEST_DEPTH,
            ..Limits::default()
        };
        reference = learn_machine_beside(
            &ReferenceDecoder,
            capabilities,
            grammar,
            deeper,
            model.hypothesis(),
        );
        let words = witnesses(model.hypothesis(), reference.hypothesis());
        if !right_on(decoder, capabilities, model.hypothesis(), &words) {
            model = learn_machine_beside(
                decoder,
                capabilities,
                grammar,
                limits,
                reference.hypothesis(),
            );
        }
    }
    (model, reference)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoders;
    use crate::model::learn_machine;
    use crate::model::output::StepOutput;
    use crate::outcome::{DecoderFailure, Outcome};

    fn truth(decoder: &dyn Decoder, capabilities: Capabilities, word: &[u8]) -> Vec<StepOutput> {
        Oracle::new(decoder, capabilities).outputs(word)
    }

    /// Behind the settled error of `80`, two representatives after each state's access
    /// word do not tell `80 EF 80` from a 4-byte lead's `80 F0 90 80`: learned alone, a
    /// correct decoder's machine ends `80 EF 80 80` one byte late. Beside the
    /// reference's machine, the difference that makes is a counterexample.
    #[test]
    fn a_decoder_machine_wrong_where_it_differs_is_learned_further() {
        const LATE: &[u8] = &[0x80, 0xEF, 0x80, 0x80];
        let grammar = Grammar::rfc3629().unwrap();
        let std = decoders::by_name("std").unwrap();
        let capabilities = std.capabilities();
        let alone = learn_machine(&*std, capabilities, &grammar, Limits::default());
        assert_ne!(
            alone.hypothesis().run(LATE),
            truth(&*std, capabilities, LATE)
        );
        let reference = super::super::reference_machine(capabilities, &grammar);
        let beside = learn_machine_beside(
            &*std,
            capabilities,
            &grammar,
            Limits::default(),
            reference.hypothesis(),
        );
        assert_eq!(
            beside.hypothesis().run(LATE),
            truth(&*std, capabilities, LATE)
        );
        let (differences, _) = difference::differences(beside.hypothesis(), reference.hypothesis());
        assert!(differences.is_empty(), "{differences:?}");
    }

    /// The reference, reporting scalars only for valid input (a fatal decoder's fields).
    struct Fatal;

    impl Decoder for Fatal {
        fn name(&self) -> &str {
            "test-fatal-reference"
        }
        fn version(&self) -> String {
            String::new()
        }
        fn description(&self) -> &str {
            "the reference, with scalars for valid input only"
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                valid_up_to: false,
                error_len: false,
                scalars: true,
                errors: false,
            }
        }
        fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
            ReferenceDecoder.decode_into(input, outcome)?;
            outcome.decoder = self.name().to_string();
            (outcome.valid_up_to, outcome.error_len, outcome.errors) = (None, None, None);
            if !outcome.valid {
                outcome.scalars = None;
            }
            Ok(())
        }
    }

    /// For these fields the reference's own machine, three representatives deep, says
    /// `80 F4 80 80 80` is valid; the fatal decoder's machine is right there, and the
    /// difference corrects the reference's.
    #[test]
    fn a_reference_machine_wrong_where_it_differs_is_learned_further() {
        const SETTLED: &[u8] = &[0x80, 0xF4, 0x80, 0x80, 0x80];
        let grammar = Grammar::rfc3629().unwrap();
        let capabilities = Fatal.capabilities();
        let first = super::super::reference_machine(capabilities, &grammar);
        assert_ne!(
            first.hypothesis().run(SETTLED),
            truth(&ReferenceDecoder, capabilities, SETTLED)
        );
        let (model, reference) = learn_against(&Fatal, &grammar, Limits::default(), first);
        assert_eq!(
            reference.hypothesis().run(SETTLED),
            truth(&ReferenceDecoder, capabilities, SETTLED)
        );
        let (differences, _) = difference::differences(model.hypothesis(), reference.hypothesis());
        assert!(differences.is_empty(), "{differences:?}");
    }
}
