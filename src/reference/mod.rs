//! The reference decoder: RFC 3629 §4 taken literally.
//!
//! This is the oracle every other decoder is judged against, so it is written to be
//! obviously right rather than fast. The grammar is embedded verbatim as printed in the RFC
//! (`rfc3629-section4.abnf`), parsed by [`abnf`], compiled by [`matcher`] and interpreted.
//! No byte range is written by hand anywhere in this module: change the grammar file and the
//! decoder changes with it.
//!
//! ```text
//! UTF8-octets = *( UTF8-char )
//! UTF8-char   = UTF8-1 / UTF8-2 / UTF8-3 / UTF8-4
//! ```
//!
//! The first rule says a well-formed string is a sequence of characters, so decoding walks
//! the input one `UTF8-char` at a time. At each offset either a `UTF8-char` matches, and its
//! scalar value is computed by the bit distribution of RFC 3629 §3, or none does, and an
//! error unit is emitted: the *maximal subpart* of Unicode §3.9 D93b,
//!
//! > A maximal subpart of an ill-formed subsequence is the longest code unit subsequence
//! > starting at an unconvertible offset that is either (a) the initial subsequence of a
//! > well-formed code unit sequence, or (b) a subsequence of length one.
//!
//! which is exactly how far the longest partial derivation of `UTF8-char` reaches (at least
//! one byte). Lossy decoding emits one U+FFFD per unit (Unicode §3.9, "U+FFFD Substitution
//! of Maximal Subparts"). Each unit keeps the matcher's live states where it failed, so it
//! can be explained in the grammar's own words.

pub mod abnf;
pub mod encode;
pub mod matcher;

use std::sync::OnceLock;

use crate::outcome::{ErrorLen, ErrorUnit, Outcome};
use crate::taxonomy;
use matcher::{Automaton, Match, StateSet};

/// RFC 3629 §4, verbatim as printed in the RFC (IETF Trust, BSD licence for code components).
pub const RFC3629_SECTION4_ABNF: &str = include_str!("rfc3629-section4.abnf");

/// A compiled grammar: the character rule's automaton and the rule names used.
#[derive(Debug, Clone)]
pub struct Reference {
    char_rule: String,
    sequence_rule: String,
    automaton: Automaton,
}

/// One error unit found by the reference decoder.
///
/// A unit of the reference's own parse, not the reported `outcome::ErrorUnit`: beside its
/// place it keeps how far the partial derivation got and the matcher's live states, which
/// [`Reference::explain`] turns into grammar terms, and whether more input could complete
/// it (`incomplete`). The reference's outcome reports each as an `outcome::ErrorUnit`
/// with its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorSpan {
    /// Byte offset of the unit.
    pub offset: usize,
    /// Length of the unit: the maximal subpart, at least 1.
    pub len: usize,
    /// True when the unit is a prefix of a `UTF8-char` that runs to the end of input (more
    /// input could complete it: std's `error_len() == None` when it is the first error).
    pub incomplete: bool,
    /// How many bytes the partial derivation read (0 when the first byte started none).
    reached: usize,
    /// The matcher's live states when it stopped (for [`Reference::explain`]).
    live: StateSet,
}

/// One unit of a decode ([`Reference::steps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A well-formed `UTF8-char` and its scalar value.
    Char(u32),
    /// An error unit (decoded as U+FFFD).
    Error(ErrorSpan),
}

/// The result of decoding one input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decoded {
    /// Scalar values of the lossy decode, U+FFFD for each error unit.
    pub scalars: Vec<u32>,
    /// Every error unit, in input order.
    pub errors: Vec<ErrorSpan>,
}

impl Decoded {
    /// The strict result in Rust std's shape: `None` when valid, else
    /// `(valid_up_to, error_len)` of the first error.
    pub fn first_error(&self) -> Option<(usize, ErrorLen)> {
        self.errors
            .first()
            .map(|error| (error.offset, ErrorLen::new(error.len, error.incomplete)))
    }

    /// True when the input was well-formed.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// The full outcome (docs/DESIGN.md §3.2) of this decode of `input`, under
    /// `decoder_name`, with every error unit categorised by the taxonomy: what
    /// [`Reference::outcome`] gives, for a caller that already has the decode.
    pub fn to_outcome(&self, decoder_name: &str, input: &[u8]) -> Outcome {
        let mut outcome = Outcome::from_strict(decoder_name, self.first_error());
        outcome.errors = Some(
            self.errors
                .iter()
                .map(|error| ErrorUnit {
                    offset: error.offset,
                    len: error.len,
                    category: taxonomy::category_at(input, error.offset),
                })
                .collect(),
        );
        outcome.scalars = Some(self.scalars.clone());
        outcome
    }
}

/// Why the embedded grammar could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrammarError(pub String);

impl std::fmt::Display for GrammarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "grammar: {}", self.0)
    }
}

impl std::error::Error for GrammarError {}

impl Reference {
    /// The decoder built from the embedded RFC 3629 grammar, compiled once.
    pub fn rfc3629() -> &'static Reference {
        static REFERENCE: OnceLock<Reference> = OnceLock::new();
        REFERENCE.get_or_init(|| {
            Reference::from_grammar(RFC3629_SECTION4_ABNF)
                .expect("the embedded RFC 3629 grammar compiles (checked by the tests)")
        })
    }

    /// Builds a decoder from grammar text whose first rule has the shape of RFC 3629's
    /// `UTF8-octets = *( UTF8-char )`: any number of repetitions of a character rule.
    pub fn from_grammar(grammar: &str) -> Result<Reference, GrammarError> {
        let rules = abnf::parse_rules(grammar).map_err(|e| GrammarError(e.to_string()))?;
        let sequence = &rules[0];
        let char_rule = match &sequence.body {
            abnf::Node::Repetition {
                min: 0,
                max: None,
                node,
            } => match node.as_ref() {
                abnf::Node::RuleRef(name) => name.clone(),
                _ => {
                    return Err(GrammarError(format!(
                        "{} must repeat one rule",
                        sequence.name
                    )))
                }
            },
            _ => {
                return Err(GrammarError(format!(
                    "the first rule must read `{} = *( CHAR-RULE )`",
                    sequence.name
                )))
            }
        };
        let automaton =
            Automaton::compile(&rules, &char_rule).map_err(|e| GrammarError(e.to_string()))?;
        Ok(Reference {
            char_rule,
            sequence_rule: sequence.name.clone(),
            automaton,
        })
    }

    /// Decodes `input` into scalars and error units.
    pub fn decode(&self, input: &[u8]) -> Decoded {
        let mut decoded = Decoded::default();
        self.decode_into(input, &mut decoded);
        decoded
    }

    /// The decode of `input` one unit at a time, without collecting anything: the same
    /// units, in the same order, as [`Reference::decode`] (for outputs streamed over large
    /// inputs, such as `utf8conf decode`).
    pub fn steps<'a>(&'a self, input: &'a [u8]) -> impl Iterator<Item = Step> + 'a {
        let mut offset = 0;
        std::iter::from_fn(move || {
            if offset >= input.len() {
                return None;
            }
            Some(match self.automaton.match_at(&input[offset..]) {
                Match::Whole { len } => {
                    let scalar = scalar_of(&input[offset..offset + len]);
                    offset += len;
                    Step::Char(scalar)
                }
                Match::Partial {
                    reached,
                    live,
                    hit_end,
                } => {
                    let len = reached.max(1);
                    let span = ErrorSpan {
                        offset,
                        len,
                        incomplete: hit_end && reached > 0,
                        reached,
                        live,
                    };
                    offset += len;
                    Step::Error(span)
                }
            })
        })
    }

    /// Decodes into `decoded`, reusing its buffers (for exhaustive tests and the engine).
    ///
    /// One fast path, for the common case: a byte that the compiled rule makes a whole
    /// `UTF8-char` by itself, whatever follows ([`Automaton::is_single_byte_char`], the
    /// bytes of `UTF8-1` for RFC 3629), is taken without running the matcher; its scalar is
    /// the octet (RFC 3629 §3). Every other offset is matched as in [`Reference::steps`],
    /// the plain walk that the tests check this against (`fast_path_agrees_with_the_matcher`).
    pub fn decode_into(&self, input: &[u8], decoded: &mut Decoded) {
        decoded.scalars.clear();
        decoded.errors.clear();
        let mut offset = 0;
        while offset < input.len() {
            if self.automaton.is_single_byte_char(input[offset]) {
                decoded.scalars.push(scalar_of(&input[offset..=offset]));
                offset += 1;
                continue;
            }
            match self.automaton.match_at(&input[offset..]) {
                Match::Whole { len } => {
                    decoded
                        .scalars
                        .push(scalar_of(&input[offset..offset + len]));
                    offset += len;
                }
                Match::Partial {
                    reached,
                    live,
                    hit_end,
                } => {
                    let len = reached.max(1);
                    decoded.errors.push(ErrorSpan {
                        offset,
                        len,
                        incomplete: hit_end && reached > 0,
                        reached,
                        live,
                    });
                    decoded.scalars.push(crate::outcome::REPLACEMENT);
                    offset += len;
                }
            }
        }
    }

    /// The strict verdict alone: `None` when valid, else the first error in std's shape.
    pub fn first_error(&self, input: &[u8]) -> Option<(usize, ErrorLen)> {
        let mut offset = 0;
        while offset < input.len() {
            // The fast path of `decode_into`.
            if self.automaton.is_single_byte_char(input[offset]) {
                offset += 1;
                continue;
            }
            match self.automaton.match_at(&input[offset..]) {
                Match::Whole { len } => offset += len,
                Match::Partial {
                    reached, hit_end, ..
                } => {
                    let len = ErrorLen::new(reached.max(1), hit_end && reached > 0);
                    return Some((offset, len));
                }
            }
        }
        None
    }

    /// Explains an error unit in the grammar's terms, e.g.
    /// ``UTF8-3 = %xED %x80-9F UTF8-tail: byte A0 at offset 4 is outside %x80-9F``.
    pub fn explain(&self, input: &[u8], error: &ErrorSpan) -> String {
        let failed_at = error.offset + error.reached;
        if error.reached == 0 {
            // Nothing matched: the first byte starts none of the alternatives.
            let firsts: Vec<String> = self
                .automaton
                .expectations(self.automaton.start_states())
                .iter()
                .map(|origin| origin.terminal.clone())
                .collect();
            return format!(
                "{}: byte {:02X} at offset {} starts none of its alternatives (first bytes {})",
                self.char_rule,
                input[error.offset],
                error.offset,
                firsts.join(" / ")
            );
        }
        let mut clauses: Vec<String> = Vec::new();
        for origin in self.automaton.expectations(error.live) {
            let (rule, alternative) = origin.sequence_frame();
            let clause = if error.incomplete {
                format!(
                    "{rule} = {alternative}: the input ends at offset {failed_at}, where {} is expected",
                    origin.expected()
                )
            } else {
                format!(
                    "{rule} = {alternative}: byte {:02X} at offset {failed_at} is outside {}",
                    input[failed_at],
                    origin.expected()
                )
            };
            if !clauses.contains(&clause) {
                clauses.push(clause);
            }
        }
        clauses.join("; ")
    }

    /// The compiled character rule.
    pub fn automaton(&self) -> &Automaton {
        &self.automaton
    }

    /// The name of the character rule (`UTF8-char`).
    pub fn char_rule(&self) -> &str {
        &self.char_rule
    }

    /// The name of the sequence rule (`UTF8-octets`).
    pub fn sequence_rule(&self) -> &str {
        &self.sequence_rule
    }

    /// The full outcome JSON for `input` (docs/DESIGN.md §3.2), with every error unit
    /// categorised by the taxonomy.
    pub fn outcome(&self, decoder_name: &str, input: &[u8]) -> Outcome {
        self.decode(input).to_outcome(decoder_name, input)
    }
}

/// The scalar value of one well-formed `UTF8-char`, by RFC 3629 §3's bit distribution:
///
/// ```text
/// Char. number range  |        UTF-8 octet sequence
///    (hexadecimal)    |              (binary)
/// --------------------+---------------------------------------------
/// 0000 0000-0000 007F | 0xxxxxxx
/// 0000 0080-0000 07FF | 110xxxxx 10xxxxxx
/// 0000 0800-0000 FFFF | 1110xxxx 10xxxxxx 10xxxxxx
/// 0001 0000-0010 FFFF | 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
/// ```
///
/// > "the number of octets [...] the high-order bits of the first octet [...] the bits
/// > marked x are filled with the bits of the character number" (RFC 3629 §3)
///
/// A one-octet character is its own value; in an `n`-octet character the first octet
/// carries `7 - n` value bits and each following octet six.
fn scalar_of(sequence: &[u8]) -> u32 {
    let octets = sequence.len();
    if octets == 1 {
        return u32::from(sequence[0]);
    }
    let lead_value_bits = 7 - octets as u32;
    let mut scalar = u32::from(sequence[0]) & ((1 << lead_value_bits) - 1);
    for &octet in &sequence[1..] {
        scalar = (scalar << 6) | (u32::from(octet) & 0b0011_1111);
    }
    scalar
}

#[cfg(test)]
mod tests;
