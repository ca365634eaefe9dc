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
