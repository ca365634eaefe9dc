//! Starting an adapter process and reading its hello (docs/PROTOCOL.md, "Hello"): every
//! way of not getting a good hello is one clear [`AdapterError`].

use std::time::{Duration, Instant};

use super::answer::{parse_hello, Hello};
use super::config::seconds;
use super::process::{self, AdapterProcess, NextLine};
use super::{AdapterConfig, AdapterError};

/// Starts the adapter and waits for its hello.
pub(super) fn start_process(
    config: &AdapterConfig,
) -> Result<(AdapterProcess, Hello), AdapterError> {
    let program = &config.argv[0];
    let mut process = AdapterProcess::spawn(&config.argv).map_err(|error| {
        let reason = match error.kind() {
            std::io::ErrorKind::NotFound => "no such program".to_string(),
            std::io::ErrorKind::PermissionDenied => "not executable (permission denied)".into(),
            _ => error.to_string(),
        };
        AdapterError(format!("cannot start adapter `{program}`: {reason}"))
    })?;
    let command = config.argv.join(" ");
    let deadline = Instant::now() + config.hello_timeout;
    let line = match process.next_line(deadline) {
        NextLine::Line(line) => line,
        NextLine::TooLong => {
            return Err(AdapterError(format!(
                "adapter `{command}`: hello line longer than {} bytes",
                process::MAX_LINE_BYTES
            )))
        }
        NextLine::Ended => {
            let status = process.exit_status(Duration::from_millis(500)).map_or_else(
                || "closed its stdout".to_string(),
                |s| format!("exited ({s})"),
            );
            return Err(AdapterError(format!(
                "adapter `{command}` {status} before its hello line{}",
                stderr_suffix(&process)
            )));
        }
        NextLine::TimedOut => {
            let message = format!(
                "adapter `{command}` said no hello line within {}{}",
                seconds(config.hello_timeout),
                stderr_suffix(&process)
            );
            process.kill();
            return Err(AdapterError(message));
        }
        NextLine::Interrupted => {
            process.kill();
            return Err(AdapterError(format!(
                "adapter `{command}`: interrupted while waiting for its hello"
            )));
        }
    };
    match parse_hello(&line) {
        Ok(hello) => Ok((process, hello)),
        Err(reason) => {
            process.kill();
            Err(AdapterError(format!(
                "adapter `{command}`: bad hello line: {reason}"
            )))
        }
    }
}

pub(super) fn stderr_suffix(process: &AdapterProcess) -> String {
    const LIMIT: usize = 300;
    let tail = process.stderr_tail();
    if tail.is_empty() {
        return String::new();
    }
    let skip = tail.chars().count().saturating_sub(LIMIT);
    let shown: String = tail.chars().skip(skip).collect();
    let shown = crate::sanitize::terminal(&shown);
    format!("; stderr: {}{shown}", if skip > 0 { "..." } else { "" })
}
