//! Conformance grading: how one decoder measures up to RFC 3629 and Unicode's U+FFFD
//! practice, as a report a person can act on.
//!
//! This is a different product from the finding reports of the differential engine,
//! which list every distinct disagreement between two decoders. A conformance report
//! answers "is this decoder right, and where is it not?":
//!
//! - for each taxonomy category: pass or fail, with the smallest failing input per
//!   aspect (strict-verdict failures, lossy decodes that differ beyond the U+FFFD count,
//!   crashes, timeouts, protocol errors);
//! - the decoder's U+FFFD policy, recognised by testing hypotheses
//!   ([`crate::policy::ReplacementPolicy`]) against what it did, and reported once with examples
//!   instead of as thousands of departures;
//! - BOM stripping, recognised as a wrapper policy;
//! - a 256x256 map of every two-byte input, decoder against reference.
//!
//! Findings come only from running the decoder: nothing here knows what any particular
//! decoder does.
//!
//! This module drives `check` over the grading core
//! ([`crate::diagnosis`]), which names each bug once, as a [`crate::finding::Finding`].
//!
//! Flow: [`inputs`] builds the input set; [`run_check`] feeds it to the [`Subject`] in
//! batches, grades each answer with [`grade::evaluate`] (departures, policy and BOM
//! observations) and logs each departure for the core
//! ([`crate::diagnosis::DepartureLog`]); departures found only on larger inputs are shrunk
//! with the core's minimiser; the core groups the departures into findings;
//! [`report`] holds the result. The presentation layer above (`report/conformance/`,
//! `report/matrix.rs`) writes it as `conformance.json`, `.md` and `.html` (findings
//! first) and puts several decoders side by side.

pub mod build;
pub mod grade;
pub mod inputs;
pub mod policy;
pub mod report;
mod sections;
mod shrink;
pub mod streaming;
pub mod streaming_model;
pub mod subject;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::adapter::Stop;
use crate::corpus::{Input, Origin};
use crate::decoders::Capabilities;
use crate::diagnosis::learn::ModelBudget;
use crate::diagnosis::{self, DepartureLog};
use crate::finding::Finding;
use crate::outcome::Answer;
use crate::reproduction;
use crate::taxonomy::Category;
use grade::{evaluate, BomObservation, Departure, ReferenceView};
pub use policy::PolicyEvidence;
pub use report::CategoryStatus;
pub use subject::Subject;

/// The `schema` value of `conformance.json`.
pub const CONFORMANCE_SCHEMA: &str = "utf8conf/conformance/1";

/// Inputs longer than this are shrunk before they are shown.
const SHOWN_WITHOUT_SHRINKING: usize = 4;
/// Candidate inputs tested per shrunk departure.
const MINIMISE_BUDGET: usize = 600;
/// Examples kept per policy (counterexamples) and shown in reports.
const EXAMPLES_KEPT: usize = 8;

/// How a check runs.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Inputs per batch sent to the decoder (pipelined for adapters).
    pub batch_size: usize,
    /// Wall-clock limit for the whole check; the report is partial when it is reached.
    pub max_time: Option<Duration>,
    /// The budget for learning the decoder's machine ([`crate::model`]); `None` skips
    /// the model, and the findings are the rule-based ones alone.
    pub model: Option<ModelBudget>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            batch_size: 2048,
            max_time: None,
            model: Some(ModelBudget::default()),
        }
    }
}

/// One input with the decoder's answer to it.
#[derive(Debug, Clone)]
pub struct Example {
    /// The input.
    pub bytes: Vec<u8>,
    /// Where it came from.
    pub origin: Origin,
    /// What the decoder answered.
    pub answer: Answer,
}

impl Example {
    fn is_smaller_than(&self, other: &Example) -> bool {
        (self.bytes.len(), &self.bytes) < (other.bytes.len(), &other.bytes)
    }
}

/// Everything seen for one distinct departure.
#[derive(Debug, Clone)]
pub struct DepartureGroup {
    /// Inputs that showed it.
    pub count: u64,
    /// The smallest input that shows it (after shrinking, if it was long).
    pub smallest: Example,
    /// True when `smallest` was produced by shrinking a larger input.
    pub minimised: bool,
}

/// The raw result of running a decoder over the inputs.
#[derive(Debug, Clone)]
pub struct CheckRun {
    /// The decoder's name.
    pub decoder_name: String,
    /// Its version.
    pub decoder_version: String,
    /// The adapter command, for an external decoder.
    pub command: Option<Vec<String>>,
    /// The answer fields the decoder reported.
    pub reported_fields: Vec<&'static str>,
    /// The same, as capabilities (what departures are graded on).
    pub capabilities: Capabilities,
    /// Inputs per source.
    pub inputs_per_source: BTreeMap<String, u64>,
    /// Inputs touching each category.
    pub inputs_per_category: BTreeMap<Category, u64>,
    /// Distinct departures.
    pub departures: BTreeMap<Departure, DepartureGroup>,
    /// Policy evidence.
    pub policy: PolicyEvidence,
    /// BOM evidence.
    pub bom: BomEvidence,
    /// One map state code per two-byte input (`first * 256 + second`).
    pub map: Vec<u8>,
    /// Wall-clock seconds.
    pub duration_seconds: f64,
    /// Restarts of the adapter.
    pub restarts: u64,
    /// A note when the adapter did not exit cleanly at the end.
    pub exit_note: Option<String>,
    /// The decoder's learned machine, its difference from RFC 3629's and its findings
    /// by mechanism (`None` when the check skipped it or stopped before).
    pub model: Option<crate::model::ModelReport>,
    /// The findings: the model's mechanisms, then the departures it does not explain
    /// grouped by root cause (the grading core, [`crate::diagnosis`]). Empty when the
    /// run stopped early.
    pub findings: Vec<Finding>,
    /// The machines learned under a position or length condition that gave findings.
    pub conditions: Vec<diagnosis::condition::ConditionModel>,
    /// Why the run stopped before every input was checked (the report is then partial);
    /// `None` for a complete run.
    pub stopped: Option<Stop>,
    /// Crashes that did not recur when the input was retried (the adapter is flaky).
    pub flaky_crashes: u64,
    /// The first flaky crash or timeout, as evidence.
    pub first_flaky_crash: Option<String>,
    /// Timeouts that did not recur when the input was retried.
    pub flaky_timeouts: u64,
    /// Worker deaths at the memory limit (`check --lib`).
    pub memory_kills: u64,
    /// The first of them, as evidence.
    pub first_memory_kill: Option<String>,
}

/// Evidence about BOM handling.
#[derive(Debug, Clone, Default)]
pub struct BomEvidence {
    /// Inputs starting with a BOM where U+FEFF was kept.
    pub kept: u64,
    /// Inputs starting with a BOM where U+FEFF was dropped.
    pub stripped: u64,
    /// The smallest input where it was dropped.
    pub example: Option<Example>,
}

/// Runs `subject` over `inputs` and collects the evidence. `progress` is called after each
/// batch with (inputs done, total). A run that stops early (the adapter is unusable, a
/// signal, `max_time`) keeps everything found so far and says why in
/// [`CheckRun::stopped`]; its departures are then not shrunk.
pub fn run_check(
    subject: Subject<'_>,
    inputs: &[Input],
    options: &CheckOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> CheckRun {
    let started = Instant::now();
    let deadline = options
        .max_time
        .and_then(|limit| started.checked_add(limit));
    subject.set_deadline(deadline);
    let mut run = CheckRun {
        decoder_name: subject.name().to_string(),
        decoder_version: subject.version(),
        command: subject.command(),
        reported_fields: Vec::new(),
        capabilities: Capabilities::default(),
        inputs_per_source: BTreeMap::new(),
        inputs_per_category: BTreeMap::new(),
        departures: BTreeMap::new(),
        policy: PolicyEvidence::default(),
        bom: BomEvidence::default(),
        map: vec![b'?'; 65_536],
        duration_seconds: 0.0,
        restarts: 0,
        exit_note: None,
        model: None,
        findings: Vec::new(),
        conditions: Vec::new(),
        stopped: None,
        flaky_crashes: 0,
        first_flaky_crash: None,
        flaky_timeouts: 0,
        memory_kills: 0,
        first_memory_kill: None,
    };
    let mut log = DepartureLog::default();
    let mut done = 0;
    for batch in inputs.chunks(options.batch_size.max(1)) {
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            run.stopped = Some(Stop::OutOfTime);
            break;
        }
        let bytes: Vec<&[u8]> = batch.iter().map(|input| input.bytes.as_slice()).collect();
        let answers = subject.decode_batch(&bytes);
        done += answers.answers.len();
        let capabilities = subject.capabilities();
        for (input, answer) in batch.iter().zip(answers.answers) {
            record(&mut run, &mut log, capabilities, input, answer);
        }
        progress(done, inputs.len());
        if answers.stopped.is_some() {
            run.stopped = answers.stopped;
            break;
        }
    }
    if run.stopped.is_none() {
        run.stopped = shrink::shrink_departures(subject, &mut run).err();
    }
    if let (None, Some(budget)) = (&run.stopped, options.model) {
        run.model = diagnosis::learn::learn(subject.decoder(), budget, deadline);
    }
    if run.stopped.is_none() {
        match find(subject, &log, run.model.as_ref()) {
            Ok(graded) => {
                run.findings = graded.findings;
                run.conditions = graded.conditions;
            }
            Err(stop) => run.stopped = Some(stop),
        }
    }
    run.reported_fields = subject.capabilities().names();
    run.capabilities = subject.capabilities();
    if let Some(statistics) = subject.statistics() {
        run.restarts = statistics.restarts;
        run.flaky_crashes = statistics.flaky_crashes;
        run.first_flaky_crash = statistics.first_flaky_crash;
        run.flaky_timeouts = statistics.flaky_timeouts;
        run.memory_kills = statistics.memory_kills;
        run.first_memory_kill = statistics.first_memory_kill;
    }
    if let Subject::External(external) = subject {
        run.exit_note = external.finish();
    }
    #[cfg(unix)]
    if let Subject::Native(native) = subject {
        run.exit_note = native.finish();
    }
    run.duration_seconds = started.elapsed().as_secs_f64();
    run
}

/// Groups the logged departures into findings, asking the subject for every candidate:
/// the model's mechanisms, and the rule-based findings the model does not explain.
fn find(
    subject: Subject<'_>,
    log: &DepartureLog,
    model: Option<&crate::model::ModelReport>,
) -> Result<diagnosis::model::Graded, Stop> {
    let name = subject.name().to_string();
    let command = subject.command();
    let reproduce = |witness: &[u8]| reproduce_command(&name, command.as_deref(), witness);
    let core_subject = diagnosis::Subject {
        name: &name,
        capabilities: subject.capabilities(),
        reproduce: &reproduce,
    };
    let decode = |batch: &[Vec<u8>]| {
        let slices: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
        subject.decode_batch(&slices).complete()
    };
    let rule_based = diagnosis::findings(&core_subject, &log.departed(), decode)?;
    match model {
        Some(report) => diagnosis::model::with_model(
            &core_subject,
            report,
            subject.decoder(),
            rule_based,
            decode,
        ),
        None => Ok(diagnosis::model::Graded {
            findings: rule_based,
            conditions: Vec::new(),
        }),
    }
}

/// The command that shows a decoder's answer on `witness`: `utf8conf decode` for a
/// built-in decoder or a C library; for an adapter, one protocol frame piped into its
/// command ([`crate::reproduction`]).
pub fn reproduce_command(name: &str, command: Option<&[String]>, witness: &[u8]) -> String {
    reproduction::decode_command(reproduction::Invocation::of(name, command), witness)
}

fn record(
    run: &mut CheckRun,
    log: &mut DepartureLog,
    capabilities: Capabilities,
    input: &Input,
    answer: Answer,
) {
    *run.inputs_per_source
        .entry(input.origin.source())
        .or_default() += 1;
    let bytes = &input.bytes;
    let reference = ReferenceView::of(bytes);
    log.record(bytes, &reference.decoded, &answer, capabilities);
    for category in tested_categories(bytes, &reference) {
        *run.inputs_per_category.entry(category).or_default() += 1;
    }
    let evaluation = evaluate(bytes, &reference, &answer);
    if bytes.len() == 2 {
        run.map[usize::from(bytes[0]) * 256 + usize::from(bytes[1])] =
            evaluation.map_state.code() as u8;
    }
    let example = || Example {
        bytes: bytes.clone(),
        origin: input.origin.clone(),
        answer: answer.clone(),
    };
    for departure in evaluation.departures {
        match run.departures.get_mut(&departure) {
            Some(group) => {
                group.count += 1;
                let candidate = example();
                if candidate.is_smaller_than(&group.smallest) {
                    group.smallest = candidate;
                }
            }
            None => {
                run.departures.insert(
                    departure,
                    DepartureGroup {
                        count: 1,
                        smallest: example(),
                        minimised: false,
                    },
                );
            }
        }
    }
    if let Some(observation) = evaluation.policy {
        let evidence = &mut run.policy;
        evidence.observations += 1;
        for (i, explained) in observation.explained_by.iter().enumerate() {
            if *explained {
                evidence.explained[i] += 1;
            } else {
                keep_smallest(&mut evidence.counterexamples[i], example());
            }
        }
        if observation.differs_from_reference {
            evidence.differing += 1;
            let key = reference.error_categories(bytes);
            let candidate = example();
            match evidence.examples.get(&key) {
                Some(existing) if !candidate.is_smaller_than(existing) => {}
                _ => {
                    evidence.examples.insert(key, candidate);
                }
            }
        }
    }
    match evaluation.bom {
        Some(BomObservation::Kept) => run.bom.kept += 1,
        Some(BomObservation::Stripped) => {
            run.bom.stripped += 1;
            let candidate = example();
            if run
                .bom
                .example
                .as_ref()
                .is_none_or(|existing| candidate.is_smaller_than(existing))
            {
                run.bom.example = Some(candidate);
            }
        }
        None => {}
    }
}

fn keep_smallest(examples: &mut Vec<Example>, candidate: Example) {
    if examples.len() == EXAMPLES_KEPT
        && !examples
            .last()
            .is_some_and(|largest| candidate.is_smaller_than(largest))
    {
        return;
    }
    let at = examples
        .iter()
        .position(|e| candidate.is_smaller_than(e))
        .unwrap_or(examples.len());
    examples.insert(at, candidate);
    examples.truncate(EXAMPLES_KEPT);
}

/// The categories an input exercises: those of its error units, or for well-formed input
/// the well-formed categories (`valid-rejected`, `valid-misdecoded`, and
/// `noncharacter-rejected` / `bom-stripped` when it has a noncharacter / starts with a BOM).
fn tested_categories(input: &[u8], reference: &ReferenceView) -> Vec<Category> {
    let mut categories = if reference.first_error.is_some() {
        reference.error_categories(input)
    } else {
        let mut well_formed = vec![Category::ValidRejected, Category::ValidMisdecoded];
        if reference
            .decoded
            .scalars
            .iter()
            .any(|&s| crate::taxonomy::is_noncharacter(s))
        {
            well_formed.push(Category::NoncharacterRejected);
        }
        well_formed
    };
    if input.starts_with(&[0xEF, 0xBB, 0xBF]) {
        categories.push(Category::BomStripped);
    }
    // Every input can show a decoder stopping early; ill-formed ones a swallowed
    // character or a miscounted offset.
    categories.push(Category::OutputCutShort);
    if reference.first_error.is_some() {
        categories.extend([Category::CharacterSwallowed, Category::OffsetMiscounted]);
    }
    categories
}
