//! Every published input, from every suite: the two oracles must agree on all of them.

use super::flenniken::{parse_flenniken, FlennikenCase};
use super::wakaba::parse_wakaba;
use super::*;

/// Rust std and the reference decoder agree on every published input, so switching
/// [`oracle`] between them cannot change a verdict of the tests above.
#[test]
#[ignore = "needs the published data: set UTF8CONF_PUBLISHED"]
fn std_and_reference_agree_on_every_published_input() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for name in [
        "published-vectors.json",
        "kuhn-UTF-8-test-cases.json",
        "cpython-test_str-utf8-vectors.json",
    ] {
        let json = read_json(name);
        inputs.extend(json_cases(&json).into_iter().map(|(_, bytes)| bytes));
    }
    let flenniken = String::from_utf8(read_published("flenniken-utf8tests.txt")).expect("ASCII");
    for case in parse_flenniken(&flenniken) {
        match case {
            FlennikenCase::Valid { bytes, .. } | FlennikenCase::Invalid { bytes, .. } => {
                inputs.push(bytes)
            }
        }
    }
    for file in ["utf8-1.dat", "utf8-2.dat", "utf8-3.dat"] {
        let text =
            String::from_utf8(read_published(&format!("wakaba-tests-web/{file}"))).expect("ASCII");
        inputs.extend(parse_wakaba(&text).into_iter().map(|test| test.bytes));
    }
    inputs.push(read_published("UTF-8-test.txt"));
    let disagreements: Vec<String> = inputs
        .iter()
        .filter(|bytes| std_oracle(bytes) != reference_oracle(bytes))
        .map(|bytes| format_hex(bytes))
        .collect();
    assert!(
        disagreements.is_empty(),
        "std and the reference disagree on: {disagreements:?}"
    );
    assert!(inputs.len() > 1500, "only {} inputs", inputs.len());
}
