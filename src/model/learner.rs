//! The learner: Angluin's L* for Mealy machines, with Rivest and Schapire's counterexample
//! processing, over a symbolic byte alphabet.
//!
//! The observation table has rows for *access words* `S` (one per state, prefix-closed,
//! pairwise distinguishable) and columns for *suffixes* `E`; the entry for `u` and `e` is
//! the decoder's step outputs on `e` after `u` ([`Oracle::outputs_from`]). Each round:
//!
//! 1. **Close**: for every `u ∈ S` and class representative `r`, the row of `u·r` must be
//!    the row of some state; a new row is a new state (`u·r` joins `S`).
//! 2. **Refine the alphabet**: for every state `u` and *every byte* `b` of every class, the
//!    one-step output of `u·b` and the row of `u·b` must be those of the class's
//!    representative; bytes that differ are split off into classes of their own (grouped
//!    by what they do). This is where a decoder's own byte classes come from (`00` for a
//!    decoder stopping at U+0000, `BB` for one stripping a BOM), so no fixed set of
//!    representatives can hide a byte.
//! 3. **Equivalence**: the hypothesis is run against the test words of
//!    [`super::equivalence`]; the shortest word where it disagrees with the decoder is a
//!    counterexample, cut after its first disagreeing step.
//! 4. **Counterexample** (Rivest–Schapire): for the counterexample `w` and the
//!    hypothesis's access words `u_i` of its prefixes, find the step `i` where replacing
//!    `w[..i]` by `u_i` still disagrees but replacing `w[..=i]` by `u_{i+1}` does not; the
//!    suffix `w[i+1..]` then tells `u_i·w[i]` from `u_{i+1}` and joins `E` (a new state
//!    next round), or, when it is empty, byte `w[i]` behaves unlike its class's
//!    representative (a split next round).
//!
//! Every query goes through the oracle's batches: each phase first hands the oracle all
//! the words it will ask.

use std::collections::HashMap;
use std::time::Instant;

use super::alphabet::Alphabet;
use super::equivalence;
use super::oracle::Oracle;
use super::output::StepOutput;

/// A hypothesis: states (with their access words) and, per state and class, the next
/// state and the output.
#[derive(Debug, Clone)]
pub struct Hypothesis {
    /// The byte classes.
    pub alphabet: Alphabet,
    /// The access word of each state; state 0 is the start (the empty word).
    pub access: Vec<Vec<u8>>,
    /// `next[state][class]`.
    pub next: Vec<Vec<usize>>,
    /// `output[state][class]`.
    pub output: Vec<Vec<StepOutput>>,
}

impl Hypothesis {
    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.access.len()
    }

    /// The next state and output of `state` on `byte`.
    pub fn step(&self, state: usize, byte: u8) -> (usize, StepOutput) {
        let class = self.alphabet.class_of(byte);
        (self.next[state][class], self.output[state][class])
    }

    /// The state after `word`.
    pub fn state_after(&self, word: &[u8]) -> usize {
        word.iter().fold(0, |state, &byte| self.step(state, byte).0)
    }

    /// The outputs along `word`.
    pub fn run(&self, word: &[u8]) -> Vec<StepOutput> {
        self.run_from(0, word)
    }

    /// The outputs of each step on `word` from `state`.
    pub fn run_from(&self, state: usize, word: &[u8]) -> Vec<StepOutput> {
        let mut state = state;
        word.iter()
            .map(|&byte| {
                let (next, output) = self.step(state, byte);
                state = next;
                output
            })
            .collect()
    }
}

/// Why learning stopped short of a model the equivalence oracle accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incomplete {
    /// The hypothesis grew past the state limit (a position or length counter, most
    /// likely: out of the learner's scope).
    TooManyStates(usize),
    /// More equivalence rounds than the limit.
    TooManyRounds(usize),
    /// The budget ran out: more decodes than allowed, or past the deadline (the
    /// check that asked must stay within its time; the machine so far is kept).
    OverBudget {
        /// Inputs decoded when learning stopped.
        decodes: u64,
        /// True when the deadline, not the decode count, stopped it.
        timed_out: bool,
    },
}

/// Bounds on one learning run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest hypothesis accepted.
    pub max_states: usize,
    /// Most equivalence rounds.
    pub max_rounds: usize,
    /// Most inputs decoded (membership queries that reach the decoder).
    pub max_decodes: u64,
    /// When learning must stop, whatever it has.
    pub deadline: Option<Instant>,
    /// How many representatives the equivalence test words append to each state's
    /// access word (the W-method's middle layer): two catch a wrong target state where
    /// the outputs say much, three where they say little (see [`equivalence`]).
    pub test_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_states: 96,
            max_rounds: 64,
            max_decodes: u64::MAX,
            deadline: None,
            test_depth: 2,
        }
    }
}

impl Limits {
    /// Why learning must stop now, when the budget is spent.
    fn spent(&self, decodes: u64) -> Option<Incomplete> {
        let timed_out = self.deadline.is_some_and(|d| Instant::now() >= d);
        (timed_out || decodes > self.max_decodes)
            .then_some(Incomplete::OverBudget { decodes, timed_out })
    }
}

/// The result of a learning run.
#[derive(Debug, Clone)]
pub struct Learned {
    /// The last hypothesis.
    pub hypothesis: Hypothesis,
    /// Equivalence rounds (counterexamples processed, plus the last, passing, one).
    pub rounds: usize,
    /// Counterexamples found, in order.
    pub counterexamples: Vec<Vec<u8>>,
    /// `None` when the equivalence oracle found no disagreement.
    pub incomplete: Option<Incomplete>,
}

/// The observation table.
struct Table<'o, 'a> {
    oracle: &'o mut Oracle<'a>,
    alphabet: Alphabet,
    access: Vec<Vec<u8>>,
    suffixes: Vec<Vec<u8>>,
    /// Per state, the number of suffixes and classes when its bytes were last found to
    /// agree with their classes (a state is checked again only when either grew).
    refined: Vec<(usize, usize)>,
}

fn join(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut word = Vec::with_capacity(a.len() + b.len());
    word.extend_from_slice(a);
    word.extend_from_slice(b);
    word
}

impl Table<'_, '_> {
    fn row(&mut self, prefix: &[u8]) -> Vec<StepOutput> {
        let suffixes = std::mem::take(&mut self.suffixes);
        let mut row = Vec::new();
        for suffix in &suffixes {
            row.extend(
                self.oracle
                    .outputs_from(&join(prefix, suffix), prefix.len()),
            );
        }
        self.suffixes = suffixes;
        row
    }

    fn prefetch_rows(&mut self, prefixes: &[Vec<u8>]) {
        let words: Vec<Vec<u8>> = prefixes
            .iter()
            .flat_map(|p| self.suffixes.iter().map(move |e| join(p, e)))
            .collect();
        self.oracle.prefetch(words.iter().map(Vec::as_slice));
    }

    fn add_suffix(&mut self, suffix: Vec<u8>) -> bool {
        if suffix.is_empty() || self.suffixes.contains(&suffix) {
            return false;
        }
        self.suffixes.push(suffix);
        true
    }

    /// Adds access words until every one-class extension of a state is a known state.
    fn close(&mut self, limit: usize) -> Result<(), Incomplete> {
        loop {
            let reps = self.alphabet.representatives();
            let extensions: Vec<Vec<u8>> = self
                .access
                .iter()
                .flat_map(|u| reps.iter().map(move |&r| join(u, &[r])))
                .collect();
            let mut all = self.access.clone();
            all.extend(extensions.iter().cloned());
            self.prefetch_rows(&all);
            let mut known: HashMap<Vec<StepOutput>, usize> = HashMap::new();
            for index in 0..self.access.len() {
                let row = self.row(&self.access[index].clone());
                known.entry(row).or_insert(index);
            }
            let mut added = false;
            for word in extensions {
                let row = self.row(&word);
                if let std::collections::hash_map::Entry::Vacant(entry) = known.entry(row) {
                    entry.insert(self.access.len());
                    self.access.push(word);
                    added = true;
                    if self.access.len() > limit {
                        return Err(Incomplete::TooManyStates(self.access.len()));
                    }
                }
            }
            if !added {
                return Ok(());
            }
        }
    }

    /// Splits every class whose bytes act differently at some state; returns whether
    /// any did.
    fn refine(&mut self) -> bool {
        self.refined.resize(self.access.len(), (0, 0));
        let current = (self.suffixes.len(), self.alphabet.len());
        let stale: Vec<usize> = (0..self.access.len())
            .filter(|&s| self.refined[s] != current)
            .collect();
        let mut words: Vec<Vec<u8>> = Vec::new();
        for u in stale.iter().map(|&s| &self.access[s]) {
            for byte in 0..=255u8 {
                let ub = join(u, &[byte]);
                words.extend(self.suffixes.iter().map(|e| join(&ub, e)));
                words.push(ub);
            }
        }
        self.oracle.prefetch(words.iter().map(Vec::as_slice));
        drop(words);
        let mut changed = false;
        let mut new_suffixes = Vec::new();
        for state in stale {
            let u = self.access[state].clone();
            for class in 0..self.alphabet.len() {
                let bytes = self.alphabet.bytes(class).to_vec();
                if bytes.len() < 2 {
                    continue;
                }
                let mut groups: Vec<(Vec<StepOutput>, Vec<u8>)> = Vec::new();
                for byte in bytes {
                    let ub = join(&u, &[byte]);
                    let mut signature = self.oracle.outputs_from(&ub, u.len());
                    signature.extend(self.row(&ub));
                    match groups.iter_mut().find(|(s, _)| *s == signature) {
                        Some((_, members)) => members.push(byte),
                        None => groups.push((signature, vec![byte])),
                    }
                }
                if groups.len() > 1 {
                    let before = self.alphabet.len();
                    self.alphabet
                        .split(class, groups.into_iter().map(|(_, g)| g).collect());
                    new_suffixes.extend(
                        (before..self.alphabet.len())
                            .map(|new| vec![self.alphabet.representative(new)]),
                    );
                    changed = true;
                }
            }
            if !changed {
                self.refined[state] = current;
            }
        }
        // Added only now: every row above was read with the suffixes prefetched for
        // it, in one batch. A suffix added in the loop would make each later row a
        // query of its own, one decoder round trip each; the caller refines again
        // after any change, with the new suffixes, until nothing splits.
        for suffix in new_suffixes {
            self.add_suffix(suffix);
        }
        changed
    }

    fn hypothesis(&mut self) -> Hypothesis {
        let reps = self.alphabet.representatives();
        let mut known: HashMap<Vec<StepOutput>, usize> = HashMap::new();
        for index in 0..self.access.len() {
            let row = self.row(&self.access[index].clone());
            known.entry(row).or_insert(index);
        }
        let mut next = Vec::new();
        let mut output = Vec::new();
        for index in 0..self.access.len() {
            let u = self.access[index].clone();
            let mut targets = Vec::new();
            let mut outputs = Vec::new();
            for &r in &reps {
                let ur = join(&u, &[r]);
                let row = self.row(&ur);
                // Always known once the table is closed; a table stopped at the state
                // limit points unknown rows back at the state itself.
                targets.push(known.get(&row).copied().unwrap_or(index));
                outputs.push(self.oracle.outputs_from(&ur, u.len())[0]);
            }
            next.push(targets);
            output.push(outputs);
        }
        Hypothesis {
            alphabet: self.alphabet.clone(),
            access: self.access.clone(),
            next,
            output,
        }
    }

    /// Rivest–Schapire: the suffix (or the split) a counterexample reveals.
    fn process(&mut self, hypothesis: &Hypothesis, counterexample: &[u8]) -> bool {
        let disagrees = |table: &mut Self, i: usize| {
            let state = hypothesis.state_after(&counterexample[..i]);
            let u = &hypothesis.access[state];
            let word = join(u, &counterexample[i..]);
            let decoder = table.oracle.outputs_from(&word, u.len());
            let mut expected = Vec::new();
            let mut s = state;
            for &byte in &counterexample[i..] {
                let (n, o) = hypothesis.step(s, byte);
                expected.push(o);
                s = n;
            }
            decoder != expected
        };
        let m = counterexample.len();
        let i = (0..m)
            .rev()
            .find(|&i| disagrees(self, i))
            .expect("a counterexample disagrees from the start");
        self.add_suffix(counterexample[i + 1..].to_vec())
    }
}

/// Learns the machine of the decoder behind `oracle`, starting from `alphabet`.
pub fn learn(oracle: &mut Oracle<'_>, alphabet: Alphabet, limits: Limits) -> Learned {
    learn_with(oracle, alphabet, limits, &|_| Vec::new())
}

/// [`learn`], with test words of the caller's beside [`equivalence::test_words`] in each
/// equivalence round, made from that round's hypothesis by `more_words` (the witnesses
/// of its differences from another machine: a differential equivalence oracle).
pub fn learn_with(
    oracle: &mut Oracle<'_>,
    alphabet: Alphabet,
    limits: Limits,
    more_words: &dyn Fn(&Hypothesis) -> Vec<Vec<u8>>,
) -> Learned {
    let reps = alphabet.representatives();
    let mut table = Table {
        oracle,
        alphabet,
        access: vec![Vec::new()],
        suffixes: reps.into_iter().map(|r| vec![r]).collect(),
        refined: Vec::new(),
    };
    let mut counterexamples = Vec::new();
    let mut rounds = 0;
    loop {
        // Checked between phases: one phase's batch is bounded by the table's size, so
        // the budget is overrun by at most one phase.
        if let Some(spent) = limits.spent(table.oracle.decodes) {
            let hypothesis = table.hypothesis();
            return Learned {
                hypothesis,
                rounds,
                counterexamples,
                incomplete: Some(spent),
            };
        }
        if let Err(too_many) = table.close(limits.max_states) {
            // The last state added is past the limit; the rest is reported as found,
            // with transitions to unknown rows kept in place.
            table.access.truncate(limits.max_states);
            let hypothesis = table.hypothesis();
            return Learned {
                hypothesis,
                rounds,
                counterexamples,
                incomplete: Some(too_many),
            };
        }
        if table.refine() {
            continue;
        }
        let hypothesis = table.hypothesis();
        rounds += 1;
        let found = equivalence::find_counterexample(
            table.oracle,
            &hypothesis,
            limits.test_depth,
            more_words(&hypothesis),
        );
        let Some(counterexample) = found else {
            return Learned {
                hypothesis,
                rounds,
                counterexamples,
                incomplete: None,
            };
        };
        if rounds >= limits.max_rounds {
            return Learned {
                hypothesis,
                rounds,
                counterexamples,
                incomplete: Some(Incomplete::TooManyRounds(rounds)),
            };
        }
        let new_suffix = table.process(&hypothesis, &counterexample);
        counterexamples.push(counterexample);
        if !new_suffix {
            // The disagreement is in one byte's own output: the next refinement splits
            // its class. Should it not, the oracle is not deterministic; stop rather
            // than loop.
            if !table.refine() {
                return Learned {
                    hypothesis,
                    rounds,
                    counterexamples,
                    incomplete: Some(Incomplete::TooManyRounds(rounds)),
                };
            }
        }
    }
}
