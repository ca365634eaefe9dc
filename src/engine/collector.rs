//! The collector: merges the workers' batch results in input order, files each new
//! departure under its finding (one report per finding, minimised and diagnosed by the
//! grading core), and writes the reports and `summary.json`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::atomic_file::write_json_atomically;
use crate::engine::finding_report::FindingReport;
use crate::engine::summary::{
    self, BudgetEntry, DecoderCounts, DecoderEntry, LearnedModel, Summary, Tool, SUMMARY_SCHEMA,
};
use crate::finding::{Finding, Manifestation};
use crate::hex::format_hex;
use crate::time;

use super::batch::{BatchResult, Found};
use super::budget::Budget;
use super::check::PairChecker;
use super::model::{departed, file_through_models, remove_reports, Filing};
use super::report::{build_report, report_path, ReportContext};
use super::signature::Signature;
use super::summary::{AspectCounters, RunStop};
use super::{Engine, Minimise, RunOptions, RunResult};
use crate::aspect::Aspect;
use crate::diagnosis::minimize;

/// Manifestations kept per finding in a run's report.
const MANIFESTATIONS_KEPT: usize = 4;

/// The collector: merges batch results in order, minimises and writes reports.
pub(super) struct Collector<'e> {
    engine: &'e Engine,
    options: &'e RunOptions,
    run_id: String,
    run_dir: PathBuf,
    pub(super) reports: Vec<FindingReport>,
    report_of: HashMap<Signature, usize>,
    /// Finding id -> index in `reports`: one report per finding.
    report_of_finding: HashMap<String, usize>,
    over_limit: HashSet<Signature>,
    counters: Vec<AspectCounters>,
    sources: BTreeMap<String, u64>,
    pub(super) total_inputs: u64,
    total_bytes: u64,
    departing_inputs: u64,
    /// The first report or summary write that failed; no file is written after it (a
    /// full disk stops the run at once), but what was found is still kept in memory.
    pub(super) write_error: Option<io::Error>,
    /// The machines learned at the end of the run, which the findings were filed through.
    models: Vec<LearnedModel>,
}

impl<'e> Collector<'e> {
    pub(super) fn new(
        engine: &'e Engine,
        options: &'e RunOptions,
        run_id: &str,
        run_dir: &Path,
    ) -> Self {
        Collector {
            engine,
            options,
            run_id: run_id.to_string(),
            run_dir: run_dir.to_path_buf(),
            reports: Vec::new(),
            report_of: HashMap::new(),
            report_of_finding: HashMap::new(),
            over_limit: HashSet::new(),
            counters: vec![AspectCounters::default(); engine.decoders.len()],
            sources: BTreeMap::new(),
            total_inputs: 0,
            total_bytes: 0,
            departing_inputs: 0,
            write_error: None,
            models: Vec::new(),
        }
    }

    /// Merges the next batch in input order. A failed report write is kept in
    /// [`Collector::write_error`]; the finding stays in [`Collector::reports`].
    pub(super) fn merge(&mut self, result: BatchResult) {
        self.total_inputs += result.inputs;
        self.total_bytes += result.bytes;
        for (name, count) in result.sources {
            *self.sources.entry(name).or_default() += count;
        }
        for (total, batch) in self.counters.iter_mut().zip(&result.counters) {
            for (t, b) in total.iter_mut().zip(batch) {
                t.compared += b.compared;
                t.departures += b.departures;
            }
        }
        for found in result.found {
            self.departing_inputs += found.count;
            if let Some(&slot) = self.report_of.get(&found.signature) {
                self.add_occurrences(slot, found);
                continue;
            }
            if self.reports.len() >= self.options.max_reports {
                self.over_limit.insert(found.signature);
                continue;
            }
            let raw_signature = found.signature.clone();
            let (signature, minimized, finding) = match self.options.minimise {
                Minimise::ByFinding => self.minimize(&found),
                Minimise::BySignature => {
                    let (signature, minimized) = self.minimize_signature(&found);
                    (signature, minimized, None)
                }
            };
            // One report per finding: a signature whose root cause is already reported
            // is a manifestation of that finding.
            let existing = finding
                .as_ref()
                .and_then(|f| self.report_of_finding.get(&f.id))
                .or_else(|| self.report_of.get(&signature))
                .copied();
            if let Some(slot) = existing {
                self.report_of.insert(raw_signature, slot);
                self.report_of.insert(signature.clone(), slot);
                if self.options.minimise == Minimise::ByFinding {
                    self.add_manifestation(slot, &signature, &minimized.bytes);
                }
                self.add_occurrences(slot, found);
                continue;
            }
            let report = self.new_report(found, &signature, &minimized, finding);
            let slot = self.reports.len();
            self.report_of.insert(raw_signature, slot);
            self.report_of.insert(signature, slot);
            self.report_of_finding.insert(report.id.clone(), slot);
            self.reports.push(report);
        }
    }

    /// Writes `value` to `path` unless an earlier write failed; keeps the first error.
    fn write(&mut self, path: &Path, value: &impl serde::Serialize) {
        if self.write_error.is_none() {
            if let Err(error) = write_json_atomically(path, value) {
                self.write_error = Some(error);
            }
        }
    }

    /// Notes a signature met under the finding in `slot` when it is about other categories.
    fn add_manifestation(&mut self, slot: usize, signature: &Signature, witness: &[u8]) {
        let finding = &mut self.reports[slot].finding;
        if !finding.aspects.contains(&signature.aspect) {
            finding.aspects.push(signature.aspect);
            finding.aspects.sort();
        }
        let unit_categories = |f: &Finding| match &f.cause.unit.unit {
            crate::finding::UnitKind::Error { category } => vec![*category],
            _ => f.categories.clone(),
        };
        if signature.categories.is_empty()
            || signature.categories == unit_categories(finding)
            || finding.manifestations.len() >= MANIFESTATIONS_KEPT
            || finding
                .manifestations
                .iter()
                .any(|m| m.categories == signature.categories)
        {
            return;
        }
        finding.manifestations.push(Manifestation {
            categories: signature.categories.clone(),
            input_hex: format_hex(witness),
            aspects: vec![signature.aspect],
        });
    }

    /// Counts `found` under the report in `slot`, keeping a few more origins.
    fn add_occurrences(&mut self, slot: usize, found: Found) {
        let report = &mut self.reports[slot];
        report.finding.occurrences += found.count;
        let room =
            self.options.origins_kept - report.other_origins.len().min(self.options.origins_kept);
        report.other_origins.extend(
            std::iter::once(found.origin)
                .chain(found.other_origins)
                .take(room),
        );
    }

    /// Minimises the first occurrence of a new signature with the grading core
    /// ([`crate::diagnosis::in_process_finding`]: remove bytes while the decoder departs in
    /// the same aspect with the same kind of action, then probe the position), and returns
    /// the signature of the minimised input (what `utf8conf reproduce` checks), the
    /// minimised input, and its finding.
    ///
    /// A decoder that does not depart again on the same input (a flaky adapter) keeps its
    /// first input and signature, without a finding of its own.
    fn minimize(&self, found: &Found) -> (Signature, minimize::Minimized, Option<Finding>) {
        let decoder = self.engine.decoders[found.decoder].as_ref();
        let no_command = |_: &[u8]| String::new();
        match crate::diagnosis::in_process_finding(decoder, &found.bytes, found.count, &no_command)
        {
            Some((finding, witness, calls)) => {
                let signature = PairChecker::new(decoder)
                    .signature(&witness)
                    .unwrap_or_else(|| found.signature.clone());
                let minimized = minimize::Minimized {
                    budget_exhausted: calls >= crate::diagnosis::MINIMISE_BUDGET,
                    bytes: witness,
                    calls,
                };
                (signature, minimized, Some(finding))
            }
            None => (
                found.signature.clone(),
                minimize::Minimized {
                    bytes: found.bytes.clone(),
                    calls: 0,
                    budget_exhausted: false,
                },
                None,
            ),
        }
    }

    /// Minimises a new signature's first occurrence keeping its whole signature, or for
    /// a crash, timeout or protocol failure its decoder, aspect and shape
    /// ([`Minimise::BySignature`]); the signature of the minimised input and the input.
    fn minimize_signature(&self, found: &Found) -> (Signature, minimize::Minimized) {
        let decoder = self.engine.decoders[found.decoder].as_ref();
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

    /// The `--lib` library and symbol, when `decoder` is the library's decoder.
    fn library_of(&self, decoder: &str) -> Option<(&str, &str)> {
        self.options
            .library
            .as_ref()
            .filter(|(_, symbol)| symbol == decoder)
            .map(|(path, symbol)| (path.as_str(), symbol.as_str()))
    }

    /// Builds and writes the report of a new signature (kept even when the write fails).
    fn new_report(
        &mut self,
        found: Found,
        signature: &Signature,
        minimized: &minimize::Minimized,
        finding: Option<Finding>,
    ) -> FindingReport {
        let decoder = self.engine.decoders[found.decoder].as_ref();
        let report = build_report(
            decoder,
            signature,
            &found.bytes,
            minimized,
            ReportContext {
                run_id: &self.run_id,
                report_dir: &self.run_dir.join("divergences"),
                origin: found.origin,
                other_origins: found
                    .other_origins
                    .into_iter()
                    .take(self.options.origins_kept)
                    .collect(),
                occurrences: found.count,
                first_input: found.first_input,
                conditions: None,
                finding,
                library: self.library_of(decoder.name()),
            },
        );
        self.write(&report_path(&self.run_dir, &report.id), &report);
        report
    }

    /// Writes `summary.json` as a stub before the run starts: `stopped_by` is
    /// `incomplete` and every count is zero, so a run killed before its end (SIGKILL, a
    /// crash of the machine) still leaves a summary that says it was cut short. The
    /// summary written at the end replaces it atomically.
    pub(super) fn write_stub(&mut self, started_at: SystemTime, threads: usize) {
        let stub = self.summary(started_at, 0.0, threads, RunStop::Incomplete);
        self.write(&self.run_dir.join("summary.json"), &stub);
    }

    /// Rewrites every report with its final count and writes `summary.json` (unless a
    /// write already failed); the result, and the first write error if any.
    pub(super) fn finish(
        mut self,
        started_at: SystemTime,
        duration_seconds: f64,
        threads: usize,
        stopped_by: RunStop,
    ) -> (RunResult, Option<io::Error>) {
        // A run stopped by a signal or a full disk ends at once: its reports stay as
        // filed, without the machines.
        let explained = if self.write_error.is_none() && stopped_by != RunStop::Interrupted {
            self.file_through_models(threads)
        } else {
            Vec::new()
        };
        let reports = std::mem::take(&mut self.reports);
        for report in &reports {
            self.write(&report_path(&self.run_dir, &report.id), report);
        }
        self.reports = reports;
        // The reports a machine explains go only once the reports that replace them are
        // written: a full disk leaves the run's own reports rather than none.
        if self.write_error.is_none() {
            if let Err(error) = remove_reports(&self.run_dir, &explained) {
                self.write_error = Some(error);
            }
        }
        let summary = self.summary(started_at, duration_seconds, threads, stopped_by);
        self.write(&self.run_dir.join("summary.json"), &summary);
        let result = RunResult {
            run_dir: self.run_dir,
            summary,
            reports: self.reports,
        };
        (result, self.write_error)
    }

    /// Files the reports of each decoder that departed through its learned machine
    /// ([`super::model`]); the ids of the reports it explains, whose files are to go.
    fn file_through_models(&mut self, threads: usize) -> Vec<String> {
        let report_dir = self.run_dir.join("divergences");
        let filed = file_through_models(
            &self.engine.decoders,
            &departed(&self.counters),
            &mut self.reports,
            &Filing {
                run_id: &self.run_id,
                report_dir: &report_dir,
                budget: self.options.model,
                threads,
                library: self
                    .options
                    .library
                    .as_ref()
                    .map(|(path, symbol)| (path.as_str(), symbol.as_str(), symbol.as_str())),
            },
        );
        self.models = filed.models;
        filed.removed
    }

    /// The run's summary as it stands.
    fn summary(
        &self,
        started_at: SystemTime,
        duration_seconds: f64,
        threads: usize,
        stopped_by: RunStop,
    ) -> Summary {
        let comparisons = DecoderCounts::of_each(&self.engine.decoders, &self.counters);
        let exit_code = summary::exit_code(self.departing_inputs);
        let (budget_kind, budget_amount) = match self.options.budget {
            Budget::Time(limit) => ("time", limit.as_secs_f64()),
            Budget::Inputs(count) => ("inputs", count as f64),
        };
        Summary {
            encoders: None,
            schema: SUMMARY_SCHEMA.to_string(),
            run_id: self.run_id.clone(),
            tool: Tool {
                name: "utf8conf".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            seed: self.options.seed,
            budget: BudgetEntry {
                text: self.options.budget.describe(),
                kind: budget_kind.to_string(),
                amount: budget_amount,
            },
            stopped_by,
            started: time::rfc3339(started_at),
            finished: time::rfc3339(SystemTime::now()),
            duration_seconds,
            threads,
            reference: DecoderEntry::of(&crate::decoders::reference::ReferenceDecoder),
            decoders: DecoderEntry::of_each(&self.engine.decoders),
            sources: self.sources.clone(),
            total_inputs: self.total_inputs,
            total_bytes: self.total_bytes,
            throughput_inputs_per_second: summary::throughput(self.total_inputs, duration_seconds),
            comparisons,
            departing_inputs: self.departing_inputs,
            reports: self.reports.iter().map(|r| r.id.clone()).collect(),
            unreported_signatures: self.over_limit.len() as u64,
            exit_code,
            models: self.models.clone(),
        }
    }
}
