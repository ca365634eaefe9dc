//! `utf8conf.sarif`: findings as a SARIF 2.1.0 log, for code scanning
//! (`--format sarif` of `run` and `check`).
//!
//! SARIF 2.1.0 (OASIS Standard, errata 01; schema vendored as
//! `schemas/sarif-schema-2.1.0.json`, and `.ci/ci-formats.sh` validates every log written
//! in CI against it). What this writer puts where, and why:
//!
//! - one `run`, whose `tool.driver.rules` are fixed: one rule per taxonomy category
//!   (`utf8/<category>`), plus `utf8/decoder-failure` (a crash, timeout or protocol error
//!   on an input of no ill-formed category) and `utf8/uncategorised`. A result's `ruleId`
//!   is the rule of its first category, so the same class of bug keeps the same rule from
//!   run to run (§3.27.5: "ruleId ... a stable, opaque identifier for the rule");
//! - `partialFingerprints` carries the finding's stable id under `utf8confFindingId/v1`
//!   (§3.27.17: "a set of strings ... that contribute to the unique identity of the
//!   result"), so code scanning matches a finding across runs and does not re-open it;
//! - `level` is mapped from the finding's severity where it has one (critical and high:
//!   `error`; medium: `warning`; low and info: `note`); a finding without a severity is a
//!   departure from RFC 3629, so `error`;
//! - `locations` point at the vector case (file and line of its `id = "..."`) when the
//!   finding came from a vector, else at the JSON report that holds the finding.

use std::io;
use std::path::Path;

use serde_json::{json, Value};

use super::export::{ExportedFinding, SourceLocation};
use crate::atomic_file::write_json_atomically;
use crate::taxonomy::{Category, Prose};

/// The `$schema` of the logs written (the OASIS location of the 2.1.0 schema).
pub const SARIF_SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The `partialFingerprints` key of a finding's id.
pub const FINGERPRINT_KEY: &str = "utf8confFindingId/v1";

/// The rule of a crash, timeout or protocol failure on input of no ill-formed category.
pub const DECODER_FAILURE_RULE: &str = "utf8/decoder-failure";
/// The rule of a finding with no category.
pub const UNCATEGORISED_RULE: &str = "utf8/uncategorised";

/// Every rule: (id, short description, full description).
fn rules() -> Vec<(String, &'static str, &'static str)> {
    let mut rules: Vec<(String, &'static str, &'static str)> = Category::ALL
        .into_iter()
        .map(|category| {
            let Prose {
                title: short,
                description: full,
                ..
            } = category.prose();
            (rule_id_of(category), short, full)
        })
        .collect();
    rules.push((
        DECODER_FAILURE_RULE.to_string(),
        "Decoder failure",
        "The decoder crashed, timed out or broke the adapter protocol.",
    ));
    rules.push((
        UNCATEGORISED_RULE.to_string(),
        "Departure from RFC 3629",
        "The decoder departs from the RFC 3629 reference on input of no taxonomy category.",
    ));
    rules
}

/// The rule id of a taxonomy category.
pub fn rule_id_of(category: Category) -> String {
    format!("utf8/{}", category.as_str())
}

/// The rule a finding is filed under.
pub fn rule_of(finding: &ExportedFinding) -> String {
    match (finding.categories.first(), &finding.failure_kind) {
        (Some(&category), _) => rule_id_of(category),
        (None, Some(_)) => DECODER_FAILURE_RULE.to_string(),
        (None, None) => UNCATEGORISED_RULE.to_string(),
    }
}

/// SARIF `level` of a severity (see the module header).
pub fn level_of(severity: Option<&str>) -> &'static str {
    match severity {
        Some("medium") => "warning",
        Some("low") | Some("info") => "note",
        _ => "error",
    }
}

/// The SARIF log of `findings`.
pub fn sarif_log(findings: &[ExportedFinding]) -> Value {
    let rules = rules();
    let rule_objects: Vec<Value> = rules
        .iter()
        .map(|(id, short, full)| {
            json!({
                "id": id,
                "name": short.replace(' ', ""),
                "shortDescription": {"text": short},
                "fullDescription": {"text": full},
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": ["utf-8", "conformance"]}
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|finding| {
            let rule = rule_of(finding);
            let index = rules
                .iter()
                .position(|(id, _, _)| *id == rule)
                .expect("every rule_of is among the rules");
            result(finding, &rule, index)
        })
        .collect();
    json!({
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "utf8conf",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rule_objects
            }},
            "columnKind": "unicodeCodePoints",
            "results": results
        }]
    })
}

fn result(finding: &ExportedFinding, rule: &str, rule_index: usize) -> Value {
    let mut text = format!(
        "{}. Witness: [{}]. Reference: {}",
        finding.title, finding.witness_hex, finding.explanation
    );
    if let Some(command) = &finding.reproduce {
        text.push_str(&format!(". Reproduce: {command}"));
    }
    let categories: Vec<&str> = finding.categories.iter().map(|c| c.as_str()).collect();
    let aspects: Vec<&str> = finding.aspects.iter().map(|a| a.as_str()).collect();
    json!({
        "ruleId": rule,
        "ruleIndex": rule_index,
        "level": level_of(finding.severity.as_deref()),
        "message": {"text": text},
        "locations": [physical_location(&finding.location)],
        "partialFingerprints": {FINGERPRINT_KEY: finding.id},
        "properties": {
            "decoder": finding.decoder,
            "aspects": aspects,
            "categories": categories,
            "witnessHex": finding.witness_hex,
            "reproduce": finding.reproduce,
            "severity": finding.severity,
        }
    })
}

fn physical_location(location: &SourceLocation) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri_of(&location.path)}});
    if let Some(line) = location.line {
        physical["region"] = json!({"startLine": line});
    }
    json!({"physicalLocation": physical})
}

/// A path as a URI reference (RFC 3986): relative paths stay relative (code scanning
/// resolves them against the repository root), absolute ones become `file://` URIs; bytes
/// outside the unreserved set and `/` are percent-encoded.
pub fn uri_of(path: &str) -> String {
    let mut encoded = String::new();
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    if path.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

/// Writes the SARIF log of `findings` to `path` (atomically).
pub fn write_sarif(path: &Path, findings: &[ExportedFinding]) -> io::Result<()> {
    write_json_atomically(path, &sarif_log(findings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aspect::Aspect;
    use crate::corpus::Origin;

    fn finding(categories: Vec<Category>, failure_kind: Option<&str>) -> ExportedFinding {
        ExportedFinding {
            id: "0123456789abcdef".to_string(),
            decoder: "mutant-cesu8".to_string(),
            aspects: vec![Aspect::Valid],
            categories,
            title: "mutant-cesu8 differs from the reference on valid".to_string(),
            witness_hex: "ED A0 BD ED B8 80".to_string(),
            explanation: "UTF8-3 = %xED %x80-9F UTF8-tail".to_string(),
            reproduce: Some("utf8conf reproduce r.json".to_string()),
            failure_kind: failure_kind.map(str::to_string),
            severity: None,
            origin: Origin::Vector {
                file: "kuhn.toml".to_string(),
                id: "kuhn-1".to_string(),
            },
            other_origins: Vec::new(),
            location: SourceLocation {
                path: "vectors/a b.toml".to_string(),
                line: Some(12),
            },
        }
    }

    #[test]
    fn a_finding_is_filed_under_its_first_category_with_its_id_and_line() {
        let log = sarif_log(&[finding(vec![Category::Cesu8Pair], None)]);
        let result = &log["runs"][0]["results"][0];
        assert_eq!(result["ruleId"], "utf8/cesu8-pair");
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][index]["id"],
            "utf8/cesu8-pair"
        );
        assert_eq!(
            result["partialFingerprints"][FINGERPRINT_KEY],
            "0123456789abcdef"
        );
        assert_eq!(result["level"], "error");
        let physical = &result["locations"][0]["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uri"], "vectors/a%20b.toml");
        assert_eq!(physical["region"]["startLine"], 12);
        assert!(result["message"]["text"]
            .as_str()
            .unwrap()
            .contains("[ED A0 BD ED B8 80]"));
    }

    #[test]
    fn the_aspects_are_a_list_of_aspect_names() {
        let mut two = finding(vec![Category::Cesu8Pair], None);
        two.aspects = vec![Aspect::Valid, Aspect::Scalars];
        let log = sarif_log(&[two]);
        let properties = &log["runs"][0]["results"][0]["properties"];
        assert_eq!(properties["aspects"], json!(["valid", "scalars"]));
        assert!(properties.get("aspect").is_none());
    }

    #[test]
    fn failures_and_uncategorised_findings_have_rules_of_their_own() {
        assert_eq!(
            rule_of(&finding(Vec::new(), Some("crash"))),
            DECODER_FAILURE_RULE
        );
        assert_eq!(rule_of(&finding(Vec::new(), None)), UNCATEGORISED_RULE);
    }

    #[test]
    fn severities_map_to_levels() {
        assert_eq!(level_of(Some("critical")), "error");
        assert_eq!(level_of(Some("high")), "error");
        assert_eq!(level_of(Some("medium")), "warning");
        assert_eq!(level_of(Some("low")), "note");
        assert_eq!(level_of(None), "error");
    }

    #[test]
    fn absolute_paths_become_file_uris() {
        assert_eq!(uri_of("/tmp/x y.toml"), "file:///tmp/x%20y.toml");
        assert_eq!(uri_of("vectors/kuhn.toml"), "vectors/kuhn.toml");
    }
}
