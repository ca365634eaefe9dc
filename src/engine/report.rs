//! Building a finding report: the one place a [`FindingReport`] is assembled, for
//! `utf8conf run` and for the fuzz targets.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::aspect::Aspect;
use crate::corpus::Origin;
use crate::decoders::Decoder;
use crate::engine::finding_report::{Failure, FindingReport, Minimization, FINDING_REPORT_SCHEMA};
use crate::finding::Finding;
use crate::hex::format_hex;
use crate::outcome::Outcome;
use crate::reference::{Decoded, Reference};
use crate::reproduction::{self, Invocation};
use crate::time;

use super::check::{Checked, PairChecker, REFERENCE_NAME};
use super::signature::Signature;
use crate::diagnosis::explain;
use crate::diagnosis::minimize;

/// Where the report with `id` lives.
pub fn report_path(run_dir: &Path, id: &str) -> PathBuf {
    run_dir.join("divergences").join(format!("{id}.json"))
}

/// The facts of a report that depend on where its departure was found (a run, a fuzz
/// target), not on the departure itself.
pub struct ReportContext<'a> {
    /// The run id (`fuzz-<target>` for fuzzing).
    pub run_id: &'a str,
    /// The folder the report is written to (its `reproduce` command names the file there).
    pub report_dir: &'a Path,
    /// Where the first occurrence came from.
    pub origin: Origin,
    /// Where a few later occurrences came from.
    pub other_origins: Vec<Origin>,
    /// How many inputs showed this departure.
    pub occurrences: u64,
    /// The index of the first occurrence among the run's inputs.
    pub first_input: u64,
    /// Conditions the decoder ran under that are not part of the signature (a fuzz
    /// target's chunk plan or alignment), appended to the explanation in parentheses.
    pub conditions: Option<String>,
    /// The finding the report is about, when the caller has diagnosed it; otherwise
    /// [`build_report`] diagnoses the minimised input itself.
    pub finding: Option<Finding>,
    /// The `--lib` library and symbol when the decoder is a C library (its reproduction
    /// commands must load it again); `None` for a built-in decoder.
    pub library: Option<(&'a str, &'a str)>,
}

/// Builds the report of `signature`, first seen in `input`, minimised to `minimized`: the
/// one place a [`FindingReport`] is assembled, for `utf8conf run` and for `cargo fuzz`.
pub fn build_report(
    decoder: &dyn Decoder,
    signature: &Signature,
    input: &[u8],
    minimized: &minimize::Minimized,
    context: ReportContext<'_>,
) -> FindingReport {
    let bytes = &minimized.bytes;
    // The reference's decode of the minimised input, made once for every part below.
    let reference = Reference::rfc3629().decode(bytes);
    let reference_outcome = reference.to_outcome(REFERENCE_NAME, bytes);
    let mut checker = PairChecker::new(decoder);
    let checked = checker.check(bytes);
    let (outcomes, failure) = outcomes_and_failure(decoder, &reference_outcome, &checker, &checked);
    let also_differs = checked
        .comparison
        .departed
        .iter()
        .filter(|&aspect| aspect != signature.aspect)
        .collect();
    let no_command = |_: &[u8]| String::new();
    let mut finding = context
        .finding
        .or_else(|| {
            crate::diagnosis::in_process_finding(decoder, bytes, context.occurrences, &no_command)
                .map(|(finding, _, _)| finding)
        })
        .unwrap_or_else(|| unexplained_finding(decoder, signature, bytes, &reference));
    let id = finding.id.clone();
    let hex = format_hex(bytes);
    let path = context.report_dir.join(format!("{id}.json"));
    finding.reproduce = reproduction::reproduce_command(&path, context.library);
    finding.occurrences = context.occurrences;
    if finding.security.is_none() {
        let answer = security_answer(&checker, &checked);
        finding.security = Some(crate::security::classify(
            signature.aspect,
            &signature.categories,
            bytes,
            &reference,
            answer,
        ));
    }
    let mut explanation = explain::explain(bytes, &reference);
    if let Some(conditions) = &context.conditions {
        explanation.push_str(&format!("\n({conditions})"));
    }
    FindingReport {
        schema: FINDING_REPORT_SCHEMA.to_string(),
        id,
        run_id: context.run_id.to_string(),
        decoders: vec![signature.reference.clone(), signature.decoder.clone()],
        aspect: signature.aspect,
        shape: signature.shape,
        categories: signature.categories.clone(),
        also_differs,
        input_hex: format_hex(input),
        minimized_hex: hex.clone(),
        outcomes,
        failure,
        explanation,
        origin: context.origin,
        other_origins: context.other_origins,
        first_seen: time::rfc3339(SystemTime::now()),
        first_input_index: context.first_input,
        reproduce_decode: reproduce_decode(signature, context.library, bytes),
        minimization: Minimization {
            input_len: input.len(),
            minimized_len: bytes.len(),
            calls: minimized.calls,
            budget_exhausted: minimized.budget_exhausted,
        },
        finding,
        model: None,
    }
}

/// The outcomes shown in the report (the reference's, and the decoder's when it gave one),
/// and the decoder's failure when it gave none.
fn outcomes_and_failure(
    decoder: &dyn Decoder,
    reference_outcome: &Outcome,
    checker: &PairChecker,
    checked: &Checked,
) -> (serde_json::Map<String, serde_json::Value>, Option<Failure>) {
    let mut outcomes = serde_json::Map::new();
    outcomes.insert(
        REFERENCE_NAME.to_string(),
        serde_json::to_value(reference_outcome).expect("outcomes serialise"),
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
            kind: checked
                .comparison
                .primary
                .map_or(Aspect::Crash, |d| d.aspect),
            message: message.clone(),
        }),
    };
    (outcomes, failure)
}

/// The decoder's answer as the security classification reads it.
fn security_answer<'a>(
    checker: &'a PairChecker,
    checked: &Checked,
) -> crate::security::AnswerView<'a> {
    match &checked.failure {
        None => crate::security::AnswerView::Outcome(checker.last_outcome()),
        Some(_)
            if checked
                .comparison
                .primary
                .is_some_and(|d| d.aspect != Aspect::Crash) =>
        {
            crate::security::AnswerView::Unresponsive
        }
        Some(_) => crate::security::AnswerView::Crash,
    }
}

/// The commands that decode the minimised input with the reference and with the decoder.
fn reproduce_decode(
    signature: &Signature,
    library: Option<(&str, &str)>,
    bytes: &[u8],
) -> Vec<String> {
    vec![
        reproduction::decode_command(Invocation::BuiltIn(&signature.reference), bytes),
        reproduction::decode_command(
            match library {
                Some((path, symbol)) => Invocation::Library { path, symbol },
                None => Invocation::BuiltIn(&signature.decoder),
            },
            bytes,
        ),
    ]
}

/// The finding of a departure the decoder does not show again on its minimised input (a
/// flaky decoder): named by its signature, with no root cause beyond the first unit.
fn unexplained_finding(
    decoder: &dyn Decoder,
    signature: &Signature,
    bytes: &[u8],
    reference: &Decoded,
) -> Finding {
    let failure = Err(crate::outcome::DecoderFailure {
        kind: crate::outcome::FailureKind::Crash,
        message: "did not depart again on the minimised input".to_string(),
    });
    let mut cause = crate::diagnosis::diagnose(bytes, reference, &failure, decoder.capabilities())
        .expect("a failure always departs")
        .cause;
    cause.reference_does = format!("(not reproduced) {}", cause.reference_does);
    Finding {
        id: signature.id(),
        decoder: decoder.name().to_string(),
        title: format!(
            "{} on {} (not reproduced on the minimised input)",
            signature.aspect,
            signature
                .categories
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        categories: signature.categories.clone(),
        witness_hex: format_hex(bytes),
        aspects: vec![signature.aspect],
        occurrences: 1,
        explanation: explain::explain(bytes, reference),
        reference_outcome: serde_json::to_value(reference.to_outcome(REFERENCE_NAME, bytes))
            .expect("outcomes serialise"),
        decoder_answer: None,
        reproduce: String::new(),
        manifestations: Vec::new(),
        cause,
        security: None,
        witnesses: Vec::new(),
        model: None,
    }
}
