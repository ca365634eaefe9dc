//! Reports: the files a run leaves behind (docs/DESIGN.md §3.4).
//!
//! - [`crate::engine::finding_report::FindingReport`]: one JSON file per finding,
//!   `reports/<run-id>/divergences/<id>.json`, schema `schemas/divergence.schema.json`
//!   (built by the engine while it runs, so its type lives there).
//! - [`directory`]: an explicit `--out` directory, claimed at the start and replaced
//!   atomically at the end, never silently overwritten.
//! - [`crate::engine::summary::Summary`]: one `reports/<run-id>/summary.json` per run, schema
//!   `schemas/summary.schema.json`.
//! - `--format sarif|junit` of `run` and `check` also write the findings for CI:
//!   [`sarif`] (`utf8conf.sarif`, for code scanning) and [`junit`] (`junit.xml`, for test
//!   reports), both over [`export::ExportedFinding`].
//!
//! All are contracts read by people and by other programs, so every file is written
//! atomically ([`crate::atomic_file`]): a reader sees the old file or the new one, never half
//! of one, even if the run is killed mid-write.

pub mod conformance;
pub mod directory;
pub mod encoder;
pub mod export;
pub mod junit;
pub mod matrix;
pub mod round_trip;
pub mod sarif;
pub mod security;
pub mod streaming;
