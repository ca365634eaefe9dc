//! Inputs for encoders: sequences of UTF-16 code units and of 32-bit code points, chosen
//! where encoders go wrong.
//!
//! - every scalar value alone, in both forms (the `thorough` set; a stride and every
//!   boundary otherwise);
//! - every code unit, and every pair of code units from U+D700 to U+E0FF (the surrogates
//!   and 256 units either side; a representative set otherwise), so lone, paired and
//!   reversed surrogates meet every neighbour;
//! - 32-bit values that are not scalars: every surrogate code point, the values above
//!   U+10FFFF up to the edges of RFC 2279's templates, and above 0x7FFFFFFF;
//! - lone surrogates planted at SIMD block offsets (15, 16, 31, 32, 63, 64) in ASCII and
//!   mixed text, since vectorised encoders handle the end of a block apart;
//! - long texts in several scripts.
//!
//! Shorter inputs come first, so the first input that shows a behaviour is a small one.

use crate::encoders::CodeUnits;

/// Scalars at every length boundary of RFC 3629 §3, the edges of the surrogate gap, the
/// noncharacters' edges and U+FEFF.
const SPECIAL_SCALARS: &[u32] = &[
    0x0, 0x1, 0x41, 0x7F, 0x80, 0xFF, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFDD0, 0xFDEF, 0xFEFF, 0xFFFD,
    0xFFFE, 0xFFFF, 0x1_0000, 0x1_F600, 0x1_FFFE, 0x10_FFFE, 0x10_FFFF,
];

/// Code units around and inside the surrogate range, for the quick pair set. DC80 is the
/// first of the lone low surrogates that Python's `surrogateescape` turns back into the
/// byte they stand for (80..FF), which no other entry reaches.
const SURROGATE_NEIGHBOURS: &[u16] = &[
    0x0000, 0x0041, 0xD7FF, 0xD800, 0xD801, 0xDBFF, 0xDC00, 0xDC01, 0xDC80, 0xDFFF, 0xE000, 0xFFFF,
];

/// Every input of the set, both forms; `thorough` takes every scalar and every pair around
/// the surrogates (about 9 million inputs), otherwise a few thousand.
pub fn encoder_inputs(thorough: bool) -> Vec<CodeUnits> {
    let mut inputs = Vec::new();
    push_scalars(&mut inputs, thorough);
    push_code_unit_pairs(&mut inputs, thorough);
    push_non_scalars(&mut inputs, thorough);
    push_planted_at_block_offsets(&mut inputs);
    push_texts(&mut inputs);
    inputs
}

fn push_scalars(inputs: &mut Vec<CodeUnits>, thorough: bool) {
    let stride = if thorough { 1 } else { 257 };
    let scalars = (0..=0x10_FFFFu32)
        .step_by(stride)
        .chain(SPECIAL_SCALARS.iter().copied())
        .filter(|value| char::from_u32(*value).is_some());
    for scalar in scalars {
        inputs.push(CodeUnits::Utf32(vec![scalar]));
        let c = char::from_u32(scalar).expect("filtered to scalars");
        inputs.push(CodeUnits::Utf16(c.encode_utf16(&mut [0; 2]).to_vec()));
    }
}

fn push_code_unit_pairs(inputs: &mut Vec<CodeUnits>, thorough: bool) {
    let units: Vec<u16> = if thorough {
        (0xD700..0xE100).collect()
    } else {
        SURROGATE_NEIGHBOURS.to_vec()
    };
    for &first in &units {
        inputs.push(CodeUnits::Utf16(vec![first]));
    }
    for &first in &units {
        for &second in &units {
            inputs.push(CodeUnits::Utf16(vec![first, second]));
        }
    }
    for &first in SURROGATE_NEIGHBOURS {
        for &second in SURROGATE_NEIGHBOURS {
            for &third in SURROGATE_NEIGHBOURS {
                inputs.push(CodeUnits::Utf16(vec![first, second, third]));
            }
        }
    }
}

fn push_non_scalars(inputs: &mut Vec<CodeUnits>, thorough: bool) {
    let mut values: Vec<u32> = (0xD800..=0xDFFF).collect();
    values.extend([
        0x11_0000,
        0x11_0001,
        0x13_FFFF,
        0x1F_FFFF,
        0x20_0000,
        0x3FF_FFFF,
        0x400_0000,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
    ]);
    let stride = if thorough { 1 } else { 4099 };
    values.extend((0x11_0000..=0x1F_FFFF).step_by(stride));
    for value in values {
        inputs.push(CodeUnits::Utf32(vec![value]));
        inputs.push(CodeUnits::Utf32(vec![0x41, value, 0x42]));
    }
}

fn push_planted_at_block_offsets(inputs: &mut Vec<CodeUnits>) {
    let texts = ["a", "\u{E9}", "\u{4E2D}", "\u{1F600}"];
    for text in texts {
        for offset in [15, 16, 31, 32, 63, 64] {
            for lone in [0xD800u16, 0xDC00] {
                let mut units: Vec<u16> = text.repeat(80).encode_utf16().take(80).collect();
                // In a text of pairs, the planted unit replaces a whole pair (with an `a`
                // after it), so the input has exactly one lone surrogate.
                if (0xD800..0xE000).contains(&units[offset]) {
                    let start = offset - offset % 2;
                    units[start] = lone;
                    units[start + 1] = 0x61;
                } else {
                    units[offset] = lone;
                }
                inputs.push(CodeUnits::Utf16(units));
            }
            let mut points: Vec<u32> = text.repeat(80).chars().map(u32::from).collect();
            points[offset] = 0xD800;
            inputs.push(CodeUnits::Utf32(points));
        }
    }
}

fn push_texts(inputs: &mut Vec<CodeUnits>) {
    let text = "Grüße, 你好, Привет, مرحبا, 👋🏽 — the quick brown fox; \u{0}\u{FEFF}\u{10FFFF}";
    let long = text.repeat(64);
    inputs.push(CodeUnits::Utf16(long.encode_utf16().collect()));
    inputs.push(CodeUnits::Utf32(long.chars().map(u32::from).collect()));
}
