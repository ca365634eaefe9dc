//! utf8conf: a UTF-8 fuzzing and conformance harness.
//!
//! The crate is laid out in layers, the way data flows through it, top to bottom, as in
//! docs/DESIGN.md §4. No module imports one in a layer above it, and no import cycle forms
//! between modules; `tests/layers.rs` fails on either.
//!
//! Front ends:
//! - [`cli`]: the `utf8conf` commands.
//! - [`author`]: the crate authors' API: check your own decoder in `cargo test` and
//!   `cargo fuzz` with `check`'s grading (a failing fuzz input's reports are written).
//!
//! Presentation:
//! - [`report`]: every renderer and writer: the conformance report's Markdown, HTML and
//!   files, the matrix, the security and streaming sections, encoder and round-trip
//!   reports, SARIF, JUnit, `--out` directories.
//!
//! The drivers:
//! - [`conformance`]: grading one decoder against RFC 3629 and Unicode's U+FFFD practice
//!   (`utf8conf check`): inputs, subject, category status, streaming grading.
//! - [`exhaustive`]: every input up to N bytes as a batch source of the engine, sharded
//!   and merged.
//! - [`engine`]: the one run loop (`utf8conf run` and `exhaustive`): batches through the
//!   decoders on every core, a collector in input order, one report per finding.
//! - [`native`]: C decoders and encoders (`include/utf8conf.h`) in a restartable worker
//!   process; [`adapter`]: the external decoder protocol, harness side (any program as a
//!   decoder or encoder).
//!
//! The grading core:
//! - [`diagnosis`]: from departures to findings (comparison with the reference, root
//!   cause, minimiser, position probe, panic containment), and the grading of encoders.
//! - [`finding`], [`security`]: one finding per root cause, and what it means for
//!   security.
//! - [`model`]: a decoder's finite-state machine learned by active automata learning,
//!   its difference from RFC 3629's machine, and findings by mechanism (`utf8conf model`).
//! - [`automaton`]: the grammar's minimal automata, and the proofs of the fast decoder's
//!   tables.
//!
//! The generators:
//! - [`corpus`]: the inputs: test vectors and seeded generators.
//!
//! The reference and the decoders:
//! - [`reference`](mod@reference): the oracle, RFC 3629 §4's ABNF parsed and interpreted,
//!   and the reference encoder read through the same grammar.
//! - [`fast`]: the optimised decoder (shift DFA, SIMD backends, streaming), checked
//!   against the reference.
//! - [`decoders`]: the [`decoders::Decoder`] abstraction and the built-in decoders;
//!   [`encoders`]: the [`encoders::Encoder`] abstraction, the other direction.
//! - [`policy`]: the U+FFFD policies and what each predicts for an input.
//!
//! The vocabulary every layer shares:
//! - [`outcome`], [`taxonomy`], [`aspect`], [`verdict`]: what a decoder said (or why it
//!   said nothing: [`outcome::Answer`] is every layer's one type for an answer), what kind of
//!   ill-formed byte something is, the aspects a decoder is compared on, what a check
//!   concludes.
//! - [`byte_class`]: the byte classes of Unicode Table 3-7 and RFC 2279's leads, which the
//!   generators' boundary alphabets are drawn from.
//! - [`hex`], [`sanitize`], [`time`], [`reproduction`]: how bytes, other people's text,
//!   time stamps and reproduction commands are written for people.
//! - [`atomic_file`], [`stable_hash`], [`rng`]: files written whole or not at all, report
//!   ids, the seeded random streams that make every generated input reproducible.

#![warn(missing_docs)]

pub mod adapter;
pub mod aspect;
pub mod atomic_file;
pub mod author;
pub mod automaton;
pub mod byte_class;
pub mod cli;
pub mod conformance;
pub mod corpus;
pub mod decoders;
pub mod diagnosis;
pub mod encoders;
pub mod engine;
pub mod exhaustive;
pub mod fast;
pub mod finding;
pub mod hex;
pub mod model;
#[cfg(unix)]
pub mod native;
pub mod outcome;
pub mod policy;
pub mod reference;
pub mod report;
pub mod reproduction;
pub mod rng;
pub mod sanitize;
pub mod security;
pub mod stable_hash;
pub mod taxonomy;
pub mod time;
pub mod verdict;
