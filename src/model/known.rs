//! The machines of known decoders, learned once and kept as data
//! (`src/model/known/models.json`, embedded in the binary), so that a new decoder's
//! machine can be recognised as one of them ([`super::recognise`]).
//!
//! The set is every built-in decoder, the planted decoders written from the documented
//! behaviour of real platforms ([`crate::decoders::planted::real_world::platforms`]: Java's
//! Modified UTF-8, Python's `surrogatepass`, MySQL's `utf8mb3`, ...), and every shipped
//! adapter the machine that regenerated the file could run. `utf8conf model
//! --regenerate-known FILE` learns them all again (docs/MODEL.md).
//!
//! The format is compact, one model per line: the classes as byte ranges, and per state
//! and class the next state and the output in a short code ([`encode_output`]). A
//! machine is rebuilt into a [`Hypothesis`] with its access words found breadth-first.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::alphabet::{format_ranges, Alphabet};
use super::learner::Hypothesis;
use super::output::{Lossy, StepOutput, Strict, UnitKind, UNITS};
use crate::decoders::Capabilities;

/// The embedded file.
const MODELS_JSON: &str = include_str!("known/models.json");

/// The `schema` of the known-models file.
pub const KNOWN_SCHEMA: &str = "utf8conf/known-models/1";

/// The known-models file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KnownFile {
    /// [`KNOWN_SCHEMA`].
    pub schema: String,
    /// The models.
    pub models: Vec<KnownModel>,
}

/// One known decoder's machine.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KnownModel {
    /// Its name (`std`, `planted-java-modified-utf8`, `adapter:python-strict`).
    pub name: String,
    /// What it is, in a few words.
    pub about: String,
    /// The version it was learned from.
    pub version: String,
    /// The capabilities its outputs were computed from ([`Capabilities::names`]).
    pub capabilities: Vec<String>,
    /// The byte classes, as ranges (`80..8F, C0`).
    pub classes: Vec<String>,
    /// Per state, per class: `"next output"` ([`encode_output`]).
    pub table: Vec<Vec<String>>,
}

/// Every known model, parsed once.
pub fn all() -> &'static [(KnownModel, Hypothesis)] {
    static MODELS: std::sync::OnceLock<Vec<(KnownModel, Hypothesis)>> = std::sync::OnceLock::new();
    MODELS.get_or_init(|| {
        // The file is part of the binary and a test parses it: a failure is a build error.
        let file: KnownFile =
            serde_json::from_str(MODELS_JSON).expect("src/model/known/models.json parses");
        file.models
            .into_iter()
            .map(|model| {
                let hypothesis = model
                    .hypothesis()
                    .unwrap_or_else(|e| panic!("known model {}: {e}", model.name));
                (model, hypothesis)
            })
            .collect()
    })
}

impl KnownModel {
    /// The record of a learned machine.
    pub fn of(
        name: &str,
        about: &str,
        version: &str,
        capabilities: Capabilities,
        hypothesis: &Hypothesis,
    ) -> KnownModel {
        let alphabet = &hypothesis.alphabet;
        KnownModel {
            name: name.to_string(),
            about: about.to_string(),
            version: version.to_string(),
            capabilities: capabilities.names().iter().map(|s| s.to_string()).collect(),
            classes: (0..alphabet.len())
                .map(|c| format_ranges(alphabet.bytes(c)))
                .collect(),
            table: (0..hypothesis.state_count())
                .map(|s| {
                    (0..alphabet.len())
                        .map(|c| {
                            let output = encode_output(hypothesis.output[s][c]);
                            format!("{} {output}", hypothesis.next[s][c])
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// The capabilities, from their names.
    pub fn capabilities(&self) -> Capabilities {
        let has = |name: &str| self.capabilities.iter().any(|c| c == name);
        Capabilities {
            valid_up_to: has("valid_up_to"),
            error_len: has("error_len"),
            scalars: has("scalars"),
            errors: has("errors"),
        }
    }

    /// The machine, checked: the classes partition the bytes, every row has a cell per
    /// class, every next state exists.
    pub fn hypothesis(&self) -> Result<Hypothesis, String> {
        let mut classes = Vec::with_capacity(self.classes.len());
        let mut seen = [false; 256];
        for ranges in &self.classes {
            let bytes = parse_ranges(ranges)?;
            for &b in &bytes {
                if std::mem::replace(&mut seen[usize::from(b)], true) {
                    return Err(format!("byte {b:02X} is in two classes"));
                }
            }
            classes.push(bytes);
        }
        if seen.iter().any(|s| !s) {
            return Err("the classes do not cover every byte".to_string());
        }
        let states = self.table.len();
        if states == 0 {
            return Err("no states".to_string());
        }
        let (mut next, mut output) = (Vec::new(), Vec::new());
        for row in &self.table {
            if row.len() != classes.len() {
                return Err(format!(
                    "a row has {} cells for {} classes",
                    row.len(),
                    classes.len()
                ));
            }
            let mut next_row = Vec::with_capacity(row.len());
            let mut output_row = Vec::with_capacity(row.len());
            for cell in row {
                let (to, code) = cell.split_once(' ').ok_or(format!("bad cell {cell:?}"))?;
                let to: usize = to.parse().map_err(|_| format!("bad state in {cell:?}"))?;
                if to >= states {
                    return Err(format!("state {to} does not exist"));
                }
                next_row.push(to);
                output_row.push(decode_output(code)?);
            }
            next.push(next_row);
            output.push(output_row);
        }
        let alphabet = Alphabet::from_classes(classes);
        let access = access_words(&alphabet, &next);
        Ok(Hypothesis {
            alphabet,
            access,
            next,
            output,
        })
    }
}

/// The shortest word reaching each state (representatives tried in class order); a state
/// no word reaches keeps an empty access word.
fn access_words(alphabet: &Alphabet, next: &[Vec<usize>]) -> Vec<Vec<u8>> {
    let mut access: Vec<Option<Vec<u8>>> = vec![None; next.len()];
    access[0] = Some(Vec::new());
    let mut queue = VecDeque::from([0usize]);
    while let Some(state) = queue.pop_front() {
        for (class, &to) in next[state].iter().enumerate() {
            if access[to].is_none() {
                let mut word = access[state].clone().unwrap_or_default();
                word.push(alphabet.representative(class));
                access[to] = Some(word);
                queue.push_back(to);
            }
        }
    }
    access.into_iter().map(Option::unwrap_or_default).collect()
}

/// `80..8F, C0` → the bytes.
pub fn parse_ranges(text: &str) -> Result<Vec<u8>, String> {
    let byte = |s: &str| u8::from_str_radix(s.trim(), 16).map_err(|_| format!("bad byte {s:?}"));
    let mut bytes = Vec::new();
    for part in text.split(',') {
        let (first, last) = match part.split_once("..") {
            Some((a, b)) => (byte(a)?, byte(b)?),
            None => (byte(part)?, byte(part)?),
        };
        if first > last {
            return Err(format!("bad range {part:?}"));
        }
        bytes.extend(first..=last);
    }
    bytes.sort_unstable();
    bytes.dedup();
    Ok(bytes)
}

/// A step output in a few characters: the strict side (`v` valid, `i` incomplete,
/// `e<len>.<back>` error, `s` settled, `r` revised, `x` invalid, `f` failed), then, for a
/// decoder reporting scalars, `/` with the scalars taken back, the scalars appended, and
/// one letter per classified unit (`R` U+FFFD, `S` scalar, `B` own byte, `L` bits, `O`
/// other): `e1.1/01R` is "error len 1 back 1 / +[U+FFFD]".
pub fn encode_output(output: StepOutput) -> String {
    let mut code = match output.strict {
        Strict::Valid => "v".to_string(),
        Strict::Incomplete => "i".to_string(),
        Strict::Error { len, back } => format!("e{len}.{back}"),
        Strict::Settled => "s".to_string(),
        Strict::Revised => "r".to_string(),
        Strict::Invalid => "x".to_string(),
        Strict::Failed => "f".to_string(),
    };
    if let Some(lossy) = output.lossy {
        code.push('/');
        code.push_str(&format!("{}{}", lossy.taken_back, lossy.appended));
        for kind in lossy.kinds.iter().flatten() {
            code.push(match kind {
                UnitKind::Replacement => 'R',
                UnitKind::Scalar => 'S',
                UnitKind::OwnByte => 'B',
                UnitKind::Bits => 'L',
                UnitKind::Other => 'O',
            });
        }
    }
    code
}

/// The inverse of [`encode_output`].
pub fn decode_output(code: &str) -> Result<StepOutput, String> {
    let bad = || format!("bad output code {code:?}");
    let (strict, lossy) = match code.split_once('/') {
        Some((s, l)) => (s, Some(l)),
        None => (code, None),
    };
    let strict = match strict {
        "v" => Strict::Valid,
        "i" => Strict::Incomplete,
        "s" => Strict::Settled,
        "r" => Strict::Revised,
        "x" => Strict::Invalid,
        "f" => Strict::Failed,
        _ => {
            let (len, back) = strict
                .strip_prefix('e')
                .and_then(|rest| rest.split_once('.'))
                .ok_or_else(bad)?;
            Strict::Error {
                len: len.parse().map_err(|_| bad())?,
                back: back.parse().map_err(|_| bad())?,
            }
        }
    };
    let lossy = match lossy {
        None => None,
        Some(text) => {
            let digits: Vec<u8> = text.bytes().take(2).collect();
            let [taken, appended] = digits[..] else {
                return Err(bad());
            };
            if !taken.is_ascii_digit() || !appended.is_ascii_digit() {
                return Err(bad());
            }
            let mut kinds = [None; UNITS];
            let letters = &text.as_bytes()[2..];
            if letters.len() > UNITS {
                return Err(bad());
            }
            for (slot, letter) in kinds.iter_mut().zip(letters) {
                *slot = Some(match letter {
                    b'R' => UnitKind::Replacement,
                    b'S' => UnitKind::Scalar,
                    b'B' => UnitKind::OwnByte,
                    b'L' => UnitKind::Bits,
                    b'O' => UnitKind::Other,
                    _ => return Err(bad()),
                });
            }
            Some(Lossy {
                taken_back: taken - b'0',
                appended: appended - b'0',
                kinds,
            })
        }
    };
    Ok(StepOutput { strict, lossy })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_codes_round_trip() {
        let outputs = [
            StepOutput {
                strict: Strict::Error { len: 1, back: 2 },
                lossy: Some(Lossy {
                    taken_back: 0,
                    appended: 1,
                    kinds: [Some(UnitKind::Replacement), None],
                }),
            },
            StepOutput {
                strict: Strict::Valid,
                lossy: Some(Lossy {
                    taken_back: 2,
                    appended: 2,
                    kinds: [Some(UnitKind::OwnByte), Some(UnitKind::Bits)],
                }),
            },
            StepOutput {
                strict: Strict::Invalid,
                lossy: None,
            },
        ];
        for output in outputs {
            let code = encode_output(output);
            assert_eq!(decode_output(&code), Ok(output), "{code}");
        }
        assert_eq!(encode_output(outputs[0]), "e1.2/01R");
        for bad in ["", "e1", "q", "v/1", "v/01RRR", "v/01Z", "e1.x"] {
            assert!(decode_output(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ranges_parse_back() {
        assert_eq!(
            parse_ranges("80..82, C0").unwrap(),
            [0x80, 0x81, 0x82, 0xC0]
        );
        assert!(parse_ranges("82..80").is_err());
        assert!(parse_ranges("zz").is_err());
    }

    #[test]
    fn every_known_model_parses_and_is_complete() {
        let models = all();
        assert!(models.iter().any(|(m, _)| m.name == "reference"));
        for (model, hypothesis) in models {
            assert_eq!(
                hypothesis.state_count(),
                model.table.len(),
                "{}",
                model.name
            );
        }
    }
}
