//! The catalogue's expected findings are true of the decoders: each witness decodes to
//! its documented outcome, each bug is needed for it, each input category is the
//! witness's, each gated bug is inert outside its condition, and each decoder is
//! reachable by name.

use super::expect::{outside, parse_witness, render, Condition, Input};
use super::*;
use crate::decoders::reference::ReferenceDecoder;
use crate::outcome::Outcome;

/// The reference's outcome on `input`, keeping only the fields `decoder` reports.
fn reference_as_seen_by(decoder: &Planted, input: &[u8]) -> Outcome {
    let mut outcome = ReferenceDecoder
        .decode(input)
        .expect("the reference decodes");
    let capabilities = decoder.capabilities();
    if !capabilities.valid_up_to {
        outcome.valid_up_to = None;
    }
    if !capabilities.error_len {
        outcome.error_len = None;
    }
    outcome
}

fn decode(decoder: &Planted, input: &[u8]) -> String {
    render(&decoder.decode(input).expect("planted decoders do not fail"))
}

/// Every (decoder, expected finding) pair of the catalogue.
fn cases() -> impl Iterator<Item = (&'static Entry, &'static expect::Expected)> {
    catalogue().flat_map(|entry| entry.findings.iter().map(move |finding| (entry, finding)))
}

#[test]
fn the_catalogue_has_sixty_cited_decoders_each_bug_with_one_expected_finding() {
    let entries: Vec<&Entry> = catalogue().collect();
    assert!(entries.len() >= 60, "{} planted decoders", entries.len());
    let mut names: Vec<&str> = entries.iter().map(|entry| entry.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        names.len(),
        entries.len(),
        "planted decoder names are unique"
    );
    for entry in &entries {
        assert!(entry.name.starts_with("planted-"), "{}", entry.name);
        assert!(!entry.source.is_empty(), "{} has no citation", entry.name);
        let mut planted: Vec<&str> = entry
            .bugs
            .iter()
            .flat_map(|&bug| match bug {
                Bug::When(_, inner) => inner.to_vec(),
                other => vec![other],
            })
            .map(Bug::id)
            .collect();
        let mut found: Vec<&str> = entry
            .findings
            .iter()
            .flat_map(|f| f.switches())
            .map(Bug::id)
            .collect();
        planted.sort_unstable();
        found.sort_unstable();
        assert_eq!(
            planted, found,
            "{}: one expected finding per bug",
            entry.name
        );
    }
}

#[test]
fn the_catalogue_has_the_shapes_the_diagnosis_must_handle() {
    let entries: Vec<&Entry> = catalogue().collect();
    let several = entries.iter().filter(|e| e.findings.len() >= 2).count();
    let lossy = entries
        .iter()
        .filter(|e| e.bugs.contains(&Bug::NeverReports))
        .count();
    let gated = entries
        .iter()
        .filter(|e| e.findings.iter().any(|f| f.condition != Condition::Always))
        .count();
    let masked = cases().filter(|(_, f)| !f.masked_by.is_empty()).count();
    assert!(several >= 15, "{several} decoders with several bugs");
    assert!(lossy >= 8, "{lossy} lossy-only decoders");
    assert!(gated >= 5, "{gated} decoders with a condition");
    assert!(masked >= 10, "{masked} findings behind another bug");
}

#[test]
fn each_witness_decodes_to_its_documented_outcome() {
    let mut failures = Vec::new();
    for (entry, finding) in cases() {
        let decoder = Planted::new(entry.name, entry.bugs);
        let got = decode(&decoder, &parse_witness(finding.witness));
        if got != finding.outcome {
            failures.push(format!(
                "{} {} on {}: documented {:?}, got {got:?}",
                entry.name,
                finding.bug.id(),
                finding.witness,
                finding.outcome
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn each_bug_is_needed_for_its_witness_unless_the_documented_bugs_mask_it() {
    let mut failures = Vec::new();
    for (entry, finding) in cases() {
        let decoder = Planted::new(entry.name, entry.bugs);
        let witness = parse_witness(finding.witness);
        let reference = |d: &Planted| render(&reference_as_seen_by(d, &witness));
        let without = decoder.without(&[finding.bug]);
        let name = format!("{} {}", entry.name, finding.bug.id());
        if decode(&without, &witness) == finding.outcome {
            failures.push(format!("{name}: the witness does not need the bug"));
        }
        let mut unmasked = finding.switches();
        unmasked.extend_from_slice(finding.masked_by);
        let clean = decoder.without(&unmasked);
        if decode(&clean, &witness) != reference(&clean) {
            failures.push(format!(
                "{name}: without it and {:?}, {} is not the reference's {}",
                finding.masked_by,
                decode(&clean, &witness),
                reference(&clean)
            ));
        }
        // A mask either departs on the witness without this bug (a lossy-only verdict)
        // or changes what this bug makes of it (nothing given for its error).
        let departs_without = decode(&without, &witness) != reference(&without);
        for &mask in finding.masked_by {
            if !departs_without && decode(&decoder.without(&[mask]), &witness) == finding.outcome {
                failures.push(format!(
                    "{name}: documented as masked by {mask:?}, but it is not"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn each_input_category_is_the_witness_category() {
    for (entry, finding) in cases() {
        let witness = parse_witness(finding.witness);
        let name = format!("{} {}", entry.name, finding.bug.id());
        match finding.input {
            Input::WellFormed => assert!(std::str::from_utf8(&witness).is_ok(), "{name}"),
            Input::IllFormed(category) => {
                let error = std::str::from_utf8(&witness).expect_err(&name);
                let at = error.valid_up_to();
                assert_eq!(
                    crate::taxonomy::category_at(&witness, at),
                    Some(category),
                    "{name}"
                );
            }
        }
    }
}

#[test]
fn each_gated_bug_is_inert_outside_its_condition() {
    for (entry, finding) in cases() {
        let Some(moved) = outside(&parse_witness(finding.witness), finding.condition) else {
            continue;
        };
        let decoder = Planted::new(entry.name, entry.bugs);
        let name = format!("{} {}", entry.name, finding.bug.id());
        assert_eq!(
            decode(&decoder, &moved),
            decode(&decoder.without(&[finding.bug]), &moved),
            "{name}: the bug shows outside {:?}",
            finding.condition
        );
    }
}

#[test]
fn each_planted_decoder_is_reachable_by_name() {
    for entry in catalogue() {
        let decoder = crate::decoders::by_name(entry.name)
            .unwrap_or_else(|| panic!("{} is not in the registry", entry.name));
        let finding = &entry.findings[0];
        let outcome = decoder.decode(&parse_witness(finding.witness)).unwrap();
        assert_eq!(render(&outcome), finding.outcome, "{}", entry.name);
    }
}

#[test]
fn witnesses_and_outcomes_round_trip_through_their_text() {
    assert_eq!(parse_witness("41*3 C0"), [0x41, 0x41, 0x41, 0xC0]);
    let mut outcome = Outcome::from_strict("x", Some((65, crate::outcome::ErrorLen::Invalid(1))));
    outcome.scalars = Some([vec![0x41; 64], vec![0xFFFD]].concat());
    assert_eq!(render(&outcome), "invalid at 65 len 1; 0041*64 FFFD");
    assert_eq!(
        outside(&parse_witness("41*64 C0"), Condition::ErrorFrom(64)),
        Some(vec![0xC0])
    );
}

#[test]
fn findings_md_lists_every_planted_decoder_and_each_real_world_finding() {
    let doc = include_str!("../../../docs/FINDINGS.md");
    for entry in catalogue() {
        assert!(doc.contains(&format!("`{}`", entry.name)), "{}", entry.name);
    }
    for entry in real_world::entries() {
        for finding in entry.findings {
            // A mechanism planted with several switches names them all in its cell.
            let row = format!("| `{}` | `{}`", entry.name, finding.bug.id());
            let cells = format!("| `{}` | `{}` |", finding.witness, finding.outcome);
            assert!(
                doc.lines()
                    .any(|line| line.starts_with(&row) && line.contains(&cells)),
                "docs/FINDINGS.md has no row {row} ... {cells}"
            );
        }
    }
}
