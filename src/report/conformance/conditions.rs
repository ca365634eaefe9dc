//! The conditions section of `conformance.md` and `conformance.html`: each machine learned
//! under a position or length condition that gave findings (a second path for long
//! inputs, a block's last byte), with the filler its queries were placed after, what
//! learning it cost, and where it differs from RFC 3629's machine. The HTML draws each
//! beside RFC 3629's, as the model section draws the decoder's own.

use std::fmt::Write;

use crate::diagnosis::condition::ConditionModel;
use crate::diagnosis::position::{leading_filler, FILLER};
use crate::model::alphabet::format_ranges;
use crate::sanitize::html as escape_html;

/// Differing transitions listed per condition (all of them are in the JSON).
const DIFFERENCES_SHOWN: usize = 12;

/// A witness with a long run of filler before its bytes told as a count: "200 x `41`,
/// then `ED A0 80`".
fn witness_text(witness: &[u8]) -> String {
    let filler = leading_filler(witness);
    if filler < 8 {
        return format!("`{}`", crate::hex::format_hex(witness));
    }
    format!(
        "{filler} x `{FILLER:02X}`, then `{}`",
        crate::hex::format_hex(&witness[filler..])
    )
}

/// Marks a difference reached only through another, as the model section does.
fn behind(difference: &crate::model::difference::Difference) -> &'static str {
    if difference.primary {
        ""
    } else {
        " (behind another difference)"
    }
}

/// One sentence on a condition's machine.
fn sentence(condition: &ConditionModel) -> String {
    let model = &condition.model;
    format!(
        "{}: every query placed after {} bytes of `{:02X}`; {} states, {} differing transitions, learned from {} decodes.",
        condition.condition.describe(),
        condition.placed_at,
        FILLER,
        model.model.machine.states.len(),
        model.differences.len(),
        model.model.queries.decodes
    )
}

/// The Markdown section, or nothing when no condition gave findings.
pub fn markdown(out: &mut String, conditions: &[ConditionModel]) {
    if conditions.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Conditions learned as machines of their own\n");
    for condition in conditions {
        let _ = writeln!(out, "- {}", sentence(condition));
        for d in condition.model.differences.iter().take(DIFFERENCES_SHOWN) {
            let _ = writeln!(
                out,
                "  - bytes `{}`{}: {} where RFC 3629 {} ({})",
                format_ranges(&d.bytes),
                behind(d),
                d.decoder,
                d.reference,
                witness_text(&d.witness)
            );
        }
    }
    let _ = writeln!(out);
}

/// The HTML section, each machine drawn beside RFC 3629's.
pub fn html(out: &mut String, conditions: &[ConditionModel]) {
    if conditions.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h2>Conditions learned as machines of their own</h2><ul id=\"condition-models\">"
    );
    for condition in conditions {
        let model = &condition.model;
        let svg = crate::model::draw::svg(
            &model.model.machine,
            &model.reference.machine,
            &model.differences,
            &model.decoder,
        );
        let _ = writeln!(
            out,
            "<li><p>{}</p><div style=\"overflow-x:auto;max-width:100%\">{svg}</div><ul>",
            escape_html(&sentence(condition))
        );
        for d in model.differences.iter().take(DIFFERENCES_SHOWN) {
            let _ = writeln!(
                out,
                "<li>bytes <code>{}</code>{}: {} where RFC 3629 {} ({})</li>",
                format_ranges(&d.bytes),
                behind(d),
                escape_html(&d.decoder.to_string()),
                escape_html(&d.reference.to_string()),
                escape_html(&witness_text(&d.witness))
            );
        }
        let _ = writeln!(out, "</ul></li>");
    }
    let _ = writeln!(out, "</ul>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_of_filler_is_told_as_a_count() {
        let mut witness = vec![FILLER; 198];
        witness.extend_from_slice(&[0xED, 0xA0, 0x80]);
        assert_eq!(witness_text(&witness), "198 x `41`, then `ED A0 80`");
        assert_eq!(witness_text(&[0x41, 0xC0]), "`41 C0`");
    }
}
