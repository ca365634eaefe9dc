//! The differential engine end to end, with decoders that are wrong in known ways.
//!
//! Each test runs the engine on a hand-made corpus into its own directory under Cargo's
//! integration-test temporary directory and checks what it wrote: the reports (content,
//! count, minimisation, reproduction through the real binary), the summary's counts, and
//! that no half-written file is left behind.

use std::path::{Path, PathBuf};

use utf8conf::aspect::Aspect;
use utf8conf::corpus::{Input, Origin};
use utf8conf::decoders::{self, Decoder};
use utf8conf::engine::budget::Budget;
use utf8conf::engine::summary::RunStop;
use utf8conf::engine::{Engine, RunOptions, RunResult};
use utf8conf::hex::parse_hex;
use utf8conf::taxonomy::Category;

/// A fresh, empty directory for one test's reports.
fn out_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("engine-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn decoder(name: &str) -> Box<dyn Decoder> {
    decoders::by_name(name).unwrap_or_else(|| panic!("decoder {name} exists"))
}

fn generated(name: &str, index: u64, bytes: Vec<u8>) -> Input {
    Input {
        bytes,
        origin: Origin::Generator {
            name: name.to_string(),
            seed: 7,
            index,
        },
    }
}

/// Well-formed text in many scripts, with noncharacters and a BOM.
const SAMPLES: &[&str] = &[
    "",
    "a",
    "hello, world",
    "Grüße aus Köln",
    "Ελληνικά",
    "Русский текст",
    "עברית ועربية",
    "देवनागरी",
    "日本語のテキスト",
    "한국어",
    "emoji 😀🎉 and 𝄞",
    "\u{FEFF}with a BOM",
    "nonchar \u{FDD0} \u{FFFE} \u{10FFFF}",
    "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}",
];

/// CESU-8: each UTF-16 surrogate of `scalar` encoded as a 3-byte sequence.
fn cesu8(scalar: u32) -> Vec<u8> {
    let value = scalar - 0x10000;
    let high = 0xD800 + (value >> 10);
    let low = 0xDC00 + (value & 0x3FF);
    let mut bytes = Vec::new();
    for unit in [high, low] {
        bytes.extend([
            0xE0 | (unit >> 12) as u8,
            0x80 | ((unit >> 6) & 0x3F) as u8,
            0x80 | (unit & 0x3F) as u8,
        ]);
    }
    bytes
}

/// Ill-formed inputs with no CESU-8 pair in them: the CESU-8 mutant handles them exactly
/// like a correct decoder.
const ILL_FORMED_WITHOUT_PAIRS: &[&str] = &[
    "ED A0 80",
    "61 ED B0 80 62",
    "ED B0 80 ED A0 80",
    "ED A0 80 41 ED B0 80",
    "C0 80",
    "E0 80 AF",
    "F0 8F BF BF",
    "F4 90 80 80",
    "F8 88 80 80 80",
    "E4 BD",
    "E4 BD 41",
    "80 BF",
    "FF FE",
    "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
];

/// A corpus where the only thing the CESU-8 mutant gets wrong is CESU-8 pairs.
fn cesu8_corpus() -> Vec<Input> {
    let mut inputs = Vec::new();
    let mut index = 0;
    let mut push = |name: &str, bytes: Vec<u8>| {
        inputs.push(generated(name, index, bytes));
        index += 1;
    };
    for sample in SAMPLES {
        push("text", sample.as_bytes().to_vec());
    }
    for text in ILL_FORMED_WITHOUT_PAIRS {
        push("faults", parse_hex(text).unwrap());
    }
    for (n, scalar) in [0x10000, 0x1F600, 0x1D11E, 0x10FFFF]
        .into_iter()
        .enumerate()
    {
        for sample in SAMPLES {
            let cut = sample
                .char_indices()
                .map(|(i, _)| i)
                .nth(n)
                .unwrap_or(sample.len());
            let mut bytes = sample.as_bytes()[..cut].to_vec();
            bytes.extend(cesu8(scalar));
            bytes.extend(&sample.as_bytes()[cut..]);
            push("cesu8", bytes);
        }
    }
    inputs
}

fn run(engine: &Engine, inputs: Vec<Input>, options: &RunOptions) -> RunResult {
    engine
        .run(inputs.into_iter(), options)
        .expect("the run succeeds")
}

/// Runs the built binary with `args`, returning (exit code, stdout, stderr).
fn binary(args: &[&str]) -> (i32, String, String) {
    crate::common::outputs(crate::common::utf8conf().args(args))
}

/// Splits a report's command (`utf8conf ARG...`, arguments without shell quoting or
/// single-quoted) into its arguments after the program name.
fn command_args(command: &str) -> Vec<String> {
    let rest = command
        .strip_prefix("utf8conf ")
        .expect("commands start with utf8conf");
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in rest.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => args.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    args.push(current);
    args
}

#[test]
fn a_cesu8_decoder_gives_exactly_one_minimised_reproducible_report() {
    let dir = out_dir("cesu8");
    let inputs = cesu8_corpus();
    let pair_inputs = inputs
        .iter()
        .filter(|input| input.origin.source() == "cesu8")
        .count() as u64;
    let engine = Engine::new(vec![decoder("mutant-cesu8")]);
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(1_000_000);
    let result = run(&engine, inputs, &options);

    assert_eq!(result.reports.len(), 1, "{:#?}", result.reports);
    let report = &result.reports[0];
    assert_eq!(report.decoders, vec!["reference", "mutant-cesu8"]);
    assert_eq!(report.aspect, Aspect::Valid);
    assert_eq!(report.categories, vec![Category::Cesu8Pair]);
    let minimized = parse_hex(&report.minimized_hex).unwrap();
    assert_eq!(minimized.len(), 6, "{}", report.minimized_hex);
    assert_eq!(minimized[0], 0xED);
    assert_eq!(minimized[3], 0xED);
    assert_eq!(report.finding.occurrences, pair_inputs);
    assert_eq!(result.summary.exit_code, 1);
    assert_eq!(result.summary.reports, vec![report.id.clone()]);
    assert_eq!(report.outcomes["reference"]["valid"], false);
    assert_eq!(report.outcomes["mutant-cesu8"]["valid"], true);
    assert!(
        report.explanation.contains("UTF8-3"),
        "{}",
        report.explanation
    );

    // The report's own command reproduces it with the real binary: exit 1.
    let (code, stdout, stderr) = binary(
        &command_args(&report.finding.reproduce)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stdout.contains(&format!("reproduced {}", report.id)),
        "{stdout}"
    );

    // And the per-decoder commands show the two sides disagreeing.
    let verdicts: Vec<bool> = report
        .reproduce_decode
        .iter()
        .map(|command| {
            let args = command_args(command);
            let (code, stdout, _) = binary(&args.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(code, 0, "{command}");
            let outcome: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            outcome["valid"].as_bool().unwrap()
        })
        .collect();
    assert_eq!(verdicts, vec![false, true]);
}

#[test]
fn reproduce_exits_0_once_the_divergence_is_gone() {
    let dir = out_dir("reproduce-gone");
    let engine = Engine::new(vec![decoder("mutant-cesu8")]);
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(1_000);
    let result = run(&engine, cesu8_corpus(), &options);
    let report = &result.reports[0];
    // The same report, pointed at a correct decoder, no longer reproduces.
    let path = utf8conf::engine::report_path(&result.run_dir, &report.id);
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    json["decoders"][1] = "std".into();
    let fixed = dir.join("fixed.json");
    std::fs::write(&fixed, serde_json::to_string(&json).unwrap()).unwrap();
    let (code, stdout, _) = binary(&["reproduce", fixed.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("not reproduced"), "{stdout}");
    // An unreadable report is a usage error.
    let (code, _, stderr) = binary(&["reproduce", dir.join("missing.json").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("utf8conf: error:"), "{stderr}");
}

#[test]
fn a_panicking_decoder_is_reported_as_a_crash_and_the_run_goes_on() {
    let dir = out_dir("crash");
    let mut inputs = Vec::new();
    for index in 0..500u64 {
        let mut bytes = format!("input {index} ").into_bytes();
        if index % 10 == 3 {
            bytes.push(0xFF);
        }
        inputs.push(generated("mixed", index, bytes));
    }
    let engine = Engine::new(vec![decoder("mutant-panic"), decoder("std-from_utf8")]);
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(10_000);
    options.batch_size = 16;
    let result = run(&engine, inputs, &options);

    assert_eq!(result.summary.total_inputs, 500);
    assert_eq!(result.reports.len(), 1, "{:#?}", result.reports);
    let report = &result.reports[0];
    assert_eq!(report.aspect, Aspect::Crash);
    assert_eq!(report.decoders[1], "mutant-panic");
    assert_eq!(report.minimized_hex, "FF");
    assert_eq!(report.categories, vec![Category::InvalidLead]);
    assert_eq!(report.finding.occurrences, 50);
    let failure = report.failure.as_ref().expect("a crash has a failure");
    assert_eq!(failure.kind, Aspect::Crash);
    assert!(failure.message.contains("byte FF"), "{}", failure.message);
    assert!(!report.outcomes.contains_key("mutant-panic"));

    let counts = |name: &str| {
        result
            .summary
            .comparisons
            .iter()
            .find(|c| c.decoder == name)
            .unwrap()
            .clone()
    };
    let panicking = counts("mutant-panic");
    assert_eq!(panicking.inputs, 500);
    assert_eq!(panicking.aspects["crash"].departures, 50);
    assert_eq!(panicking.aspects["valid"].compared, 450);
    let healthy = counts("std-from_utf8");
    assert_eq!(healthy.inputs, 500);
    assert_eq!(healthy.aspects["valid"].compared, 500);
    assert_eq!(healthy.aspects["valid"].departures, 0);
}

#[test]
fn one_panic_beside_unrelated_errors_is_one_report() {
    // The same panic (on FF) in inputs whose other errors differ: a crash cannot say which
    // bytes caused it, so it is minimised on decoder, aspect and shape and filed under the
    // minimised input's signature; every occurrence counts towards that one report.
    let dir = out_dir("crash-merged");
    let neighbours: [&[u8]; 4] = [b"", &[0xC0], &[0xED, 0xA0, 0x80], &[0xE4, 0xBD]];
    let mut inputs = Vec::new();
    for index in 0..40u64 {
        let mut bytes = format!("input {index} ").into_bytes();
        bytes.extend_from_slice(neighbours[index as usize % neighbours.len()]);
        bytes.extend_from_slice(b" then ");
        bytes.push(0xFF);
        inputs.push(generated("mixed", index, bytes));
    }
    let engine = Engine::new(vec![decoder("mutant-panic")]);
    let mut options = RunOptions::new(&dir);
    options.batch_size = 8;
    let result = run(&engine, inputs, &options);

    assert_eq!(result.reports.len(), 1, "{:#?}", result.reports);
    let report = &result.reports[0];
    assert_eq!(report.aspect, Aspect::Crash);
    assert_eq!(report.minimized_hex, "FF");
    assert_eq!(report.categories, vec![Category::InvalidLead]);
    assert_eq!(report.finding.occurrences, 40);
}

#[test]
fn the_binary_contains_panics_silently() {
    let dir = out_dir("crash-binary");
    let (code, stdout, stderr) = binary(&[
        "run",
        "--decoders",
        "mutant-panic",
        "--budget",
        "3000i",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stdout.contains("mutant-panic"), "{stdout}");
    assert!(stdout.contains(" crash "), "{stdout}");
}

#[test]
fn departures_are_deduplicated_and_independent_of_threads_and_batches() {
    let mut inputs = Vec::new();
    for index in 0..60u64 {
        let mut bytes = format!("case {index}: ").into_bytes();
        bytes.extend(cesu8(0x1F600));
        inputs.push(generated("dedup", index, bytes));
    }
    let engine = Engine::new(vec![decoder("mutant-cesu8")]);
    let mut results = Vec::new();
    for (threads, batch_size) in [(1, 256), (2, 1), (2, 7)] {
        let dir = out_dir(&format!("dedup-{threads}-{batch_size}"));
        let mut options = RunOptions::new(&dir);
        options.budget = Budget::Inputs(1_000);
        options.threads = threads;
        options.batch_size = batch_size;
        results.push(run(&engine, inputs.clone(), &options));
    }
    for result in &results {
        assert_eq!(result.reports.len(), 1);
        let report = &result.reports[0];
        assert_eq!(report.finding.occurrences, 60);
        assert_eq!(report.first_input_index, 0);
        assert_eq!(report.other_origins.len(), 4, "origins kept are bounded");
        assert_eq!(
            report.origin,
            Origin::Generator {
                name: "dedup".into(),
                seed: 7,
                index: 0
            }
        );
        assert_eq!(report.other_origins[0], inputs[1].origin);
        let first = &results[0].reports[0];
        assert_eq!(report.id, first.id);
        assert_eq!(report.minimized_hex, first.minimized_hex);
        assert_eq!(report.input_hex, first.input_hex);
        assert_eq!(report.outcomes, first.outcomes);
        assert_eq!(report.minimization, first.minimization);
    }
}

#[test]
fn the_summary_counts_inputs_per_source_and_respects_the_budget() {
    let mut inputs = Vec::new();
    for index in 0..30 {
        inputs.push(generated("alpha", index, vec![b'a'; index as usize]));
    }
    for index in 0..10 {
        inputs.push(Input {
            bytes: vec![0xC3, 0xA9],
            origin: Origin::Vector {
                file: "x.toml".into(),
                id: format!("x-{index}"),
            },
        });
    }
    for index in 0..20 {
        inputs.push(generated("beta", index, vec![0xE2, 0x82, 0xAC]));
    }
    let engine = Engine::new(decoders::builtin());
    let dir = out_dir("summary");

    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(1_000);
    options.batch_size = 8;
    let whole = run(&engine, inputs.clone(), &options);
    let summary = &whole.summary;
    assert_eq!(summary.total_inputs, 60);
    assert_eq!(summary.stopped_by, RunStop::CorpusExhausted);
    let sources: Vec<(&str, u64)> = summary
        .sources
        .iter()
        .map(|(name, count)| (name.as_str(), *count))
        .collect();
    assert_eq!(
        sources,
        vec![("alpha", 30), ("beta", 20), ("vectors/x.toml", 10)]
    );
    assert_eq!(summary.total_bytes, (0..30).sum::<u64>() + 10 * 2 + 20 * 3);
    assert_eq!(summary.exit_code, 0);
    assert!(summary.reports.is_empty());
    // The reference itself is the oracle, not a decoder under test.
    assert!(summary.decoders.iter().all(|d| d.name != "reference"));
    assert_eq!(summary.reference.name, "reference");
    for counts in &summary.comparisons {
        assert_eq!(counts.inputs, 60, "{}", counts.decoder);
        assert_eq!(counts.aspects["valid"].compared, 60);
    }

    options.budget = Budget::Inputs(45);
    let cut = run(&engine, inputs, &options);
    assert_eq!(cut.summary.total_inputs, 45);
    assert_eq!(cut.summary.stopped_by, RunStop::Budget);
    assert_eq!(cut.summary.sources.values().sum::<u64>(), 45);
    assert_ne!(
        cut.run_dir, whole.run_dir,
        "every run gets its own directory"
    );
}

#[test]
fn reports_are_written_whole_with_no_temporary_files_left() {
    let dir = out_dir("atomic");
    let engine = Engine::new(vec![decoder("mutant-cesu8"), decoder("mutant-panic")]);
    let mut inputs = cesu8_corpus();
    inputs.push(generated("ff", 0, vec![0x41, 0xFF]));
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(1_000);
    let result = run(&engine, inputs, &options);
    assert!(result.reports.len() >= 2);

    let mut files = Vec::new();
    for entry in walk(&result.run_dir) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "temporary file left: {name}");
        files.push(entry);
    }
    assert_eq!(files.len(), result.reports.len() + 1);
    for report in &result.reports {
        let path = utf8conf::engine::report_path(&result.run_dir, &report.id);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("}\n"));
        let written: utf8conf::engine::finding_report::FindingReport =
            serde_json::from_str(&text).unwrap();
        assert_eq!(&written, report, "the file holds the final report");
    }
    let summary = std::fs::read_to_string(result.run_dir.join("summary.json")).unwrap();
    let written: utf8conf::engine::summary::Summary = serde_json::from_str(&summary).unwrap();
    assert_eq!(written, result.summary);
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_stop_request_ends_the_run_with_a_summary() {
    let dir = out_dir("stop");
    let engine = Engine::new(vec![decoder("std")]);
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(1_000);
    options
        .stop
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let result = run(&engine, cesu8_corpus(), &options);
    assert_eq!(result.summary.stopped_by, RunStop::Interrupted);
    assert_eq!(result.summary.total_inputs, 0);
    assert!(result.run_dir.join("summary.json").is_file());
}

#[test]
fn the_report_limit_bounds_the_work_but_not_the_counts() {
    let dir = out_dir("limit");
    let engine = Engine::new(vec![decoder("mutant-cesu8"), decoder("mutant-panic")]);
    let mut inputs = cesu8_corpus();
    inputs.push(generated("ff", 0, vec![0x41, 0xFF]));
    inputs.push(generated("ff", 1, vec![0xFF, 0x80]));
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(1_000);
    options.max_reports = 1;
    let result = run(&engine, inputs, &options);
    assert_eq!(result.reports.len(), 1);
    assert_eq!(result.summary.unreported_signatures, 2);
    assert_eq!(result.summary.exit_code, 1);
}
