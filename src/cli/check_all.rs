//! `utf8conf check --all`: the built-in decoders and every listed adapter whose toolchain
//! is on `PATH`, each graded by [`super::check`]'s single-decoder path, side by side in
//! `matrix.{json,md,html}` (see the `check` module header for the exit codes).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::check::{check_one, exit_status, file_name_part, CheckArgs, Limits};
use super::check_summary::{print_report_path, print_summary};
use super::report_directory::claim_directory;
use super::CliError;
use crate::adapter::interrupt::{self, EXIT_INTERRUPTED};
use crate::adapter::list::{AdapterEntry, AdapterList};
use crate::adapter::{AdapterConfig, ExternalDecoder, Stop};
use crate::conformance::report::{utc_now, ConformanceReport};
use crate::conformance::Subject;
use crate::corpus::Input;
use crate::decoders;
use crate::report::directory;
use crate::report::matrix::{Matrix, MatrixRow, Skipped};
use crate::sanitize;
use crate::taxonomy::Category;

/// Runs `utf8conf check --all`.
pub(super) fn run(args: CheckArgs) -> Result<u8, CliError> {
    let (limits, inputs, _graceful) = super::check::prepare(&args)?;
    check_all(&args, &inputs, &limits)
}

fn check_all(args: &CheckArgs, inputs: &[Input], limits: &Limits) -> Result<u8, CliError> {
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
    // An explicit --out is claimed as for one decoder: refused when it holds something
    // (unless --force) or when another check is writing it; the matrix is written aside
    // and moved into place at the end, so the paths are printed after that.
    let claim = match &args.out {
        Some(out) => Some(
            directory::claim(out, args.force)
                .map_err(|e| CliError(format!("--out {}: {e}", out.display())))?,
        ),
        None => None,
    };
    let directory = match &claim {
        Some(claim) => claim.staging().to_path_buf(),
        None => claim_directory(Path::new("reports"), &format!("matrix-{stamp}"))?,
    };
    let outcome = check_into(args, inputs, limits, &root, &list, &directory, created);
    let Some(claim) = claim else {
        return outcome.map(|(code, _)| code);
    };
    // What was written is moved to its place even after an error.
    let target = claim.target().to_path_buf();
    claim.commit().map_err(|e| {
        CliError(format!(
            "cannot move the reports to {}: {e}",
            target.display()
        ))
    })?;
    let (code, subs) = outcome?;
    for sub in subs {
        print_report_path(&target.join(sub));
    }
    println!("matrix: {}", target.join("matrix.md").display());
    Ok(code)
}

/// Checks every decoder into `directory`: the exit code, and the report folders written
/// (their paths are printed here only when `directory` is where they stay).
fn check_into(
    args: &CheckArgs,
    inputs: &[Input],
    limits: &Limits,
    root: &Path,
    list: &AdapterList,
    directory: &Path,
    created: String,
) -> Result<(u8, Vec<String>), CliError> {
    let mut written = Written {
        args,
        directory,
        rows: Vec::new(),
        skipped: Vec::new(),
        used_names: BTreeSet::new(),
        failing: false,
        reports: Vec::new(),
    };
    let mut interrupted = false;
    for decoder in decoders::builtin() {
        if interrupt::requested() {
            interrupted = true;
            break;
        }
        let (report, stopped) = check_one(
            Subject::InProcess(decoder.as_ref()),
            inputs,
            limits,
            created.clone(),
        );
        written.add(report)?;
        interrupted |= stopped == Some(Stop::Interrupted);
    }
    for entry in &list.adapters {
        if interrupted || interrupt::requested() {
            interrupted = true;
            break;
        }
        interrupted |= check_adapter(entry, inputs, limits, root, &created, &mut written)?;
    }
    let matrix = Matrix {
        schema: crate::report::matrix::MATRIX_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        created,
        categories: Category::ALL.to_vec(),
        decoders: written.rows,
        skipped: written.skipped,
    };
    matrix
        .write(directory)
        .map_err(|e| CliError(format!("cannot write {}: {e}", directory.display())))?;
    if args.out.is_none() {
        println!("matrix: {}", directory.join("matrix.md").display());
    }
    super::formats::write_check_formats(
        &args.format,
        directory,
        &written.reports,
        &matrix.skipped,
    )?;
    let subs = matrix
        .decoders
        .iter()
        .map(|row| row.report.clone())
        .collect();
    if interrupted {
        return Ok((EXIT_INTERRUPTED, subs));
    }
    Ok((u8::from(written.failing), subs))
}

/// The reports written so far under `--all`, and the rows of the matrix.
struct Written<'a> {
    args: &'a CheckArgs,
    directory: &'a Path,
    rows: Vec<MatrixRow>,
    skipped: Vec<Skipped>,
    used_names: BTreeSet<String>,
    failing: bool,
    reports: Vec<(ConformanceReport, PathBuf)>,
}

impl Written<'_> {
    /// Writes one decoder's report into a subdirectory of its own and adds its row.
    fn add(&mut self, report: ConformanceReport) -> Result<(), CliError> {
        let sub = unique_name(&file_name_part(&report.decoder.name), &mut self.used_names);
        // The summary first, so a disk error loses nothing that was found.
        print_summary(&report);
        report
            .write(&self.directory.join(&sub))
            .map_err(|e| CliError(format!("report incomplete (summary above): {e}")))?;
        if self.args.out.is_none() {
            print_report_path(&self.directory.join(&sub));
        }
        self.rows.push(MatrixRow::from_report(&report, &sub));
        self.failing |= exit_status(&report, self.args.fail_on) == 1;
        self.reports.push((report, self.directory.join(&sub)));
        Ok(())
    }
}

/// Checks one listed adapter (or lists it as skipped, when its toolchain is missing or it
/// does not start); true when the check was interrupted.
fn check_adapter(
    entry: &AdapterEntry,
    inputs: &[Input],
    limits: &Limits,
    root: &Path,
    created: &str,
    written: &mut Written<'_>,
) -> Result<bool, CliError> {
    let missing = entry.missing_tools();
    if !missing.is_empty() {
        let reason = format!("toolchain not found on PATH: {}", missing.join(", "));
        written.skipped.push(skip(&entry.name, reason));
        return Ok(false);
    }
    let config = AdapterConfig {
        argv: entry.argv_in(root),
        name: Some(entry.name.clone()),
        answer_timeout: limits.answer_timeout,
        hello_timeout: limits.hello_timeout,
    };
    let external = match ExternalDecoder::start(config) {
        Ok(external) => external,
        Err(error) => {
            let reason = format!("could not be started: {error}");
            written.skipped.push(skip(&entry.name, reason));
            return Ok(false);
        }
    };
    let (report, stopped) = check_one(
        Subject::External(&external),
        inputs,
        limits,
        created.to_string(),
    );
    drop(external);
    written.add(report)?;
    match stopped {
        Some(Stop::Interrupted) => return Ok(true),
        Some(stop) => eprintln!(
            "utf8conf: {} stopped: {stop}",
            sanitize::terminal(&entry.name)
        ),
        None => {}
    }
    Ok(false)
}

/// An adapter that is listed as not run, with the reason (also said on stderr).
fn skip(name: &str, reason: String) -> Skipped {
    eprintln!("utf8conf: skipping {}: {reason}", sanitize::terminal(name));
    Skipped {
        name: name.to_string(),
        reason,
    }
}

/// `name`, or `name-2`, `name-3`, ... if already used.
pub(super) fn unique_name(name: &str, used: &mut BTreeSet<String>) -> String {
    let mut candidate = name.to_string();
    let mut attempt = 1;
    while !used.insert(candidate.clone()) {
        attempt += 1;
        candidate = format!("{name}-{attempt}");
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Duplicate names in the adapter list once overwrote each other's report
    /// directories.
    #[test]
    fn report_subdirectory_names_are_unique() {
        let mut used = BTreeSet::new();
        assert_eq!(unique_name("py", &mut used), "py");
        assert_eq!(unique_name("py", &mut used), "py-2");
        assert_eq!(unique_name("py", &mut used), "py-3");
    }
}
