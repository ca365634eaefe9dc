//! The difference of two learned machines: their product, searched breadth-first, and
//! every transition on which their outputs differ, with its shortest witness.
//!
//! This is the product search of [`crate::automaton::machine::compare`], which stops at
//! the first difference, carried on over every reachable pair: a bug behind another bug
//! is still found, because the product has both transitions. Each difference also says
//! whether its pair of states is reached through agreeing transitions alone
//! (`primary`); a difference reached only through another one is a *manifestation* of
//! that one (the decoder is already off the grammar's track when it shows).

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use super::learner::Hypothesis;
use super::output::StepOutput;

/// One differing transition family: at one pair of states, the bytes on which the
/// decoder's output is `decoder` where the reference's is `reference`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The decoder's state.
    pub decoder_state: usize,
    /// The reference's state.
    pub reference_state: usize,
    /// The bytes, ascending.
    #[serde(serialize_with = "super::json::serialize_ranges")]
    pub bytes: Vec<u8>,
    /// The decoder's output on them.
    pub decoder: StepOutput,
    /// The reference's output on them.
    pub reference: StepOutput,
    /// A shortest input ending in this transition.
    #[serde(serialize_with = "super::json::serialize_hex")]
    pub witness: Vec<u8>,
    /// Reached through agreeing transitions only.
    pub primary: bool,
}

/// Whether two outputs agree: the same strict side, and the same lossy side where both
/// have one (a decoder that gives scalars only for valid input, as a fatal decoder does,
/// is not compared on scalars it did not give).
pub fn agree(a: StepOutput, b: StepOutput) -> bool {
    a.strict == b.strict && (a.lossy.is_none() || b.lossy.is_none() || a.lossy == b.lossy)
}

/// A pair of states (decoder, reference) of the product.
type Pair = (usize, usize);
/// For each pair reached, the pair and byte it was first reached from.
type Parents = HashMap<Pair, Option<(Pair, u8)>>;

/// The order bytes are tried in: the representatives of both machines first, so that
/// witnesses are made of the bytes the classes are known by (`41` rather than `00`).
fn byte_order(a: &Hypothesis, b: &Hypothesis) -> Vec<u8> {
    let mut order: Vec<u8> = a.alphabet.representatives();
    order.extend(b.alphabet.representatives());
    order.extend(0..=255u8);
    let mut seen = [false; 256];
    order.retain(|&byte| !std::mem::replace(&mut seen[usize::from(byte)], true));
    order
}

/// Every difference between `decoder` and `reference`, in breadth-first order of their
/// pairs (so shortest witnesses first); and the number of reachable pairs.
pub fn differences(decoder: &Hypothesis, reference: &Hypothesis) -> (Vec<Difference>, usize) {
    let order = byte_order(decoder, reference);
    let agreeing = agreeing_pairs(decoder, reference, &order);
    let mut parent: Parents = HashMap::from([((0, 0), None)]);
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    let mut found = Vec::new();
    while let Some((d, r)) = queue.pop_front() {
        let path = path_to(&parent, (d, r));
        let mut groups: Vec<Difference> = Vec::new();
        for &byte in &order {
            let (dn, dout) = decoder.step(d, byte);
            let (rn, rout) = reference.step(r, byte);
            if !agree(dout, rout) {
                match groups
                    .iter_mut()
                    .find(|g| g.decoder == dout && g.reference == rout)
                {
                    Some(group) => group.bytes.push(byte),
                    None => {
                        let mut witness = path.clone();
                        witness.push(byte);
                        groups.push(Difference {
                            decoder_state: d,
                            reference_state: r,
                            bytes: vec![byte],
                            decoder: dout,
                            reference: rout,
                            witness,
                            primary: agreeing.contains_key(&(d, r)),
                        });
                    }
                }
            }
            if let std::collections::hash_map::Entry::Vacant(entry) = parent.entry((dn, rn)) {
                entry.insert(Some(((d, r), byte)));
                queue.push_back((dn, rn));
            }
        }
        for group in &mut groups {
            group.bytes.sort_unstable();
        }
        found.extend(groups);
    }
    (found, parent.len())
}

fn path_to(parent: &Parents, mut pair: Pair) -> Vec<u8> {
    let mut input = Vec::new();
    while let Some(&Some((previous, byte))) = parent.get(&pair) {
        input.push(byte);
        pair = previous;
    }
    input.reverse();
    input
}

/// The pairs reachable from the start through transitions with equal outputs.
fn agreeing_pairs(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    order: &[u8],
) -> HashMap<(usize, usize), ()> {
    let mut seen = HashMap::from([((0, 0), ())]);
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    while let Some((d, r)) = queue.pop_front() {
        for &byte in order {
            let (dn, dout) = decoder.step(d, byte);
            let (rn, rout) = reference.step(r, byte);
            if agree(dout, rout) && seen.insert((dn, rn), ()).is_none() {
                queue.push_back((dn, rn));
            }
        }
    }
    seen
}
