//! `utf8conf run` (also plain `utf8conf`): the main job (docs/DESIGN.md §3.1).
//!
//! Every decoder (by default every built-in one) against the reference, over any vector
//! files given with `--vectors`, the embedded vectors, and then the generated corpora of
//! [`crate::corpus::default_generators`] for `--seed` (their bounded sources interleaved,
//! then the enumeration of every input of length 0..=3), within a budget (by default
//! about a minute). Reports go to `<out>/<run-id>/`, progress to stderr,
//! and a closing table to stdout: one row per decoder, one column per aspect, each cell
//! `inputs compared/departures`. The built-in encoders are then graded against the
//! reference encoder (one line each in the table, `encoders` in `summary.json`; a
//! departure beyond an encoder's policy counts as one). Exit 0: no departure; 1:
//! departures; 2: error.

use std::path::PathBuf;

use clap::Args;

use super::model_args::ModelArgs;
use super::CliError;
use crate::adapter::interrupt::Graceful;
use crate::aspect::Aspect;
use crate::atomic_file::write_json_atomically;
use crate::corpus::code_units::encoder_inputs;
use crate::corpus::{self, vectors, Input};
use crate::decoders::{self, Decoder};
use crate::diagnosis::encoder::grade;
use crate::diagnosis::encoder::report::policy_name;
use crate::encoders;
use crate::engine::budget::{Budget, DEFAULT_BUDGET};
use crate::engine::progress::{group_digits, ProgressMode};
use crate::engine::summary::{EncoderComparison, EncoderCount};
use crate::engine::{Engine, RunError, RunOptions, RunResult};
use crate::report::export::OutputFormat;
use crate::security::Severity;

/// Arguments of `utf8conf run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// When to stop: a duration (500ms, 60s, 2m, 1h) or an input count (100000i, 100ki,
    /// 2Mi). The run also stops when the corpus runs out. [default: 60s]
    #[arg(long, value_parser = Budget::parse)]
    budget: Option<Budget>,
    /// Seed of the generated corpora (the same seed gives the same inputs).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Comma-separated decoders to compare with the reference [default: every built-in
    /// decoder; see `utf8conf decoders`].
    #[arg(long, value_delimiter = ',')]
    decoders: Vec<String>,
    /// Directory for reports; each run writes into `<OUT>/<run-id>/`.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// Extra vector files (the TOML format of `vectors/README.md`), run before the rest.
    #[arg(long, num_args = 1..)]
    vectors: Vec<PathBuf>,
    /// Worker threads, 1 to 1024 [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// No progress display on stderr.
    #[arg(long)]
    quiet: bool,
    /// Report formats, comma-separated: json (always written), sarif (`utf8conf.sarif`),
    /// junit (`junit.xml`), in the run directory.
    #[arg(long, value_delimiter = ',', default_value = "json")]
    format: Vec<OutputFormat>,
    /// Exit 1 only when a reported departure reaches this severity (info, low, medium,
    /// high, critical; docs/SECURITY-IMPACT.md), 0 otherwise. Without it, any departure
    /// exits 1.
    #[arg(long, value_name = "SEVERITY")]
    fail_on: Option<Severity>,
    /// The budget for learning the machine of each decoder that departs, which its
    /// findings are filed through (as `check` files them).
    #[command(flatten)]
    model: ModelArgs,
}

impl RunArgs {
    /// The arguments of a plain `utf8conf run`, clap's defaults included.
    pub fn defaults() -> RunArgs {
        #[derive(clap::Parser)]
        struct RunOnly {
            #[command(flatten)]
            args: RunArgs,
        }
        <RunOnly as clap::Parser>::parse_from(["utf8conf"]).args
    }
}

/// Runs `utf8conf run`.
pub fn run(args: RunArgs) -> Result<u8, CliError> {
    let decoders = select_decoders(&args.decoders)?;
    let budget = args.budget.unwrap_or(DEFAULT_BUDGET);
    let (inputs, expected_inputs) = corpus(&args.vectors, args.seed)?;
    let mut options = RunOptions::new(&args.out);
    options.seed = args.seed;
    options.budget = budget;
    options.expected_inputs = expected_inputs;
    options.model = args.model.budget()?;
    if let Some(threads) = args.threads {
        options.threads = usize::from(threads);
    }
    options.progress = if args.quiet {
        ProgressMode::Off
    } else {
        ProgressMode::for_stderr()
    };
    let _graceful = stop_on_ctrl_c(&options);
    let engine = Engine::new(decoders);
    let mut result = match engine.run(inputs, &options) {
        Ok(result) => result,
        // A full disk: the run stopped at once; what it found still goes to stdout, and
        // the error (naming the file) to stderr, exit 2.
        Err(RunError::Write { error, partial }) => {
            print_table(&partial, false);
            return Err(CliError(format!(
                "run stopped: {error} (the table above shows what was found; \
                 the reports in {} are incomplete)",
                partial.run_dir.display()
            )));
        }
        Err(error) => return Err(CliError(format!("run failed: {error}"))),
    };
    add_encoders(&mut result)?;
    print_table(&result, true);
    super::formats::write_run_formats(&args.format, &result)?;
    Ok(match args.fail_on {
        None => result.summary.exit_code,
        Some(threshold) => u8::from(
            result
                .reports
                .iter()
                .filter_map(|report| report.finding.security.as_ref())
                .any(|impact| impact.severity >= threshold),
        ),
    })
}

/// SIGINT/SIGTERM end the run gracefully: no new inputs, the reports and `summary.json`
/// are written (with `stopped_by: interrupted`). A second signal exits at once with 130
/// (see [`crate::adapter::interrupt`]). The returned guard keeps this in force.
fn stop_on_ctrl_c(options: &RunOptions) -> Graceful {
    Graceful::new(std::sync::Arc::clone(&options.stop))
}

/// The decoders named on the command line, or every built-in one.
pub(super) fn select_decoders(names: &[String]) -> Result<Vec<Box<dyn Decoder>>, CliError> {
    if names.is_empty() {
        return Ok(decoders::builtin());
    }
    names
        .iter()
        .map(|name| {
            decoders::by_name(name.trim()).ok_or_else(|| {
                CliError(format!(
                    "unknown decoder '{name}' (known: {})",
                    decoders::builtin_names().join(", ")
                ))
            })
        })
        .collect()
}

/// A run's inputs, produced lazily.
type InputStream = Box<dyn Iterator<Item = Input> + Send>;

/// The inputs of a run, in order: user vector files, the embedded vectors, then the
/// generated corpora for `seed`; and their number when known.
fn corpus(user_files: &[PathBuf], seed: u64) -> Result<(InputStream, Option<u64>), CliError> {
    let mut vector_inputs = Vec::new();
    for path in user_files {
        let text = std::fs::read_to_string(path)
            .map_err(|error| CliError(format!("cannot read {}: {error}", path.display())))?;
        let name = path.display().to_string();
        vector_inputs.extend(vectors::parse_file(&name, &text)?);
    }
    vector_inputs.extend(vectors::embedded()?);
    let vector_inputs: Vec<Input> = vector_inputs.into_iter().map(Input::from).collect();
    let vector_count = vector_inputs.len() as u64;
    let generated = corpus::default_generators(seed);
    let total = generated.len_hint().map(|count| count + vector_count);
    Ok((Box::new(vector_inputs.into_iter().chain(generated)), total))
}

/// Prints the closing table: decoders by aspects, cells `compared/departures`, then the
/// findings (`summary_written` false: a disk error stopped the run before `summary.json`).
fn print_table(result: &RunResult, summary_written: bool) {
    let summary = &result.summary;
    let aspects: Vec<Aspect> = Aspect::ALL
        .into_iter()
        .filter(|aspect| {
            summary
                .comparisons
                .iter()
                .any(|counts| counts.aspects.contains_key(aspect.as_str()))
        })
        .collect();
    let mut rows: Vec<Vec<String>> = vec![std::iter::once("decoder".to_string())
        .chain(aspects.iter().map(|a| a.as_str().to_string()))
        .collect()];
    for counts in &summary.comparisons {
        let mut row = vec![counts.decoder.clone()];
        for aspect in &aspects {
            row.push(match counts.aspects.get(aspect.as_str()) {
                Some(count) => format!(
                    "{}/{}",
                    group_digits(count.compared),
                    group_digits(count.departures)
                ),
                None => "-".to_string(),
            });
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|column| rows.iter().map(|row| row[column].len()).max().unwrap_or(0))
        .collect();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(column, (cell, &width))| {
                if column == 0 {
                    format!("{cell:<width$}")
                } else {
                    format!("{cell:>width$}")
                }
            })
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
    // The cells are two counts with no unit of their own: the legend says which.
    println!("(each cell: inputs compared/departing, for that decoder and aspect)");
    if let Some(comparison) = &summary.encoders {
        print_encoders(comparison);
    }
    println!();
    let sources: Vec<String> = summary
        .sources
        .iter()
        .map(|(name, count)| format!("{name} {}", group_digits(*count)))
        .collect();
    println!(
        "{} inputs in {:.1}s ({} inputs/s, {} threads, stopped by {}); sources: {}",
        group_digits(summary.total_inputs),
        summary.duration_seconds,
        group_digits(summary.throughput_inputs_per_second as u64),
        summary.threads,
        summary.stopped_by,
        sources.join(", ")
    );
    println!(
        "{} finding{} ({} departing input-decoder pairs); summary: {}",
        summary.reports.len(),
        if summary.reports.len() == 1 { "" } else { "s" },
        group_digits(summary.departing_inputs),
        if summary_written {
            result.run_dir.join("summary.json").display().to_string()
        } else {
            "not written (disk error)".to_string()
        }
    );
    print_models(&summary.models);
    print_findings(&result.reports);
}

/// One line per report: id, decoder, aspects, title, categories, witness.
fn print_findings(reports: &[crate::engine::finding_report::FindingReport]) {
    for report in reports {
        let finding = &report.finding;
        println!(
            "  {}  {}  {}  {}  [{}]  {}",
            report.id,
            report.decoders[1],
            finding
                .aspects
                .iter()
                .map(|a| a.as_str())
                .collect::<Vec<_>>()
                .join(","),
            finding.title,
            finding
                .categories
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(","),
            finding.witness_hex
        );
    }
}

/// One line per learned machine: its size, the decodes it took, and why it is
/// incomplete when it is (its decoder's findings are then the rule-based ones).
pub(super) fn print_models(models: &[crate::engine::summary::LearnedModel]) {
    for learned in models {
        let machine = &learned.model["model"];
        let states = machine["machine"]["states"].as_array().map_or(0, Vec::len);
        let findings = learned.model["findings"].as_array().map_or(0, Vec::len);
        let incomplete = machine["incomplete"]
            .as_str()
            .map(|reason| format!(", incomplete: {reason}"))
            .unwrap_or_default();
        let seconds = machine["queries"]["milliseconds"].as_f64().unwrap_or(0.0) / 1000.0;
        println!(
            "  model of {}: {states} states, {} decodes in {seconds:.1}s, {findings} \
             mechanism{}{incomplete}",
            learned.decoder,
            group_digits(learned.queries),
            if findings == 1 { "" } else { "s" },
        );
    }
}

/// The run's encoder comparison: every built-in encoder graded against the reference
/// encoder on the quick encoder inputs (a fraction of a second in a release build), so
/// that a departure of a built-in encoder fails the run as a decoder's does.
fn compare_encoders() -> EncoderComparison {
    let inputs = encoder_inputs(false);
    let encoders: Vec<EncoderCount> = encoders::builtin()
        .iter()
        .filter(|encoder| encoder.name() != "reference")
        .map(|encoder| {
            let grade = grade(encoder.as_ref(), &inputs);
            EncoderCount {
                encoder: grade.encoder.clone(),
                inputs: grade.inputs as u64,
                policy: policy_name(grade.policy),
                out_of_range_policy: grade.out_of_range_policy.map(policy_name),
                departing_inputs: grade.findings.iter().map(|f| f.inputs as u64).sum(),
                findings: grade.findings.iter().map(|f| f.title.clone()).collect(),
            }
        })
        .collect();
    EncoderComparison {
        inputs: inputs.len() as u64,
        departing_inputs: encoders.iter().map(|e| e.departing_inputs).sum(),
        encoders,
    }
}

/// Adds the encoder comparison to the run's result and its `summary.json` (written again,
/// atomically); a departure makes the exit code 1.
fn add_encoders(result: &mut RunResult) -> Result<(), CliError> {
    let comparison = compare_encoders();
    if comparison.departing_inputs > 0 {
        result.summary.exit_code = 1;
    }
    result.summary.encoders = Some(comparison);
    let path = result.run_dir.join("summary.json");
    write_json_atomically(&path, &result.summary)
        .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))
}

/// The encoder lines of the closing table: one per encoder, `inputs/departing` and its
/// policies, then any finding.
fn print_encoders(comparison: &EncoderComparison) {
    for count in &comparison.encoders {
        println!(
            "encoder {}: {}/{} (inputs/departing from the reference encoder); surrogates: {}{}",
            count.encoder,
            group_digits(count.inputs),
            group_digits(count.departing_inputs),
            count.policy,
            count
                .out_of_range_policy
                .as_deref()
                .map(|p| format!("; above U+10FFFF: {p}"))
                .unwrap_or_default()
        );
        for title in &count.findings {
            println!("  {title}");
        }
    }
}
