//! `utf8conf run` grades through the learned machine as `check` does: a departing
//! decoder's machine is learned and its findings filed through it, so that `run` gives a
//! planted decoder the titles the in-process check gives it; a decoder that does not
//! depart is not learned.

use crate::common::{assert_valid, read_json, schema_validator, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use utf8conf::conformance::{run_check, CheckOptions, Subject};
use utf8conf::corpus::{vectors, Input};

/// Runs `utf8conf run` over `decoders` on the first 20,000 inputs; the run directory.
fn run(decoders: &str, expected_exit: i32) -> PathBuf {
    let out = scratch("run-model");
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args([
            "run",
            "--quiet",
            "--budget",
            "20000i",
            "--decoders",
            decoders,
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(expected_exit), "{output:?}");
    let dirs: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

/// The run's reports, each checked against its schema.
fn reports(dir: &Path, summary: &Value) -> Vec<Value> {
    let validator = schema_validator("divergence.schema.json");
    summary["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| {
            let path = dir
                .join("divergences")
                .join(format!("{}.json", id.as_str().unwrap()));
            let report = read_json(&path);
            assert_valid(&validator, &report, &path.display().to_string());
            report
        })
        .collect()
}

#[test]
fn run_gives_a_planted_decoder_the_findings_check_gives_it() {
    let name = "planted-two-bom-and-overlong";
    let dir = run(name, 1);
    let summary = read_json(&dir.join("summary.json"));
    assert_valid(
        &schema_validator("summary.schema.json"),
        &summary,
        "summary.json",
    );
    let models = summary["models"].as_array().expect("a model was learned");
    assert_eq!(models.len(), 1, "{models:?}");
    assert_eq!(models[0]["decoder"], name);
    assert!(models[0]["queries"].as_u64().unwrap() > 0);
    assert!(models[0]["model"]["model"]["incomplete"].is_null());
    let reports = reports(&dir, &summary);
    let mut from_run: Vec<String> = reports
        .iter()
        .map(|report| {
            assert_eq!(
                report["model"]["decoder"], name,
                "each report carries the model"
            );
            report["finding"]["title"].as_str().unwrap().to_string()
        })
        .collect();
    from_run.sort();

    // The machine's findings do not depend on the inputs, and the embedded vectors show
    // both bugs: the check over them (not its 351,716 inputs) keeps the test quick.
    let decoder = utf8conf::decoders::by_name(name).unwrap();
    let inputs: Vec<Input> = vectors::embedded()
        .unwrap()
        .into_iter()
        .map(Input::from)
        .collect();
    let check = run_check(
        Subject::InProcess(decoder.as_ref()),
        &inputs,
        &CheckOptions::default(),
        &mut |_, _| {},
    );
    let mut from_check: Vec<String> = check.findings.iter().map(|f| f.title.clone()).collect();
    from_check.sort();
    assert_eq!(from_run, from_check);
    // The bugs are the machine's mechanisms, not rule-based groups.
    assert!(reports.iter().all(|r| r["finding"]["model"].is_object()));
}

#[test]
fn a_decoder_that_does_not_depart_is_not_learned() {
    let dir = run("std", 0);
    let summary = read_json(&dir.join("summary.json"));
    assert!(summary.get("models").is_none(), "{summary}");
    assert_eq!(summary["reports"].as_array().unwrap().len(), 0);
}
