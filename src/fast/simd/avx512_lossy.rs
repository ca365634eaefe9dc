//! The dense-error loop of lossy decoding (`super::lossy_dense`) with an AVX-512 VBMI2
//! expansion: a 16-byte chunk's copies and U+FFFDs placed by one `vpcompressb` where
//! the 16-byte kernel does four shuffles, four table loads and four stores.
//!
//! The Unicode Standard, §3.9, U+FFFD Substitution of Maximal Subparts: each maximal
//! subpart of an ill-formed subsequence is replaced by a single U+FFFD; in the dense
//! loop's simple chunks every such subpart is a single byte (see `super::lossy_dense`).

use core::arch::x86_64::*;

use super::Kernel16;

/// The 16-byte kernel of the SSE backend, with [`Kernel16::expand16`] done with
/// AVX-512 VBMI/VBMI2 and BMI2 (`vpermb`, `vpcompressb`, `pdep`).
pub(crate) struct Vbmi2Kernel;

/// Bit `3 * i` for `i < 16`: where byte `i` of a chunk starts in the tripled chunk.
const STARTS: u64 = 0x2492_4924_9249;

/// `vpermb` indices that repeat byte `i` of a chunk at bytes `3 * i`, `3 * i + 1` and
/// `3 * i + 2` (the last 16 bytes unused).
static TRIPLE: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut j = 0;
    while j < 48 {
        table[j] = (j / 3) as u8;
        j += 1;
    }
    table
};

/// Indexed by a byte's low 6 bits: 0x80 for the leads C0..FF after which every tail
/// is a valid second byte (Table 3-7: E1..EC, EE, EF, F1..F3).
static OPEN_LEADS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut byte = 0xE1;
    while byte <= 0xF3 {
        if byte != 0xED && byte != 0xF0 {
            table[byte - 0xC0] = 0x80;
        }
        byte += 1;
    }
    table
};

/// The UTF-8 encoding of U+FFFD (EF BF BD) repeated, in phase with [`TRIPLE`].
static REPLACEMENTS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut j = 0;
    while j < 48 {
        table[j] = [0xEF, 0xBF, 0xBD][j % 3];
        j += 1;
    }
    table
};

// SAFETY (every method below): the caller has checked the AVX-512 backend's
// `is_available()` and `has_vbmi2()` (the trait's contract for the instruction set), so
// SSE4.1, AVX512F/BW/VBMI/VBMI2 and BMI2 exist; pointer arguments are valid for the
// bytes each method's documentation states.
impl Kernel16 for Vbmi2Kernel {
    type V = __m128i;

    super::sse42::forward_to_sse41!(
        load16,
        high_bit_mask,
        tail_mask,
        widen16,
        widen16_to_u16,
        shuffle,
        assemble_store,
        range_mask,
        expand_store
    );

    const EXPANDS_DROPS: bool = true;
    /// One `vpermb` of a 64-entry table indexed by the byte's low 6 bits (C0..FF
    /// exactly; the caller's E0..F4 mask discards the other bytes' entries).
    #[inline(always)]
    unsafe fn open_leads(v: __m128i, leads_3_4: u32) -> u32 {
        unsafe {
            let table = _mm512_loadu_si512(OPEN_LEADS.as_ptr() as *const __m512i);
            let class = _mm512_permutexvar_epi8(_mm512_castsi128_si512(v), table);
            (_mm512_movepi8_mask(class) as u32) & leads_3_4
        }
    }

    #[inline(always)]
    unsafe fn expand16(v: __m128i, copy: u32, dst: *mut u8) -> usize {
        unsafe { Self::expand16_dropping(v, copy, 0, dst) }
    }
    /// The chunk tripled (`vpermb`: byte `i` at `3 * i..3 * i + 3`), U+FFFD blended over
    /// the triples of replaced bytes, and the bytes kept (a copied byte's first, all
    /// three of a replaced one's, none of a dropped one's) packed to the front by one
    /// `vpcompressb`: a single 64-byte store, no table load, and the length from bit
    /// counts.
    #[inline(always)]
    unsafe fn expand16_dropping(v: __m128i, copy: u32, drop: u32, dst: *mut u8) -> usize {
        unsafe {
            let replaced = !(copy | drop) & 0xFFFF;
            let replaced_starts = _pdep_u64(replaced as u64, STARTS);
            let fill = replaced_starts | (replaced_starts << 1) | (replaced_starts << 2);
            let keep = (STARTS & !_pdep_u64(drop as u64, STARTS)) | fill;
            let triple = _mm512_loadu_si512(TRIPLE.as_ptr() as *const __m512i);
            let replacements = _mm512_loadu_si512(REPLACEMENTS.as_ptr() as *const __m512i);
            let tripled = _mm512_permutexvar_epi8(triple, _mm512_castsi128_si512(v));
            let merged = _mm512_mask_mov_epi8(tripled, fill, replacements);
            let packed = _mm512_maskz_compress_epi8(keep, merged);
            _mm512_storeu_si512(dst as *mut __m512i, packed);
            16 - drop.count_ones() as usize + 2 * replaced.count_ones() as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sse42::Sse41Kernel;
    use super::*;

    /// A chunk of 16 distinct bytes, where the CPU has AVX-512 with VBMI2 (else `None`:
    /// the kernel cannot run here).
    fn distinct_chunk_if_vbmi2() -> Option<[u8; 16]> {
        (super::super::avx512::is_available() && super::super::avx512::has_vbmi2())
            .then(|| core::array::from_fn(|i| 0x30 + i as u8))
    }

    /// The VBMI2 expansion against the four-group one of the SSE kernel, for every
    /// pattern of copy bits, on a chunk of distinct bytes.
    #[test]
    fn expand16_equals_the_four_groups_for_every_pattern() {
        let Some(chunk) = distinct_chunk_if_vbmi2() else {
            return;
        };
        for copy in 0..=0xFFFF_u32 {
            let mut ours = [0u8; 64];
            let mut theirs = [0u8; 64];
            // SAFETY: AVX-512 and VBMI2 are available (checked above), SSE4.1 with them;
            // the chunk is 16 readable bytes and each output 64 writable ones.
            let (ours_len, theirs_len) =
                unsafe { expand_both(&chunk, copy, &mut ours, &mut theirs) };
            assert_eq!(ours_len, theirs_len, "copy {copy:#06x}");
            assert_eq!(ours[..ours_len], theirs[..theirs_len], "copy {copy:#06x}");
        }
    }

    /// The expansion with drop bits against its definition (copied bytes as themselves,
    /// replaced ones as EF BF BD, dropped ones left out), for every pattern of copy bits
    /// with a pseudo-random pattern of drop bits among the others.
    #[test]
    fn expand16_dropping_leaves_out_the_dropped_bytes() {
        let Some(chunk) = distinct_chunk_if_vbmi2() else {
            return;
        };
        for copy in 0..=0xFFFF_u32 {
            let drop = !copy & (copy.wrapping_mul(0x9E37_79B9) >> 13) & 0xFFFF;
            let mut expected = Vec::new();
            for (i, &byte) in chunk.iter().enumerate() {
                if copy >> i & 1 == 1 {
                    expected.push(byte);
                } else if drop >> i & 1 == 0 {
                    expected.extend_from_slice(&[0xEF, 0xBF, 0xBD]);
                }
            }
            let mut ours = [0u8; 64];
            // SAFETY: AVX-512 and VBMI2 are available (checked above); the chunk is 16
            // readable bytes and the output 64 writable ones.
            let len = unsafe { expand_dropping(&chunk, copy, drop, &mut ours) };
            assert_eq!(
                ours[..len],
                expected[..],
                "copy {copy:#06x} drop {drop:#06x}"
            );
        }
    }

    /// The VBMI2 expansion of `chunk` with `copy` and `drop`.
    ///
    /// # Safety
    /// AVX-512 F/BW/VBMI/VBMI2 and BMI2 must be available.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
    unsafe fn expand_dropping(chunk: &[u8; 16], copy: u32, drop: u32, out: &mut [u8; 64]) -> usize {
        // SAFETY: the instruction sets are available (this function's contract); the
        // chunk has 16 bytes and the output 64.
        unsafe {
            let v = Vbmi2Kernel::load16(chunk.as_ptr());
            Vbmi2Kernel::expand16_dropping(v, copy, drop, out.as_mut_ptr())
        }
    }

    /// Both expansions of `chunk` with `copy`.
    ///
    /// # Safety
    /// AVX-512 F/BW/VBMI/VBMI2 and BMI2 must be available.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi2")]
    unsafe fn expand_both(
        chunk: &[u8; 16],
        copy: u32,
        ours: &mut [u8; 64],
        theirs: &mut [u8; 64],
    ) -> (usize, usize) {
        // SAFETY: the instruction sets are available (this function's contract); the
        // chunk has 16 bytes and each output 64.
        unsafe {
            let v = Vbmi2Kernel::load16(chunk.as_ptr());
            (
                Vbmi2Kernel::expand16(v, copy, ours.as_mut_ptr()),
                Sse41Kernel::expand16(v, copy, theirs.as_mut_ptr()),
            )
        }
    }
}
