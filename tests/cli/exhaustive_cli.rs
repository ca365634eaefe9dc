//! `utf8conf exhaustive`: a clean run over every input up to 2 bytes, a departing one
//! with reports written as `utf8conf run` writes them, shards that merge into the
//! unsharded result, and merges that must be refused.

use crate::common::read_json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn utf8conf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args(args)
        .output()
        .unwrap()
}

fn out_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("exhaustive-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The one run directory under `out` whose name contains `marker`.
fn run_dir(out: &Path, marker: &str) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(marker))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

fn schema_valid(schema: &str, instance: &Value) {
    crate::common::assert_valid(&crate::common::schema_validator(schema), instance, schema);
}

#[test]
fn every_input_up_to_two_bytes_through_every_builtin_decoder() {
    let out = out_dir("clean");
    let output = utf8conf(&[
        "exhaustive",
        "--max-len",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let summary = read_json(&run_dir(&out, "exhaustive2").join("summary.json"));
    schema_valid("summary.schema.json", &summary);
    assert_eq!(summary["total_inputs"], 1 + 256 + 65_536);
    assert_eq!(summary["total_bytes"], 256 + 2 * 65_536);
    assert_eq!(summary["divergent_inputs"], 0);
    assert_eq!(summary["sources"]["exhaustive-upto-2/len-2"], 65_536);
    let comparisons = summary["comparisons"].as_array().unwrap();
    assert!(comparisons.len() >= 10, "{comparisons:?}");
    for counts in comparisons {
        assert_eq!(counts["inputs"], 65_793, "{counts}");
        assert_eq!(counts["aspects"]["valid"]["compared"], 65_793, "{counts}");
    }
}

#[test]
fn departures_are_reported_as_run_reports_them() {
    let out = out_dir("divergent");
    // mutant-panic panics on any input holding FF; mutant-cesu8 never differs on 2 bytes.
    let output = utf8conf(&[
        "exhaustive",
        "--max-len",
        "2",
        "--decoders",
        "mutant-panic,mutant-cesu8",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let dir = run_dir(&out, "exhaustive2");
    let summary = read_json(&dir.join("summary.json"));
    schema_valid("summary.schema.json", &summary);
    // 1 input of one byte and 511 of two bytes hold FF.
    assert_eq!(summary["divergent_inputs"], 512);
    let reports = summary["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 1, "{summary}");
    let report = read_json(
        &dir.join("divergences")
            .join(format!("{}.json", reports[0].as_str().unwrap())),
    );
    schema_valid("divergence.schema.json", &report);
    assert_eq!(report["aspect"], "crash");
    assert_eq!(report["minimized_hex"], "FF");
    assert_eq!(report["finding"]["occurrences"], 512);
    // The first input with FF is the one-byte input FF: index 1 + 0xFF.
    assert_eq!(report["origin"]["name"], "exhaustive-upto-2");
    assert_eq!(report["origin"]["index"], 256);
}

#[test]
#[ignore = "slow (three exhaustive shards and their merge in the test build, about 4 s): .ci/run runs it with --ignored"]
fn shards_merge_into_the_whole_run() {
    let out = out_dir("shards");
    let out_str = out.to_str().unwrap();
    let decoders = "std,fast,mutant-panic";
    let whole = utf8conf(&[
        "exhaustive",
        "--max-len",
        "2",
        "--decoders",
        decoders,
        "--out",
        out_str,
    ]);
    assert_eq!(whole.status.code(), Some(1));
    for shard in ["1/3", "2/3", "3/3"] {
        let output = utf8conf(&[
            "exhaustive",
            "--max-len",
            "2",
            "--decoders",
            decoders,
            "--shard",
            shard,
            "--out",
            out_str,
        ]);
        // Shard 1 holds only the empty input, where mutant-panic agrees.
        let expected = if shard == "1/3" { 0 } else { 1 };
        assert_eq!(output.status.code(), Some(expected), "{shard}: {output:?}");
    }
    let shard_dirs: Vec<String> = (1..=3)
        .map(|i| {
            run_dir(&out, &format!("shard{i}of3"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut args = vec!["exhaustive", "--out", out_str, "--merge"];
    args.extend(shard_dirs.iter().map(String::as_str));
    let merged = utf8conf(&args);
    assert_eq!(merged.status.code(), Some(1), "{merged:?}");
    let whole = read_json(&run_dir(&out, "shard1of1").join("summary.json"));
    let merged_dir = run_dir(&out, "merged");
    let merged = read_json(&merged_dir.join("summary.json"));
    schema_valid("summary.schema.json", &merged);
    for field in [
        "total_inputs",
        "total_bytes",
        "divergent_inputs",
        "comparisons",
        "sources",
        "reports",
    ] {
        assert_eq!(merged[field], whole[field], "{field}");
    }
    // The shards learned mutant-panic's machine as the whole run did: the merge keeps it.
    let machine = |summary: &Value| {
        summary["models"]
            .as_array()
            .expect("the departing decoder's machine")
            .iter()
            .map(|m| (m["decoder"].clone(), m["model"]["model"]["machine"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(machine(&merged), machine(&whole));
    let coverage = read_json(&merged_dir.join("exhaustive.json"));
    assert_eq!(coverage["shards"].as_array().unwrap().len(), 3);
    let id = merged["reports"][0].as_str().unwrap();
    let report = read_json(&merged_dir.join("divergences").join(format!("{id}.json")));
    assert_eq!(report["finding"]["occurrences"], whole["divergent_inputs"]);

    // A missing shard, a shard given twice, and a directory that is not a run.
    let refused = [
        vec![shard_dirs[0].as_str(), shard_dirs[1].as_str()],
        vec![
            shard_dirs[0].as_str(),
            shard_dirs[0].as_str(),
            shard_dirs[1].as_str(),
            shard_dirs[2].as_str(),
        ],
        vec![out_str],
    ];
    for dirs in refused {
        let mut args = vec!["exhaustive", "--out", out_str, "--merge"];
        args.extend(dirs);
        let output = utf8conf(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }

    // Shards that learned different machines of one decoder (as when a learning budget
    // ran out in one of them) do not merge.
    let tampered = Path::new(&shard_dirs[2]).join("summary.json");
    let mut summary = read_json(&tampered);
    summary["models"][0]["model"]["model"]["machine"]["states"] = Value::Array(Vec::new());
    std::fs::write(&tampered, summary.to_string()).unwrap();
    let mut args = vec!["exhaustive", "--out", out_str, "--merge"];
    args.extend(shard_dirs.iter().map(String::as_str));
    let output = utf8conf(&args);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("another machine of mutant-panic"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        vec!["exhaustive"],
        vec!["exhaustive", "--max-len", "6"],
        vec!["exhaustive", "--max-len", "2", "--shard", "0/2"],
        vec!["exhaustive", "--max-len", "2", "--shard", "3/2"],
        vec!["exhaustive", "--max-len", "2", "--decoders", "nonesuch"],
    ] {
        let output = utf8conf(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}
