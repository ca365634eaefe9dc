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
