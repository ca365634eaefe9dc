//! The matcher: a parsed ABNF rule compiled into a Thompson NFA over bytes, simulated with
//! bit sets.
//!
//! The reference decoder asks one question at each input offset: which prefixes of the
//! remaining bytes are derivations of `UTF8-char`, and how far does the longest partial
//! derivation reach? An NFA answers both in one pass: the set of live states after `k`
//! bytes is non-empty exactly when those `k` bytes are a prefix of some derivation, and it
//! contains the accepting state exactly when they are a whole one. Nothing here knows
//! about UTF-8: the byte ranges on the transitions are the grammar's terminals.
//!
//! Every byte-consuming state remembers where in the grammar it came from (the rule and
//! alternative around its terminal), so a failure can be explained in the grammar's terms.

use std::collections::HashMap;

use super::abnf::{Node, Rule};

/// Where a terminal sits in the grammar: the chain of rules that led to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `(rule name, text of the alternative taken inside it)`, outermost first. The text is
    /// the whole definition when the rule has a single alternative.
    pub frames: Vec<(String, String)>,
    /// The terminal as written: `%x80-9F`.
    pub terminal: String,
}

impl Origin {
    /// The frame that best names the sequence this terminal belongs to: the rule directly
    /// below the start rule (`UTF8-3 = %xED %x80-9F UTF8-tail`), else the start rule.
    pub fn sequence_frame(&self) -> &(String, String) {
        self.frames.get(1).unwrap_or(&self.frames[0])
    }

    /// The terminal's description: `%x80-9F`, or `UTF8-tail (%x80-BF)` when the terminal is
    /// reached through a rule below the sequence frame.
    pub fn expected(&self) -> String {
        if self.frames.len() > 2 {
            format!(
                "{} ({})",
                self.frames[self.frames.len() - 1].0,
                self.terminal
            )
        } else {
            self.terminal.clone()
        }
    }
}

#[derive(Debug, Clone)]
enum State {
    /// Consume one byte in `lo..=hi`, then go to `next`.
    Byte {
        lo: u8,
        hi: u8,
        next: usize,
        origin: usize,
    },
    /// Go to any of these without consuming input.
    Split(Vec<usize>),
    /// A whole derivation of the start rule has been read.
    Accept,
}

/// A set of NFA states (the compiled grammars here have far fewer than 128 states).
pub type StateSet = u128;

/// An error compiling a rule into an automaton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError(pub String);

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CompileError {}

/// A rule compiled into an NFA, ready to match at any offset.
#[derive(Debug, Clone)]
pub struct Automaton {
    states: Vec<State>,
    origins: Vec<Origin>,
    /// `closure[s]`: the states reachable from `s` without consuming input (including `s`).
    closure: Vec<StateSet>,
    /// `consumers_of[b]`: the byte-consuming states whose range contains `b`.
    consumers_of: Vec<StateSet>,
    start: StateSet,
    accept: StateSet,
    /// The same automaton determinised by subset construction, when it is small enough.
    subsets: Option<SubsetTable>,
    /// `single_byte[b]`: byte `b` alone is a whole derivation that no byte can extend, so
    /// [`Automaton::match_at`] answers `Whole { len: 1 }` on it whatever follows (see
    /// [`Automaton::is_single_byte_char`]).
    single_byte: [bool; 256],
}

/// The NFA's reachable live sets, numbered, with a transition table over bytes: the subset
/// construction, done once when the grammar is compiled. Matching then costs one table
/// lookup per byte instead of a walk over the live states, and gives exactly the same live
/// sets (`Automaton::match_at_by_simulation` is the plain simulation it must agree with).
#[derive(Debug, Clone)]
struct SubsetTable {
    /// `sets[d]`: the NFA live set that subset `d` stands for. Subset 0 is the empty set.
    sets: Vec<StateSet>,
    /// `next[d * 256 + byte]`: the subset after reading `byte` in subset `d`.
    next: Vec<u16>,
    /// The subset of the start set.
    start: u16,
}

/// Subset construction gives up (and matching simulates the NFA) beyond this many subsets.
const MAX_SUBSETS: usize = 1024;

impl SubsetTable {
    fn build(automaton: &Automaton) -> Option<SubsetTable> {
        let mut sets: Vec<StateSet> = vec![0, automaton.start];
        let mut numbers: HashMap<StateSet, u16> = HashMap::from([(0, 0), (automaton.start, 1)]);
        let mut next: Vec<u16> = Vec::new();
        let mut pending = 0;
        while pending < sets.len() {
            let live = sets[pending];
            for byte in 0..=255u8 {
                let target = automaton.step(live, byte);
                let number = match numbers.get(&target) {
                    Some(&number) => number,
                    None => {
                        if sets.len() == MAX_SUBSETS {
                            return None;
                        }
                        let number = sets.len() as u16;
                        sets.push(target);
                        numbers.insert(target, number);
                        number
                    }
                };
                next.push(number);
            }
            pending += 1;
        }
        Some(SubsetTable {
            sets,
            next,
            start: 1,
        })
    }
}

/// What matching at one offset found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The next `len` bytes are a derivation of the rule.
    Whole {
        /// Length of the derivation in bytes.
        len: usize,
    },
    /// No derivation: the longest prefix of one is `reached` bytes long (possibly 0).
    Partial {
        /// How many bytes some derivation could still begin with.
        reached: usize,
        /// The live states after those bytes, for explanations.
        live: StateSet,
        /// True when the input ended while states were still live.
        hit_end: bool,
    },
}

const MAX_STATES: usize = StateSet::BITS as usize;

impl Automaton {
    /// Compiles rule `start_rule` of `rules` (rule references are inlined; recursion is an
    /// error, as no grammar for a single character needs it).
    pub fn compile(rules: &[Rule], start_rule: &str) -> Result<Automaton, CompileError> {
        let by_name: HashMap<String, &Rule> = rules
            .iter()
            .map(|rule| (rule.name.to_ascii_lowercase(), rule))
            .collect();
        let start = *by_name
            .get(&start_rule.to_ascii_lowercase())
            .ok_or_else(|| CompileError(format!("no rule named {start_rule}")))?;
        let mut builder = Builder {
            by_name,
            states: vec![State::Accept],
            origins: Vec::new(),
        };
        let entry = builder.compile_rule(start, 0, &mut Vec::new())?;
        builder.finish(entry)
    }

    /// Matches at the start of `input`.
    pub fn match_at(&self, input: &[u8]) -> Match {
        let Some(table) = &self.subsets else {
            return self.match_at_by_simulation(input);
        };
        let mut subset = table.start;
        let mut longest_whole = None;
        let mut consumed = 0;
        loop {
            if table.sets[subset as usize] & self.accept != 0 {
                longest_whole = Some(consumed);
            }
            let Some(&byte) = input.get(consumed) else {
                break;
            };
            let next = table.next[subset as usize * 256 + byte as usize];
            if next == 0 {
                break;
            }
            subset = next;
            consumed += 1;
        }
        self.found(
            longest_whole,
            consumed,
            table.sets[subset as usize],
            input.len(),
        )
    }

    /// Matches at the start of `input` by simulating the NFA state set byte by byte.
    pub fn match_at_by_simulation(&self, input: &[u8]) -> Match {
        let mut live = self.start;
        let mut longest_whole = None;
        let mut consumed = 0;
        loop {
            if live & self.accept != 0 {
                longest_whole = Some(consumed);
            }
            let Some(&byte) = input.get(consumed) else {
                break;
            };
            let next = self.step(live, byte);
            if next == 0 {
                break;
            }
            live = next;
            consumed += 1;
        }
        self.found(longest_whole, consumed, live, input.len())
    }

    fn found(
        &self,
        longest_whole: Option<usize>,
        consumed: usize,
        live: StateSet,
        input_len: usize,
    ) -> Match {
        match longest_whole {
            Some(len) => Match::Whole { len },
            None => Match::Partial {
                reached: consumed,
                live,
                hit_end: consumed == input_len,
            },
        }
    }

    /// True when `byte` by itself is a whole derivation of the rule that no following byte
    /// can extend: [`Automaton::match_at`] on any input starting with `byte` answers
    /// `Whole { len: 1 }`. Computed from the compiled rule when it is compiled (for
    /// RFC 3629's `UTF8-char`: the bytes of `UTF8-1 = %x00-7F`), so a decoder may take a
    /// run of such bytes without matching each one and still answer exactly as matching
    /// would.
    pub fn is_single_byte_char(&self, byte: u8) -> bool {
        self.single_byte[usize::from(byte)]
    }

    /// How many subsets the determinised automaton has (0 when matching simulates the NFA).
    pub fn subset_count(&self) -> usize {
        self.subsets.as_ref().map_or(0, |table| table.sets.len())
    }

    /// The live set after reading `byte` from `live` (0 when no derivation continues).
    pub fn step(&self, live: StateSet, byte: u8) -> StateSet {
        let mut moving = live & self.consumers_of[byte as usize];
        let mut next = 0;
        while moving != 0 {
            let state = moving.trailing_zeros() as usize;
            moving &= moving - 1;
            if let State::Byte { next: target, .. } = self.states[state] {
                next |= self.closure[target];
            }
        }
        next
    }

    /// The origins of the byte-consuming states in `live`, without repeats.
    pub fn expectations(&self, live: StateSet) -> Vec<&Origin> {
        let mut origins: Vec<&Origin> = Vec::new();
        for (state, node) in self.states.iter().enumerate() {
            if let State::Byte { origin, .. } = node {
                let origin = &self.origins[*origin];
                if live & (1 << state) != 0 && !origins.contains(&origin) {
                    origins.push(origin);
                }
            }
        }
        origins
    }

    /// The start state set, for explaining failures on the first byte.
    pub fn start_states(&self) -> StateSet {
        self.start
    }

    /// Whether `live` contains the accepting state: the bytes read are a whole derivation.
    pub fn is_accepting(&self, live: StateSet) -> bool {
        live & self.accept != 0
    }

    /// Number of states (for tests and diagnostics).
    pub fn state_count(&self) -> usize {
        self.states.len()
    }
}

struct Builder<'g> {
    by_name: HashMap<String, &'g Rule>,
    states: Vec<State>,
    origins: Vec<Origin>,
}

impl Builder<'_> {
    fn push(&mut self, state: State) -> usize {
        self.states.push(state);
        self.states.len() - 1
    }

    /// Compiles `node` so that it continues to `next`; returns the entry state. Building
    /// back to front needs no patching except for unbounded loops.
    fn compile(
        &mut self,
        node: &Node,
        next: usize,
        frames: &mut Vec<(String, String)>,
    ) -> Result<usize, CompileError> {
        Ok(match node {
            Node::ByteRange { lo, hi, text } => {
                self.origins.push(Origin {
                    frames: frames.clone(),
                    terminal: text.clone(),
                });
                let origin = self.origins.len() - 1;
                self.push(State::Byte {
                    lo: *lo,
                    hi: *hi,
                    next,
                    origin,
                })
            }
            Node::Concatenation(items) => {
                let mut entry = next;
                for item in items.iter().rev() {
                    entry = self.compile(item, entry, frames)?;
                }
                entry
            }
            Node::Alternation(alternatives) => {
                let mut entries = Vec::with_capacity(alternatives.len());
                for alternative in alternatives {
                    entries.push(self.compile(&alternative.node, next, frames)?);
                }
                self.push(State::Split(entries))
            }
            Node::Repetition { min, max, node } => {
                let mut entry = match max {
                    Some(max) => {
                        // (max - min) optional copies: each either reads `node` or stops.
                        let mut tail = next;
                        for _ in *min..*max {
                            let copy = self.compile(node, tail, frames)?;
                            tail = self.push(State::Split(vec![copy, next]));
                        }
                        tail
                    }
                    None => {
                        let loop_state = self.push(State::Split(Vec::new()));
                        let body = self.compile(node, loop_state, frames)?;
                        self.states[loop_state] = State::Split(vec![body, next]);
                        loop_state
                    }
                };
                for _ in 0..*min {
                    entry = self.compile(node, entry, frames)?;
                }
                entry
            }
            Node::RuleRef(name) => {
                let rule = *self
                    .by_name
                    .get(&name.to_ascii_lowercase())
                    .ok_or_else(|| CompileError(format!("undefined rule {name}")))?;
                if frames
                    .iter()
                    .any(|(frame, _)| frame.eq_ignore_ascii_case(&rule.name))
                {
                    return Err(CompileError(format!("rule {name} is recursive")));
                }
                self.compile_rule(rule, next, frames)?
            }
        })
    }

    /// Compiles a rule's body inside a new frame. When the body is an alternation, each
    /// alternative's frame quotes that alternative alone, so that an explanation names
    /// exactly the branch that failed (`UTF8-3 = %xED %x80-9F UTF8-tail`).
    fn compile_rule(
        &mut self,
        rule: &Rule,
        next: usize,
        frames: &mut Vec<(String, String)>,
    ) -> Result<usize, CompileError> {
        frames.push((rule.name.clone(), rule.text.clone()));
        let entry = match &rule.body {
            Node::Alternation(alternatives) => {
                let mut entries = Vec::with_capacity(alternatives.len());
                for alternative in alternatives {
                    frames.last_mut().expect("pushed above").1 = alternative.text.clone();
                    match self.compile(&alternative.node, next, frames) {
                        Ok(entry) => entries.push(entry),
                        Err(error) => {
                            frames.pop();
                            return Err(error);
                        }
                    }
                }
                Ok(self.push(State::Split(entries)))
            }
            body => self.compile(body, next, frames),
        };
        frames.pop();
        entry
    }

    fn finish(self, entry: usize) -> Result<Automaton, CompileError> {
        let count = self.states.len();
        if count > MAX_STATES {
            return Err(CompileError(format!(
                "the rule compiles to {count} states; the matcher handles at most {MAX_STATES}"
            )));
        }
        let closure: Vec<StateSet> = (0..count)
            .map(|s| epsilon_closure(&self.states, s))
            .collect();
        let mut consumers_of = vec![0; 256];
        for (state, node) in self.states.iter().enumerate() {
            if let State::Byte { lo, hi, .. } = node {
                for byte in *lo..=*hi {
                    consumers_of[byte as usize] |= 1 << state;
                }
            }
        }
        let mut automaton = Automaton {
            start: closure[entry],
            accept: 1, // state 0 is Accept
            states: self.states,
            origins: self.origins,
            closure,
            consumers_of,
            subsets: None,
            single_byte: [false; 256],
        };
        automaton.subsets = SubsetTable::build(&automaton);
        automaton.single_byte = std::array::from_fn(|byte| {
            let after = automaton.step(automaton.start, byte as u8);
            automaton.is_accepting(after) && (0..=255).all(|next| automaton.step(after, next) == 0)
        });
        Ok(automaton)
    }
}

fn epsilon_closure(states: &[State], from: usize) -> StateSet {
    let mut seen: StateSet = 0;
    let mut stack = vec![from];
    while let Some(state) = stack.pop() {
        if seen & (1 << state) != 0 {
            continue;
        }
        seen |= 1 << state;
        if let State::Split(targets) = &states[state] {
            stack.extend(targets.iter().copied());
        }
    }
    seen
}

#[cfg(test)]
mod tests;
