//! Finite machines over bytes: built by exploration, minimised, compared.
//!
//! One type, [`Machine`], serves both kinds of automaton the proofs need:
//!
//! - a **unit machine** ([`UnitMachine`]): a Mealy machine whose output on each byte says
//!   how that byte falls into decoding units (characters and error units), and whose
//!   output at the end of input says whether an incomplete unit is left. Two unit machines
//!   with the same outputs on every input split every input into the same units, so they
//!   agree on acceptance, on std's `valid_up_to` / `error_len`, and on every maximal
//!   subpart (see [`units`]);
//! - an **acceptor** ([`Acceptor`]): a plain DFA (no output per byte, accept or reject at
//!   the end), for checks that only decide well-formedness.
//!
//! Machines are built by [`explore`]: breadth-first from a start key through a step
//! function, numbering each new key. That is how each automaton is *read from the code it
//! models* (the grammar's NFA, the fast decoder's shift table, the SIMD lookup tables)
//! rather than written down by hand. [`Machine::minimize`] is Moore's partition
//! refinement, and [`compare`] is the product-automaton search: breadth-first over pairs
//! of states, so the first difference found is reached by a shortest input (and, bytes
//! being tried in increasing order, the lexicographically least of those).

use std::collections::{HashMap, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;

/// How one byte falls into decoding units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Action {
    /// The bytes pending before this one form an error unit that ends here (a maximal
    /// subpart, Unicode D93b: the byte cannot continue them); the byte is then read
    /// afresh at a unit boundary.
    pub closes_error: bool,
    /// What the byte itself does.
    pub role: Role,
}

/// What a byte does once any error unit before it is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Starts or continues a unit that is not finished yet.
    Pending,
    /// Ends a well-formed character.
    EndsChar,
    /// Is an error unit of its own (it starts no character).
    ErrorAlone,
}

/// What is left at the end of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndAction {
    /// Nothing: the input ended at a unit boundary.
    Clean,
    /// The pending bytes are a prefix of a character cut off by the end of input: an
    /// error unit with std's `error_len() == None` when it is the first.
    Incomplete,
}

/// A deterministic machine over bytes with output `T` per transition and `E` at the end
/// of input. State 0 is the start.
#[derive(Debug, Clone)]
pub struct Machine<T, E> {
    next: Vec<u32>,
    output: Vec<T>,
    end: Vec<E>,
    labels: Vec<String>,
}

/// A Mealy machine splitting inputs into units (see the module documentation).
pub type UnitMachine = Machine<Action, EndAction>;

/// A DFA deciding a language: no output per byte, acceptance at the end.
pub type Acceptor = Machine<(), bool>;

/// A machine grew past the limit given to [`explore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge(pub usize);

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the machine has more than {} states", self.0)
    }
}

impl std::error::Error for TooLarge {}

/// Builds the machine reachable from `start`: `step(key, byte)` gives the output and the
/// next key, `end(key)` the end-of-input output, `label(key)` a name for diagrams.
pub fn explore<K, T, E>(
    start: K,
    limit: usize,
    mut step: impl FnMut(&K, u8) -> (T, K),
    mut end: impl FnMut(&K) -> E,
    mut label: impl FnMut(&K) -> String,
) -> Result<Machine<T, E>, TooLarge>
where
    K: Clone + Eq + Hash,
{
    let mut numbers: HashMap<K, u32> = HashMap::from([(start.clone(), 0)]);
    let mut keys = vec![start];
    let mut machine = Machine {
        next: Vec::new(),
        output: Vec::new(),
        end: Vec::new(),
        labels: Vec::new(),
    };
    let mut pending = 0;
    while pending < keys.len() {
        let key = keys[pending].clone();
        for byte in 0..=255u8 {
            let (output, target) = step(&key, byte);
            let number = match numbers.get(&target) {
                Some(&number) => number,
                None => {
                    if keys.len() == limit {
                        return Err(TooLarge(limit));
                    }
                    let number = keys.len() as u32;
                    numbers.insert(target.clone(), number);
                    keys.push(target);
                    number
                }
            };
            machine.next.push(number);
            machine.output.push(output);
        }
        machine.end.push(end(&key));
        machine.labels.push(label(&key));
        pending += 1;
    }
    Ok(machine)
}

impl<T, E> Machine<T, E>
where
    T: Copy + Eq + Hash,
    E: Copy + Eq + Hash,
{
    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.end.len()
    }

    /// The state after reading `byte` in `state`, and the transition's output.
    pub fn step(&self, state: usize, byte: u8) -> (usize, T) {
        let index = state * 256 + byte as usize;
        (self.next[index] as usize, self.output[index])
    }

    /// The end-of-input output of `state`.
    pub fn end(&self, state: usize) -> E {
        self.end[state]
    }

    /// The diagram name of `state`.
    pub fn label(&self, state: usize) -> &str {
        &self.labels[state]
    }

    /// The outputs along `input` from the start, and the end output.
    pub fn run(&self, input: &[u8]) -> (Vec<T>, E) {
        let mut state = 0;
        let mut outputs = Vec::with_capacity(input.len());
        for &byte in input {
            let (next, output) = self.step(state, byte);
            outputs.push(output);
            state = next;
        }
        (outputs, self.end(state))
    }

    /// The equivalent machine with the fewest states (Moore's algorithm): states are
    /// merged when no input tells them apart by output. Each merged state keeps the label
    /// of its first member; states are renumbered breadth-first from the start.
    pub fn minimize(&self) -> Machine<T, E> {
        let count = self.state_count();
        // Initial partition: same end output and same output on every byte.
        let mut class: Vec<u32> = {
            let mut ids: HashMap<(E, &[T]), u32> = HashMap::new();
            (0..count)
                .map(|s| {
                    let key = (self.end[s], &self.output[s * 256..s * 256 + 256]);
                    let next_id = ids.len() as u32;
                    *ids.entry(key).or_insert(next_id)
                })
                .collect()
        };
        let mut classes = class.iter().max().map_or(0, |&m| m as usize + 1);
        loop {
            let mut ids: HashMap<Vec<u32>, u32> = HashMap::new();
            let refined: Vec<u32> = (0..count)
                .map(|s| {
                    let mut key = Vec::with_capacity(257);
                    key.push(class[s]);
                    key.extend(
                        self.next[s * 256..s * 256 + 256]
                            .iter()
                            .map(|&t| class[t as usize]),
                    );
                    let next_id = ids.len() as u32;
                    *ids.entry(key).or_insert(next_id)
                })
                .collect();
            let refined_classes = ids.len();
            class = refined;
            if refined_classes == classes {
                break;
            }
            classes = refined_classes;
        }
        let representative: Vec<usize> = {
            let mut first = vec![usize::MAX; classes];
            for s in (0..count).rev() {
                first[class[s] as usize] = s;
            }
            first
        };
        explore(
            class[0],
            classes + 1,
            |&c, byte| {
                let (next, output) = self.step(representative[c as usize], byte);
                (output, class[next])
            },
            |&c| self.end[representative[c as usize]],
            |&c| self.labels[representative[c as usize]].clone(),
        )
        .expect("a quotient has no more states than classes")
    }

    /// Byte ranges from `state` with the same target and output, in byte order:
    /// `(first, last, target, output)`.
    pub fn edges(&self, state: usize) -> Vec<(u8, u8, usize, T)> {
        let mut edges: Vec<(u8, u8, usize, T)> = Vec::new();
        for byte in 0..=255u8 {
            let (target, output) = self.step(state, byte);
            match edges.last_mut() {
                Some((_, last, t, o)) if *t == target && *o == output && *last + 1 == byte => {
                    *last = byte;
                }
                _ => edges.push((byte, byte, target, output)),
            }
        }
        edges
    }
}

impl UnitMachine {
    /// The language of inputs with no error unit, as an acceptor: an error goes to an
    /// absorbing rejecting state.
    pub fn language(&self) -> Acceptor {
        let dead = self.state_count();
        explore(
            0usize,
            dead + 1,
            |&s, byte| {
                if s == dead {
                    return ((), dead);
                }
                let (next, action) = self.step(s, byte);
                let error = action.closes_error || action.role == Role::ErrorAlone;
                ((), if error { dead } else { next })
            },
            |&s| s != dead && self.end(s) == EndAction::Clean,
            |&s| {
                if s == dead {
                    "reject".to_string()
                } else {
                    self.label(s).to_string()
                }
            },
        )
        .expect("one more state than the unit machine")
    }
}

/// A decoding unit, as a unit machine splits an input.
///
/// Any unit of the parse, a character as well as an error, so it is not an error unit:
/// a learned machine's answers (`valid`, `valid_up_to`, `error_len`) are read off the
/// sequence of these, and [`UnitKind`] tells characters, error units followed by more
/// input, and error units cut off by the end apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// Offset of the first byte.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
    /// What the unit is.
    pub kind: UnitKind,
}

/// The kinds of unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// A well-formed character.
    Char,
    /// An error unit (maximal subpart) followed by more input.
    Error,
    /// An error unit cut off by the end of input (std's `error_len() == None`).
    Incomplete,
}

/// The units of `input` according to `machine`. This is how an action trace determines
/// the decoder's answers: `valid` is "no error unit", `valid_up_to` the offset of the
/// first error unit, `error_len` its length (`None` for [`UnitKind::Incomplete`]), and
/// the lossy decode has one U+FFFD per error unit.
pub fn units(machine: &UnitMachine, input: &[u8]) -> Vec<Unit> {
    let (actions, end) = machine.run(input);
    let mut units = Vec::new();
    let mut start = 0;
    for (i, action) in actions.iter().enumerate() {
        if action.closes_error {
            units.push(Unit {
                offset: start,
                len: i - start,
                kind: UnitKind::Error,
            });
            start = i;
        }
        match action.role {
            Role::Pending => {}
            Role::EndsChar => {
                units.push(Unit {
                    offset: start,
                    len: i + 1 - start,
                    kind: UnitKind::Char,
                });
                start = i + 1;
            }
            Role::ErrorAlone => {
                // A byte that starts nothing, alone (pending bytes before it, if any,
                // were closed above).
                units.push(Unit {
                    offset: i,
                    len: 1,
                    kind: UnitKind::Error,
                });
                start = i + 1;
            }
        }
    }
    if start < input.len() || end == EndAction::Incomplete {
        units.push(Unit {
            offset: start,
            len: input.len() - start,
            kind: UnitKind::Incomplete,
        });
    }
    units
}

/// Formats units as `[E0 80] error, [41] char`.
pub fn describe_units(input: &[u8], units: &[Unit]) -> String {
    units
        .iter()
        .map(|unit| {
            let bytes: Vec<String> = input[unit.offset..unit.offset + unit.len]
                .iter()
                .map(|b| format!("{b:02X}"))
                .collect();
            let kind = match unit.kind {
                UnitKind::Char => "char",
                UnitKind::Error => "error",
                UnitKind::Incomplete => "incomplete",
            };
            format!("[{}] {kind}", bytes.join(" "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The outcome of a product-automaton search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No input tells the machines apart; `pairs` pairs of states were visited.
    Equivalent {
        /// Reachable pairs of states in the product.
        pairs: usize,
    },
    /// A shortest input on which they differ.
    Differs(Counterexample),
}

/// A shortest distinguishing input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// The input; the machines differ on its last byte, or at its end.
    pub input: Vec<u8>,
    /// True when they differ only at the end of input.
    pub at_end: bool,
}

impl Verdict {
    /// True for [`Verdict::Equivalent`].
    pub fn is_equivalent(&self) -> bool {
        matches!(self, Verdict::Equivalent { .. })
    }
}

/// A pair of states of a product automaton.
pub type Pair = (usize, usize);
/// For each pair a breadth-first search of a product reached, the pair and byte it was
/// first reached from (`None` for the start).
pub type Parents = HashMap<Pair, Option<(Pair, u8)>>;

/// The input that leads from the start to `pair` along `parent`: the shortest, when
/// `parent` was filled breadth-first.
pub fn path_to(parent: &Parents, mut pair: Pair) -> Vec<u8> {
    let mut input = Vec::new();
    while let Some(&Some((previous, byte))) = parent.get(&pair) {
        input.push(byte);
        pair = previous;
    }
    input.reverse();
    input
}

/// Searches the product of `a` and `b` breadth-first for an input on which their outputs
/// differ. `settled(sa, sb)` may declare a pair equal on every continuation (for
/// acceptors: both in an absorbing rejecting state) to cut the search short.
pub fn compare<T, E>(
    a: &Machine<T, E>,
    b: &Machine<T, E>,
    settled: impl Fn(usize, usize) -> bool,
) -> Verdict
where
    T: Copy + Eq + Hash,
    E: Copy + Eq + Hash,
{
    // parent[pair] = (previous pair, byte) for the path back to the start.
    let mut parent: Parents = HashMap::from([((0, 0), None)]);
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    while let Some((sa, sb)) = queue.pop_front() {
        if a.end(sa) != b.end(sb) {
            return Verdict::Differs(Counterexample {
                input: path_to(&parent, (sa, sb)),
                at_end: true,
            });
        }
        if settled(sa, sb) {
            continue;
        }
        for byte in 0..=255u8 {
            let (ta, oa) = a.step(sa, byte);
            let (tb, ob) = b.step(sb, byte);
            if oa != ob {
                let mut input = path_to(&parent, (sa, sb));
                input.push(byte);
                return Verdict::Differs(Counterexample {
                    input,
                    at_end: false,
                });
            }
            if let std::collections::hash_map::Entry::Vacant(entry) = parent.entry((ta, tb)) {
                entry.insert(Some(((sa, sb), byte)));
                queue.push_back((ta, tb));
            }
        }
    }
    Verdict::Equivalent {
        pairs: parent.len(),
    }
}

/// [`compare`] for acceptors, with pairs of absorbing rejecting states settled.
pub fn compare_languages(a: &Acceptor, b: &Acceptor) -> Verdict {
    let dead_a = absorbing_rejects(a);
    let dead_b = absorbing_rejects(b);
    compare(a, b, |sa, sb| dead_a[sa] && dead_b[sb])
}

/// For each state: does it reject every input from there on (a self-loop on every byte
/// that rejects)?
fn absorbing_rejects(machine: &Acceptor) -> Vec<bool> {
    (0..machine.state_count())
        .map(|s| !machine.end(s) && (0..=255u8).all(|byte| machine.step(s, byte).0 == s))
        .collect()
}

#[cfg(test)]
mod tests;
