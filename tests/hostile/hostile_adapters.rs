//! Hostile adapters against the adapter client: each misbehaving adapter of `tests/adapters/`
//! that once hung, misled or exhausted the harness now ends quickly with a verdict that
//! says what is wrong ("adapter unusable: ...", "out of step", flaky), and memory stays
//! bounded. See docs/PROTOCOL.md for the rules these tests hold the harness to.

use crate::common::python_available;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use utf8conf::adapter::{AdapterConfig, ExternalDecoder, Stop};

fn start(script: &str, args: &[&str], answer_timeout: Duration) -> ExternalDecoder {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/adapters")
        .join(script);
    let mut argv = vec!["python3".to_string(), path.to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let mut config = AdapterConfig::new(argv);
    config.answer_timeout = answer_timeout;
    ExternalDecoder::start(config).unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// Twenty small well-formed and ill-formed inputs.
fn inputs() -> Vec<Vec<u8>> {
    (0u8..20)
        .map(|i| {
            if i % 2 == 0 {
                vec![b'a' + i]
            } else {
                vec![0xC3, 0xA0 + i, 0x80 | i]
            }
        })
        .collect()
}

/// Runs the inputs and returns why the batch stopped (panics if it did not).
fn unusable(adapter: &ExternalDecoder) -> String {
    let inputs = inputs();
    let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let batch = adapter.decode_batch(&slices);
    match batch.stopped {
        Some(Stop::Unusable(reason)) => {
            let message = Stop::Unusable(reason).to_string();
            assert!(message.starts_with("adapter unusable: "), "{message}");
            assert!(!message.contains('\n'), "one line: {message}");
            message
        }
        other => panic!(
            "expected unusable, got {other:?} after {} answers",
            batch.answers.len()
        ),
    }
}

#[test]
fn an_adapter_that_sleeps_forever_is_unusable_after_a_few_timeouts() {
    if !python_available() {
        return;
    }
    let started = Instant::now();
    let adapter = start("sleep_forever.py", &[], Duration::from_millis(500));
    let message = unusable(&adapter);
    assert!(message.contains("timeout"), "{message}");
    assert!(message.contains("ASCII input 61"), "{message}");
    // 3 timeouts and the probe's, 0.5 s each, plus restarts.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn an_adapter_that_exits_after_its_hello_is_unusable() {
    if !python_available() {
        return;
    }
    let adapter = start("exit_after_hello.py", &[], Duration::from_secs(5));
    let message = unusable(&adapter);
    assert!(message.contains("crash"), "{message}");
    assert!(message.contains("without answering"), "{message}");
}

#[test]
fn malformed_fields_in_every_answer_make_the_adapter_unusable() {
    if !python_available() {
        return;
    }
    for (mode, field) in [
        ("negative-scalar", "scalars"),
        ("fraction-scalar", "scalars"),
        ("string-scalars", "scalars"),
        ("zero-error-len", "error_len"),
    ] {
        let adapter = start("bad_fields.py", &[mode], Duration::from_secs(5));
        let message = unusable(&adapter);
        assert!(message.contains("protocol"), "{mode}: {message}");
        assert!(message.contains(field), "{mode}: {message}");
    }
}

#[test]
fn a_big_endian_frame_length_is_unusable_not_a_hang() {
    if !python_available() {
        return;
    }
    let started = Instant::now();
    let adapter = start("big_endian.py", &[], Duration::from_millis(500));
    let message = unusable(&adapter);
    assert!(message.contains("timeout"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn two_answers_for_one_input_are_out_of_step() {
    if !python_available() {
        return;
    }
    let adapter = start("out_of_step.py", &["twice"], Duration::from_secs(5));
    let message = unusable(&adapter);
    assert!(message.contains("out of step"), "{message}");
}

#[test]
fn an_answer_before_any_input_is_out_of_step() {
    if !python_available() {
        return;
    }
    let adapter = start("out_of_step.py", &["early"], Duration::from_secs(5));
    // Let the unsolicited line arrive, as it would during a real check's first batch.
    std::thread::sleep(Duration::from_millis(300));
    let message = unusable(&adapter);
    assert!(message.contains("out of step"), "{message}");
    assert!(message.contains("before any input"), "{message}");
}

#[test]
fn a_line_after_the_last_answer_is_noted_at_the_end() {
    if !python_available() {
        return;
    }
    let adapter = start("out_of_step.py", &["trailing"], Duration::from_secs(5));
    let answers = adapter.decode_batch(&[b"a", b"\xFF"]).complete().unwrap();
    assert!(answers.iter().all(Result::is_ok));
    let note = adapter.finish().expect("a note");
    assert!(note.contains("out of step"), "{note}");
    assert!(note.contains("1 line(s) after its last answer"), "{note}");
}

/// Resident memory of this process in KiB (Linux), for the flooding tests.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_flood_of_lines_is_out_of_step_and_memory_stays_bounded() {
    if !python_available() {
        return;
    }
    let before = resident_kib();
    let adapter = start("flood.py", &["lines"], Duration::from_secs(5));
    std::thread::sleep(Duration::from_secs(1));
    let message = unusable(&adapter);
    assert!(message.contains("out of step"), "{message}");
    if let (Some(before), Some(after)) = (before, resident_kib()) {
        // It reached 1.2 GB in 3 s before the queue was bounded.
        assert!(after < before + 256 * 1024, "{before} KiB -> {after} KiB");
    }
}

#[test]
fn a_32_mib_answer_line_is_rejected_and_memory_stays_bounded() {
    if !python_available() {
        return;
    }
    let before = resident_kib();
    let adapter = start("flood.py", &["long-line"], Duration::from_secs(10));
    let answers = adapter.decode_batch(&[b"a"]).answers;
    let failure = answers[0].as_ref().unwrap_err();
    assert!(
        failure.message.contains("longer than"),
        "{}",
        failure.message
    );
    if let (Some(before), Some(after)) = (before, resident_kib()) {
        assert!(after < before + 256 * 1024, "{before} KiB -> {after} KiB");
    }
}

#[test]
fn a_crash_independent_of_the_input_is_flaky_not_a_finding() {
    if !python_available() {
        return;
    }
    let adapter = start("flaky.py", &["5"], Duration::from_secs(5));
    let inputs = inputs();
    let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let batch = adapter.decode_batch(&slices);
    assert!(
        batch.answers.iter().all(Result::is_ok),
        "no input is blamed"
    );
    // Every process crashes at its fifth frame: after three such processes, that is a
    // pattern of the process's age (docs/PROTOCOL.md, "What the harness guarantees").
    let message = batch.stopped.expect("unusable").to_string();
    assert!(
        message.contains("fails after about 5 calls in every process"),
        "{message}"
    );
    let statistics = adapter.statistics();
    assert_eq!(statistics.flaky_crashes, 3, "{statistics:?}");
    assert_eq!(statistics.failures, 0);
    let first = statistics.first_flaky_crash.unwrap();
    assert!(first.contains("crashing on frame 5"), "{first}");
}

#[test]
fn protocol_2_answers_carry_their_frame_index() {
    if !python_available() {
        return;
    }
    let adapter = start("echo_v2.py", &[], Duration::from_secs(5));
    assert_eq!(adapter.hello().protocol, 2);
    let answers = adapter
        .decode_batch(&[b"a", b"\xFF", b"b", b"c"])
        .complete()
        .unwrap();
    assert!(answers.iter().all(Result::is_ok));
    assert_eq!(adapter.finish(), None);

    let skipping = start("echo_v2.py", &["skip"], Duration::from_secs(5));
    let message = unusable(&skipping);
    assert!(message.contains("seq 3 where frame 2 was due"), "{message}");
}

#[test]
fn the_whole_check_deadline_stops_a_batch() {
    if !python_available() {
        return;
    }
    let adapter = start("slow.py", &["200"], Duration::from_secs(5));
    adapter.set_deadline(Some(Instant::now() + Duration::from_millis(700)));
    let inputs = inputs();
    let slices: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let started = Instant::now();
    let batch = adapter.decode_batch(&slices);
    assert_eq!(batch.stopped, Some(Stop::OutOfTime));
    assert!(batch.answers.len() < inputs.len());
    assert!(
        batch.answers.iter().all(Result::is_ok),
        "answers so far are kept"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}
