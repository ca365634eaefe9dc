//! `utf8conf check-encoder` end to end: the built-in encoders pass with their policies
//! named, a planted encoder's finding comes back as JSON with exit 1, and an unknown name
//! is one line on stderr with exit 2.

use std::process::Command;

fn utf8conf(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(args)
        .output()
        .expect("the binary runs")
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
    let grades: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let findings = grades[0]["findings"].as_array().unwrap();
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
