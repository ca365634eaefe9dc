//! utf8conf: a UTF-8 fuzzing and conformance harness.
//!
//! The crate is laid out the way data flows through it, top to bottom; no module uses one
//! listed above it:
//!
//! - [`cli`]: the `utf8conf` commands.
//! - [`conformance`]: grading one decoder against RFC 3629 and Unicode's U+FFFD practice
//!   (`utf8conf check`).
//! - [`adapter`]: the external decoder protocol, harness side (any program as a decoder).
//! - [`decoders`]: the [`decoders::Decoder`] abstraction and the built-in decoders.
//! - [`reference`](mod@reference): the oracle, RFC 3629 §4's ABNF parsed and interpreted.
//! - [`fast`]: the optimised decoder (shift DFA, SIMD backends, streaming), checked
//!   against the reference.
//! - [`outcome`], [`taxonomy`], [`hex`]: the shared vocabulary (what a decoder said, what
//!   kind of ill-formed byte something is, how bytes are written for people).

pub mod adapter;
pub mod aspect;
pub mod cli;
pub mod conformance;
pub mod corpus;
pub mod decoders;
pub mod diagnosis;
pub mod engine;
pub mod fast;
pub mod finding;
pub mod hex;
pub mod outcome;
pub mod reference;
pub mod report;
pub mod security;
pub mod stable_hash;
pub mod taxonomy;
