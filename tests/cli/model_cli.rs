//! `utf8conf model` end to end: the JSON it prints validates against
//! `schemas/model.schema.json`, a correct decoder exits 0 with no difference, and a
//! planted bug exits 1 with its one finding; the recognition names the known decoder a
//! machine behaves like.

use crate::common::{assert_valid, schema_validator};
use std::process::Command;

use serde_json::Value;

fn model(decoder: &str) -> (i32, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(["model", "--decoder", decoder])
        .output()
        .expect("utf8conf runs");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{decoder}: not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap_or(-1), json)
}

#[test]
fn model_json_validates_and_diagnoses() {
    let validator = schema_validator("model.schema.json");
    let (code, json) = model("std");
    assert_valid(&validator, &json, "std");
    assert_eq!(code, 0);
    assert_eq!(json["equivalent"], true);
    assert!(json["model"]["queries"]["decodes"].as_u64().unwrap() > 0);
    let recognition = &json["recognition"];
    let alike = crate::common::behaves_like(recognition);
    assert!(
        alike.contains(&"std") && alike.contains(&"reference"),
        "{recognition:#}"
    );

    let (code, json) = model("planted-overlong-3");
    assert_valid(&validator, &json, "planted-overlong-3");
    assert_eq!(code, 1);
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["category"], "overlong-3");
    assert_eq!(findings[0]["behaviour"], "accepts-ill-formed");
    assert_eq!(findings[0]["witness"], "E0 80 80");
    // No known decoder accepts 3-byte overlongs alone: the closest is named, with the
    // differences.
    let recognition = &json["recognition"];
    assert_eq!(recognition["behaves_like"].as_array().unwrap().len(), 0);
    let closest = &recognition["closest"][0];
    assert!(closest["families"].as_u64().unwrap() > 0, "{recognition:#}");
    assert!(!closest["shown"].as_array().unwrap().is_empty());

    // The schema is not vacuous: a finding without its behaviour is rejected.
    let mut broken = json.clone();
    broken["findings"][0]
        .as_object_mut()
        .unwrap()
        .remove("behaviour");
    assert!(!validator.is_valid(&broken));
}
