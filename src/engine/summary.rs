//! `summary.json`: what one run did (docs/DESIGN.md §3.4), schema `schemas/summary.schema.json`.
//!
//! It answers: which decoders (and versions) were compared, on how many inputs from which
//! sources, how many comparisons per decoder and aspect, how many of them departed, which
//! reports were written, how long it took and how fast it went.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::aspect::{Aspect, AspectSet};
use crate::decoders::Decoder;

/// The `schema` value of a run summary.
pub const SUMMARY_SCHEMA: &str = "utf8conf/summary/1";

/// A decoder taking part in the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecoderEntry {
    /// Its name.
    pub name: String,
    /// Its version (crate, rustc or runtime).
    pub version: String,
    /// What is called.
    pub description: String,
    /// The outcome fields it reports (`valid`, `valid_up_to`, ...).
    pub capabilities: Vec<String>,
}

/// Comparisons and departures for one decoder and one aspect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AspectCount {
    /// Inputs on which both sides reported the aspect.
    pub compared: u64,
    /// Of those, inputs on which they differed (JSON `divergences`, the name it was
    /// published under).
    #[serde(rename = "divergences")]
    pub departures: u64,
}

/// Per-aspect counters of one decoder, indexed by [`Aspect::index`].
pub type AspectCounters = [AspectCount; Aspect::ALL.len()];

/// Counts `inputs` inputs whose comparison compared `compared` and departed on
/// `departed`: every input under `crash` (the "did it answer" aspect, whatever was
/// compared), every compared aspect, every departure. The engine counts one input at a
/// time; the exhaustive checker counts agreeing inputs in bulk.
#[inline]
pub fn count_inputs(
    counters: &mut AspectCounters,
    compared: AspectSet,
    departed: AspectSet,
    inputs: u64,
) {
    counters[Aspect::Crash.index()].compared += inputs;
    for aspect in compared.iter() {
        if aspect != Aspect::Crash {
            counters[aspect.index()].compared += inputs;
        }
    }
    for aspect in departed.iter() {
        counters[aspect.index()].departures += inputs;
    }
}

/// Exit code of a run without departures.
pub const EXIT_CLEAN: u8 = 0;
/// Exit code of a run that found departures.
pub const EXIT_DEPARTURES: u8 = 1;

/// A run's exit code, by whether any input departed.
pub fn exit_code(departing_inputs: u64) -> u8 {
    if departing_inputs > 0 {
        EXIT_DEPARTURES
    } else {
        EXIT_CLEAN
    }
}

/// Inputs per second, rounded (0 for a run that took no measurable time).
pub fn throughput(inputs: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        (inputs as f64 / seconds).round()
    } else {
        0.0
    }
}

impl DecoderEntry {
    /// The entries of `decoders`, in order.
    pub fn of_each(decoders: &[Box<dyn Decoder>]) -> Vec<DecoderEntry> {
        decoders
            .iter()
            .map(|d| DecoderEntry::of(d.as_ref()))
            .collect()
    }

    /// The entry of `decoder`: its name, version, description and capabilities.
    pub fn of(decoder: &dyn Decoder) -> DecoderEntry {
        DecoderEntry {
            name: decoder.name().to_string(),
            version: decoder.version(),
            description: decoder.description().to_string(),
            capabilities: decoder
                .capabilities()
                .names()
                .into_iter()
                .map(str::to_string)
                .collect(),
        }
    }
}

impl DecoderCounts {
    /// The counts of each of `decoders` from its counters (`counters[i]` is `decoders[i]`'s).
    pub fn of_each(
        decoders: &[Box<dyn Decoder>],
        counters: &[AspectCounters],
    ) -> Vec<DecoderCounts> {
        decoders
            .iter()
            .zip(counters)
            .map(|(decoder, counters)| DecoderCounts::from_counters(decoder.name(), counters))
            .collect()
    }

    /// The counts of the decoder named `decoder`: every input counts under `crash` (a
    /// decoder is always asked), and only the aspects compared at least once are listed.
    pub fn from_counters(decoder: &str, counters: &AspectCounters) -> DecoderCounts {
        DecoderCounts {
            decoder: decoder.to_string(),
            inputs: counters[Aspect::Crash.index()].compared,
            aspects: Aspect::ALL
                .into_iter()
                .filter(|aspect| counters[aspect.index()].compared > 0)
                .map(|aspect| (aspect.as_str().to_string(), counters[aspect.index()]))
                .collect(),
        }
    }
}

/// The comparisons of one decoder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecoderCounts {
    /// The decoder's name.
    pub decoder: String,
    /// Inputs it was run on.
    pub inputs: u64,
    /// Per aspect (only aspects compared at least once).
    pub aspects: BTreeMap<String, AspectCount>,
}

/// The tool that wrote the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// `utf8conf`.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// The budget as given and as understood.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetEntry {
    /// As written on the command line (`60s`, `100000i`).
    pub text: String,
    /// `time` or `inputs`.
    pub kind: String,
    /// Seconds (for `time`) or inputs (for `inputs`).
    pub amount: f64,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStop {
    /// The time or input budget ran out.
    Budget,
    /// Every source had given all its inputs.
    CorpusExhausted,
    /// A signal (Ctrl-C, SIGTERM) stopped it.
    Interrupted,
    /// A report could not be written.
    DiskError,
    /// The stub written when the run starts: only a run killed before its end leaves it.
    Incomplete,
}

impl RunStop {
    /// The kebab-case name, as in `summary.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStop::Budget => "budget",
            RunStop::CorpusExhausted => "corpus-exhausted",
            RunStop::Interrupted => "interrupted",
            RunStop::DiskError => "disk-error",
            RunStop::Incomplete => "incomplete",
        }
    }
}

impl std::fmt::Display for RunStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One run (see the module header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Always [`SUMMARY_SCHEMA`].
    pub schema: String,
    /// The run id: UTC start time and seed, e.g. `20261122T031500Z-seed0`.
    pub run_id: String,
    /// The tool and its version.
    pub tool: Tool,
    /// The seed of the generated corpora.
    pub seed: u64,
    /// The budget.
    pub budget: BudgetEntry,
    /// Why the run ended: `budget`, `corpus-exhausted`, `interrupted` (a signal) or
    /// `disk-error` (a report could not be written); `incomplete` in the stub written when
    /// the run starts, which only a run killed before its end leaves behind.
    pub stopped_by: RunStop,
    /// Start time (RFC 3339, UTC).
    pub started: String,
    /// End time (RFC 3339, UTC).
    pub finished: String,
    /// Wall-clock seconds spent decoding and comparing.
    pub duration_seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// The oracle.
    pub reference: DecoderEntry,
    /// The decoders compared with it.
    pub decoders: Vec<DecoderEntry>,
    /// Inputs per source (vector files, generator names).
    pub sources: BTreeMap<String, u64>,
    /// All inputs.
    pub total_inputs: u64,
    /// All input bytes.
    pub total_bytes: u64,
    /// Inputs per second (all decoders on each input).
    pub throughput_inputs_per_second: f64,
    /// Per decoder and aspect.
    pub comparisons: Vec<DecoderCounts>,
    /// Inputs that departed, over all pairs (one input counts once per pair).
    #[serde(rename = "divergent_inputs")]
    pub departing_inputs: u64,
    /// The ids of the reports written (one per finding).
    pub reports: Vec<String>,
    /// Distinct departures found after the report limit was reached (counted in
    /// `divergent_inputs`, but not minimised or written).
    pub unreported_signatures: u64,
    /// The process exit code (0: no departure, 1: departures).
    pub exit_code: u8,
    /// `utf8conf run`'s encoder comparison: each built-in encoder graded against the
    /// reference encoder (absent from summaries that ran no encoder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoders: Option<EncoderComparison>,
    /// The learned machine of each decoder that departed, which its findings were filed
    /// through (absent when no decoder departed, or learning was skipped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<LearnedModel>,
}

/// One decoder's learned machine, as a run's summary and its reports carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedModel {
    /// The decoder.
    pub decoder: String,
    /// The decodes that learning its machine took (`model.model.queries.decodes`,
    /// repeated for readers that only count).
    pub queries: u64,
    /// The model report, in `check`'s shape (`schemas/model.schema.json`): the machine,
    /// its difference from RFC 3629's, the findings by mechanism, what learning cost.
    /// Shared: every report of the decoder carries the same one (a few hundred KB), and a
    /// fuzz target attaches it to each departure it files.
    pub model: std::sync::Arc<serde_json::Value>,
}

/// The built-in encoders against the reference encoder, in a run's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EncoderComparison {
    /// The encoder inputs (both forms; each encoder takes those of its forms).
    pub inputs: u64,
    /// One entry per encoder.
    pub encoders: Vec<EncoderCount>,
    /// Inputs on which an encoder departed from the reference beyond its policy, over
    /// all encoders (zero for the built-in ones).
    #[serde(rename = "divergent_inputs")]
    pub departing_inputs: u64,
}

/// One encoder's comparison with the reference encoder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EncoderCount {
    /// The encoder's name.
    pub encoder: String,
    /// Inputs it encoded.
    pub inputs: u64,
    /// Its policy for surrogates (docs/ENCODERS.md).
    pub policy: String,
    /// Its policy above U+10FFFF, for an encoder of code points.
    pub out_of_range_policy: Option<String>,
    /// Inputs it encoded otherwise than the reference, beyond its policy.
    #[serde(rename = "divergent_inputs")]
    pub departing_inputs: u64,
    /// Its findings' titles.
    pub findings: Vec<String>,
}
