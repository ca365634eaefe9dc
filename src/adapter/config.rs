//! How to run an adapter ([`AdapterConfig`]), its time limits, and the error for an
//! adapter that cannot be started ([`AdapterError`]).

use std::time::Duration;

/// Default time limit for one answer.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// Default time limit for the hello line after start.
pub const DEFAULT_HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest time limit accepted for an answer, a hello or a whole check: one day.
pub const MAX_TIME_LIMIT: Duration = Duration::from_secs(86_400);

/// How to run an adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterConfig {
    /// The program and its arguments (split with
    /// [`split_command_line`](super::command::split_command_line)).
    pub argv: Vec<String>,
    /// The name to report under; the hello's name when `None`.
    pub name: Option<String>,
    /// Time limit for each answer.
    pub answer_timeout: Duration,
    /// Time limit for the hello line, at start and at every restart.
    pub hello_timeout: Duration,
}

impl AdapterConfig {
    /// A configuration with the default time limits.
    pub fn new(argv: Vec<String>) -> AdapterConfig {
        AdapterConfig {
            argv,
            name: None,
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            hello_timeout: DEFAULT_HELLO_TIMEOUT,
        }
    }
}

/// An adapter could not be started (or restarted): the check cannot go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterError(pub String);

impl std::fmt::Display for AdapterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AdapterError {}

/// A duration for a message: `"5.0 s"`.
pub(super) fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}
