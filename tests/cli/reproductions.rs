//! Every reproduction command a report prints works as printed: each is run through
//! `sh -c` with the `utf8conf` under test first on `PATH`, exactly as a user would paste
//! it, and must show the decoder's reported answer again (`check --cmd`, `check --lib`,
//! `exhaustive --lib`; `run`'s are run in tests/library/engine_runs.rs, `utf8conf::author`'s in
//! tests/library/author_api.rs).
#![cfg(unix)]

use crate::common::{build_c_library as build_library, read_json, scratch_dir as scratch};
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn utf8conf(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("utf8conf runs")
}

/// Runs a printed command in a shell, in `dir`, with the binary under test on `PATH`.
fn shell(command: &str, dir: &Path) -> Output {
    let binary = Path::new(env!("CARGO_BIN_EXE_utf8conf"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", command])
        .env("PATH", path)
        .current_dir(dir)
        .output()
        .expect("sh runs")
}

/// The answer fields a printed command must show again (a field the report does not
/// have, or has as `null`, is not compared).
fn same_answer(shown: &Value, reported: &Value) -> bool {
    ["valid", "valid_up_to", "error_len", "scalars"]
        .iter()
        .all(
            |field| match reported.get(field).filter(|value| !value.is_null()) {
                None => true,
                expected => shown.get(field) == expected,
            },
        )
}

/// Every finding and departure of a `check --lib` report: its command is `utf8conf decode
/// --lib ... --symbol ...`, and it prints the answer the report recorded.
#[test]
fn check_lib_reproductions_decode_the_witness_through_the_library() {
    let dir = scratch("check-lib");
    build_library("lenient", &dir);
    let output = utf8conf(
        &[
            "check",
            "--quiet",
            "--lib",
            "./liblenient.so",
            "--symbol",
            "lenient_decode",
            "--out",
            "report",
        ],
        &dir,
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = read_json(&dir.join("report/conformance.json"));
    let findings = report["findings"].as_array().unwrap();
    assert!(
        findings.len() >= 2,
        "overlong NUL and surrogates: {findings:#?}"
    );
    let departures = report["departures"].as_array().unwrap();
    let printed = findings
        .iter()
        .map(|f| (&f["reproduce"], &f["decoder_answer"]))
        .chain(
            departures
                .iter()
                .map(|d| (&d["reproduce"], &d["decoder_answer"])),
        );
    for (command, answer) in printed {
        let command = command.as_str().unwrap();
        assert!(
            command.starts_with(
                "utf8conf decode --lib ./liblenient.so --symbol lenient_decode --hex "
            ),
            "{command}"
        );
        let output = shell(command, &dir);
        assert!(output.status.success(), "{command}: {output:?}");
        let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(
            same_answer(&shown, answer),
            "{command}: {shown} vs {answer}"
        );
    }
}

/// `exhaustive --lib`: each report's `reproduce` line loads the library again and
/// reproduces (exit 1), and its `reproduce_decode` lines show both answers.
#[test]
fn exhaustive_lib_reports_reproduce_with_their_library() {
    let dir = scratch("exhaustive-lib");
    build_library("lenient", &dir);
    let output = utf8conf(
        &[
            "exhaustive",
            "--max-len",
            "2",
            "--lib",
            "./liblenient.so",
            "--symbol",
            "lenient_decode",
            "--out",
            "runs",
        ],
        &dir,
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let run = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .next()
        .expect("one run directory")
        .unwrap()
        .path();
    let summary = read_json(&run.join("summary.json"));
    let ids = summary["reports"].as_array().unwrap();
    assert!(!ids.is_empty(), "C0 80 is accepted: {summary:#}");
    for id in ids {
        let report = read_json(
            &run.join("divergences")
                .join(format!("{}.json", id.as_str().unwrap())),
        );
        let command = report["finding"]["reproduce"].as_str().unwrap();
        assert!(
            command.ends_with(" --lib ./liblenient.so --symbol lenient_decode"),
            "{command}"
        );
        let output = shell(command, &dir);
        assert_eq!(output.status.code(), Some(1), "{command}: {output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("reproduced"), "{stdout}");

        let decode = report["reproduce_decode"].as_array().unwrap();
        assert_eq!(decode.len(), 2);
        for (command, name) in decode.iter().zip(["reference", "lenient_decode"]) {
            let command = command.as_str().unwrap();
            let output = shell(command, &dir);
            assert!(output.status.success(), "{command}: {output:?}");
            let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert!(
                same_answer(&shown, &report["outcomes"][name]),
                "{command}: {shown} vs {}",
                report["outcomes"][name]
            );
        }
    }

    // Without the library, `reproduce` says what it needs in one line.
    let some_report = run
        .join("divergences")
        .join(format!("{}.json", ids[0].as_str().unwrap()));
    let output = utf8conf(&["reproduce", some_report.to_str().unwrap()], &dir);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--lib PATH --symbol lenient_decode"),
        "{stderr}"
    );
}

/// `check --cmd`: the printed command pipes one protocol frame into the adapter, which
/// answers as it did in the check.
#[test]
fn check_cmd_reproductions_feed_the_adapter_one_frame() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    // The check of the adapter that accepts C0 AF, shared with the security tests.
    let (code, stderr, dir) = crate::overlong_slash_check();
    assert_eq!(*code, 1, "{stderr}");
    let report = read_json(&dir.join("report/conformance.json"));
    let findings = report["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    for finding in findings {
        let command = finding["reproduce"].as_str().unwrap();
        assert!(command.starts_with("printf '"), "{command}");
        let output = shell(command, dir);
        assert!(output.status.success(), "{command}: {output:?}");
        // The adapter's hello, then its one answer.
        let stdout = String::from_utf8_lossy(&output.stdout);
        let answer: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        assert!(
            same_answer(&answer, &finding["decoder_answer"]),
            "{command}: {answer} vs {}",
            finding["decoder_answer"]
        );
    }
}
