//! What a fuzz target does with a finding: write it as a finding report, one file per
//! signature, and abort only the first time a signature is seen.
//!
//! libFuzzer stops at the first crash, and `-fork`/`-jobs` runs restart and find the same bug
//! again and again. So before aborting, the target claims the report file
//! `<dir>/<signature>.json` (dir: `UTF8CONF_FUZZ_REPORTS`, default `reports/fuzz`, relative
//! to the working directory):
//!
//! - the file does not exist: the report is written (atomically: a temporary file, then a
//!   hard link that fails if another process claimed the name first) and the target panics,
//!   so libFuzzer saves the input as a crash artifact;
//! - the file exists (this bug was already reported, by this process or another job): the
//!   input is not a new finding and the target returns, so fuzzing goes on;
//! - except when the bytes decoded are the report's own input (`input_hex`: someone is
//!   replaying the crash artifact), or when `UTF8CONF_FUZZ_KNOWN=abort` is set (for
//!   `cargo fuzz tmin`, which must see every smaller input that keeps the bug crash).
//!
//! The report is the engine's [`utf8conf::engine::finding_report::FindingReport`], written
//! as pretty JSON exactly as `utf8conf run` writes it.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use utf8conf::hex::format_hex;

use crate::report::Finding;

/// The environment variable naming the report directory.
pub const REPORTS_ENV: &str = "UTF8CONF_FUZZ_REPORTS";
/// The default report directory.
pub const DEFAULT_REPORTS: &str = "reports/fuzz";
/// The environment variable that makes known signatures abort too (`abort`).
pub const KNOWN_ENV: &str = "UTF8CONF_FUZZ_KNOWN";

/// What became of a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// A new signature: the report was written here.
    New(PathBuf),
    /// The signature already had a report, and this input is not its reproducer.
    Known(PathBuf),
    /// The signature already had a report and the target must still abort (replaying the
    /// reported input, or `UTF8CONF_FUZZ_KNOWN=abort`).
    Replayed(PathBuf),
}

/// The report directory from the environment, read once.
pub fn report_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::var_os(REPORTS_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_REPORTS))
    })
}

/// Writes the report of `finding` into `dir` unless its signature has one already.
pub fn record(finding: &Finding, dir: &Path) -> io::Result<Recorded> {
    let id = &finding.report.id;
    let path = dir.join(format!("{id}.json"));
    if path.exists() {
        return Ok(known_or_replayed(finding, path));
    }
    fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(".{id}.{}.tmp", std::process::id()));
    {
        let mut file = fs::File::create(&temporary)?;
        let mut text = serde_json::to_string_pretty(&finding.report).expect("a report serialises");
        text.push('\n');
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
    }
    // A hard link does not replace an existing file: exactly one job wins the name.
    let claimed = fs::hard_link(&temporary, &path);
    fs::remove_file(&temporary)?;
    match claimed {
        Ok(()) => Ok(Recorded::New(path)),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            Ok(known_or_replayed(finding, path))
        }
        Err(error) => Err(error),
    }
}

fn known_or_replayed(finding: &Finding, path: PathBuf) -> Recorded {
    let forced = std::env::var(KNOWN_ENV).is_ok_and(|value| value == "abort");
    if forced || is_reported_input(&path, &finding.input) {
        Recorded::Replayed(path)
    } else {
        Recorded::Known(path)
    }
}

/// True when the report at `path` was made from these very bytes.
fn is_reported_input(path: &Path, input: &[u8]) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    let Ok(report) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    // Only the input as found: the minimised input is tiny, and the fuzzer would keep
    // generating it and stopping on a known bug.
    report["input_hex"].as_str() == Some(format_hex(input).as_str())
}

/// Records `finding` in the report directory and panics (so libFuzzer keeps the input as a
/// crash artifact) unless its signature was already reported. The targets call this.
pub fn abort_if_new(finding: Finding) {
    let report = &finding.report;
    let summary = format!(
        "{}: {} differs ({}, categories [{}]), minimised input [{}]",
        report.decoders.join(" vs "),
        report.aspect,
        report.shape,
        report
            .categories
            .iter()
            .map(|category| category.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        report.minimized_hex
    );
    match record(&finding, report_dir()) {
        Ok(Recorded::Known(_)) => {}
        Ok(Recorded::New(path)) => panic!("new divergence {summary}; report {}", path.display()),
        Ok(Recorded::Replayed(path)) => {
            panic!("known divergence {summary}; report {}", path.display())
        }
        Err(error) => panic!("divergence {summary}; the report could not be written: {error}"),
    }
}
