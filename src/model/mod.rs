//! Model-based diagnosis: learn a decoder's finite-state machine by active automata
//! learning, compare it with the machine of RFC 3629, and explain the differences by
//! mechanism.
//!
//! A decoder is a black box that answers whole inputs. Asked for its answer on every
//! prefix of a word, it shows what each byte *did*: an abstract output per step
//! ([`output`]), free of any count of the input before it, so that a decoder that
//! handles bytes by a finite rule has a finite machine. The files, one job each:
//!
//! - [`output`]: the abstract step output (strict side and lossy side);
//! - [`oracle`]: membership queries, a prefix-trie cache and batched decoder calls;
//! - [`alphabet`]: byte classes, from the grammar's machine, split where the decoder needs;
//! - [`learner`]: L* for Mealy machines with Rivest–Schapire counterexample processing
//!   and per-state byte refinement of the classes;
//! - [`equivalence`]: the equivalence oracle, made of bounded test words the harness
//!   already has (short words over the classes, the vectors, the fault patterns);
//! - [`difference`]: the product of two learned machines and every differing transition;
//! - [`differential`]: the decoder's machine and the reference's, each learned further
//!   where the witnesses of their differences show it wrong;
//! - [`conventions`], [`mechanism`], [`title`]: the differences explained by the fewest
//!   single-fault hypotheses, each a finding with a generated title, an input category
//!   and a behaviour;
//! - [`json`]: the model's JSON shape;
//! - [`draw`]: the machine beside the reference's as a self-contained SVG, laid out here;
//! - [`known`], [`recognise`]: the learned machines of known decoders, kept as data, and
//!   which of them a new machine behaves like, or is closest to.
//!
//! Position- and length-dependent behaviour (a SIMD block boundary, a second path above
//! N bytes) is out of this learner's scope by design: its test words are short, and a
//! machine that counted positions would be as large as the count. The placement and
//! length generators of [`crate::corpus`] find those; a condition at an offset is then
//! learned as a machine of its own, with every query placed there (the diagnosis's
//! `condition` module, which drives this learner).
//!
//! Why the learner is written here rather than taken from a library: active learning
//! libraries learn over a fixed, small input alphabet one query at a time; this one needs
//! a symbolic alphabet of byte classes refined from the decoder's answers, and queries in
//! batches (a decoder behind a pipe answers thousands of inputs per round trip).

pub mod alphabet;
mod beside;
pub mod conventions;
pub mod difference;
pub mod differential;
pub mod draw;
pub mod equivalence;
pub mod json;
pub mod known;
pub mod learner;
pub mod mechanism;
pub mod oracle;
pub mod output;
pub mod recognise;
pub mod title;

use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;

use crate::automaton::grammar::Grammar;
use crate::decoders::reference::ReferenceDecoder;
use crate::decoders::{Capabilities, Decoder};
use crate::reference::GrammarError;

use alphabet::Alphabet;
use difference::Difference;
use json::MachineJson;
use learner::{Incomplete, Learned, Limits};
use mechanism::Finding;
use oracle::Oracle;

/// The `schema` of the model JSON.
pub const MODEL_SCHEMA: &str = "utf8conf/model/1";

/// What learning one machine cost.
#[derive(Debug, Clone, Serialize)]
pub struct Queries {
    /// Inputs the decoder decoded (the distinct prefixes of every word asked): the
    /// queries that reached it.
    pub decodes: u64,
    /// Words looked up in the observation table and by the equivalence oracle, most of
    /// them answered from the cache.
    pub lookups: u64,
    /// Equivalence rounds.
    pub equivalence_rounds: usize,
    /// The counterexamples, as hex.
    pub counterexamples: Vec<String>,
    /// Wall-clock time, in milliseconds.
    pub milliseconds: u64,
}

/// A learned machine with what it cost.
#[derive(Debug, Clone, Serialize)]
pub struct LearnedMachine {
    /// `None` when the equivalence oracle accepted the machine; otherwise why learning
    /// stopped (the machine is then what was learned so far).
    pub incomplete: Option<String>,
    /// What learning took.
    pub queries: Queries,
    /// The machine.
    pub machine: MachineJson,
    #[serde(skip)]
    learned: Learned,
}

/// A decoder's model, its difference from the reference's, and the findings.
#[derive(Debug, Clone, Serialize)]
pub struct ModelReport {
    /// [`MODEL_SCHEMA`].
    pub schema: &'static str,
    /// The decoder's name.
    pub decoder: String,
    /// The decoder's version.
    pub version: String,
    /// The answers the outputs are computed from (the decoder's capabilities).
    pub capabilities: Vec<&'static str>,
    /// The decoder's machine.
    pub model: LearnedMachine,
    /// The reference's machine, learned with the same abstraction.
    pub reference: LearnedMachine,
    /// True when no input tells the two machines apart.
    pub equivalent: bool,
    /// Pairs of states reachable in the product.
    pub product_pairs: usize,
    /// Differences of the machines that the decoders themselves do not show on the
    /// witness (a machine wrong there, which the equivalence oracle did not catch):
    /// dropped, and counted here.
    pub unconfirmed: usize,
    /// Every differing transition family, breadth-first, each confirmed by asking both
    /// decoders for its witness.
    pub differences: Vec<Difference>,
    /// The differences explained by mechanism.
    pub findings: Vec<Finding>,
    /// The known decoders this machine behaves exactly like, or the closest ones.
    pub recognition: recognise::Recognition,
}

/// Learns the machine of `decoder` as it answers for `capabilities`.
pub fn learn_machine(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    grammar: &Grammar,
    limits: Limits,
) -> LearnedMachine {
    learn(decoder, capabilities, grammar, limits, &|_| Vec::new())
}

/// Learns `decoder`'s machine with `more_words` added to each equivalence round.
fn learn(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    grammar: &Grammar,
    limits: Limits,
    more_words: &dyn Fn(&learner::Hypothesis) -> Vec<Vec<u8>>,
) -> LearnedMachine {
    let start = Instant::now();
    let mut oracle = Oracle::new(decoder, capabilities);
    let alphabet = Alphabet::of_machine(&grammar.units);
    let learned = learner::learn_with(&mut oracle, alphabet, limits, more_words);
    LearnedMachine {
        incomplete: learned.incomplete.as_ref().map(|reason| match reason {
            Incomplete::TooManyStates(n) => {
                format!("more than {n} states (a position or length counter?)")
            }
            Incomplete::TooManyRounds(n) => format!("no stable machine after {n} rounds"),
            Incomplete::OverBudget { decodes, timed_out } => format!(
                "learning budget spent ({} after {decodes} decodes)",
                if *timed_out { "time" } else { "queries" }
            ),
        }),
        queries: Queries {
            lookups: oracle.lookups,
            decodes: oracle.decodes,
            equivalence_rounds: learned.rounds,
            counterexamples: learned
                .counterexamples
                .iter()
                .map(|c| crate::hex::format_hex(c))
                .collect(),
            milliseconds: start.elapsed().as_millis() as u64,
        },
        machine: MachineJson::of(&learned.hypothesis),
        learned,
    }
}

impl LearnedMachine {
    /// The learned hypothesis.
    pub fn hypothesis(&self) -> &learner::Hypothesis {
        &self.learned.hypothesis
    }
}

/// Learns `decoder`'s model within `limits`, takes the reference's (learned once per
/// set of capabilities, without a budget: it is in process and takes a fraction of a
/// second), and diagnoses their difference.
pub fn model_report(decoder: &dyn Decoder, limits: Limits) -> Result<ModelReport, GrammarError> {
    let grammar = Grammar::rfc3629()?;
    let reference = reference_machine(decoder.capabilities(), &grammar);
    Ok(compare_with(decoder, reference, &grammar, limits))
}

/// The equivalence test depth for the reference's machine. Behind a settled error the
/// verdict no longer changes, and a decoder that reports little tells `80 EF BF BD`
/// (U+FFFD the character, which adds nothing to the U+FFFD kept for `EF`) from
/// `80 E1 BF` (a sequence still open) only by the byte after it: two representatives
/// after a state's access word do not reach it, three do. The reference answers in
/// process, so the deeper test costs a fraction of a second, once per set of
/// capabilities; a wrong reference would make a difference of every decoder that is right.
const REFERENCE_TEST_DEPTH: usize = 3;

/// The reference's machine for `capabilities`, learned once per process.
pub fn reference_machine(capabilities: Capabilities, grammar: &Grammar) -> LearnedMachine {
    static CACHE: Mutex<Vec<(Capabilities, LearnedMachine)>> = Mutex::new(Vec::new());
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, machine)) = cache.iter().find(|(c, _)| *c == capabilities) {
        return machine.clone();
    }
    let limits = Limits {
        test_depth: REFERENCE_TEST_DEPTH,
        ..Limits::default()
    };
    let machine = learn_machine(&ReferenceDecoder, capabilities, grammar, limits);
    cache.push((capabilities, machine.clone()));
    machine
}

/// [`model_report`] with the reference's machine already learned for `decoder`'s
/// capabilities (it is the same for every decoder reporting the same fields).
pub fn compare_with(
    decoder: &dyn Decoder,
    reference: LearnedMachine,
    grammar: &Grammar,
    limits: Limits,
) -> ModelReport {
    let capabilities = decoder.capabilities();
    let (model, reference) = differential::learn_against(decoder, grammar, limits, reference);
    let (mut differences, product_pairs) =
        difference::differences(model.hypothesis(), reference.hypothesis());
    difference::value_checks(model.hypothesis(), reference.hypothesis(), &mut differences);
    let unconfirmed = confirm(decoder, capabilities, &mut differences);
    let substitute = if capabilities.scalars && !differences.is_empty() {
        conventions::Substitute::of_decoder(decoder)
    } else {
        None
    };
    let findings = if never_reports_errors(model.hypothesis(), reference.hypothesis()) {
        // One finding says so; the rest is diagnosed from the scalars alone, or every
        // other bug would show only as "valid where the grammar has an error".
        let (lossy_model, lossy_reference) = (
            lossy_only(model.hypothesis()),
            lossy_only(reference.hypothesis()),
        );
        let (mut lossy_differences, _) = difference::differences(&lossy_model, &lossy_reference);
        difference::value_checks(&lossy_model, &lossy_reference, &mut lossy_differences);
        let mut findings = vec![mechanism::never_reports_errors(&differences)];
        let conventions = mechanism::conventions(&lossy_model, capabilities, substitute);
        let mut rest = mechanism::findings(
            &lossy_model,
            &lossy_reference,
            &lossy_differences,
            capabilities,
            &conventions,
        );
        // Their indices are into the lossy differences, which are not reported.
        for finding in &mut rest {
            finding.differences.clear();
            finding.manifestations.clear();
        }
        findings.extend(rest);
        findings
    } else {
        let conventions = mechanism::conventions(model.hypothesis(), capabilities, substitute);
        let ordinary = mechanism::findings(
            model.hypothesis(),
            reference.hypothesis(),
            &differences,
            capabilities,
            &conventions,
        );
        // A lossy convention beside strict bugs: where one convention gives every lossy
        // departure and none was named, the departures on the strict side are the bugs.
        let named = ordinary
            .iter()
            .any(|f| matches!(f.mechanism, mechanism::Mechanism::Convention(_)));
        let split = (!named)
            .then(|| {
                beside::findings(
                    model.hypothesis(),
                    &differences,
                    capabilities,
                    &conventions,
                    grammar,
                )
            })
            .flatten();
        match split {
            Some(split) => split,
            _ => ordinary,
        }
    };
    let recognition = match &model.incomplete {
        Some(why) => recognise::not_compared(why),
        None => recognise::recognise(model.hypothesis(), capabilities),
    };
    ModelReport {
        schema: MODEL_SCHEMA,
        decoder: decoder.name().to_string(),
        version: decoder.version(),
        capabilities: capabilities.names(),
        model,
        reference,
        equivalent: differences.is_empty(),
        product_pairs,
        unconfirmed,
        differences,
        findings,
        recognition,
    }
}

/// Asks the decoder and the reference for every difference's witness and drops the
/// differences they do not show; returns how many were dropped.
fn confirm(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    differences: &mut Vec<Difference>,
) -> usize {
    let mut subject = Oracle::new(decoder, capabilities);
    let mut reference = Oracle::new(&ReferenceDecoder, capabilities);
    let words: Vec<&[u8]> = differences.iter().map(|d| d.witness.as_slice()).collect();
    subject.prefetch(words.iter().copied());
    reference.prefetch(words.iter().copied());
    let before = differences.len();
    // Indices into the list change; primary and witness stay with each difference.
    differences.retain(|d| {
        let last = d.witness.len() - 1;
        subject.outputs_from(&d.witness, last) == [d.decoder]
            && reference.outputs_from(&d.witness, last) == [d.reference]
    });
    before - differences.len()
}

/// True when the decoder's strict answer is always "valid" and the reference's is not.
fn never_reports_errors(decoder: &learner::Hypothesis, reference: &learner::Hypothesis) -> bool {
    let always_valid = |h: &learner::Hypothesis| {
        h.output
            .iter()
            .flatten()
            .all(|o| o.strict == output::Strict::Valid)
    };
    always_valid(decoder) && !always_valid(reference)
}

/// `hypothesis` with every strict output set to "valid": its lossy side alone.
fn lossy_only(hypothesis: &learner::Hypothesis) -> learner::Hypothesis {
    let mut lossy = hypothesis.clone();
    for output in lossy.output.iter_mut().flatten() {
        output.strict = output::Strict::Valid;
    }
    lossy
}

#[cfg(test)]
mod masking_decoder_tests;
#[cfg(test)]
mod naive_decoder_tests;
#[cfg(test)]
mod tests;
