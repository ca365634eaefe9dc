//! Support code for the `cargo fuzz` targets of utf8conf.
//!
//! The four targets in `fuzz_targets/` are thin wrappers around [`checks`]: each turns the
//! fuzz input into bytes (raw, from a [`program::Program`], from a chunk plan, at an
//! alignment offset), runs decoders against the RFC 3629 reference, and hands any departure
//! to [`findings`], which writes the report and decides whether to abort. Comparison,
//! minimisation and the report itself are the engine's ([`report`]), and a departure is
//! filed under the mechanism of the decoder's learned machine that explains it
//! ([`model`]). The checks are plain functions so that `cargo test` replays every corpus
//! and regression file through them on stable Rust (`tests/fuzz_replay.rs` includes these
//! files).

pub mod buggy;
pub mod checks;
pub mod decoders;
pub mod fast_backends;
pub mod findings;
pub mod model;
pub mod program;
pub mod report;
pub mod sanitizer_options;
