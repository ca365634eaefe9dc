//! Equivalence queries, answered by testing: the hypothesis is run against a bounded set
//! of words the harness already knows to matter, and the shortest disagreement is the
//! counterexample.
//!
//! The words, all short (the learner models what a decoder does with bytes, not where:
//! position- and length-dependent behaviour is the placement and length generators' job,
//! and long counterexamples would only teach the learner to count):
//!
//! - every word of one or two symbols, the symbols being each class's representative and
//!   its first and last byte, and every word of three representatives;
//! - from every state of the hypothesis, every word of `depth` representatives after its
//!   access word (the W-method's middle layer, which catches a wrong target state): two
//!   for a decoder under test, three for the reference, whose machine every diagnosis
//!   is measured against;
//! - the embedded test vectors of at most [`MAX_LEN`] bytes;
//! - for each ill-formed category, [`FAULTS_PER_CATEGORY`] faults of the `faults`
//!   generator's own pattern ([`fault_bytes`]), alone and between one- to four-byte
//!   characters.
//!
//! A caller may add words of its own ([`super::learner::learn_with`]): a decoder's
//! machine is checked on the witnesses of its differences from the reference's machine
//! as well (SFADiff's differential equivalence, Argyros et al., CCS 2016), so that a
//! difference the machine shows is one the decoder shows, and a machine wrong there is
//! learned further rather than reported.

use crate::corpus::faults::fault_bytes;
use crate::corpus::vectors;
use crate::rng::Rng;
use crate::taxonomy::Category;

use super::learner::Hypothesis;
use super::oracle::Oracle;

/// Longest test word.
pub const MAX_LEN: usize = 24;
/// Faults drawn per ill-formed category.
pub const FAULTS_PER_CATEGORY: u64 = 12;
/// The fixed seed of the fault draws (the learned model must not vary between runs).
const SEED: u64 = 0x0005_EED0_3629;

/// The characters a fault is put between.
const CONTEXTS: [&[u8]; 5] = [
    b"",
    b"A",
    "\u{E9}".as_bytes(),
    "\u{20AC}".as_bytes(),
    "\u{1F600}".as_bytes(),
];

/// The test words for `hypothesis`, shortest first, without duplicates.
pub fn test_words(hypothesis: &Hypothesis, depth: usize) -> Vec<Vec<u8>> {
    let alphabet = &hypothesis.alphabet;
    let reps = alphabet.representatives();
    let mut symbols: Vec<u8> = reps.clone();
    for class in 0..alphabet.len() {
        let bytes = alphabet.bytes(class);
        symbols.push(bytes[0]);
        symbols.push(bytes[bytes.len() - 1]);
    }
    symbols.sort_unstable();
    symbols.dedup();
    let mut words: Vec<Vec<u8>> = Vec::new();
    for &a in &symbols {
        words.push(vec![a]);
        for &b in &symbols {
            words.push(vec![a, b]);
        }
    }
    for &a in &reps {
        for &b in &reps {
            for &c in &reps {
                words.push(vec![a, b, c]);
            }
        }
    }
    for access in &hypothesis.access {
        let mut layer = vec![access.clone()];
        for _ in 0..depth {
            layer = layer
                .iter()
                .flat_map(|word| {
                    reps.iter().map(move |&r| {
                        let mut longer = word.clone();
                        longer.push(r);
                        longer
                    })
                })
                .collect();
        }
        words.extend(layer);
    }
    if let Ok(vectors) = vectors::embedded() {
        words.extend(
            vectors
                .into_iter()
                .map(|v| v.bytes)
                .filter(|b| !b.is_empty() && b.len() <= MAX_LEN),
        );
    }
    words.extend(fault_words());
    words.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    words.dedup();
    words
}

/// Faults of every ill-formed category, alone and between characters.
fn fault_words() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(SEED);
    let mut words = Vec::new();
    for category in Category::ILL_FORMED {
        for draw in 0..FAULTS_PER_CATEGORY {
            let fault = fault_bytes(&mut rng, category, None);
            let before = CONTEXTS[(draw as usize) % CONTEXTS.len()];
            let after = CONTEXTS[(draw as usize / CONTEXTS.len()) % CONTEXTS.len()];
            for word in [
                fault.clone(),
                [before, &fault[..], after].concat(),
                [&fault[..], b"A"].concat(),
            ] {
                if !word.is_empty() && word.len() <= MAX_LEN {
                    words.push(word);
                }
            }
        }
    }
    words
}

/// The shortest test word (of [`test_words`] and `more`) on which `hypothesis` and the
/// decoder disagree, cut after the first step where they do.
pub fn find_counterexample(
    oracle: &mut Oracle<'_>,
    hypothesis: &Hypothesis,
    depth: usize,
    more: Vec<Vec<u8>>,
) -> Option<Vec<u8>> {
    let mut words = test_words(hypothesis, depth);
    if !more.is_empty() {
        words.extend(more);
        words.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        words.dedup();
    }
    oracle.prefetch(words.iter().map(Vec::as_slice));
    for word in &words {
        let decoder = oracle.outputs(word);
        let expected = hypothesis.run(word);
        if let Some(step) = decoder.iter().zip(&expected).position(|(a, b)| a != b) {
            return Some(word[..=step].to_vec());
        }
    }
    None
}
