//! `utf8conf doc-figures` (hidden): the figures the documentation quotes that the tool
//! itself determines, one `name value` line each, for the docs check
//! (`.ci/docs-figures.sh`), which compares every quoted figure with these and can rewrite
//! the docs from them.
//!
//! Only figures that follow from the code and the embedded data are here: they are the
//! same on every machine. Timings and the findings of third-party adapters depend on the
//! machine and its toolchains, and are measured by the scripts the docs name instead.

use clap::Args;

use super::CliError;
use crate::conformance::inputs::check_inputs;
use crate::decoders::planted;
use crate::engine::progress::group_digits;
use crate::taxonomy::Category;

/// Arguments of `utf8conf doc-figures` (none).
#[derive(Debug, Args)]
pub struct DocFiguresArgs {}

/// The figures, in the order printed.
pub fn figures() -> Result<Vec<(&'static str, String)>, CliError> {
    let inputs = check_inputs().map_err(|e| CliError(format!("vectors: {e}")))?;
    Ok(vec![
        ("check-inputs", group_digits(inputs.len() as u64)),
        ("categories", Category::ALL.len().to_string()),
        ("planted-decoders", planted::catalogue().count().to_string()),
    ])
}

/// Runs `utf8conf doc-figures`.
pub fn run(_args: DocFiguresArgs) -> Result<u8, CliError> {
    for (name, value) in figures()? {
        println!("{name} {value}");
    }
    Ok(0)
}
