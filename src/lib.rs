//! utf8conf: a UTF-8 fuzzing and conformance harness.
//!
//! The crate is laid out the way data flows through it, top to bottom; no module uses one
//! listed above it:
//!
//! - [`cli`]: the `utf8conf` commands.
//! - [`author`]: the crate authors' API: check your own decoder in `cargo test` and
//!   `cargo fuzz` with `check`'s grading.
//! - [`model`]: a decoder's finite-state machine learned by active automata learning,
//!   its difference from RFC 3629's machine, and findings by mechanism (`utf8conf model`).
//! - [`conformance`]: grading one decoder against RFC 3629 and Unicode's U+FFFD practice
//!   (`utf8conf check`).
//! - [`adapter`]: the external decoder protocol, harness side (any program as a decoder).
//! - [`native`]: C decoders (`include/utf8conf.h`) in a restartable worker process.
//! - [`decoders`]: the [`decoders::Decoder`] abstraction and the built-in decoders;
//!   [`encoders`]: the [`encoders::Encoder`] abstraction, the other direction.
//! - [`reference`](mod@reference): the oracle, RFC 3629 §4's ABNF parsed and interpreted,
//!   and the reference encoder read through the same grammar.
//! - [`fast`]: the optimised decoder (shift DFA, SIMD backends, streaming), checked
//!   against the reference.
//! - [`outcome`], [`taxonomy`], [`hex`]: the shared vocabulary (what a decoder said, what
//!   kind of ill-formed byte something is, how bytes are written for people).

#![warn(missing_docs)]

pub mod adapter;
pub mod aspect;
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
pub mod reference;
pub mod report;
pub mod security;
pub mod stable_hash;
pub mod taxonomy;
