//! Findings about values given to ill-formed bytes, named by those bytes and one per
//! kind of bytes.
//!
//! Once both machines have settled their first error, only the scalars can show
//! ill-formed bytes taken into a character: a decoder without the `F4 %x80-8F` check
//! decodes `80 F4 90 80 80` to U+FFFD and one value. The witness's first error is the
//! stray `80`, but the bytes given the value are `F4 90 80 80`, above U+10FFFF: the
//! finding is about those. And it is the same missing check as the acceptance of
//! `F4 90 80 80` at the start of input (a family of its own there, since the strict
//! verdict shows it), so the two are one finding: a check missing is one cause wherever
//! the decoder's machine happens to reach it.

use super::family::kind;
use super::witness::accepts;
use super::{finding_about, Behaviour, Finding, Mechanism};
use crate::model::difference::Difference;
use crate::model::output::Strict;
use crate::model::title;
use crate::taxonomy::Category;

/// Renames each transition finding whose witness gives a value behind a settled error
/// by the category of the bytes given it (`valued`, per difference), then merges the
/// transition findings that give values to bytes of one kind.
pub(super) fn by_bytes_given_a_value(
    differences: &[Difference],
    valued: &[Option<Category>],
    findings: &mut Vec<Finding>,
) {
    for found in findings
        .iter_mut()
        .filter(|f| f.mechanism == Mechanism::Transition)
    {
        let Some(index) = witness_index(differences, found) else {
            continue;
        };
        let d = &differences[index];
        let behind_an_error = d.decoder.strict == Strict::Settled;
        let category = valued[index];
        if behind_an_error && gives_a_value(found.behaviour) && category.is_some() {
            if category == found.category {
                continue;
            }
            let renamed = finding_about(
                differences,
                Mechanism::Transition,
                index,
                &[index],
                category,
            );
            found.title = renamed.title;
            found.category = renamed.category;
        }
    }
    merge_by_kind(findings);
    for found in findings.iter_mut().filter(|f| gives_values(f)) {
        shown_by_its_shortest_acceptance(differences, found);
    }
}

/// Whether a finding is a transition finding that gives ill-formed bytes of a named
/// category a value.
fn gives_values(f: &Finding) -> bool {
    f.mechanism == Mechanism::Transition && gives_a_value(f.behaviour) && f.category.is_some()
}

/// Rewitnesses a finding by the shortest of its differences that accepts bytes of its
/// category, where that is shorter than its witness: a family first seen behind a
/// stray byte (`80 ED A0 80`, where the wait at `ED A0` at the start is a U+FFFD
/// policy's too) is shown by `ED A0 80` accepted at the start, if it holds that.
fn shown_by_its_shortest_acceptance(differences: &[Difference], found: &mut Finding) {
    let shortest = found
        .differences
        .iter()
        .chain(&found.manifestations)
        .copied()
        .filter(|&i| {
            let d = &differences[i];
            accepts(d)
                && d.witness.len() < found.witness.len()
                && title::category(&d.witness) == found.category
        })
        .min_by_key(|&i| (differences[i].witness.len(), differences[i].witness.clone()));
    if let Some(index) = shortest {
        let shown = finding_about(
            differences,
            Mechanism::Transition,
            index,
            &[index],
            found.category,
        );
        found.title = shown.title;
        found.behaviour = shown.behaviour;
        found.witness = shown.witness;
    }
}

/// Merges each transition finding that gives ill-formed bytes a value into the first
/// one before it that does so to bytes of the same kind: it explains what both did, and
/// is shown by the shorter witness of the two (the acceptance at the start of input,
/// `ED A0 80`, rather than the same behind a stray byte, `80 ED A0 80`), the earlier
/// one's on a tie.
fn merge_by_kind(findings: &mut Vec<Finding>) {
    let mut index = 0;
    while index < findings.len() {
        let into = (0..index).find(|&before| {
            gives_values(&findings[before])
                && gives_values(&findings[index])
                && kind(findings[before].category) == kind(findings[index].category)
        });
        match into {
            Some(before) => {
                let merged = findings.remove(index);
                let kept = &mut findings[before];
                if merged.witness.len() < kept.witness.len() {
                    kept.title = merged.title;
                    kept.category = merged.category;
                    kept.behaviour = merged.behaviour;
                    kept.witness = merged.witness;
                }
                kept.differences.extend(merged.differences);
                kept.manifestations.extend(merged.manifestations);
            }
            None => index += 1,
        }
    }
}

/// Whether a finding's behaviour is giving ill-formed bytes a value: taking them into
/// a character (the strict side shows it), or decoding them to a value other than
/// U+FFFD (only the scalars show it), also where a well-formed character is among them
/// (`C2 41` to one value, with the continuation check missing: the reference's `A` is
/// misdecoded, the bytes are given one value as `E0 41 80` is).
fn gives_a_value(behaviour: Behaviour) -> bool {
    matches!(
        behaviour,
        Behaviour::AcceptsIllFormed | Behaviour::DecodesIllFormed | Behaviour::Misdecodes
    )
}

/// The difference whose witness is the finding's: one of its own, else any (a wait's
/// acceptance may be filed with another finding, `witness_acceptances`).
fn witness_index(differences: &[Difference], found: &Finding) -> Option<usize> {
    found
        .differences
        .iter()
        .chain(&found.manifestations)
        .copied()
        .find(|&i| differences[i].witness == found.witness)
        .or_else(|| differences.iter().position(|d| d.witness == found.witness))
}
