//! Every available backend of `utf8conf::fast` against Rust std, whose `from_utf8` error
//! positions and `String::from_utf8_lossy` are exactly the maximal-subpart semantics:
//! validation, UTF-32, lossy UTF-8, and UTF-16 (strict, and lossy compared with std's
//! lossy text re-encoded by `encode_utf16`).
//!
//! * all inputs of length 0..=3 (exhaustive; in `cargo test`, every input up to 2 bytes and
//!   the 3-byte inputs over Table 3-7's boundary bytes, the whole sweep being `#[ignore]`d
//!   and run by `.ci/run` in release mode);
//! * error vectors padded with 0..=128 ASCII or non-ASCII bytes before and after, so that
//!   errors fall on every position of the 16/32/64-byte blocks (in `cargo test`, on and
//!   next to each block edge only);
//! * random inputs (a fixed-seed generator): random bytes, and text with corruptions;
//! * long well-formed text in every script, at every alignment, across the conversion
//!   kernel's chunk boundaries.

use utf8conf::fast::{self, Backend};

/// What std says about `bytes`: `(valid_up_to, error_len)` of the first error.
fn std_error(bytes: &[u8]) -> Option<(usize, Option<usize>)> {
    std::str::from_utf8(bytes)
        .err()
        .map(|e| (e.valid_up_to(), e.error_len()))
}

/// Reusable buffers for [`Checker::check`].
#[derive(Default)]
struct Checker {
    scalars: Vec<u32>,
    expected_scalars: Vec<u32>,
    units: Vec<u16>,
    expected_units: Vec<u16>,
}

impl Checker {
    /// Asserts that `backend` agrees with std on `bytes` for validation, UTF-32 decoding
    /// and lossy decoding.
    fn check(&mut self, backend: Backend, bytes: &[u8]) {
        let expected = std_error(bytes);
        let validated = fast::validate_with(backend, bytes).expect("backend available");
        let got = validated.err().map(|e| (e.valid_up_to(), e.error_len()));
        assert_eq!(got, expected, "validate, {backend}, {bytes:02X?}");

        self.scalars.clear();
        self.scalars.push(0xDEAD_BEEF); // decode_utf32 must append, not overwrite
        let decoded = fast::decode_utf32_with(backend, bytes, &mut self.scalars).unwrap();
        let got = decoded.err().map(|e| (e.valid_up_to(), e.error_len()));
        assert_eq!(
            got, expected,
            "decode_utf32 result, {backend}, {bytes:02X?}"
        );
        let prefix = &bytes[..expected.map_or(bytes.len(), |e| e.0)];
        self.expected_scalars.clear();
        self.expected_scalars.push(0xDEAD_BEEF);
        let prefix_text = std::str::from_utf8(prefix).unwrap();
        self.expected_scalars
            .extend(prefix_text.chars().map(u32::from));
        assert!(
            self.scalars == self.expected_scalars,
            "decode_utf32 scalars, {backend}, {bytes:02X?}"
        );

        let lossy = fast::decode_lossy_with(backend, bytes).unwrap();
        let expected_lossy = String::from_utf8_lossy(bytes);
        assert_eq!(
            lossy, expected_lossy,
            "decode_lossy, {backend}, {bytes:02X?}"
        );
        assert_eq!(
            matches!(lossy, std::borrow::Cow::Borrowed(_)),
            expected.is_none(),
            "decode_lossy borrows exactly when well-formed, {backend}"
        );

        // Into a reused buffer: appended after what it holds, equal to the `Cow`.
        let mut text = String::from("prefix");
        fast::decode_lossy_into_with(backend, bytes, &mut text).unwrap();
        assert_eq!(
            &text["prefix".len()..],
            expected_lossy,
            "decode_lossy_into, {backend}, {bytes:02X?}"
        );

        // UTF-16, strict: std's error, and the code units of the well-formed prefix.
        self.units.clear();
        self.units.push(0xBEEF); // appended, not overwritten
        let decoded = fast::decode_utf16_with(backend, bytes, &mut self.units).unwrap();
        let got = decoded.err().map(|e| (e.valid_up_to(), e.error_len()));
        assert_eq!(
            got, expected,
            "decode_utf16 result, {backend}, {bytes:02X?}"
        );
        self.expected_units.clear();
        self.expected_units.push(0xBEEF);
        self.expected_units.extend(prefix_text.encode_utf16());
        assert!(
            self.units == self.expected_units,
            "decode_utf16 units, {backend}, {bytes:02X?}"
        );

        // UTF-16, lossy: std's lossy text re-encoded.
        self.units.clear();
        self.units.push(0xBEEF);
        fast::decode_utf16_lossy_with(backend, bytes, &mut self.units).unwrap();
        self.expected_units.clear();
        self.expected_units.push(0xBEEF);
        self.expected_units.extend(expected_lossy.encode_utf16());
        assert!(
            self.units == self.expected_units,
            "decode_utf16_lossy, {backend}, {bytes:02X?}"
        );
    }
}

/// A small fixed-seed generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn backends_are_listed_and_the_scalar_one_is_available() {
    let names: Vec<&str> = Backend::all().iter().map(|b| b.name()).collect();
    assert!(names.contains(&"scalar") && names.contains(&"avx2") && names.contains(&"neon"));
    assert!(Backend::Scalar.is_available());
    for &backend in Backend::all() {
        assert_eq!(
            fast::validate_with(backend, b"abc").is_some(),
            backend.is_available()
        );
    }
    #[cfg(target_arch = "x86_64")]
    assert!(
        Backend::Sse42.is_available(),
        "x86-64 CI machines have SSE4.2"
    );
    eprintln!(
        "available backends: {:?}; best: {}",
        Backend::available().map(|b| b.name()).collect::<Vec<_>>(),
        Backend::best()
    );
}

/// The bytes where the byte classes of Unicode Table 3-7 begin and end: every class of
/// lead, second and continuation byte is represented by both of its edges.
const BOUNDARY_BYTES: [u8; 24] = [
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
    0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
];

/// The quick form of [`exhaustive_inputs_up_to_three_bytes`], in every `cargo test`:
/// every input up to 2 bytes, and every 3-byte input over the boundary bytes.
#[test]
fn inputs_up_to_two_bytes_and_boundary_triples() {
    for backend in Backend::available() {
        let mut checker = Checker::default();
        checker.check(backend, b"");
        for a in 0..=255u8 {
            checker.check(backend, &[a]);
            for b in 0..=255u8 {
                checker.check(backend, &[a, b]);
            }
        }
        for a in BOUNDARY_BYTES {
            for b in BOUNDARY_BYTES {
                for c in BOUNDARY_BYTES {
                    checker.check(backend, &[a, b, c]);
                }
            }
        }
    }
}

#[test]
#[ignore = "long sweep (16.8M inputs per backend): .ci/run runs it in release mode with --include-ignored"]
fn exhaustive_inputs_up_to_three_bytes() {
    for backend in Backend::available() {
        let mut checker = Checker::default();
        checker.check(backend, b"");
        for a in 0..=255u8 {
            checker.check(backend, &[a]);
            for b in 0..=255u8 {
                checker.check(backend, &[a, b]);
                for c in 0..=255u8 {
                    checker.check(backend, &[a, b, c]);
                }
            }
        }
    }
}

/// Error cases: the worked examples of the design notes, every boundary of Table 3-7,
/// truncations, and the forms that are excluded (overlongs, surrogates, CESU-8, values
/// above U+10FFFF, 5/6-byte forms, invalid leads).
fn error_vectors() -> Vec<Vec<u8>> {
    let mut vectors: Vec<Vec<u8>> = vec![
        b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64".to_vec(),
        b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41".to_vec(),
        b"\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41".to_vec(),
        b"\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42".to_vec(),
        b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41".to_vec(),
        b"\xC0\x80".to_vec(),
        b"\xED\xA0\xBD\xED\xB2\xA9".to_vec(),
        b"\xF8\x88\x80\x80\x80".to_vec(),
        b"\xFC\x84\x80\x80\x80\x80".to_vec(),
        b"\xF4\x90\x80\x80".to_vec(),
        b"\xF7\xBF\xBF\xBF".to_vec(),
    ];
    // Every lead class with every second byte class, complete and truncated.
    let leads = [
        0xC0u8, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5,
        0xFF,
    ];
    let seconds = [0x00u8, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF];
    for &lead in &leads {
        vectors.push(vec![lead]);
        for &second in &seconds {
            vectors.push(vec![lead, second]);
            vectors.push(vec![lead, second, 0x80]);
            vectors.push(vec![lead, second, 0x80, 0x80]);
            vectors.push(vec![lead, second, 0x80, 0x41]);
        }
    }
    // Stray tails of every length.
    for n in 1..=5 {
        vectors.push(vec![0x80; n]);
    }
    vectors
}

/// The quick form of [`error_vectors_padded_across_block_boundaries`], in every `cargo
/// test`: the vectors start on and next to each 16/32/64-byte block edge, not at every
/// offset.
#[test]
fn error_vectors_padded_to_block_edges() {
    let befores = [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128];
    padded_error_vectors(&befores);
}

#[test]
#[ignore = "long sweep (every offset 0..=128): .ci/run runs it in release mode with --include-ignored"]
fn error_vectors_padded_across_block_boundaries() {
    let befores: Vec<usize> = (0..=128).collect();
    padded_error_vectors(&befores);
}

/// Every error vector after `before` bytes of each padding and before a few more.
fn padded_error_vectors(befores: &[usize]) {
    let paddings: [&[u8]; 4] = [
        b"a",
        "\u{e9}".as_bytes(),
        "\u{4e2d}".as_bytes(),
        "\u{1F600}".as_bytes(),
    ];
    let vectors = error_vectors();
    let mut bytes = Vec::new();
    for backend in Backend::available() {
        let mut checker = Checker::default();
        for vector in &vectors {
            for padding in paddings {
                for &before in befores {
                    for after in [0, 1, 2, 3, 17, 64] {
                        bytes.clear();
                        while bytes.len() + padding.len() <= before {
                            bytes.extend_from_slice(padding);
                        }
                        // Fill the rest with ASCII so the vector starts at exactly
                        // `before`.
                        bytes.resize(before, b'x');
                        bytes.extend_from_slice(vector);
                        for _ in 0..after {
                            bytes.extend_from_slice(padding);
                        }
                        checker.check(backend, &bytes);
                    }
                }
            }
        }
    }
}

/// Text in several scripts, for well-formed inputs and corruption.
const SAMPLES: [&str; 6] = [
    "The quick brown fox jumps over the lazy dog. ",
    "Съешь же ещё этих мягких французских булок, да выпей чаю. ",
    "我能吞下玻璃而不伤身体。私はガラスを食べられます。",
    "🦀🎉👍🏽🇫🇷💡🚀",
    "Ελληνικά, עברית, العربية, हिन्दी, ไทย, 한국어 — mixed ✓ ",
    "\u{FEFF}\u{FFFF}\u{10FFFF}\u{FDD0}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFD}\u{10000}",
];

fn random_text(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(len + 64);
    while bytes.len() < len {
        let sample = SAMPLES[rng.below(SAMPLES.len())];
        let chars: Vec<char> = sample.chars().collect();
        let start = rng.below(chars.len());
        let take = 1 + rng.below(chars.len() - start);
        for c in &chars[start..start + take] {
            let mut buf = [0; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    bytes
}

#[test]
fn random_inputs() {
    let mut rng = Rng(0x05EE_D0F0_FA57);
    let mut checker = Checker::default();
    for round in 0..3000 {
        let len = rng.below(if round % 10 == 0 { 3000 } else { 200 });
        let mut bytes = match round % 4 {
            // Random bytes.
            0 => (0..len).map(|_| rng.next() as u8).collect(),
            // Random bytes from the classes of Table 3-7's boundaries: many leads with
            // tails, so many longer maximal subparts.
            3 => {
                const CLASSES: [u8; 16] = [
                    0x41, 0x80, 0x8F, 0x9F, 0xA0, 0xBF, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0,
                    0xF1, 0xF4, 0xF5,
                ];
                (0..len)
                    .map(|_| CLASSES[rng.below(CLASSES.len())])
                    .collect()
            }
            // Well-formed text.
            1 => random_text(&mut rng, len),
            // Text with a few corrupted bytes.
            _ => {
                let mut bytes = random_text(&mut rng, len);
                for _ in 0..=rng.below(3) {
                    if !bytes.is_empty() {
                        let at = rng.below(bytes.len());
                        bytes[at] = rng.next() as u8;
                    }
                }
                bytes
            }
        };
        if round % 7 == 0 && !bytes.is_empty() {
            // Cut at a random point (often mid-character).
            let cut = rng.below(bytes.len());
            bytes.truncate(cut);
        }
        for backend in Backend::available() {
            checker.check(backend, &bytes);
        }
    }
}

#[test]
fn long_text_at_every_alignment() {
    let mut rng = Rng(42);
    let mut checker = Checker::default();
    // Longer than the conversion chunk, so chunk cuts fall inside characters.
    let text = random_text(&mut rng, 40_000);
    for sample in SAMPLES {
        let repeated = sample.repeat(20_000 / sample.len() + 1);
        for backend in Backend::available() {
            for offset in 0..16 {
                checker.check(backend, &repeated.as_bytes()[offset..]);
                checker.check(backend, &text[offset..]);
            }
        }
    }
    // An error after a long valid prefix, at several offsets.
    for backend in Backend::available() {
        for at in [0, 1, 63, 64, 65, 8191, 8192, 8193, 20_000, 39_999] {
            let mut corrupted = text.clone();
            corrupted[at] = 0xFF;
            checker.check(backend, &corrupted);
            corrupted[at] = 0xC3; // a lead, most likely followed by a non-tail
            checker.check(backend, &corrupted);
        }
    }
}

#[test]
fn long_runs_of_three_byte_characters() {
    // 3-byte characters from both ends of their range (U+0800, U+FFFF) and between.
    let chars = [
        '\u{800}', '中', '語', 'あ', '\u{FFFF}', '\u{D7FF}', '\u{E000}', '。',
    ];
    // Long enough for the conversion to split into two halves.
    let run: String = (0..1200)
        .map(|i| chars[(i * 7 + i / 3) % chars.len()])
        .collect();
    let mut checker = Checker::default();
    for backend in Backend::available() {
        // Every alignment of the run relative to the 64-byte blocks.
        for padding in 0..=64 {
            for suffix in ["", "a", "é", "😀", "\u{800}"] {
                let mut bytes = "a".repeat(padding).into_bytes();
                bytes.extend_from_slice(run.as_bytes());
                bytes.extend_from_slice(suffix.as_bytes());
                checker.check(backend, &bytes);
                // The run broken by one character of another length, and by errors: a
                // surrogate (a well-formed 3-byte shape), a missing tail, an end cut
                // inside the last character.
                let at = padding + 3 * (padding * 5 % 1200);
                for other in [&b"x"[..], "é".as_bytes(), "😀".as_bytes()] {
                    let mut broken = bytes.clone();
                    broken.splice(at..at, other.iter().copied());
                    checker.check(backend, &broken);
                }
                let mut surrogate = bytes.clone();
                surrogate.splice(at..at + 3, [0xED, 0xA0, 0x80]);
                checker.check(backend, &surrogate);
                let mut missing_tail = bytes.clone();
                missing_tail.remove(at + 2);
                checker.check(backend, &missing_tail);
                checker.check(backend, &bytes[..padding + run.len() - 1]);
            }
        }
    }
}

#[test]
fn public_functions_use_an_available_backend() {
    let text = "h\u{e9}llo \u{4e16}\u{754c}\u{1F600}";
    let bytes = text.as_bytes();
    assert!(fast::validate(bytes).is_ok());
    let mut scalars = Vec::new();
    fast::decode_utf32(bytes, &mut scalars).unwrap();
    assert_eq!(scalars, text.chars().map(u32::from).collect::<Vec<_>>());
    let invalid = b"ok\xE4\xBD";
    let error = fast::validate(invalid).unwrap_err();
    assert_eq!((error.valid_up_to(), error.error_len()), (2, None));
    assert_eq!(fast::decode_lossy(invalid), "ok\u{FFFD}");
    let mut text = String::new();
    fast::decode_lossy_into(invalid, &mut text);
    assert_eq!(text, "ok\u{FFFD}");
}
