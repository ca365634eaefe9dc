//! A disk that fills up during `run` and `check`.
//!
//! A small file system cannot be mounted inside `cargo test`, so the disk is filled by
//! the test-only seam of the atomic writer: with `UTF8CONF_TEST_FAIL_WRITES_AFTER=N` the
//! first `N` report writes succeed and every later one fails half-way with "No space
//! left on device" (see `utf8conf::atomic_file::FAIL_WRITES_AFTER_VARIABLE`).
//!
//! What must hold: the run stops at once, the closing table and every finding found so
//! far still reach stdout, the error on stderr names the file that could not be written,
//! the exit status is 2, and no temporary file is left behind.

use crate::common::scratch;
use std::path::Path;

use utf8conf::atomic_file::FAIL_WRITES_AFTER_VARIABLE;

/// Runs the binary with the disk full after `writes_allowed` writes: (exit, stdout, stderr).
fn utf8conf_on_full_disk(writes_allowed: u32, args: &[&str]) -> (i32, String, String) {
    crate::common::outputs(
        crate::common::utf8conf()
            .args(args)
            .env(FAIL_WRITES_AFTER_VARIABLE, writes_allowed.to_string()),
    )
}

/// Every file under `dir`, recursively, relative to it.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// `run --decoders mutant-cesu8` finds exactly one finding (CESU-8 surrogate pairs).
fn run_cesu8(out: &Path) -> Vec<String> {
    [
        "run",
        "--quiet",
        "--decoders",
        "mutant-cesu8",
        "--budget",
        "60s",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Asserts the table and the one finding are on stdout.
fn assert_table_and_finding(stdout: &str) {
    let mut lines = stdout.lines();
    let header = lines.next().unwrap_or_default();
    assert!(header.starts_with("decoder"), "no table header:\n{stdout}");
    assert!(
        stdout.lines().any(|l| l.starts_with("mutant-cesu8 ")),
        "no table row:\n{stdout}"
    );
    assert!(
        stdout.contains("1 finding ("),
        "no finding count:\n{stdout}"
    );
    assert!(
        stdout.contains("summary: not written (disk error)"),
        "a summary.json that is not there is not claimed:\n{stdout}"
    );
    let finding_lines: Vec<&str> = stdout
        .lines()
        .filter(|l| {
            l.starts_with("  ") && !l.starts_with("  model of") && l.contains("mutant-cesu8")
        })
        .collect();
    assert_eq!(finding_lines.len(), 1, "finding line:\n{stdout}");
}

#[test]
fn run_stops_at_the_first_failed_report_and_still_prints_what_it_found() {
    let out = scratch("run-first");
    // Only the summary stub is written: the first finding's report is the first write
    // to fail.
    let (code, stdout, stderr) = utf8conf_on_full_disk(1, &as_refs(&run_cesu8(&out)));
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert_table_and_finding(&stdout);
    // The run stopped at once instead of spending its 60 s budget.
    assert!(
        stdout.contains("stopped by disk-error"),
        "did not stop at once:\n{stdout}"
    );
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    let departures = out.to_str().unwrap();
    assert!(
        stderr.contains(departures) && stderr.contains("divergences") && stderr.contains(".json"),
        "the report path is named: {stderr}"
    );
    // Nothing half-written is left: no report, no temporary; the summary is the stub
    // that says the run was cut short.
    let files = files_under(&out);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("/summary.json"), "{files:?}");
    let stub = std::fs::read_to_string(out.join(&files[0])).unwrap();
    assert!(stub.contains("\"stopped_by\": \"incomplete\""), "{stub}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn run_whose_summary_cannot_be_written_keeps_the_report_and_prints_the_finding() {
    let out = scratch("run-summary");
    // The stub and the report are written once; the report's final rewrite (with the
    // count) fills the disk.
    let (code, stdout, stderr) = utf8conf_on_full_disk(2, &as_refs(&run_cesu8(&out)));
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert_table_and_finding(&stdout);
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(stderr.contains("divergences"), "{stderr}");
    let mut files = files_under(&out);
    files.sort();
    assert_eq!(files.len(), 2, "the stub and the first report: {files:?}");
    assert!(files[0].contains("divergences"), "{files:?}");
    assert!(!files[0].contains(".tmp-"), "{files:?}");
    assert!(files[1].ends_with("/summary.json"), "{files:?}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
#[ignore = "slow (a whole check in the test build, about 5 s): .ci/run runs it with --ignored"]
fn check_names_every_report_file_it_could_not_write() {
    if utf8conf::adapter::list::find_on_path("python3").is_none() {
        eprintln!("skipped: python3 is not on PATH");
        return;
    }
    let out = scratch("check");
    // conformance.json fits; the disk is full for .md and .html.
    let (code, stdout, stderr) = utf8conf_on_full_disk(
        1,
        &[
            "check",
            "--quiet",
            "--model-time",
            "0",
            "--cmd",
            "python3 adapters/python.py",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    // The summary printed before the write stays.
    assert!(stdout.contains("python"), "summary: {stdout}");
    assert!(stdout.contains("conformant"), "summary: {stdout}");
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr}");
    for missing in ["conformance.md", "conformance.html"] {
        assert!(
            stderr.contains(&out.join(missing).display().to_string()),
            "{missing} not named: {stderr}"
        );
    }
    assert!(!stderr.contains("conformance.json"), "{stderr}");
    assert_eq!(files_under(&out), vec!["conformance.json".to_string()]);
    let _ = std::fs::remove_dir_all(&out);
}

fn as_refs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}
