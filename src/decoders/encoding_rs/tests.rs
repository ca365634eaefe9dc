//! Tests of the encoding_rs decoders: agreement with the reference on the worked examples
//! of Unicode §3.9 and WHATWG, whole or cut in every way, and linear work on inputs with an
//! error every byte.

use super::*;
use crate::decoders::chunk_plan::{chunkings, chunks};
use crate::decoders::streaming::Chunked;
use crate::reference::Reference;

/// Inputs as hex: the maximal-subpart examples of Unicode §3.9 (Tables 3-8 to 3-11), a
/// truncation, an empty input, and a valid character followed by a truncated one.
const WORKED_EXAMPLES: [&str; 9] = [
    "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
    "C0 AF E0 80 BF F0 81 82 41",
    "ED A0 80 ED BF BF ED AF 41",
    "F4 91 92 93 FF 41 80 BF 42",
    "E1 80 E2 F0 91 92 F1 BF 41",
    "E4 BD",
    "E0 80",
    "",
    "F0 9F 98 80 F0 9F 98",
];

fn assert_agrees_with_reference(outcome: &Outcome, input: &[u8], what: &str) {
    let expected = Reference::rfc3629().outcome(outcome.decoder.as_str(), input);
    assert_eq!(outcome.scalars, expected.scalars, "{what}");
    assert_eq!(outcome.valid, expected.valid, "{what}");
    assert_eq!(outcome.valid_up_to, expected.valid_up_to, "{what}");
    assert_eq!(outcome.error_len, expected.error_len, "{what}");
    let units = |outcome: &Outcome| -> Vec<(usize, usize)> {
        let errors = outcome.errors.iter().flatten();
        errors.map(|unit| (unit.offset, unit.len)).collect()
    };
    assert_eq!(units(outcome), units(&expected), "{what}");
}

#[test]
fn both_decoders_agree_with_the_reference_on_the_worked_examples() {
    let chunked = Chunked::per_input(EncodingRsStream);
    for text in WORKED_EXAMPLES {
        let input = crate::hex::parse_hex(text).unwrap();
        for decoder in [&EncodingRsDecoder as &dyn Decoder, &chunked] {
            let outcome = decoder.decode(&input).unwrap();
            assert_agrees_with_reference(&outcome, &input, &format!("{} {text}", decoder.name()));
        }
    }
}

#[test]
fn the_stream_agrees_with_the_reference_under_every_splitting() {
    let mut outcome = Outcome::verdict("x", true);
    for text in WORKED_EXAMPLES {
        let input = crate::hex::parse_hex(text).unwrap();
        for boundaries in chunkings(&input, 5) {
            let pieces: Vec<&[u8]> = chunks(&input, &boundaries).collect();
            EncodingRsStream.decode_chunks(&pieces, &mut outcome);
            assert_agrees_with_reference(
                &outcome,
                &input,
                &format!("{text} cut at {boundaries:?}"),
            );
        }
    }
}

#[test]
fn reused_outcomes_forget_the_previous_input() {
    let chunked = Chunked::per_input(EncodingRsStream);
    let mut outcome = Outcome::verdict("x", false);
    for decoder in [&EncodingRsDecoder as &dyn Decoder, &chunked] {
        decoder
            .decode_into(&[0xFF, 0x80, 0xE4], &mut outcome)
            .unwrap();
        decoder.decode_into(b"ok", &mut outcome).unwrap();
        assert_eq!(
            outcome,
            decoder.decode(b"ok").unwrap(),
            "{}",
            decoder.name()
        );
    }
}

/// The regression test of the quadratic decode (it once took 46 s for 8 MB of random bytes):
/// work is counted, not timed. Every call gets at most one fixed output block, and the
/// calls number one per error unit plus one per chunk and per block of output, so the work
/// is linear in the input.
#[test]
fn work_is_linear_in_the_input_even_with_an_error_every_byte() {
    // 64 KiB: an error unit at every byte (FF), then ASCII that fills many output blocks.
    let mut input = vec![0xFF; 1 << 16];
    input.resize(2 << 16, b'a');
    let mut units = Vec::new();
    let mut strict = Work::default();
    strict_units(&[&input], &mut units, &mut strict);
    assert_eq!(units.len(), 1 << 16);
    let blocks = input.len() / (OUTPUT_BLOCK - 4) + 1;
    let end_call = 1;
    assert!(strict.largest_output <= OUTPUT_BLOCK, "{strict:?}");
    assert!(
        strict.calls <= units.len() + blocks + 1 + end_call,
        "{strict:?}"
    );
    let mut scalars = Vec::new();
    let mut lossy = Work::default();
    lossy_scalars(&[&input], &mut scalars, &mut lossy);
    assert_eq!(scalars.len(), input.len());
    // Replacement never stops a call: 3 output bytes per FF, 1 per 'a'.
    let lossy_blocks = (3 << 16) / (OUTPUT_BLOCK - 4) + (1 << 16) / (OUTPUT_BLOCK - 4) + 2;
    assert!(lossy.largest_output <= OUTPUT_BLOCK, "{lossy:?}");
    assert!(lossy.calls <= lossy_blocks + 1 + end_call, "{lossy:?}");
}
