//! Each planted decoder gives exactly one finding per planted bug, with the bug's own
//! categories: a report a reader can act on names each cause once.

use super::*;
use crate::conformance::inputs::{probes, BOUNDARY_3_4_ALPHABET};
use crate::corpus::faults::FaultGenerator;
use crate::corpus::generator::Generator;
use crate::corpus::placement::PlacementGenerator;
use crate::diagnosis::model::Graded;
use crate::diagnosis::{decode_contained, findings, DepartureLog, Subject};
use crate::finding::Finding;
use crate::model::learner::Limits;
use crate::reference::Reference;

/// A small input set with the shapes of `check`'s: probes, short boundary inputs, and
/// generated faults and placements (errors at block boundaries and past byte 64).
pub(crate) fn inputs() -> Vec<Vec<u8>> {
    let mut inputs: Vec<Vec<u8>> = probes().collect();
    for &a in &BOUNDARY_3_4_ALPHABET {
        inputs.push(vec![a]);
        for &b in &BOUNDARY_3_4_ALPHABET {
            inputs.push(vec![a, b]);
            for &c in &BOUNDARY_3_4_ALPHABET {
                inputs.push(vec![a, b, c]);
            }
        }
    }
    inputs.push("é€😀".as_bytes().to_vec());
    let faults = FaultGenerator::new(0);
    let placement = PlacementGenerator::new(0);
    for index in 0..300 {
        inputs.extend(faults.input_at(index).map(|i| i.bytes));
        inputs.extend(placement.input_at(index).map(|i| i.bytes));
    }
    inputs
}

pub(crate) fn findings_of(decoder: &dyn Decoder, inputs: &[Vec<u8>]) -> Vec<Finding> {
    findings_and_model(decoder, inputs).0
}

/// The findings, and why the decoder's machine is incomplete (`None`: complete).
pub(crate) fn findings_and_model(
    decoder: &dyn Decoder,
    inputs: &[Vec<u8>],
) -> (Vec<Finding>, Option<String>) {
    let (graded, incomplete) = graded(decoder, inputs);
    (graded.findings, incomplete)
}

/// What grading gives (the findings and the conditions' machines), and why the decoder's
/// machine is incomplete.
fn graded(decoder: &dyn Decoder, inputs: &[Vec<u8>]) -> (Graded, Option<String>) {
    let capabilities = decoder.capabilities();
    let mut log = DepartureLog::default();
    let answers = decode_contained(decoder, inputs);
    for (input, answer) in inputs.iter().zip(&answers) {
        log.record(
            input,
            &Reference::rfc3629().decode(input),
            answer,
            capabilities,
        );
    }
    let reproduce = |bytes: &[u8]| crate::hex::format_hex(bytes);
    let subject = Subject {
        name: decoder.name(),
        capabilities,
        reproduce: &reproduce,
    };
    let decode =
        |batch: &[Vec<u8>]| Ok::<_, std::convert::Infallible>(decode_contained(decoder, batch));
    let rule_based = findings(&subject, &log.departed(), decode).unwrap();
    // The one grading path of `check`: the model's mechanisms, then the rule-based
    // findings the model does not explain.
    let report = crate::model::model_report(decoder, Limits::default()).unwrap();
    let found = crate::diagnosis::model::with_model(&subject, &report, decoder, rule_based, decode);
    (found.unwrap(), report.model.incomplete.clone())
}

/// The self-test decoders whose findings are not all the model's: every third of them,
/// which still meets a value check, a lossy policy and a stop (the whole list is the
/// `#[ignore]`d form, run by the CI script).
#[test]
fn a_third_of_the_planted_bugs_give_one_finding_with_their_own_categories() {
    assert_own_categories(RULE_BASED.iter().step_by(3));
}

#[test]
#[ignore = "about 15 s in the test build: every self-test decoder of RULE_BASED"]
fn each_planted_bug_gives_one_finding_with_its_own_categories() {
    assert_own_categories(RULE_BASED.iter());
}

/// Each decoder of `entries` gives exactly one finding per expected category list.
fn assert_own_categories(
    entries: impl Iterator<Item = &'static (&'static str, &'static [&'static [Category]])>,
) {
    let inputs = inputs();
    let mut failures = Vec::new();
    for &(name, expected) in entries {
        let decoder = Planted::new(name, entry(name).expect("in the catalogue").bugs);
        let found = findings_of(&decoder, &inputs);
        let mut got: Vec<Vec<Category>> = found.iter().map(|f| f.categories.clone()).collect();
        let mut want: Vec<Vec<Category>> = expected.iter().map(|c| c.to_vec()).collect();
        got.sort();
        want.sort();
        if got != want {
            failures.push(format!(
                "{name}: want {want:?}, got {:?}",
                found
                    .iter()
                    .map(|f| (f.title.clone(), f.categories.clone(), f.witness_hex.clone()))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn a_correct_decoder_gives_no_finding() {
    let decoder = Planted::new("planted-none", &[]);
    assert!(findings_of(&decoder, &inputs()).is_empty());
}

/// A decoder that never reports an error and has its bugs only in inputs under 201 bytes
/// (msgpack-javascript hands longer strings to a `TextDecoder`). On a long input the
/// second path replaces as RFC 3629 does and only calls the input valid, which is the
/// silence's finding again, not a finding of its own titled after the bytes it happens
/// to hold ("accepts CESU-8 surrogate pairs", four such findings on 201-byte inputs).
#[test]
fn a_second_path_that_only_stays_silent_is_the_silence() {
    let entry = entry("planted-msgpack-js-short-strings").expect("in the catalogue");
    let decoder = Planted::new(entry.name, entry.bugs);
    let found = findings_of(&decoder, &inputs());
    let long: Vec<&str> = found
        .iter()
        .filter(|f| f.witness_hex.split(' ').count() > 200)
        .map(|f| f.title.as_str())
        .collect();
    assert!(long.is_empty(), "{long:?}");
    assert_eq!(found.len(), entry.findings.len());
}

/// A decoder that hands inputs over 100 bytes to a second path with two bugs of its own.
/// The report is the condition and that path's bugs: each once, titled with "only in
/// inputs longer than 100 bytes" (not "at offset >= 100": the same length with the filler
/// after the bug's bytes shows it too) and shown by the shortest input long enough (101
/// bytes, filler then the bug's bytes), not one finding per incidental long input that
/// met it; and the report carries that path's machine. The adapter
/// `tests/adapters/planted/long_path_surrogates.py` is the same over 200 bytes, past the
/// probe's placements, end to end.
#[test]
#[ignore = "about 10 s in the test build; the CI script runs it"]
fn a_second_path_for_long_inputs_gives_each_of_its_bugs_once_under_its_condition() {
    let entry = entry("planted-second-path-over-100").expect("in the catalogue");
    let decoder = Planted::new(entry.name, entry.bugs);
    let (
        Graded {
            findings: found,
            conditions,
        },
        _,
    ) = graded(&decoder, &inputs());
    let titles: Vec<&str> = found.iter().map(|f| f.title.as_str()).collect();
    assert_eq!(found.len(), 2, "{titles:?}");
    let long = crate::finding::PositionCondition::InputLongerThan { len: 100 };
    for (finding, bytes) in found.iter().zip([&[0xE0, 0x80, 0x80], &[0xED, 0xA0, 0x80]]) {
        assert_eq!(finding.cause.position, Some(long), "{}", finding.title);
        assert!(
            finding.title.ends_with(&long.describe()),
            "{}",
            finding.title
        );
        let witness = crate::hex::parse_hex(&finding.witness_hex).unwrap();
        assert_eq!(witness.len(), 101, "{}", finding.title);
        assert_eq!(witness[98..], bytes[..], "{}", finding.title);
    }
    // The report carries the second path's machine, learned after 100 bytes of filler.
    assert_eq!(conditions.len(), 1);
    assert_eq!(conditions[0].condition, long);
    assert_eq!(conditions[0].placed_at, 100);
    assert!(conditions[0].model.differences.len() >= 2);
}
