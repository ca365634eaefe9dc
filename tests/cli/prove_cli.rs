//! `utf8conf prove`: every automaton is reported equivalent, and `--dot` writes Graphviz
//! that `dot` renders (checked when Graphviz is installed; `.ci/graphviz.sh` installs it
//! for CI).

use std::path::Path;
use std::process::Command;

fn utf8conf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_utf8conf"))
}

#[test]
fn prove_reports_every_automaton_equivalent() {
    let output = utf8conf().arg("prove").output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("UTF8-octets acceptor: 9 states (minimal)"),
        "{stdout}"
    );
    let verdicts: Vec<&str> = stdout
        .lines()
        .filter(|line| !line.starts_with(' ') && !line.is_empty() && !line.starts_with("grammar"))
        .collect();
    // The shift-DFA table and the SIMD check with each of its four end checks.
    let equivalent = verdicts
        .iter()
        .filter(|line| line.starts_with("equivalent"))
        .count();
    assert_eq!(equivalent, 5, "{stdout}");
    assert!(
        verdicts
            .iter()
            .all(|line| line.starts_with("equivalent") || line.starts_with("holds")),
        "{stdout}"
    );
}

#[test]
fn dot_files_render_with_graphviz() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("prove-dot");
    let _ = std::fs::remove_dir_all(&dir);
    let status = utf8conf()
        .args(["prove", "--dot"])
        .arg(&dir)
        .output()
        .unwrap()
        .status;
    assert!(status.success());
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 4, "{files:?}");
    if Command::new("dot").arg("-V").output().is_err() {
        eprintln!("note: Graphviz `dot` not installed; rendering not checked");
        return;
    }
    for file in files {
        let rendered = Command::new("dot")
            .arg("-Tsvg")
            .arg(&file)
            .output()
            .unwrap();
        let svg = String::from_utf8_lossy(&rendered.stdout);
        assert!(
            rendered.status.success() && svg.contains("<svg"),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&rendered.stderr)
        );
        // Graphviz warnings (bad attributes, syntax recovered from) count as failures.
        assert!(
            rendered.stderr.is_empty(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&rendered.stderr)
        );
    }
}
