//! The UTF-16 conversion's own edges, on every available backend, against std
//! (`str::encode_utf16`, and `String::from_utf8_lossy` re-encoded for lossy decoding):
//!
//! * surrogate pairs (4-byte characters) at every offset of a 64-byte block and of a
//!   group of 16 characters, and across the boundaries where the kernels cut their
//!   input: 4 KiB stretches (AVX-512), 8 KiB pieces (16-byte kernels) and validation
//!   chunks, and 2 KiB (the pieces' former size, kept as one more cut);
//! * an error at every offset of a block, in text with and without 4-byte characters,
//!   and errors every `k` bytes for lossy decoding;
//! * maximal subparts at every offset around the 8 KiB chunk cut of lossy decoding;
//!
//! each checked as a whole and cut at every offset of its first 64 bytes.
//! `fast_backends` covers the rest (short inputs, error vectors, random inputs).

use utf8conf::fast::{self, Backend};

/// Asserts that `backend` converts `bytes` to UTF-16 as std does, strict (error and
/// prefix) and lossy.
fn check(backend: Backend, bytes: &[u8]) {
    let mut units = vec![0xBEEF];
    let result = fast::decode_utf16_with(backend, bytes, &mut units).expect("available");
    let expected = std::str::from_utf8(bytes);
    let got = result.err().map(|e| (e.valid_up_to(), e.error_len()));
    let want = expected
        .as_ref()
        .err()
        .map(|e| (e.valid_up_to(), e.error_len()));
    assert_eq!(got, want, "decode_utf16 result, {backend}, {bytes:02X?}");
    let prefix = &bytes[..want.map_or(bytes.len(), |(at, _)| at)];
    let prefix = std::str::from_utf8(prefix).unwrap();
    assert!(
        units[1..].iter().copied().eq(prefix.encode_utf16()) && units[0] == 0xBEEF,
        "decode_utf16 units, {backend}, {bytes:02X?}"
    );

    units.truncate(1);
    fast::decode_utf16_lossy_with(backend, bytes, &mut units).expect("available");
    let lossy = String::from_utf8_lossy(bytes);
    assert!(
        units[1..].iter().copied().eq(lossy.encode_utf16()) && units[0] == 0xBEEF,
        "decode_utf16_lossy, {backend}, {bytes:02X?}"
    );
}

/// [`check`] of `bytes` and of its suffixes from each of the first `cuts` offsets.
fn check_cuts(bytes: &[u8], cuts: usize) {
    for backend in Backend::available() {
        for cut in 0..cuts.min(bytes.len() + 1) {
            check(backend, &bytes[cut..]);
        }
    }
}

/// `len` bytes or a little more of `unit` repeated.
fn repeat(unit: &str, len: usize) -> String {
    unit.repeat(len.div_ceil(unit.len()))
}

#[test]
fn surrogate_pairs_at_every_offset_of_a_block() {
    // After `lead` bytes of ASCII, 2-byte or 3-byte text, an emoji then more text: the
    // pair falls on every offset of the first two blocks and in every lane of a group.
    for background in ["a", "é", "中"] {
        for lead in 0..=130 {
            let mut text = repeat(background, lead);
            text.push('😀');
            text.push_str(&repeat(background, 70));
            text.push('\u{10FFFF}');
            text.push_str("tail");
            check_cuts(text.as_bytes(), 1);
        }
    }
}

#[test]
fn surrogate_pairs_across_piece_stretch_and_chunk_boundaries() {
    // 4 KiB stretches, 8 KiB pieces and chunks (and 2 KiB, the pieces' former size): an
    // emoji ending on each side of each boundary, after ASCII, 2-byte and 3-byte text.
    for background in ["a", "é", "中"] {
        for boundary in [2048, 4096, 8192] {
            for shift in 0..12 {
                let mut text = repeat(background, boundary - 8);
                while text.len() > boundary - 8 {
                    text.pop();
                }
                text.push_str(&"x".repeat(shift));
                text.push_str("😀😀");
                text.push_str(&repeat(background, 100));
                check_cuts(text.as_bytes(), 4);
            }
        }
    }
}

#[test]
fn an_error_at_every_offset_of_a_block() {
    // A stray tail, a truncated emoji and a surrogate's encoding at each offset of the
    // first 130 bytes of text without and with 4-byte characters.
    let errors: [&[u8]; 3] = [b"\x80", b"\xF0\x9F\x98", b"\xED\xA0\x80"];
    for background in ["é", "中a", "😀é"] {
        let text = repeat(background, 200);
        for at in 0..=130 {
            for error in errors {
                let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap();
                let mut bytes = text.as_bytes()[..at].to_vec();
                bytes.extend_from_slice(error);
                bytes.extend_from_slice(&text.as_bytes()[at..]);
                check_cuts(&bytes, 1);
            }
        }
    }
}

#[test]
fn lossy_with_an_error_every_k_bytes() {
    let text = repeat("mixed é 中文 😀 text, ", 10_000);
    for k in [1, 2, 3, 5, 8, 13, 40, 100, 333] {
        let mut bytes = text.as_bytes().to_vec();
        for i in (k - 1..bytes.len()).step_by(k) {
            bytes[i] = [0xFF, 0x80, 0xC3, 0xF0][i % 4];
        }
        check_cuts(&bytes, 3);
    }
}

/// The long form of [`an_error_at_every_offset_of_a_block`]: every offset around the
/// 4 KiB stretch and 8 KiB chunk boundaries.
#[test]
#[ignore = "long sweep: .ci/run runs it in release mode with --include-ignored"]
fn an_error_at_every_offset_around_stretch_and_chunk_boundaries() {
    let errors: [&[u8]; 2] = [b"\x80", b"\xF0\x9F\x98"];
    for background in ["é", "中a", "😀é"] {
        let text = repeat(background, 8400);
        for at in (4000..4200).chain(8100..8300) {
            for error in errors {
                let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap();
                let mut bytes = text.as_bytes()[..at].to_vec();
                bytes.extend_from_slice(error);
                bytes.extend_from_slice(&text.as_bytes()[at..]);
                check_cuts(&bytes, 1);
            }
        }
    }
}

/// Lossy decoding checks and converts its input in 8 KiB chunks, each cut before a byte
/// that is not a tail where it can: subparts that a cut in the wrong place would split
/// (a lead and its tails, a truncated lead, runs of 4 to 9 stray tails, a lead before
/// stray tails) placed at every offset around the first cut, after 1- and 2-byte text.
#[test]
fn lossy_subparts_across_the_chunk_cut() {
    let pieces: [&[u8]; 7] = [
        b"\xE1\x80\x80",
        b"\xF0\x90\x80\x80",
        b"\xF0\x90\x80",
        b"\x80\x80\x80\x80",
        b"\x80\x80\x80\x80\x80\x80\x80\x80\x80",
        b"\xE1\x80\x80\x80\x80\x80",
        b"\xF4\x90\x80\x80\x80",
    ];
    for background in ["a", "é"] {
        let text = repeat(background, 8300);
        for at in 8180..8200 {
            for piece in pieces {
                let mut bytes = text.as_bytes()[..at].to_vec();
                // A lone tail where `at` cuts a 2-byte character: one more subpart.
                bytes.extend_from_slice(piece);
                bytes.extend_from_slice(&text.as_bytes()[at..]);
                check_cuts(&bytes, 1);
            }
        }
    }
}

/// ASCII runs of every length to 200 bytes, alone and followed by a 2-byte character or
/// an error, appended after 0 to 31 units already in the output: the ASCII widening
/// starts its blocks where the output reaches a 64-byte boundary and widens a short
/// last stretch as the run's last 64 bytes, so every head and every tail is met.
#[test]
fn ascii_runs_after_every_output_offset() {
    for backend in Backend::available() {
        for len in 0..=200 {
            let run = "abcdefghijklmnopqrstuvwxyz0123456789"
                .bytes()
                .cycle()
                .take(len);
            for end in [&[][..], "é".as_bytes(), &[0xE2, 0x28], &[0xC3]] {
                let bytes: Vec<u8> = run.clone().chain(end.iter().copied()).collect();
                for filled in 0..32u16 {
                    let mut units: Vec<u16> = (0..filled).collect();
                    let result =
                        fast::decode_utf16_with(backend, &bytes, &mut units).expect("available");
                    let expected = std::str::from_utf8(&bytes);
                    let valid = expected
                        .as_ref()
                        .map_or_else(|e| e.valid_up_to(), |_| bytes.len());
                    assert_eq!(
                        result.map_err(|e| e.valid_up_to()),
                        expected.map(|_| ()).map_err(|e| e.valid_up_to()),
                        "{backend}, {len}, {filled}"
                    );
                    let text = std::str::from_utf8(&bytes[..valid]).unwrap();
                    let kept = filled as usize;
                    assert!(
                        units[..kept].iter().copied().eq(0..filled)
                            && units[kept..].iter().copied().eq(text.encode_utf16()),
                        "decode_utf16, {backend}, {len}, {filled}"
                    );
                    units.truncate(kept);
                    fast::decode_utf16_lossy_with(backend, &bytes, &mut units).expect("available");
                    let lossy = String::from_utf8_lossy(&bytes);
                    assert!(
                        units[kept..].iter().copied().eq(lossy.encode_utf16()),
                        "decode_utf16_lossy, {backend}, {len}, {filled}"
                    );
                }
            }
        }
    }
}
