//! A fuzz finding as a finding report, made by the engine's own parts.
//!
//! The main job (`utf8conf run`) and the fuzz targets must say the same thing about the same
//! bug, so nothing here compares or minimises by itself: [`PairChecker`] compares a decoder
//! with the reference aspect by aspect and names the departure by its [`Signature`],
//! [`minimize::minimize`] shrinks the input while that signature holds, [`utf8conf::diagnosis::explain::explain`]
//! words the minimised input in the grammar's terms, and the result is a
//! [`FindingReport`], the type `utf8conf run` writes (schema
//! `schemas/divergence.schema.json`). What differs is the run context: the run id is
//! `fuzz-<target>`, the origin is `{"kind": "fuzz", "target": ...}`, each report is one
//! occurrence, and `reproduce` points at the report in the fuzz report directory.
//!
//! One difference from `utf8conf run`, for bucketing: the signature's categories are those
//! of *every* error unit of the input, so on random fuzz inputs one bug comes with ever new
//! incidental errors around it, hence ever new signatures (one planted bug gave 140 reports
//! in 30 seconds of `-fork=2`). So the fuzz side minimises while the decoder still departs
//! on the same aspect with the same shape, whatever the categories, and the finding's
//! signature is the engine's signature *of the minimised input*, where the incidental
//! errors are gone. That is also the signature `utf8conf reproduce` checks, since it
//! re-runs the pair on the minimised input.
//!
//! Then, as `utf8conf run` does at the end of a run, a departure found without a
//! condition is filed through the decoder's learned machine ([`crate::model`]): the
//! report of the mechanism that explains it takes its place, so one bug is one report
//! whatever the signature of the input that met it first.
//!
//! A target's conditions (the chunk plan of `streaming`, the alignment offset of
//! `backends`) are not part of the signature, so that one bug seen under many conditions is
//! one report; they are appended to the explanation, after the reference's account.

use std::path::Path;

use utf8conf::corpus::Origin;
use utf8conf::decoders::Decoder;
use utf8conf::diagnosis::minimize::{self, Minimized};
use utf8conf::engine::check::PairChecker;
use utf8conf::engine::finding_report::FindingReport;
use utf8conf::engine::signature::Signature;
use utf8conf::engine::{self, ReportContext};

/// Decode-and-compare calls the minimiser may spend per finding (as `utf8conf run`).
pub const MINIMIZATION_CALLS: usize = 4_000;

/// A departure found by a fuzz target.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The signature of the minimised input (the report's `id` is [`Signature::id`]).
    pub signature: Signature,
    /// The bytes decoded when it was found (the fuzz input itself, or what the target
    /// made of it).
    pub input: Vec<u8>,
    /// The report.
    pub report: FindingReport,
}

impl Finding {
    /// The minimised input, as bytes.
    pub fn minimized(&self) -> Vec<u8> {
        utf8conf::hex::parse_hex(&self.report.minimized_hex)
            .expect("a report's minimized_hex is hex")
    }
}

/// Where a target found a departure, and under which conditions.
#[derive(Debug, Clone, Copy)]
pub struct FuzzContext<'a> {
    /// The fuzz target.
    pub target: &'a str,
    /// The conditions the decoder ran under, in words, if any.
    pub conditions: Option<&'a str>,
    /// The report directory (for the `reproduce` command).
    pub report_dir: &'a Path,
}

/// `decoder` against the reference on `input`: `None` when they agree on every aspect both
/// report, else the minimised finding, named by the signature of the minimised input.
pub fn check_pair(
    decoder: &dyn Decoder,
    input: &[u8],
    context: FuzzContext<'_>,
) -> Option<Finding> {
    let mut checker = PairChecker::new(decoder);
    let found = checker.signature(input)?;
    let minimized = minimize::minimize(input, MINIMIZATION_CALLS, |candidate| {
        checker.signature(candidate).is_some_and(|signature| {
            signature.aspect == found.aspect && signature.shape == found.shape
        })
    });
    let signature = checker
        .signature(&minimized.bytes)
        .expect("minimisation keeps a divergence");
    let report = build_report(decoder, &signature, input, &minimized, context);
    if context.conditions.is_some() {
        return Some(Finding {
            signature,
            input: input.to_vec(),
            report,
        });
    }
    let report = crate::model::file(decoder, report, &run_id(context.target), context.report_dir);
    // The mechanism's witness may differ from the minimised input: the signature is the
    // one `utf8conf reproduce` checks, that of the report's minimised input.
    let signature = utf8conf::hex::parse_hex(&report.minimized_hex)
        .ok()
        .and_then(|witness| checker.signature(&witness))
        .unwrap_or(signature);
    Some(Finding {
        signature,
        input: input.to_vec(),
        report,
    })
}

/// The run id of `target`'s reports.
fn run_id(target: &str) -> String {
    format!("fuzz-{target}")
}

/// The report of `signature`, first seen in `input`, minimised to `minimized`: the engine's
/// own report, with the fuzz target as origin and its conditions in the explanation.
fn build_report(
    decoder: &dyn Decoder,
    signature: &Signature,
    input: &[u8],
    minimized: &Minimized,
    context: FuzzContext<'_>,
) -> FindingReport {
    engine::build_report(
        decoder,
        signature,
        input,
        minimized,
        ReportContext {
            run_id: &run_id(context.target),
            report_dir: context.report_dir,
            origin: Origin::Fuzz {
                target: context.target.to_string(),
            },
            other_origins: Vec::new(),
            occurrences: 1,
            first_input: 0,
            conditions: context
                .conditions
                .map(|conditions| format!("fuzz target {}: {conditions}", context.target)),
            finding: None,
            library: None,
        },
    )
}
