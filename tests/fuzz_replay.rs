//! Replays every fuzz corpus file (`corpus/<target>/`) and every regression file
//! (`regressions/<target>/`) through the check its fuzz target runs, on stable Rust and
//! without libFuzzer: `cargo test` fails if any of them makes a decoder depart from the
//! reference.
//!
//! The checks are the fuzz crate's own code, included here file by file (the fuzz crate
//! links libFuzzer, so it cannot be a dependency of the tests), so a file replays exactly as
//! its target ran it. A fuzz finding becomes a regression by copying its crash artifact into
//! `regressions/<target>/` under a name that says what it is.

#![allow(dead_code)]

#[path = "common/mod.rs"]
mod common;

#[path = "../fuzz/src/buggy.rs"]
mod buggy;
#[path = "../fuzz/src/checks.rs"]
mod checks;
#[path = "../fuzz/src/decoders.rs"]
mod decoders;
#[path = "../fuzz/src/fast_backends.rs"]
mod fast_backends;
#[path = "../fuzz/src/findings.rs"]
mod findings;
#[path = "../fuzz/src/model.rs"]
mod model;
#[path = "../fuzz/src/program.rs"]
mod program;
#[path = "../fuzz/src/report.rs"]
mod report;

use std::path::{Path, PathBuf};

use utf8conf::decoders::Decoder;
use utf8conf::taxonomy::Category;

/// The fuzz targets, as `cargo fuzz list` shows them.
const TARGETS: [&str; 4] = ["backends", "differential", "streaming", "structured"];

/// The files of `<root>/<target>/`, sorted (none if the folder does not exist).
fn files_of(root: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(root)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_file() && !is_note(path))
        .collect();
    files.sort();
    files
}

/// Notes beside regression files (`*.md`) say what a file is; they are not inputs.
fn is_note(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "md")
}

/// Where replayed findings would say their report is (nothing is written there).
fn report_dir() -> PathBuf {
    std::env::temp_dir().join("utf8conf-fuzz-replay")
}

/// Runs `target`'s check on `data`, returning the report of any departure.
fn replay(target: &str, data: &[u8]) -> Option<String> {
    let report_dir = report_dir();
    let report_dir = report_dir.as_path();
    let in_process = decoders::in_process();
    let in_process: Vec<&dyn Decoder> = in_process.iter().map(|d| d.as_ref()).collect();
    let finding = match target {
        "differential" => checks::differential_target(data, &in_process, report_dir),
        "structured" => checks::structured_target(data, &in_process, report_dir),
        "streaming" => {
            let streamers = decoders::streaming();
            let streamers: Vec<&dyn utf8conf::decoders::streaming::StreamingDecoder> =
                streamers.iter().map(|d| d.as_ref()).collect();
            checks::streaming_target(data, &streamers, report_dir)
        }
        "backends" => {
            let backends = decoders::backends();
            let backends: Vec<&dyn Decoder> = backends.iter().map(|d| d.as_ref()).collect();
            checks::backends_target(data, &backends, report_dir)
        }
        other => panic!("unknown fuzz target {other}"),
    };
    finding.map(|finding| serde_json::to_string_pretty(&finding.report).unwrap())
}

fn replay_all(root: &str) -> usize {
    let mut replayed = 0;
    for target in TARGETS {
        for file in files_of(root, target) {
            let data = std::fs::read(&file).expect("a readable corpus file");
            if let Some(report) = replay(target, &data) {
                panic!("{} diverges:\n{report}", file.display());
            }
            replayed += 1;
        }
    }
    replayed
}

#[test]
fn every_corpus_file_replays_without_departure() {
    for target in TARGETS {
        assert!(
            !files_of("corpus", target).is_empty(),
            "corpus/{target}/ is empty: run the seed-corpus command (see fuzz/README.md)"
        );
    }
    assert!(replay_all("corpus") > 0);
}

#[test]
fn every_regression_file_replays_without_departure() {
    replay_all("regressions");
}

fn assert_valid_report(report: &serde_json::Value) {
    // The finding report schema the main job's reports are validated against.
    let schema = common::schema_validator("divergence.schema.json");
    common::assert_valid(&schema, report, &format!("{report:#}"));
}

/// The regression file of the planted `above-max` bug still catches that bug: with the
/// buggy decoder plugged in, replaying it gives an `above-max` report whose minimised input
/// is at most 4 bytes, valid against the main job's report schema.
#[test]
fn the_above_max_regression_catches_the_planted_bug() {
    let files = files_of("regressions", "differential");
    let file = files
        .iter()
        .find(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .contains("above-max")
        })
        .expect("regressions/differential/ holds the above-max finding");
    let data = std::fs::read(file).unwrap();
    let finding = checks::differential_target(&data, &[&buggy::BuggyAboveMax], &report_dir())
        .expect("the buggy decoder diverges on its regression file");
    assert_eq!(finding.signature.categories, [Category::AboveMax]);
    assert!(
        finding.minimized().len() <= 4,
        "{}",
        finding.report.minimized_hex
    );
    let report = serde_json::to_value(&finding.report).unwrap();
    assert_valid_report(&report);
    assert_eq!(report["categories"][0], "above-max");
    assert_eq!(report["origin"]["kind"], "fuzz");
    assert_eq!(report["run_id"], "fuzz-differential");
}

/// One bug met in inputs with different incidental errors around it is one report: the
/// departure is filed under the mechanism of the decoder's learned machine, whose id,
/// title and shortest witness do not depend on the input that met it.
#[test]
fn one_bug_in_different_inputs_is_one_report_of_its_mechanism() {
    let dir = report_dir();
    let buggy: [&dyn Decoder; 1] = [&buggy::BuggyAboveMax];
    let inputs: [&[u8]; 3] = [
        b"\xF4\x90\x80\x80",
        b"ab \xC0\xAF \xF4\xA5\xBF\xBF\xED\xA0\x80",
        b"\xE0\x80 x \xF4\xBF\x80\x80 \xFF",
    ];
    let findings: Vec<_> = inputs
        .iter()
        .map(|input| checks::differential_target(input, &buggy, &dir).unwrap())
        .collect();
    let first = &findings[0].report;
    let title = &first.finding.title;
    assert!(
        title.contains("F4") && first.model.is_some(),
        "the report is the machine's mechanism, titled from its difference: {title}"
    );
    assert!(
        first.minimized_hex.starts_with("F4 9") && first.minimized_hex.len() <= 11,
        "the shortest word that shows the difference: {}",
        first.minimized_hex
    );
    for finding in &findings[1..] {
        assert_eq!(
            finding.report.id, first.id,
            "{}",
            finding.report.finding.title
        );
        assert_eq!(finding.report.minimized_hex, first.minimized_hex);
    }
    assert_valid_report(&serde_json::to_value(first).unwrap());
}

/// Findings of every target are reports the main job's schema accepts, with the target's
/// conditions in the explanation.
#[test]
fn findings_of_every_target_are_schema_valid_reports() {
    let dir = report_dir();
    let buggy: [&dyn Decoder; 1] = [&buggy::BuggyAboveMax];
    let text = b"text \xF4\x90\x80\x80 more";
    let differential = checks::differential_target(text, &buggy, &dir).unwrap();
    let backends = checks::backends_target(text, &buggy, &dir).unwrap();
    assert!(backends
        .report
        .explanation
        .contains("bytes past a 64-byte boundary"));
    for finding in [differential, backends] {
        assert_valid_report(&serde_json::to_value(&finding.report).unwrap());
    }
}

/// Outside `F4 90..BF` the buggy decoder agrees with the reference, so every departure it
/// causes is the planted bug: checked on every input of up to 2 bytes and on every
/// 3-byte input whose first byte is a lead byte E0..F4 (`#[ignore]`d, run by `.ci/run` in
/// release mode; every `cargo test` runs the leads whose second byte Table 3-7 restricts,
/// and one of each other row).
#[test]
#[ignore = "long sweep (1.4M inputs): .ci/run runs it in release mode with --include-ignored"]
fn the_buggy_decoder_differs_only_above_max() {
    buggy_decoder_differs_only_above_max(&(0xE0..=0xF4).collect::<Vec<u8>>());
}

/// The quick form of [`the_buggy_decoder_differs_only_above_max`]: 3-byte inputs after
/// the leads whose second byte Table 3-7 restricts (E0, ED, F0, F4), and after one lead of
/// each unrestricted row (E1, F1).
#[test]
fn the_buggy_decoder_differs_only_above_max_after_edge_leads() {
    buggy_decoder_differs_only_above_max(&[0xE0, 0xE1, 0xED, 0xF0, 0xF1, 0xF4]);
}

fn buggy_decoder_differs_only_above_max(three_byte_leads: &[u8]) {
    let planted = |input: &[u8]| {
        input
            .windows(2)
            .any(|pair| pair[0] == 0xF4 && (0x90..=0xBF).contains(&pair[1]))
    };
    let mut inputs: Vec<Vec<u8>> = vec![Vec::new()];
    inputs.extend((0..=255u8).map(|a| vec![a]));
    for a in 0..=255u8 {
        inputs.extend((0..=255u8).map(|b| vec![a, b]));
    }
    for &a in three_byte_leads {
        for b in 0..=255u8 {
            inputs.extend((0..=255u8).map(|c| vec![a, b, c]));
        }
    }
    let dir = report_dir();
    for input in inputs {
        let finding = checks::differential_target(&input, &[&buggy::BuggyAboveMax], &dir);
        match finding {
            Some(finding) => {
                assert!(planted(&input), "{input:02X?}");
                assert!(
                    finding.signature.categories.contains(&Category::AboveMax),
                    "{input:02X?}: {:?}",
                    finding.signature.categories
                );
            }
            None => assert!(!planted(&input), "{input:02X?}"),
        }
    }
}

/// The targets' screen (reference decoded once, reused outcomes) picks exactly the decoder
/// that the full check would report first: on every `differential` corpus file and every
/// input of up to 2 bytes, with the planted `above-max` decoder among the in-process ones.
#[test]
fn the_screen_picks_the_decoder_the_full_check_reports() {
    let in_process = decoders::in_process();
    let mut decoders: Vec<&dyn Decoder> = in_process.iter().map(|d| d.as_ref()).collect();
    decoders.push(&buggy::BuggyAboveMax);
    let mut inputs: Vec<Vec<u8>> = files_of("corpus", "differential")
        .iter()
        .map(|file| std::fs::read(file).unwrap())
        .collect();
    inputs.push(Vec::new());
    inputs.extend((0..=255u8).map(|a| vec![a]));
    for a in 0..=255u8 {
        inputs.extend((0..=255u8).map(|b| vec![a, b]));
    }
    inputs.push(b"ok \xF4\x90\x80\x80".to_vec());
    let dir = report_dir();
    let context = report::FuzzContext {
        target: "differential",
        conditions: None,
        report_dir: &dir,
    };
    let mut screen = checks::Screen::new();
    let mut departing_inputs = 0;
    for input in &inputs {
        let screened = screen
            .first_departing(input, &decoders)
            .map(|decoder| decoder.name().to_string());
        let checked = decoders
            .iter()
            .find(|decoder| {
                screened.as_deref() == Some(decoder.name())
                    || report::check_pair(**decoder, input, context).is_some()
            })
            .map(|decoder| decoder.name().to_string());
        // When the screen names a decoder, the full check must report it too.
        if let Some(name) = &screened {
            let decoder = decoders.iter().find(|d| d.name() == name).unwrap();
            assert!(
                report::check_pair(*decoder, input, context).is_some(),
                "{input:02X?}: the screen flags {name}, the full check does not"
            );
            departing_inputs += 1;
        }
        assert_eq!(screened, checked, "{input:02X?}");
    }
    assert!(departing_inputs > 0, "the planted bug was never screened");
}

/// A finding is written once per signature: the second report of the same bug through
/// another input is "known" and does not abort, unless it is the reported input itself.
#[test]
fn reports_are_bucketed_by_signature() {
    let dir = std::env::temp_dir().join(format!("utf8conf-fuzz-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let decoders: [&dyn Decoder; 1] = [&buggy::BuggyAboveMax];
    let first = checks::differential_target(b"ab\xF4\x90\x80\x80", &decoders, &dir).unwrap();
    let second = checks::differential_target(b"\xF4\xA0\x80\x80xyz", &decoders, &dir).unwrap();
    assert_eq!(first.signature, second.signature);
    let path = match findings::record(&first, &dir).unwrap() {
        findings::Recorded::New(path) => path,
        other => panic!("first report not new: {other:?}"),
    };
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_valid_report(&written);
    assert_eq!(written["id"], first.report.id);
    assert!(matches!(
        findings::record(&second, &dir).unwrap(),
        findings::Recorded::Known(_)
    ));
    assert!(matches!(
        findings::record(&first, &dir).unwrap(),
        findings::Recorded::Replayed(_)
    ));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
