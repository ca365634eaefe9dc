//! The verdict of a check: one word a report, a matrix row and an exit status agree on.

use serde::Serialize;

/// What a check of a decoder (`check`) or of encoders (`check-encoder`) concludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Nothing departs: for a decoder, every category passes and its lossy decode
    /// follows maximal subparts; for encoders, no finding.
    Conformant,
    /// Something departs from the reference somewhere.
    Deviations,
    /// The check stopped early (a signal, its time limit): what it found is kept.
    Incomplete,
    /// The adapter or library could not be used (it never answered, or kept failing);
    /// a decoder check only.
    AdapterUnusable,
}

impl Verdict {
    /// The verdict's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Conformant => "conformant",
            Verdict::Deviations => "deviations",
            Verdict::Incomplete => "incomplete",
            Verdict::AdapterUnusable => "adapter-unusable",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
