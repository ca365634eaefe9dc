//! Hostile and absurd arguments through the binary: argument values that once panicked,
//! wrapped or spawned threads forever are one-line errors with exit 2; I/O errors name
//! their path; `reproduce` names an unsupported schema; `decode` stops endless input.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the binary; returns (exit code, stdout, stderr).
fn utf8conf(args: &[&str]) -> (i32, String, String) {
    crate::common::outputs(crate::common::utf8conf().args(args))
}

fn assert_usage_error(args: &[&str], expected: &str) {
    let (code, _, stderr) = utf8conf(args);
    assert_eq!(code, 2, "{args:?}: {stderr}");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

#[test]
fn huge_budgets_timeouts_and_thread_counts_are_usage_errors() {
    assert_usage_error(
        &["run", "--budget", "18446744073709551615s"],
        "longer than the limit",
    );
    assert_usage_error(
        &["run", "--budget", "307445734561825861m"],
        "longer than the limit",
    );
    assert_usage_error(&["run", "--threads", "18446744073709551615"], "--threads");
    assert_usage_error(&["run", "--threads", "0"], "--threads");
    assert_usage_error(
        &["check", "--cmd", "true", "--timeout", "1.8e19"],
        "--timeout",
    );
    assert_usage_error(
        &["check", "--cmd", "true", "--max-time", "1e30"],
        "--max-time",
    );
}

#[test]
fn run_io_errors_name_the_path() {
    let file = std::env::temp_dir().join(format!("utf8conf-plain-{}", std::process::id()));
    std::fs::write(&file, b"not a directory").unwrap();
    let out = file.join("reports");
    let out = out.to_str().unwrap();
    let (code, _, stderr) = utf8conf(&["run", "--quiet", "--budget", "1s", "--out", out]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(out), "{stderr}");
    let _ = std::fs::remove_file(&file);
}

/// A report is someone else's file: one over 16 MiB is refused before it is parsed, so
/// a 200 MB "report" no longer costs 400 MB of memory.
#[test]
fn reproduce_refuses_a_report_over_16_mib() {
    let path = std::env::temp_dir().join(format!("utf8conf-huge-{}.json", std::process::id()));
    let mut text = br#"{"schema": "utf8conf/divergence/1", "padding": ""#.to_vec();
    text.resize(text.len() + (16 << 20), b'a');
    text.extend_from_slice(b"\"}");
    std::fs::write(&path, &text).unwrap();
    let (code, _, stderr) = utf8conf(&["reproduce", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("over 16 MiB"), "{stderr}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn reproduce_names_an_unsupported_schema() {
    let path = std::env::temp_dir().join(format!("utf8conf-old-{}.json", std::process::id()));
    std::fs::write(
        &path,
        br#"{"schema": "utf8conf/divergence/0", "decoders": []}"#,
    )
    .unwrap();
    let (code, _, stderr) = utf8conf(&["reproduce", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unsupported schema 'utf8conf/divergence/0'"),
        "{stderr}"
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn reproduce_refuses_an_unknown_aspect_in_one_escaped_line() {
    // The aspect is typed: a hostile value fails the read, and the error that quotes it
    // reaches the terminal escaped, on one line.
    let path = std::env::temp_dir().join(format!("utf8conf-aspect-{}.json", std::process::id()));
    let schema = utf8conf::engine::finding_report::FINDING_REPORT_SCHEMA;
    std::fs::write(
        &path,
        format!(r#"{{"schema": "{schema}", "aspect": "\u001b[2J\nvalid"}}"#),
    )
    .unwrap();
    let (code, _, stderr) = utf8conf(&["reproduce", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown variant"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr:?}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn decode_stops_endless_stdin_at_its_limit() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(["decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let block = vec![b'a'; 1 << 20];
        // Ends when the harness stops reading (broken pipe).
        while stdin.write_all(&block).is_ok() {}
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("standard input is larger than decode's limit of 268435456 bytes"),
        "{stderr}"
    );
}

/// SIGTERM during `run` must leave a partial `summary.json` and exit 130 (it once exited
/// with 143 and wrote nothing).
#[cfg(unix)]
#[test]
fn sigterm_during_run_writes_the_summary() {
    let out = std::env::temp_dir().join(format!("utf8conf-sigterm-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let child = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args([
            "run",
            "--quiet",
            "--budget",
            "120s",
            "--threads",
            "1",
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) takes plain integers; `child` is not yet waited for, so its pid is
    // still ours.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{output:?}");
    assert!(stdout.contains("stopped by interrupted"), "{stdout}");
    let run_dir = std::fs::read_dir(&out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary = std::fs::read_to_string(run_dir.join("summary.json")).unwrap();
    assert!(summary.contains("\"interrupted\""), "{summary}");
    let _ = std::fs::remove_dir_all(&out);
}
