//! The reference encoder is a bijection with the grammar's whole characters, and refuses
//! exactly what RFC 3629 §3 prohibits.
//!
//! Two directions together make the proof:
//! - every scalar value encodes to bytes that the reference decoder reads back as exactly
//!   that scalar, with no error (so `encode` is injective and its output well-formed);
//! - every whole `UTF8-char` derivation of the grammar, found by walking the grammar's own
//!   automaton over all 256 byte values up to four deep, is `encode` of the scalar it
//!   decodes to (so no other well-formed sequence decodes to that scalar), and there are
//!   exactly 1,112,064 of them, the number of Unicode scalar values (Unicode §3.9 D76).

use super::*;
use crate::reference::Decoded;

/// U+0000..U+10FFFF less the 2,048 surrogate code points.
const SCALAR_VALUES: usize = 0x11_0000 - 0x800;

fn reference() -> &'static Reference {
    Reference::rfc3629()
}

fn scalars() -> impl Iterator<Item = u32> {
    (0..=0x10_FFFF).filter(|value| !(0xD800..=0xDFFF).contains(value))
}

#[test]
fn every_scalar_encodes_to_what_the_reference_decodes_back() {
    let reference = reference();
    let mut decoded = Decoded::default();
    let mut count = 0;
    for scalar in scalars() {
        let encoded = reference.encode_scalar(scalar).unwrap();
        reference.decode_into(encoded.as_bytes(), &mut decoded);
        assert!(decoded.errors.is_empty(), "U+{scalar:04X} → ill-formed");
        assert_eq!(decoded.scalars, [scalar], "U+{scalar:04X}");
        // std's encoder as a second witness of the same bytes.
        let mut buffer = [0; 4];
        let std = char::from_u32(scalar).unwrap().encode_utf8(&mut buffer);
        assert_eq!(encoded.as_bytes(), std.as_bytes(), "U+{scalar:04X}");
        count += 1;
    }
    assert_eq!(count, SCALAR_VALUES);
}

/// Every whole derivation of the grammar's character rule, by depth-first search over the
/// automaton's live sets: a sequence is whole when its live set accepts.
fn whole_characters(reference: &Reference) -> Vec<Vec<u8>> {
    let automaton = reference.automaton();
    let mut found = Vec::new();
    let mut stack = vec![(Vec::new(), automaton.start_states())];
    while let Some((prefix, live)) = stack.pop() {
        for byte in 0..=255u8 {
            let next = automaton.step(live, byte);
            if next == 0 {
                continue;
            }
            let mut sequence = prefix.clone();
            sequence.push(byte);
            if automaton.is_accepting(next) {
                found.push(sequence.clone());
            }
            if sequence.len() < MAX_OCTETS {
                stack.push((sequence, next));
            }
        }
    }
    found
}

#[test]
fn every_whole_character_of_the_grammar_is_the_encoding_of_its_scalar() {
    let reference = reference();
    let characters = whole_characters(reference);
    assert_eq!(characters.len(), SCALAR_VALUES);
    let mut seen = vec![false; 0x11_0000];
    for sequence in characters {
        let decoded = reference.decode(&sequence);
        assert!(decoded.errors.is_empty(), "{sequence:02X?}");
        let [scalar] = decoded.scalars[..] else {
            panic!("{sequence:02X?} is more than one character");
        };
        assert!(
            !seen[scalar as usize],
            "two sequences decode to U+{scalar:04X}"
        );
        seen[scalar as usize] = true;
        assert_eq!(
            reference.encode_scalar(scalar).unwrap().as_bytes(),
            &sequence[..]
        );
    }
}

#[test]
fn surrogate_code_points_have_no_encoding() {
    for code_point in 0xD800..=0xDFFF {
        assert_eq!(
            reference().encode_scalar(code_point),
            Err(Unencodable::SurrogateCodePoint),
            "U+{code_point:04X}"
        );
    }
}

#[test]
fn values_above_u10ffff_that_fit_a_template_have_no_encoding() {
    for code_point in 0x11_0000..=0x1F_FFFF {
        assert_eq!(
            reference().encode_scalar(code_point),
            Err(Unencodable::AboveMax),
            "{code_point:#X}"
        );
    }
}

/// The values past every template, sampled: each boundary of RFC 2279's longer forms and
/// a stride through the rest. The whole range is the ignored test below.
#[test]
fn values_beyond_the_templates_have_no_encoding_sampled() {
    let boundaries = [
        0x20_0000,
        0x3FF_FFFF,
        0x400_0000,
        0x7FFF_FFFF,
        0x8000_0000,
        u32::MAX,
    ];
    let stride = (0x20_0000..=u32::MAX).step_by(65_521);
    for code_point in boundaries.into_iter().chain(stride) {
        assert_eq!(
            reference().encode_scalar(code_point),
            Err(Unencodable::BeyondTemplates),
            "{code_point:#X}"
        );
    }
}

/// Every `u32` from U+200000 to 0xFFFFFFFF (about 4.3 billion): release mode, a few
/// seconds (`cargo test --release --lib -- --ignored beyond_the_templates`).
#[test]
#[ignore = "exhaustive over 4.3 billion values: run in release mode"]
fn values_beyond_the_templates_have_no_encoding_exhaustive() {
    let reference = reference();
    for code_point in 0x20_0000..=u32::MAX {
        assert_eq!(
            reference.encode_scalar(code_point),
            Err(Unencodable::BeyondTemplates)
        );
    }
}

/// Every pair of UTF-16 code units from U+D700 to U+E0FF (the surrogates and 256 units
/// either side), and every code unit alone, against std's UTF-16 decoder: the same scalars
/// where std finds one, an error of the right kind where it finds none.
#[test]
fn utf16_pairs_around_the_surrogates_agree_with_std() {
    let reference = reference();
    let around = 0xD700..0xE100u16;
    let pairs = around
        .clone()
        .flat_map(|first| around.clone().map(move |second| vec![first, second]));
    let singles = (0..=u16::MAX).map(|unit| vec![unit]);
    for units in singles.chain(pairs) {
        let ours = reference.encode_utf16(&units);
        let std: Result<String, _> = char::decode_utf16(units.iter().copied()).collect();
        match (ours, std) {
            (Ok(bytes), Ok(text)) => assert_eq!(bytes, text.as_bytes(), "{units:04X?}"),
            (Err(error), Err(_)) => {
                let expected = expected_utf16_error(&units);
                assert_eq!(error, expected, "{units:04X?}");
            }
            (ours, std) => panic!("{units:04X?}: ours {ours:?}, std {std:?}"),
        }
    }
}

/// The first error in `units`, written out from the definitions of Unicode §3.8.
fn expected_utf16_error(units: &[u16]) -> EncodeError {
    let high = |unit: u16| (0xD800..0xDC00).contains(&unit);
    let low = |unit: u16| (0xDC00..0xE000).contains(&unit);
    let mut position = 0;
    while position < units.len() {
        let unit = units[position];
        let next = units.get(position + 1).copied();
        if low(unit) {
            let kind = if next.is_some_and(high) {
                Unencodable::ReversedPair
            } else {
                Unencodable::LoneLowSurrogate
            };
            return EncodeError { position, kind };
        }
        if high(unit) {
            if !next.is_some_and(low) {
                let kind = Unencodable::LoneHighSurrogate;
                return EncodeError { position, kind };
            }
            position += 2;
        } else {
            position += 1;
        }
    }
    panic!("{units:04X?} has no error")
}

#[test]
fn utf32_and_utf16_report_the_first_error_by_element_index() {
    let reference = reference();
    assert_eq!(
        reference.encode_utf32(&[0x41, 0x10_FFFF, 0xD800, 0x42]),
        Err(EncodeError {
            position: 2,
            kind: Unencodable::SurrogateCodePoint
        })
    );
    assert_eq!(
        reference.encode_utf16(&[0x41, 0xD83D, 0xDE00, 0xDC00, 0xD800]),
        Err(EncodeError {
            position: 3,
            kind: Unencodable::ReversedPair
        })
    );
    assert_eq!(
        reference.encode_utf16(&[0x41, 0xD83D, 0xDE00]),
        Ok(vec![0x41, 0xF0, 0x9F, 0x98, 0x80])
    );
}

/// The grammar, not the encoder, decides: with `UTF8-3`'s `%xED %x80-9F` widened to any
/// tail byte (what WTF-8 and CESU-8 allow), the same code encodes surrogates.
#[test]
fn a_grammar_without_the_surrogate_gap_encodes_surrogates() {
    let widened = super::super::RFC3629_SECTION4_ABNF
        .replace("%xED %x80-9F UTF8-tail", "%xED 2( UTF8-tail )");
    let lenient = Reference::from_grammar(&widened).unwrap();
    assert_eq!(
        lenient.encode_scalar(0xD800).unwrap().as_bytes(),
        [0xED, 0xA0, 0x80]
    );
    assert_eq!(
        reference().encode_scalar(0xD800),
        Err(Unencodable::SurrogateCodePoint)
    );
}
