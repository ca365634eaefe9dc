use super::*;
use crate::hex::parse_hex;
use crate::outcome::{DecoderFailure, REPLACEMENT};
use crate::policy::ReplacementPolicy;

fn with_scalars(text: &str, scalars: Vec<u32>) -> (Vec<u8>, Answer) {
    let input = parse_hex(text).unwrap();
    let mut outcome = Reference::rfc3629().outcome("d", &input);
    outcome.scalars = Some(scalars);
    (input, Ok(outcome))
}

fn action(text: &str, scalars: Vec<u32>) -> (DecoderAction, Vec<Category>) {
    let (input, answer) = with_scalars(text, scalars);
    let diagnosis = diagnose_input(&input, &answer, Capabilities::ALL).expect("departs");
    (
        diagnosis.cause.decoder_does.clone(),
        diagnosis.cause.categories(),
    )
}

#[test]
fn perl_lax_swallows_the_character_after_a_stray_byte() {
    // 83 F3 BF BF BF -> FFFD FFFD: U+FFFFF consumed (not a noncharacter rejection).
    assert_eq!(
        action("83 F3 BF BF BF", vec![REPLACEMENT, REPLACEMENT]),
        (
            DecoderAction::SwallowsCharacter { scalar: 0xFFFFF },
            vec![Category::CharacterSwallowed]
        )
    );
}

#[test]
fn stops_policies_acceptance_and_misdecoding() {
    assert_eq!(
        action("41 00 42", vec![0x41]),
        (DecoderAction::Stops, vec![Category::OutputCutShort])
    );
    let (per_byte, categories) = action("E1 80", vec![REPLACEMENT, REPLACEMENT]);
    assert!(matches!(
        per_byte,
        DecoderAction::Replacements {
            policy: Some(ReplacementPolicy::PerByte),
            ..
        }
    ));
    assert_eq!(categories, vec![Category::TruncatedAtEnd]);
    assert_eq!(
        action("ED A0 BD ED B8 80", vec![0x1F600]).1,
        vec![Category::Cesu8Pair]
    );
    assert_eq!(
        action("F0 9F 98 80", vec![0xD83D, 0xDE00]),
        (
            DecoderAction::Misdecodes {
                scalars: vec![0xD83D, 0xDE00]
            },
            vec![Category::ValidMisdecoded]
        )
    );
    assert_eq!(
        action("C3 A9 FF", vec![0xC3, 0xA9, 0xFF]).0,
        DecoderAction::Latin1Fallback
    );
    assert_eq!(
        action("EF BB BF 41", vec![0x41]).1,
        vec![Category::BomStripped]
    );
}

#[test]
fn a_miscounted_offset_is_named_by_its_cause() {
    // utf-8-sig counting after the BOM: EF BB BF 80 reported at 0.
    let input = parse_hex("EF BB BF 80").unwrap();
    let mut outcome = Reference::rfc3629().outcome("d", &input);
    outcome.valid_up_to = Some(0);
    let diagnosis = diagnose_input(&input, &Ok(outcome), Capabilities::ALL).unwrap();
    assert_eq!(
        diagnosis.cause.decoder_does,
        DecoderAction::ValidUpToOff { by: -3 }
    );
    assert_eq!(
        diagnosis.cause.categories(),
        vec![Category::OffsetMiscounted]
    );
    assert_eq!(diagnosis.aspects, vec![Aspect::ValidUpTo]);
}

#[test]
fn error_len_and_failures() {
    let input = parse_hex("E1 80 41").unwrap();
    let mut outcome = Reference::rfc3629().outcome("d", &input);
    outcome.error_len = Some(ErrorLen::Invalid(3));
    let diagnosis = diagnose_input(&input, &Ok(outcome), Capabilities::ALL).unwrap();
    assert_eq!(diagnosis.cause.decoder_does, DecoderAction::MergesWithNext);
    assert_eq!(
        diagnosis.cause.categories(),
        vec![Category::TruncatedInterrupted]
    );
    let failure = Err(DecoderFailure {
        kind: crate::outcome::FailureKind::Crash,
        message: "boom".into(),
    });
    let diagnosis = diagnose_input(&[0x41, 0xFF], &failure, Capabilities::ALL).unwrap();
    assert_eq!(diagnosis.aspects, vec![Aspect::Crash]);
    assert_eq!(diagnosis.cause.categories(), vec![Category::InvalidLead]);
    assert_eq!(diagnosis.cause.unit.byte_classes, "FF");
}
