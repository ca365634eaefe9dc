//! The benchmark inputs and names shared by `benches/fast.rs` (criterion) and
//! `benches/ratios.rs` (interleaved same-run ratios): generated from fixed word lists
//! with a fixed-seed generator, so every run measures the same bytes.

#![allow(dead_code)] // each benchmark uses its own subset

/// Fixed-seed xorshift64* generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const ASCII_WORDS: &str = "the of and to in is was for that with as on by at from his \
    it an were are which this be or has had not but first one their its new after who \
    they have her she two been other when there all during into school time may years";
const CYRILLIC_WORDS: &str = "и в не на что с по это как он к но из у за от так о же \
    все она был было для его мы вы быть только году время человек который когда \
    может после очень были этого также года свои между России";
const CJK_WORDS: &str = "我们 的 是 在 一个 中国 这个 他们 没有 可以 时候 因为 \
    自己 什么 已经 经济 发展 社会 国家 問題 東京 日本語 文字 情報 世界 今日 \
    ありがとう ございます 漢字 。 、 「 」 ，";
/// French prose's most common words: mostly ASCII, an accented letter every few words
/// (Latin-script text, where one block holds long ASCII runs and a few 2-byte letters).
const LATIN_WORDS: &str = "de la le et les des en un du une que est pour qui dans par \
    plus pas au sur se ne il a été à où très déjà après être même leur elle entre \
    année sont aussi deux ville fait comme ont premier première général français";
const EMOJI_WORDS: &str = "😀 😂 🥰 😎 🤔 🙈 🎉 🔥 💯 👍 👍🏽 🚀 🌍 🍕 🐱 🦀 ❤️ ✨ 🇫🇷 🇯🇵";
pub const MIXED_WORDS: &str = "hello Grüße naïve café Ελληνικά עברית العربية हिन्दी ไทย \
    한국어 日本語 中文 русский Ümlaut œuvre ½ € → ✓ 😀 🦀 the of and";

/// Pseudo-random words from `words`, separated by spaces (a newline now and then), up
/// to `len` bytes; cut at a character boundary.
pub fn text(words: &str, len: usize, seed: u64) -> Vec<u8> {
    joined_words(words, len, seed, |rng| {
        Some(if rng.below(12) == 0 { '\n' } else { ' ' })
    })
}

/// Pseudo-random words from `words` run together without spaces, as Chinese and
/// Japanese prose is written (a newline now and then), up to `len` bytes; cut at a
/// character boundary. From the CJK list, all characters but the newlines are 3 bytes.
pub fn prose(words: &str, len: usize, seed: u64) -> Vec<u8> {
    joined_words(words, len, seed, |rng| (rng.below(48) == 0).then_some('\n'))
}

/// Pseudo-random words from `words`, each followed by what `separator` draws (nothing
/// for `None`), until `len` bytes; cut back to a character boundary.
fn joined_words(
    words: &str,
    len: usize,
    seed: u64,
    mut separator: impl FnMut(&mut Rng) -> Option<char>,
) -> Vec<u8> {
    let words: Vec<&str> = words.split_whitespace().collect();
    let mut rng = Rng(seed);
    let mut out = String::with_capacity(len + 64);
    while out.len() < len {
        out.push_str(words[rng.below(words.len())]);
        if let Some(c) = separator(&mut rng) {
            out.push(c);
        }
    }
    let mut cut = len;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    out.into_bytes()
}

/// An input at offset 96 of its own allocation (see the module documentation).
pub struct Input {
    pub name: &'static str,
    storage: Vec<u8>,
}

impl Input {
    const OFFSET: usize = 96;

    pub fn new(name: &'static str, bytes: Vec<u8>) -> Self {
        let mut storage = vec![0u8; Self::OFFSET];
        storage.extend_from_slice(&bytes);
        Input { name, storage }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.storage[Self::OFFSET..]
    }
}

pub fn inputs(len: usize) -> Vec<Input> {
    let mut rng = Rng(7);
    vec![
        Input::new("ascii", text(ASCII_WORDS, len, 1)),
        Input::new("2-byte", text(CYRILLIC_WORDS, len, 2)),
        Input::new("latin", text(LATIN_WORDS, len, 9)),
        Input::new("cjk", text(CJK_WORDS, len, 3)),
        Input::new("cjk-prose", prose(CJK_WORDS, len, 8)),
        Input::new("emoji", text(EMOJI_WORDS, len, 4)),
        Input::new("mixed", text(MIXED_WORDS, len, 5)),
        Input::new("random", (0..len).map(|_| rng.next() as u8).collect()),
        Input::new("mixed-1%-errors", {
            // Mixed text with about one byte in a hundred replaced by a random one.
            let mut bytes = text(MIXED_WORDS, len, 6);
            for _ in 0..len / 100 {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next() as u8;
            }
            bytes
        }),
    ]
}

/// The engine name of a simdutf function: `simdutf` with simdutf's own choice of
/// kernel, `simdutf@haswell` (for example) when `SIMDUTF_FORCE_IMPLEMENTATION` forces one
/// (simdutf reads that variable on first use).
pub fn simdutf_name(base: &str) -> String {
    match std::env::var("SIMDUTF_FORCE_IMPLEMENTATION") {
        Ok(forced) if !forced.is_empty() => format!("{base}@{forced}"),
        _ => base.to_string(),
    }
}

pub const SIZES: [(usize, &str); 2] = [(64 * 1024, "64KiB"), (1024 * 1024, "1MiB")];
