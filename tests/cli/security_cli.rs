//! `--fail-on` and the security impact end to end, on test adapters with one planted
//! behaviour each (tests/adapters/): a decoder whose only finding is a U+FFFD policy
//! difference passes `--fail-on high`; one that accepts `C0 AF` as "/" and one that
//! silently drops stray continuation bytes fail it, with the class, severity and the
//! exploit-shaped witness the decoder really showed in `conformance.json`.

use crate::common::python_available;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// Runs `utf8conf check --cmd 'python3 tests/adapters/<adapter>.py' --fail-on <severity>`;
/// returns the exit code and the written `conformance.json`, validated by the schema.
fn check_fail_on(adapter: &str, severity: &str) -> (i32, Value) {
    let out: PathBuf =
        std::env::temp_dir().join(format!("utf8conf-sec-{adapter}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        // The learned machine is not graded here (tests/cli/check_cli.rs covers it).
        .args([
            "check",
            "--quiet",
            "--model-time",
            "0",
            "--fail-on",
            severity,
            "--cmd",
        ])
        .arg(format!("python3 tests/adapters/{adapter}.py"))
        .arg("--out")
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("utf8conf runs");
    let report = validated(&out);
    let _ = std::fs::remove_dir_all(&out);
    (output.status.code().unwrap_or(-1), report)
}

/// The written `conformance.json` in `out`, validated by the schema; its Markdown has the
/// security section.
fn validated(out: &std::path::Path) -> Value {
    let report: Value =
        serde_json::from_slice(&std::fs::read(out.join("conformance.json")).unwrap()).unwrap();
    crate::common::assert_valid(
        &crate::common::schema_validator("conformance.schema.json"),
        &report,
        "conformance.json",
    );
    let markdown = std::fs::read_to_string(out.join("conformance.md")).unwrap();
    assert!(markdown.contains("## Security impact"));
    report
}

/// The security class of every finding (each must have one, with a citation).
fn finding_classes(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert!(
                f["security"]["citation"]
                    .as_str()
                    .is_some_and(|c| !c.is_empty()),
                "{f}"
            );
            f["security"]["class"].as_str().unwrap().to_string()
        })
        .collect()
}

fn classes(report: &Value) -> Vec<String> {
    report["departures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["security"]["class"].as_str().unwrap().to_string())
        .collect()
}

#[test]
#[ignore = "slow (a whole check of a Python adapter, about 10 s): .ci/run runs it with --ignored"]
fn fail_on_high_passes_a_decoder_with_only_a_policy_difference() {
    if !python_available() {
        return;
    }
    let (code, report) = check_fail_on("per_byte", "high");
    assert_eq!(code, 0, "{}", report["security"]);
    assert_eq!(report["verdict"], "deviations");
    assert_eq!(report["security"]["highest_severity"], "info");
    assert_eq!(
        report["replacement_policy"]["security"]["class"],
        "replacement-policy"
    );
    assert!(report["security"]["witnesses"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(finding_classes(&report), ["replacement-policy"]);
    // The same decoder fails a CI that cares about every difference: the same check
    // without `--fail-on` (read from the one per-byte check of this binary) exits 1.
    assert_eq!(crate::per_byte_check().0, 1);
}

#[test]
fn fail_on_high_fails_a_decoder_that_accepts_c0_af() {
    if !python_available() {
        return;
    }
    // The check of this adapter is shared with the reproduction tests (it also learns the
    // machine, which does not change the impact).
    let (code, stderr, dir) = crate::overlong_slash_check();
    assert_eq!(*code, 1, "{stderr}");
    let report = validated(&dir.join("report"));
    assert_eq!(report["security"]["highest_severity"], "critical");
    assert!(classes(&report)
        .iter()
        .all(|c| c == "non-shortest-accepted"));
    let witnesses = report["security"]["witnesses"].as_array().unwrap();
    let slash = witnesses
        .iter()
        .find(|w| w["inputs"][1]["input_hex"] == "C0 AF")
        .expect("the C0 AF witness");
    assert_eq!(slash["inputs"][1]["decoded"], serde_json::json!([0x2F]));
    assert_eq!(slash["inputs"][0]["decoded"], serde_json::json!([0x2F]));
    // Most severe first, and each finding and departure carries the witnesses of its class.
    assert_eq!(finding_classes(&report)[0], "non-shortest-accepted");
    assert!(!report["findings"][0]["witnesses"]
        .as_array()
        .unwrap()
        .is_empty());
    assert!(!report["departures"][0]["witnesses"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
#[ignore = "slow (a whole check in the test build, about 5 s): .ci/run runs it with --ignored"]
fn fail_on_high_fails_a_decoder_that_drops_stray_continuation_bytes() {
    if !python_available() {
        return;
    }
    let (code, report) = check_fail_on("drops_continuation", "high");
    assert_eq!(code, 1);
    assert_eq!(report["security"]["highest_severity"], "high");
    assert_eq!(
        report["departures"][0]["security"]["class"],
        "bytes-deleted"
    );
    assert_eq!(report["departures"][0]["security"]["severity"], "high");
    assert_eq!(finding_classes(&report)[0], "bytes-deleted");
    // FF is not a stray continuation byte, so the <scr FF ipt> witness must not appear.
    assert!(report["security"]["witnesses"]
        .as_array()
        .unwrap()
        .iter()
        .all(|w| w["class"] != "bytes-deleted"));
}

/// `run --fail-on`: the CESU-8 mutant's findings are `surrogates-accepted` (medium), so
/// the run fails a `medium` threshold and passes a `critical` one, and its departure
/// reports carry the impact.
#[test]
fn run_fail_on_follows_the_severity_of_the_findings() {
    let out = std::env::temp_dir().join(format!("utf8conf-sec-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = |severity: &str| {
        Command::new(env!("CARGO_BIN_EXE_utf8conf"))
            .args([
                "run",
                "--decoders",
                "mutant-cesu8",
                "--budget",
                "20000i",
                "--quiet",
            ])
            .args(["--threads", "1", "--fail-on", severity, "--out"])
            .arg(&out)
            .output()
            .expect("utf8conf runs")
            .status
            .code()
    };
    assert_eq!(run("medium"), Some(1));
    assert_eq!(run("critical"), Some(0));
    let mut impacts = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let departures = entry.unwrap().path().join("divergences");
        for report in std::fs::read_dir(departures).unwrap() {
            let report: Value =
                serde_json::from_slice(&std::fs::read(report.unwrap().path()).unwrap()).unwrap();
            impacts.push(
                report["finding"]["security"]["class"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    assert!(!impacts.is_empty());
    assert!(
        impacts.iter().all(|c| c == "surrogates-accepted"),
        "{impacts:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
