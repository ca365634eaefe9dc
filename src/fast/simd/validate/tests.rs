//! Each backend's validation against the scalar DFA.

use super::*;
#[cfg(target_arch = "aarch64")]
use crate::fast::simd::neon;
#[cfg(target_arch = "x86_64")]
use crate::fast::simd::{avx2, avx512, sse42};

/// The SIMD detector must accept well-formed text outright (a false positive would
/// still give the right answer, through the DFA, but slowly) and flag errors.
fn check_detector(first_bad_block: unsafe fn(&[u8]) -> Option<usize>) {
    let text = "aé中😀 Ελληνικά 我能吞下玻璃 🦀\u{10FFFF}\u{FEFF}".repeat(40);
    for shift in 0..8 {
        let shifted = format!("{}{text}", "x".repeat(shift));
        // SAFETY: callers only pass the detector of an available backend.
        assert_eq!(unsafe { first_bad_block(shifted.as_bytes()) }, None);
    }
    for at in [0, 15, 16, 31, 32, 63, 64, 100, 1000] {
        let mut bytes = text.as_bytes().to_vec();
        bytes.insert(at, 0xFF);
        // SAFETY: as above.
        let block = unsafe { first_bad_block(&bytes) }.expect("error detected");
        // The DFA restarts at or before the error (an error in the last bytes before
        // a block may be detected in that block), and not too far before it.
        let restart = dfa::boundary_before(&bytes, block);
        assert!(restart <= at && at < block + 2 * BLOCK, "{at}: {block}");
    }
    let cut = "ab中".as_bytes();
    // SAFETY: as above.
    assert_eq!(unsafe { first_bad_block(&cut[..cut.len() - 1]) }, Some(0));
}

#[test]
fn detectors_have_no_false_positives_or_negatives() {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128i, __m256i, __m512i};
        if sse42::is_available() {
            check_detector(first_bad_block::<__m128i>);
        }
        if avx2::is_available() {
            check_detector(first_bad_block::<__m256i>);
        }
        if avx512::is_available() {
            check_detector(first_bad_block::<__m512i>);
        }
    }
    #[cfg(target_arch = "aarch64")]
    if neon::is_available() {
        check_detector(first_bad_block::<core::arch::aarch64::uint8x16_t>);
    }
}
