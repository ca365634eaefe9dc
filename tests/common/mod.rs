//! Helpers every integration test shares: toolchain probes, scratch folders, C libraries
//! built for a test, JSON and schema checks. Each test binary includes this module and
//! uses part of it, hence `dead_code` is allowed here and nowhere else.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub mod schema;

/// The repository root (where `tests/`, `schemas/` and `include/` are).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The built `utf8conf` binary as a command that runs in the repository root, so that
/// the paths the tests pass (`adapters/…`, `tests/adapters/…`) resolve.
pub fn utf8conf() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_utf8conf"));
    command.current_dir(root());
    command
}

/// Runs `command` to its end: (exit code, stdout, stderr), the code -1 when a signal
/// ended it.
pub fn outputs(command: &mut Command) -> (i32, String, String) {
    let output = command.output().expect("the command starts");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// True when `python3` is on PATH; says on stderr that the test is skipped otherwise.
pub fn python_available() -> bool {
    let found = utf8conf::adapter::list::find_on_path("python3").is_some();
    if !found {
        eprintln!("skipped: python3 is not on PATH");
    }
    found
}

/// True when `node` is on PATH; says on stderr that the test is skipped otherwise.
pub fn node_available() -> bool {
    let found = utf8conf::adapter::list::find_on_path("node").is_some();
    if !found {
        eprintln!("skipped: node is not on PATH");
    }
    found
}

/// `DIRECTORY/encoder.json`, checked against its schema.
pub fn encoder_report(directory: &Path) -> Value {
    let path = directory.join("encoder.json");
    let report = read_json(&path);
    let validator = schema_validator("encoder.schema.json");
    assert_valid(&validator, &report, &path.display().to_string());
    report
}

/// A fresh path under the temporary folder, not created (a report directory that `--out`
/// must create). Unique to this call: the tests of a binary run on several threads, and
/// two modules may well pick the same name.
///
/// Every path of one test process is under one folder of its own, and the folders of
/// test processes that have ended are removed the first time a process asks: a test
/// that fails keeps its reports for the next run to read, and `cargo test`, run again
/// and again, does not fill the temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(remove_ended_processes_scratch);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = scratch_root(std::process::id());
    std::fs::create_dir_all(&root).expect("a scratch folder under the temporary folder");
    let path = root.join(format!("{name}-{call}"));
    let _ = std::fs::remove_dir_all(&path);
    path
}

/// The folder that holds the scratch paths of test process `process`.
fn scratch_root(process: u32) -> PathBuf {
    std::env::temp_dir().join(format!("utf8conf-tests-{process}"))
}

/// Removes the scratch folders of test processes that are no longer running (where the
/// system lists its processes under `/proc`; elsewhere nothing is removed).
fn remove_ended_processes_scratch() {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(process) = name
            .to_str()
            .and_then(|n| n.strip_prefix("utf8conf-tests-"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !proc.join(process.to_string()).exists() {
            let _ = std::fs::remove_dir_all(scratch_root(process));
        }
    }
}

/// [`scratch`], created empty.
pub fn scratch_dir(name: &str) -> PathBuf {
    let path = scratch(name);
    std::fs::create_dir_all(&path).expect("a scratch folder under the temporary folder");
    path
}

/// Compiles `tests/c-lib/SOURCE.c` against `include/` into `dir/libSOURCE.so` with the C
/// compiler the user has (`$CC`, else `cc`), warnings as errors.
pub fn build_c_library(source: &str, dir: &Path) -> PathBuf {
    let library = dir.join(format!("lib{source}.so"));
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O1", "-fPIC", "-shared", "-Wall", "-Werror", "-I"])
        .arg(root().join("include"))
        .arg(root().join("tests/c-lib").join(format!("{source}.c")))
        .arg("-o")
        .arg(&library)
        .status()
        .expect("a C compiler (cc) is needed for this test");
    assert!(status.success(), "compiling {source}.c failed");
    library
}

/// The JSON in `path`, or a panic naming the file.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The validator of `schemas/NAME` (every keyword it uses implemented; see
/// [`schema`]).
pub fn schema_validator(name: &str) -> schema::Validator {
    let schema = read_json(&root().join("schemas").join(name));
    schema::Validator::new(schema).unwrap_or_else(|error| panic!("schemas/{name}: {error}"))
}

/// Fails the test with every schema error of `instance`, named `what`.
pub fn assert_valid(validator: &schema::Validator, instance: &Value, what: &str) {
    let errors = validator.errors(instance);
    assert!(errors.is_empty(), "{what}:\n{}", errors.join("\n"));
}

/// The names of the known decoders a model report's `recognition` says the machine
/// behaves exactly like.
pub fn behaves_like(recognition: &Value) -> Vec<&str> {
    recognition["behaves_like"]
        .as_array()
        .expect("recognition.behaves_like is an array")
        .iter()
        .map(|candidate| candidate["name"].as_str().expect("a candidate has a name"))
        .collect()
}

/// `DIRECTORY/conformance.json`, checked against its schema.
pub fn conformance_report(directory: &Path) -> Value {
    let path = directory.join("conformance.json");
    let report = read_json(&path);
    let validator = schema_validator("conformance.schema.json");
    assert_valid(&validator, &report, &path.display().to_string());
    report
}

/// Processes whose command line contains `needle` (a test's own library path or adapter
/// script): what a test that must leave no process behind looks for in `/proc`.
pub fn processes_with(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmdline).contains(needle) {
                found.push(pid);
            }
        }
    }
    found
}
