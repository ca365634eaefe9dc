//! A small stable hash: FNV-1a, 64-bit.
//!
//! Report ids and per-input chunk plans must be the same on every machine, every run and
//! every Rust version, so they cannot use std's `DefaultHasher` (randomly keyed per process
//! and free to change between releases). FNV-1a is tiny, fully specified and good enough to
//! name a few thousand signatures:
//!
//! > hash = offset_basis; for each octet: hash = hash XOR octet; hash = hash * FNV_prime
//! > (Fowler, Noll, Vo; draft-eastlake-fnv, "FNV-1a"; 64-bit offset basis
//! > 14695981039346656037, prime 1099511628211)

/// The 64-bit FNV offset basis.
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// The 64-bit FNV prime, 2^40 + 2^8 + 0xB3.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash = FNV_OFFSET_BASIS;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// FNV-1a 64 of `bytes` as 16 lower-case hex digits (the form used for report ids).
pub fn fnv1a64_hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_fnv1a64_test_values() {
        // Test values from the FNV reference test suite (draft-eastlake-fnv, FNV-1a 64).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a64_hex(b"a"), "af63dc4c8601ec8c");
    }
}
