//! A fuzz finding as a divergence report, made by the engine's own parts.
//!
//! The main job (`utf8conf run`) and the fuzz targets must say the same thing about the same
//! bug, so nothing here compares or minimises by itself: [`PairChecker`] compares a decoder
//! with the reference aspect by aspect and names the divergence by its [`Signature`],
//! [`minimize::minimize`] shrinks the input while that signature holds, [`explain::explain`]
//! words the minimised input in the grammar's terms, and the result is a
//! [`DivergenceReport`], the type `utf8conf run` writes (schema
//! `schemas/divergence.schema.json`). What differs is the run context: the run id is
//! `fuzz-<target>`, the origin is `{"kind": "fuzz", "target": ...}`, each report is one
//! occurrence, and `reproduce` points at the report in the fuzz report directory.
//!
//! One difference from `utf8conf run`, for bucketing: the signature's categories are those
//! of *every* error unit of the input, so on random fuzz inputs one bug comes with ever new
//! incidental errors around it, hence ever new signatures (one planted bug gave 140 reports
//! in 30 seconds of `-fork=2`). So the fuzz side minimises while the decoder still diverges
//! on the same aspect with the same shape, whatever the categories, and the finding's
//! signature is the engine's signature *of the minimised input*, where the incidental
//! errors are gone. That is also the signature `utf8conf reproduce` checks, since it
//! re-runs the pair on the minimised input.
//!
//! A target's conditions (the chunk plan of `streaming`, the alignment offset of
//! `backends`) are not part of the signature, so that one bug seen under many conditions is
//! one report; they are appended to the explanation, after the reference's account.

use std::path::Path;
use std::time::SystemTime;

use utf8conf::corpus::Origin;
use utf8conf::decoders::Decoder;
use utf8conf::engine::check::{PairChecker, REFERENCE_NAME};
use utf8conf::engine::explain;
use utf8conf::engine::minimize::{self, Minimized};
use utf8conf::engine::signature::Signature;
use utf8conf::hex::format_hex;
use utf8conf::reference::Reference;
use utf8conf::report::divergence::{DivergenceReport, Failure, Minimization, DIVERGENCE_SCHEMA};
use utf8conf::report::{shell_quote, time};

/// Decode-and-compare calls the minimiser may spend per finding (as `utf8conf run`).
pub const MINIMIZATION_CALLS: usize = 4_000;

/// A divergence found by a fuzz target.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The signature of the minimised input (the report's `id` is [`Signature::id`]).
    pub signature: Signature,
    /// The bytes decoded when it was found (the fuzz input itself, or what the target
    /// made of it).
    pub input: Vec<u8>,
    /// The report.
    pub report: DivergenceReport,
}

impl Finding {
    /// The minimised input, as bytes.
    pub fn minimized(&self) -> Vec<u8> {
        utf8conf::hex::parse_hex(&self.report.minimized_hex)
            .expect("a report's minimized_hex is hex")
    }
}

/// Where a target found a divergence, and under which conditions.
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
    Some(Finding {
        signature,
        input: input.to_vec(),
        report,
    })
}

/// The report of `signature`, first seen in `input`, minimised to `minimized` (the same
/// fields, computed the same way, as the reports of `utf8conf run`).
fn build_report(
    decoder: &dyn Decoder,
    signature: &Signature,
    input: &[u8],
    minimized: &Minimized,
    context: FuzzContext<'_>,
) -> DivergenceReport {
    let bytes = &minimized.bytes;
    let mut checker = PairChecker::new(decoder);
    let checked = checker.check(bytes);
    let mut outcomes = serde_json::Map::new();
    outcomes.insert(
        REFERENCE_NAME.to_string(),
        serde_json::to_value(Reference::rfc3629().outcome(REFERENCE_NAME, bytes))
            .expect("outcomes serialise"),
    );
    let failure = match &checked.failure {
        None => {
            outcomes.insert(
                decoder.name().to_string(),
                serde_json::to_value(checker.last_outcome()).expect("outcomes serialise"),
            );
            None
        }
        Some(message) => Some(Failure {
            decoder: decoder.name().to_string(),
            kind: signature.aspect.as_str().to_string(),
            message: message.clone(),
        }),
    };
    let also_differs = checked
        .comparison
        .diverged
        .iter()
        .filter(|&aspect| aspect != signature.aspect)
        .map(|aspect| aspect.as_str().to_string())
        .collect();
    let id = signature.id();
    let hex = format_hex(bytes);
    let mut explanation = explain::explain(bytes);
    if let Some(conditions) = context.conditions {
        explanation.push_str(&format!("\n(fuzz target {}: {conditions})", context.target));
    }
    let path = context.report_dir.join(format!("{id}.json"));
    DivergenceReport {
        schema: DIVERGENCE_SCHEMA.to_string(),
        id,
        run_id: format!("fuzz-{}", context.target),
        decoders: vec![signature.reference.clone(), signature.decoder.clone()],
        aspect: signature.aspect.as_str().to_string(),
        shape: signature.shape.clone(),
        categories: signature.categories.clone(),
        also_differs,
        input_hex: format_hex(input),
        minimized_hex: hex.clone(),
        outcomes,
        failure,
        explanation,
        origin: Origin::Fuzz {
            target: context.target.to_string(),
        },
        other_origins: Vec::new(),
        occurrences: 1,
        first_seen: time::rfc3339(SystemTime::now()),
        first_input_index: 0,
        reproduce: format!(
            "utf8conf reproduce {}",
            shell_quote(&path.to_string_lossy())
        ),
        reproduce_decode: [signature.reference.as_str(), signature.decoder.as_str()]
            .iter()
            .map(|name| {
                format!(
                    "utf8conf decode --decoder {} --hex {}",
                    shell_quote(name),
                    shell_quote(&hex)
                )
            })
            .collect(),
        minimization: Minimization {
            input_len: input.len(),
            minimized_len: bytes.len(),
            calls: minimized.calls,
            budget_exhausted: minimized.budget_exhausted,
        },
    }
}
