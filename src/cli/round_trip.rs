//! `utf8conf check --round-trip`: grade the two directions of a library together
//! ([`crate::diagnosis::round_trip`]): every built-in pair, `--pair NAME`, or an adapter
//! pair (`--cmd` the decoder, `--encoder-cmd` the encoder). Prints one line per pair
//! with the first failing value of each direction, and writes `round-trip.json`
//! (schemas/round-trip.schema.json) and `round-trip.md` ([`crate::report::round_trip`])
//! into `--out` (default `reports/round-trip-<time>/`).
//! Exit 0: every round trip holds; 1: one fails; 2: a pair could not be started or
//! stopped early (after writing what was found); 130: SIGINT or SIGTERM.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::check::{seconds_arg, CheckArgs};
use super::report_directory::write_report_directory;
use super::CliError;
use crate::adapter::command::split_command_line;
use crate::adapter::encoder::ExternalEncoder;
use crate::adapter::interrupt::{self, Graceful, EXIT_INTERRUPTED};
use crate::adapter::{AdapterConfig, ExternalDecoder, DEFAULT_HELLO_TIMEOUT};
use crate::conformance::inputs::check_inputs;
use crate::conformance::report::utc_now;
use crate::decoders::{self, Decoder};
use crate::diagnosis::round_trip::{grade_round_trip, RoundTripGrade};
use crate::encoders::{self, Encoder};
use crate::report::directory;
use crate::report::round_trip::{RoundTripReport, RoundTripVerdict};
use crate::sanitize;

/// The built-in libraries that ship both directions: pair name, decoder, encoder.
pub const PAIRS: &[(&str, &str, &str)] = &[
    ("std", "std", "std-char-encode_utf8"),
    ("std-utf16", "std", "std-from_utf16"),
    ("encoding_rs", "encoding_rs", "encoding_rs-utf16"),
];

type Pair = (Box<dyn Decoder>, Box<dyn Encoder>);

/// Runs `check --round-trip`.
pub(super) fn run(args: &CheckArgs) -> Result<u8, CliError> {
    let _graceful = Graceful::new(Arc::new(AtomicBool::new(false)));
    let claim = match &args.out {
        Some(out) => Some(
            directory::claim(out, args.force)
                .map_err(|e| CliError(format!("--out {}: {e}", out.display())))?,
        ),
        None => None,
    };
    let pairs = match pairs(args) {
        Ok(pairs) => pairs,
        Err(_) if interrupt::requested() => return Ok(EXIT_INTERRUPTED),
        Err(error) => return Err(error),
    };
    let well_formed: Vec<Vec<u8>> = check_inputs()
        .map_err(|e| CliError(format!("vectors: {e}")))?
        .into_iter()
        .map(|input| input.bytes)
        .filter(|bytes| std::str::from_utf8(bytes).is_ok())
        .collect();
    let (created, stamp) = utc_now();
    let grades: Vec<RoundTripGrade> = pairs
        .iter()
        .map(|(decoder, encoder)| {
            grade_round_trip(decoder.as_ref(), encoder.as_ref(), &well_formed)
        })
        .collect();
    drop(pairs);
    let report = RoundTripReport::new(created, grades);
    print!("{}", report.terminal());
    write_report(&report, claim, &format!("round-trip-{stamp}"))?;
    if interrupt::requested() {
        return Ok(EXIT_INTERRUPTED);
    }
    if let Some(stopped) = report.pairs.iter().find_map(|g| g.stopped_by.as_ref()) {
        return Err(CliError(format!(
            "round trip incomplete: {} (report written)",
            sanitize::terminal(stopped)
        )));
    }
    Ok(u8::from(report.verdict == RoundTripVerdict::Fails))
}

/// The pairs to grade: `--cmd` and `--encoder-cmd`, `--pair NAME`, or every built-in one.
fn pairs(args: &CheckArgs) -> Result<Vec<Pair>, CliError> {
    if let Some(command_line) = &args.cmd {
        let Some(encoder_line) = &args.encoder_cmd else {
            return Err(CliError(
                "check --round-trip --cmd DECODER needs --encoder-cmd ENCODER (an adapter in encode mode)".into(),
            ));
        };
        let config = |line: &str| -> Result<AdapterConfig, CliError> {
            Ok(AdapterConfig {
                argv: split_command_line(line).map_err(|e| CliError(format!("--cmd: {e}")))?,
                name: None,
                answer_timeout: seconds_arg("--timeout", args.timeout)?,
                hello_timeout: match args.hello_timeout {
                    Some(value) => seconds_arg("--hello-timeout", value)?,
                    None => DEFAULT_HELLO_TIMEOUT,
                },
            })
        };
        let deadline = Instant::now() + seconds_arg("--max-time", args.max_time)?;
        let decoder = ExternalDecoder::start(config(command_line)?).map_err(|e| CliError(e.0))?;
        if decoder.hello().encode.is_some() {
            return Err(CliError(format!(
                "--cmd: {} is an encoder adapter; --cmd is the decoder of the pair",
                sanitize::terminal(&decoder.hello().name)
            )));
        }
        decoder.set_deadline(Some(deadline));
        let encoder = ExternalEncoder::start(config(encoder_line)?).map_err(|e| CliError(e.0))?;
        encoder.set_deadline(Some(deadline));
        return Ok(vec![(Box::new(decoder), Box::new(encoder))]);
    }
    if args.encoder_cmd.is_some() {
        return Err(CliError(
            "--encoder-cmd needs --cmd (the decoder of the pair)".into(),
        ));
    }
    let named = |name: &str| -> Option<Pair> {
        let (decoder, encoder) = PAIRS
            .iter()
            .find(|(pair, _, _)| *pair == name)
            .map_or(("reference", name), |&(_, decoder, encoder)| {
                (decoder, encoder)
            });
        Some((decoders::by_name(decoder)?, encoders::by_name(encoder)?))
    };
    match &args.pair {
        Some(name) => named(name).map(|pair| vec![pair]).ok_or_else(|| {
            let known: Vec<&str> = PAIRS.iter().map(|(pair, _, _)| *pair).collect();
            CliError(format!(
                "unknown pair '{}'; pairs: {} (or an encoder name from check-encoder --list, paired with the reference decoder)",
                sanitize::single_line(name, 80),
                known.join(", ")
            ))
        }),
        None => Ok(PAIRS
            .iter()
            .filter_map(|(pair, _, _)| named(pair))
            .collect()),
    }
}

fn write_report(
    report: &RoundTripReport,
    claim: Option<directory::Claim>,
    default: &str,
) -> Result<(), CliError> {
    let json = serde_json::to_string_pretty(report)? + "\n";
    let markdown = report.markdown();
    let shown = write_report_directory(claim, default, |directory| {
        for (name, text) in [("round-trip.json", &json), ("round-trip.md", &markdown)] {
            std::fs::write(directory.join(name), text)
                .map_err(|e| CliError(format!("{}: {e}", directory.join(name).display())))?;
        }
        Ok(())
    })?;
    println!("report: {}", shown.join("round-trip.json").display());
    Ok(())
}
