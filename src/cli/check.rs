//! `utf8conf check`: grade a third-party decoder (or all of them) for conformance.
//!
//! - `utf8conf check --cmd 'PROGRAM ARG...' [--name NAME] [--out DIR]` starts the adapter
//!   (DESIGN.md §3.3), runs every check input through it and writes
//!   `conformance.{json,md,html}` into `DIR` (default `reports/check-<name>-<time>/`).
//!   Exit 0: conformant; 1: deviations; 2: the adapter could not be started, or another
//!   usage or I/O error.
//! - `utf8conf check --all [--adapters adapters/list.json] [--out DIR]` checks the built-in
//!   decoders and every listed adapter whose toolchain is on `PATH`, and writes
//!   `matrix.{json,md,html}` (default `reports/matrix-<time>/`) with each decoder's full
//!   report in a subdirectory. An adapter that is missing its toolchain or fails to start
//!   is listed as not run, with the reason. Exit 0 when every decoder conforms, 1
//!   otherwise, 2 on usage or I/O errors.
//! - `--fail-on SEVERITY` (both forms): exit 1 only when a finding of that severity or
//!   above is present (docs/SECURITY-IMPACT.md), so that CI fails on what matters to it.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;

use super::CliError;
use crate::adapter::command::split_command_line;
use crate::adapter::list::AdapterList;
use crate::adapter::{AdapterConfig, ExternalDecoder, DEFAULT_HELLO_TIMEOUT};
use crate::conformance::inputs::check_inputs;
use crate::conformance::matrix::{Matrix, MatrixRow, Skipped};
use crate::conformance::report::{utc_now, ConformanceReport};
use crate::conformance::{run_check, CheckOptions, Subject};
use crate::corpus::Input;
use crate::decoders;
use crate::security::witness::{assess, probe_inputs};
use crate::security::Severity;
use crate::taxonomy::Category;

/// Time limit for an adapter's hello under `--all`, where compiled adapters build
/// themselves on first use.
const ALL_HELLO_TIMEOUT: Duration = Duration::from_secs(300);

/// Arguments of `utf8conf check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The adapter command, split like a shell would (quotes work) but run without one.
    #[arg(
        long,
        value_name = "'PROGRAM ARG...'",
        conflicts_with = "all",
        required_unless_present = "all"
    )]
    cmd: Option<String>,
    /// The name to report under (default: the name in the adapter's hello).
    #[arg(long, requires = "cmd")]
    name: Option<String>,
    /// Check the built-in decoders and every listed adapter whose toolchain is present.
    #[arg(long)]
    all: bool,
    /// The adapter list for --all.
    #[arg(long, default_value = "adapters/list.json", requires = "all")]
    adapters: PathBuf,
    /// Output directory (default: reports/check-<name>-<time> or reports/matrix-<time>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seconds to wait for each answer before it counts as a timeout.
    #[arg(long, default_value_t = 5.0)]
    timeout: f64,
    /// Seconds to wait for the hello line (default 10; 300 with --all, where compiled
    /// adapters build on first use).
    #[arg(long)]
    hello_timeout: Option<f64>,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
    /// Exit 1 only when a finding reaches this severity (info, low, medium, high,
    /// critical; docs/SECURITY-IMPACT.md), 0 otherwise. Without it, any departure
    /// from the reference exits 1.
    #[arg(long, value_name = "SEVERITY")]
    fail_on: Option<Severity>,
}

/// Runs `utf8conf check`.
pub fn run(args: CheckArgs) -> Result<u8, CliError> {
    let answer_timeout = seconds_arg("--timeout", args.timeout)?;
    let hello_timeout = match args.hello_timeout {
        Some(value) => seconds_arg("--hello-timeout", value)?,
        None if args.all => ALL_HELLO_TIMEOUT,
        None => DEFAULT_HELLO_TIMEOUT,
    };
    let inputs = check_inputs().map_err(|e| CliError(format!("vectors: {e}")))?;
    if args.all {
        return check_all(&args, &inputs, answer_timeout, hello_timeout);
    }
    let command_line = args
        .cmd
        .as_deref()
        .expect("clap requires --cmd without --all");
    let argv = split_command_line(command_line).map_err(|e| CliError(format!("--cmd: {e}")))?;
    let config = AdapterConfig {
        argv,
        name: args.name.clone(),
        answer_timeout,
        hello_timeout,
    };
    let external = ExternalDecoder::start(config).map_err(|e| CliError(e.0))?;
    let (created, stamp) = utc_now();
    let report = check_one(Subject::External(&external), &inputs, args.quiet, created)?;
    let directory = args.out.clone().unwrap_or_else(|| {
        Path::new("reports").join(format!(
            "check-{}-{stamp}",
            file_name_part(&report.decoder.name)
        ))
    });
    report
        .write(&directory)
        .map_err(|e| CliError(format!("cannot write {}: {e}", directory.display())))?;
    print_summary(&report, &directory);
    Ok(exit_status(&report, args.fail_on))
}

/// 1 when the report fails the check: any departure, or with `--fail-on`, a finding at
/// or above that severity.
fn exit_status(report: &ConformanceReport, fail_on: Option<Severity>) -> u8 {
    let fails = match fail_on {
        Some(threshold) => report.security.reaches(threshold),
        None => !report.is_conformant(),
    };
    u8::from(fails)
}

fn check_one(
    subject: Subject<'_>,
    inputs: &[Input],
    quiet: bool,
    created: String,
) -> Result<ConformanceReport, CliError> {
    let name = subject.name().to_string();
    let started = Instant::now();
    let mut last_line = Instant::now();
    let interactive = std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize| {
        if quiet || (last_line.elapsed() < Duration::from_secs(2) && done < total) {
            return;
        }
        last_line = Instant::now();
        let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
        let line = format!("{name}: {done}/{total} inputs ({rate:.0}/s)");
        if interactive {
            eprint!("\r{line}\x1b[K");
            if done == total {
                eprintln!();
            }
        } else {
            eprintln!("{line}");
        }
    };
    let run = run_check(subject, inputs, &CheckOptions::default(), &mut progress)
        .map_err(|e| CliError(format!("{name}: {e}")))?;
    let mut report = ConformanceReport::from_run(&run, created);
    // The exploit-shaped probes, answered by the decoder itself.
    let probe_answers = subject
        .decode_batch(&probe_inputs())
        .map_err(|e| CliError(format!("{name}: {e}")))?;
    report.attach_assessment(assess(&probe_answers));
    Ok(report)
}

fn print_summary(report: &ConformanceReport, directory: &Path) {
    let failed: Vec<&str> = report
        .categories
        .iter()
        .filter(|row| row.status == crate::conformance::CategoryStatus::Fail)
        .map(|row| row.category.as_str())
        .collect();
    println!(
        "{} ({}): {}; highest severity: {}; U+FFFD policy: {}; BOM: {}; failing categories: {}; {} distinct departures; {} inputs in {:.1} s",
        report.decoder.name,
        report.decoder.version,
        report.verdict,
        report
            .security
            .highest_severity
            .map_or("none", Severity::as_str),
        report.replacement_policy.recognised,
        if report.wrapper_policies.iter().any(|w| w.observed) { "stripped" } else { "kept" },
        if failed.is_empty() { "none".to_string() } else { failed.join(", ") },
        report.summary.departures,
        report.summary.inputs,
        report.summary.duration_seconds
    );
    println!("report: {}", directory.join("conformance.md").display());
}

fn check_all(
    args: &CheckArgs,
    inputs: &[Input],
    answer_timeout: Duration,
    hello_timeout: Duration,
) -> Result<u8, CliError> {
    let list = AdapterList::load(&args.adapters).map_err(CliError)?;
    // The list's commands are relative to the repository root: the list's grandparent.
    let root = args
        .adapters
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let root = if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    };
    let (created, stamp) = utc_now();
    let directory = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(format!("matrix-{stamp}")));
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut failing = false;
    let mut write_report = |report: &ConformanceReport, rows: &mut Vec<MatrixRow>| {
        let sub = file_name_part(&report.decoder.name);
        report
            .write(&directory.join(&sub))
            .map_err(|e| CliError(format!("cannot write {}: {e}", directory.display())))?;
        print_summary(report, &directory.join(&sub));
        rows.push(MatrixRow::from_report(report, &sub));
        failing |= exit_status(report, args.fail_on) == 1;
        Ok::<(), CliError>(())
    };

    for decoder in decoders::builtin() {
        let report = check_one(
            Subject::InProcess(decoder.as_ref()),
            inputs,
            args.quiet,
            created.clone(),
        )?;
        write_report(&report, &mut rows)?;
    }
    for entry in &list.adapters {
        let missing = entry.missing_tools();
        if !missing.is_empty() {
            let reason = format!("toolchain not found on PATH: {}", missing.join(", "));
            eprintln!("utf8conf: skipping {}: {reason}", entry.name);
            skipped.push(Skipped {
                name: entry.name.clone(),
                reason,
            });
            continue;
        }
        let config = AdapterConfig {
            argv: entry.argv_in(&root),
            name: Some(entry.name.clone()),
            answer_timeout,
            hello_timeout,
        };
        let external = match ExternalDecoder::start(config) {
            Ok(external) => external,
            Err(error) => {
                let reason = format!("could not be started: {error}");
                eprintln!("utf8conf: skipping {}: {reason}", entry.name);
                skipped.push(Skipped {
                    name: entry.name.clone(),
                    reason,
                });
                continue;
            }
        };
        match check_one(
            Subject::External(&external),
            inputs,
            args.quiet,
            created.clone(),
        ) {
            Ok(report) => write_report(&report, &mut rows)?,
            Err(CliError(reason)) => {
                eprintln!("utf8conf: {} stopped: {reason}", entry.name);
                skipped.push(Skipped {
                    name: entry.name.clone(),
                    reason,
                });
            }
        }
    }
    let matrix = Matrix {
        schema: crate::conformance::matrix::MATRIX_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        created,
        categories: Category::ALL.to_vec(),
        decoders: rows,
        skipped,
    };
    matrix
        .write(&directory)
        .map_err(|e| CliError(format!("cannot write {}: {e}", directory.display())))?;
    println!("matrix: {}", directory.join("matrix.md").display());
    Ok(u8::from(failing))
}

fn seconds_arg(flag: &str, value: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| CliError(format!("{flag} must be a positive number of seconds")))
}

/// A decoder name made safe as a file name part.
fn file_name_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
