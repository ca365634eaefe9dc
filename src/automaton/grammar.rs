//! The grammar's automata, compiled from the reference's own parsed RFC 3629 grammar.
//!
//! The reference decoder ([`crate::reference`]) parses RFC 3629 §4 and compiles
//! `UTF8-char` into an NFA. Here that NFA is determinised (subset construction over its
//! live sets) and extended to the whole of
//!
//! ```text
//! UTF8-octets = *( UTF8-char )
//! ```
//!
//! with the reference's error-unit rule built into the machine, which makes it a unit
//! machine ([`UnitMachine`]): at a unit boundary a byte either starts a character or is an
//! error unit of its own; inside a character a byte either continues it, or ends the
//! pending bytes as an error unit, the *maximal subpart* of Unicode §3.9 D93b,
//!
//! > A maximal subpart of an ill-formed subsequence is the longest code unit subsequence
//! > starting at an unconvertible offset that is either (a) the initial subsequence of a
//! > well-formed code unit sequence, or (b) a subsequence of length one.
//!
//! and is then read afresh. Pending bytes at the end of input are an incomplete unit:
//! std's `error_len() == None` when it is the first error. The machine is then minimised
//! (Moore). Its language is the acceptor [`Grammar::language`], also minimal.
//!
//! This reading of the reference (one character at a time, no backtracking) is exact
//! because the character rule is *prefix-free*: no character is a prefix of another, so
//! the reference's "longest whole match" is the first one. [`Grammar::rfc3629`] checks
//! that property on the automaton instead of assuming it.

use crate::reference::matcher::StateSet;
use crate::reference::{GrammarError, Reference};

use super::machine::{explore, Acceptor, Action, EndAction, Role, UnitMachine};

/// Subset construction gives up beyond this many live sets.
const MAX_SUBSETS: usize = 4096;

/// The grammar's automata.
#[derive(Debug, Clone)]
pub struct Grammar {
    /// Subsets (DFA states) of the character rule, the dead set included.
    pub char_subsets: usize,
    /// The unit machine before minimisation.
    pub units_unminimized: UnitMachine,
    /// The minimal unit machine.
    pub units: UnitMachine,
    /// The minimal acceptor of `UTF8-octets`.
    pub language: Acceptor,
}

impl Grammar {
    /// The automata of the embedded RFC 3629 grammar.
    pub fn rfc3629() -> Result<Grammar, GrammarError> {
        Grammar::of(Reference::rfc3629())
    }

    /// The automata of a compiled reference.
    pub fn of(reference: &Reference) -> Result<Grammar, GrammarError> {
        let nfa = reference.automaton();
        let start = nfa.start_states();
        let subsets = char_subsets(reference)?;
        if nfa.is_accepting(start) {
            return Err(GrammarError(format!(
                "{} matches the empty input",
                reference.char_rule()
            )));
        }
        for &set in &subsets {
            if nfa.is_accepting(set) && (0..=255u8).any(|byte| nfa.step(set, byte) != 0) {
                return Err(GrammarError(format!(
                    "{} is not prefix-free: a character continues into a longer one",
                    reference.char_rule()
                )));
            }
        }
        // The key is the live set inside a character, `None` at a unit boundary.
        let first = |byte: u8| -> (Role, Option<StateSet>) {
            let next = nfa.step(start, byte);
            if next == 0 {
                (Role::ErrorAlone, None)
            } else if nfa.is_accepting(next) {
                (Role::EndsChar, None)
            } else {
                (Role::Pending, Some(next))
            }
        };
        let units_unminimized = explore(
            None,
            MAX_SUBSETS,
            |key: &Option<StateSet>, byte| match *key {
                None => {
                    let (role, next) = first(byte);
                    (
                        Action {
                            closes_error: false,
                            role,
                        },
                        next,
                    )
                }
                Some(live) => {
                    let next = nfa.step(live, byte);
                    if next == 0 {
                        // The pending bytes are a maximal subpart; the byte starts anew.
                        let (role, next) = first(byte);
                        (
                            Action {
                                closes_error: true,
                                role,
                            },
                            next,
                        )
                    } else if nfa.is_accepting(next) {
                        (
                            Action {
                                closes_error: false,
                                role: Role::EndsChar,
                            },
                            None,
                        )
                    } else {
                        (
                            Action {
                                closes_error: false,
                                role: Role::Pending,
                            },
                            Some(next),
                        )
                    }
                }
            },
            |key| match key {
                None => EndAction::Clean,
                Some(_) => EndAction::Incomplete,
            },
            |key| match key {
                None => "boundary".to_string(),
                Some(live) => expectation(reference, *live),
            },
        )
        .map_err(|e| GrammarError(e.to_string()))?;
        let units = units_unminimized.minimize();
        let language = units.language().minimize();
        Ok(Grammar {
            char_subsets: subsets.len() + 1,
            units_unminimized,
            units,
            language,
        })
    }
}

/// The live sets reachable from the start of the character rule (the empty set left
/// out), by subset construction.
fn char_subsets(reference: &Reference) -> Result<Vec<StateSet>, GrammarError> {
    let nfa = reference.automaton();
    let mut sets = vec![nfa.start_states()];
    let mut pending = 0;
    while pending < sets.len() {
        let live = sets[pending];
        for byte in 0..=255u8 {
            let next = nfa.step(live, byte);
            if next != 0 && !sets.contains(&next) {
                if sets.len() == MAX_SUBSETS {
                    return Err(GrammarError(format!(
                        "{} needs more than {MAX_SUBSETS} subsets",
                        reference.char_rule()
                    )));
                }
                sets.push(next);
            }
        }
        pending += 1;
    }
    Ok(sets)
}

/// A state's name for diagrams: what the grammar expects next and how many bytes the
/// character still needs at least, e.g. `UTF8-tail (%x80-BF), 2 more` or `%xA0-BF, 2
/// more`.
fn expectation(reference: &Reference, live: StateSet) -> String {
    let nfa = reference.automaton();
    let mut names: Vec<String> = Vec::new();
    for origin in nfa.expectations(live) {
        let name = origin.expected();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    // Breadth-first over live sets to the nearest accepting one.
    let mut frontier = vec![live];
    let mut needed = 0;
    while !frontier.iter().any(|&set| nfa.is_accepting(set)) && needed < 8 {
        let mut next: Vec<StateSet> = Vec::new();
        for &set in &frontier {
            for byte in 0..=255u8 {
                let target = nfa.step(set, byte);
                if target != 0 && !next.contains(&target) {
                    next.push(target);
                }
            }
        }
        frontier = next;
        needed += 1;
    }
    format!("{}, {needed} more", names.join(" / "))
}

#[cfg(test)]
mod tests {
    use super::super::machine::{units, UnitKind};
    use super::*;
    use crate::corpus::exhaustive::EDGE_ALPHABET;
    use crate::outcome::ErrorLen;

    #[test]
    fn rfc3629_has_the_textbook_minimal_automata() {
        let grammar = Grammar::rfc3629().unwrap();
        // Between characters, and the seven "inside a character" states of Unicode
        // Table 3-7 (one, two or three tails to go; after E0, ED, F0, F4).
        assert_eq!(grammar.units.state_count(), 8);
        // The same and an absorbing reject state.
        assert_eq!(grammar.language.state_count(), 9);
        assert!(grammar.units_unminimized.state_count() > grammar.units.state_count());
    }

    /// The machine's units are the reference decoder's units, on every input of up to 2
    /// bytes and on every input of 3 and 4 bytes over the class boundary bytes.
    #[test]
    fn units_agree_with_the_reference_decoder() {
        let grammar = Grammar::rfc3629().unwrap();
        let reference = Reference::rfc3629();
        let mut inputs: Vec<Vec<u8>> = vec![vec![]];
        inputs.extend((0..=255u8).map(|a| vec![a]));
        for a in 0..=255u8 {
            inputs.extend((0..=255u8).map(|b| vec![a, b]));
        }
        for &a in &EDGE_ALPHABET {
            for &b in &EDGE_ALPHABET {
                for &c in &EDGE_ALPHABET {
                    inputs.push(vec![a, b, c]);
                    inputs.extend(EDGE_ALPHABET.iter().map(|&d| vec![a, b, c, d]));
                }
            }
        }
        for input in inputs {
            let decoded = reference.decode(&input);
            let machine_errors: Vec<(usize, usize, bool)> = units(&grammar.units, &input)
                .iter()
                .filter(|unit| unit.kind != UnitKind::Char)
                .map(|unit| (unit.offset, unit.len, unit.kind == UnitKind::Incomplete))
                .collect();
            let reference_errors: Vec<(usize, usize, bool)> = decoded
                .errors
                .iter()
                .map(|error| (error.offset, error.len, error.incomplete))
                .collect();
            assert_eq!(machine_errors, reference_errors, "{input:02X?}");
            let first_error = machine_errors.first().map(|&(offset, len, incomplete)| {
                let len = if incomplete {
                    ErrorLen::Incomplete
                } else {
                    ErrorLen::Invalid(len)
                };
                (offset, len)
            });
            assert_eq!(first_error, decoded.first_error(), "{input:02X?}");
            assert_eq!(
                grammar.language.run(&input).1,
                decoded.is_valid(),
                "{input:02X?}"
            );
        }
    }

    #[test]
    fn a_grammar_that_is_not_prefix_free_is_refused() {
        let reference =
            Reference::from_grammar("octets = *( char )\nchar = %x41 / %x41 %x42").unwrap();
        let error = Grammar::of(&reference).unwrap_err();
        assert!(error.0.contains("prefix-free"), "{error}");
    }
}
