//! Grading UTF-8 encoders from the command line, through one grading path
//! ([`crate::diagnosis::encoder::grade`]) and one report ([`EncoderReport`]):
//!
//! - `utf8conf check-encoder [--encoder NAME]`: the built-in (or a planted) encoder,
//!   printed on the terminal or, with `--json`, as the report's JSON;
//! - `utf8conf check --encoder --cmd '...'`: an adapter in the protocol's encode mode
//!   (docs/PROTOCOL.md, "Encode mode");
//! - `utf8conf check --encoder --lib PATH --symbol NAME --encode utf16|utf32`: a C
//!   library's encode function (include/utf8conf.h), in the supervised worker.
//!
//! Both `check` forms write `encoder.json` (schemas/encoder.schema.json) and `encoder.md`
//! into `--out` (default `reports/encoder-<name>-<time>/`) and print the terminal lines.
//! Exit 0: no finding (or none at `--fail-on`); 1: findings; 2: the encoder could not be
//! started or became unusable, or `--max-time` (after writing the partial report);
//! 130: SIGINT or SIGTERM.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use super::check::{file_name_part, seconds_arg, CheckArgs};
use super::report_directory::write_report_directory;
use super::CliError;
use crate::adapter::command::split_command_line;
use crate::adapter::encoder::ExternalEncoder;
use crate::adapter::interrupt::{self, Graceful, EXIT_INTERRUPTED};
use crate::adapter::{AdapterConfig, Stop, DEFAULT_HELLO_TIMEOUT};
use crate::conformance::report::utc_now;
use crate::corpus::code_units::encoder_inputs;
use crate::diagnosis::encoder::grade;
use crate::diagnosis::encoder::report::{EncoderReport, EncoderSubject, GradedEncoder};
use crate::encoders::{self, Encoder};
use crate::report::directory;
use crate::sanitize;

/// Arguments of `utf8conf check-encoder`.
#[derive(Debug, Args)]
pub struct CheckEncoderArgs {
    /// The encoder to grade (`utf8conf check-encoder --list` names them); every built-in
    /// encoder when omitted.
    #[arg(long)]
    encoder: Option<String>,
    /// Every scalar value and every pair of code units around the surrogates (about 9
    /// million inputs, seconds in a release build) instead of a stride through them.
    #[arg(long)]
    thorough: bool,
    /// Print the report as JSON (schemas/encoder.schema.json) instead of text.
    #[arg(long)]
    json: bool,
    /// List the encoders and exit.
    #[arg(long)]
    list: bool,
}

/// Runs `utf8conf check-encoder`: exit 0 when no encoder has a finding, 1 otherwise.
pub fn run(args: CheckEncoderArgs) -> Result<u8, CliError> {
    if args.list {
        let planted = encoders::planted::all();
        for encoder in encoders::builtin().iter().chain(&planted) {
            println!("{:24}  {}", encoder.name(), encoder.description());
        }
        return Ok(0);
    }
    let subjects = match &args.encoder {
        Some(name) => vec![encoders::by_name(name).ok_or_else(|| {
            let known: Vec<String> = encoders::builtin()
                .iter()
                .map(|e| e.name().to_string())
                .collect();
            CliError(format!(
                "unknown encoder '{}'; built-in encoders: {} (--list names the planted ones too)",
                sanitize::single_line(name, 80),
                known.join(", ")
            ))
        })?],
        None => encoders::builtin(),
    };
    let inputs = encoder_inputs(args.thorough);
    let graded = subjects
        .iter()
        .map(|encoder| GradedEncoder {
            subject: EncoderSubject {
                name: encoder.name().to_string(),
                version: None,
                kind: "builtin",
                command: None,
            },
            grade: grade(encoder.as_ref(), &inputs),
        })
        .collect();
    let report = EncoderReport::new(utc_now().0, graded);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.terminal());
    }
    Ok(u8::from(report.fails(None)))
}

/// Runs `utf8conf check --encoder`: starts the encoder (adapter or library), grades it,
/// writes the report.
pub(super) fn run_check(args: &CheckArgs) -> Result<u8, CliError> {
    let _graceful = Graceful::new(Arc::new(AtomicBool::new(false)));
    let max_time = seconds_arg("--max-time", args.max_time)?;
    let claim = match &args.out {
        Some(out) => Some(
            directory::claim(out, args.force)
                .map_err(|e| CliError(format!("--out {}: {e}", out.display())))?,
        ),
        None => None,
    };
    let (encoder, kind, command) = match start(args) {
        Ok(started) => started,
        Err(_) if interrupt::requested() => return Ok(EXIT_INTERRUPTED),
        Err(error) => return Err(error),
    };
    encoder.set_deadline(Some(Instant::now() + max_time));
    let (created, stamp) = utc_now();
    let inputs = encoder_inputs(args.thorough);
    if !args.quiet {
        eprintln!(
            "{}: encoding {} inputs ({})",
            sanitize::terminal(encoder.name()),
            inputs
                .iter()
                .filter(|input| input.form() == encoder.form())
                .count(),
            encoder.form().as_str()
        );
    }
    let graded = GradedEncoder {
        subject: EncoderSubject {
            name: encoder.name().to_string(),
            version: Some(encoder.version().to_string()),
            kind,
            command: Some(command),
        },
        grade: grade(&encoder, &inputs),
    };
    let stop = encoder.stop();
    drop(encoder);
    let report = EncoderReport::new(created, vec![graded]);
    print!("{}", report.terminal());
    let name = file_name_part(&report.encoders[0].subject.name);
    write_report(&report, claim, &format!("encoder-{name}-{stamp}"))?;
    match stop {
        None => Ok(u8::from(report.fails(args.fail_on))),
        Some(Stop::Interrupted) => Ok(EXIT_INTERRUPTED),
        Some(stop) => Err(CliError(format!(
            "{}: {stop} (partial report written)",
            sanitize::terminal(&report.encoders[0].subject.name)
        ))),
    }
}

/// Starts the encoder `args` name: how it is reached, and its command for the report.
fn start(args: &CheckArgs) -> Result<(ExternalEncoder, &'static str, String), CliError> {
    let answer_timeout = seconds_arg("--timeout", args.timeout)?;
    let hello_timeout = match args.hello_timeout {
        Some(value) => seconds_arg("--hello-timeout", value)?,
        None => DEFAULT_HELLO_TIMEOUT,
    };
    #[cfg(unix)]
    if let (Some(library), Some(symbol)) = (&args.lib, &args.symbol) {
        let form = match args.encode.as_deref() {
            Some("utf16") => encoders::Form::Utf16,
            Some(_) => encoders::Form::Utf32,
            None => {
                return Err(CliError(
                    "check --encoder --lib needs --encode utf16 or --encode utf32 (the function's input form)".into(),
                ))
            }
        };
        let mut config = crate::native::NativeConfig::new(library.clone(), symbol.clone())
            .map_err(|e| CliError(format!("cannot find the utf8conf executable: {e}")))?;
        config.name = args.name.clone();
        config.answer_timeout = answer_timeout;
        config.hello_timeout = hello_timeout;
        config.memory_limit = super::check::memory_limit_arg(args.memory_limit)?;
        config.encode = Some(form);
        let command = format!("--lib {} --symbol {symbol}", library.display());
        let encoder = crate::native::encoder::start_encoder(config).map_err(|e| CliError(e.0))?;
        return Ok((encoder, "library", command));
    }
    let Some(command_line) = args.cmd.as_deref() else {
        return Err(CliError(
            "check --encoder needs an encoder: --cmd 'PROGRAM ARG...' (an adapter in encode mode) or --lib PATH --symbol NAME --encode utf16|utf32".into(),
        ));
    };
    if args.encode.is_some() {
        return Err(CliError(
            "--encode is for --lib; an adapter names its form in its hello".into(),
        ));
    }
    let argv = split_command_line(command_line).map_err(|e| CliError(format!("--cmd: {e}")))?;
    let mut encoder = ExternalEncoder::start(AdapterConfig {
        argv,
        name: None,
        answer_timeout,
        hello_timeout,
    })
    .map_err(|e| CliError(e.0))?;
    if let Some(name) = &args.name {
        encoder.rename(name.clone());
    }
    Ok((encoder, "adapter", command_line.to_string()))
}

/// Writes `encoder.json` and `encoder.md` into the claimed directory (or a new one under
/// `reports/` named `default`), and prints where.
fn write_report(
    report: &EncoderReport,
    claim: Option<directory::Claim>,
    default: &str,
) -> Result<(), CliError> {
    let json = serde_json::to_string_pretty(report)?;
    let shown = write_report_directory(claim, default, |directory| {
        std::fs::write(directory.join("encoder.json"), json + "\n")
            .and_then(|()| std::fs::write(directory.join("encoder.md"), report.markdown()))
            .map_err(|e| {
                CliError(format!(
                    "report incomplete (summary above): {}: {e}",
                    directory.display()
                ))
            })
    })?;
    println!("report: {}", shown.join("encoder.md").display());
    Ok(())
}
