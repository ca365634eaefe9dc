//! Lossy decoding's error path inside the SIMD block loop, on every available backend,
//! against `String::from_utf8_lossy` (one U+FFFD per maximal subpart, as the reference
//! decoder): errors at every offset of a 64-byte block, after long clean runs (so the
//! block loop, not the scalar tail, meets them), several in one block, clusters of error
//! units, errors split across block boundaries, runs of close errors (the hand-over to
//! the dense loop and back), and `decode_lossy_into` appending to a reused buffer; the
//! same inputs through lossy UTF-16 decoding, whose step resolves errors the same way.

use utf8conf::fast::{self, Backend};

/// Ill-formed pieces: each is one or more maximal subparts.
const ERRORS: &[&[u8]] = &[
    b"\x80",
    b"\xBF\xBF",
    b"\xC0\xAF",
    b"\xC2",
    b"\xE2\x82",
    b"\xE0\x80\xAF",
    b"\xED\xA0\x80",
    b"\xF0\x9F\x98",
    b"\xF4\x90\x80\x80",
    b"\xF5",
    b"\xFF\xFE",
    b"\xE1\x80\xC2",
];

/// Well-formed fillers: ASCII, and text whose characters straddle block edges.
const FILLERS: &[&str] = &["abcdefgh", "жзий", "日本語", "a😀é中"];

/// Asserts that every available backend's `decode_lossy`, `decode_lossy_into` (into a
/// buffer already holding text) and `decode_utf16_lossy` (into a buffer already holding
/// a unit) equal std's lossy text on `bytes`.
fn check(bytes: &[u8], text: &mut String) {
    let expected = String::from_utf8_lossy(bytes);
    let mut units = Vec::new();
    for backend in Backend::available() {
        let got = fast::decode_lossy_with(backend, bytes).unwrap();
        assert!(got == expected, "decode_lossy, {backend}, {bytes:02X?}");
        text.clear();
        text.push('»');
        fast::decode_lossy_into_with(backend, bytes, text).unwrap();
        assert!(
            text.strip_prefix('»') == Some(&expected[..]),
            "decode_lossy_into, {backend}, {bytes:02X?}"
        );
        units.clear();
        units.push(0xBEEF);
        fast::decode_utf16_lossy_with(backend, bytes, &mut units).unwrap();
        assert!(
            units[0] == 0xBEEF && units[1..].iter().copied().eq(expected.encode_utf16()),
            "decode_utf16_lossy, {backend}, {bytes:02X?}"
        );
    }
}

/// `filler` repeated to `len` bytes, or a little less (cut at a character boundary).
fn fill(filler: &str, len: usize, out: &mut Vec<u8>) {
    let repeated = filler.repeat(len / filler.len() + 1);
    let mut cut = len;
    while !repeated.is_char_boundary(cut) {
        cut -= 1;
    }
    out.extend_from_slice(&repeated.as_bytes()[..cut]);
}

/// Every error piece at every offset `lead..lead + span` after `lead` clean bytes, with
/// 150 clean bytes after (then a second error, so the run resumes and meets another).
fn errors_at_offsets(lead: usize, span: usize) {
    let mut text = String::new();
    let mut bytes = Vec::new();
    for filler in FILLERS {
        for error in ERRORS {
            for offset in lead..lead + span {
                bytes.clear();
                fill(filler, offset, &mut bytes);
                bytes.extend_from_slice(error);
                fill(filler, 150, &mut bytes);
                bytes.extend_from_slice(error);
                fill(filler, 70, &mut bytes);
                check(&bytes, &mut text);
            }
        }
    }
}

#[test]
fn an_error_at_every_offset_of_a_block() {
    errors_at_offsets(128, 64);
}

#[test]
#[ignore = "long sweep (every offset 0..=400): .ci/run runs it in release mode with --include-ignored"]
fn an_error_at_every_offset_up_to_400() {
    errors_at_offsets(0, 400);
}

/// Two error pieces `gap` bytes apart, at each offset around a block edge: several
/// errors in one block, and clusters when the gap is 0.
#[test]
fn pairs_of_errors_in_one_block_and_across_blocks() {
    let mut text = String::new();
    let mut bytes = Vec::new();
    for first in ERRORS {
        for second in ERRORS {
            for gap in [0, 1, 3, 9, 40] {
                for offset in 186..196 {
                    bytes.clear();
                    fill("жa日", offset, &mut bytes);
                    bytes.extend_from_slice(first);
                    fill("xy", gap, &mut bytes);
                    bytes.extend_from_slice(second);
                    fill("жa日", 100, &mut bytes);
                    check(&bytes, &mut text);
                }
            }
        }
    }
}

/// The error path finds each error unit by walking from the last lead or ASCII byte
/// among the 3 before the first flagged byte: every error piece straight after each
/// length of character (so those 3 bytes are the tails of a whole character, or part
/// of it), and after a lead whose character the piece cuts short, at every offset of a
/// block after 128 clean bytes.
#[test]
fn errors_straight_after_each_length_of_character() {
    const BEFORE: &[&[u8]] = &[
        b"a",
        "é".as_bytes(),
        "日".as_bytes(),
        "😀".as_bytes(),
        b"\xF0\x9F",
        b"\xE6",
    ];
    let mut text = String::new();
    let mut bytes = Vec::new();
    for before in BEFORE {
        for error in ERRORS {
            for offset in 128..192 {
                bytes.clear();
                fill("a😀é中", offset, &mut bytes);
                bytes.extend_from_slice(before);
                bytes.extend_from_slice(error);
                bytes.extend_from_slice("😀".as_bytes());
                bytes.extend_from_slice(error);
                fill("中a", 80, &mut bytes);
                check(&bytes, &mut text);
            }
        }
    }
}

/// A fixed-seed generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Text with a share of its bytes replaced by random ones, from 0.1% to all: long clean
/// runs, errors every few bytes (the dense loop and back), and everything between.
fn corrupted_texts(rounds: usize) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut text = String::new();
    let mut clean = Vec::new();
    fill("The quick жёлтый 日本語 fox 😀 ü ", 3000, &mut clean);
    for round in 0..rounds {
        for per_mille in [1, 10, 50, 100, 300, 1000] {
            let mut bytes = clean.clone();
            let len = 64 + (rng.next() % 3000) as usize;
            bytes.truncate(len.min(bytes.len()));
            for byte in bytes.iter_mut() {
                if rng.next() % 1000 < per_mille {
                    *byte = rng.next() as u8;
                }
            }
            let start = round % 7;
            check(&bytes[start..], &mut text);
        }
    }
}

#[test]
fn corrupted_text_at_every_density() {
    corrupted_texts(40);
}

#[test]
#[ignore = "long sweep (4000 corrupted texts per density): .ci/run runs it in release mode with --include-ignored"]
fn corrupted_text_at_every_density_long() {
    corrupted_texts(4000);
}

/// Input ending inside a character, right after long clean runs of each length around
/// the block size: the last block cut inside a character, and an incomplete one at the
/// end of input.
#[test]
fn characters_cut_by_the_end_after_clean_blocks() {
    let mut text = String::new();
    let mut bytes = Vec::new();
    for len in 60..200 {
        for end in [&b""[..], b"\xE6", b"\xE6\x97", b"\xF0\x9F\x98", b"\xC3"] {
            bytes.clear();
            fill("日a", len, &mut bytes);
            bytes.extend_from_slice(end);
            check(&bytes, &mut text);
        }
    }
}

/// A buffer reused from call to call keeps its capacity, and its earlier contents.
#[test]
fn decode_lossy_into_reuses_the_buffer() {
    let mut bytes = Vec::new();
    fill("жa日", 5000, &mut bytes);
    for i in (0..bytes.len()).step_by(97) {
        bytes[i] = 0xFF;
    }
    let expected = String::from_utf8_lossy(&bytes).into_owned();
    for backend in Backend::available() {
        let mut text = String::new();
        fast::decode_lossy_into_with(backend, &bytes, &mut text).unwrap();
        let capacity = text.capacity();
        for _ in 0..3 {
            text.clear();
            fast::decode_lossy_into_with(backend, &bytes, &mut text).unwrap();
            assert!(text == expected, "{backend}");
            assert_eq!(text.capacity(), capacity, "{backend} reallocated");
        }
        fast::decode_lossy_into_with(backend, b"tail \xFF", &mut text).unwrap();
        assert!(text.starts_with(&expected) && text.ends_with("tail \u{FFFD}"));
    }
}
