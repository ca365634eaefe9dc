//! The symbolic alphabet: byte classes, each learned through one representative.
//!
//! The learner starts from the classes RFC 3629 itself distinguishes, read from the
//! grammar's minimal unit machine ([`crate::automaton::grammar`]): two bytes are in one
//! class when every state of that machine treats them alike (same output, same next
//! state). That gives twelve classes, without a range written here: `00..7F`, `80..8F`,
//! `90..9F`, `A0..BF`, `C2..DF`, `E0`, `ED`, `F0`, `F1..F3`, `F4`, and two that are not
//! intervals, `C0..C1, F5..FF` (never in a character) and `E1..EC, EE..EF` (a 3-byte
//! lead with the full continuation range). A class is split wherever the decoder treats its bytes differently
//! ([`Alphabet::split`]); the learner checks every byte of every class at every state
//! (see [`super::learner`]), so every byte value can become a class of its own.

use std::collections::HashMap;

use crate::automaton::machine::UnitMachine;

/// A partition of the 256 byte values into classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alphabet {
    /// For each byte, its class.
    class_of: [u16; 256],
    /// For each class, its bytes (ascending) and its representative.
    classes: Vec<(Vec<u8>, u8)>,
}

/// The byte a class is learned through: `41` (`A`) for the class holding it, so that
/// witnesses read naturally; otherwise the class's first byte.
fn representative(bytes: &[u8]) -> u8 {
    if bytes.contains(&b'A') {
        b'A'
    } else {
        bytes[0]
    }
}

impl Alphabet {
    /// The classes of bytes that every state of `machine` treats alike.
    pub fn of_machine(machine: &UnitMachine) -> Alphabet {
        let mut groups: HashMap<Vec<(usize, crate::automaton::machine::Action)>, Vec<u8>> =
            HashMap::new();
        for byte in 0..=255u8 {
            let signature: Vec<_> = (0..machine.state_count())
                .map(|state| machine.step(state, byte))
                .collect();
            groups.entry(signature).or_default().push(byte);
        }
        let mut classes: Vec<Vec<u8>> = groups.into_values().collect();
        classes.sort();
        Alphabet::from_classes(classes)
    }

    /// The alphabet of `classes`, which must partition the 256 byte values.
    pub fn from_classes(classes: Vec<Vec<u8>>) -> Alphabet {
        let mut class_of = [0u16; 256];
        for (index, bytes) in classes.iter().enumerate() {
            for &byte in bytes {
                class_of[usize::from(byte)] = index as u16;
            }
        }
        Alphabet {
            class_of,
            classes: classes
                .into_iter()
                .map(|bytes| {
                    let rep = representative(&bytes);
                    (bytes, rep)
                })
                .collect(),
        }
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Never true: the 256 bytes are always partitioned.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The representatives, one per class, in class order.
    pub fn representatives(&self) -> Vec<u8> {
        self.classes.iter().map(|&(_, rep)| rep).collect()
    }

    /// The bytes of class `index`.
    pub fn bytes(&self, index: usize) -> &[u8] {
        &self.classes[index].0
    }

    /// The representative of class `index`.
    pub fn representative(&self, index: usize) -> u8 {
        self.classes[index].1
    }

    /// The class of `byte`.
    pub fn class_of(&self, byte: u8) -> usize {
        usize::from(self.class_of[usize::from(byte)])
    }

    /// Splits class `index` into `groups` (which partition its bytes; the group holding
    /// the old representative keeps the class's place). Returns whether anything changed.
    pub fn split(&mut self, index: usize, mut groups: Vec<Vec<u8>>) -> bool {
        if groups.len() < 2 {
            return false;
        }
        let rep = self.classes[index].1;
        groups.sort_by_key(|group| !group.contains(&rep));
        let mut classes: Vec<Vec<u8>> = self.classes.iter().map(|(b, _)| b.clone()).collect();
        classes[index] = groups.remove(0);
        classes.extend(groups);
        let reps: Vec<u8> = self.classes.iter().map(|&(_, r)| r).collect();
        *self = Alphabet::from_classes(classes);
        // Representatives already chosen are kept, so that earlier queries stay valid.
        for (class, &old) in reps.iter().enumerate() {
            self.classes[class].1 = old;
        }
        true
    }
}

/// Byte ranges of a sorted byte set: `[(first, last)]`.
pub fn ranges(bytes: &[u8]) -> Vec<(u8, u8)> {
    let mut out: Vec<(u8, u8)> = Vec::new();
    for &byte in bytes {
        match out.last_mut() {
            Some((_, last)) if u16::from(*last) + 1 == u16::from(byte) => *last = byte,
            _ => out.push((byte, byte)),
        }
    }
    out
}

/// Byte ranges as people read them: `80..9F, C0`.
pub fn format_ranges(bytes: &[u8]) -> String {
    ranges(bytes)
        .iter()
        .map(|&(a, b)| {
            if a == b {
                format!("{a:02X}")
            } else {
                format!("{a:02X}..{b:02X}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::grammar::Grammar;

    #[test]
    fn the_grammar_gives_the_classes_of_rfc_3629() {
        let alphabet = Alphabet::of_machine(&Grammar::rfc3629().unwrap().units);
        let listed: Vec<String> = (0..alphabet.len())
            .map(|c| format_ranges(alphabet.bytes(c)))
            .collect();
        assert_eq!(
            listed,
            [
                "00..7F",
                "80..8F",
                "90..9F",
                "A0..BF",
                "C0..C1, F5..FF",
                "C2..DF",
                "E0",
                "E1..EC, EE..EF",
                "ED",
                "F0",
                "F1..F3",
                "F4"
            ]
        );
        assert_eq!(alphabet.representative(0), b'A');
    }

    #[test]
    fn a_split_keeps_the_representatives() {
        let mut alphabet = Alphabet::of_machine(&Grammar::rfc3629().unwrap().units);
        let ascii = alphabet.bytes(0).to_vec();
        let (nul, rest): (Vec<u8>, Vec<u8>) = ascii.iter().partition(|&&b| b == 0);
        assert!(alphabet.split(0, vec![nul, rest]));
        assert_eq!(alphabet.len(), 13);
        assert_eq!(alphabet.representative(0), b'A');
        assert_eq!(alphabet.bytes(12), &[0]);
        assert_eq!(alphabet.class_of(0), 12);
    }
}
