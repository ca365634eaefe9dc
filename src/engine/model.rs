//! Filing a run's findings through each departing decoder's learned machine: the path
//! `check` takes ([`crate::diagnosis::model::with_model`]), for `run` and `exhaustive`.
//!
//! While a run goes, each new departure is minimised, diagnosed on its own and written
//! as a report, so that a run cut short still leaves what it found. At the end, each
//! decoder that departed has its machine learned in process, within the budget
//! (`--model-queries`, `--model-time`), and its reports are filed again as `check` files
//! its findings: the machine's mechanisms become the reports, each witnessed by the
//! shortest word that shows it, and a report of the run stays only when the machine does
//! not explain it (a condition on position or length, which the placement and length
//! generators find). A decoder therefore gets the same findings whichever command grades
//! it, up to the conditions that only some input sets show. A decoder that did not
//! depart is not learned: a clean run costs nothing more.
//!
//! Counts. A report the machine explains is removed; its inputs are counted under the
//! mechanism that names one of its categories, or else under the decoder's first
//! mechanism (a consequence the abstract outputs fold into it), so that the decoder's
//! reports still count every input it departed on. A mechanism no input of the run
//! showed counts its own witness, which the learner decoded: one occurrence.

use std::collections::HashSet;
use std::path::Path;

use crate::corpus::Origin;
use crate::decoders::Decoder;
use crate::diagnosis::learn::{learn, ModelBudget};
use crate::diagnosis::{decode_contained, Subject};
use crate::engine::finding_report::FindingReport;
use crate::engine::summary::LearnedModel;
use crate::finding::Finding;
use crate::hex::parse_hex;
use crate::model::ModelReport;

use super::check::PairChecker;
use super::report::{build_report, ReportContext};
use crate::diagnosis::minimize::Minimized;

/// Where and how a run's reports are filed again.
pub struct Filing<'a> {
    /// The run id.
    pub run_id: &'a str,
    /// The folder of the run's reports (`<run>/departures`).
    pub report_dir: &'a Path,
    /// What learning one machine may cost; `None` skips the model (the reports stay as
    /// the run filed them).
    pub budget: Option<ModelBudget>,
    /// Machines learned at once (one thread each).
    pub threads: usize,
    /// The `--lib` library's path, symbol and decoder name, when one is under test (its
    /// reproduction commands load it again).
    pub library: Option<(&'a str, &'a str, &'a str)>,
}

/// What filing through the machines changed.
#[derive(Debug, Default)]
pub struct Filed {
    /// The machine of each decoder learned, in decoder order.
    pub models: Vec<LearnedModel>,
    /// The ids of the reports the machines explain, now removed from the run's list
    /// (their files, already written, are the caller's to delete).
    pub removed: Vec<String>,
}

/// Learns the machine of each decoder whose `departed` flag is set and files its
/// `reports` through it (see the module header).
pub fn file_through_models(
    decoders: &[Box<dyn Decoder>],
    departed: &[bool],
    reports: &mut Vec<FindingReport>,
    filing: &Filing<'_>,
) -> Filed {
    let mut filed = Filed::default();
    let Some(budget) = filing.budget else {
        return filed;
    };
    let learning: Vec<&dyn Decoder> = decoders
        .iter()
        .zip(departed)
        .filter(|(_, &departed)| departed)
        .map(|(decoder, _)| decoder.as_ref())
        .collect();
    for (decoder, model) in learn_each(&learning, budget, filing.threads) {
        let learned = learned_model(decoder, &model);
        refile(decoder, &model, reports, filing, &mut filed.removed);
        for report in reports.iter_mut().filter(|r| is_of(r, decoder)) {
            report.model = Some(learned.clone());
        }
        filed.models.push(learned);
    }
    filed
}

/// The machines of `decoders`, learned `threads` at a time; a decoder whose machine
/// cannot be built is left out (its reports stay as filed).
fn learn_each<'d>(
    decoders: &[&'d dyn Decoder],
    budget: ModelBudget,
    threads: usize,
) -> Vec<(&'d dyn Decoder, ModelReport)> {
    let mut learned = Vec::new();
    for group in decoders.chunks(threads.max(1)) {
        let models: Vec<Option<ModelReport>> = std::thread::scope(|scope| {
            let handles: Vec<_> = group
                .iter()
                .map(|&decoder| scope.spawn(move || learn(decoder, budget, None)))
                .collect();
            handles
                .into_iter()
                // A panic outside the contained decoder calls is the harness's own bug:
                // that decoder keeps its reports rather than ending the run.
                .map(|handle| handle.join().ok().flatten())
                .collect()
        });
        learned.extend(
            group
                .iter()
                .zip(models)
                .filter_map(|(&decoder, model)| Some((decoder, model?))),
        );
    }
    learned
}

/// The machine of `decoder` as a run's summary and reports carry it.
pub fn learned_model(decoder: &dyn Decoder, model: &ModelReport) -> LearnedModel {
    LearnedModel {
        decoder: decoder.name().to_string(),
        queries: model.model.queries.decodes,
        model: std::sync::Arc::new(serde_json::to_value(model).expect("a model report serialises")),
    }
}

/// Files one report through `decoder`'s machine, for a caller that meets departures one
/// at a time (a fuzz target): the report of the mechanism that explains it (first seen
/// at this report's input and origin, so that every departure of one mechanism gets the
/// same report id), or the report itself when the machine does not explain it (a
/// condition on position or length). The returned report carries `learned`.
pub fn file_one(
    decoder: &dyn Decoder,
    model: &ModelReport,
    learned: &LearnedModel,
    report: FindingReport,
    filing: &Filing<'_>,
) -> FindingReport {
    let mut removed = Vec::new();
    let fallback = report.clone();
    let filed = filed_reports(decoder, model, vec![report], filing, &mut removed);
    let mut chosen = filed
        .into_iter()
        .find(|r| {
            r.id == fallback.id
                || (r.origin == fallback.origin && r.input_hex == fallback.input_hex)
        })
        .unwrap_or(fallback);
    chosen.model = Some(learned.clone());
    chosen
}

/// Per decoder, whether any of its comparisons departed.
pub fn departed(counters: &[crate::engine::summary::AspectCounters]) -> Vec<bool> {
    counters
        .iter()
        .map(|aspects| aspects.iter().any(|count| count.departures > 0))
        .collect()
}

/// Deletes the files of the reports `ids` from the run directory `run_dir` (a file
/// already gone is no error).
pub fn remove_reports(run_dir: &Path, ids: &[String]) -> std::io::Result<()> {
    for id in ids {
        let path = super::report_path(run_dir, id);
        match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(std::io::Error::new(
                    error.kind(),
                    format!("{}: {error}", path.display()),
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn is_of(report: &FindingReport, decoder: &dyn Decoder) -> bool {
    report
        .decoders
        .get(1)
        .is_some_and(|name| name == decoder.name())
}

/// Files `decoder`'s reports through its machine, in place: its new list takes the place
/// of its first report, the other decoders' reports keep theirs.
fn refile(
    decoder: &dyn Decoder,
    model: &ModelReport,
    reports: &mut Vec<FindingReport>,
    filing: &Filing<'_>,
    removed: &mut Vec<String>,
) {
    let Some(first) = reports.iter().position(|r| is_of(r, decoder)) else {
        return;
    };
    let (own, others): (Vec<FindingReport>, Vec<FindingReport>) = std::mem::take(reports)
        .into_iter()
        .partition(|r| is_of(r, decoder));
    let own = filed_reports(decoder, model, own, filing, removed);
    let mut others = others.into_iter();
    reports.extend(others.by_ref().take(first));
    reports.extend(own);
    reports.extend(others);
}

/// `decoder`'s reports after filing: those of the machine's findings (new reports, or
/// the run's own when the finding is the same), with the counts of those it explains.
fn filed_reports(
    decoder: &dyn Decoder,
    model: &ModelReport,
    own: Vec<FindingReport>,
    filing: &Filing<'_>,
    removed: &mut Vec<String>,
) -> Vec<FindingReport> {
    let no_command = |_: &[u8]| String::new();
    let subject = Subject {
        name: decoder.name(),
        capabilities: decoder.capabilities(),
        reproduce: &no_command,
    };
    let rule_based: Vec<Finding> = own.iter().map(|r| r.finding.clone()).collect();
    let decode =
        |batch: &[Vec<u8>]| Ok::<_, std::convert::Infallible>(decode_contained(decoder, batch));
    // A run's reports are one finding each; the machines under a condition stay in
    // `check`'s report.
    let Ok(crate::diagnosis::model::Graded { findings, .. }) =
        crate::diagnosis::model::with_model(&subject, model, decoder, rule_based, decode);
    let own_ids: HashSet<&str> = own.iter().map(|r| r.id.as_str()).collect();
    let found_ids: HashSet<&str> = findings.iter().map(|f| f.id.as_str()).collect();
    let new: Vec<&Finding> = findings
        .iter()
        .filter(|f| !own_ids.contains(f.id.as_str()))
        .collect();
    let (mut kept, explained): (Vec<FindingReport>, Vec<FindingReport>) = own
        .into_iter()
        .partition(|r| found_ids.contains(r.id.as_str()));
    if new.is_empty() && kept.is_empty() {
        // Nothing left to count the explained inputs under: the run's reports stand.
        kept.extend(explained);
        return kept;
    }
    let mut counted: Vec<Vec<&FindingReport>> = vec![Vec::new(); new.len()];
    for report in &explained {
        removed.push(report.id.clone());
        let shares = |f: &&Finding| f.categories.iter().any(|c| report.categories.contains(c));
        match new.iter().position(shares) {
            Some(target) => counted[target].push(report),
            None if !new.is_empty() => counted[0].push(report),
            None => kept[0].finding.occurrences += report.finding.occurrences,
        }
    }
    let mut filed: Vec<FindingReport> = new
        .iter()
        .enumerate()
        .filter_map(|(index, finding)| {
            mechanism_report(decoder, finding, index, &counted[index], filing)
        })
        .collect();
    filed.extend(kept);
    filed
}

/// The report of one finding of the machine: first seen where the earliest report it
/// explains was, else at its own witness (origin `model`); `None` when the decoder does
/// not depart on the witness after all.
fn mechanism_report(
    decoder: &dyn Decoder,
    finding: &Finding,
    index: usize,
    explained: &[&FindingReport],
    filing: &Filing<'_>,
) -> Option<FindingReport> {
    let witness = parse_hex(&finding.witness_hex).ok()?;
    let signature = PairChecker::new(decoder).signature(&witness)?;
    let earliest = explained.iter().min_by_key(|r| r.first_input_index);
    let occurrences = explained
        .iter()
        .map(|r| r.finding.occurrences)
        .sum::<u64>()
        .max(1);
    let (input, origin, first_input) = match earliest {
        Some(report) => (
            parse_hex(&report.input_hex).unwrap_or_else(|_| witness.clone()),
            report.origin.clone(),
            report.first_input_index,
        ),
        None => (
            witness.clone(),
            Origin::Generator {
                name: "model".to_string(),
                seed: 0,
                index: index as u64,
            },
            0,
        ),
    };
    let other_origins = explained
        .iter()
        .flat_map(|r| std::iter::once(&r.origin).chain(&r.other_origins))
        .filter(|&o| Some(o) != earliest.map(|r| &r.origin))
        .take(4)
        .cloned()
        .collect();
    let minimized = Minimized {
        bytes: witness,
        calls: 0,
        budget_exhausted: false,
    };
    Some(build_report(
        decoder,
        &signature,
        &input,
        &minimized,
        ReportContext {
            run_id: filing.run_id,
            report_dir: filing.report_dir,
            origin,
            other_origins,
            occurrences,
            first_input,
            conditions: None,
            finding: Some(finding.clone()),
            library: filing
                .library
                .filter(|&(_, _, name)| name == decoder.name())
                .map(|(path, symbol, _)| (path, symbol)),
        },
    ))
}
