//! What the AVX-512 VBMI2 kernel of `avx512_utf32` writes: the [`Sink`] trait, its
//! UTF-32 form ([`Scalars`]; the UTF-16 one is in `avx512_utf16`), and the widening of
//! all-ASCII blocks for either.

use core::arch::x86_64::*;

/// What the kernel writes: scalar values ([`Scalars`], UTF-32) or UTF-16 code units
/// (`avx512_utf16`). The two passes of a stretch are the same; only the widening of
/// ASCII blocks and the store of each group of 16 scalars differ.
pub(super) trait Sink {
    /// The output element: `u32` or `u16`.
    type Unit: Copy;
    /// Widens the 64 ASCII bytes at `src` to 64 units at `dst`.
    ///
    /// # Safety
    /// AVX512F/BW available; `src` valid for reads of 64 bytes, `dst` for writes of 64
    /// units.
    unsafe fn widen64(src: *const u8, dst: *mut Self::Unit);
    /// Stores the encoding of the first `lanes` (1 to 16) scalar values of `scalars` at
    /// `dst`; returns the units written, at most one per byte of the characters stored.
    /// `PAIRS`: whether a scalar may be above U+FFFF (a 4-byte character), and how
    /// often ([`NO_PAIRS`], [`FEW_PAIRS`], [`MANY_PAIRS`]).
    ///
    /// # Safety
    /// The instruction sets of the kernel (AVX512F/BW/VBMI/VBMI2, BMI2) available;
    /// `dst` valid for writes of that many units.
    unsafe fn store_group<const PAIRS: u8>(
        scalars: __m512i,
        lanes: usize,
        dst: *mut Self::Unit,
    ) -> usize;
    /// Converts a prefix of the well-formed `src[from..n]` (`from` a character
    /// boundary) by a routine of the sink's own that needs no character positions, if
    /// it has one (that of code units converts all of it). Writes the units at `dst`
    /// (those of `src[from..]`), and returns the character boundary where it stopped
    /// (`from` if it converted nothing, `n` if all) and how many units it wrote.
    ///
    /// # Safety
    /// The instruction sets of the kernel available; `src` valid for reads of `n`
    /// bytes, `src[from..n]` well-formed; `dst` valid for writes of `n - from` units.
    #[inline(always)]
    unsafe fn convert_short_prefix(
        src: *const u8,
        from: usize,
        n: usize,
        dst: *mut Self::Unit,
    ) -> (usize, usize) {
        let _ = (src, n, dst);
        (from, 0)
    }
}

/// A stretch without 4-byte characters: no scalar value above U+FFFF.
pub(super) const NO_PAIRS: u8 = 0;
/// A stretch with 4-byte characters, few enough that most groups of 16 characters have
/// none: a branch per group on whether it has one is taken rarely and predicted well.
pub(super) const FEW_PAIRS: u8 = 1;
/// A stretch with 4-byte characters in many groups: no branch per group on them.
pub(super) const MANY_PAIRS: u8 = 2;

/// [`Sink`] of scalar values (UTF-32): one lane per character.
pub(super) struct Scalars;

impl Sink for Scalars {
    type Unit = u32;

    #[inline(always)]
    unsafe fn widen64(src: *const u8, dst: *mut u32) {
        // SAFETY: the caller's contract (64 bytes read, 64 scalars written).
        unsafe {
            for i in 0..4 {
                let widened =
                    _mm512_cvtepu8_epi32(_mm_loadu_si128(src.add(16 * i) as *const __m128i));
                _mm512_storeu_si512(dst.add(16 * i) as *mut __m512i, widened);
            }
        }
    }

    #[inline(always)]
    unsafe fn store_group<const PAIRS: u8>(scalars: __m512i, lanes: usize, dst: *mut u32) -> usize {
        // SAFETY: the caller's contract: `lanes` scalars writable at `dst`.
        unsafe {
            if lanes == 16 {
                _mm512_storeu_si512(dst as *mut __m512i, scalars);
            } else {
                let store = (u32::MAX >> (32 - lanes)) as __mmask16;
                _mm512_mask_storeu_epi32(dst as *mut i32, store, scalars);
            }
        }
        lanes
    }
}

/// [`ConvertValid::convert_ascii`] for either sink: the all-ASCII prefix of `bytes`, in
/// whole 64-byte blocks (the first may be shortened to align the output), widened.
///
/// # Safety
/// AVX512F/BW must be available.
#[inline(always)]
pub(super) unsafe fn convert_ascii<S: Sink>(bytes: &[u8], out: &mut Vec<S::Unit>) -> usize {
    // At most one unit per byte.
    out.reserve(bytes.len());
    let base = out.len();
    // SAFETY: AVX512F/BW are available (caller's contract); `bytes` is readable and
    // `out` has room for `bytes.len()` more units.
    unsafe {
        let converted = widen_ascii::<S>(bytes.as_ptr(), bytes.len(), out.as_mut_ptr().add(base));
        out.set_len(base + converted);
        converted
    }
}

/// Widens a prefix of the `n` bytes at `src` that is all ASCII to `dst` (`vpmovzxbd` or
/// `vpmovzxbw`): whole 64-byte blocks, after a head of fewer than 64 bytes that brings
/// the output to a 64-byte boundary (so that each 64-byte store writes one cache line);
/// returns how many bytes that is.
///
/// # Safety
/// AVX512F/BW must be available; `src` valid for reads of `n` bytes, `dst` (aligned for
/// its unit) for writes of `n` units.
#[inline(always)]
pub(super) unsafe fn widen_ascii<S: Sink>(src: *const u8, n: usize, dst: *mut S::Unit) -> usize {
    if n < 64 {
        return 0;
    }
    // SAFETY: loads read `ascii..ascii + 64 <= n` bytes, stores write the same range
    // of units (caller's contract); the first block's store writes units `0..64`.
    unsafe {
        let first = _mm512_loadu_si512(src as *const __m512i);
        if _mm512_movepi8_mask(first) != 0 {
            return 0;
        }
        S::widen64(src, dst);
        // Units to the next 64-byte boundary of the output (all in the first block).
        let head = (64 - (dst as usize) % 64) % 64 / core::mem::size_of::<S::Unit>();
        let mut ascii = if head == 0 { 64 } else { head };
        while ascii + 64 <= n {
            let block = _mm512_loadu_si512(src.add(ascii) as *const __m512i);
            if _mm512_movepi8_mask(block) != 0 {
                break;
            }
            S::widen64(src.add(ascii), dst.add(ascii));
            ascii += 64;
        }
        ascii
    }
}

/// Texts for the kernel's own tests (`avx512_utf32`, `avx512_utf16`): runs of
/// characters of one to four bytes, so that groups end at every lane and stretches of
/// every longest length occur, and each text's cuts in its first 4 bytes.
#[cfg(test)]
pub(super) mod test_texts {
    /// One character per UTF-8 length (RFC 3629 section 3) and the extremes, by length.
    const SAMPLES: [char; 8] = [
        'a',
        '\u{7F}',
        'é',
        '\u{7FF}',
        '中',
        '\u{FFFF}',
        '😀',
        '\u{10FFFF}',
    ];

    /// 400 texts, of every length up to 300 bytes: runs of 1 to 24 copies of characters
    /// drawn (a fixed-seed generator from `seed`) from the first `kinds(round)` samples.
    pub(in crate::fast::simd) fn runs(seed: u64, kinds: impl Fn(usize) -> usize) -> Vec<String> {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..400)
            .map(|round| {
                let samples = &SAMPLES[..kinds(round)];
                let mut text = String::new();
                while text.len() < round % 300 {
                    let sample = samples[(next() % samples.len() as u64) as usize];
                    for _ in 0..1 + next() % 24 {
                        text.push(sample);
                    }
                }
                text
            })
            .collect()
    }

    /// The suffixes of `text` from each of its first 4 bytes, moved back to a character
    /// boundary.
    pub(in crate::fast::simd) fn cuts(text: &str) -> impl Iterator<Item = &str> {
        (0..text.len().min(4)).map(move |cut| {
            let mut start = cut;
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            &text[start..]
        })
    }
}
