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
// The product's pairs are (decoder state, reference state).
use crate::automaton::machine::{path_to, Pair, Parents};
use crate::taxonomy::Category;

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
            let last = group.witness.len() - 1;
            group.witness[last] = typical_byte(reference, r, &group.bytes);
            group.bytes.sort_unstable();
        }
        found.extend(groups);
    }
    (found, parent.len())
}

/// The byte a difference is witnessed by: one the grammar reads as it reads most of the
/// difference's bytes (the reference state most of them lead to), the first of those in
/// the order bytes are tried. A decoder that takes every byte of `C0..F4` alike at a
/// character boundary does with them what the grammar does with a lead byte, and the
/// grammar has 51 such leads and two bytes it rejects outright: the difference is
/// witnessed by `C2`, not by `C0`, whose reading needs the decoder's other bugs as well.
fn typical_byte(reference: &Hypothesis, state: usize, bytes: &[u8]) -> u8 {
    let target = |byte: u8| reference.step(state, byte).0;
    let mut counts: HashMap<usize, usize> = HashMap::new();
    for &byte in bytes {
        *counts.entry(target(byte)).or_default() += 1;
    }
    // `bytes` is in the order the bytes were tried, so the first of the most common
    // reading wins ties and keeps a class's representative.
    let mut best = bytes[0];
    for &byte in bytes {
        if counts[&target(byte)] > counts[&target(best)] {
            best = byte;
        }
    }
    best
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

/// RFC 3629's checks on the value of a sequence whose shape is right, each stated on its
/// own in section 3: "a naive implementation may decode the overlong UTF-8 sequence C0
/// 80 into the character U+0000" (shortest form), "The definition of UTF-8 prohibits
/// encoding character numbers between U+D800 and U+DFFF" (surrogates), and "characters
/// from the U+0000..U+10FFFF range ... are encoded using sequences of 1 to 4 octets"
/// (above U+10FFFF, and the 5- and 6-byte forms of RFC 2279).
fn value_check(category: Option<Category>) -> bool {
    matches!(
        category,
        Some(
            Category::Overlong2
                | Category::Overlong3
                | Category::Overlong4
                | Category::Surrogate
                | Category::AboveMax
                | Category::Legacy5Or6Byte
        )
    )
}

/// The longest access word looked at for another value check reaching the same pair.
const VALUE_WORD: usize = 5;

/// Adds, for each difference whose witness breaks one of RFC 3629's value checks, a copy
/// witnessed by every other value check that reaches the same pair of states (through
/// agreeing transitions for a primary difference, through any for the others).
///
/// A decoder that skips the value checks does the same thing, in the same state, after
/// `E0 80` (an overlong form) as after `ED A0` (a surrogate): its machine over byte
/// classes has one transition for both, and the product one pair. The breadth-first
/// search keeps one shortest witness per pair, so every check but the first would be
/// hidden behind it, though each is a prohibition of its own in RFC 3629 and may be
/// missing alone. The same holds behind an earlier difference: a decoder that reports a
/// lead byte at the end of input as a definite error reaches the last byte of
/// `ED A0 80`, `F4 90 80 80` and `F8 88 80 80 80` in one pair. Each copy is confirmed
/// against the decoder like any difference.
pub fn value_checks(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    differences: &mut Vec<Difference>,
) {
    let order = byte_order(decoder, reference);
    let checked = |d: &&Difference| value_check(super::title::category(&d.witness));
    let agreeing = if differences
        .iter()
        .filter(|d| d.primary)
        .any(|d| checked(&d))
    {
        value_words(decoder, reference, &order, true)
    } else {
        HashMap::new()
    };
    let any = if differences
        .iter()
        .filter(|d| !d.primary)
        .any(|d| checked(&d))
    {
        value_words(decoder, reference, &order, false)
    } else {
        HashMap::new()
    };
    let mut copies = Vec::new();
    for d in differences.iter().filter(checked) {
        let words = if d.primary { &agreeing } else { &any };
        let mut seen = vec![super::title::category(&d.witness)];
        let mut reaching: Vec<&Vec<u8>> = words
            .iter()
            .filter(|((pair, _), _)| *pair == (d.decoder_state, d.reference_state))
            .map(|(_, word)| word)
            .collect();
        reaching.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        // The difference's own last byte first (the one the grammar reads as it reads
        // most of the bytes, `typical_byte`), so that a copy is witnessed by it too.
        let own = d.witness[d.witness.len() - 1];
        let bytes: Vec<u8> = std::iter::once(own)
            .chain(d.bytes.iter().copied().filter(|&b| b != own))
            .collect();
        for word in reaching {
            for &byte in &bytes {
                let mut witness = word.clone();
                witness.push(byte);
                let category = super::title::category(&witness);
                if value_check(category) && !seen.contains(&category) {
                    seen.push(category);
                    copies.push(Difference {
                        witness,
                        ..d.clone()
                    });
                }
            }
        }
    }
    differences.extend(copies);
    for d in differences.iter_mut() {
        one_check(decoder, reference, d);
    }
}

/// How many of RFC 3629's prohibitions the sequence that `witness` ends in breaks by
/// its value (the sequence from its last lead byte): a 5- or 6-byte form (whose values
/// are all above U+10FFFF, so that is not counted again), a non-shortest form, a
/// surrogate, a 4-byte form above U+10FFFF. Continuation bytes cut off by the end count
/// as `80`, the least the prefix can still become.
fn checks_broken(witness: &[u8]) -> usize {
    let Some(at) = witness.iter().rposition(|&b| b >= 0xC0) else {
        return 0;
    };
    let n = crate::taxonomy::announced_len(witness[at]);
    let mut sequence: Vec<u8> = witness[at..].iter().copied().take(n).collect();
    sequence.resize(n, 0x80);
    let Some(value) = crate::taxonomy::lax_value(&sequence) else {
        return 0;
    };
    let shortest = [0, 0, 0x80, 0x800, 0x1_0000, 0x20_0000, 0x400_0000][n];
    usize::from(n >= 5)
        + usize::from(value < shortest)
        + usize::from((0xD800..=0xDFFF).contains(&value))
        + usize::from(n == 4 && value > 0x10_FFFF)
}

/// Gives `d` a witness that breaks one prohibition where the same path through both
/// machines allows it: `F8 80 80 80 80` is a 5-byte form *and* a non-shortest one, so a
/// decoder that accepts both kinds shows both bugs on it, where `F9 80 80 80 80` (a
/// 5-byte form of U+1000000) shows the 5-byte form alone. Each byte is replaced only by
/// one that takes both machines through the same states with the same outputs, so the
/// witness ends in the same difference; the lowest such byte is taken.
fn one_check(decoder: &Hypothesis, reference: &Hypothesis, d: &mut Difference) {
    let mut broken = checks_broken(&d.witness);
    let last = d.witness.len() - 1;
    let (mut ds, mut rs) = (0, 0);
    for at in 0..d.witness.len() {
        let original = d.witness[at];
        let steps = (decoder.step(ds, original), reference.step(rs, original));
        if broken > 1 {
            for byte in 0..=255u8 {
                let same = (decoder.step(ds, byte), reference.step(rs, byte)) == steps
                    && (at < last || d.bytes.contains(&byte));
                if !same || byte == original {
                    continue;
                }
                d.witness[at] = byte;
                let now = checks_broken(&d.witness);
                if now < broken {
                    broken = now;
                    break;
                }
                d.witness[at] = original;
            }
        }
        (ds, rs) = (steps.0 .0, steps.1 .0);
    }
}

/// The first word (breadth-first, at most [`VALUE_WORD`] bytes) reaching each pair of
/// states with a given category of its own: through agreeing transitions only, or
/// through any.
fn value_words(
    decoder: &Hypothesis,
    reference: &Hypothesis,
    order: &[u8],
    agreeing_only: bool,
) -> HashMap<(Pair, Option<Category>), Vec<u8>> {
    let mut words: HashMap<(Pair, Option<Category>), Vec<u8>> =
        HashMap::from([(((0, 0), None), Vec::new())]);
    let mut queue = VecDeque::from([((0usize, 0usize), Vec::new())]);
    while let Some(((d, r), word)) = queue.pop_front() {
        if word.len() >= VALUE_WORD {
            continue;
        }
        for &byte in order {
            let (dn, dout) = decoder.step(d, byte);
            let (rn, rout) = reference.step(r, byte);
            if agreeing_only && !agree(dout, rout) {
                continue;
            }
            let mut next = word.clone();
            next.push(byte);
            let key = ((dn, rn), super::title::category(&next));
            if let std::collections::hash_map::Entry::Vacant(entry) = words.entry(key) {
                entry.insert(next.clone());
                queue.push_back(((dn, rn), next));
            }
        }
    }
    words
}
