//! utf8conf: a UTF-8 fuzzing and conformance harness.
//!
//! The crate is laid out the way data flows through it, top to bottom, as in
//! docs/DESIGN.md §4; no module uses one listed above it except the few that
//! `tests/layers.rs` names with their reasons (it fails on any other):
//!
//! - [`cli`]: the `utf8conf` commands.
//! - [`conformance`]: grading one decoder against RFC 3629 and Unicode's U+FFFD practice
//!   (`utf8conf check`).
//! - [`author`]: the crate authors' API: check your own decoder in `cargo test` and
//!   `cargo fuzz` with `check`'s grading.
//! - [`exhaustive`]: every input up to N bytes through the decoders, sharded and merged.
//! - [`engine`]: `utf8conf run`: batches through the decoders on every core, a collector
//!   in input order, one report per finding.
//! - [`diagnosis`]: the grading core: from departures to findings (root cause, minimiser,
//!   position probe, panic containment), and the grading of encoders.
//! - [`finding`], [`aspect`], [`security`]: one finding per root cause, the aspects a
//!   decoder is compared on, and what a finding means for security.
//! - [`model`]: a decoder's finite-state machine learned by active automata learning,
//!   its difference from RFC 3629's machine, and findings by mechanism (`utf8conf model`).
//! - [`adapter`]: the external decoder protocol, harness side (any program as a decoder);
//!   [`native`]: C decoders (`include/utf8conf.h`) in a restartable worker process.
//! - [`report`]: report types and writers (JSON, SARIF, JUnit), atomic files, sanitising,
//!   reproduction commands.
//! - [`corpus`]: the inputs: test vectors and seeded generators.
//! - [`decoders`]: the [`decoders::Decoder`] abstraction and the built-in decoders;
//!   [`encoders`]: the [`encoders::Encoder`] abstraction, the other direction.
//! - [`automaton`]: the grammar's minimal automata, and the proofs of the fast decoder's
//!   tables.
//! - [`fast`]: the optimised decoder (shift DFA, SIMD backends, streaming), checked
//!   against the reference.
//! - [`policy`]: the U+FFFD policies and what each predicts for an input.
//! - [`reference`](mod@reference): the oracle, RFC 3629 §4's ABNF parsed and interpreted,
//!   and the reference encoder read through the same grammar.
//! - [`outcome`], [`taxonomy`], [`hex`], [`stable_hash`], [`rng`]: the shared vocabulary
//!   (what a decoder said, what kind of ill-formed byte something is, how bytes are
//!   written for people, report ids, the seeded random streams that make every generated
//!   input reproducible).

#![warn(missing_docs)]

pub mod adapter;
pub mod aspect;
pub mod atomic_file;
pub mod author;
pub mod automaton;
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
