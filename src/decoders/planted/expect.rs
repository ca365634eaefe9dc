//! Expected findings as data: for each planted decoder, its citation and, for each of
//! its bugs, the mechanism, the input category, a minimal witness, the outcome on that
//! witness, and the condition under which it shows. A diagnosis is judged against these.
//!
//! Witnesses and outcomes are written as text so that the catalogue reads like the
//! documentation it is:
//!
//! - a witness is hex bytes, `XX*n` repeating a byte: `41*64 C0` is 64 `A`s then `C0`;
//! - an outcome is the verdict, then the scalars in hex (`XXXX*n` repeating one):
//!   `invalid at 0 len 1; FFFD 0041`, `invalid at 2 incomplete; 0020 0020`,
//!   `valid; 0081` (a lossy-only decoder always says `valid`), `-` for no scalars.

use super::bugs::Bug;
use crate::outcome::{ErrorLen, Outcome};
use crate::taxonomy::Category;

/// One planted decoder of the catalogue.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The registry name (`utf8conf run --decoders NAME`, `utf8conf decode --decoder NAME`).
    pub name: &'static str,
    /// Where the bugs come from: the CVE id or the bug report's project and title.
    pub source: &'static str,
    /// The planted mechanisms, in the order a reader meets them.
    pub bugs: &'static [Bug],
    /// What a diagnosis must find: one entry per mechanism.
    pub findings: &'static [Expected],
}

/// Whether a difference is a bug, a known policy, or correct but unusual behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A departure from RFC 3629 / Unicode §3.9.
    Bug,
    /// A documented policy other than maximal subparts, or a lossy-only interface.
    Policy,
    /// Correct behaviour that a one-shot comparison shows as a difference (a held-back
    /// prefix, a sanitised byte order mark).
    Unusual,
}

/// What the witness's bytes are (the input axis; the mechanism is the behaviour axis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Well-formed UTF-8 (the bug shows on text the decoder should pass through).
    WellFormed,
    /// Ill-formed: the taxonomy category of the witness's first error.
    IllFormed(Category),
}

/// Where a gated bug shows ([`super::bugs::Gate`] in the documentation's terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// Everywhere.
    Always,
    /// Only in inputs shorter than this many bytes.
    InputUnder(usize),
    /// Only in inputs longer than this many bytes.
    InputOver(usize),
    /// Only for a unit that crosses a multiple of this block size.
    Straddles(usize),
    /// Only for a unit on the last byte of a block of this size.
    EndsBlock(usize),
    /// Only when the first error is at this offset or later.
    ErrorFrom(usize),
}

/// One expected finding.
#[derive(Debug, Clone, Copy)]
pub struct Expected {
    /// The mechanism; its behaviour id is [`Bug::id`].
    pub bug: Bug,
    /// Bug, policy, or unusual.
    pub kind: Kind,
    /// The input category the witness belongs to.
    pub input: Input,
    /// A minimal witness, in the witness syntax of this module.
    pub witness: &'static str,
    /// The decoder's outcome on the witness, in the outcome syntax of this module.
    pub outcome: &'static str,
    /// Where it shows.
    pub condition: Condition,
    /// Bugs that also show on the witness, on every witness this bug can have: a
    /// lossy-only interface masks every verdict (removing this bug alone does not give
    /// the reference's outcome), and a decoder that gives nothing for an error masks the
    /// scalars of every error, those this bug makes too (removing the mask changes the
    /// outcome).
    pub masked_by: &'static [Bug],
    /// Other switches of the walker that plant the same mechanism where the walker has
    /// one switch per length: a decoder without the shortest-form check lacks it for
    /// every length it decodes (RFC 3629 section 3 names overlong forms as one hazard),
    /// so its 2- and 3-byte overlong switches are one expected finding.
    pub also: &'static [Bug],
}

/// The bytes of a witness: hex bytes separated by spaces, `XX*n` for `n` copies.
pub fn parse_witness(text: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    for token in text.split_whitespace() {
        let (hex, count) = match token.split_once('*') {
            Some((hex, count)) => (hex, count.parse().expect("repeat count")),
            None => (token, 1),
        };
        let byte = u8::from_str_radix(hex, 16).expect("hex byte");
        bytes.extend(std::iter::repeat_n(byte, count));
    }
    bytes
}

/// An outcome in the outcome syntax: the fields a lossy-only decoder does not report are
/// absent from its outcome and so from the text.
pub fn render(outcome: &Outcome) -> String {
    let verdict = match (outcome.valid, outcome.valid_up_to, outcome.error_len) {
        (true, ..) => "valid".to_string(),
        (false, Some(at), Some(ErrorLen::Invalid(len))) => format!("invalid at {at} len {len}"),
        (false, Some(at), Some(ErrorLen::Incomplete)) => format!("invalid at {at} incomplete"),
        (false, ..) => "invalid".to_string(),
    };
    let scalars = outcome.scalars.as_deref().unwrap_or(&[]);
    if scalars.is_empty() {
        return format!("{verdict}; -");
    }
    let mut runs: Vec<String> = Vec::new();
    let mut index = 0;
    while index < scalars.len() {
        let value = scalars[index];
        let run = scalars[index..].iter().take_while(|&&s| s == value).count();
        if run >= 4 {
            runs.push(format!("{value:04X}*{run}"));
        } else {
            runs.extend(std::iter::repeat_n(format!("{value:04X}"), run));
        }
        index += run;
    }
    format!("{verdict}; {}", runs.join(" "))
}

/// The witness moved out of `condition`: an input on which a gated bug must not show.
/// `None` for [`Condition::Always`]. A short-input witness is padded with `A`s to the
/// threshold; a long-input or late-error witness loses its leading `A`s; a block-boundary
/// witness is shifted off the boundary by `A`s.
pub fn outside(witness: &[u8], condition: Condition) -> Option<Vec<u8>> {
    let padding = witness.iter().take_while(|&&b| b == b'A').count();
    match condition {
        Condition::Always => None,
        Condition::InputUnder(n) => {
            let mut moved = witness.to_vec();
            moved.resize(n.max(witness.len()), b'A');
            Some(moved)
        }
        // The witness is `A` padding then the bytes that show the bug: without the
        // padding, the input is short and its error at the start.
        Condition::InputOver(_) | Condition::ErrorFrom(_) => Some(witness[padding..].to_vec()),
        // Half a block moves a unit of at most 4 bytes off a boundary of 8 or more.
        Condition::Straddles(block) => {
            let mut moved = vec![b'A'; block / 2];
            moved.extend_from_slice(witness);
            Some(moved)
        }
        Condition::EndsBlock(_) => {
            let mut moved = vec![b'A'];
            moved.extend_from_slice(witness);
            Some(moved)
        }
    }
}

/// An expected bug finding that shows everywhere and is masked by nothing; refine it
/// with [`Expected::kind`], [`Expected::when`] and [`Expected::masked`].
pub const fn expect(
    bug: Bug,
    input: Input,
    witness: &'static str,
    outcome: &'static str,
) -> Expected {
    Expected {
        bug,
        kind: Kind::Bug,
        input,
        witness,
        outcome,
        condition: Condition::Always,
        masked_by: &[],
        also: &[],
    }
}

impl Expected {
    /// The same finding, of another kind.
    pub const fn kind(self, kind: Kind) -> Self {
        Expected { kind, ..self }
    }

    /// The same finding, shown only under `condition`.
    pub const fn when(self, condition: Condition) -> Self {
        Expected { condition, ..self }
    }

    /// The same finding, whose witness is also changed by `masked_by`.
    pub const fn masked(self, masked_by: &'static [Bug]) -> Self {
        Expected { masked_by, ..self }
    }

    /// The same finding, whose mechanism the walker also plants with `also`.
    pub const fn also(self, also: &'static [Bug]) -> Self {
        Expected { also, ..self }
    }

    /// Every switch of the walker that plants this finding's mechanism.
    pub fn switches(&self) -> Vec<Bug> {
        let mut switches = vec![self.bug];
        switches.extend_from_slice(self.also);
        switches
    }
}
