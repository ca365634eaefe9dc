//! The reports and summary of an exhaustive run, and the merge of shard summaries.
//!
//! A run directory holds what `utf8conf run` writes (`summary.json`, schema
//! `utf8conf/summary/1`, and `divergences/<id>.json` built by the engine's
//! [`build_report`]) and `exhaustive.json`, which says which space and shard it covers.
//! [`super::merge`] adds up the run directories of all shards of one space.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::atomic_file::write_json_atomically;
use crate::corpus::Origin;
use crate::decoders::Decoder;
use crate::diagnosis::compare::Aspect;
use crate::engine::budget::Budget;
use crate::engine::check::PairChecker;
use crate::engine::divergence::DivergenceReport;
use crate::engine::model::{departed, file_through_models, remove_reports, Filing};
use crate::engine::signature::Signature;
use crate::engine::summary::{
    self, BudgetEntry, DecoderCounts, DecoderEntry, LearnedModel, Summary, Tool, SUMMARY_SCHEMA,
};
use crate::engine::{build_report, minimize, report_path, ReportContext};
use crate::time;

use super::{AspectCounters, BlockResult, ExhaustiveOptions, Found};

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

/// Merges block results in order, minimises and writes reports, and the summary.
pub struct Collector<'r> {
    decoders: &'r [Box<dyn Decoder>],
    options: &'r ExhaustiveOptions,
    started_at: SystemTime,
    run_id: String,
    run_dir: PathBuf,
    reports: Vec<DivergenceReport>,
    report_of: HashMap<Signature, usize>,
    over_limit: HashSet<Signature>,
    counters: Vec<AspectCounters>,
    inputs_by_len: BTreeMap<usize, u64>,
    total_inputs: u64,
    total_bytes: u64,
    divergent_inputs: u64,
}

impl<'r> Collector<'r> {
    /// Creates the run directory `<out>/<UTC time>-exhaustive<N>-shard<I>of<N>`.
    pub fn new(
        decoders: &'r [Box<dyn Decoder>],
        options: &'r ExhaustiveOptions,
        started_at: SystemTime,
    ) -> io::Result<Self> {
        let run_id = format!(
            "{}-exhaustive{}-shard{}of{}",
            time::compact(started_at),
            options.space.max_len(),
            options.shard.index,
            options.shard.count
        );
        let (run_id, run_dir) = fresh_dir(&options.out_dir, &run_id)?;
        std::fs::create_dir_all(run_dir.join("divergences"))?;
        Ok(Collector {
            decoders,
            options,
            started_at,
            run_id,
            run_dir,
            reports: Vec::new(),
            report_of: HashMap::new(),
            over_limit: HashSet::new(),
            counters: vec![AspectCounters::default(); decoders.len()],
            inputs_by_len: BTreeMap::new(),
            total_inputs: 0,
            total_bytes: 0,
            divergent_inputs: 0,
        })
    }

    /// Inputs merged so far.
    pub fn total_inputs(&self) -> u64 {
        self.total_inputs
    }

    /// Reports written so far.
    pub fn report_count(&self) -> usize {
        self.reports.len()
    }

    /// Adds one block's results; writes the report of each new divergence.
    pub fn merge(&mut self, result: BlockResult) -> io::Result<()> {
        let block = result.block;
        self.total_inputs += block.count;
        self.total_bytes += block.count * block.len as u64;
        *self.inputs_by_len.entry(block.len).or_default() += block.count;
        for (total, batch) in self.counters.iter_mut().zip(&result.counters) {
            for (t, b) in total.iter_mut().zip(batch) {
                t.compared += b.compared;
                t.divergences += b.divergences;
            }
        }
        for found in result.found {
            self.divergent_inputs += found.count;
            if let Some(&slot) = self.report_of.get(&found.signature) {
                self.add_occurrences(slot, &found);
                continue;
            }
            if self.reports.len() >= self.options.max_reports {
                self.over_limit.insert(found.signature);
                continue;
            }
            let raw_signature = found.signature.clone();
            let (signature, minimized) = self.minimize(&found);
            if let Some(&slot) = self.report_of.get(&signature) {
                self.report_of.insert(raw_signature, slot);
                self.add_occurrences(slot, &found);
                continue;
            }
            let report = self.new_report(&found, &signature, &minimized)?;
            self.report_of.insert(raw_signature, self.reports.len());
            self.report_of.insert(signature, self.reports.len());
            self.reports.push(report);
        }
        Ok(())
    }

    fn origin(&self, index: u64) -> Origin {
        Origin::Generator {
            name: self.options.source_name(),
            seed: 0,
            index,
        }
    }

    fn add_occurrences(&mut self, slot: usize, found: &Found) {
        let kept = super::OTHER_INDICES_KEPT;
        let origins: Vec<Origin> = std::iter::once(found.first_index)
            .chain(found.other_indices.iter().copied())
            .map(|index| self.origin(index))
            .collect();
        let report = &mut self.reports[slot];
        report.occurrences += found.count;
        let room = kept - report.other_origins.len().min(kept);
        report.other_origins.extend(origins.into_iter().take(room));
    }

    /// Minimises a new divergence as `utf8conf run` does: keeping its whole signature,
    /// or for a crash/timeout/protocol failure its decoder, aspect and shape.
    fn minimize(&self, found: &Found) -> (Signature, minimize::Minimized) {
        let decoder = self.decoders[found.decoder].as_ref();
        let mut checker = PairChecker::new(decoder);
        let target = found.signature.clone();
        let is_failure = matches!(
            target.aspect,
            Aspect::Crash | Aspect::Timeout | Aspect::Protocol
        );
        let minimized =
            minimize::minimize(&found.bytes, self.options.minimization_calls, |candidate| {
                checker.signature(candidate).is_some_and(|signature| {
                    if is_failure {
                        (&signature.aspect, &signature.shape) == (&target.aspect, &target.shape)
                    } else {
                        signature == target
                    }
                })
            });
        let signature = if is_failure {
            checker.signature(&minimized.bytes).unwrap_or(target)
        } else {
            target
        };
        (signature, minimized)
    }

    fn new_report(
        &self,
        found: &Found,
        signature: &Signature,
        minimized: &minimize::Minimized,
    ) -> io::Result<DivergenceReport> {
        let decoder = self.decoders[found.decoder].as_ref();
        let report = build_report(
            decoder,
            signature,
            &found.bytes,
            minimized,
            ReportContext {
                run_id: &self.run_id,
                report_dir: &self.run_dir.join("divergences"),
                origin: self.origin(found.first_index),
                other_origins: found
                    .other_indices
                    .iter()
                    .map(|&index| self.origin(index))
                    .collect(),
                occurrences: found.count,
                first_input: found.first_index,
                conditions: None,
                finding: None,
                library: self
                    .options
                    .library
                    .as_ref()
                    .filter(|_| decoder.name() == self.options.library_name())
                    .map(|(path, symbol)| (path.as_str(), symbol.as_str())),
            },
        );
        write_json_atomically(&report_path(&self.run_dir, &report.id), &report)?;
        Ok(report)
    }

    /// Files the reports of each decoder that departed through its learned machine, as
    /// `utf8conf run` does ([`crate::engine::model`]): the machines, and the ids of the
    /// reports they explain, whose files are to go.
    fn file_through_models(&mut self, threads: usize) -> (Vec<LearnedModel>, Vec<String>) {
        let report_dir = self.run_dir.join("divergences");
        let library =
            self.options.library.as_ref().map(|(path, symbol)| {
                (path.as_str(), symbol.as_str(), self.options.library_name())
            });
        let filed = file_through_models(
            self.decoders,
            &departed(&self.counters),
            &mut self.reports,
            &Filing {
                run_id: &self.run_id,
                report_dir: &report_dir,
                budget: self.options.model,
                threads,
                library,
            },
        );
        (filed.models, filed.removed)
    }

    /// Files the reports through the machines (unless interrupted), rewrites them with
    /// their final counts and writes `summary.json` and `exhaustive.json`.
    pub fn finish(
        mut self,
        duration_seconds: f64,
        threads: usize,
        interrupted: bool,
    ) -> io::Result<Finished> {
        let (models, explained) = if interrupted {
            (Vec::new(), Vec::new())
        } else {
            self.file_through_models(threads)
        };
        for report in &self.reports {
            write_json_atomically(&report_path(&self.run_dir, &report.id), report)?;
        }
        // Only once the reports that replace them are written.
        remove_reports(&self.run_dir, &explained)?;
        let comparisons = DecoderCounts::of_each(self.decoders, &self.counters);
        let source = self.options.source_name();
        let sources = self
            .inputs_by_len
            .iter()
            .map(|(len, count)| (format!("{source}/len-{len}"), *count))
            .collect();
        let shard_inputs = self.options.space.shard_inputs(self.options.shard);
        let summary = Summary {
            encoders: None,
            schema: SUMMARY_SCHEMA.to_string(),
            run_id: self.run_id.clone(),
            tool: Tool {
                name: "utf8conf".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            seed: 0,
            // The shard's inputs, as an input budget (the space and shard are in
            // exhaustive.json).
            budget: BudgetEntry {
                text: Budget::Inputs(shard_inputs).describe(),
                kind: "inputs".to_string(),
                amount: shard_inputs as f64,
            },
            stopped_by: if interrupted {
                "interrupted"
            } else {
                "corpus-exhausted"
            }
            .to_string(),
            started: time::rfc3339(self.started_at),
            finished: time::rfc3339(SystemTime::now()),
            duration_seconds,
            threads,
            reference: DecoderEntry::of(&crate::decoders::reference::ReferenceDecoder),
            decoders: DecoderEntry::of_each(self.decoders),
            sources,
            total_inputs: self.total_inputs,
            total_bytes: self.total_bytes,
            throughput_inputs_per_second: summary::throughput(self.total_inputs, duration_seconds),
            comparisons,
            divergent_inputs: self.divergent_inputs,
            reports: self.reports.iter().map(|r| r.id.clone()).collect(),
            unreported_signatures: self.over_limit.len() as u64,
            exit_code: summary::exit_code(self.divergent_inputs),
            models,
        };
        let coverage = Coverage {
            schema: EXHAUSTIVE_SCHEMA.to_string(),
            max_len: self.options.space.max_len(),
            shards: vec![self.options.shard.to_string()],
            shard_count: self.options.shard.count,
            inputs: self.total_inputs,
            complete: !interrupted,
        };
        write_json_atomically(&self.run_dir.join("summary.json"), &summary)?;
        write_json_atomically(&self.run_dir.join("exhaustive.json"), &coverage)?;
        Ok(Finished {
            run_dir: self.run_dir,
            summary,
            coverage,
        })
    }
}

/// Creates `<out_dir>/<name>`, or `<name>-2`, `-3`, ... if it exists; returns the name
/// used and the path.
pub(super) fn fresh_dir(out_dir: &Path, name: &str) -> io::Result<(String, PathBuf)> {
    std::fs::create_dir_all(out_dir)?;
    for attempt in 1..1000 {
        let candidate_name = if attempt == 1 {
            name.to_string()
        } else {
            format!("{name}-{attempt}")
        };
        let candidate = out_dir.join(&candidate_name);
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok((candidate_name, candidate)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("no free run directory for {name} in {}", out_dir.display()),
    ))
}
