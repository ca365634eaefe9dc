//! Merging the run directories of the shards of one exhaustive space.
//!
//! `utf8conf exhaustive --shard I/N` runs can happen anywhere (a CI matrix, several
//! machines); [`merge`] reads their run directories, checks that they cover the same
//! space with the same decoders and that every shard `1/N` .. `N/N` is there exactly
//! once and complete, and writes one run directory whose `summary.json` adds them up:
//! inputs, bytes, per-decoder and per-aspect counts, departing inputs, and the reports
//! (one per id, occurrences summed). The files read are other people's: every problem is
//! a one-line [`MergeError`], and report ids are checked before they name a file.
//!
//! Learned machines. Each shard learns the machine of each decoder that departed in it
//! and files that decoder's reports through it ([`crate::engine::model`]); the merge does
//! not learn again. The machine is the decoder's, not the shard's: learning asks the
//! decoder its own queries, whatever inputs the shard held, so every shard where a decoder
//! departs learns the same machine, files the same mechanisms under the same ids, and
//! drops the same explained reports. Per-shard results therefore add up like the rest,
//! and the merge needs no decoder (it may run on another machine, without the `--lib`
//! library). What it checks is that the shards did learn the same machine of each decoder
//! (a budget that ran out in one shard would not): shards that disagree are refused. A
//! mechanism no input of a shard showed counts only its witness, once, however many
//! shards report it.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Deserialize;

use crate::atomic_file::write_json_atomically;
use crate::engine::budget::Budget;
use crate::engine::fresh_run_dir;
use crate::engine::report::report_path;
use crate::engine::summary::{self, Summary, SUMMARY_SCHEMA};
use crate::time;

use super::coverage::{Coverage, Finished, EXHAUSTIVE_SCHEMA};
use super::space::Shard;

/// Why shard results cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError(pub String);

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MergeError {}

/// Reads `dir/name` as JSON of type `T`, with a one-line error naming the file.
fn read_json<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str) -> Result<T, MergeError> {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| MergeError(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| MergeError(format!("{} is not a valid {name}: {e}", path.display())))
}

/// One shard's run directory, as read.
type Part = (PathBuf, Summary, Coverage);

/// Merges the run directories of the shards of one exhaustive space into a new run
/// directory under `out_dir`. Every shard `1/N` .. `N/N` must be present exactly once and
/// complete, and all must have compared the same decoders.
pub fn merge(dirs: &[PathBuf], out_dir: &Path) -> Result<Finished, MergeError> {
    let parts = read_parts(dirs)?;
    check_shards(&parts)?;
    let (_, first_summary, first_coverage) = &parts[0];
    let (max_len, shard_count) = (first_coverage.max_len, first_coverage.shard_count);

    let name = format!(
        "{}-exhaustive{max_len}-merged",
        time::compact(SystemTime::now())
    );
    let io_error = |e: io::Error| MergeError(format!("cannot write the merged run: {e}"));
    let run_dir = fresh_run_dir(out_dir, &name).map_err(io_error)?;
    let run_id = run_dir
        .file_name()
        .map_or(name, |dir| dir.to_string_lossy().into_owned());
    std::fs::create_dir_all(run_dir.join("divergences")).map_err(io_error)?;
    let mut merged = emptied(first_summary);
    merged.run_id = run_id;
    let mut reports: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    for (dir, summary, _) in &parts {
        add_counts(&mut merged, summary);
        add_reports(&mut merged, &mut reports, dir, summary)?;
        add_models(&mut merged, dir, summary)?;
    }
    let order: Vec<&str> = first_summary
        .decoders
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    merged
        .models
        .sort_by_key(|learned| order.iter().position(|&name| name == learned.decoder));
    merged.budget.text = Budget::Inputs(merged.budget.amount as u64).describe();
    merged.throughput_inputs_per_second =
        summary::throughput(merged.total_inputs, merged.duration_seconds);
    merged.exit_code = summary::exit_code(merged.departing_inputs);
    for (id, report) in &reports {
        write_json_atomically(&report_path(&run_dir, id), report).map_err(io_error)?;
    }
    let coverage = Coverage {
        schema: EXHAUSTIVE_SCHEMA.to_string(),
        max_len,
        shards: (1..=shard_count)
            .map(|i| format!("{i}/{shard_count}"))
            .collect(),
        shard_count,
        inputs: merged.total_inputs,
        complete: true,
    };
    write_json_atomically(&run_dir.join("summary.json"), &merged).map_err(io_error)?;
    write_json_atomically(&run_dir.join("exhaustive.json"), &coverage).map_err(io_error)?;
    Ok(Finished {
        run_dir,
        summary: merged,
        coverage,
    })
}

/// Reads each run directory's `summary.json` and `exhaustive.json`, of known schemas.
fn read_parts(dirs: &[PathBuf]) -> Result<Vec<Part>, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError(
            "--merge needs at least one run directory".into(),
        ));
    }
    let mut parts: Vec<Part> = Vec::new();
    for dir in dirs {
        let summary: Summary = read_json(dir, "summary.json")?;
        let coverage: Coverage = read_json(dir, "exhaustive.json")?;
        if coverage.schema != EXHAUSTIVE_SCHEMA || summary.schema != SUMMARY_SCHEMA {
            return Err(MergeError(format!(
                "{}: unknown schema (expected {EXHAUSTIVE_SCHEMA} and {SUMMARY_SCHEMA})",
                dir.display()
            )));
        }
        parts.push((dir.clone(), summary, coverage));
    }
    Ok(parts)
}

/// Checks that the parts cover one space with the same decoders, each complete, and hold
/// every shard `1/N` .. `N/N` exactly once.
fn check_shards(parts: &[Part]) -> Result<(), MergeError> {
    let (first_dir, first_summary, first_coverage) = &parts[0];
    let (max_len, shard_count) = (first_coverage.max_len, first_coverage.shard_count);
    let decoder_names = |s: &Summary| {
        s.decoders
            .iter()
            .map(|d| d.name.clone())
            .collect::<Vec<_>>()
    };
    let mut seen: BTreeMap<u64, PathBuf> = BTreeMap::new();
    for (dir, summary, coverage) in parts {
        if (coverage.max_len, coverage.shard_count) != (max_len, shard_count) {
            return Err(MergeError(format!(
                "{} covers --max-len {} in {} shards, {} covers --max-len {max_len} in {shard_count}",
                dir.display(),
                coverage.max_len,
                coverage.shard_count,
                first_dir.display()
            )));
        }
        let compared = |s: &Summary| {
            s.comparisons
                .iter()
                .map(|c| c.decoder.clone())
                .collect::<Vec<_>>()
        };
        if decoder_names(summary) != decoder_names(first_summary)
            || compared(summary) != decoder_names(first_summary)
        {
            return Err(MergeError(format!(
                "{} compared other decoders than {}",
                dir.display(),
                first_dir.display()
            )));
        }
        if !coverage.complete {
            return Err(MergeError(format!("{} was interrupted", dir.display())));
        }
        for shard in &coverage.shards {
            let shard: Shard = shard
                .parse()
                .map_err(|e| MergeError(format!("{}: {e}", dir.display())))?;
            if shard.count != shard_count {
                return Err(MergeError(format!(
                    "{}: shard {shard} of {shard_count}?",
                    dir.display()
                )));
            }
            if let Some(other) = seen.insert(shard.index, dir.clone()) {
                return Err(MergeError(format!(
                    "shard {shard} is in both {} and {}",
                    other.display(),
                    dir.display()
                )));
            }
        }
    }
    let missing: Vec<String> = (1..=shard_count)
        .filter(|index| !seen.contains_key(index))
        .map(|index| format!("{index}/{shard_count}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError(format!(
            "missing shards: {}",
            missing.join(", ")
        )));
    }
    Ok(())
}

/// `first` with everything the parts add up set to zero.
fn emptied(first: &Summary) -> Summary {
    let mut merged = first.clone();
    merged.budget.amount = 0.0;
    merged.sources.clear();
    merged.total_inputs = 0;
    merged.total_bytes = 0;
    merged.departing_inputs = 0;
    merged.unreported_signatures = 0;
    merged.reports.clear();
    merged.models.clear();
    merged.threads = 0;
    merged.duration_seconds = 0.0;
    for counts in &mut merged.comparisons {
        counts.inputs = 0;
        counts.aspects.clear();
    }
    merged
}

/// Adds one part's counts to the merged summary: sums, and the span of the run times.
fn add_counts(merged: &mut Summary, summary: &Summary) {
    merged.budget.amount += summary.budget.amount;
    for (source, count) in &summary.sources {
        *merged.sources.entry(source.clone()).or_default() += count;
    }
    merged.total_inputs += summary.total_inputs;
    merged.total_bytes += summary.total_bytes;
    merged.departing_inputs += summary.departing_inputs;
    merged.unreported_signatures += summary.unreported_signatures;
    merged.threads += summary.threads;
    merged.duration_seconds = merged.duration_seconds.max(summary.duration_seconds);
    merged.started = merged.started.clone().min(summary.started.clone());
    merged.finished = merged.finished.clone().max(summary.finished.clone());
    for (total, part) in merged.comparisons.iter_mut().zip(&summary.comparisons) {
        total.inputs += part.inputs;
        for (aspect, count) in &part.aspects {
            let entry = total.aspects.entry(aspect.clone()).or_default();
            entry.compared += count.compared;
            entry.departures += count.departures;
        }
    }
}

/// Adds one part's finding reports: a new id is kept, a known one adds its occurrences.
fn add_reports(
    merged: &mut Summary,
    reports: &mut BTreeMap<String, serde_json::Value>,
    dir: &Path,
    summary: &Summary,
) -> Result<(), MergeError> {
    for id in &summary.reports {
        // Report ids are signature hashes; anything else could name a path.
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(MergeError(format!(
                "{}: report id {id:?} is not a report id",
                dir.display()
            )));
        }
        let report: serde_json::Value = read_json(&dir.join("divergences"), &format!("{id}.json"))?;
        if !report.is_object() {
            return Err(MergeError(format!(
                "{}: report {id} is not a JSON object",
                dir.display()
            )));
        }
        match reports.get_mut(id) {
            // A mechanism no input of that shard showed adds nothing: its one occurrence
            // is the learner's witness, already counted.
            Some(_) if only_witnessed(&report) => {}
            Some(existing) if only_witnessed(existing) => *existing = report,
            Some(existing) => {
                let add = report["finding"]["occurrences"].as_u64().unwrap_or(0);
                let total = existing["finding"]["occurrences"].as_u64().unwrap_or(0) + add;
                existing["finding"]["occurrences"] = total.into();
            }
            None => {
                merged.reports.push(id.clone());
                reports.insert(id.clone(), report);
            }
        }
    }
    Ok(())
}

/// True for the report of a mechanism of a learned machine that no input of its shard
/// showed (its origin is the learner, [`crate::engine::model`]).
fn only_witnessed(report: &serde_json::Value) -> bool {
    report["origin"]["kind"] == "generator" && report["origin"]["name"] == "model"
}

/// Adds one part's learned machines: the first of each decoder is kept, and a part that
/// learned another machine of the same decoder is refused (see the module header).
fn add_models(merged: &mut Summary, dir: &Path, summary: &Summary) -> Result<(), MergeError> {
    for learned in &summary.models {
        let machine = |model: &serde_json::Value| {
            (
                model["model"]["machine"].clone(),
                model["model"]["incomplete"].clone(),
                model["findings"].clone(),
            )
        };
        match merged
            .models
            .iter()
            .find(|known| known.decoder == learned.decoder)
        {
            Some(known) if machine(&known.model) == machine(&learned.model) => {}
            Some(_) => {
                return Err(MergeError(format!(
                    "{}: another machine of {} than the other shards learned (a learning \
                     budget ran out: run the shards again with a larger --model-queries \
                     or --model-time)",
                    dir.display(),
                    learned.decoder
                )))
            }
            None => merged.models.push(learned.clone()),
        }
    }
    Ok(())
}
