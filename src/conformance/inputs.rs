//! The inputs a conformance check runs: bounded-exhaustive inputs and probes.
//!
//! - `exhaustive-0-2`: every input of length 0, 1 and 2 (1 + 256 + 65,536 = 65,793). Every
//!   lead byte meets every second byte here, which is also what the report's 256x256 map
//!   shows.
//! - `boundary-3-4`: every input of length 3 and 4 over [`BOUNDARY_3_4_ALPHABET`] (22³ + 22⁴ =
//!   244,904 inputs): a byte of each byte class of Unicode Table 3-7 and of RFC 2279's
//!   legacy leads, both ends of the continuation ranges, so that every row of the table
//!   and every off-by-one next to it is met in every position of a 3- and 4-byte sequence.
//! - `probes`: a few named inputs for what the exhaustive sets cannot reach: the worked
//!   examples of Unicode §3.9, a byte order mark in first and later position, CESU-8
//!   pairs, 5- and 6-byte forms, noncharacters, and multilingual text.
//!
//! - `legacy-followed`: the RFC 2279 5- and 6-byte forms (which some decoders accept)
//!   followed by an error of each category and by well-formed text of each length
//!   ([`crate::diagnosis::followup_inputs`]): what does a decoder that accepts
//!   `F8 88 80 80 80` report for what comes next (its `valid_up_to` in particular)?
//!
//! - `vectors`: every authored test vector (`vectors/*.toml`, [`crate::corpus::vectors`]).
//! - the generated corpora `faults` and `placement` (seed 0, the first
//!   [`GENERATED_PER_SOURCE`] inputs of each): every ill-formed category injected into
//!   multilingual text, and faults placed across 16/32/64/128-byte boundaries.
//!
//! Inputs are numbered per source so that a report can say where an input came from
//! ([`Origin::Generator`] with the source name and the index).

use crate::corpus::faults::FaultGenerator;
use crate::corpus::generator::Generator;
use crate::corpus::placement::PlacementGenerator;
use crate::corpus::vectors::{self, VectorError};
use crate::corpus::{Input, Origin};
use crate::hex::parse_hex;

/// The alphabet of `check`'s `boundary-3-4` source: 22 bytes, in increasing order, with
/// at least one in each of the 17 byte classes of Table 3-7 with RFC 2279's leads
/// ([`crate::byte_class::classes_with_rfc_2279_leads`]).
///
/// Why it differs from `exhaustive-boundary`'s alphabet (`corpus::exhaustive::EDGE_ALPHABET`,
/// 24 bytes, both ends of each Table 3-7 class): `check` grades every decoder on every
/// input of length 3 and 4 within seconds, so it meets F5..FF the way decoders do (RFC
/// 2279's 5- and 6-byte leads F8 and FC, which some accept) and takes one byte of a lead
/// class whose bytes every row treats alike. Both ends are kept where an off-by-one
/// changes a sequence's length or row: ASCII (00, 7F), the continuation classes (80, 8F,
/// 90, 9F, A0, BF) and the two-byte leads (C2, DF); one byte stands for C0..C1 (C0),
/// E1..EC (E1), EE..EF (EF), F1..F3 (F1), F5..F7 (F5), F8..FB (F8), FC..FD (FC) and
/// FE..FF (FF). Its size is pinned: `boundary-3-4` is 22³ + 22⁴ = 244,904 inputs.
pub const BOUNDARY_3_4_ALPHABET: [u8; 22] = [
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0,
    0xF1, 0xF4, 0xF5, 0xF8, 0xFC, 0xFF,
];

/// A named probe: (name, hex bytes, why it is here).
pub const PROBES: &[(&str, &str, &str)] = &[
    ("unicode-3.9-table-3-8", "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64", "Unicode 3.9, Table 3-8: maximal subparts of truncated sequences"),
    ("unicode-3.9-table-3-9", "C0 AF E0 80 BF F0 81 82 41", "Unicode 3.9, Table 3-9: ill-formed leads and overlongs"),
    ("unicode-3.9-table-3-10", "ED A0 80 ED BF BF ED AF 41", "Unicode 3.9, Table 3-10: surrogates"),
    ("unicode-3.9-table-3-11", "F4 91 92 93 FF 41 80 BF 42", "Unicode 3.9, Table 3-11: above U+10FFFF and stray continuations"),
    ("unicode-3.9-table-3-12", "E1 80 E2 F0 91 92 F1 BF 41", "Unicode 3.9, Table 3-12: truncated sequences"),
    ("bom-alone", "EF BB BF", "U+FEFF is well-formed (RFC 3629 section 6: a BOM is a character)"),
    ("bom-then-ascii", "EF BB BF 41", "WHATWG 'decode' strips a leading BOM; 'UTF-8 decode without BOM' keeps it"),
    ("bom-twice", "EF BB BF EF BB BF 41", "only the first U+FEFF can be a signature"),
    ("bom-after-ascii", "41 EF BB BF", "U+FEFF after the start is ZERO WIDTH NO-BREAK SPACE"),
    ("bom-then-error", "EF BB BF 80 41", "a BOM followed by an error"),
    ("noncharacter-fdd0", "EF B7 90", "U+FDD0, a noncharacter, is well-formed (Unicode 23.7)"),
    ("noncharacter-fdef", "EF B7 AF", "U+FDEF, the last of U+FDD0..FDEF"),
    ("noncharacter-fffe", "EF BF BE", "U+FFFE is well-formed"),
    ("noncharacter-ffff", "EF BF BF", "U+FFFF is well-formed"),
    ("noncharacter-1fffe", "F0 9F BF BE", "U+1FFFE is well-formed"),
    ("noncharacter-10ffff", "F4 8F BF BF", "U+10FFFF, the last scalar value"),
    ("replacement-character", "EF BF BD", "U+FFFD itself is a character"),
    ("cesu8-u10000", "ED A0 80 ED B0 80", "CESU-8 encoding of U+10000 (UTR 26): ill-formed UTF-8"),
    ("cesu8-u10ffff", "ED AF BF ED BF BF 41", "CESU-8 encoding of U+10FFFF"),
    ("cesu8-u1f600", "ED A0 BD ED B8 80", "CESU-8 encoding of U+1F600"),
    ("modified-utf8-nul", "41 C0 80 42", "Modified UTF-8's NUL: an overlong, ill-formed"),
    ("legacy-5-byte", "F8 88 80 80 80 41", "RFC 2279 5-byte form of U+200000"),
    ("legacy-6-byte", "FC 84 80 80 80 80 41", "RFC 2279 6-byte form of U+4000000"),
    ("legacy-6-byte-max", "FD BF BF BF BF BF", "RFC 2279 6-byte form of U+7FFFFFFF"),
    ("above-max-f4-90", "F4 90 80 80 41", "U+110000: above the Unicode range (RFC 3629 section 3)"),
    ("above-max-f7", "F7 BF BF BF", "U+1FFFFF in 4 bytes"),
    ("overlong-3-slash", "E0 80 AF", "3-byte overlong '/' (the classic path-traversal form)"),
    ("overlong-4-slash", "F0 80 80 AF", "4-byte overlong '/'"),
    ("surrogate-pair-halves", "ED B0 80 ED A0 80", "a low then a high surrogate: not a CESU-8 pair"),
    ("multilingual", "48 C3 A9 6C 6C 6F 20 CE BA CF 8C CF 83 CE BC CE B5 20 D0 BC D0 B8 D1 80 20 D7 A9 D7 9C D7 95 D7 9D 20 D8 B3 D9 84 D8 A7 D9 85 20 E0 A4 A8 E0 A4 AE E0 A4 B8 E0 A5 8D E0 A4 A4 E0 A5 87 20 E4 B8 AD E6 96 87 20 ED 95 9C 20 F0 9F 98 80 F0 90 8D 88", "well-formed text in Latin, Greek, Cyrillic, Hebrew, Arabic, Devanagari, CJK, Hangul and astral scripts"),
    ("multilingual-with-errors", "48 C3 A9 80 6C CE 20 D0 BC ED A0 80 E4 B8 F0 9F 98 41 F0 9F 98 80 FF", "errors between well-formed characters of several lengths"),
];

/// Every input of length 0..=2, in order (index = the bytes read as a base-256 number,
/// offset by the count of shorter inputs).
pub fn exhaustive_up_to_two() -> impl Iterator<Item = Vec<u8>> {
    let empty = std::iter::once(Vec::new());
    let one = (0..=255u8).map(|b| vec![b]);
    let two = (0..=0xFFFFu32).map(|n| vec![(n >> 8) as u8, n as u8]);
    empty.chain(one).chain(two)
}

/// Every input of length 3 and 4 over [`BOUNDARY_3_4_ALPHABET`], in order.
pub fn boundary_three_and_four() -> impl Iterator<Item = Vec<u8>> {
    [3usize, 4].into_iter().flat_map(|len| {
        let count = BOUNDARY_3_4_ALPHABET.len().pow(len as u32);
        (0..count).map(move |mut index| {
            let mut bytes = vec![0; len];
            for slot in bytes.iter_mut().rev() {
                *slot = BOUNDARY_3_4_ALPHABET[index % BOUNDARY_3_4_ALPHABET.len()];
                index /= BOUNDARY_3_4_ALPHABET.len();
            }
            bytes
        })
    })
}

/// The probes as bytes.
pub fn probes() -> impl Iterator<Item = Vec<u8>> {
    PROBES
        .iter()
        .map(|(name, hex, _)| parse_hex(hex).unwrap_or_else(|e| panic!("probe {name}: {e}")))
}

/// The 5- and 6-byte forms of RFC 2279 that `legacy-followed` puts before each follower:
/// U+200000 in 5 bytes, U+4000000 in 6, and a 5-byte form with an extra continuation byte.
pub const LEGACY_FORMS: [&[u8]; 3] = [
    &[0xF8, 0x88, 0x80, 0x80, 0x80],
    &[0xFC, 0x84, 0x80, 0x80, 0x80, 0x80],
    &[0xF8, 0x88, 0x80, 0x80, 0x80, 0x80],
];

/// Every legacy form followed by each follower of [`crate::diagnosis::followup_inputs`].
pub fn legacy_followed() -> impl Iterator<Item = Vec<u8>> {
    LEGACY_FORMS
        .into_iter()
        .flat_map(crate::diagnosis::followup_inputs)
}

/// Inputs taken from each generated corpus.
pub const GENERATED_PER_SOURCE: u64 = 20_000;

/// Every input of a check, each tagged with its source. Fails when the embedded vectors
/// do not load.
pub fn check_inputs() -> Result<Vec<Input>, VectorError> {
    let mut inputs = Vec::new();
    inputs.extend(vectors::embedded()?.into_iter().map(Input::from));
    let generators: [&dyn Generator; 2] = [&FaultGenerator::new(0), &PlacementGenerator::new(0)];
    for generator in generators {
        let count = generator
            .len_hint()
            .map_or(GENERATED_PER_SOURCE, |len| len.min(GENERATED_PER_SOURCE));
        inputs.extend((0..count).filter_map(|index| generator.input_at(index)));
    }
    type Source = Box<dyn Iterator<Item = Vec<u8>>>;
    let sources: [(&str, Source); 4] = [
        ("probes", Box::new(probes())),
        ("legacy-followed", Box::new(legacy_followed())),
        ("exhaustive-0-2", Box::new(exhaustive_up_to_two())),
        ("boundary-3-4", Box::new(boundary_three_and_four())),
    ];
    for (name, bytes) in sources {
        for (index, bytes) in bytes.enumerate() {
            inputs.push(Input {
                bytes,
                origin: Origin::Generator {
                    name: name.to_string(),
                    seed: 0,
                    index: index as u64,
                },
            });
        }
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_documentation() {
        assert_eq!(exhaustive_up_to_two().count(), 65_793);
        assert_eq!(
            boundary_three_and_four().count(),
            22usize.pow(3) + 22usize.pow(4)
        );
        let inputs = check_inputs().unwrap();
        let count = |source: &str| {
            inputs
                .iter()
                .filter(|i| i.origin.source() == source)
                .count()
        };
        assert_eq!(count("probes"), PROBES.len());
        assert_eq!(count("legacy-followed"), 3 * 16);
        assert!(inputs
            .iter()
            .any(|i| i.bytes == [0xF8, 0x88, 0x80, 0x80, 0x80, 0x80, 0xFF]));
        assert_eq!(count("exhaustive-0-2"), 65_793);
        assert_eq!(count("boundary-3-4"), 244_904);
        assert!(count("vectors") > 100);
        assert!(count("faults") > 1000 && count("placement") > 1000);
    }

    #[test]
    fn boundary_inputs_are_distinct_and_over_the_set() {
        let all: Vec<Vec<u8>> = boundary_three_and_four().collect();
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
        assert!(all
            .iter()
            .all(|input| input.iter().all(|b| BOUNDARY_3_4_ALPHABET.contains(b))));
        assert!(BOUNDARY_3_4_ALPHABET.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn the_alphabet_meets_every_class_with_rfc_2279_leads() {
        use crate::byte_class::{classes_with_rfc_2279_leads, TABLE_3_7_CLASSES};
        for class in classes_with_rfc_2279_leads() {
            assert!(
                BOUNDARY_3_4_ALPHABET.iter().any(|&b| class.contains(b)),
                "no byte of {class:?}"
            );
        }
        // Both ends where an off-by-one changes a sequence's length or row.
        for class in &TABLE_3_7_CLASSES[..4] {
            assert!(BOUNDARY_3_4_ALPHABET.contains(&class.first), "{class:?}");
            assert!(BOUNDARY_3_4_ALPHABET.contains(&class.last), "{class:?}");
        }
        assert!(BOUNDARY_3_4_ALPHABET.contains(&0xC2) && BOUNDARY_3_4_ALPHABET.contains(&0xDF));
    }

    #[test]
    fn probes_parse() {
        assert_eq!(probes().count(), PROBES.len());
    }
}
