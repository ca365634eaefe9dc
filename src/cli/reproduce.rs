//! `utf8conf reproduce REPORT.json`: re-runs a finding report's decoder pair on its
//! minimised input.
//!
//! Exit 1 when the departure is still there (the same signature: same pair, aspect,
//! categories and shape), 0 when it is gone (the decoder was fixed, or the report was made
//! by another version), 2 when the report cannot be read or names an unknown decoder. The
//! exit code makes it usable as a regression check: `utf8conf reproduce r.json || ...`.
//!
//! A report about a C library (`exhaustive --lib`) names the library by its symbol only;
//! `--lib PATH --symbol NAME` loads it again (the report's own `reproduce` line has them).

use std::path::{Path, PathBuf};

use clap::Args;

use super::decode::chosen_decoder;
use super::CliError;
use crate::decoders;
use crate::engine::check::{PairChecker, REFERENCE_NAME};
use crate::engine::finding_report::{FindingReport, FINDING_REPORT_SCHEMA};
use crate::engine::signature::Signature;
use crate::hex::parse_hex;
use crate::sanitize;

/// Arguments of `utf8conf reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// A finding report (`reports/<run>/divergences/<id>.json`).
    report: PathBuf,
    /// The C library the report is about (`exhaustive --lib` reports).
    #[arg(long, value_name = "PATH", requires = "symbol")]
    lib: Option<PathBuf>,
    /// The exported decode function of --lib; the report's decoder name.
    #[arg(long, value_name = "NAME", requires = "lib")]
    symbol: Option<String>,
}

/// Runs `utf8conf reproduce`.
pub fn run(args: ReproduceArgs) -> Result<u8, CliError> {
    let report = read_report(&args.report)?;
    let [reference_name, decoder_name] = report.decoders.as_slice() else {
        return Err(CliError("a report names exactly two decoders".into()));
    };
    if reference_name != REFERENCE_NAME {
        return Err(CliError(format!(
            "the first decoder of a report is '{REFERENCE_NAME}', not '{}'",
            sanitize::single_line(reference_name, 100)
        )));
    }
    if let Some(symbol) = args
        .symbol
        .as_deref()
        .filter(|symbol| symbol != decoder_name)
    {
        return Err(CliError(format!(
            "the report is about '{}', not --symbol {}",
            sanitize::single_line(decoder_name, 100),
            sanitize::single_line(symbol, 100)
        )));
    }
    let library = args.lib.as_deref().zip(args.symbol.as_deref());
    let decoder = match chosen_decoder(decoder_name, library) {
        Err(_) if library.is_none() && decoders::by_name(decoder_name).is_none() => {
            return Err(CliError(format!(
                "unknown decoder '{}' (a C library's report needs --lib PATH --symbol {0})",
                sanitize::single_line(decoder_name, 100)
            )))
        }
        other => other?,
    };
    let expected = Signature {
        reference: reference_name.clone(),
        decoder: decoder_name.clone(),
        aspect: report.aspect,
        categories: report.categories.clone(),
        shape: report.shape,
    };
    let input = parse_hex(&report.minimized_hex)?;
    let mut checker = PairChecker::new(decoder.as_ref());
    let found = checker.signature(&input);
    println!("input: {}", sanitize::terminal(&report.minimized_hex));
    match found {
        Some(signature) if signature == expected => {
            println!("reproduced {}: {}", report.id, describe(&signature));
            Ok(1)
        }
        Some(signature) => {
            println!(
                "not reproduced: the pair now departs differently: {} (report: {})",
                describe(&signature),
                describe(&expected)
            );
            Ok(0)
        }
        None => {
            println!(
                "not reproduced: {} agrees with the reference on this input (report: {})",
                decoder_name,
                describe(&expected)
            );
            Ok(0)
        }
    }
}

/// Reads a finding report, of this version's schema, from `path`.
fn read_report(path: &Path) -> Result<FindingReport, CliError> {
    let text = read_bounded(path)?;
    // The schema is checked first, so a report of another schema version is named as
    // such instead of failing on whichever field that version lacks.
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|error| {
        CliError(format!(
            "{}: not a finding report (not JSON: {error})",
            path.display()
        ))
    })?;
    match json.get("schema").and_then(serde_json::Value::as_str) {
        Some(FINDING_REPORT_SCHEMA) => {}
        Some(other) => {
            return Err(CliError(format!(
                "{}: unsupported schema '{}' (this utf8conf reads '{FINDING_REPORT_SCHEMA}')",
                path.display(),
                sanitize::single_line(other, 100)
            )))
        }
        None => {
            return Err(CliError(format!(
                "{}: not a finding report (no \"schema\")",
                path.display()
            )))
        }
    }
    serde_json::from_value(json)
        .map_err(|error| CliError(format!("{}: not a finding report: {error}", path.display())))
}

/// A signature on one line, as `reproduce` prints it.
fn describe(signature: &Signature) -> String {
    let categories: Vec<&str> = signature.categories.iter().map(|c| c.as_str()).collect();
    sanitize::terminal(&format!(
        "{} vs {}: {} ({}) [{}]",
        signature.reference,
        signature.decoder,
        signature.aspect,
        signature.shape,
        categories.join(",")
    ))
}

/// The largest report `reproduce` reads. A finding report holds one minimised witness
/// and its outcomes: a few KiB. A report is someone else's file, so a larger one is
/// refused rather than read into memory whole.
pub const MAX_REPORT_BYTES: u64 = 16 << 20;

/// Reads the report, refusing one over [`MAX_REPORT_BYTES`] (counted while reading, so a
/// pipe or a growing file is bounded too).
fn read_bounded(path: &Path) -> Result<String, CliError> {
    use std::io::Read;
    let cannot =
        |error: std::io::Error| CliError(format!("cannot read {}: {error}", path.display()));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(MAX_REPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_REPORT_BYTES {
        return Err(CliError(format!(
            "{}: over {} MiB, too large for a finding report",
            path.display(),
            MAX_REPORT_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        CliError(format!(
            "{}: not a finding report (not UTF-8)",
            path.display()
        ))
    })
}
