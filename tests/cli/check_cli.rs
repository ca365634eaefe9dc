//! `utf8conf check` end to end: the Python adapter passes every category, a
//! per-byte U+FFFD adapter is recognised as such (exit 1), a missing program is exit 2,
//! and the written `conformance.json` validates against `schemas/conformance.schema.json`.

use crate::common::{python_available, scratch};
use std::path::Path;

use serde_json::Value;

/// Runs `utf8conf check` from the repository root; returns (exit code, stdout, stderr).
pub(crate) fn check(args: &[&str]) -> (i32, String, String) {
    crate::common::outputs(crate::common::utf8conf().arg("check").args(args))
}

fn validated_report(directory: &Path) -> Value {
    let report = crate::common::conformance_report(directory);
    for file in ["conformance.md", "conformance.html"] {
        assert!(directory.join(file).is_file(), "{file}");
    }
    report
}

/// CPython's decoder passes every category, and its machine learned through the pipe is
/// RFC 3629's. `--stream` also grades its streaming mode: CPython's incremental decoder is
/// split-point equivalent but not prompt. It holds back `ED A0` (a surrogate's first two
/// bytes, which no later byte can complete: RFC 3629 section 4 allows only ED 80..9F)
/// until the end of input instead of reporting the errors at once, and that alone makes
/// the verdict `deviations`. One check shows both, so the 351,716 inputs run once.
#[test]
#[ignore = "slow (a whole check of a Python adapter, about 10 s): .ci/run runs it with --ignored"]
fn the_python_adapter_passes_every_category_and_streams_equivalently_but_holds_back_a_surrogate_prefix(
) {
    if !python_available() {
        return;
    }
    let out = scratch("check-python");
    let (code, stdout, stderr) = check(&[
        "--cmd",
        "python3 adapters/python.py",
        "--stream",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    let report = validated_report(&out);
    assert_one_shot_conformant(&report, &stdout, &out);
    // The streaming mode: equivalent, but late on ED A0.
    assert_eq!(report["verdict"], "deviations");
    let streaming = &report["streaming"];
    assert_eq!(streaming["split_point_departures"], 0, "{streaming}");
    assert_eq!(streaming["failed_feeds"], 0, "{streaming}");
    assert!(streaming["feeds"].as_u64().unwrap() > 1000, "{streaming}");
    let late = streaming["departures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["input"] == "ED A0")
        .expect("ED A0 is held back");
    assert_eq!(late["property"], "promptness");
    assert!(
        late["detail"].as_str().unwrap().contains("U+FFFD"),
        "{late}"
    );
    let markdown = std::fs::read_to_string(out.join("conformance.md")).unwrap();
    assert!(markdown.contains("## Streaming"));
    let _ = std::fs::remove_dir_all(&out);
}

/// Everything of the Python adapter's report but its streaming section is a conformant
/// decoder's: every category passes, no departure, the maximal-subpart policy, and a
/// complete learned machine recognised as its own known one and the reference's.
fn assert_one_shot_conformant(report: &Value, stdout: &str, out: &Path) {
    assert_eq!(report["decoder"]["name"], "python");
    assert_eq!(
        report["replacement_policy"]["recognised"],
        "maximal-subpart"
    );
    for row in report["categories"].as_array().unwrap() {
        assert_eq!(row["status"], "pass", "{row}");
        assert!(row["inputs"].as_u64().unwrap() > 0, "{row}");
    }
    assert_eq!(report["departures"].as_array().unwrap().len(), 0);
    assert_eq!(report["findings"].as_array().unwrap().len(), 0);
    let rows = report["first_two_bytes_map"]["rows"].as_array().unwrap();
    assert!(rows
        .iter()
        .all(|row| row.as_str().unwrap().chars().all(|c| c == '=')));
    // The check learned the adapter's machine through its pipe: complete, equal to
    // RFC 3629's, and what it cost is in the report.
    let model = &report["model"];
    assert_eq!(model["model"]["incomplete"], Value::Null, "{model}");
    assert_eq!(model["equivalent"], true);
    assert!(model["model"]["queries"]["decodes"].as_u64().unwrap() > 1000);
    assert!(!model["model"]["machine"]["transitions"]
        .as_array()
        .unwrap()
        .is_empty());
    // Recognised: the shipped adapter's own known machine, and the reference's.
    let recognition = &model["recognition"];
    let like = crate::common::behaves_like(recognition);
    assert!(
        like.contains(&"adapter:python") && like.contains(&"reference"),
        "{recognition}"
    );
    let summary = recognition["summary"].as_str().unwrap();
    assert!(summary.starts_with("behaves exactly like"), "{summary}");
    assert!(stdout.contains(&format!("  model: {summary}")), "{stdout}");
    let markdown = std::fs::read_to_string(out.join("conformance.md")).unwrap();
    assert!(markdown.contains("## Learned model"), "{markdown}");
    assert!(markdown.contains("decodes in"), "{markdown}");
    assert!(markdown.contains(summary), "{markdown}");
    let html = std::fs::read_to_string(out.join("conformance.html")).unwrap();
    assert!(
        html.contains("<p id=\"model-recognition\">"),
        "no recognition in the HTML"
    );
}

#[test]
#[ignore = "slow (a whole check of a Python adapter, about 10 s): .ci/run runs it with --ignored"]
fn a_per_byte_decoder_is_recognised_as_one_policy_finding() {
    if !python_available() {
        return;
    }
    let (code, stdout, stderr, out) = crate::per_byte_check();
    assert_eq!(*code, 1, "stdout: {stdout}\nstderr: {stderr}");
    let report = validated_report(out);
    assert_eq!(report["decoder"]["name"], "per byte");
    assert_eq!(report["verdict"], "deviations");
    assert!(
        report.get("streaming").is_none(),
        "graded only with --stream"
    );
    let policy = &report["replacement_policy"];
    assert_eq!(policy["recognised"], "per-byte");
    assert_eq!(policy["hypotheses"][1]["explains"], policy["observations"]);
    assert!(policy["differing_from_maximal_subpart"].as_u64().unwrap() > 1000);
    // One finding, not thousands of departures: no category fails.
    assert_eq!(report["departures"].as_array().unwrap().len(), 0);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["cause"]["decoder_does"]["policy"], "per-byte");
    assert!(findings[0]["reproduce"]
        .as_str()
        .unwrap()
        .contains("per_byte.py"));
    let statuses: Vec<(&str, &str)> = report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["category"].as_str().unwrap(),
                row["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(statuses.iter().all(|(_, status)| *status != "fail"));
    assert!(
        statuses.contains(&("truncated-interrupted", "policy")),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&("unexpected-continuation", "pass")),
        "{statuses:?}"
    );
    // E1 80 at the end of input: two bytes, one maximal subpart.
    let rows = report["first_two_bytes_map"]["rows"].as_array().unwrap();
    assert_eq!(rows[0xE1].as_str().unwrap().as_bytes()[0x80], b'p');
    assert_eq!(rows[0x41].as_str().unwrap().as_bytes()[0x41], b'=');
    // The folder is shared with the other per-byte tests: it stays.
}

#[test]
fn a_missing_adapter_is_exit_2_with_one_line() {
    let (code, stdout, stderr) = check(&["--cmd", "/nonexistent/adapter --flag", "--quiet"]);
    assert_eq!(code, 2, "stdout: {stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("cannot start adapter"), "{stderr}");
    let (code, _, stderr) = check(&["--cmd", "'unterminated"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unterminated"), "{stderr}");
}

/// Usage errors are one line on stderr with the `--help` to read; `check` without a
/// decoder names all three ways to give one; `--help` itself still prints the whole help.
#[test]
fn usage_errors_are_one_line_with_a_help_hint() {
    let (code, stdout, stderr) = check(&[]);
    assert_eq!(code, 2, "stdout: {stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for way in [
        "--cmd",
        "--lib PATH --symbol NAME",
        "--all",
        "utf8conf check --help",
    ] {
        assert!(stderr.contains(way), "{way}: {stderr}");
    }
    let (code, _, stderr) = check(&["--cmd", "x", "--no-such-flag"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("'--no-such-flag'"), "{stderr}");
    assert!(stderr.contains("see 'utf8conf check --help'"), "{stderr}");
    let (code, _, stderr) = check(&["--lib", "x.so"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--symbol"), "{stderr}");
    let (code, stdout, _) = check(&["--help"]);
    assert_eq!(code, 0);
    assert!(stdout.lines().count() > 10, "{stdout}");
}

/// `check --all --out DIR` claims DIR as a single check does (docs/CHECKING.md): a
/// directory that already holds something is refused without --force, and so is one
/// another running check holds the lock of; both before any decoder runs, with one line.
#[test]
fn check_all_claims_its_out_directory() {
    let dir = scratch("check-all-claim");
    let taken = dir.join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("matrix.md"), "an earlier matrix").unwrap();
    let (code, stdout, stderr) = check(&["--all", "--out", taken.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(taken.join("matrix.md")).unwrap(),
        "an earlier matrix"
    );

    // A lock held by a live process (this test) is another check writing the directory.
    let busy = dir.join("busy");
    std::fs::write(dir.join(".busy.lock"), std::process::id().to_string()).unwrap();
    let (code, _, stderr) = check(&["--all", "--out", busy.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("another utf8conf"), "{stderr}");
    assert!(!busy.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
