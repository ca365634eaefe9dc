//! [`Severity`]: how much a class of departure matters to a program that trusts the
//! decoder (docs/SECURITY-IMPACT.md), the scale `--fail-on` reads.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much a class of departure matters to a program that trusts the decoder, ordered
/// from least to most.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// No security consequence: a documented, legitimate choice.
    #[default]
    Info,
    /// Wrong, but an attacker gains little: a misreported position, a rejected character.
    Low,
    /// Text other programs will misread, or a denial of service.
    Medium,
    /// Exploitable as the specifications describe: filters bypassed, tokens joined,
    /// markup lost, buffers overrun.
    High,
    /// Exploited in the wild, as RFC 3629 §10 records (non-shortest forms).
    Critical,
}

impl Severity {
    /// Every severity, least first.
    pub const ALL: [Severity; 5] = [
        Severity::Info,
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::Critical,
    ];

    /// The lowercase name used in reports and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = String;

    fn from_str(name: &str) -> Result<Severity, String> {
        Severity::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| {
                format!("unknown severity {name:?} (expected info, low, medium, high or critical)")
            })
    }
}
