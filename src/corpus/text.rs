//! The `text` generator: valid multilingual UTF-8 of mixed sizes.
//!
//! Every decoder must accept well-formed text and return its scalars unchanged, and most
//! real input *is* text, so valid text is both a corpus of its own (finding `valid-rejected`,
//! `valid-misdecoded`, `noncharacter-rejected` and `bom-stripped` departures) and the
//! carrier the `faults` generator injects errors into. The samples below are written for
//! this crate and cover every row of Unicode Table 3-7: one-byte ASCII (with controls),
//! two-byte Latin-1 Supplement, Greek, Cyrillic, Hebrew and Arabic, three-byte Devanagari,
//! CJK and Hangul, four-byte emoji and other astral characters, the noncharacters
//! (well-formed, though some decoders wrongly reject them), the byte order mark U+FEFF at
//! the start and in the middle, and the first and last scalar of each Table 3-7 row.
//!
//! Input `i` of a run is built from its own random stream (see [`crate::rng`]): a target
//! length is drawn (skewed toward short inputs, up to 4 KiB), then whole samples, windows
//! of samples and single characters are concatenated and cut back, at a character boundary,
//! to at most that length. The output is always well-formed (tested against the reference).

use std::sync::OnceLock;

use super::generator::Generator;
use crate::rng::Rng;

/// The generator's name in [`super::Origin::Generator`].
pub const NAME: &str = "text";

/// One sample text: what it exercises and the text itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// What the sample covers, e.g. `"cyrillic"`.
    pub label: &'static str,
    /// The text (valid UTF-8 by construction: it is a Rust string).
    pub text: &'static str,
}

/// The embedded samples, one per script or edge case.
pub const SAMPLES: &[Sample] = &[
    Sample {
        label: "ascii",
        text: "Plain ASCII: bytes 0-9, punctuation ~!@#$%^&*()_+{}|:\"<>?[]\\;',./`, a\ttab,\r\nline ends\nand controls \u{0}\u{1}\u{1F}\u{7F}.",
    },
    Sample {
        label: "latin-1",
        text: "Déjà vu: naïve façade, Smørrebrød, Straße, ¿qué pasó? ¡Olé! £12 ¥7 © ® ° ± µ ¶ · ½ ¾ ÿ, and a combining e\u{301}.",
    },
    Sample {
        label: "greek",
        text: "Ο ήλιος λάμπει πάνω από τη θάλασσα· ΑΒΓΔ αβγδ ώ ΐ.",
    },
    Sample {
        label: "cyrillic",
        text: "Пример текста: ёжик, щука, эхо, юла, ягода. ЁЖЩЭЮЯ ґ є ї ў.",
    },
    Sample {
        label: "hebrew",
        text: "שלום, זהו טקסט לדוגמה בעברית.",
    },
    Sample {
        label: "arabic",
        text: "مرحبا، هذا نص عربي للتجربة ١٢٣.",
    },
    Sample {
        label: "devanagari",
        text: "नमस्ते, यह हिन्दी का एक उदाहरण है। क्षत्रिय ज्ञान",
    },
    Sample {
        label: "cjk",
        text: "你好，这是一个例子。日本語のテキスト、カタカナとひらがな。漢字「龍」",
    },
    Sample {
        label: "hangul",
        text: "안녕하세요, 이것은 한글 예문입니다. 똠방각하 힣",
    },
    Sample {
        label: "astral",
        text: "😀 🎉 🚀 👍🏽 👩\u{200D}💻 🇫🇷 𝄞 𝕏 𐍈 🀄 𠜎",
    },
    Sample {
        label: "noncharacters",
        text: "\u{FDD0}\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{10FFFE}\u{10FFFF}",
    },
    Sample {
        label: "bom",
        text: "\u{FEFF}A BOM starts this sample\u{FEFF}and one sits inside it.",
    },
    Sample {
        // The first and last scalar of each row of Unicode Table 3-7.
        label: "table-3-7-edges",
        text: "\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{FFF}\u{1000}\u{CFFF}\u{D000}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{3FFFF}\u{40000}\u{FFFFF}\u{100000}\u{10FFFF}",
    },
];

/// The character boundaries of each sample (offsets of each character's first byte, and
/// the sample's length), computed once.
fn sample_boundaries() -> &'static [Vec<usize>] {
    static BOUNDARIES: OnceLock<Vec<Vec<usize>>> = OnceLock::new();
    BOUNDARIES.get_or_init(|| {
        SAMPLES
            .iter()
            .map(|sample| {
                let text = sample.text;
                text.char_indices()
                    .map(|(offset, _)| offset)
                    .chain([text.len()])
                    .collect()
            })
            .collect()
    })
}

/// Random valid text of at most `max_len` bytes (shorter by at most 3 bytes, the width of
/// a character that did not fit), drawn from [`SAMPLES`].
pub fn random_text(rng: &mut Rng, max_len: usize) -> String {
    let mut text = String::with_capacity(max_len + 64);
    let all_boundaries = sample_boundaries();
    while text.len() < max_len {
        let which = rng.index(SAMPLES.len());
        let sample = SAMPLES[which].text;
        let boundaries = &all_boundaries[which];
        let characters = boundaries.len() - 1;
        match rng.below(8) {
            // A whole sample.
            0 => text.push_str(sample),
            // A single character, the densest way to mix scripts.
            1 | 2 => {
                let start = rng.index(characters);
                text.push_str(&sample[boundaries[start]..boundaries[start + 1]]);
            }
            // A separator.
            3 => text.push(*rng.pick(&[' ', '\n', ',', '\u{3000}'])),
            // A window of 1..=16 characters.
            _ => {
                let start = rng.index(characters);
                let end = (start + 1 + rng.index(16)).min(characters);
                text.push_str(&sample[boundaries[start]..boundaries[end]]);
            }
        }
    }
    let mut cut = max_len;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text
}

/// The `text` generator: an unbounded sequence of valid texts of 0..=4096 bytes, skewed
/// toward short ones; one in eight starts with a byte order mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextGenerator {
    seed: u64,
}

impl TextGenerator {
    /// Size buckets `(weight, min, max)`: a quarter up to 8 bytes, half up to 64, most of
    /// the rest up to 512, one in ten up to 4 KiB.
    pub const SIZES: [(u64, usize, usize); 4] =
        [(2, 0, 8), (4, 9, 64), (3, 65, 512), (1, 513, 4096)];

    /// The generator for a run seeded with `seed`.
    pub fn new(seed: u64) -> TextGenerator {
        TextGenerator { seed }
    }
}

impl Generator for TextGenerator {
    fn name(&self) -> &'static str {
        NAME
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn len_hint(&self) -> Option<u64> {
        None
    }

    fn bytes_at(&self, index: u64) -> Option<Vec<u8>> {
        let mut rng = Rng::for_input(self.seed, NAME, index);
        let max_len = rng.skewed_len(&Self::SIZES);
        let mut text = String::new();
        if rng.chance(1, 8) {
            text.push('\u{FEFF}');
        }
        text.push_str(&random_text(&mut rng, max_len.saturating_sub(text.len())));
        Some(text.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Reference;

    #[test]
    fn samples_cover_every_utf8_length() {
        let mut widths = [false; 5];
        for sample in SAMPLES {
            for c in sample.text.chars() {
                widths[c.len_utf8()] = true;
            }
        }
        assert_eq!(widths, [false, true, true, true, true]);
        let all: String = SAMPLES.iter().map(|s| s.text).collect();
        for required in ['\u{FEFF}', '\u{FFFE}', '\u{10FFFF}', '\u{FDD0}', '😀'] {
            assert!(all.contains(required), "{required:?}");
        }
    }

    #[test]
    fn random_text_respects_the_length_bound() {
        let mut rng = Rng::new(11);
        for max_len in [0, 1, 2, 3, 4, 5, 17, 100, 1000] {
            for _ in 0..50 {
                let text = random_text(&mut rng, max_len);
                assert!(text.len() <= max_len);
                assert!(text.len() + 3 >= max_len, "{} for {max_len}", text.len());
            }
        }
    }

    #[test]
    fn generated_text_is_well_formed_for_the_reference() {
        let generator = TextGenerator::new(5);
        let reference = Reference::rfc3629();
        let mut sizes = Vec::new();
        let mut with_bom = 0;
        for index in 0..300 {
            let bytes = generator.bytes_at(index).unwrap();
            assert!(std::str::from_utf8(&bytes).is_ok());
            assert_eq!(reference.first_error(&bytes), None, "input {index}");
            with_bom += usize::from(bytes.starts_with("\u{FEFF}".as_bytes()));
            sizes.push(bytes.len());
        }
        assert!(sizes.iter().any(|&n| n <= 8));
        assert!(sizes.iter().any(|&n| n > 512));
        assert!(with_bom > 10, "{with_bom}");
    }

    #[test]
    fn same_seed_same_text() {
        let a = TextGenerator::new(9);
        let b = TextGenerator::new(9);
        let c = TextGenerator::new(10);
        let first: Vec<_> = (0..20).map(|i| a.bytes_at(i)).collect();
        assert_eq!(first, (0..20).map(|i| b.bytes_at(i)).collect::<Vec<_>>());
        assert_ne!(first, (0..20).map(|i| c.bytes_at(i)).collect::<Vec<_>>());
    }
}
