//! `utf8conf check`: grade a third-party decoder (or all of them) for conformance.
//!
//! - `utf8conf check --cmd 'PROGRAM ARG...' [--name NAME] [--out DIR]` starts the adapter
//!   (docs/PROTOCOL.md), runs every check input through it and writes
//!   `conformance.{json,md,html}` into `DIR` (default `reports/check-<name>-<time>/`).
//!   Exit 0: conformant; 1: deviations; 2: the adapter could not be started or turned
//!   out unusable, the check hit `--max-time`, or another usage or I/O error; 130: stopped
//!   by SIGINT/SIGTERM. Whenever a check stops early, the report of what was found so far
//!   is still written, marked `"partial": true`, and the default directory is never one
//!   that already exists (two checks in the same second get `-2`, `-3`, ...).
//! - `utf8conf check --lib libfoo.so --symbol NAME [--name NAME] [--out DIR]` grades a C
//!   decoder exporting the function of `include/utf8conf.h`, run in a worker process that
//!   is restarted after a crash or hang (see [`crate::native`]); same reports and exit
//!   codes.
//! - `utf8conf check --all [--adapters adapters/list.json] [--out DIR]` checks the built-in
//!   decoders and every listed adapter whose toolchain is on `PATH`, and writes
//!   `matrix.{json,md,html}` (default `reports/matrix-<time>/`) with each decoder's full
//!   report in a subdirectory. An adapter that is missing its toolchain or fails to start
//!   is listed as not run, with the reason. Exit 0 when every decoder conforms, 1
//!   otherwise, 2 on usage or I/O errors. Each decoder's report goes into a subdirectory
//!   named after it, made safe as a file name and unique (`..` or a repeated name cannot
//!   escape `DIR` or overwrite another).
//! - `utf8conf check --encoder --cmd '...'` (or `--lib PATH --symbol NAME --encode
//!   utf16|utf32`) grades a UTF-8 encoder instead (see [`super::check_encoder`]), and
//!   `utf8conf check --round-trip` a library's two directions together (see
//!   [`super::round_trip`]).
//! - `--fail-on SEVERITY` (both forms): exit 1 only when a finding of that severity or
//!   above is present (docs/SECURITY-IMPACT.md), so that CI fails on what matters to it.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::check_summary::{print_report_path, print_summary};
use super::report_directory::write_report_directory;
use super::CliError;
use crate::adapter::command::split_command_line;
use crate::adapter::interrupt::{self, Graceful, EXIT_INTERRUPTED};
use crate::adapter::{AdapterConfig, ExternalDecoder, Stop, DEFAULT_HELLO_TIMEOUT, MAX_TIME_LIMIT};
use crate::conformance::inputs::check_inputs;
use crate::conformance::report::{utc_now, ConformanceReport};
use crate::conformance::streaming::{grade_streaming, streaming_inputs};
use crate::conformance::streaming_model::learn_streamed;
use crate::conformance::{run_check, CheckOptions, Subject};
use crate::corpus::Input;
#[cfg(unix)]
use crate::native::{NativeConfig, NativeDecoder};
use crate::report::directory;
use crate::report::export::OutputFormat;
use crate::sanitize;
use crate::security::witness::{assess, probe_inputs};
use crate::security::Severity;

/// Time limit for an adapter's hello under `--all`, where compiled adapters build
/// themselves on first use.
const ALL_HELLO_TIMEOUT: Duration = Duration::from_secs(300);
/// `check` without a decoder: the three ways to give one.
const NO_DECODER: &str = "check needs a decoder: --cmd 'PROGRAM ARG...' (an adapter program), \
     --lib PATH --symbol NAME (a C library) or --all (every built-in decoder and adapter); \
     see 'utf8conf check --help'";
/// How often progress is printed while a check runs.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// Arguments of `utf8conf check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The adapter command, split like a shell would (quotes work) but run without one.
    #[arg(
        long,
        value_name = "'PROGRAM ARG...'",
        conflicts_with_all = ["all", "lib"]
    )]
    pub(super) cmd: Option<String>,
    /// A C or C++ decoder as a shared library exporting the function of
    /// include/utf8conf.h, run in a restartable worker process.
    #[arg(long, value_name = "PATH", conflicts_with = "all", requires = "symbol")]
    pub(super) lib: Option<PathBuf>,
    /// The exported decode function for --lib.
    #[arg(long, value_name = "NAME", requires = "lib")]
    pub(super) symbol: Option<String>,
    /// The --lib worker's address-space limit in MiB (RLIMIT_AS); a worker that dies at it
    /// is reported as a memory death.
    #[arg(long, value_name = "MIB", default_value_t = 8192, requires = "lib")]
    pub(super) memory_limit: u64,
    /// The name to report under (default: the name in the adapter's hello, or the symbol).
    #[arg(long, conflicts_with = "all")]
    pub(super) name: Option<String>,
    /// Check the built-in decoders and every listed adapter whose toolchain is present.
    #[arg(long)]
    pub(super) all: bool,
    /// The adapter list for --all.
    #[arg(long, default_value = "adapters/list.json", requires = "all")]
    pub(super) adapters: PathBuf,
    /// Output directory (default: reports/check-<name>-<time> or reports/matrix-<time>).
    /// A directory that is not empty is refused unless --force, and so is one another
    /// check is writing.
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// With --out: replace what the directory holds (the new report is written aside
    /// and renamed over it at the end).
    #[arg(long, requires = "out")]
    pub(super) force: bool,
    /// Seconds to wait for each answer before it counts as a timeout.
    #[arg(long, default_value_t = 5.0)]
    pub(super) timeout: f64,
    /// Seconds to wait for the hello line (default 10; 300 with --all, where compiled
    /// adapters build on first use).
    #[arg(long)]
    pub(super) hello_timeout: Option<f64>,
    /// Wall-clock limit in seconds for each decoder's whole check; when it is reached,
    /// the report of what was found so far is written, marked partial.
    #[arg(long, default_value_t = 600.0)]
    pub(super) max_time: f64,
    #[command(flatten)]
    pub(super) model: super::model_args::ModelArgs,
    /// No progress lines on stderr.
    #[arg(long)]
    pub(super) quiet: bool,
    /// Also grade the adapter's streaming mode (split-point equivalence, promptness),
    /// which its hello must offer (`"streaming": true`); an error when it does not.
    #[arg(long, conflicts_with_all = ["all", "lib"])]
    pub(super) stream: bool,
    /// Report formats, comma-separated: json (always written, with .md and .html), sarif
    /// (`utf8conf.sarif`), junit (`junit.xml`), in the output directory.
    #[arg(long, value_delimiter = ',', default_value = "json")]
    pub(super) format: Vec<OutputFormat>,
    /// Exit 1 only when a finding reaches this severity (info, low, medium, high,
    /// critical; docs/SECURITY-IMPACT.md), 0 otherwise. Without it, any departure
    /// from the reference exits 1.
    #[arg(long, value_name = "SEVERITY")]
    pub(super) fail_on: Option<Severity>,
    /// Grade a UTF-8 *encoder* instead of a decoder: an adapter in the protocol's encode
    /// mode (--cmd) or a C library's encode function (--lib, with --encode); writes
    /// encoder.json and encoder.md (docs/ENCODERS.md).
    #[arg(long, conflicts_with_all = ["all", "stream"])]
    pub(super) encoder: bool,
    /// With --encoder --lib: the function's input form, `utf16`
    /// (utf8conf_encode_utf16_fn) or `utf32` (utf8conf_encode_utf32_fn).
    #[arg(long, value_parser = ["utf16", "utf32"], requires = "encoder")]
    pub(super) encode: Option<String>,
    /// With --encoder: every scalar value and every pair of code units around the
    /// surrogates (about 9 million inputs) instead of a stride through them.
    #[arg(long, requires = "encoder")]
    pub(super) thorough: bool,
    /// Grade round trips, decode(encode(x)) == x for every scalar and encode(decode(b))
    /// == b for well-formed bytes: of every built-in library pair, of --pair NAME, or of
    /// the adapters --cmd (the decoder) and --encoder-cmd (the encoder).
    #[arg(long, conflicts_with_all = ["all", "stream", "encoder", "lib"])]
    pub(super) round_trip: bool,
    /// With --round-trip: the encoder adapter (protocol encode mode) to pair with --cmd.
    #[arg(long, value_name = "'PROGRAM ARG...'", requires = "round_trip")]
    pub(super) encoder_cmd: Option<String>,
    /// With --round-trip: one built-in pair (std, std-utf16, encoding_rs), or any
    /// built-in or planted encoder paired with the reference decoder.
    #[arg(
        long,
        value_name = "NAME",
        requires = "round_trip",
        conflicts_with = "cmd"
    )]
    pub(super) pair: Option<String>,
}

/// How each decoder is checked.
pub(super) struct Limits {
    pub(super) answer_timeout: Duration,
    pub(super) hello_timeout: Duration,
    pub(super) options: CheckOptions,
    pub(super) quiet: bool,
}

/// What every form of `check` sets up first: the time limits, the check inputs, and the
/// SIGINT/SIGTERM handling that lets a stopped check write its partial report (for as long
/// as the returned guard lives).
pub(super) fn prepare(args: &CheckArgs) -> Result<(Limits, Vec<Input>, Graceful), CliError> {
    let limits = Limits {
        answer_timeout: seconds_arg("--timeout", args.timeout)?,
        hello_timeout: match args.hello_timeout {
            Some(value) => seconds_arg("--hello-timeout", value)?,
            None if args.all => ALL_HELLO_TIMEOUT,
            None => DEFAULT_HELLO_TIMEOUT,
        },
        options: CheckOptions {
            max_time: Some(seconds_arg("--max-time", args.max_time)?),
            model: args.model.budget()?,
            ..CheckOptions::default()
        },
        quiet: args.quiet,
    };
    let inputs = check_inputs().map_err(|e| CliError(format!("vectors: {e}")))?;
    let graceful = Graceful::new(Arc::new(AtomicBool::new(false)));
    Ok((limits, inputs, graceful))
}

/// Runs `utf8conf check` on one decoder (`--all` is [`super::check_all::run`]).
pub fn run(args: CheckArgs) -> Result<u8, CliError> {
    if args.encoder {
        return super::check_encoder::run_check(&args);
    }
    if args.round_trip {
        return super::round_trip::run(&args);
    }
    let (limits, inputs, _graceful) = prepare(&args)?;
    // Claimed before anything runs: a directory that holds a report, or that another
    // check is writing, is refused at once.
    let claim = match &args.out {
        Some(out) => Some(
            directory::claim(out, args.force)
                .map_err(|e| CliError(format!("--out {}: {e}", out.display())))?,
        ),
        None => None,
    };
    #[cfg(unix)]
    if let (Some(library), Some(symbol)) = (&args.lib, &args.symbol) {
        let mut config = NativeConfig::new(library.clone(), symbol.clone())
            .map_err(|e| CliError(format!("cannot find the utf8conf executable: {e}")))?;
        config.name = args.name.clone();
        config.answer_timeout = limits.answer_timeout;
        config.hello_timeout = limits.hello_timeout;
        config.memory_limit = memory_limit_arg(args.memory_limit)?;
        let native = NativeDecoder::start(config).map_err(|e| CliError(e.0))?;
        let (created, stamp) = utc_now();
        let (report, stopped) = check_one(Subject::Native(&native), &inputs, &limits, created);
        drop(native);
        return finish_one(&args, claim, &report, stopped, &stamp);
    }
    let Some(command_line) = args.cmd.as_deref() else {
        return Err(CliError(NO_DECODER.into()));
    };
    let argv = split_command_line(command_line).map_err(|e| CliError(format!("--cmd: {e}")))?;
    let config = AdapterConfig {
        argv,
        name: args.name.clone(),
        answer_timeout: limits.answer_timeout,
        hello_timeout: limits.hello_timeout,
    };
    let external = match ExternalDecoder::start(config) {
        Ok(external) => external,
        // Stopped while waiting for the hello: nothing was found yet.
        Err(_) if interrupt::requested() => return Ok(EXIT_INTERRUPTED),
        Err(error) => return Err(CliError(error.0)),
    };
    if external.hello().encode.is_some() {
        return Err(CliError(format!(
            "{} is an encoder adapter (its hello says \"encode\"): grade it with check --encoder --cmd",
            sanitize::terminal(&external.hello().name)
        )));
    }
    if args.stream && !external.streams() {
        return Err(CliError(format!(
            "--stream: {} does not offer streaming mode (its hello has no \"streaming\": true; see docs/PROTOCOL.md)",
            sanitize::terminal(&external.hello().name)
        )));
    }
    let (created, stamp) = utc_now();
    let (mut report, mut stopped) =
        check_one(Subject::External(&external), &inputs, &limits, created);
    if stopped.is_none() && args.stream {
        let streaming_inputs = streaming_inputs().map_err(CliError)?;
        if !limits.quiet {
            eprintln!(
                "{}: grading streaming mode on {} inputs",
                sanitize::terminal(&report.decoder.name),
                streaming_inputs.len()
            );
        }
        let mut section = grade_streaming(&external, &streaming_inputs);
        if let Some(stop) = section.stop.clone() {
            stopped = Some(stop);
        } else if let Some(budget) = limits.options.model {
            if !limits.quiet {
                eprintln!(
                    "{}: learning the streaming machine (one byte per chunk)",
                    sanitize::terminal(&report.decoder.name)
                );
            }
            section.machine = learn_streamed(&external, report.model.as_ref(), budget);
        }
        report.add_streaming(section);
    }
    drop(external);
    finish_one(&args, claim, &report, stopped, &stamp)
}

/// Writes one decoder's report (the summary goes to stdout first, so a disk error loses
/// nothing that was found); the exit code.
fn finish_one(
    args: &CheckArgs,
    claim: Option<directory::Claim>,
    report: &ConformanceReport,
    stopped: Option<Stop>,
    stamp: &str,
) -> Result<u8, CliError> {
    print_summary(report);
    let default = format!("check-{}-{stamp}", file_name_part(&report.decoder.name));
    let shown = write_report_directory(claim, &default, |directory| {
        // The error names every file that could not be written; the others are in place.
        report
            .write(directory)
            .map_err(|e| CliError(format!("report incomplete (summary above): {e}")))
            .and_then(|()| {
                let written = [(report.clone(), directory.to_path_buf())];
                super::formats::write_check_formats(&args.format, directory, &written, &[])
            })
    })?;
    print_report_path(&shown);
    match stopped {
        None => Ok(exit_status(report, args.fail_on)),
        Some(stop) => stop_exit(&report.decoder.name, &stop),
    }
}

/// 1 when the report fails the check: any departure, or with `--fail-on`, a finding at
/// or above that severity.
pub(super) fn exit_status(report: &ConformanceReport, fail_on: Option<Severity>) -> u8 {
    let fails = match fail_on {
        Some(threshold) => report.security.reaches(threshold),
        None => !report.is_conformant(),
    };
    u8::from(fails)
}

/// The exit for a check that stopped early, after its partial report was written.
fn stop_exit(name: &str, stop: &Stop) -> Result<u8, CliError> {
    match stop {
        Stop::Interrupted => Ok(EXIT_INTERRUPTED),
        stop => Err(CliError(format!(
            "{}: {stop} (partial report written)",
            sanitize::terminal(name)
        ))),
    }
}

/// Checks one decoder, printing progress at least every [`PROGRESS_EVERY`] (from a
/// separate thread, so a slow adapter in the middle of a batch still shows progress).
pub(super) fn check_one(
    subject: Subject<'_>,
    inputs: &[Input],
    limits: &Limits,
    created: String,
) -> (ConformanceReport, Option<Stop>) {
    let name = sanitize::terminal(subject.name());
    let started = Instant::now();
    let interactive = std::io::stderr().is_terminal();
    let batches_done = std::sync::atomic::AtomicUsize::new(0);
    let finished = AtomicBool::new(false);
    let total = inputs.len();
    let rate_now = |done: usize| done as f64 / started.elapsed().as_secs_f64().max(1e-9);
    let print = |done: usize, rate: f64, end: bool| {
        let mut line = format!("{name}: {done}/{total} inputs ({rate:.0}/s)");
        if done >= total && !end {
            line.push_str(", diagnosing");
        }
        if let Subject::External(external) = subject {
            let statistics = external.statistics_snapshot();
            line.push_str(&format!(
                ", {} failed, {} restarts",
                statistics.0, statistics.1
            ));
        }
        if interactive {
            eprint!("\r{line}\x1b[K");
            if end {
                eprintln!();
            }
        } else {
            eprintln!("{line}");
        }
    };
    // An adapter counts every input it settles, within a batch too, so its count moves
    // between batches; but shrinking, learning and diagnosis decode through it as well,
    // so only the count since the start, and only up to the inputs' own, is theirs.
    let settled_at_start = match subject {
        Subject::External(external) => external.settled(),
        _ => 0,
    };
    let done_now = || {
        let batches = batches_done.load(Ordering::Relaxed);
        match subject {
            Subject::External(external) if batches < total => {
                let since = external.settled().saturating_sub(settled_at_start);
                usize::try_from(since)
                    .unwrap_or(total)
                    .clamp(batches, total)
            }
            _ => batches,
        }
    };
    let run = std::thread::scope(|scope| {
        if !limits.quiet {
            scope.spawn(|| {
                let mut last = Instant::now();
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(50));
                    if last.elapsed() >= PROGRESS_EVERY {
                        last = Instant::now();
                        let done = done_now();
                        print(done, rate_now(done), false);
                    }
                }
            });
        }
        let mut progress = |done: usize, _total: usize| {
            batches_done.store(done, Ordering::Relaxed);
        };
        let run = run_check(subject, inputs, &limits.options, &mut progress);
        finished.store(true, Ordering::Relaxed);
        run
    });
    let stopped = run.stopped.clone();
    let mut report = ConformanceReport::from_run(&run, created);
    if !limits.quiet {
        // The report's own speed, so the terminal and the report give one figure.
        print(
            report.summary.inputs as usize,
            report.summary.inputs_per_second,
            true,
        );
    }
    // The exploit-shaped probes, answered by the decoder itself (not after a stop: the
    // decoder may be unusable, or the user asked to stop).
    if stopped.is_none() {
        if let Ok(answers) = subject.decode_batch(&probe_inputs()).complete() {
            report.attach_assessment(assess(&answers));
        }
    }
    (report, stopped)
}

/// `--memory-limit` in bytes: at least 64 MiB (the worker itself needs some), at most
/// 1 TiB.
pub(super) fn memory_limit_arg(mib: u64) -> Result<u64, CliError> {
    (64..=1 << 20)
        .contains(&mib)
        .then_some(mib << 20)
        .ok_or_else(|| {
            CliError(format!(
                "--memory-limit: {mib} MiB is outside 64..=1048576 MiB"
            ))
        })
}

pub(super) fn seconds_arg(flag: &str, value: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero() && *d <= MAX_TIME_LIMIT)
        .ok_or_else(|| {
            CliError(format!(
                "{flag} must be a positive number of seconds, at most {} (one day)",
                MAX_TIME_LIMIT.as_secs()
            ))
        })
}

/// A decoder name made safe as a file name part: only ASCII letters, digits, `.`, `_` and
/// `-`, at most 64 of them, and never `.`, `..` or empty (those would name the output
/// directory itself or its parent).
pub(super) fn file_name_part(name: &str) -> String {
    let part: String = name
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if part.chars().all(|c| c == '.') {
        format!("decoder{}", "_".repeat(part.len()))
    } else {
        part
    }
}

#[cfg(test)]
mod tests;
