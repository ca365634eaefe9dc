//! The round-trip report: what `check --round-trip` writes (`round-trip.json`, valid
//! against `schemas/round-trip.schema.json`, and `round-trip.md`), and the line it prints
//! per pair.

use std::fmt::Write as _;

use serde::Serialize;

use crate::diagnosis::round_trip::{RoundTripFailure, RoundTripGrade, RUN};
use crate::sanitize;

/// The schema identifier of [`RoundTripReport`].
pub const ROUND_TRIP_SCHEMA: &str = "utf8conf-round-trip-report/1";

/// The report of one `check --round-trip`.
#[derive(Debug, Clone, Serialize)]
pub struct RoundTripReport {
    /// [`ROUND_TRIP_SCHEMA`].
    pub schema: &'static str,
    /// When the check ran (RFC 3339, UTC).
    pub created: String,
    /// The utf8conf version.
    pub tool_version: &'static str,
    /// Whether every round trip holds.
    pub verdict: RoundTripVerdict,
    /// Each decoder and encoder pair graded.
    pub pairs: Vec<RoundTripGrade>,
}

/// What a round-trip check concludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoundTripVerdict {
    /// Every pair round-trips every value it was given.
    Holds,
    /// Some pair does not.
    Fails,
    /// A grade stopped early (an adapter unusable, a signal, the time limit).
    Incomplete,
}

impl std::fmt::Display for RoundTripVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RoundTripVerdict::Holds => "holds",
            RoundTripVerdict::Fails => "fails",
            RoundTripVerdict::Incomplete => "incomplete",
        })
    }
}

impl RoundTripReport {
    /// A report of `pairs`, created `created`: `incomplete` when a grade stopped early,
    /// else `holds` when every round trip holds, else `fails`.
    pub fn new(created: String, pairs: Vec<RoundTripGrade>) -> RoundTripReport {
        let verdict = if pairs.iter().any(|g| g.stopped_by.is_some()) {
            RoundTripVerdict::Incomplete
        } else if pairs.iter().all(RoundTripGrade::holds) {
            RoundTripVerdict::Holds
        } else {
            RoundTripVerdict::Fails
        };
        RoundTripReport {
            schema: ROUND_TRIP_SCHEMA,
            created,
            tool_version: env!("CARGO_PKG_VERSION"),
            verdict,
            pairs,
        }
    }

    /// `round-trip.md`: the verdict, then per pair both directions, each with its first
    /// failing value and what each side made of it.
    pub fn markdown(&self) -> String {
        let mut out = String::from("# UTF-8 round trips\n\n");
        let _ = writeln!(
            out,
            "Verdict: **{}**. `decode(encode(x)) == x` for every scalar value, and `encode(decode(b)) == b` for well-formed inputs, graded on {} by utf8conf {}.\n",
            self.verdict, self.created, self.tool_version
        );
        for grade in &self.pairs {
            markdown_pair(&mut out, grade);
        }
        out
    }

    /// The lines printed on the terminal: one per pair.
    pub fn terminal(&self) -> String {
        let mut out = String::new();
        for grade in &self.pairs {
            let failure = |failure: &Option<RoundTripFailure>| match failure {
                None => "holds".to_string(),
                Some(f) => format!(
                    "first failing {}: {}, then {}",
                    sanitize::terminal(&f.value),
                    sanitize::terminal(&f.through),
                    sanitize::terminal(&f.back)
                ),
            };
            let _ = writeln!(
                out,
                "{} + {}: decode(encode(x)) over {} scalars: {}; encode(decode(b)) over {} well-formed inputs: {}{}",
                sanitize::terminal(&grade.decoder),
                sanitize::terminal(&grade.encoder),
                grade.scalars_checked,
                failure(&grade.first_failing_scalar),
                grade.byte_inputs_checked,
                failure(&grade.first_failing_bytes),
                grade
                    .stopped_by
                    .as_deref()
                    .map(|why| format!("; stopped: {}", sanitize::terminal(why)))
                    .unwrap_or_default()
            );
        }
        out
    }
}

fn markdown_pair(out: &mut String, grade: &RoundTripGrade) {
    let _ = writeln!(
        out,
        "## {} + {}\n",
        code(&grade.decoder),
        code(&grade.encoder)
    );
    let _ = writeln!(
        out,
        "- `decode(encode(x))`: {} scalar values, in runs of {RUN}: {}",
        grade.scalars_checked,
        match grade.failing_scalar_runs {
            0 => "every one comes back".to_string(),
            1 => "1 run fails".to_string(),
            n => format!("{n} runs fail"),
        }
    );
    markdown_failure(out, "scalar", grade.first_failing_scalar.as_ref());
    let _ = writeln!(
        out,
        "- `encode(decode(b))`: {} well-formed inputs: {}",
        grade.byte_inputs_checked,
        match grade.failing_byte_inputs {
            0 => "every one comes back".to_string(),
            1 => "1 fails".to_string(),
            n => format!("{n} fail"),
        }
    );
    markdown_failure(out, "input", grade.first_failing_bytes.as_ref());
    if let Some(why) = &grade.stopped_by {
        let _ = writeln!(out, "- Stopped early: {}", sanitize::markdown_text(why));
    }
    let _ = writeln!(out);
}

fn markdown_failure(out: &mut String, what: &str, failure: Option<&RoundTripFailure>) {
    if let Some(f) = failure {
        let _ = writeln!(
            out,
            "  - first failing {what}: {}; {}; then {}",
            code(&f.value),
            sanitize::markdown_text(&f.through),
            sanitize::markdown_text(&f.back)
        );
    }
}

/// `text` as a code span: in single backticks when that is unambiguous, else with the
/// fence and padding of [`sanitize::markdown_code`].
fn code(text: &str) -> String {
    let plain = sanitize::terminal(text);
    if plain.is_empty() || plain.contains('`') || plain.starts_with(' ') || plain.ends_with(' ') {
        sanitize::markdown_code(text)
    } else {
        format!("`{plain}`")
    }
}
