//! Encoder grading: the built-in encoders have no finding and the policy their
//! documentation states; each planted encoder gives exactly its one finding; the UTF-8
//! variants are recognised by name.

use super::*;
use crate::corpus::code_units::encoder_inputs;
use crate::encoders::{self, planted::EncoderBug, Form};

fn grade_named(name: &str) -> EncoderGrade {
    let encoder = encoders::by_name(name).unwrap();
    grade(encoder.as_ref(), &encoder_inputs(false))
}

#[test]
fn the_built_in_encoders_have_no_finding_and_their_documented_policy() {
    let expected = [
        ("reference", EncoderPolicy::Error),
        ("std-char-encode_utf8", EncoderPolicy::Error),
        ("std-from_utf16", EncoderPolicy::Error),
        ("std-from_utf16_lossy", EncoderPolicy::ReplacementCharacter),
        ("encoding_rs-utf16", EncoderPolicy::ReplacementCharacter),
    ];
    // The fast encoder, strict and lossy, on every backend available here.
    let fast: Vec<(String, EncoderPolicy)> = crate::fast::Backend::available()
        .flat_map(|backend| {
            [
                (format!("fast-{backend}"), EncoderPolicy::Error),
                (
                    format!("fast-{backend}-lossy"),
                    EncoderPolicy::ReplacementCharacter,
                ),
            ]
        })
        .collect();
    let fast = fast.iter().map(|(name, policy)| (name.as_str(), *policy));
    for (name, policy) in expected.into_iter().chain(fast) {
        let grade = grade_named(name);
        assert!(grade.inputs > 1000, "{name}: {} inputs", grade.inputs);
        assert_eq!(grade.findings, [], "{name}");
        assert_eq!(grade.policy, policy, "{name}");
    }
}

#[test]
fn each_planted_encoder_gives_exactly_its_finding() {
    use EncoderBehaviour as B;
    use EncoderCategory as C;
    let expected: &[(EncoderBug, B, &[C], EncoderPolicy)] = &[
        (
            EncoderBug::NulAsC080,
            B::NonShortestForm,
            &[C::Nul],
            EncoderPolicy::Error,
        ),
        (
            EncoderBug::EncodesSurrogates,
            B::SurrogateWritten,
            &[
                C::LoneHighSurrogate,
                C::LoneLowSurrogate,
                C::ReversedPair,
                C::SurrogateCodePoint,
            ],
            EncoderPolicy::Wtf8,
        ),
        (
            EncoderBug::FourByteAboveMax,
            B::AboveMaxWritten,
            &[C::AboveMax],
            EncoderPolicy::Error,
        ),
        (
            EncoderBug::DropsAfterLoneSurrogate,
            B::DropsInput,
            // Whatever follows the lone surrogate is lost: a character, a lone surrogate,
            // or the high half of a pair.
            &[
                C::LoneHighSurrogate,
                C::LoneLowSurrogate,
                C::Nul,
                C::Boundary,
                C::Supplementary,
                C::Ordinary,
            ],
            EncoderPolicy::ReplacementCharacter,
        ),
        (
            EncoderBug::OffByOneAt07FF,
            B::NonShortestForm,
            &[C::Boundary],
            EncoderPolicy::Error,
        ),
        (
            EncoderBug::OffByOneAtFFFF,
            B::NonShortestForm,
            &[C::Boundary],
            EncoderPolicy::Error,
        ),
    ];
    for (name, bug) in encoders::planted::PLANTED {
        let (_, behaviour, categories, policy) = expected
            .iter()
            .find(|(planted, ..)| planted == bug)
            .expect("every planted encoder has an expectation");
        let grade = grade_named(name);
        assert_eq!(grade.findings.len(), 1, "{name}: {:#?}", grade.findings);
        let finding = &grade.findings[0];
        assert_eq!(finding.behaviour, *behaviour, "{name}");
        assert_eq!(finding.categories, *categories, "{name}");
        assert_eq!(grade.policy, *policy, "{name}");
    }
}

#[test]
fn witnesses_are_the_smallest_input_and_titles_say_what_was_written() {
    let grade = grade_named("planted-enc-nul-c080");
    let finding = &grade.findings[0];
    assert_eq!(finding.witness, "utf32: 0000");
    assert_eq!(finding.written, "C0 80");
    assert_eq!(finding.expected, "00");
    assert_eq!(
        finding.title,
        "writes a non-shortest form: utf32: 0000 as C0 80"
    );
    assert_eq!(finding.severity, Severity::Critical);

    let grade = grade_named("planted-enc-off-by-one-ffff");
    assert_eq!(grade.findings[0].witness, "utf32: FFFF");
    assert_eq!(grade.findings[0].written, "F0 8F BF BF");
}

/// Java's `DataOutputStream.writeUTF`: U+0000 as `C0 80`, supplementary characters as
/// two three-octet halves, lone surrogates written too.
struct ModifiedUtf8;

impl Encoder for ModifiedUtf8 {
    fn name(&self) -> &str {
        "test-modified-utf8"
    }
    fn description(&self) -> &str {
        "Modified UTF-8"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf16(units) = input else {
            unreachable!()
        };
        let mut out = Vec::new();
        for &unit in units {
            let octets = match unit {
                0 => 2,
                1..=0x7F => 1,
                0x80..=0x7FF => 2,
                _ => 3,
            };
            out.extend_from_slice(distribute_bits(u32::from(unit), octets).unwrap().as_bytes());
        }
        Encoded::Bytes(out)
    }
}

#[test]
fn modified_utf8_is_recognised_by_its_findings() {
    let grade = grade(&ModifiedUtf8, &encoder_inputs(false));
    assert_eq!(grade.policy, EncoderPolicy::ModifiedUtf8);
    let behaviours: Vec<EncoderBehaviour> = grade.findings.iter().map(|f| f.behaviour).collect();
    assert_eq!(
        behaviours,
        [
            EncoderBehaviour::NonShortestForm,
            EncoderBehaviour::SurrogateWritten
        ]
    );
}

#[test]
fn a_refusal_at_the_wrong_element_and_of_well_formed_input_are_bugs() {
    let encoder = crate::encoders::builtin::ReferenceEncoder;
    let input = CodeUnits::Utf16(vec![0x41, 0x42, 0xD800]);
    let wrong = observe(&encoder, &input, &Encoded::Refused { position: Some(1) });
    assert_eq!(wrong[0].behaviour, EncoderBehaviour::RejectsWellFormed);
    let late = observe(
        &encoder,
        &CodeUnits::Utf16(vec![0xD800, 0x41]),
        &Encoded::Refused { position: Some(1) },
    );
    assert_eq!(late[0].behaviour, EncoderBehaviour::WrongErrorPosition);
    let nul = observe(
        &encoder,
        &CodeUnits::Utf32(vec![0]),
        &Encoded::Refused { position: None },
    );
    assert_eq!(nul[0].behaviour, EncoderBehaviour::RejectsWellFormed);
    assert_eq!(nul[0].category, EncoderCategory::Nul);
}

#[test]
fn a_question_mark_for_a_lone_surrogate_is_told_from_a_dropped_one_before_a_real_one() {
    let encoder = crate::encoders::builtin::ReferenceEncoder;
    let input = CodeUnits::Utf16(vec![0xD800, u16::from(b'?')]);
    let substituted = observe(&encoder, &input, &Encoded::Bytes(b"??".to_vec()));
    assert_eq!(substituted[0].behaviour, EncoderBehaviour::QuestionMark);
    assert_eq!(substituted.len(), 1);
    let dropped = observe(&encoder, &input, &Encoded::Bytes(b"?".to_vec()));
    assert_eq!(dropped[0].behaviour, EncoderBehaviour::DropsInput);
}

#[test]
fn values_above_u10ffff_have_their_own_policy() {
    assert_eq!(
        grade_named("reference").out_of_range_policy,
        Some(EncoderPolicy::Error)
    );
    assert_eq!(grade_named("std-from_utf16").out_of_range_policy, None);
    let above = grade_named("planted-enc-above-max");
    assert_eq!(above.out_of_range_policy, Some(EncoderPolicy::Rfc2279Forms));
    assert_eq!(above.policy, EncoderPolicy::Error);
}

/// Python's `surrogateescape` (PEP 383) on UTF-16: U+DC80..U+DCFF alone become the byte
/// they escape; any other lone surrogate is refused.
struct SurrogateEscape;

impl Encoder for SurrogateEscape {
    fn name(&self) -> &str {
        "test-surrogateescape"
    }
    fn description(&self) -> &str {
        "surrogateescape"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf16(units) = input else {
            unreachable!()
        };
        let mut out = Vec::new();
        let mut position = 0;
        for decoded in char::decode_utf16(units.iter().copied()) {
            match decoded {
                Ok(c) => {
                    out.extend_from_slice(c.to_string().as_bytes());
                    position += c.len_utf16();
                }
                Err(error) if (0xDC80..=0xDCFF).contains(&error.unpaired_surrogate()) => {
                    out.push((error.unpaired_surrogate() & 0xFF) as u8);
                    position += 1;
                }
                Err(_) => {
                    return Encoded::Refused {
                        position: Some(position),
                    }
                }
            }
        }
        Encoded::Bytes(out)
    }
}

#[test]
fn surrogate_escape_is_recognised_and_its_lone_bytes_are_a_finding() {
    let grade = grade(&SurrogateEscape, &encoder_inputs(false));
    assert_eq!(grade.policy, EncoderPolicy::SurrogateEscape);
    let escaped = grade
        .findings
        .iter()
        .find(|f| f.behaviour == EncoderBehaviour::EscapedByte)
        .expect("an escaped-byte finding");
    assert_eq!(escaped.witness, "utf16: DC80");
    assert_eq!(escaped.written, "80");
    assert_eq!(escaped.severity, Severity::High);
    // Nothing is taken for a dropped or other write, and a refusal after an escape is at
    // the right element (the encoder is asked again for the elements before it).
    assert!(grade.findings.iter().all(|f| !matches!(
        f.behaviour,
        EncoderBehaviour::DropsInput
            | EncoderBehaviour::Misencodes
            | EncoderBehaviour::WrongErrorPosition
    )));
}

/// An encoder of the older definition (RFC 2279, as Perl's lax `utf8` writes it): every
/// u32 in the shortest of the 1- to 6-octet forms, then Perl's 7-octet `FE` form.
struct Rfc2279Forms;

impl Encoder for Rfc2279Forms {
    fn name(&self) -> &str {
        "test-rfc2279-forms"
    }
    fn description(&self) -> &str {
        "RFC 2279 forms for every value"
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf32]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let CodeUnits::Utf32(values) = input else {
            unreachable!()
        };
        let mut out = Vec::new();
        for &value in values {
            let form = (1..=4)
                .find_map(|octets| distribute_bits(value, octets).map(|c| c.as_bytes().to_vec()))
                .or_else(|| (5..=7).find_map(|octets| legacy_form(value, octets)))
                .expect("seven octets hold any u32");
            out.extend_from_slice(&form);
        }
        Encoded::Bytes(out)
    }
}

#[test]
fn five_six_and_seven_octet_forms_are_values_above_u10ffff_written() {
    assert_eq!(
        legacy_form(0x20_0000, 5),
        Some(vec![0xF8, 0x88, 0x80, 0x80, 0x80])
    );
    assert_eq!(
        legacy_form(0x7FFF_FFFF, 6),
        Some(vec![0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF])
    );
    assert_eq!(legacy_form(0x8000_0000, 6), None);
    assert_eq!(
        legacy_form(0xFFFF_FFFF, 7),
        Some(vec![0xFE, 0x83, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF])
    );
    let grade = grade(&Rfc2279Forms, &encoder_inputs(false));
    assert_eq!(grade.out_of_range_policy, Some(EncoderPolicy::Rfc2279Forms));
    let behaviours: Vec<EncoderBehaviour> = grade
        .findings
        .iter()
        .map(|finding| finding.behaviour)
        .collect();
    assert!(
        behaviours.contains(&EncoderBehaviour::AboveMaxWritten),
        "{behaviours:?}"
    );
    assert!(
        !behaviours.contains(&EncoderBehaviour::Misencodes),
        "a long form is a value above U+10FFFF written, not other bytes: {behaviours:?}"
    );
}

/// A refusal after an element the encoder wrote (escaped) is at the first element its
/// policy cannot write: the escape is graded, the refusal is not a wrong position.
#[test]
fn a_refusal_after_an_escaped_element_is_graded_with_what_was_written_before_it() {
    let observed = observe(
        &SurrogateEscape,
        &CodeUnits::Utf16(vec![0xDC80, 0xD800]),
        &Encoded::Refused { position: Some(1) },
    );
    let behaviours: Vec<EncoderBehaviour> = observed.iter().map(|o| o.behaviour).collect();
    assert_eq!(
        behaviours,
        [EncoderBehaviour::EscapedByte, EncoderBehaviour::Refuses]
    );
    assert_eq!(observed[1].position, 1);
    assert_eq!(observed[1].category, EncoderCategory::LoneHighSurrogate);
}
