//! The suite of `published-vectors.json`: cases gathered from encoding_rs, bstr, Rust std,
//! simdutf8, simdutf, WPT, Go and CPython.

use super::*;

/// `published-vectors.json`: the published expectation of each case (`expected_replace`,
/// `expected_valid` or `expected_first_error`) and the independent maximal-subpart
/// decoder's answer recorded beside it (`reference_replace`, `reference_first_error`).
#[test]
#[ignore = "needs the published data: set UTF8CONF_PUBLISHED"]
fn published_vectors_json() {
    let json = read_json("published-vectors.json");
    let mut tally = Tally::new("published-vectors.json");
    for (case, bytes) in json_cases(&json) {
        let key = format!(
            "{} [{}]",
            case["source"].as_str().expect("source"),
            format_hex(&bytes)
        );
        let outcome = oracle(&bytes);
        if let Some(expected) = case.get("expected_replace") {
            tally.expect(
                &key,
                "expected_replace",
                Scalars(scalars_of_json(expected)),
                Scalars(outcome.scalars.clone()),
            );
        }
        if let Some(expected) = case.get("expected_valid") {
            tally.expect(
                &key,
                "expected_valid",
                expected.as_bool().expect("bool"),
                outcome.valid,
            );
        }
        if let Some(expected) = case.get("expected_first_error") {
            tally.expect(
                &key,
                "expected_first_error",
                first_error_of_json(expected),
                first_error_of(&outcome),
            );
        }
        tally.expect(
            &key,
            "reference_replace",
            Scalars(scalars_of_json(&case["reference_replace"])),
            Scalars(outcome.scalars.clone()),
        );
        tally.expect(
            &key,
            "reference_first_error",
            first_error_of_json(&case["reference_first_error"]),
            first_error_of(&outcome),
        );
    }
    tally.finish();
}
