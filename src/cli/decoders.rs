//! `utf8conf decoders`: the decoders with their versions and capabilities.

use clap::Args;

use super::CliError;
use crate::decoders;

/// Arguments of `utf8conf decoders`.
#[derive(Debug, Args)]
pub struct DecodersArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `utf8conf decoders`.
pub fn run(args: DecodersArgs) -> Result<u8, CliError> {
    let all = decoders::builtin();
    if args.json {
        let list: Vec<serde_json::Value> = all
            .iter()
            .map(|d| {
                serde_json::json!({
                    "name": d.name(),
                    "version": d.version(),
                    "capabilities": d.capabilities().names(),
                    "description": d.description(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(0);
    }
    let name_width = all.iter().map(|d| d.name().len()).max().unwrap_or(4).max(4);
    let version_width = all
        .iter()
        .map(|d| d.version().len())
        .max()
        .unwrap_or(7)
        .max(7);
    println!(
        "{:name_width$}  {:version_width$}  CAPABILITIES",
        "NAME", "VERSION"
    );
    for d in &all {
        println!(
            "{:name_width$}  {:version_width$}  {}",
            d.name(),
            d.version(),
            d.capabilities().names().join(",")
        );
    }
    Ok(0)
}
