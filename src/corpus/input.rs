//! One input for the engine, and where it came from.
//!
//! Every input carries its [`Origin`], so that a finding report can say where its bytes
//! came from and how to get them again (a vector id, or a generator with its seed and
//! index).

use serde::{Deserialize, Serialize};

/// One input for the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The bytes to decode.
    pub bytes: Vec<u8>,
    /// Where they came from.
    pub origin: Origin,
}

/// Where an input came from (the `origin` field of a finding report, docs/DESIGN.md §3.4).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Origin {
    /// A case of a vector file.
    Vector {
        /// The vector file's name, e.g. `kuhn.toml`.
        file: String,
        /// The case id, e.g. `kuhn-3.1.2`.
        id: String,
    },
    /// A deterministic generator.
    Generator {
        /// The generator's name, e.g. `faults`, `placement`, `exhaustive`.
        name: String,
        /// The run's seed.
        seed: u64,
        /// The input's index in the generator's sequence for that seed.
        index: u64,
    },
    /// Coverage-guided fuzzing (`cargo fuzz`).
    Fuzz {
        /// The fuzz target.
        target: String,
    },
    /// Given by the user on the command line or in a file.
    User {
        /// A description, e.g. the file path.
        source: String,
    },
}

impl Origin {
    /// The source name used to count inputs per source in `summary.json`: the vector file,
    /// the generator name, `fuzz` or `user`.
    pub fn source(&self) -> String {
        match self {
            Origin::Vector { .. } => "vectors".to_string(),
            Origin::Generator { name, .. } => name.clone(),
            Origin::Fuzz { target } => format!("fuzz:{target}"),
            Origin::User { .. } => "user".to_string(),
        }
    }
}
