//! Replaying a conformance report in the author's own test: [`reproduce`].
//!
//! A decoder checked through this API lives in its author's crate, where no `utf8conf`
//! command line can reach it, so its reports print a call instead of a command
//! ([`crate::reproduction::author_replay`]). The call regrades each finding's
//! witness with the decoder as it is now, the same way [`super::check`] graded it, and
//! says which findings are still there: a finding is identified by its root cause
//! ([`crate::finding::Finding::id_for`]), so "still there" means the same departure for
//! the same reason, not merely some departure on the same bytes.

use std::path::Path;

use super::{check_inputs_of, YourDecoder};
use crate::corpus::{Input, Origin};
use crate::finding::Finding;
use crate::hex::parse_hex;

/// The outcome of [`reproduce`]: the report's findings, split by whether the decoder
/// still shows them on their witnesses.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// Findings the decoder still shows (the same root cause on the same witness).
    pub reproduced: Vec<Finding>,
    /// Findings it no longer shows (fixed, or the report was made by another version).
    pub gone: Vec<Finding>,
}

impl Replay {
    /// Panics, naming each finding, unless every finding of the report is gone: the
    /// assertion for a regression test after a fix.
    #[track_caller]
    pub fn assert_fixed(&self) {
        if !self.reproduced.is_empty() {
            let lines: Vec<String> = self
                .reproduced
                .iter()
                .map(|finding| format!("  {} on [{}]", finding.title, finding.witness_hex))
                .collect();
            panic!(
                "{} finding{} still reproduce{}:\n{}",
                self.reproduced.len(),
                if self.reproduced.len() == 1 { "" } else { "s" },
                if self.reproduced.len() == 1 { "s" } else { "" },
                lines.join("\n")
            );
        }
    }
}

/// Reads the `conformance.json` at `report` (written by
/// [`ConformanceReport::write`](crate::conformance::report::ConformanceReport::write)) and
/// regrades every finding's witness with `decoder`. Fails with a one-line reason when the
/// file cannot be read or holds no findings list.
pub fn reproduce<D: YourDecoder + ?Sized>(
    report: impl AsRef<Path>,
    decoder: &D,
) -> Result<Replay, String> {
    let report = report.as_ref();
    let text = std::fs::read_to_string(report)
        .map_err(|error| format!("cannot read {}: {error}", report.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|error| format!("{}: not JSON: {error}", report.display()))?;
    let findings = json.get("findings").cloned().ok_or_else(|| {
        format!(
            "{}: not a conformance report (no findings)",
            report.display()
        )
    })?;
    let findings: Vec<Finding> = serde_json::from_value(findings)
        .map_err(|error| format!("{}: unreadable findings: {error}", report.display()))?;
    let mut inputs = Vec::with_capacity(findings.len());
    for finding in &findings {
        let bytes = parse_hex(&finding.witness_hex)
            .map_err(|error| format!("{}: finding {}: {error}", report.display(), finding.id))?;
        inputs.push(Input {
            bytes,
            origin: Origin::User {
                source: format!("{}: witness of {}", report.display(), finding.id),
            },
        });
    }
    let regraded = check_inputs_of(decoder, &inputs);
    let (reproduced, gone) = findings
        .into_iter()
        .partition(|finding| regraded.findings.iter().any(|now| now.id == finding.id));
    Ok(Replay { reproduced, gone })
}
