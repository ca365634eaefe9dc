//! Classification and witness tests. Each vector is an input in hex with an answer a
//! decoder could give, and the class docs/SECURITY-IMPACT.md assigns to it.

use super::witness::{assess, probe_inputs};
use super::*;
use crate::hex::parse_hex;
use crate::outcome::REPLACEMENT as F;
use crate::reference::Reference;
use crate::taxonomy::categories_of_units;

fn answer(valid: bool, scalars: &[u32]) -> Outcome {
    let mut outcome = Outcome::verdict("t", valid);
    outcome.scalars = Some(scalars.to_vec());
    outcome
}

/// Classifies `aspect` on `hex` answered with `outcome`, the categories being those of
/// the reference's error units (or `fallback` for well-formed input).
fn class_of(aspect: &str, hex: &str, outcome: &Outcome, fallback: &[Category]) -> SecurityImpact {
    let input = parse_hex(hex).unwrap();
    let decoded = Reference::rfc3629().decode(&input);
    let mut categories =
        categories_of_units(&input, decoded.errors.iter().map(|e| (e.offset, e.len)));
    if categories.is_empty() {
        categories = fallback.to_vec();
    }
    let aspect = crate::aspect::Aspect::from_name(aspect).expect("an aspect name");
    classify(
        aspect,
        &categories,
        &input,
        &decoded,
        AnswerView::Outcome(outcome),
    )
}

#[test]
fn overlong_slash_accepted_is_critical() {
    // RFC 3629 §10: C0 AF is an overlong "/" (Unicode Table 3-7 has no C0 row).
    let impact = class_of("valid", "C0 AF", &answer(true, &[0x2F]), &[]);
    assert_eq!(impact.class, SecurityClass::NonShortestAccepted);
    assert_eq!(impact.severity, Severity::Critical);
    assert!(impact.citation.contains("RFC 3629 §10"));
    // The same with only a verdict (no lossy decode reported).
    let impact = class_of("valid", "C0 AF", &Outcome::verdict("t", true), &[]);
    assert_eq!(impact.class, SecurityClass::NonShortestAccepted);
}

/// A decoder that calls `C0 AF` valid but replaces it, as the reference does, with two
/// U+FFFD (a lossy decoder whose verdict is always "valid") decodes no `/`: the bytes
/// are accepted, not read as a non-shortest form.
#[test]
fn called_valid_but_replaced_is_accepted_not_decoded() {
    let impact = class_of("valid", "C0 AF", &answer(true, &[F, F]), &[]);
    assert_eq!(impact.class, SecurityClass::IllFormedAccepted);
    let impact = class_of("valid", "ED A0 80", &answer(true, &[F, F, F]), &[]);
    assert_eq!(impact.class, SecurityClass::IllFormedAccepted);
}

/// A decoder that turns each ill-formed byte into a character of its own (a Latin-1 or
/// Windows-1252 reading, or Python's `surrogateescape`) decodes no `/` from `C0 AF`: the
/// bytes are accepted as characters, not read as a non-shortest form. One that gives
/// the bits' value does, whatever it puts beside it.
#[test]
fn bytes_read_one_by_one_are_accepted_not_a_non_shortest_form() {
    for own in [[0xC0, 0xAF], [0xDCC0, 0xDCAF], [0xC0, 0x2F + 0xE000]] {
        let impact = class_of("scalars", "C0 AF", &answer(false, &own), &[]);
        assert_eq!(impact.class, SecurityClass::IllFormedAccepted, "{own:X?}");
    }
    let impact = class_of(
        "scalars",
        "E0 80 AF",
        &answer(false, &[0xE0, 0x20AC, 0xAF]),
        &[],
    );
    assert_eq!(impact.class, SecurityClass::IllFormedAccepted);
    for bits in [vec![0x2F], vec![0x2F, F]] {
        let impact = class_of("scalars", "C0 AF", &answer(false, &bits), &[]);
        assert_eq!(
            impact.class,
            SecurityClass::NonShortestAccepted,
            "{bits:X?}"
        );
    }
}

#[test]
fn a_quote_consumed_by_an_error_is_swallowed() {
    // Unicode §3.9: C2 is a maximal subpart; the 22 after it is a character of its own.
    let impact = class_of("scalars", "C2 22", &answer(false, &[F]), &[]);
    assert_eq!(impact.class, SecurityClass::CharacterSwallowed);
    assert_eq!(impact.severity, Severity::High);
    // Perl's Encode: 80 E2 82 AC 41 -> FFFD 0041 (the euro sign is lost).
    let impact = class_of("scalars", "80 E2 82 AC 41", &answer(false, &[F, 0x41]), &[]);
    assert_eq!(impact.class, SecurityClass::CharacterSwallowed);
    // The strict fields say it too: an error_len of 2 on C2 22 covers the quote.
    let mut outcome = Outcome::from_strict("t", Some((0, ErrorLen::Invalid(2))));
    outcome.scalars = None;
    let impact = class_of("error_len", "C2 22", &outcome, &[]);
    assert_eq!(impact.class, SecurityClass::CharacterSwallowed);
}

#[test]
fn dropped_bytes_are_deleted() {
    // UTS #36 §3.6.2: <scr FF ipt> must not become <script>.
    let script: Vec<u32> = "<script>".chars().map(u32::from).collect();
    let impact = class_of(
        "scalars",
        "3C 73 63 72 FF 69 70 74 3E",
        &answer(false, &script),
        &[],
    );
    assert_eq!(impact.class, SecurityClass::BytesDeleted);
    assert_eq!(impact.severity, Severity::High);
    // A stray continuation byte dropped while the verdict says valid.
    let impact = class_of("valid", "41 80 42", &answer(true, &[0x41, 0x42]), &[]);
    assert_eq!(impact.class, SecurityClass::BytesDeleted);
}

#[test]
fn above_max_surrogates_and_other_acceptances() {
    let impact = class_of("valid", "F4 90 80 80", &answer(true, &[0x11_0000]), &[]);
    assert_eq!(impact.class, SecurityClass::AboveMaxAccepted);
    let impact = class_of("valid", "F8 88 80 80 80", &answer(true, &[0x20_0000]), &[]);
    assert_eq!(impact.class, SecurityClass::AboveMaxAccepted);
    let impact = class_of("valid", "ED A0 80", &answer(true, &[0xD800]), &[]);
    assert_eq!(impact.class, SecurityClass::SurrogatesAccepted);
    assert_eq!(impact.severity, Severity::Medium);
    // Latin-1 fallback: a stray 80 read as U+0080.
    let impact = class_of("scalars", "41 80", &answer(false, &[0x41, 0x80]), &[]);
    assert_eq!(impact.class, SecurityClass::IllFormedAccepted);
}

#[test]
fn overlong_read_as_its_value_next_to_the_same_character() {
    // C0 AF 2F decoded to "//": the alignment gives the second "/" to the reference.
    let impact = class_of("scalars", "C0 AF 2F", &answer(false, &[0x2F, 0x2F]), &[]);
    assert_eq!(impact.class, SecurityClass::NonShortestAccepted);
}

#[test]
fn stopping_early_is_output_cut_short() {
    // A decoder that stops at U+0000: 41 00 42 -> 41.
    let impact = class_of(
        "scalars",
        "41 00 42",
        &answer(true, &[0x41]),
        &[Category::ValidMisdecoded],
    );
    assert_eq!(impact.class, SecurityClass::OutputCutShort);
    assert_eq!(impact.severity, Severity::Medium);
}

#[test]
fn well_formed_input_misdecoded_or_rejected() {
    // U+1F600 (F0 9F 98 80) given as a UTF-16 surrogate pair.
    let impact = class_of(
        "scalars",
        "F0 9F 98 80",
        &answer(true, &[0xD83D, 0xDE00]),
        &[Category::ValidMisdecoded],
    );
    assert_eq!(impact.class, SecurityClass::WellFormedMisdecoded);
    let impact = class_of(
        "valid",
        "E4 BD A0",
        &Outcome::verdict("t", false),
        &[Category::ValidRejected],
    );
    assert_eq!(impact.class, SecurityClass::WellFormedRejected);
    let impact = class_of(
        "valid",
        "EF BF BF",
        &Outcome::verdict("t", false),
        &[Category::NoncharacterRejected],
    );
    assert_eq!(impact.class, SecurityClass::BomOrNoncharacter);
}

#[test]
fn error_lengths_a_policy_predicts_are_policy_differences() {
    // Go's range loop: E1 80 41 has error_len 1 (per byte); maximal subparts say 2.
    let mut outcome = Outcome::from_strict("t", Some((0, ErrorLen::Invalid(1))));
    outcome.scalars = Some(vec![F, F, 0x41]);
    let impact = class_of("error_len", "E1 80 41", &outcome, &[]);
    assert_eq!(impact.class, SecurityClass::ReplacementPolicy);
    assert_eq!(impact.severity, Severity::Info);
    // An offset one too small, on otherwise right output.
    let mut outcome = Outcome::from_strict("t", Some((1, ErrorLen::Invalid(1))));
    outcome.scalars = Some(vec![0x41, 0x42, F]);
    let impact = class_of(
        "valid_up_to",
        "41 42 FF",
        &outcome,
        &[Category::ValidRejected],
    );
    assert_eq!(impact.class, SecurityClass::WrongErrorPosition);
}

#[test]
fn failures() {
    let input = parse_hex("FF").unwrap();
    assert_eq!(
        classify(
            crate::aspect::Aspect::Crash,
            &[Category::InvalidLead],
            &input,
            &Reference::rfc3629().decode(&input),
            AnswerView::Crash
        )
        .class,
        SecurityClass::DecoderCrash
    );
    assert_eq!(
        classify(
            crate::aspect::Aspect::Timeout,
            &[Category::InvalidLead],
            &input,
            &Reference::rfc3629().decode(&input),
            AnswerView::Unresponsive
        )
        .severity,
        Severity::Medium
    );
}

#[test]
fn severities_parse_and_order() {
    assert_eq!("high".parse::<Severity>(), Ok(Severity::High));
    assert!("severe".parse::<Severity>().is_err());
    assert!(Severity::Critical > Severity::High && Severity::Low > Severity::Info);
    for class in SecurityClass::ALL.into_iter().take(3) {
        assert!(class.severity() >= Severity::High, "{class}");
    }
}

/// Answers as a decoder with the given lossy decode function would give them.
fn answers_of(
    decode: impl Fn(&[u8]) -> (bool, Vec<u32>),
) -> Vec<Result<Outcome, crate::outcome::DecoderFailure>> {
    probe_inputs()
        .into_iter()
        .map(|input| {
            let (valid, scalars) = decode(input);
            Ok(answer(valid, &scalars))
        })
        .collect()
}

fn reference_answer(input: &[u8]) -> (bool, Vec<u32>) {
    let decoded = Reference::rfc3629().decode(input);
    (decoded.errors.is_empty(), decoded.scalars)
}

#[test]
fn the_reference_gives_no_witness_and_no_variant() {
    let assessment = assess(&answers_of(reference_answer));
    assert!(assessment.witnesses.is_empty(), "{assessment:?}");
    assert!(assessment.variant.is_none());
}

#[test]
fn witnesses_appear_only_for_what_the_decoder_does() {
    // A naive decoder: any lead byte's payload bits, no range checks, FF dropped.
    let naive = |input: &[u8]| -> (bool, Vec<u32>) {
        let mut scalars = Vec::new();
        let mut i = 0;
        while i < input.len() {
            let lead = input[i];
            let (len, bits) = match lead {
                0x00..=0x7F => (1, u32::from(lead)),
                0xC0..=0xDF => (2, u32::from(lead & 0x1F)),
                0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
                0xF0..=0xF7 => (4, u32::from(lead & 0x07)),
                _ => {
                    i += 1;
                    continue;
                }
            };
            let mut value = bits;
            for &b in input.iter().skip(i + 1).take(len - 1) {
                value = value << 6 | u32::from(b & 0x3F);
            }
            scalars.push(value);
            i += len;
        }
        (true, scalars)
    };
    let assessment = assess(&answers_of(naive));
    let classes: Vec<SecurityClass> = assessment.witnesses.iter().map(|w| w.class).collect();
    assert!(
        classes.contains(&SecurityClass::NonShortestAccepted),
        "{classes:?}"
    );
    assert!(
        classes.contains(&SecurityClass::CharacterSwallowed),
        "{classes:?}"
    );
    assert!(
        classes.contains(&SecurityClass::BytesDeleted),
        "{classes:?}"
    );
    assert!(
        classes.contains(&SecurityClass::AboveMaxAccepted),
        "{classes:?}"
    );
    let slash = &assessment.witnesses_of(SecurityClass::NonShortestAccepted)[0];
    assert_eq!(slash.inputs[1].input_hex, "C0 AF");
    assert_eq!(slash.inputs[1].decoded, vec![0x2F]);
}

#[test]
fn modified_utf8_is_recognised() {
    // Java's readUTF: C0 80 -> U+0000, pairs combined, 4-byte forms rejected.
    let modified = |input: &[u8]| -> (bool, Vec<u32>) {
        match input {
            [0xC0, 0x80] => (true, vec![0]),
            [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80] => (true, vec![0x1F600]),
            [0xED, 0xA0, 0x80] => (true, vec![0xD800]),
            [0xF0, ..] | [0xF4, ..] | [0xC0, 0xAF] | [_, _, _, _, 0xFF, ..] | [0xC2, 0x22] => {
                (false, vec![F])
            }
            _ => reference_answer(input),
        }
    };
    let assessment = assess(&answers_of(modified));
    assert_eq!(assessment.variant.map(|v| v.name), Some("modified-utf-8"));
}
