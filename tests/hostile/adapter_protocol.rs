//! The adapter protocol against misbehaving adapters (`tests/adapters/*.py`): a crash, a
//! hang and a garbage line are each one finding for that input, after which the adapter
//! is restarted and later inputs are still answered; a slow adapter is answered
//! correctly; adapters that are missing, not executable, or never say a good hello fail
//! to start with a clear message, and nothing hangs.

use crate::common::python_available;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use utf8conf::adapter::{AdapterConfig, ExternalDecoder};
use utf8conf::decoders::Decoder;
use utf8conf::outcome::FailureKind;
use utf8conf::reference::Reference;

fn test_adapter(script: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/adapters")
        .join(script);
    vec!["python3".into(), path.to_string_lossy().into_owned()]
}

fn start(script: &str, answer_timeout: Duration) -> ExternalDecoder {
    let mut config = AdapterConfig::new(test_adapter(script));
    config.answer_timeout = answer_timeout;
    ExternalDecoder::start(config).unwrap_or_else(|e| panic!("{script}: {e}"))
}

const A: &[u8] = b"a";
const B: &[u8] = b"b";

#[test]
fn a_correct_adapter_answers_like_the_reference() {
    if !python_available() {
        return;
    }
    let adapter = start("echo_std.py", Duration::from_secs(5));
    assert_eq!(adapter.hello().name, "echo-std");
    let inputs: [&[u8]; 4] = [
        b"",
        b"\xE4\xBD",
        b"a\xF1\x80\x80\xE1\x80\xC2b",
        b"\xEF\xBB\xBFA",
    ];
    let answers = adapter.decode_batch(&inputs).complete().unwrap();
    for (input, answer) in inputs.iter().zip(answers) {
        let answer = answer.unwrap();
        let reference = Reference::rfc3629().outcome("reference", input);
        assert_eq!(answer.valid, reference.valid);
        assert_eq!(answer.scalars, reference.scalars);
        assert_eq!(answer.decoder, "echo-std");
    }
    let capabilities = adapter.capabilities();
    assert!(capabilities.scalars && capabilities.valid_up_to && capabilities.error_len);
    assert_eq!(adapter.finish(), None, "exits 0 at end of input");
}

#[test]
fn a_crash_is_a_finding_then_the_adapter_is_restarted() {
    if !python_available() {
        return;
    }
    let adapter = start("crash.py", Duration::from_secs(5));
    let answers = adapter
        .decode_batch(&[A, b"x\xFFy", B, b"\xFF", A])
        .complete()
        .unwrap();
    assert!(answers[0].is_ok());
    let failure = answers[1].as_ref().unwrap_err();
    assert_eq!(failure.kind, FailureKind::Crash);
    assert!(
        failure.message.contains("crash.py: dying"),
        "{}",
        failure.message
    );
    assert_eq!(answers[2].as_ref().unwrap().scalars, Some(vec![0x62]));
    assert_eq!(answers[3].as_ref().unwrap_err().kind, FailureKind::Crash);
    assert!(answers[4].is_ok());
    // Each crash input is retried once on a fresh process (and crashes again): 4 restarts.
    assert_eq!(adapter.statistics().restarts, 4);
    assert_eq!(adapter.statistics().flaky_crashes, 0);
}

#[test]
fn a_hang_is_a_timeout_within_the_limit_and_never_blocks() {
    if !python_available() {
        return;
    }
    let adapter = start("hang.py", Duration::from_millis(400));
    let started = Instant::now();
    let answers = adapter.decode_batch(&[A, b"\xFE", B]).complete().unwrap();
    let elapsed = started.elapsed();
    assert!(answers[0].is_ok());
    assert_eq!(answers[1].as_ref().unwrap_err().kind, FailureKind::Timeout);
    assert_eq!(answers[2].as_ref().unwrap().scalars, Some(vec![0x62]));
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
}

#[test]
fn a_large_frame_to_a_hung_adapter_does_not_block_the_harness() {
    if !python_available() {
        return;
    }
    // 4 MiB is far more than a pipe buffer: the write would block if it were not on its
    // own thread.
    let adapter = start("hang.py", Duration::from_millis(400));
    let large = vec![0xFEu8; 4 << 20];
    let started = Instant::now();
    let answers = adapter
        .decode_batch(&[&large, &large, A])
        .complete()
        .unwrap();
    assert_eq!(answers[0].as_ref().unwrap_err().kind, FailureKind::Timeout);
    assert_eq!(answers[1].as_ref().unwrap_err().kind, FailureKind::Timeout);
    assert!(answers[2].is_ok());
    assert!(started.elapsed() < Duration::from_secs(8));
}

#[test]
fn a_garbage_line_is_a_protocol_finding() {
    if !python_available() {
        return;
    }
    let adapter = start("garbage.py", Duration::from_secs(5));
    let answers = adapter.decode_batch(&[A, b"\xFD", B]).complete().unwrap();
    assert!(answers[0].is_ok());
    let failure = answers[1].as_ref().unwrap_err();
    assert_eq!(failure.kind, FailureKind::Protocol);
    assert!(failure.message.contains("not JSON"), "{}", failure.message);
    assert!(answers[2].is_ok());
}

#[test]
fn a_slow_adapter_is_answered_correctly_or_times_out_under_a_short_limit() {
    if !python_available() {
        return;
    }
    let adapter = start("slow.py", Duration::from_secs(3));
    let answers = adapter
        .decode_batch(&[A, b"\xC0\x80", B])
        .complete()
        .unwrap();
    assert!(answers.iter().all(Result::is_ok));
    assert_eq!(
        answers[1].as_ref().unwrap().scalars,
        Some(vec![0xFFFD, 0xFFFD])
    );
    let impatient = start("slow.py", Duration::from_millis(10));
    let answers = impatient.decode_batch(&[A]).complete().unwrap();
    assert_eq!(answers[0].as_ref().unwrap_err().kind, FailureKind::Timeout);
}

fn start_error(argv: Vec<String>) -> String {
    let mut config = AdapterConfig::new(argv);
    config.hello_timeout = Duration::from_secs(1);
    let started = Instant::now();
    let error = match ExternalDecoder::start(config) {
        Ok(_) => panic!("started"),
        Err(error) => error.0,
    };
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!error.contains('\n'), "one line: {error}");
    error
}

#[test]
fn adapters_that_cannot_start_are_clear_errors() {
    let missing = start_error(vec!["/nonexistent/utf8conf-adapter".into()]);
    assert!(missing.contains("no such program"), "{missing}");
    let not_executable = start_error(vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/adapters/README.md")
        .to_string_lossy()
        .into_owned()]);
    assert!(
        not_executable.contains("not executable"),
        "{not_executable}"
    );
    if !python_available() {
        return;
    }
    let no_hello = start_error(test_adapter("nohello.py"));
    assert!(no_hello.contains("no hello line within"), "{no_hello}");
    let bad_hello = start_error(test_adapter("badhello.py"));
    assert!(
        bad_hello.contains("unsupported protocol \"utf8conf/999\""),
        "{bad_hello}"
    );
    let exits = start_error(vec![
        "python3".into(),
        "-c".into(),
        "import sys; sys.exit(4)".into(),
    ]);
    assert!(exits.contains("before its hello"), "{exits}");
}
