//! Encoders from the command line, end to end: `check-encoder` on the built-in and
//! planted encoders; `check --encoder --cmd` on the shipped CPython and Node encoder
//! adapters (their policies named), on hostile encoder adapters (held like hostile
//! decoders), and `adapter-test` on both. Reports are checked against
//! schemas/encoder.schema.json. Tests that need python3 or node skip without them.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{encoder_report, node_available, python_available, schema_validator, scratch};
use serde_json::Value;

fn utf8conf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(args)
        .current_dir(crate::common::root())
        .output()
        .expect("the binary runs")
}

/// `check --encoder --cmd COMMAND --out DIR`: the exit code and the report's one grade.
fn check_encoder_cmd(command: &str, test: &str) -> (Option<i32>, Value, String) {
    let out = scratch(test);
    let output = utf8conf(&[
        "check",
        "--encoder",
        "--cmd",
        command,
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = encoder_report(&out);
    assert!(Path::new(&out.join("encoder.md")).exists());
    (output.status.code(), report["encoders"][0].clone(), stderr)
}

fn behaviours(graded: &Value) -> Vec<String> {
    graded["grade"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["behaviour"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn built_in_encoders_pass_and_name_their_policies() {
    let output = utf8conf(&["check-encoder"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("std-from_utf16_lossy: "), "{text}");
    assert!(text.contains("surrogates: replacement-character"), "{text}");
    assert!(
        text.contains("reference: ") && text.contains("surrogates: error"),
        "{text}"
    );
}

#[test]
fn a_planted_encoder_gives_its_finding_as_json() {
    let output = utf8conf(&[
        "check-encoder",
        "--encoder",
        "planted-enc-nul-c080",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    crate::common::assert_valid(
        &schema_validator("encoder.schema.json"),
        &report,
        "check-encoder --json",
    );
    let findings = report["encoders"][0]["grade"]["findings"]
        .as_array()
        .unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["behaviour"], "non-shortest-form");
    assert_eq!(findings[0]["categories"][0], "nul");
    assert_eq!(findings[0]["written"], "C0 80");
    assert_eq!(findings[0]["severity"], "critical");
}

#[test]
fn an_unknown_encoder_is_one_line_and_exit_2() {
    let output = utf8conf(&["check-encoder", "--encoder", "nope\u{1b}[31m"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.contains('\u{1b}'));
}

/// CPython under each error handler: strict refuses (the error policy, no finding);
/// surrogatepass writes surrogates as three bytes, a WTF-8-style encoder of surrogates
/// with the finding that says so; replace writes '?'; surrogateescape writes DC80 as the
/// lone byte 80 (and its refusal of D800 after an escaped DC80 names element 1, which a
/// refusal without the bytes before it cannot justify).
#[test]
fn cpython_str_encode_is_graded_with_its_policy_named() {
    if !python_available() {
        return;
    }
    let cases = [
        ("strict", Some(0), "error", vec![]),
        (
            "surrogatepass",
            Some(1),
            "wtf8",
            vec!["surrogate-written".to_string()],
        ),
        ("replace", Some(0), "question-mark", vec![]),
        (
            "surrogateescape",
            Some(1),
            "surrogate-escape",
            vec!["escaped-byte".to_string()],
        ),
    ];
    for (handler, exit, policy, findings) in cases {
        let command = format!("python3 adapters/python_encode.py {handler}");
        let (code, graded, stderr) = check_encoder_cmd(&command, &format!("py-enc-{handler}"));
        assert_eq!(code, exit, "{handler}: {stderr}");
        assert_eq!(graded["grade"]["policy"], policy, "{handler}");
        assert_eq!(behaviours(&graded), findings, "{handler}");
        assert_eq!(graded["subject"]["kind"], "adapter");
    }
}

/// JavaScript strings hold lone surrogates; both of Node's encoders write U+FFFD for one.
#[test]
fn node_encoders_write_u_fffd_for_a_lone_surrogate() {
    if !node_available() {
        return;
    }
    for mode in ["textencoder", "buffer"] {
        let command = format!("node adapters/node_encode.js {mode}");
        let (code, graded, stderr) = check_encoder_cmd(&command, &format!("node-enc-{mode}"));
        assert_eq!(code, Some(0), "{mode}: {stderr}");
        assert_eq!(graded["grade"]["policy"], "replacement-character", "{mode}");
        assert!(behaviours(&graded).is_empty(), "{mode}");
    }
}

/// A hostile encoder adapter is held by the decoders' supervisor: a malformed answer is
/// a protocol finding, an exit a crash finding, each on its one input, and an adapter
/// that answers twice is out of step: unusable, one line, exit 2, partial report.
#[test]
fn hostile_encoder_adapters_are_findings_or_unusable() {
    if !python_available() {
        return;
    }
    for (mode, behaviour) in [
        ("bad-byte", "breaks-protocol"),
        ("error-at", "breaks-protocol"),
        ("too-long", "breaks-protocol"),
        ("crash", "crashes"),
    ] {
        let command = format!("python3 tests/adapters/hostile_encoder.py {mode}");
        let (code, graded, stderr) = check_encoder_cmd(&command, &format!("hostile-enc-{mode}"));
        assert_eq!(code, Some(1), "{mode}: {stderr}");
        assert_eq!(behaviours(&graded), vec![behaviour.to_string()], "{mode}");
        let finding = &graded["grade"]["findings"][0];
        assert_eq!(finding["witness"], "utf16: D800", "{mode}");
        assert_eq!(finding["inputs"], 1, "{mode}");
    }
    let (code, graded, stderr) = check_encoder_cmd(
        "python3 tests/adapters/hostile_encoder.py twice",
        "hostile-enc-twice",
    );
    assert_eq!(code, Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("out of step"), "{stderr}");
    assert!(graded["grade"]["stopped_by"]
        .as_str()
        .unwrap()
        .contains("out of step"));
}

/// A decoder adapter is not graded as an encoder, nor an encoder adapter as a decoder.
#[test]
fn the_hello_decides_which_check_an_adapter_gets() {
    if !python_available() {
        return;
    }
    let as_encoder = utf8conf(&[
        "check",
        "--encoder",
        "--cmd",
        "python3 tests/adapters/echo_std.py",
        "--quiet",
    ]);
    assert_eq!(as_encoder.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&as_encoder.stderr);
    assert!(stderr.contains("is a decoder"), "{stderr}");
    let as_decoder = utf8conf(&[
        "check",
        "--cmd",
        "python3 adapters/python_encode.py",
        "--quiet",
    ]);
    assert_eq!(as_decoder.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&as_decoder.stderr);
    assert!(stderr.contains("is an encoder adapter"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// `adapter-test` checks an encoder adapter's side of encode mode: the shipped ones pass,
/// and a misread byte order or an `error_at` past the frame is named.
#[test]
fn adapter_test_checks_encoder_adapters() {
    if !python_available() {
        return;
    }
    let good = utf8conf(&[
        "adapter-test",
        "--cmd",
        "python3 adapters/python_encode.py surrogatepass",
    ]);
    let text = String::from_utf8_lossy(&good.stdout);
    assert_eq!(good.status.code(), Some(0), "{text}");
    assert!(text.contains("encoder of utf16"), "{text}");
    let big_endian = utf8conf(&[
        "adapter-test",
        "--cmd",
        "python3 tests/adapters/hostile_encoder.py big-endian",
    ]);
    let text = String::from_utf8_lossy(&big_endian.stdout);
    assert_eq!(big_endian.status.code(), Some(1), "{text}");
    assert!(text.contains("read little-endian"), "{text}");
    let error_at = utf8conf(&[
        "adapter-test",
        "--cmd",
        "python3 tests/adapters/hostile_encoder.py error-at",
    ]);
    let text = String::from_utf8_lossy(&error_at.stdout);
    assert_eq!(error_at.status.code(), Some(1), "{text}");
    assert!(text.contains("\"error_at\": 3 is not one of"), "{text}");
}

/// `check --round-trip`: std's two directions hold for every scalar; a planted encoder
/// off by one at U+07FF, paired with the reference decoder, fails, and the report (JSON
/// and Markdown) names U+07FF and the bytes DF BF.
#[test]
fn round_trips_hold_for_std_and_name_the_first_failing_value_of_a_planted_pair() {
    let out = scratch("round-trip-std");
    let output = utf8conf(&[
        "check",
        "--round-trip",
        "--pair",
        "std",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let validator = schema_validator("round-trip.schema.json");
    let report = crate::common::read_json(&out.join("round-trip.json"));
    crate::common::assert_valid(&validator, &report, "round-trip.json");
    assert_eq!(report["verdict"], "holds");
    assert_eq!(report["pairs"][0]["scalars_checked"], 1_112_064);

    let out = scratch("round-trip-planted");
    let output = utf8conf(&[
        "check",
        "--round-trip",
        "--pair",
        "planted-enc-off-by-one-07ff",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("first failing U+07FF: encoded as E0 9F BF"),
        "{text}"
    );
    let report = crate::common::read_json(&out.join("round-trip.json"));
    crate::common::assert_valid(&validator, &report, "round-trip.json");
    assert_eq!(report["verdict"], "fails");
    assert_eq!(
        report["pairs"][0]["first_failing_scalar"]["value"],
        "U+07FF"
    );
    assert_eq!(report["pairs"][0]["first_failing_bytes"]["value"], "DF BF");
    // The same in round-trip.md, for a reader.
    let markdown = std::fs::read_to_string(out.join("round-trip.md")).unwrap();
    assert!(markdown.contains("Verdict: **fails**"), "{markdown}");
    assert!(
        markdown.contains("## `reference` + `planted-enc-off-by-one-07ff`"),
        "{markdown}"
    );
    assert!(
        markdown.contains("first failing scalar: `U+07FF`; encoded as E0 9F BF"),
        "{markdown}"
    );
    assert!(
        markdown.contains("first failing input: `DF BF`; decoded as U+07FF"),
        "{markdown}"
    );
}
