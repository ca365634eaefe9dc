//! The command line end to end: each module runs the `utf8conf` binary the way a user
//! does (checks, reports, proofs, reproductions, schemas, usage errors) and reads what it
//! wrote. One test binary for all of them, because each binary links the whole crate.

#[path = "../common/mod.rs"]
mod common;

mod adapter_test_cli;
mod check_cli;
mod check_html;
mod cli_bounds;
mod disk_full;
mod encoder_cli;
mod exhaustive_cli;
mod lib_check;
mod model_cli;
mod prove_cli;
mod reproductions;
mod run_model;
mod schemas;
mod security_cli;
mod streaming_check;

/// One `check` of the per-byte test adapter (`tests/adapters/per_byte.py`, named "per
/// byte"), run once per test binary and read by every test about that decoder's report
/// (its findings, its page in Chromium): a whole check through a Python adapter is the
/// slowest thing these tests do. (exit code, stdout, stderr, report folder.)
pub fn per_byte_check() -> &'static (i32, String, String, std::path::PathBuf) {
    static CHECK: std::sync::OnceLock<(i32, String, String, std::path::PathBuf)> =
        std::sync::OnceLock::new();
    CHECK.get_or_init(|| {
        let out = common::scratch("check-per-byte");
        let (code, stdout, stderr) = check_cli::check(&[
            "--cmd",
            "python3 tests/adapters/per_byte.py",
            "--name",
            "per byte",
            "--quiet",
            "--out",
            out.to_str().expect("a UTF-8 temporary folder"),
        ]);
        (code, stdout, stderr, out)
    })
}

/// One `check --fail-on high` of the test adapter that accepts `C0 AF` as "/"
/// (`tests/adapters/overlong_slash.py`, named by its absolute path), run in a scratch
/// folder of its own with the report in `report/` there: the security tests read its
/// impact, and the reproduction tests run its printed commands in that folder, as a user
/// would where they ran the check. (exit code, stderr, the folder.)
pub fn overlong_slash_check() -> &'static (i32, String, std::path::PathBuf) {
    static CHECK: std::sync::OnceLock<(i32, String, std::path::PathBuf)> =
        std::sync::OnceLock::new();
    CHECK.get_or_init(|| {
        let dir = common::scratch_dir("check-overlong-slash");
        let adapter = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/adapters/overlong_slash.py");
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_utf8conf"))
            .args(["check", "--quiet", "--fail-on", "high", "--cmd"])
            .arg(format!("python3 {}", adapter.display()))
            .args(["--out", "report"])
            .current_dir(&dir)
            .output()
            .expect("utf8conf runs");
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stderr).into_owned(),
            dir,
        )
    })
}
