//! What an exhaustive run directory says about the space it covers.
//!
//! A run directory holds what `utf8conf run` writes (`summary.json`, schema
//! `utf8conf/summary/1`, and `divergences/<id>.json`, both written by the engine's
//! collector) and `exhaustive.json`, which says which space and shard it covers.
//! [`super::merge`] adds up the run directories of all shards of one space.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::engine::summary::Summary;

/// The `schema` of `exhaustive.json`.
pub const EXHAUSTIVE_SCHEMA: &str = "utf8conf/exhaustive/1";

/// `exhaustive.json`: the part of the input space a run directory covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Always [`EXHAUSTIVE_SCHEMA`].
    pub schema: String,
    /// Every input of up to this many bytes.
    pub max_len: usize,
    /// The shards covered, as `I/N` (one for a run, all of them for a merge).
    pub shards: Vec<String>,
    /// How many shards the space was cut into.
    pub shard_count: u64,
    /// Inputs run (less than the shards' share when interrupted).
    pub inputs: u64,
    /// True when every input of the shards was run.
    pub complete: bool,
}

/// What a finished run (or merge) wrote.
pub struct Finished {
    /// The run directory.
    pub run_dir: PathBuf,
    /// `summary.json`.
    pub summary: Summary,
    /// `exhaustive.json`.
    pub coverage: Coverage,
}
