//! Unit tests of the reference decoder: the grammar itself, Unicode's worked examples, every
//! boundary of Unicode Table 3-7, and the explanations.

use super::*;
use crate::hex::parse_hex;
use crate::outcome::REPLACEMENT;

fn decode_hex(text: &str) -> Decoded {
    Reference::rfc3629().decode(&parse_hex(text).unwrap())
}

/// `FFFD` in expectations below stands for U+FFFD.
const FFFD: u32 = REPLACEMENT;

#[test]
fn the_embedded_grammar_is_rfc3629_section4_verbatim() {
    // SHA-256 of RFC 3629 §4's ABNF block as printed in the RFC (the 11 lines from
    // "UTF8-octets" to "UTF8-tail", with the RFC's three-space indentation). `.ci/run`
    // also compares the file byte for byte with the published copy.
    let digest = crate::reference::tests::sha256_hex(RFC3629_SECTION4_ABNF.as_bytes());
    assert_eq!(
        digest,
        "ede1c8428280d4c0e8ae9a657e779bb8a0ea7bba111a34c739d0c2985b44e439"
    );
    let rules = abnf::parse_rules(RFC3629_SECTION4_ABNF).unwrap();
    let names: Vec<&str> = rules.iter().map(|rule| rule.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "UTF8-octets",
            "UTF8-char",
            "UTF8-1",
            "UTF8-2",
            "UTF8-3",
            "UTF8-4",
            "UTF8-tail"
        ]
    );
    let reference = Reference::rfc3629();
    assert_eq!(reference.sequence_rule(), "UTF8-octets");
    assert_eq!(reference.char_rule(), "UTF8-char");
}

#[test]
fn the_five_worked_examples_of_unicode_3_9() {
    let examples: [(&str, &[u32]); 5] = [
        (
            "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
            &[0x61, FFFD, FFFD, FFFD, 0x62, FFFD, 0x63, FFFD, FFFD, 0x64],
        ),
        (
            "C0 AF E0 80 BF F0 81 82 41",
            &[FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, 0x41],
        ),
        (
            "ED A0 80 ED BF BF ED AF 41",
            &[FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, 0x41],
        ),
        (
            "F4 91 92 93 FF 41 80 BF 42",
            &[FFFD, FFFD, FFFD, FFFD, FFFD, 0x41, FFFD, FFFD, 0x42],
        ),
        (
            "E1 80 E2 F0 91 92 F1 BF 41",
            &[FFFD, FFFD, FFFD, FFFD, 0x41],
        ),
    ];
    for (input, expected) in examples {
        assert_eq!(decode_hex(input).scalars, expected, "{input}");
    }
    let first = decode_hex("61 F1 80 80 E1 80 C2 62 80 63 80 BF 64");
    assert_eq!(first.first_error(), Some((1, ErrorLen::Invalid(3))));
}

#[test]
fn std_shaped_error_len() {
    assert_eq!(
        decode_hex("E4 BD").first_error(),
        Some((0, ErrorLen::Incomplete))
    );
    assert_eq!(
        decode_hex("E0 80").first_error(),
        Some((0, ErrorLen::Invalid(1)))
    );
    assert_eq!(
        decode_hex("ED A0").first_error(),
        Some((0, ErrorLen::Invalid(1)))
    );
    assert_eq!(
        decode_hex("41 F0 9F 98").first_error(),
        Some((1, ErrorLen::Incomplete))
    );
    // Only the first error decides error_len: an invalid unit before an incomplete one.
    assert_eq!(
        decode_hex("80 E4 BD").first_error(),
        Some((0, ErrorLen::Invalid(1)))
    );
    // Noncharacters and the BOM are well-formed.
    for valid in [
        "EF BF BE",
        "EF BF BF",
        "EF BB BF",
        "EF B7 90",
        "F4 8F BF BF",
        "F0 9F BF BE",
    ] {
        assert!(decode_hex(valid).is_valid(), "{valid}");
    }
    assert_eq!(decode_hex("EF BB BF").scalars, [0xFEFF]);
    assert!(decode_hex("").is_valid());
}

/// Unicode 15.0 Table 3-7, "Well-Formed UTF-8 Byte Sequences": code point range, then the
/// allowed range of each byte. Written out here to test the grammar-driven decoder against
/// the Standard's table; the decoder itself never sees it.
/// One row of Table 3-7: first and last code point, then each byte's allowed range.
type TableRow = (u32, u32, &'static [(u8, u8)]);

const TABLE_3_7: [TableRow; 9] = [
    (0x0000, 0x007F, &[(0x00, 0x7F)]),
    (0x0080, 0x07FF, &[(0xC2, 0xDF), (0x80, 0xBF)]),
    (0x0800, 0x0FFF, &[(0xE0, 0xE0), (0xA0, 0xBF), (0x80, 0xBF)]),
    (0x1000, 0xCFFF, &[(0xE1, 0xEC), (0x80, 0xBF), (0x80, 0xBF)]),
    (0xD000, 0xD7FF, &[(0xED, 0xED), (0x80, 0x9F), (0x80, 0xBF)]),
    (0xE000, 0xFFFF, &[(0xEE, 0xEF), (0x80, 0xBF), (0x80, 0xBF)]),
    (
        0x10000,
        0x3FFFF,
        &[(0xF0, 0xF0), (0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF)],
    ),
    (
        0x40000,
        0xFFFFF,
        &[(0xF1, 0xF3), (0x80, 0xBF), (0x80, 0xBF), (0x80, 0xBF)],
    ),
    (
        0x100000,
        0x10FFFF,
        &[(0xF4, 0xF4), (0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF)],
    ),
];

#[test]
fn every_boundary_of_table_3_7() {
    let reference = Reference::rfc3629();
    for (first, last, columns) in TABLE_3_7 {
        let lows: Vec<u8> = columns.iter().map(|&(lo, _)| lo).collect();
        let highs: Vec<u8> = columns.iter().map(|&(_, hi)| hi).collect();
        // The row's corners decode to the ends of its code point range.
        assert_eq!(reference.decode(&lows).scalars, [first], "{lows:02X?}");
        assert_eq!(reference.decode(&highs).scalars, [last], "{highs:02X?}");
        // Each column's edges are accepted, and one past each edge is not.
        for (column, &(lo, hi)) in columns.iter().enumerate() {
            for (edge, inside) in [(lo, true), (hi, true)] {
                let mut bytes = lows.clone();
                bytes[column] = edge;
                assert_eq!(reference.decode(&bytes).is_valid(), inside, "{bytes:02X?}");
            }
            for outside in [lo.checked_sub(1), hi.checked_add(1)].into_iter().flatten() {
                let mut bytes = lows.clone();
                bytes[column] = outside;
                let in_another_row = TABLE_3_7.iter().any(|(_, _, other)| {
                    other.len() == bytes.len()
                        && other
                            .iter()
                            .zip(&bytes)
                            .all(|(&(lo, hi), &b)| (lo..=hi).contains(&b))
                });
                assert_eq!(
                    reference.decode(&bytes).is_valid(),
                    in_another_row,
                    "{bytes:02X?}"
                );
            }
        }
    }
}

#[test]
fn every_scalar_value_round_trips() {
    let reference = Reference::rfc3629();
    let mut decoded = Decoded::default();
    let mut buffer = [0u8; 4];
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        reference.decode_into(c.encode_utf8(&mut buffer).as_bytes(), &mut decoded);
        assert_eq!(decoded.scalars, [u32::from(c)]);
        assert!(decoded.errors.is_empty());
    }
}

#[test]
fn explanations_name_the_rule_that_failed() {
    let reference = Reference::rfc3629();
    let explain_first = |text: &str| {
        let input = parse_hex(text).unwrap();
        let decoded = reference.decode(&input);
        reference.explain(&input, &decoded.errors[0])
    };
    assert_eq!(
        explain_first("41 42 43 ED A0 80"),
        "UTF8-3 = %xED %x80-9F UTF8-tail: byte A0 at offset 4 is outside %x80-9F"
    );
    assert_eq!(
        explain_first("E0 80 AF"),
        "UTF8-3 = %xE0 %xA0-BF UTF8-tail: byte 80 at offset 1 is outside %xA0-BF"
    );
    assert_eq!(
        explain_first("F4 90 80 80"),
        "UTF8-4 = %xF4 %x80-8F 2( UTF8-tail ): byte 90 at offset 1 is outside %x80-8F"
    );
    assert_eq!(
        explain_first("F0 8F BF BF"),
        "UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ): byte 8F at offset 1 is outside %x90-BF"
    );
    assert_eq!(
        explain_first("E4 BD"),
        "UTF8-3 = %xE1-EC 2( UTF8-tail ): the input ends at offset 2, where UTF8-tail (%x80-BF) is expected"
    );
    assert_eq!(
        explain_first("C3 41"),
        "UTF8-2 = %xC2-DF UTF8-tail: byte 41 at offset 1 is outside UTF8-tail (%x80-BF)"
    );
    let lead = explain_first("C0 80");
    assert!(lead.starts_with("UTF8-char"), "{lead}");
    assert!(lead.contains("byte C0 at offset 0 starts none"), "{lead}");
    assert!(lead.contains("%xC2-DF"), "{lead}");
}

#[test]
fn a_changed_grammar_changes_the_decoder() {
    // The decoder has no ranges of its own: widen UTF8-2 to admit C0/C1 (Modified UTF-8's
    // overlong NUL) and `C0 80` decodes to U+0000.
    let widened = RFC3629_SECTION4_ABNF.replace("%xC2-DF UTF8-tail", "%xC0-DF UTF8-tail");
    let lax = Reference::from_grammar(&widened).unwrap();
    assert_eq!(lax.decode(&[0xC0, 0x80]).scalars, [0]);
    assert!(!Reference::rfc3629().decode(&[0xC0, 0x80]).is_valid());
    assert!(Reference::from_grammar("a = %x41").is_err());
}

/// A small SHA-256 (FIPS 180-4) so that the grammar check needs no extra dependency.
pub(crate) fn sha256_hex(message: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut padded = message.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((message.len() as u64) * 8).to_be_bytes());
    for block in padded.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let choice = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(choice)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let majority = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(majority);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (state, value) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *state = state.wrapping_add(value);
        }
    }
    h.iter().map(|word| format!("{word:08x}")).collect()
}

#[test]
fn sha256_matches_the_fips_example() {
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9c b410ff61f20015ad".replace(' ', "")
    );
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

/// The plain walk: the matcher at every offset, as [`Reference::steps`] does.
fn decode_by_matcher(reference: &Reference, input: &[u8]) -> Decoded {
    let mut decoded = Decoded::default();
    for step in reference.steps(input) {
        match step {
            Step::Char(scalar) => decoded.scalars.push(scalar),
            Step::Error(span) => {
                decoded.errors.push(span);
                decoded.scalars.push(REPLACEMENT);
            }
        }
    }
    decoded
}

#[test]
fn the_single_byte_fast_path_is_utf8_1() {
    let reference = Reference::rfc3629();
    let single: Vec<u8> = (0..=255u8)
        .filter(|&byte| reference.automaton().is_single_byte_char(byte))
        .collect();
    assert_eq!(single, (0x00..=0x7F).collect::<Vec<u8>>());
    // Derived from the grammar, not written down: narrow UTF8-1 and the fast path narrows.
    let narrowed = RFC3629_SECTION4_ABNF.replace("UTF8-1      = %x00-7F", "UTF8-1      = %x00-3F");
    assert_ne!(narrowed, RFC3629_SECTION4_ABNF);
    let narrow = Reference::from_grammar(&narrowed).unwrap();
    assert!(narrow.automaton().is_single_byte_char(0x3F));
    assert!(!narrow.automaton().is_single_byte_char(0x40));
    assert!(!narrow.decode(b"@").is_valid());
}

#[test]
fn fast_path_agrees_with_the_matcher() {
    // Every input of up to 2 bytes, every 3-byte input over the bytes where Table 3-7's
    // rows change, and mixed longer texts: `decode_into` (with its fast path) and
    // `first_error` answer exactly as the matcher run at every offset.
    let reference = Reference::rfc3629();
    let check = |input: &[u8]| {
        let expected = decode_by_matcher(reference, input);
        assert_eq!(reference.decode(input), expected, "{input:02X?}");
        assert_eq!(
            reference.first_error(input),
            expected.first_error(),
            "{input:02X?}"
        );
    };
    check(&[]);
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
    let edges = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ];
    for &a in &edges {
        for &b in &edges {
            for &c in &edges {
                check(&[a, b, c]);
                check(&[0x61, a, b, c, 0x62]);
            }
        }
    }
    check("héllo wörld — 日本語 🎉 ascii".as_bytes());
    check(&[
        0x61, 0xF0, 0x9F, 0x98, 0x80, 0x62, 0xED, 0xA0, 0x80, 0x63, 0xE4, 0xBD,
    ]);
}
