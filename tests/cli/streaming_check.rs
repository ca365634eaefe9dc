//! Streaming mode end to end: `utf8conf check` on the streaming test adapters of
//! tests/adapters/streaming.py (one correct, three misbehaving), and `--stream` on an
//! adapter without streaming. Each report must validate against the schema.

use crate::common::python_available;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use utf8conf::adapter::{AdapterConfig, ExternalDecoder};
use utf8conf::conformance::streaming_model::learn_streamed;
use utf8conf::diagnosis::learn::ModelBudget;

/// Runs `check` on `tests/adapters/streaming.py MODE`; (exit code, report).
fn check_streaming(mode: &str) -> (i32, Value) {
    // The learned machines are not graded here: check_cli covers the one-shot machine,
    // and the streaming machine has a test of its own below.
    check_streaming_with(mode, "0")
}

/// [`check_streaming`] with `--model-time SECONDS`.
fn check_streaming_with(mode: &str, model_time: &str) -> (i32, Value) {
    let out: PathBuf =
        // One folder per mode and model setting: tests of one mode run at once.
        std::env::temp_dir().join(format!(
            "utf8conf-stream-{mode}-model-{model_time}-{}",
            std::process::id()
        ));
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args([
            "check",
            "--stream",
            "--quiet",
            "--model-time",
            model_time,
            "--cmd",
        ])
        .arg(format!("python3 tests/adapters/streaming.py {mode}"))
        .arg("--out")
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("utf8conf runs");
    let report = validated(&out);
    let _ = std::fs::remove_dir_all(&out);
    (output.status.code().unwrap_or(-1), report)
}

fn validated(directory: &Path) -> Value {
    let report = crate::common::conformance_report(directory);
    let markdown = std::fs::read_to_string(directory.join("conformance.md")).unwrap();
    assert!(markdown.contains("## Streaming"));
    report
}

fn departures<'a>(streaming: &'a Value, property: &str) -> Vec<&'a Value> {
    streaming["departures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["property"] == property)
        .collect()
}

#[test]
fn a_prompt_streaming_decoder_is_clean() {
    if !python_available() {
        return;
    }
    let (code, report) = check_streaming("prompt");
    let streaming = &report["streaming"];
    assert_eq!(code, 0, "{streaming}");
    assert_eq!(report["verdict"], "conformant");
    assert!(streaming["inputs"].as_u64().unwrap() > 500, "{streaming}");
    assert_eq!(streaming["split_point_departures"], 0);
    assert_eq!(streaming["promptness_departures"], 0);
    assert_eq!(streaming["failed_feeds"], 0);
}

#[test]
#[ignore = "slow (a whole check in the test build, about 5 s): .ci/run runs it with --ignored"]
fn emitting_nothing_until_the_end_is_not_prompt() {
    if !python_available() {
        return;
    }
    let (code, report) = check_streaming("late");
    let streaming = &report["streaming"];
    assert_eq!(code, 1);
    assert_eq!(report["verdict"], "deviations");
    assert_eq!(streaming["split_point_departures"], 0, "{streaming}");
    let late = departures(streaming, "promptness");
    assert!(!late.is_empty(), "{streaming}");
    // The input 00 (U+0000) is complete after its only chunk.
    let nul = late
        .iter()
        .find(|d| d["input"] == "00")
        .expect("00 is late");
    assert!(nul["detail"]
        .as_str()
        .unwrap()
        .contains("U+0000 was not yet emitted"));
}

#[test]
#[ignore = "slow (a whole check of a Python adapter, about 10 s): .ci/run runs it with --ignored"]
fn chunked_answers_without_emitted_are_protocol_failures_and_grading_gives_up() {
    if !python_available() {
        return;
    }
    let (code, report) = check_streaming("no-emitted");
    let streaming = &report["streaming"];
    assert_eq!(code, 1);
    assert_eq!(report["verdict"], "deviations");
    assert!(
        streaming["failed_feeds"].as_u64().unwrap() >= 32,
        "{streaming}"
    );
    assert!(streaming["first_failure"]
        .as_str()
        .unwrap()
        .contains("without \"emitted\""));
    assert!(streaming["stopped"].as_str().unwrap().contains("abandoned"));
}

#[test]
fn stream_needs_an_adapter_that_offers_it() {
    if !python_available() {
        return;
    }
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args([
            "check",
            "--quiet",
            "--model-time",
            "0",
            "--stream",
            "--cmd",
            "python3 tests/adapters/echo_std.py",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("utf8conf runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("does not offer streaming mode"), "{stderr}");
}

/// A decoder that forgets a sequence cut by a chunk boundary breaks split-point
/// equivalence, and its machine fed one byte per chunk is not its one-shot machine: the
/// mechanisms it adds are named (after a lead byte, the continuation that completes it
/// decodes to U+FFFD). One check, with the model, shows both, so the whole stateless
/// check runs once.
#[test]
#[ignore = "slow (a whole check of a Python adapter, about 10 s): .ci/run runs it with --ignored"]
fn forgetting_state_across_chunks_breaks_split_point_equivalence_and_the_machine() {
    if !python_available() {
        return;
    }
    let (code, report) = check_streaming_with("stateless", "60");
    let streaming = &report["streaming"];
    assert_eq!(code, 1);
    let split = departures(streaming, "split-point");
    // C2 80 (U+0080) fed as C2 | 80 decodes as two errors.
    let cut = split
        .iter()
        .find(|d| d["input"] == "C2 80")
        .expect("C2 80 departs");
    assert_eq!(cut["chunks"], serde_json::json!(["C2", "80"]));
    assert!(
        cut["detail"].as_str().unwrap().contains("[U+0080]"),
        "{cut}"
    );
    let machine = &streaming["machine"];
    assert_eq!(machine["same_as_one_shot"], false, "{machine:#}");
    // Chunked answers of this adapter carry `valid` and what was emitted, nothing more.
    assert_eq!(
        machine["capabilities"],
        serde_json::json!(["valid", "scalars"])
    );
    let findings = machine["findings"].as_array().unwrap();
    let forgotten = findings
        .iter()
        .find(|f| f["witness"] == "C2 80")
        .unwrap_or_else(|| panic!("no finding witnessed by C2 80: {findings:#?}"));
    assert!(
        forgotten["title"].as_str().unwrap().contains("U+FFFD"),
        "{forgotten}"
    );
    // The check's own machine has none of them: the adapter's one-shot decode is right.
    assert_eq!(report["findings"], serde_json::json!([]));
}

/// A correct streaming decoder fed one byte per chunk is the same machine as in one
/// piece: no input decodes differently, so the streaming machine adds nothing.
#[test]
#[ignore = "slow (a whole check in the test build, about 5 s): .ci/run runs it with --ignored"]
fn a_prompt_streaming_decoder_has_its_one_shot_machine() {
    if !python_available() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/streaming.py");
    let argv = vec![
        "python3".into(),
        path.to_string_lossy().into_owned(),
        "prompt".into(),
    ];
    let adapter = ExternalDecoder::start(AdapterConfig::new(argv)).expect("the adapter starts");
    let machine = learn_streamed(&adapter, None, ModelBudget::default()).unwrap();
    assert_eq!(machine.learned.incomplete, None);
    assert_eq!(machine.same_as_one_shot, Some(true));
    assert!(machine.findings.is_empty());
}
