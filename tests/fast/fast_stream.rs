//! The streaming decoder against one-shot decoding (and so against std): for every
//! chunking of small inputs the output is the same, and each error unit is reported as
//! soon as the bytes fed so far decide it.

use utf8conf::fast::stream::{Collected, ErrorUnit, StreamDecoder};
use utf8conf::fast::{self, Backend};

/// Error units of `bytes` decoded in one piece, derived from std alone: repeatedly take
/// `from_utf8`'s first error and skip its unit.
fn std_units(bytes: &[u8]) -> Vec<ErrorUnit> {
    let mut units = Vec::new();
    let mut pos = 0;
    while let Err(error) = std::str::from_utf8(&bytes[pos..]) {
        let offset = (pos + error.valid_up_to()) as u64;
        match error.error_len() {
            Some(len) => {
                units.push(ErrorUnit {
                    offset,
                    len,
                    at_end: false,
                });
                pos += error.valid_up_to() + len;
            }
            None => {
                let len = bytes.len() - pos - error.valid_up_to();
                units.push(ErrorUnit {
                    offset,
                    len,
                    at_end: true,
                });
                break;
            }
        }
    }
    units
}

/// Decodes `bytes` split at the positions set in `cut_mask` (bit i: cut before byte
/// i + 1).
fn decode_chunked(backend: Backend, bytes: &[u8], cut_mask: u64) -> Collected {
    let mut decoder = StreamDecoder::with_backend(backend).unwrap();
    let mut sink = Collected::default();
    let mut start = 0;
    for i in 1..bytes.len() {
        if cut_mask & (1 << (i - 1)) != 0 {
            decoder.feed(&bytes[start..i], &mut sink);
            start = i;
        }
    }
    decoder.feed(&bytes[start..], &mut sink);
    decoder.finish(&mut sink);
    sink
}

fn small_inputs() -> Vec<Vec<u8>> {
    let mut inputs: Vec<Vec<u8>> = vec![
        b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64".to_vec(),
        b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41".to_vec(),
        b"\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41".to_vec(),
        b"\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42".to_vec(),
        b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41".to_vec(),
        "a\u{e9}\u{4e2d}\u{1F600}z".as_bytes().to_vec(),
        b"\xF0\x9F\x98".to_vec(),
        b"ab\xE4\xBD".to_vec(),
        b"\xE0\x80".to_vec(),
    ];
    // Fixed-seed pseudo-random bytes drawn from the interesting classes.
    let classes = [
        0x41u8, 0x80, 0x8F, 0x9F, 0xBF, 0xC2, 0xE0, 0xE1, 0xED, 0xF0, 0xF4, 0xFF,
    ];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..200 {
        let len = 1 + (seed % 10) as usize;
        let mut input = Vec::with_capacity(len);
        for _ in 0..len {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            input.push(classes[(seed % classes.len() as u64) as usize]);
        }
        inputs.push(input);
    }
    inputs
}

#[test]
fn every_chunking_equals_one_shot() {
    for backend in Backend::available() {
        for input in small_inputs() {
            let expected_text = String::from_utf8_lossy(&input);
            let expected_units = std_units(&input);
            let chunkings = 1u64 << input.len().saturating_sub(1).min(13);
            for cut_mask in 0..chunkings {
                let got = decode_chunked(backend, &input, cut_mask);
                assert_eq!(
                    got.text, expected_text,
                    "{backend} {input:02X?} cuts {cut_mask:b}"
                );
                assert_eq!(
                    got.errors, expected_units,
                    "{backend} {input:02X?} cuts {cut_mask:b}"
                );
            }
        }
    }
}

#[test]
fn first_unit_matches_std_error() {
    for input in small_inputs() {
        let got = decode_chunked(Backend::best(), &input, 0);
        let expected = std::str::from_utf8(&input).err();
        match (got.errors.first(), expected) {
            (None, None) => {}
            (Some(unit), Some(error)) => {
                assert_eq!(unit.offset as usize, error.valid_up_to());
                assert_eq!((!unit.at_end).then_some(unit.len), error.error_len());
            }
            (unit, error) => panic!("{input:02X?}: {unit:?} vs {error:?}"),
        }
    }
}

#[test]
fn errors_are_reported_as_soon_as_decidable() {
    for input in small_inputs() {
        let mut decoder = StreamDecoder::new();
        let mut sink = Collected::default();
        for k in 1..=input.len() {
            decoder.feed(&input[k - 1..k], &mut sink);
            // After k bytes, exactly the units one-shot decoding of the prefix decides
            // (all but one cut off by the end of the prefix) must have been reported.
            let decided: Vec<ErrorUnit> = std_units(&input[..k])
                .into_iter()
                .filter(|u| !u.at_end)
                .collect();
            assert_eq!(sink.errors, decided, "{input:02X?} after {k} bytes");
        }
        decoder.finish(&mut sink);
        assert_eq!(sink.errors, std_units(&input));
    }
}

#[test]
fn long_chunks_and_reuse() {
    let text = "Съешь 我能吞下玻璃 🦀 mixed ✓ ".repeat(500);
    let mut bytes = text.as_bytes().to_vec();
    bytes[5000] = 0xFF;
    bytes.extend_from_slice(b"\xF0\x9F");
    let expected = fast::decode_lossy(&bytes).into_owned();
    let mut decoder = StreamDecoder::new();
    for chunk_len in [1, 7, 64, 4096, bytes.len()] {
        let mut sink = String::new();
        for chunk in bytes.chunks(chunk_len) {
            decoder.feed(chunk, &mut sink);
        }
        decoder.finish(&mut sink);
        assert_eq!(sink, expected, "chunks of {chunk_len}");
    }
}
