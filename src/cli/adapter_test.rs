//! `utf8conf adapter-test --cmd 'PROGRAM ARG...'`: checks an adapter's protocol handling
//! (hello, framing, the empty and a large input, pipelining, end of input) and prints one
//! line per check, with what is wrong and how to fix it (see
//! [`crate::adapter::selftest`]). Exit 0: every check passes; 1: some fail; 2: usage
//! error.

use std::time::Duration;

use clap::Args;

use super::CliError;
use crate::adapter::command::split_command_line;
use crate::adapter::selftest::test_adapter;
use crate::adapter::MAX_TIME_LIMIT;
use crate::sanitize::terminal;

/// Arguments of `utf8conf adapter-test`.
#[derive(Debug, Args)]
pub struct AdapterTestArgs {
    /// The adapter command, split like a shell would (quotes work) but run without one.
    #[arg(long, value_name = "'PROGRAM ARG...'")]
    cmd: String,
    /// Seconds to wait for each answer.
    #[arg(long, default_value_t = 5.0)]
    timeout: f64,
}

/// Runs `utf8conf adapter-test`.
pub fn run(args: AdapterTestArgs) -> Result<u8, CliError> {
    let argv = split_command_line(&args.cmd).map_err(|e| CliError(format!("--cmd: {e}")))?;
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|d| !d.is_zero() && *d <= MAX_TIME_LIMIT)
        .ok_or_else(|| CliError("--timeout must be a positive number of seconds".into()))?;
    let results = test_adapter(&argv, timeout);
    let failed = results.iter().filter(|r| r.problem.is_some()).count();
    for result in &results {
        match &result.problem {
            None => println!("ok    {}", terminal(&result.check)),
            Some(problem) => println!("FAIL  {}: {}", terminal(&result.check), terminal(problem)),
        }
    }
    println!(
        "{} of {} checks passed{}",
        results.len() - failed,
        results.len(),
        if failed == 0 {
            "; see docs/PROTOCOL.md, then run `utf8conf check` (`check --encoder` for an encoder)"
        } else {
            ""
        }
    );
    Ok(if failed == 0 { 0 } else { 1 })
}
