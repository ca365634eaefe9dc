//! Usage errors as one line on stderr: what is wrong, then where the help is.
//!
//! clap renders a usage error as several lines (the error, a blank line, the usage, a
//! blank line, a hint). The command line's contract is one line on stderr for every
//! error, so the error is joined into one line and the usage is replaced by the
//! subcommand's `--help`, which says everything the usage did and more.

use std::process::ExitCode;

use clap::Parser;

use super::{Cli, EXIT_ERROR};
use crate::sanitize;

/// Parses the command line; on `--help` or `--version` prints them and returns exit 0, on
/// a usage error prints its one line and returns exit 2.
pub(super) fn parse() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(error) if !error.use_stderr() => {
            let _ = error.print();
            Err(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("{}", one_line(&error.render().to_string()));
            Err(ExitCode::from(EXIT_ERROR))
        }
    }
}

/// `utf8conf: error: WHAT; see 'utf8conf SUBCOMMAND --help'` from clap's rendering.
fn one_line(rendered: &str) -> String {
    let (message, rest) = rendered.split_once("\n\nUsage:").unwrap_or((rendered, ""));
    let message = message
        .trim()
        .strip_prefix("error: ")
        .unwrap_or(message.trim());
    let message: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // The usage line names the subcommand: `utf8conf check [OPTIONS] ...`.
    let command: Vec<&str> = rest
        .split_whitespace()
        .take_while(|word| !word.starts_with(['[', '<', '-']))
        .take(2)
        .collect();
    let command = if command.is_empty() {
        "utf8conf".to_string()
    } else {
        command.join(" ")
    };
    format!(
        "utf8conf: error: {}; see '{command} --help'",
        sanitize::single_line(&message.join("; "), 400)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_errors_become_one_line_with_the_subcommand_help() {
        let rendered = "error: unexpected argument '--nope' found\n\n  tip: to pass '--nope' as a value, use '-- --nope'\n\nUsage: utf8conf decode [OPTIONS] [-]\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(rendered),
            "utf8conf: error: unexpected argument '--nope' found; tip: to pass '--nope' as a value, use '-- --nope'; see 'utf8conf decode --help'"
        );
        let bare = "error: unrecognized subcommand 'nope'\n\nUsage: utf8conf [COMMAND]\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(bare),
            "utf8conf: error: unrecognized subcommand 'nope'; see 'utf8conf --help'"
        );
    }
}
