//! `utf8conf model`: a decoder's learned machine, its difference from RFC 3629's, and the
//! findings by mechanism, as JSON on stdout (`schemas/model.schema.json`).
//!
//! - `utf8conf model --decoder NAME`: a built-in, mutant or planted decoder, in process;
//! - `utf8conf model --cmd 'PROGRAM ARG...'`: an adapter (docs/PROTOCOL.md), whose
//!   membership queries go through the pipe in batches;
//! - `utf8conf model --lib PATH --symbol NAME`: a C decoder in its worker process.
//!
//! Exit 0 when the machine equals the reference's, 1 when it differs, 2 on errors.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{model_known, CliError};
use crate::adapter::command::split_command_line;
use crate::adapter::{
    AdapterConfig, ExternalDecoder, DEFAULT_ANSWER_TIMEOUT, DEFAULT_HELLO_TIMEOUT,
};
use crate::decoders::{self, Decoder};
use crate::model::draw;
use crate::model::learner::Limits;
use crate::model::model_report;
#[cfg(unix)]
use crate::native::{NativeConfig, NativeDecoder};

/// Arguments of `utf8conf model`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// A built-in decoder (see `utf8conf decoders`), or a mutant or planted one.
    #[arg(long, conflicts_with_all = ["cmd", "lib"], required_unless_present_any = ["cmd", "lib", "regenerate_known"])]
    decoder: Option<String>,
    /// An adapter command, split like a shell would (quotes work) but run without one.
    #[arg(long, value_name = "'PROGRAM ARG...'", conflicts_with = "lib")]
    cmd: Option<String>,
    /// A C decoder as a shared library exporting the function of include/utf8conf.h.
    #[arg(long, value_name = "PATH", requires = "symbol")]
    lib: Option<PathBuf>,
    /// The exported decode function for --lib.
    #[arg(long, value_name = "NAME", requires = "lib")]
    symbol: Option<String>,
    /// Largest machine learned before giving up.
    #[arg(long, default_value_t = Limits::default().max_states)]
    max_states: usize,
    /// Also writes the learned machine beside the RFC 3629 machine as an SVG drawing, with
    /// the differing transitions marked.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Learns every known decoder again and writes the known-models file here
    /// (docs/MODEL.md, "Recognition").
    #[arg(long, value_name = "FILE", hide = true, conflicts_with_all = ["decoder", "cmd", "lib"])]
    regenerate_known: Option<PathBuf>,
    /// The adapter list the regeneration learns the adapters of.
    #[arg(
        long,
        value_name = "FILE",
        hide = true,
        default_value = "adapters/list.json"
    )]
    adapters: PathBuf,
}

/// Runs `utf8conf model`.
pub fn run(args: ModelArgs) -> Result<u8, CliError> {
    let limits = Limits {
        max_states: args.max_states,
        ..Limits::default()
    };
    if let Some(out) = &args.regenerate_known {
        return model_known::regenerate(out, &args.adapters, limits);
    }
    let answer_timeout = DEFAULT_ANSWER_TIMEOUT;
    let decoder: Box<dyn Decoder> = if let Some(name) = &args.decoder {
        decoders::by_name(name).ok_or_else(|| {
            CliError(format!(
                "unknown decoder '{name}' (built-in: {})",
                decoders::builtin_names().join(", ")
            ))
        })?
    } else if let Some(command_line) = &args.cmd {
        let argv = split_command_line(command_line).map_err(|e| CliError(format!("--cmd: {e}")))?;
        let config = AdapterConfig {
            argv,
            name: None,
            answer_timeout,
            hello_timeout: DEFAULT_HELLO_TIMEOUT,
        };
        Box::new(ExternalDecoder::start(config).map_err(|e| CliError(e.0))?)
    } else {
        native(&args, answer_timeout)?
    };
    // An adapter's capabilities are the fields seen in its answers so far: a few
    // answers first, so that the learning compares everything it reports.
    let _ = decoder.decode_batch(&model_known::PROBES);
    let report = model_report(&*decoder, limits)?;
    if let Some(path) = &args.svg {
        let drawing = draw::svg(
            &report.model.machine,
            &report.reference.machine,
            &report.differences,
            &report.decoder,
        );
        std::fs::write(path, drawing)
            .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(if report.equivalent { 0 } else { 1 })
}

#[cfg(unix)]
fn native(args: &ModelArgs, answer_timeout: Duration) -> Result<Box<dyn Decoder>, CliError> {
    let (Some(library), Some(symbol)) = (&args.lib, &args.symbol) else {
        return Err(CliError("give --decoder, --cmd or --lib".to_string()));
    };
    let mut config = NativeConfig::new(library.clone(), symbol.clone())
        .map_err(|e| CliError(format!("cannot find the utf8conf executable: {e}")))?;
    config.answer_timeout = answer_timeout;
    Ok(Box::new(
        NativeDecoder::start(config).map_err(|e| CliError(e.0))?,
    ))
}

#[cfg(not(unix))]
fn native(_: &ModelArgs, _: Duration) -> Result<Box<dyn Decoder>, CliError> {
    Err(CliError("--lib needs a Unix system".to_string()))
}
