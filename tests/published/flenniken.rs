//! The suite of `flenniken-utf8tests.txt`: valid and invalid lines with the output under
//! the skip and replace policies.

use super::*;

/// One line of flenniken's `utf8tests.txt`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FlennikenCase {
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
pub(crate) fn parse_flenniken(text: &str) -> Vec<FlennikenCase> {
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

/// The parser on an inline sample (runs without the published data).
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
