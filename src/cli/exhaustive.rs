//! `utf8conf exhaustive`: every input up to `--max-len` bytes through the decoders
//! ([`crate::exhaustive`]), or `--merge` of the run directories of its shards. With
//! `--lib PATH --symbol NAME`, a C decoder (`include/utf8conf.h`) is checked too, in its
//! restartable worker process as for `check --lib`, a block of the space per batch
//! ([`crate::native::blocks`]).
//!
//! Exit codes as for `utf8conf run`: 0 no departure, 1 departures, 2 usage or I/O
//! error (including shard directories that do not merge).

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use clap::Args;

use super::model_args::ModelArgs;
use super::run::select_decoders;
use super::CliError;
use crate::decoders::Decoder;
use crate::engine::progress::group_digits;
use crate::exhaustive::coverage::Finished;
use crate::exhaustive::merge::merge;
use crate::exhaustive::space::{Shard, Space, MAX_LEN_LIMIT};
use crate::exhaustive::{run as run_exhaustive, ExhaustiveOptions};
#[cfg(unix)]
use crate::native::{blocks::BlockPrefetch, NativeConfig, NativeDecoder};

/// Arguments of `utf8conf exhaustive`.
#[derive(Debug, Args)]
pub struct ExhaustiveArgs {
    /// Every input of 0 to this many bytes (4 is 4,311,810,305 inputs).
    #[arg(long, value_name = "N", required_unless_present = "merge",
          value_parser = clap::value_parser!(u8).range(0..=MAX_LEN_LIMIT as i64))]
    max_len: Option<u8>,
    /// Comma-separated decoders to compare with the reference [default: every built-in
    /// decoder, or none with --lib; see `utf8conf decoders`].
    #[arg(long, value_delimiter = ',')]
    decoders: Vec<String>,
    /// A C or C++ decoder as a shared library exporting the function of
    /// include/utf8conf.h, run in a restartable worker process (as for `check --lib`).
    #[arg(long, value_name = "PATH", requires = "symbol")]
    lib: Option<PathBuf>,
    /// The exported decode function for --lib.
    #[arg(long, value_name = "NAME", requires = "lib")]
    symbol: Option<String>,
    /// Run only shard I of N (1-based, e.g. 2/4); run every shard, in any number of
    /// places, then `--merge` their run directories.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Worker threads [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// Where the run directory is created.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// Merge the run directories of all shards of one space into a new run directory.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["max_len", "shard", "decoders", "threads", "lib", "model_queries", "model_time"])]
    merge: Vec<PathBuf>,
    /// The budget for learning the machine of each decoder that departs, which its
    /// findings are filed through (as `check` files them).
    #[command(flatten)]
    model: ModelArgs,
}

/// Runs `utf8conf exhaustive`.
pub fn run(args: ExhaustiveArgs) -> Result<u8, CliError> {
    if !args.merge.is_empty() {
        let finished = merge(&args.merge, &args.out)?;
        print_summary(&finished);
        return Ok(finished.summary.exit_code);
    }
    let max_len = args
        .max_len
        .ok_or_else(|| CliError("--max-len is required".into()))?;
    let space = Space::new(max_len as usize)
        .ok_or_else(|| CliError(format!("--max-len is at most {MAX_LEN_LIMIT}")))?;
    let mut options = ExhaustiveOptions::new(space, &args.out);
    if let Some(shard) = args.shard {
        options.shard = shard;
    }
    if let Some(threads) = args.threads {
        options.threads = threads as usize;
    }
    options.model = args.model.budget()?;
    let mut decoders = if args.lib.is_some() && args.decoders.is_empty() {
        Vec::new()
    } else {
        select_decoders(&args.decoders)?
    };
    if let (Some(library), Some(symbol)) = (&args.lib, &args.symbol) {
        decoders.push(library_decoder(library, symbol, options.threads)?);
        options.library = Some((library.display().to_string(), symbol.clone()));
    }
    let stop = options.stop.clone();
    // Ctrl-C: finish the blocks under way and write what was found (a second one quits).
    let _ = ctrlc::set_handler(move || {
        if stop.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
        eprintln!("\nutf8conf: interrupted; finishing the current blocks and writing the summary (Ctrl-C again to quit now)");
    });
    eprintln!(
        "utf8conf: exhaustive --max-len {max_len} --shard {}: {} inputs x {} decoders, {} threads",
        options.shard,
        group_digits(space.shard_inputs(options.shard)),
        decoders
            .iter()
            .filter(|d| d.name() != crate::engine::check::REFERENCE_NAME)
            .count(),
        options.threads
    );
    let finished = run_exhaustive(decoders, &options)
        .map_err(|e| CliError(format!("cannot write the run: {e}")))?;
    print_summary(&finished);
    Ok(finished.summary.exit_code)
}

/// The C decoder of `--lib`, started and ready for the exhaustive workers.
#[cfg(unix)]
fn library_decoder(
    library: &std::path::Path,
    symbol: &str,
    threads: usize,
) -> Result<Box<dyn Decoder>, CliError> {
    let config = NativeConfig::new(library.to_path_buf(), symbol.to_string())
        .map_err(|e| CliError(format!("cannot find the utf8conf executable: {e}")))?;
    let native = NativeDecoder::start(config).map_err(|e| CliError(e.0))?;
    let blocks = BlockPrefetch::new(native, threads).map_err(|e| CliError(e.0))?;
    Ok(Box::new(blocks))
}

/// `--lib` needs a worker process, which is Unix-only.
#[cfg(not(unix))]
fn library_decoder(
    _library: &std::path::Path,
    _symbol: &str,
    _threads: usize,
) -> Result<Box<dyn Decoder>, CliError> {
    Err(CliError("--lib is supported on Unix only".into()))
}

fn print_summary(finished: &Finished) {
    let summary = &finished.summary;
    println!(
        "{} inputs (every input up to {} bytes, shards {}) in {:.1}s ({} inputs/s, {} threads)",
        group_digits(summary.total_inputs),
        finished.coverage.max_len,
        finished.coverage.shards.join(" "),
        summary.duration_seconds,
        group_digits(summary.throughput_inputs_per_second as u64),
        summary.threads
    );
    for counts in &summary.comparisons {
        let departures: u64 = counts.aspects.values().map(|c| c.departures).sum();
        println!(
            "  {:<28} {:>15} inputs  {} departing comparisons",
            counts.decoder,
            group_digits(counts.inputs),
            group_digits(departures)
        );
    }
    super::run::print_models(&summary.models);
    println!(
        "{} departing inputs, {} reports; summary: {}",
        group_digits(summary.departing_inputs),
        summary.reports.len(),
        finished.run_dir.join("summary.json").display()
    );
}
