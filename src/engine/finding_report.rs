//! The finding report of `utf8conf run`: one JSON file per finding, schema
//! `schemas/divergence.schema.json` (the file keeps the name it was published under).
//!
//! The finding ([`crate::finding::Finding`], one bug of one decoder named by its root
//! cause) is held whole in `finding`: its id, title, cause, categories, witness,
//! occurrences, reproduction command and security impact are read there and nowhere else.
//! The report adds only what is about this run and its pair, which the finding does not
//! hold: the report's `id` (the finding's, repeated because it names the file and the
//! summary's `reports` list), the run, the *departure* that showed the finding (the
//! signature of the minimised input: `aspect`, `shape`, `categories`, which `utf8conf
//! reproduce` checks; the aspects it `also_differs` on), where it was first seen
//! (`input_hex`, `origin`, `first_seen`, `first_input_index`), both sides' outcomes on the
//! minimised input, the explanation of that input with the run's conditions, the `decode`
//! commands, how the input was minimised and the learned machine.
//!
//! ```json
//! {
//!   "schema": "utf8conf/divergence/1",
//!   "id": "3f1c0d2a9b8e7f60",
//!   "decoders": ["reference", "mutant-cesu8"],
//!   "aspect": "valid",
//!   "categories": ["cesu8-pair"],
//!   "input_hex": "61 ED A0 BD ED B8 80 62",
//!   "minimized_hex": "ED A0 BD ED B8 80",
//!   "outcomes": {"reference": {...}, "mutant-cesu8": {...}},
//!   "explanation": "...",
//!   "origin": {"kind": "vector", "file": "...", "id": "..."},
//!   "finding": {"id": "3f1c0d2a9b8e7f60", "occurrences": 12, "reproduce": "...", ...},
//!   ...
//! }
//! ```
//!
//! `outcomes` are for the *minimised* input, the one a reader should look at; `input_hex`
//! and `origin` say where the departure was first seen.

use serde::{Deserialize, Serialize};

use crate::aspect::Aspect;
use crate::corpus::Origin;
use crate::taxonomy::Category;

/// The `schema` value of a finding report.
pub const FINDING_REPORT_SCHEMA: &str = "utf8conf/divergence/1";

/// A decoder that gave no outcome on the minimised input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The decoder's name.
    pub decoder: String,
    /// `crash`, `timeout` or `protocol`.
    pub kind: Aspect,
    /// The panic or failure message.
    pub message: String,
}

/// How the minimised input was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Minimization {
    /// Length of the input the departure was first seen in.
    pub input_len: usize,
    /// Length of the minimised input.
    pub minimized_len: usize,
    /// Decode-and-compare calls spent.
    pub calls: usize,
    /// True when the call budget ran out first (the input may not be minimal).
    pub budget_exhausted: bool,
}

/// The report of one finding (see the module header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingReport {
    /// Always [`FINDING_REPORT_SCHEMA`].
    pub schema: String,
    /// The finding's id (16 hex digits), which names the report's file.
    pub id: String,
    /// The run that wrote this report.
    pub run_id: String,
    /// The pair compared: the reference first, then the decoder under test.
    pub decoders: Vec<String>,
    /// The primary aspect on which they differ.
    pub aspect: Aspect,
    /// How they differ on it (a coarse, minimisation-stable description).
    pub shape: crate::aspect::Shape,
    /// The taxonomy categories of the minimised input's error units (or of the well-formed
    /// input the decoder got wrong).
    pub categories: Vec<Category>,
    /// Other aspects on which the pair also differs for the minimised input.
    pub also_differs: Vec<Aspect>,
    /// The input the departure was first seen in.
    pub input_hex: String,
    /// The minimised input.
    pub minimized_hex: String,
    /// Each decoder's outcome JSON for the minimised input (docs/DESIGN.md §3.2), by name.
    pub outcomes: serde_json::Map<String, serde_json::Value>,
    /// Set when the decoder under test gave no outcome on the minimised input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The reference's account of the minimised input, in the terms of RFC 3629's ABNF.
    pub explanation: String,
    /// Where the first occurrence came from.
    pub origin: Origin,
    /// Where a few later occurrences came from.
    pub other_origins: Vec<Origin>,
    /// When the first occurrence was found (RFC 3339, UTC).
    pub first_seen: String,
    /// The first occurrence's position in the run's input sequence.
    pub first_input_index: u64,
    /// `utf8conf decode` commands that show each side's outcome.
    pub reproduce_decode: Vec<String>,
    /// How the minimised input was found.
    pub minimization: Minimization,
    /// The finding this report is about (one report per finding): its root cause, title
    /// and categories, and the signatures met as its manifestations.
    pub finding: crate::finding::Finding,
    /// The learned machine of the decoder, which the finding was filed through (absent
    /// when the run did not learn it: learning skipped, or its budget could not be met).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<crate::engine::summary::LearnedModel>,
}
