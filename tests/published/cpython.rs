//! The suite of `cpython-test_str-utf8-vectors.json`: CPython's `errors="replace"` tables.

use super::*;

/// `cpython-test_str-utf8-vectors.json`: CPython's `errors="replace"` output, and the
/// strict decode must fail on every case.
#[test]
#[ignore = "needs the published data: set UTF8CONF_PUBLISHED"]
fn cpython_json() {
    let json = read_json("cpython-test_str-utf8-vectors.json");
    let mut tally = Tally::new("cpython-test_str-utf8-vectors.json");
    for (case, bytes) in json_cases(&json) {
        let key = format!(
            "{} [{}]",
            case["source"].as_str().expect("source"),
            format_hex(&bytes)
        );
        let outcome = oracle(&bytes);
        tally.expect(
            &key,
            "expected_replace",
            Scalars(scalars_of_json(&case["expected_replace"])),
            Scalars(outcome.scalars.clone()),
        );
        tally.expect(&key, "strict decode fails", false, outcome.valid);
    }
    tally.finish();
}
