//! `utf8conf check --lib` and `utf8conf exhaustive --lib`: a C library in a worker
//! process. A deliberately misbehaving library (tests/c-lib/misbehaving.c, built here
//! with the system C compiler) segfaults, aborts, hangs and breaks the header's rules on
//! four inputs; each must become a finding for exactly that input while the check runs
//! to the end. The encoder functions of the header (tests/c-lib/encoders.c) go through
//! the same worker under `check --encoder --lib`.
#![cfg(unix)]

use crate::common::{build_c_library as build_library, scratch_dir as scratch};
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn check(args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .arg("check")
        .arg("--quiet")
        .args(args)
        .output()
        .expect("utf8conf runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code().expect("exited, not killed"), stderr)
}

fn departure<'a>(report: &'a Value, aspect: &str, category: &str) -> &'a Value {
    report["departures"]
        .as_array()
        .expect("departures")
        .iter()
        .find(|d| d["aspect"] == aspect && d["categories"][0] == category)
        .unwrap_or_else(|| panic!("no {aspect} departure in {category}: {report:#}"))
}

#[test]
fn crashes_aborts_hangs_and_bad_answers_are_findings_and_the_check_completes() {
    let dir = scratch("misbehaving");
    let library = build_library("misbehaving", &dir);
    let out = dir.join("report");
    let (code, stderr) = check(&[
        "--lib",
        library.to_str().unwrap(),
        "--symbol",
        "misbehaving_decode",
        "--timeout",
        "1",
        // The machine is not the subject here, and learning it would meet every hang
        // again (the check's own findings come first either way).
        "--model-time",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "deviations expected; stderr: {stderr}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("conformance.json")).unwrap())
            .unwrap();

    // Each misbehaviour is filed under its own input (docs/DESIGN.md §3.4 aspects).
    let segfault = departure(&report, "crash", "invalid-lead");
    assert_eq!(segfault["input_hex"], "FF FF");
    let message = segfault["decoder_answer"]["message"].as_str().unwrap();
    assert!(message.contains("SIGSEGV"), "{message}");
    let abort = departure(&report, "crash", "overlong-2");
    assert_eq!(abort["input_hex"], "C0 AF");
    assert!(abort["decoder_answer"]["message"]
        .as_str()
        .unwrap()
        .contains("SIGABRT"));
    assert_eq!(
        departure(&report, "timeout", "surrogate")["input_hex"],
        "ED A0 80"
    );
    let broken = departure(&report, "protocol", "legacy-5-6-byte");
    assert_eq!(broken["input_hex"], "F8 88 80 80 80");
    assert!(broken["decoder_answer"]["message"]
        .as_str()
        .unwrap()
        .contains("valid is 7"));

    // Nothing else departs: the verdicts are right, and the library's stdout noise on
    // inputs starting with 'p' never reached the answer channel.
    let departures = report["departures"].as_array().unwrap();
    assert_eq!(departures.len(), 4, "{departures:#?}");
    let valid_rejected = report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == "valid-rejected")
        .unwrap();
    assert_eq!(valid_rejected["status"], "pass");
    // Every input was graded, after at least one restart per misbehaviour.
    assert!(report["summary"]["inputs"].as_u64().unwrap() > 300_000);
    let restarts = report["summary"]["restarts"].as_u64().unwrap();
    assert!(restarts >= 4);
    // A failure that stands is answered from memory when grouping and minimisation ask
    // for its input again (docs/PROTOCOL.md): two calls per failing input, at most a
    // few more for batches that crashed before the input was pinned, not one restart
    // and timeout per ask (45 restarts and 28 s before).
    assert!(restarts <= 16, "{restarts} restarts");
}

#[test]
fn a_library_or_symbol_that_cannot_be_loaded_is_one_line_and_exit_2() {
    let dir = scratch("missing");
    let (code, stderr) = check(&["--lib", "/nonexistent/libnothing.so", "--symbol", "f"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot load /nonexistent/libnothing.so"),
        "{stderr}"
    );

    let library = build_library("misbehaving", &dir);
    let (code, stderr) = check(&[
        "--lib",
        library.to_str().unwrap(),
        "--symbol",
        "no_such_function",
    ]);
    assert_eq!(code, 2);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("has no symbol no_such_function"),
        "{stderr}"
    );
}

/// `exhaustive --lib` over every input up to 2 bytes: the library's two crashing inputs
/// (`FF FF` segfaults, `C0 AF` aborts) are its only departures, each on exactly that
/// input, and every other input is compared like a built-in decoder's. The learned
/// machine is skipped: it would also find the hang on `ED A0 80`, outside the space,
/// through some 137,000 decodes in the worker (a library's reports filed through its
/// machine are `reproductions`' test).
#[test]
fn exhaustive_runs_a_library_block_by_block_and_a_crash_is_one_finding() {
    let dir = scratch("exhaustive");
    let library = build_library("misbehaving", &dir);
    let out = dir.join("runs");
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(["exhaustive", "--max-len", "2", "--model-time", "0", "--lib"])
        .arg(&library)
        .args(["--symbol", "misbehaving_decode", "--out"])
        .arg(&out)
        .output()
        .expect("utf8conf runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let run = std::fs::read_dir(&out)
        .unwrap()
        .next()
        .expect("one run directory")
        .unwrap()
        .path();
    let read = |path: PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let summary = read(run.join("summary.json"));
    assert_eq!(summary["total_inputs"], 1 + 256 + 65_536);
    assert_eq!(summary["divergent_inputs"], 2, "{summary:#}");
    let comparisons = summary["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 1, "only the library: {comparisons:?}");
    let counts = &comparisons[0];
    assert_eq!(counts["decoder"], "misbehaving_decode");
    assert_eq!(counts["inputs"], 65_793);
    assert_eq!(counts["aspects"]["valid"]["compared"], 65_791);
    assert_eq!(counts["aspects"]["valid"]["divergences"], 0);
    assert_eq!(counts["aspects"]["valid_up_to"]["divergences"], 0);
    assert_eq!(counts["aspects"]["crash"]["divergences"], 2);
    let mut crashed: Vec<String> = summary["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| {
            let report = read(
                run.join("divergences")
                    .join(format!("{}.json", id.as_str().unwrap())),
            );
            assert_eq!(report["aspect"], "crash", "{report:#}");
            report["minimized_hex"].as_str().unwrap().to_string()
        })
        .collect();
    crashed.sort();
    assert_eq!(crashed, ["C0 AF", "FF FF"]);
}

/// `check --encoder --lib`: the C encoder functions of include/utf8conf.h in the same
/// worker. The strict UTF-16 encoder has no finding and the error policy; the CESU-style
/// UTF-32 one is recognised as Modified UTF-8 with its findings; a segfault on one input
/// is a `crashes` finding on exactly that input.
#[test]
fn c_encoders_are_graded_through_the_worker() {
    let dir = scratch("c-encoders");
    let library = build_library("encoders", &dir);
    let grade = |symbol: &str, form: &str| {
        let out = dir.join(symbol);
        let (code, stderr) = check(&[
            "--encoder",
            "--lib",
            library.to_str().unwrap(),
            "--symbol",
            symbol,
            "--encode",
            form,
            "--out",
            out.to_str().unwrap(),
        ]);
        let report = crate::common::encoder_report(&out);
        (code, stderr, report["encoders"][0].clone())
    };
    let behaviours = |graded: &Value| -> Vec<String> {
        graded["grade"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["behaviour"].as_str().unwrap().to_string())
            .collect()
    };

    let (code, stderr, strict) = grade("strict_encode_utf16", "utf16");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(strict["grade"]["policy"], "error");
    assert_eq!(strict["subject"]["kind"], "library");
    assert!(behaviours(&strict).is_empty());

    let (code, stderr, cesu) = grade("cesu_encode_utf32", "utf32");
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(cesu["grade"]["policy"], "modified-utf8");
    assert_eq!(cesu["grade"]["out_of_range_policy"], "error");
    assert_eq!(
        behaviours(&cesu),
        ["non-shortest-form", "surrogate-written"],
        "{cesu:#}"
    );

    let (code, stderr, crashing) = grade("crashing_encode_utf16", "utf16");
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(behaviours(&crashing), ["crashes"]);
    let finding = &crashing["grade"]["findings"][0];
    assert_eq!(finding["witness"], "utf16: FFFF");
    assert!(finding["written"].as_str().unwrap().contains("SIGSEGV"));

    let (code, stderr) = check(&[
        "--encoder",
        "--lib",
        library.to_str().unwrap(),
        "--symbol",
        "strict_encode_utf16",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--encode utf16"), "{stderr}");
}
