//! The `utf8conf` command line (docs/DESIGN.md §3.1).
//!
//! Exit codes are part of the contract: 0 for success (no departure, conformant), 1 for
//! findings, 2 for a usage or I/O error, which is always reported as one line on stderr,
//! 130 after SIGINT or SIGTERM (`check` and `run` first write what they found, marked as
//! partial; see [`crate::adapter::interrupt`]).

mod adapter_test;
mod check;
mod check_all;
mod check_encoder;
mod check_summary;
mod decode;
mod decoders;
mod doc_figures;
mod exhaustive;
mod formats;
mod lib_worker;
mod model;
mod model_args;
mod model_known;
mod prove;
mod report_directory;
mod reproduce;
mod round_trip;
mod run;
pub mod seed_corpus;
mod usage;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::sanitize;

/// Exit code for usage and I/O errors.
pub const EXIT_ERROR: u8 = 2;

/// UTF-8 fuzzing and conformance harness: runs decoders differentially against an RFC 3629
/// reference and reports every departure as JSON.
#[derive(Debug, Parser)]
#[command(name = "utf8conf", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode one input with one decoder and print its outcome as JSON.
    Decode(decode::DecodeArgs),
    /// List the decoders with their versions and what they report.
    Decoders(decoders::DecodersArgs),
    /// Run every decoder against the reference over the vectors and generated corpora,
    /// and report each departure as JSON (the default command).
    Run(run::RunArgs),
    /// Re-run a finding report's decoder pair on its minimised input; exit 1 if the
    /// departure is still there, 0 if not.
    Reproduce(reproduce::ReproduceArgs),
    /// Grade an external decoder (adapter protocol) or all of them for conformance; with
    /// --encoder, an external encoder; with --round-trip, a decoder and encoder pair.
    Check(check::CheckArgs),
    /// Grade a UTF-8 encoder (built-in or planted) against the reference encoder: findings
    /// and its policy for surrogates and values above U+10FFFF.
    CheckEncoder(check_encoder::CheckEncoderArgs),
    /// Check an adapter's protocol handling and say exactly what is wrong with it.
    AdapterTest(adapter_test::AdapterTestArgs),
    /// Prove the fast decoder's automata (shift-DFA table, SIMD lookup check, UTF-32
    /// step table) equal to the RFC 3629 grammar; `--dot DIR` writes them as Graphviz.
    Prove(prove::ProveArgs),
    /// Learn a decoder's machine, compare it with RFC 3629's and print both, the
    /// differences and the findings by mechanism as JSON.
    Model(model::ModelArgs),
    /// Every input up to --max-len bytes through the decoders, compared with the
    /// reference; shardable (--shard I/N) and mergeable (--merge DIR...).
    Exhaustive(exhaustive::ExhaustiveArgs),
    /// Write the fuzz targets' seed corpus (corpus/<target>/) from the embedded vectors.
    SeedCorpus(seed_corpus::SeedCorpusArgs),
    /// Internal: the figures the docs quote, for the docs check (.ci/docs-figures.sh).
    #[command(hide = true)]
    DocFigures(doc_figures::DocFiguresArgs),
    /// Internal: serve a C library to `check --lib` (started by the harness itself).
    #[command(hide = true)]
    LibWorker(lib_worker::LibWorkerArgs),
}

/// An error that ends the command with exit code 2 and one line on stderr.
#[derive(Debug)]
pub struct CliError(pub String);

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(error: E) -> Self {
        CliError(error.to_string())
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = match usage::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    crate::adapter::interrupt::install();
    let result = match cli.command {
        Some(Command::Decode(args)) => decode::run(args),
        Some(Command::Decoders(args)) => decoders::run(args),
        Some(Command::Run(args)) => run::run(args),
        Some(Command::Reproduce(args)) => reproduce::run(args),
        Some(Command::Check(args)) if args.all => check_all::run(args),
        Some(Command::Check(args)) => check::run(args),
        Some(Command::CheckEncoder(args)) => check_encoder::run(args),
        Some(Command::AdapterTest(args)) => adapter_test::run(args),
        Some(Command::SeedCorpus(args)) => seed_corpus::run(args),
        Some(Command::Prove(args)) => prove::run(args),
        Some(Command::Exhaustive(args)) => exhaustive::run(args),
        Some(Command::Model(args)) => model::run(args),
        Some(Command::LibWorker(args)) => Ok(lib_worker::run(args)),
        Some(Command::DocFigures(args)) => doc_figures::run(args),
        // Plain `utf8conf` is `utf8conf run` with defaults (docs/DESIGN.md §3.1).
        None => run::run(run::RunArgs::defaults()),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(CliError(message)) => {
            // One line, control characters escaped: a message may quote a hostile file
            // (serde names the unknown value it met).
            eprintln!(
                "utf8conf: error: {}",
                sanitize::single_line(message.lines().next().unwrap_or("unknown error"), 500)
            );
            ExitCode::from(EXIT_ERROR)
        }
    }
}
