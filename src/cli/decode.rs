//! `utf8conf decode --decoder NAME (--hex HEX | --file PATH | -)`: one outcome as JSON.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::decoders;
use crate::hex::parse_hex;

/// Arguments of `utf8conf decode`.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The decoder to run (see `utf8conf decoders`).
    #[arg(long, default_value = "reference")]
    decoder: String,
    /// The input as hex bytes, e.g. "61 F1 80 80".
    #[arg(long, conflicts_with_all = ["file", "stdin"])]
    hex: Option<String>,
    /// Read the input from a file.
    #[arg(long, conflicts_with = "stdin")]
    file: Option<PathBuf>,
    /// Read the input from standard input.
    #[arg(value_name = "-", value_parser = clap::builder::PossibleValuesParser::new(["-"]))]
    stdin: Option<String>,
    /// With the reference decoder: add each error unit's explanation in the grammar's terms.
    #[arg(long)]
    explain: bool,
}

/// Runs `utf8conf decode`.
pub fn run(args: DecodeArgs) -> Result<u8, CliError> {
    let decoder = decoders::by_name(&args.decoder).ok_or_else(|| {
        CliError(format!(
            "unknown decoder '{}' (known: {})",
            args.decoder,
            decoders::builtin_names().join(", ")
        ))
    })?;
    let input = if let Some(text) = &args.hex {
        parse_hex(text)?
    } else if let Some(path) = &args.file {
        std::fs::read(path).map_err(|e| CliError(format!("cannot read {}: {e}", path.display())))?
    } else if args.stdin.is_some() {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        bytes
    } else {
        return Err(CliError(
            "give the input with --hex HEX, --file PATH or - (stdin)".into(),
        ));
    };
    let outcome = decoder
        .decode(&input)
        .map_err(|failure| CliError(failure.to_string()))?;
    let mut json = serde_json::to_value(&outcome)?;
    if args.explain {
        let reference = crate::reference::Reference::rfc3629();
        let explanations: Vec<String> = reference
            .decode(&input)
            .errors
            .iter()
            .map(|error| reference.explain(&input, error))
            .collect();
        json["explanations"] = serde_json::json!(explanations);
    }
    println!("{json}");
    Ok(0)
}
