//! Every expectation in the published reference data, checked against the oracle.
//!
//! The published data (Kuhn's stress test, flenniken's utf8tests, wakaba's error lists,
//! CPython's tables, and the cases gathered from encoding_rs, bstr, Rust std, simdutf8,
//! simdutf, WPT, Go and CPython) is kept beside the repository, not in it, so these tests
//! read it from the directory named by `UTF8CONF_PUBLISHED` and are `#[ignore]`d: a clone
//! without that directory still passes `cargo test`. CI runs them with
//!
//! ```text
//! UTF8CONF_PUBLISHED=../shared/published cargo test --test published -- --ignored
//! ```
//!
//! The oracle is one function, [`oracle`]. Where a published expectation disagrees with it,
//! the case must be listed in [`KNOWN_DISAGREEMENTS`] with the reason (which side the
//! specification supports, and where it says so); any other disagreement fails the test.
//! Expectations that follow a different *policy* are not disagreements: they are checked
//! under their own policy where that is possible (flenniken's "skip", wakaba's BOM
//! handling) and counted by name where it is not (the count Kuhn's layout implies).
//!
//! This file holds the oracle, the tally of findings and the helpers every suite uses; each
//! suite (a published file or folder) has its own module: [`published_vectors`], [`kuhn`],
//! [`cpython`], [`flenniken`], [`wakaba`]; [`all_inputs`] checks the two oracles agree on
//! every published input.

mod all_inputs;
mod cpython;
mod flenniken;
mod kuhn;
mod published_vectors;
mod wakaba;

use std::collections::BTreeMap;
use std::path::PathBuf;

use utf8conf::hex::{format_hex, parse_hex};
use utf8conf::outcome::ErrorLen;
use utf8conf::reference::Reference;

/// What the oracle says about one input.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OracleOutcome {
    /// Strict verdict (RFC 3629 §4).
    valid: bool,
    /// Offset of the first error; `None` when valid.
    valid_up_to: Option<usize>,
    /// Length of the first error unit; `None` when valid.
    error_len: Option<ErrorLen>,
    /// Lossy decode, one U+FFFD per maximal subpart (Unicode §3.9).
    scalars: Vec<u32>,
    /// Every error unit (maximal subpart) as `(offset, len)`, in input order.
    errors: Vec<(usize, usize)>,
}

/// The oracle every published expectation is checked against: the ABNF reference decoder.
/// Rust std, an independent implementation of the same semantics, must agree on every
/// published input too, so a disagreement between the two fails loudly here rather than
/// being blamed on the published data.
fn oracle(bytes: &[u8]) -> OracleOutcome {
    let reference = reference_oracle(bytes);
    assert_eq!(
        reference,
        std_oracle(bytes),
        "reference and std disagree on {bytes:02X?}"
    );
    reference
}

/// Rust std: `from_utf8` for the strict result, `from_utf8_lossy` for the scalars and
/// `utf8_chunks` for the error units (std substitutes one U+FFFD per maximal subpart).
fn std_oracle(bytes: &[u8]) -> OracleOutcome {
    let first_error = std::str::from_utf8(bytes).err();
    let mut errors = Vec::new();
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            errors.push((offset, chunk.invalid().len()));
            offset += chunk.invalid().len();
        }
    }
    OracleOutcome {
        valid: first_error.is_none(),
        valid_up_to: first_error.map(|error| error.valid_up_to()),
        error_len: first_error.map(|error| ErrorLen::from_std(error.error_len())),
        scalars: String::from_utf8_lossy(bytes)
            .chars()
            .map(u32::from)
            .collect(),
        errors,
    }
}

/// The reference decoder: RFC 3629 §4's ABNF, interpreted.
fn reference_oracle(bytes: &[u8]) -> OracleOutcome {
    let decoded = Reference::rfc3629().decode(bytes);
    let first_error = decoded.first_error();
    OracleOutcome {
        valid: decoded.is_valid(),
        valid_up_to: first_error.map(|(valid_up_to, _)| valid_up_to),
        error_len: first_error.map(|(_, error_len)| error_len),
        errors: decoded
            .errors
            .iter()
            .map(|error| (error.offset, error.len))
            .collect(),
        scalars: decoded.scalars,
    }
}

const REPLACEMENT_CHARACTER: u32 = 0xFFFD;

/// Bytes that print as hex pairs in failure messages.
#[derive(PartialEq, Eq)]
struct Bytes(Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}]", format_hex(&self.0))
    }
}

/// Scalar values that print as `U+XXXX` in failure messages.
#[derive(PartialEq, Eq)]
struct Scalars(Vec<u32>);

impl std::fmt::Debug for Scalars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.0.iter().map(|s| format!("U+{s:04X}")).collect();
        write!(f, "[{}]", names.join(" "))
    }
}

/// A published expectation the oracle disagrees with, on purpose: the published side is
/// wrong by the specification, or tests something other than UTF-8 decoding.
struct KnownDisagreement {
    /// The suite (file) the case is in.
    suite: &'static str,
    /// The case key as [`Finding::case`] spells it.
    case: &'static str,
    /// Which side is right and why, citing the specification.
    reason: &'static str,
}

/// No published expectation is known to contradict RFC 3629 §4 / Unicode §3.9: when the
/// data was last reviewed, every expectation matched the oracle or followed a named policy
/// (below). A disagreement found later is listed here once its cause is established.
const KNOWN_DISAGREEMENTS: &[KnownDisagreement] = &[];

/// One expectation that does not match the oracle.
#[derive(Debug)]
struct Finding {
    suite: &'static str,
    case: String,
    aspect: &'static str,
    published: String,
    oracle: String,
}

/// One expectation that follows another policy than maximal-subpart decoding.
#[derive(Debug)]
struct PolicyDifference {
    policy: &'static str,
    case: String,
    detail: String,
}

/// The bookkeeping of one suite: how many expectations were checked, what disagreed,
/// what followed another policy.
struct Tally {
    suite: &'static str,
    checked: usize,
    findings: Vec<Finding>,
    policy_differences: Vec<PolicyDifference>,
}

impl Tally {
    fn new(suite: &'static str) -> Tally {
        Tally {
            suite,
            checked: 0,
            findings: Vec::new(),
            policy_differences: Vec::new(),
        }
    }

    /// Records one expectation: `published` should equal `from_oracle`.
    fn expect<T: PartialEq + std::fmt::Debug>(
        &mut self,
        case: &str,
        aspect: &'static str,
        published: T,
        from_oracle: T,
    ) {
        self.checked += 1;
        if published != from_oracle {
            self.findings.push(Finding {
                suite: self.suite,
                case: case.to_string(),
                aspect,
                published: format!("{published:?}"),
                oracle: format!("{from_oracle:?}"),
            });
        }
    }

    fn policy(&mut self, policy: &'static str, case: &str, detail: String) {
        self.policy_differences.push(PolicyDifference {
            policy,
            case: case.to_string(),
            detail,
        });
    }

    /// Prints the summary and fails on any disagreement not explained in
    /// [`KNOWN_DISAGREEMENTS`] (and on entries there that no longer occur).
    fn finish(self) {
        let known_here: Vec<&KnownDisagreement> = KNOWN_DISAGREEMENTS
            .iter()
            .filter(|known| known.suite == self.suite)
            .collect();
        let mut unexplained = Vec::new();
        let mut explained = 0;
        for finding in &self.findings {
            match known_here.iter().find(|known| known.case == finding.case) {
                Some(known) => {
                    explained += 1;
                    println!(
                        "{}: known disagreement {} ({}): {}",
                        finding.suite, finding.case, finding.aspect, known.reason
                    );
                }
                None => unexplained.push(finding),
            }
        }
        let stale: Vec<&str> = known_here
            .iter()
            .filter(|known| !self.findings.iter().any(|f| f.case == known.case))
            .map(|known| known.case)
            .collect();
        let mut by_policy: BTreeMap<&str, Vec<&PolicyDifference>> = BTreeMap::new();
        for difference in &self.policy_differences {
            by_policy
                .entry(difference.policy)
                .or_default()
                .push(difference);
        }
        println!(
            "{}: {} expectations checked against the oracle, {} known disagreements, {} unexplained",
            self.suite,
            self.checked,
            explained,
            unexplained.len()
        );
        for (policy, differences) in &by_policy {
            println!(
                "{}: policy difference \"{policy}\": {} cases",
                self.suite,
                differences.len()
            );
            for difference in differences {
                println!("    {}: {}", difference.case, difference.detail);
            }
        }
        let mut failures: Vec<String> = unexplained
            .iter()
            .map(|f| {
                format!(
                    "{} {} ({}): published {} but oracle {}",
                    f.suite, f.case, f.aspect, f.published, f.oracle
                )
            })
            .collect();
        failures.extend(stale.iter().map(|case| {
            format!(
                "{} {case}: listed as a known disagreement but now agrees",
                self.suite
            )
        }));
        assert!(
            failures.is_empty(),
            "{} unexplained:\n{}",
            failures.len(),
            failures.join("\n")
        );
        assert!(self.checked > 0, "{}: nothing was checked", self.suite);
    }
}

/// The directory holding the published data.
fn published_dir() -> PathBuf {
    let directory = std::env::var_os("UTF8CONF_PUBLISHED").expect(
        "set UTF8CONF_PUBLISHED to the directory of the published data (e.g. ../shared/published)",
    );
    PathBuf::from(directory)
}

fn read_published(name: &str) -> Vec<u8> {
    let path = published_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

fn read_json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&read_published(name))
        .unwrap_or_else(|error| panic!("parsing {name}: {error}"))
}

fn bytes_of(hex: &str) -> Vec<u8> {
    parse_hex(hex).unwrap_or_else(|error| panic!("hex {hex:?}: {error}"))
}

/// `["U+0061", "U+FFFD"]` as scalar values.
fn scalars_of_json(value: &serde_json::Value) -> Vec<u32> {
    value
        .as_array()
        .expect("a list of U+XXXX strings")
        .iter()
        .map(|item| {
            let text = item.as_str().expect("a U+XXXX string");
            let digits = text.strip_prefix("U+").expect("U+ prefix");
            u32::from_str_radix(digits, 16).expect("hex scalar")
        })
        .collect()
}

/// `{"valid_up_to": 4, "error_len": null}` (or `null` for valid) in the oracle's shape.
fn first_error_of_json(value: &serde_json::Value) -> Option<(usize, ErrorLen)> {
    if value.is_null() {
        return None;
    }
    let valid_up_to = value["valid_up_to"].as_u64().expect("valid_up_to") as usize;
    let error_len = value["error_len"].as_u64().map(|len| len as usize);
    Some((valid_up_to, ErrorLen::from_std(error_len)))
}

fn first_error_of(outcome: &OracleOutcome) -> Option<(usize, ErrorLen)> {
    outcome.valid_up_to.zip(outcome.error_len)
}

/// The UTF-8 encoding of a list of scalar values.
fn encode(scalars: &[u32]) -> Vec<u8> {
    scalars
        .iter()
        .map(|&scalar| char::from_u32(scalar).expect("scalar value"))
        .collect::<String>()
        .into_bytes()
}

/// The input with every error unit dropped: what a "skip" (ignore) policy returns.
fn without_error_units(bytes: &[u8], errors: &[(usize, usize)]) -> Vec<u8> {
    let mut kept = Vec::with_capacity(bytes.len());
    let mut offset = 0;
    for &(start, len) in errors {
        kept.extend_from_slice(&bytes[offset..start]);
        offset = start + len;
    }
    kept.extend_from_slice(&bytes[offset..]);
    kept
}

/// Every case of a JSON file's `cases` list with its input bytes.
fn json_cases(json: &serde_json::Value) -> Vec<(&serde_json::Value, Vec<u8>)> {
    json["cases"]
        .as_array()
        .expect("a cases list")
        .iter()
        .map(|case| {
            (
                case,
                bytes_of(case["input_hex"].as_str().expect("input_hex")),
            )
        })
        .collect()
}

#[test]
fn the_oracles_agree_on_a_worked_example() {
    let bytes = [0xE1, 0x80, 0xE2, 0xF0, 0x91, 0x92, 0xF1, 0xBF, 0x41];
    let outcome = oracle(&bytes);
    assert_eq!(outcome, reference_oracle(&bytes));
    assert_eq!(outcome.errors, [(0, 2), (2, 1), (3, 3), (6, 2)]);
    assert_eq!(first_error_of(&outcome), Some((0, ErrorLen::Invalid(2))));
}
