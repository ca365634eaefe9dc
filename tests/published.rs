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

use std::collections::BTreeMap;
use std::path::PathBuf;

use utf8conf::hex::{format_hex, parse_hex};
use utf8conf::reference::Reference;

/// What the oracle says about one input.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OracleOutcome {
    /// Strict verdict (RFC 3629 §4).
    valid: bool,
    /// Offset of the first error; `None` when valid.
    valid_up_to: Option<usize>,
    /// Length of the first error unit in std's shape (`Some(None)`: an incomplete
    /// character at the end of input); `None` when valid.
    error_len: Option<Option<usize>>,
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
        error_len: first_error.map(|error| error.error_len()),
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
        error_len: first_error.map(|(_, error_len)| error_len.to_std()),
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
fn first_error_of_json(value: &serde_json::Value) -> Option<(usize, Option<usize>)> {
    if value.is_null() {
        return None;
    }
    let valid_up_to = value["valid_up_to"].as_u64().expect("valid_up_to") as usize;
    let error_len = value["error_len"].as_u64().map(|len| len as usize);
    Some((valid_up_to, error_len))
}

fn first_error_of(outcome: &OracleOutcome) -> Option<(usize, Option<usize>)> {
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

/// `kuhn-UTF-8-test-cases.json`: the 80 numbered lines of Kuhn's file. The strict verdict
/// and the maximal-subpart and per-byte counts are checked; the count implied by Kuhn's
/// layout is one U+FFFD per lead-byte-sized "malformed sequence", a different policy, so
/// lines where it differs are reported under that name and do not fail.
#[test]
#[ignore = "needs the published data: set UTF8CONF_PUBLISHED"]
fn kuhn_test_cases_json() {
    let json = read_json("kuhn-UTF-8-test-cases.json");
    let mut tally = Tally::new("kuhn-UTF-8-test-cases.json");
    let mut lines = 0;
    for (case, bytes) in json_cases(&json) {
        lines += 1;
        let key = format!("§{}", case["id"].as_str().expect("id"));
        let outcome = oracle(&bytes);
        let error_bytes: usize = outcome.errors.iter().map(|&(_, len)| len).sum();
        tally.expect(
            &key,
            "strict_valid",
            case["strict_valid"].as_bool().expect("bool"),
            outcome.valid,
        );
        tally.expect(
            &key,
            "maximal_subpart_fffd",
            case["maximal_subpart_fffd"].as_u64().expect("count") as usize,
            outcome.errors.len(),
        );
        tally.expect(
            &key,
            "per_byte_fffd",
            case["per_byte_fffd"].as_u64().expect("count") as usize,
            error_bytes,
        );
        if let Some(layout) = case["kuhn_layout_implied_signals"].as_u64() {
            let layout = layout as usize;
            if layout != outcome.errors.len() {
                tally.policy(
                    "kuhn-layout (one U+FFFD per lead-byte-sized sequence)",
                    &key,
                    format!(
                        "layout implies {layout}, maximal subparts give {}",
                        outcome.errors.len()
                    ),
                );
            }
        }
    }
    assert_eq!(lines, 80, "Kuhn's file has 80 numbered test lines");
    tally.finish();
}

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

/// One line of flenniken's `utf8tests.txt`.
#[derive(Debug, PartialEq, Eq)]
enum FlennikenCase {
    Valid {
        number: String,
        bytes: Vec<u8>,
    },
    Invalid {
        number: String,
        bytes: Vec<u8>,
        skip: Vec<u8>,
        replace: Vec<u8>,
    },
}

/// Parses `utf8tests.txt`: `num:valid:ASCII`, `num:valid hex:HEX` and
/// `num:invalid hex:HEX:SKIP:REPLACE`, where `nothing` is the empty string and `#` starts
/// a comment line.
fn parse_flenniken(text: &str) -> Vec<FlennikenCase> {
    let hex_field = |field: &str| {
        if field.trim() == "nothing" {
            Vec::new()
        } else {
            bytes_of(field.trim())
        }
    };
    let mut cases = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.splitn(3, ':');
        let number = fields.next().expect("number").trim().to_string();
        let kind = fields.next().expect("kind").trim();
        let rest = fields.next().expect("data");
        match kind {
            "valid" => cases.push(FlennikenCase::Valid {
                number,
                bytes: rest.as_bytes().to_vec(),
            }),
            "valid hex" => cases.push(FlennikenCase::Valid {
                number,
                bytes: hex_field(rest),
            }),
            "invalid hex" => {
                let parts: Vec<&str> = rest.split(':').collect();
                assert_eq!(parts.len(), 3, "line {line:?}");
                cases.push(FlennikenCase::Invalid {
                    number,
                    bytes: hex_field(parts[0]),
                    skip: hex_field(parts[1]),
                    replace: hex_field(parts[2]),
                });
            }
            other => panic!("unknown line kind {other:?} in {line:?}"),
        }
    }
    cases
}

/// `flenniken-utf8tests.txt`: valid lines must decode to themselves; invalid lines must be
/// rejected, their "replace" expectation must equal the lossy decode (UTF-8 encoded), and
/// their "skip" expectation, a different policy, must equal the input with the oracle's
/// error units dropped.
#[test]
#[ignore = "needs the published data: set UTF8CONF_PUBLISHED"]
fn flenniken_utf8tests_txt() {
    let text = String::from_utf8(read_published("flenniken-utf8tests.txt")).expect("ASCII file");
    let cases = parse_flenniken(&text);
    assert_eq!(cases.len(), 222, "flenniken's file has 222 test lines");
    let mut tally = Tally::new("flenniken-utf8tests.txt");
    for case in &cases {
        match case {
            FlennikenCase::Valid { number, bytes } => {
                let outcome = oracle(bytes);
                tally.expect(number, "valid", true, outcome.valid);
                tally.expect(
                    number,
                    "valid decodes to itself",
                    Bytes(bytes.clone()),
                    Bytes(encode(&outcome.scalars)),
                );
            }
            FlennikenCase::Invalid {
                number,
                bytes,
                skip,
                replace,
            } => {
                let outcome = oracle(bytes);
                tally.expect(number, "invalid", false, outcome.valid);
                tally.expect(
                    number,
                    "replace",
                    Bytes(replace.clone()),
                    Bytes(encode(&outcome.scalars)),
                );
                tally.expect(
                    number,
                    "skip (error units dropped)",
                    Bytes(skip.clone()),
                    Bytes(without_error_units(bytes, &outcome.errors)),
                );
            }
        }
    }
    tally.finish();
}

/// One test of a wakaba `.dat` file.
#[derive(Debug, Default, PartialEq, Eq)]
struct WakabaTest {
    /// First line of the test in its file (1-based), for messages.
    line: usize,
    /// The input, with chunk boundaries removed (`_` is an empty chunk).
    bytes: Vec<u8>,
    /// Expected characters (`#c`), if given.
    chars: Option<Vec<u32>>,
    /// The argument of `#bc` (`bom`, `nobom`, `bomsniffing`, ...), if the test decodes;
    /// `Some("")` for a plain `#bc`.
    decode_mode: Option<String>,
    /// `#cb`: an encoding test (characters to bytes).
    encodes: bool,
    /// `#used`: the encoding BOM sniffing switched to.
    used: Option<String>,
    /// Errors as `(offset, level, type, bad bytes)`.
    errors: Vec<(usize, String, String, Vec<u8>)>,
}

/// Decodes wakaba's escapes: `\xHH` is a byte, `\u{H..}` a character (UTF-8 encoded in
/// byte context), anything else is itself.
fn unescape_wakaba(text: &str, bytes_out: &mut Vec<u8>, chars_out: &mut Vec<u32>) {
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("\\x") {
            let byte = u8::from_str_radix(&after[..2], 16).expect("\\xHH");
            bytes_out.push(byte);
            chars_out.push(u32::from(byte));
            rest = &after[2..];
        } else if let Some(after) = rest.strip_prefix("\\u{") {
            let end = after.find('}').expect("closing brace");
            let scalar = u32::from_str_radix(&after[..end], 16).expect("\\u{hex}");
            let c = char::from_u32(scalar).expect("scalar value");
            bytes_out.extend_from_slice(c.to_string().as_bytes());
            chars_out.push(scalar);
            rest = &after[end + 1..];
        } else {
            let c = rest.chars().next().expect("non-empty");
            bytes_out.extend_from_slice(c.to_string().as_bytes());
            chars_out.push(u32::from(c));
            rest = &rest[c.len_utf8()..];
        }
    }
}

/// Parses a wakaba `.dat` file: tests separated by blank lines, each a set of `#field`
/// lines followed by their data lines.
fn parse_wakaba(text: &str) -> Vec<WakabaTest> {
    let mut tests = Vec::new();
    let mut current: Option<WakabaTest> = None;
    let mut field = String::new();
    for (index, line) in text.lines().enumerate() {
        if line.is_empty() {
            tests.extend(current.take());
            continue;
        }
        let test = current.get_or_insert_with(|| WakabaTest {
            line: index + 1,
            ..WakabaTest::default()
        });
        if let Some(header) = line.strip_prefix('#') {
            let (name, argument) = header.split_once(' ').unwrap_or((header, ""));
            field = name.to_string();
            match name {
                "bc" => test.decode_mode = Some(argument.to_string()),
                "cb" => test.encodes = true,
                "c" => test.chars = Some(Vec::new()),
                _ => {}
            }
            continue;
        }
        let (mut bytes, mut chars) = (Vec::new(), Vec::new());
        match field.as_str() {
            "b" if line == "_" => {}
            "b" => {
                unescape_wakaba(line, &mut bytes, &mut chars);
                test.bytes.extend(bytes);
            }
            "c" => {
                unescape_wakaba(line, &mut bytes, &mut chars);
                test.chars.get_or_insert_with(Vec::new).extend(chars);
            }
            "errors" => {
                let parts: Vec<&str> = line.splitn(4, ';').collect();
                assert_eq!(parts.len(), 4, "error line {line:?}");
                unescape_wakaba(parts[3], &mut bytes, &mut chars);
                test.errors.push((
                    parts[0].parse().expect("error offset"),
                    parts[1].to_string(),
                    parts[2].to_string(),
                    bytes,
                ));
            }
            "used" => test.used = Some(line.to_string()),
            _ => {}
        }
    }
    tests.extend(current);
    // The file header (`#encoding utf-8`) is not a test.
    tests.retain(|test| test.decode_mode.is_some() || test.encodes);
    tests
}

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// `wakaba-tests-web/utf8-{1,2,3}.dat`: bytes, expected characters and the error list
/// (offset and bad bytes of each `m`-level error must be the oracle's error units).
/// Tests marked `#bc bom` and `#bc bomsniffing` apply BOM handling before decoding, a
/// wrapper policy: `bom` strips a leading EF BB BF (checked: the rest must decode as
/// expected), `bomsniffing` switches to UTF-16 on FE FF / FF FE (checked with
/// encoding_rs's UTF-16 decoders).
#[test]
#[ignore = "needs the published data: set UTF8CONF_PUBLISHED"]
fn wakaba_dat() {
    let mut tally = Tally::new("wakaba-tests-web");
    let mut tests_seen = 0;
    for file in ["utf8-1.dat", "utf8-2.dat", "utf8-3.dat"] {
        let text = String::from_utf8(read_published(&format!("wakaba-tests-web/{file}")))
            .expect("the .dat files are ASCII");
        for test in parse_wakaba(&text) {
            tests_seen += 1;
            let key = format!("{file}:{} [{}]", test.line, format_hex(&test.bytes));
            let mode = test.decode_mode.as_deref();
            let outcome = oracle(&test.bytes);
            let unit_errors: Vec<(usize, Vec<u8>)> = test
                .errors
                .iter()
                .filter(|(_, level, _, _)| level == "m")
                .map(|(offset, _, _, bytes)| (*offset, bytes.clone()))
                .collect();
            let oracle_units: Vec<(usize, Vec<u8>)> = outcome
                .errors
                .iter()
                .map(|&(offset, len)| (offset, test.bytes[offset..offset + len].to_vec()))
                .collect();
            match mode {
                Some("bom") => {
                    assert!(
                        test.bytes.starts_with(UTF8_BOM),
                        "{key}: bom test without a BOM"
                    );
                    let rest = oracle(&test.bytes[UTF8_BOM.len()..]);
                    tally.expect(
                        &key,
                        "chars after stripping the BOM",
                        Scalars(test.chars.clone().unwrap_or_default()),
                        Scalars(rest.scalars.clone()),
                    );
                    tally.expect(&key, "errors", unit_errors, oracle_units);
                    tally.policy(
                        "bom-stripped (WHATWG \"UTF-8 decode\": a leading BOM is removed before decoding)",
                        &key,
                        "a decoder returns U+FEFF first; the wrapper drops it".to_string(),
                    );
                }
                Some("bomsniffing") => {
                    let (encoding, bom_len) = encoding_rs::Encoding::for_bom(&test.bytes)
                        .unwrap_or_else(|| panic!("{key}: BOM-sniffing test without a BOM"));
                    let (decoded, had_errors) =
                        encoding.decode_without_bom_handling(&test.bytes[bom_len..]);
                    tally.expect(
                        &key,
                        "BOM-sniffed encoding",
                        test.used.clone(),
                        Some(encoding.name().to_ascii_lowercase()),
                    );
                    tally.expect(
                        &key,
                        "chars decoded as the sniffed encoding",
                        (test.chars.clone().unwrap_or_default(), false),
                        (decoded.chars().map(u32::from).collect(), had_errors),
                    );
                    tally.policy(
                        "bom-sniffing (WHATWG \"decode\": a UTF-16 BOM switches the encoding)",
                        &key,
                        format!(
                            "read as UTF-8 these bytes are invalid ({} error units)",
                            outcome.errors.len()
                        ),
                    );
                }
                Some(_) => {
                    // Plain `#bc` and `#bc nobom` / `nobomsniffing`: decoding as it is.
                    tally.expect(
                        &key,
                        "chars",
                        Scalars(test.chars.clone().unwrap_or_default()),
                        Scalars(outcome.scalars.clone()),
                    );
                    tally.expect(&key, "errors", unit_errors, oracle_units);
                }
                None => {
                    // An encoding-only test (`#cb`): the bytes are the UTF-8 encoding of the
                    // characters, so decoding them must give the characters back.
                    let chars = test.chars.clone().unwrap_or_default();
                    tally.expect(
                        &key,
                        "encoding round trip",
                        Bytes(encode(&chars)),
                        Bytes(test.bytes.clone()),
                    );
                    tally.expect(&key, "valid", true, outcome.valid);
                }
            }
        }
    }
    assert!(tests_seen > 150, "only {tests_seen} wakaba tests parsed");
    tally.finish();
}

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

// The parsers above, on inline samples (these run without the published data).

#[test]
fn flenniken_lines_parse() {
    let text = "# comment\n\n1.1.0:valid:abc\n3.0:valid hex:E2 80 90\n\
                6.0:invalid hex:F7 BF BF BF:nothing:EFBFBD  EFBFBD  EFBFBD  EFBFBD\n\
                36.2: invalid hex: EFBFBD 3d ff 2e : EFBFBD 3d 2e : EFBFBD 3d EFBFBD 2e\n";
    let cases = parse_flenniken(text);
    assert_eq!(
        cases,
        [
            FlennikenCase::Valid {
                number: "1.1.0".into(),
                bytes: b"abc".to_vec()
            },
            FlennikenCase::Valid {
                number: "3.0".into(),
                bytes: vec![0xE2, 0x80, 0x90]
            },
            FlennikenCase::Invalid {
                number: "6.0".into(),
                bytes: vec![0xF7, 0xBF, 0xBF, 0xBF],
                skip: vec![],
                replace: [0xEF, 0xBF, 0xBD].repeat(4),
            },
            FlennikenCase::Invalid {
                number: "36.2".into(),
                bytes: vec![0xEF, 0xBF, 0xBD, 0x3D, 0xFF, 0x2E],
                skip: vec![0xEF, 0xBF, 0xBD, 0x3D, 0x2E],
                replace: vec![0xEF, 0xBF, 0xBD, 0x3D, 0xEF, 0xBF, 0xBD, 0x2E],
            },
        ]
    );
    // The skip policy drops exactly the error units: the literal U+FFFD stays.
    let FlennikenCase::Invalid { bytes, skip, .. } = &cases[3] else {
        unreachable!()
    };
    assert_eq!(&without_error_units(bytes, &oracle(bytes).errors), skip);
}

#[test]
fn wakaba_tests_parse() {
    let text = "#encoding\nutf-8\n\n#b\n\\xE4\n\\xB8\\x80\\x80\n_\n#c\n\\u{4e00}\\u{FFFD}\n#bc\n\
                #errors fatal\n3;m;utf-8:bad bytes;\\x80\n\n#b\n\\xEF\\xBB\\xBFabc\n#c\nabc\n\
                #bc bom\n#errors\n0;s;bom;\n";
    let tests = parse_wakaba(text);
    assert_eq!(tests.len(), 2);
    assert_eq!(tests[0].bytes, [0xE4, 0xB8, 0x80, 0x80]);
    assert_eq!(tests[0].chars, Some(vec![0x4E00, REPLACEMENT_CHARACTER]));
    assert_eq!(tests[0].decode_mode.as_deref(), Some(""));
    assert_eq!(
        tests[0].errors,
        [(
            3,
            "m".to_string(),
            "utf-8:bad bytes".to_string(),
            vec![0x80]
        )]
    );
    assert_eq!(tests[0].line, 4);
    assert_eq!(tests[1].bytes, b"\xEF\xBB\xBFabc");
    assert_eq!(tests[1].decode_mode.as_deref(), Some("bom"));
    assert_eq!(tests[1].chars, Some(vec![0x61, 0x62, 0x63]));
    let outcome = oracle(&tests[0].bytes);
    assert_eq!(outcome.errors, [(3, 1)]);
    assert_eq!(outcome.scalars, [0x4E00, REPLACEMENT_CHARACTER]);
}

#[test]
fn the_oracles_agree_on_a_worked_example() {
    let bytes = [0xE1, 0x80, 0xE2, 0xF0, 0x91, 0x92, 0xF1, 0xBF, 0x41];
    let outcome = oracle(&bytes);
    assert_eq!(outcome, reference_oracle(&bytes));
    assert_eq!(outcome.errors, [(0, 2), (2, 1), (3, 3), (6, 2)]);
    assert_eq!(first_error_of(&outcome), Some((0, Some(2))));
}
