//! Every available backend of `utf8conf::fast`, and its streaming decoder, against the
//! reference decoder (RFC 3629 §4's ABNF, interpreted): the same first error in std's
//! shape, the same lossy scalars, the same error units.

use utf8conf::fast::stream::{Collected, StreamDecoder};
use utf8conf::fast::utf16_stream::Utf16StreamDecoder;
use utf8conf::fast::{self, Backend};
use utf8conf::outcome::ErrorLen;
use utf8conf::reference::Reference;

/// Asserts agreement on `bytes` for `backend`.
fn check(backend: Backend, bytes: &[u8]) {
    let reference = Reference::rfc3629().decode(bytes);
    let expected = reference.first_error().map(|(offset, len)| {
        let len = match len {
            ErrorLen::Invalid(n) => Some(n),
            ErrorLen::Incomplete => None,
        };
        (offset, len)
    });

    let got = fast::validate_with(backend, bytes)
        .unwrap()
        .err()
        .map(|e| (e.valid_up_to(), e.error_len()));
    assert_eq!(got, expected, "validate, {backend}, {bytes:02X?}");

    let lossy: Vec<u32> = fast::decode_lossy_with(backend, bytes)
        .unwrap()
        .chars()
        .map(u32::from)
        .collect();
    assert_eq!(
        lossy, reference.scalars,
        "decode_lossy, {backend}, {bytes:02X?}"
    );

    // Into a caller's buffer, appended after what it holds.
    let mut text = String::from("x");
    fast::decode_lossy_into_with(backend, bytes, &mut text).unwrap();
    let lossy_into: Vec<u32> = text[1..].chars().map(u32::from).collect();
    assert_eq!(
        lossy_into, reference.scalars,
        "decode_lossy_into, {backend}, {bytes:02X?}"
    );

    let mut scalars = Vec::new();
    let result = fast::decode_utf32_with(backend, bytes, &mut scalars).unwrap();
    assert_eq!(result.is_ok(), reference.is_valid());
    // On error, the scalars of the well-formed prefix: the reference's decoding of it.
    let expected_scalars = match expected {
        None => reference.scalars.clone(),
        Some((offset, _)) => Reference::rfc3629().decode(&bytes[..offset]).scalars,
    };
    assert_eq!(
        scalars, expected_scalars,
        "decode_utf32, {backend}, {bytes:02X?}"
    );

    // UTF-16: the reference's scalars re-encoded (lossy), and those of the well-formed
    // prefix (strict).
    let encode = |scalars: &[u32]| -> Vec<u16> {
        let text: String = scalars
            .iter()
            .map(|&c| char::from_u32(c).unwrap())
            .collect();
        text.encode_utf16().collect()
    };
    let mut units = Vec::new();
    fast::decode_utf16_lossy_with(backend, bytes, &mut units).unwrap();
    assert_eq!(
        units,
        encode(&reference.scalars),
        "decode_utf16_lossy, {backend}, {bytes:02X?}"
    );
    units.clear();
    let result = fast::decode_utf16_with(backend, bytes, &mut units).unwrap();
    assert_eq!(
        result.err().map(|e| (e.valid_up_to(), e.error_len())),
        expected,
        "decode_utf16, {backend}, {bytes:02X?}"
    );
    assert_eq!(
        units,
        encode(&expected_scalars),
        "decode_utf16 units, {backend}, {bytes:02X?}"
    );

    // The UTF-16 streaming decoder, fed 3 bytes at a time.
    let mut utf16_stream = Utf16StreamDecoder::with_backend(backend).unwrap();
    units.clear();
    for chunk in bytes.chunks(3) {
        utf16_stream.feed_lossy(chunk, &mut units);
    }
    utf16_stream.finish_lossy(&mut units);
    assert_eq!(
        units,
        encode(&reference.scalars),
        "utf16 stream, {backend}, {bytes:02X?}"
    );

    let mut decoder = StreamDecoder::with_backend(backend).unwrap();
    let mut sink = Collected::default();
    for chunk in bytes.chunks(3) {
        decoder.feed(chunk, &mut sink);
    }
    decoder.finish(&mut sink);
    let units: Vec<(usize, usize, bool)> = sink
        .errors
        .iter()
        .map(|u| (u.offset as usize, u.len, u.at_end))
        .collect();
    let expected_units: Vec<(usize, usize, bool)> = reference
        .errors
        .iter()
        .map(|e| (e.offset, e.len, e.incomplete))
        .collect();
    assert_eq!(
        units, expected_units,
        "stream units, {backend}, {bytes:02X?}"
    );
}

#[test]
fn all_inputs_up_to_two_bytes() {
    for backend in Backend::available() {
        check(backend, b"");
        for a in 0..=255u8 {
            check(backend, &[a]);
            for b in 0..=255u8 {
                check(backend, &[a, b]);
            }
        }
    }
}

#[test]
fn design_examples_padded_across_blocks() {
    let vectors: [&[u8]; 6] = [
        b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
        b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41",
        b"\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41",
        b"\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42",
        b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41",
        b"\xF0\x9F\x98",
    ];
    for backend in Backend::available() {
        for vector in vectors {
            for before in 0..=128 {
                let mut bytes = "\u{4e2d}".repeat(before / 3).into_bytes();
                bytes.resize(before, b'x');
                bytes.extend_from_slice(vector);
                check(backend, &bytes);
            }
        }
    }
}

#[test]
fn random_inputs() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const CLASSES: [u8; 12] = [
        0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC2, 0xE0, 0xE1, 0xED, 0xF0, 0xF4, 0xFF,
    ];
    for round in 0..300 {
        let len = (next() % 300) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                let r = next();
                if round % 2 == 0 {
                    r as u8
                } else {
                    CLASSES[(r % CLASSES.len() as u64) as usize]
                }
            })
            .collect();
        for backend in Backend::available() {
            check(backend, &bytes);
        }
    }
}
