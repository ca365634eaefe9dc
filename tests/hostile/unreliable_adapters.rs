//! The adapter client against failures that do not depend on the input: a stall every N
//! answers in every process, a single stall, and an adapter whose grandchild leaves its
//! process group and session while holding its stdout. The rules are those of
//! docs/PROTOCOL.md, "What the harness guarantees": a crash or a timeout is retried once
//! on a fresh process and, when the retry answers, is counted as flaky instead of being
//! blamed on the input; failures that follow the process's age make the adapter
//! unusable; the adapter's exit is judged when it exits; nothing it started outlives it.
#![cfg(target_os = "linux")]

use crate::common::{processes_with, python_available};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use utf8conf::adapter::{AdapterConfig, ExternalDecoder};

fn script(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/adapters")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn start(argv: Vec<String>, answer_timeout: Duration) -> ExternalDecoder {
    let mut config = AdapterConfig::new(argv);
    config.answer_timeout = answer_timeout;
    ExternalDecoder::start(config).expect("the adapter starts")
}

/// A marker file path unique to this test run.
fn marker(name: &str) -> String {
    let path = std::env::temp_dir().join(format!(
        "utf8conf-unreliable-adapter-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path.to_string_lossy().into_owned()
}

/// `count` short inputs, well-formed and ill-formed.
fn inputs(count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| match i % 3 {
            0 => vec![b'a' + (i % 26) as u8],
            1 => vec![0xC3, 0xA9],
            _ => vec![0xE0, 0x80 | (i % 64) as u8],
        })
        .collect()
}

#[test]
fn a_stall_every_n_answers_in_every_process_is_a_pattern_and_blames_no_input() {
    if !python_available() {
        return;
    }
    let adapter = start(
        vec!["python3".into(), script("stall_every.py"), "50".into()],
        Duration::from_millis(300),
    );
    let inputs = inputs(400);
    let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let started = Instant::now();
    let batch = adapter.decode_batch(&slices);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        batch.answers.iter().all(Result::is_ok),
        "no input is blamed"
    );
    let message = batch.stopped.expect("unusable").to_string();
    assert!(
        message.contains("fails after about 51 calls in every process"),
        "{message}"
    );
    let statistics = adapter.statistics();
    assert_eq!(statistics.flaky_timeouts, 3, "{statistics:?}");
    assert_eq!(statistics.failures, 0);
}

#[test]
fn a_single_stall_is_retried_and_counted_as_flaky_not_a_timeout_departure() {
    if !python_available() {
        return;
    }
    let adapter = start(
        vec![
            "python3".into(),
            script("stall_once.py"),
            "5".into(),
            marker("stall-once"),
        ],
        Duration::from_millis(300),
    );
    let inputs = inputs(20);
    let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let answers = adapter.decode_batch(&slices).complete().expect("completes");
    assert!(answers.iter().all(Result::is_ok), "no input is blamed");
    let statistics = adapter.statistics();
    assert_eq!(statistics.flaky_timeouts, 1, "{statistics:?}");
    assert_eq!(statistics.failures, 0);
    assert!(statistics.first_flaky_crash.unwrap().contains("no answer"));
}

#[test]
fn an_exit_is_seen_though_a_setsid_grandchild_holds_stdout_and_the_grandchild_dies() {
    if !python_available() {
        return;
    }
    let marker = marker("setsid");
    // A long answer limit: only the adapter's exit, not a timeout, can end the wait.
    let adapter = start(
        vec![
            "python3".into(),
            script("setsid_child.py"),
            "5".into(),
            marker.clone(),
        ],
        Duration::from_secs(30),
    );
    assert!(
        !processes_with(&marker).is_empty(),
        "the adapter and its grandchild run"
    );
    let inputs = inputs(20);
    let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let started = Instant::now();
    let answers = adapter.decode_batch(&slices).complete().expect("completes");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the exit was judged when the adapter exited"
    );
    assert!(answers.iter().all(Result::is_ok), "no input is blamed");
    let statistics = adapter.statistics();
    assert_eq!(
        statistics.flaky_crashes, 1,
        "a crash, not a timeout: {statistics:?}"
    );
    assert_eq!(statistics.flaky_timeouts, 0);
    drop(adapter);
    let deadline = Instant::now() + Duration::from_secs(2);
    while !processes_with(&marker).is_empty() {
        assert!(
            Instant::now() < deadline,
            "left behind: {:?}",
            processes_with(&marker)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_unterminated_answer_over_the_line_bound_is_protocol_not_timeout() {
    if !python_available() {
        return;
    }
    // A long answer limit: only the line bound can end the wait early.
    let adapter = start(
        vec!["python3".into(), script("endless_line.py")],
        Duration::from_secs(30),
    );
    let started = Instant::now();
    let batch = adapter.decode_batch(&[b"a"]);
    assert!(started.elapsed() < Duration::from_secs(10));
    let failure = batch.answers[0].as_ref().expect_err("no answer");
    assert_eq!(failure.kind.as_str(), "protocol", "{failure:?}");
    assert!(failure.message.contains("longer than"), "{failure:?}");
}
