//! Properties of the decoders, checked by proptest on generated inputs (shrunk to a
//! smallest counterexample on failure):
//!
//! - well-formed text round-trips: the reference accepts every Rust string and returns its
//!   scalars;
//! - lossy output is well-formed and a fixed point: decoding it again changes nothing;
//! - the `valid_up_to` prefix is well-formed and the rest starts with an error of the
//!   reported `error_len`;
//! - chunked decoding (encoding_rs's and the fast streaming decoder over each backend)
//!   equals one-shot decoding by the reference, wherever the chunks are cut;
//! - every backend of the fast decoder, called by name, equals the reference on arbitrary
//!   bytes;
//! - every built-in in-process decoder (std, encoding_rs, simdutf8, bstr, ...) agrees with
//!   the reference on arbitrary bytes, by the engine's comparison.
//!
//! Arbitrary bytes are drawn from a distribution that favours UTF-8's interesting bytes
//! (lead bytes, continuation bytes at the range edges, ASCII) and splices in real
//! multi-byte characters, so that short inputs hit the error paths often.

use proptest::prelude::*;
use utf8conf::engine::check::PairChecker;
use utf8conf::outcome::{ErrorLen, Outcome};
use utf8conf::reference::Reference;

#[path = "../../fuzz/src/fast_backends.rs"]
#[allow(dead_code)]
mod fast_backends;
use utf8conf::decoders::chunk_plan::CycledSizes;
use utf8conf::decoders::encoding_rs::EncodingRsStream;
use utf8conf::decoders::fast::FastStream;
use utf8conf::decoders::streaming::StreamingDecoder;

/// One byte, biased toward the bytes that decide UTF-8 well-formedness.
fn utf8ish_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        2 => any::<u8>(),
        2 => 0x80u8..=0xBF,
        1 => prop::sample::select(vec![
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFB, 0xFC, 0xFD,
            0xFE, 0xFF,
        ]),
        1 => b'a'..=b'z',
    ]
}

/// Byte strings of mixed valid characters and UTF-8-ish bytes.
fn utf8ish_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            3 => utf8ish_byte().prop_map(|byte| vec![byte]),
            1 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        ],
        0..48,
    )
    .prop_map(|pieces| pieces.concat())
}

fn lossy_string(scalars: &[u32]) -> String {
    scalars
        .iter()
        .map(|&scalar| char::from_u32(scalar).expect("lossy output holds scalar values"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        // Counterexamples are printed; a failure worth keeping becomes a regression file.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn valid_text_round_trips(text in any::<String>()) {
        let decoded = Reference::rfc3629().decode(text.as_bytes());
        prop_assert!(decoded.is_valid());
        let scalars: Vec<u32> = text.chars().map(u32::from).collect();
        prop_assert_eq!(decoded.scalars, scalars);
    }

    #[test]
    fn lossy_output_is_valid_and_decodes_to_itself(input in utf8ish_bytes()) {
        let reference = Reference::rfc3629();
        let lossy = lossy_string(&reference.decode(&input).scalars);
        let again = reference.decode(lossy.as_bytes());
        prop_assert!(again.is_valid());
        prop_assert_eq!(lossy_string(&again.scalars), lossy.clone());
        prop_assert_eq!(String::from_utf8_lossy(&input), lossy);
    }

    #[test]
    fn valid_up_to_prefix_is_valid_and_the_rest_starts_with_an_error(input in utf8ish_bytes()) {
        let reference = Reference::rfc3629();
        let Some((valid_up_to, error_len)) = reference.first_error(&input) else {
            prop_assert!(std::str::from_utf8(&input).is_ok());
            return Ok(());
        };
        prop_assert!(reference.first_error(&input[..valid_up_to]).is_none());
        prop_assert!(std::str::from_utf8(&input[..valid_up_to]).is_ok());
        // The rest, decoded alone, fails at once with the same unit.
        prop_assert_eq!(
            reference.first_error(&input[valid_up_to..]),
            Some((0, error_len))
        );
        if error_len == ErrorLen::Incomplete {
            // A completable prefix runs to the end of the input.
            let rest = &input[valid_up_to..];
            prop_assert!(rest.len() < 4);
        }
    }

    #[test]
    fn chunked_equals_one_shot(
        input in utf8ish_bytes(),
        sizes in prop::collection::vec(0usize..=64, 0..=7),
    ) {
        let plan = CycledSizes::new(&sizes).expect("sizes within the format");
        let chunks: Vec<&[u8]> = plan.chunks(&input).collect();
        let one_shot = Reference::rfc3629().outcome("reference", &input);
        let units = |errors: &Option<Vec<utf8conf::outcome::ErrorUnit>>| -> Vec<(usize, usize)> {
            errors.iter().flatten().map(|unit| (unit.offset, unit.len)).collect()
        };
        let mut streamers: Vec<Box<dyn StreamingDecoder>> = vec![Box::new(EncodingRsStream)];
        for backend in fast_backends::available_backends() {
            streamers.extend(FastStream::with_backend(backend).map(|s| Box::new(s) as Box<_>));
        }
        for streamer in &streamers {
            let mut chunked = Outcome::verdict("", true);
            streamer.decode_chunks(&chunks, &mut chunked);
            let name = streamer.name();
            prop_assert_eq!(chunked.valid, one_shot.valid, "{}", name);
            prop_assert_eq!(chunked.valid_up_to, one_shot.valid_up_to, "{}", name);
            if streamer.capabilities().error_len {
                prop_assert_eq!(chunked.error_len, one_shot.error_len, "{}", name);
            }
            prop_assert_eq!(&chunked.scalars, &one_shot.scalars, "{}", name);
            prop_assert_eq!(units(&chunked.errors), units(&one_shot.errors), "{}", name);
        }
    }

    #[test]
    fn every_fast_backend_equals_the_reference(
        padding in 0usize..=128,
        tail in utf8ish_bytes(),
    ) {
        // Padding moves the interesting bytes across 16/32/64-byte blocks.
        let mut input = vec![b'x'; padding];
        input.extend_from_slice(&tail);
        // Each backend by name (validate/lossy and resumed UTF-32), not only the dispatched.
        for decoder in fast_backends::backend_decoders() {
            let mut checker = PairChecker::new(decoder.as_ref());
            let signature = checker.signature(&input);
            prop_assert!(signature.is_none(), "{}: {:?}", decoder.name(), signature);
        }
    }

    #[test]
    fn in_process_decoders_equal_the_reference(input in utf8ish_bytes()) {
        // The engine's own comparison: every aspect the decoder reports.
        for decoder in utf8conf::decoders::builtin() {
            let mut checker = PairChecker::new(decoder.as_ref());
            let signature = checker.signature(&input);
            prop_assert!(signature.is_none(), "{}: {:?}", decoder.name(), signature);
        }
    }
}
