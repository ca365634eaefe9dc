//! `utf8conf check --lib` on libraries that fail whatever the input (tests/c-lib/
//! unreliable.c, built here with the system C compiler): each check ends in bounded time
//! with the documented exit code and verdict, writes a schema-valid report, blames no
//! input for a failure of the library's age, and leaves no worker behind. The guarantees
//! tested are those of docs/PROTOCOL.md, "What the harness guarantees", which apply to
//! `--lib` as to `--cmd` (adapters/README.md, "C and C++ libraries").
#![cfg(target_os = "linux")]

use crate::common::{
    build_c_library, conformance_report as report, processes_with, scratch_dir as scratch,
};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A scratch folder named `name` with its own build of tests/c-lib/unreliable.c (its own
/// path, so that a test sees only its own workers), and the report folder in it.
fn unreliable_library(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = scratch(name);
    let library = build_c_library("unreliable", &dir);
    let out = dir.join("report");
    (dir, library, out)
}

fn start_check(library: &Path, symbol: &str, out: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(["check", "--quiet", "--lib"])
        .arg(library)
        .args(["--symbol", symbol, "--out"])
        .arg(out)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("utf8conf runs")
}

/// Runs a check to its end: (exit code, stderr, seconds).
fn check(library: &Path, symbol: &str, out: &Path, args: &[&str]) -> (i32, String, f64) {
    let started = Instant::now();
    let output = start_check(library, symbol, out, args)
        .wait_with_output()
        .expect("utf8conf runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let code = output.status.code().expect("exited, not killed");
    (code, stderr, started.elapsed().as_secs_f64())
}

/// No worker of `library` is left (allowing a moment for the kernel to reap).
fn assert_no_worker_left(library: &Path) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = processes_with(library.to_str().unwrap());
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "workers left behind: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The departures of a report that are crashes or timeouts.
fn failure_departures(report: &Value) -> usize {
    report["departures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["aspect"] == "crash" || d["aspect"] == "timeout")
        .count()
}

#[test]
fn a_library_that_hangs_on_every_call_is_unusable_within_seconds() {
    let (_, library, out) = unreliable_library("hang");
    let (code, stderr, seconds) = check(
        &library,
        "unreliable_hang_always",
        &out,
        &["--timeout", "0.5"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("adapter unusable"), "{stderr}");
    assert!(stderr.contains("ASCII input 61"), "{stderr}");
    // Two inputs and a retry, then the probe: four time limits of 0.5 s, and start-up.
    assert!(seconds < 10.0, "took {seconds} s");
    assert_eq!(report(&out)["verdict"], "adapter-unusable");
    assert_no_worker_left(&library);
}

#[test]
fn max_time_stops_a_call_that_never_returns() {
    let (_, library, out) = unreliable_library("max-time");
    let (code, stderr, seconds) = check(
        &library,
        "unreliable_hang_always",
        &out,
        &["--timeout", "60", "--max-time", "2"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--max-time"), "{stderr}");
    assert!(seconds < 6.0, "--max-time 2 took {seconds} s");
    let report = report(&out);
    assert_eq!(report["verdict"], "incomplete");
    assert_eq!(report["summary"]["partial"], true);
    assert_no_worker_left(&library);
}

#[test]
fn sigterm_during_a_hung_call_writes_a_partial_report_within_2_seconds() {
    let (dir, library, _) = unreliable_library("sigterm");
    // (A library that exits on every call is unusable within about a second, before any
    // signal: `failures_every_nth_call_are_...` checks that.)
    let symbol = "unreliable_hang_always";
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let out = dir.join(format!("report-{signal}"));
        // Long limits: only the signal can end these checks early.
        let child = start_check(&library, symbol, &out, &["--timeout", "60"]);
        std::thread::sleep(Duration::from_millis(1500));
        let signalled = Instant::now();
        // SAFETY: kill(2) with the pid of our own unreaped child.
        unsafe {
            libc::kill(child.id() as libc::pid_t, signal);
        }
        let output = child.wait_with_output().unwrap();
        let waited = signalled.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{symbol}: {stderr}");
        assert!(waited < Duration::from_secs(2), "{symbol}: {waited:?}");
        assert_eq!(report(&out)["summary"]["partial"], true, "{symbol}");
        assert_no_worker_left(&library);
    }
}

#[test]
fn the_worker_dies_with_the_harness_even_when_its_call_never_returns() {
    let (dir, library, _) = unreliable_library("sigkill");
    let mut child = start_check(
        &library,
        "unreliable_hang_always",
        &dir.join("report"),
        &["--timeout", "60"],
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !processes_with(library.to_str().unwrap()).is_empty(),
        "a worker runs while the harness does"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_no_worker_left(&library);
}

#[test]
fn failures_every_nth_call_are_a_pattern_not_departures_of_innocent_inputs() {
    let (dir, library, _) = unreliable_library("every-nth");
    for (symbol, calls) in [
        ("unreliable_crash_every_100", "100"),
        ("unreliable_exit_at_1000", "1000"),
        ("unreliable_exit_always", ""),
    ] {
        let out = dir.join(format!("report-{symbol}"));
        let (code, stderr, seconds) = check(&library, symbol, &out, &["--timeout", "0.5"]);
        assert_eq!(code, 2, "{symbol}: {stderr}");
        assert!(seconds < 20.0, "{symbol} took {seconds} s");
        let report = report(&out);
        assert_eq!(report["verdict"], "adapter-unusable", "{symbol}");
        if calls.is_empty() {
            // Fails on every call: the probe input fails too.
            assert!(stderr.contains("ASCII input 61"), "{stderr}");
            continue;
        }
        let pattern = format!("fails after about {calls} calls in every process");
        assert!(stderr.contains(&pattern), "{symbol}: {stderr}");
        assert_eq!(
            failure_departures(&report),
            0,
            "{symbol}: no input is blamed"
        );
        assert!(report["summary"]["flaky_crashes"].as_u64().unwrap() >= 3);
        assert!(
            report["summary"]["restarts"].as_u64().unwrap() >= 3,
            "{symbol}"
        );
        assert_no_worker_left(&library);
    }
}

#[test]
fn a_leaking_library_dies_at_its_memory_limit_and_is_unusable() {
    let (_, library, out) = unreliable_library("leak");
    let (code, stderr, seconds) = check(
        &library,
        "unreliable_leak",
        &out,
        &["--timeout", "0.5", "--memory-limit", "128"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(seconds < 20.0, "took {seconds} s");
    assert!(stderr.contains("in every process"), "{stderr}");
    assert!(stderr.contains("memory limit"), "{stderr}");
    let report = report(&out);
    assert!(report["summary"]["memory_kills"].as_u64().unwrap() >= 3);
    assert_eq!(failure_departures(&report), 0, "no input is blamed");
    assert_no_worker_left(&library);
}

/// At the default limits a leaking worker lives about 8,000 calls, longer than one batch
/// of inputs: its deaths fall in the middle of batches, where no input can be blamed, and
/// the age pattern must still see them (docs/PROTOCOL.md, "What the harness guarantees":
/// a leaking library stops within 30 s at the default limits, as unusable).
#[test]
fn a_leaking_library_is_unusable_at_the_default_limits() {
    let (_, library, out) = unreliable_library("leak-default");
    let (code, stderr, seconds) = check(&library, "unreliable_leak", &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(seconds < 30.0, "took {seconds} s");
    assert!(stderr.contains("in every process"), "{stderr}");
    let report = report(&out);
    assert_eq!(report["verdict"], "adapter-unusable");
    assert_eq!(failure_departures(&report), 0, "no input is blamed");
    assert_no_worker_left(&library);
}

#[test]
fn a_function_that_fails_on_every_input_is_unusable_not_deviating() {
    let (_, library, out) = unreliable_library("fail");
    let (code, stderr, _) = check(&library, "unreliable_fail_always", &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("adapter unusable"), "{stderr}");
    assert!(stderr.contains("returned -1"), "{stderr}");
    assert_eq!(report(&out)["verdict"], "adapter-unusable");
}

#[test]
fn a_correct_library_at_50_ms_an_answer_is_slow_never_unusable() {
    let (_, library, out) = unreliable_library("slow");
    // A time limit per call of 0.5 s: a batch takes far longer, but every call is 50 ms.
    let (code, stderr, _) = check(
        &library,
        "unreliable_slow",
        &out,
        &["--timeout", "0.5", "--max-time", "3"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--max-time"), "{stderr}");
    assert!(!stderr.contains("unusable"), "{stderr}");
    let report = report(&out);
    assert_eq!(report["verdict"], "incomplete");
    assert_eq!(report["summary"]["departures"], 0);
    assert_eq!(report["summary"]["restarts"], 0);
    assert!(report["summary"]["inputs"].as_u64().unwrap() >= 20);
    assert_no_worker_left(&library);
}

#[test]
fn an_explicit_out_is_never_overwritten_without_force_nor_claimed_twice() {
    let (dir, library, out) = unreliable_library("out");
    let fail = "unreliable_fail_always";
    let (code, stderr, _) = check(&library, fail, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    let first = std::fs::read_to_string(out.join("conformance.json")).unwrap();
    // An existing report is refused, and left as it was.
    let (code, stderr, _) = check(&library, fail, &out, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.join("conformance.json")).unwrap(),
        first
    );
    // --force replaces it, and leaves no staging directory or lock beside it.
    std::fs::write(out.join("stale.txt"), "from before").unwrap();
    let (code, stderr, _) = check(&library, fail, &out, &["--force"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(!out.join("stale.txt").exists(), "replaced, not merged");
    report(&out);
    let beside: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
    // While one check writes a directory, another with the same --out is refused.
    let busy = dir.join("busy");
    let running = start_check(
        &library,
        "unreliable_hang_always",
        &busy,
        &["--timeout", "60"],
    );
    std::thread::sleep(Duration::from_millis(1000));
    let (code, stderr, _) = check(&library, fail, &busy, &["--force"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("being written by another"), "{stderr}");
    // SAFETY: kill(2) with the pid of our own unreaped child.
    unsafe {
        libc::kill(running.id() as libc::pid_t, libc::SIGTERM);
    }
    let output = running.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(report(&busy)["summary"]["partial"], true);
    assert_no_worker_left(&library);
}
