//! The library's public API as a user calls it: the engine's runs, properties of the
//! generators and grading, the crate-author API, the reference decoder over whole input
//! spaces. Long sweeps are `#[ignore]`d beside a quick form; CI runs them in release mode
//! with `--include-ignored`.

#[path = "../common/mod.rs"]
mod common;

mod author_api;
mod engine_runs;
mod properties;
mod reference_exhaustive;
