//! The register trait of the UTF-8 encoder ([`EncodeKernel`]: eight 16-bit lanes in a
//! 16-byte register) and the compression tables it is driven by, built at compile time.
//!
//! RFC 3629 §3, the bit distribution the encoder computes in every lane at once:
//!
//! ```text
//! Char. number range  |        UTF-8 octet sequence
//!    (hexadecimal)    |              (binary)
//! --------------------+---------------------------------------------
//! 0000 0000-0000 007F | 0xxxxxxx
//! 0000 0080-0000 07FF | 110xxxxx 10xxxxxx
//! 0000 0800-0000 FFFF | 1110xxxx 10xxxxxx 10xxxxxx
//! 0001 0000-0010 FFFF | 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
//! ```
//!
//! A lane's octets are computed in place, then a byte shuffle picked by the lanes'
//! lengths packs them together: [`TWO_BYTE`] for eight lanes of one or two octets
//! (one 16-bit lane each), [`THREE_BYTE`] for four lanes of one to three octets (one
//! 32-bit lane each).

/// Eight 16-bit lanes in a 16-byte register, with what the encoder needs of them.
/// Implementations must be `#[inline(always)]`; every method's `# Safety` is the same:
/// the implementing backend's instruction set must be available, and pointer arguments
/// valid for the bytes stated.
pub trait EncodeKernel {
    /// The 16-byte register type.
    type V: Copy;
    /// Loads 8 code units from `src` (no alignment needed).
    ///
    /// # Safety
    /// See the trait: `src` valid for reads of 8 `u16`.
    unsafe fn load8(src: *const u16) -> Self::V;
    /// Loads 8 values from `src` narrowed to 16-bit lanes, if all are below 0x10000;
    /// `None` otherwise.
    ///
    /// # Safety
    /// See the trait: `src` valid for reads of 8 `u32`.
    unsafe fn load8_narrow(src: *const u32) -> Option<Self::V>;
    /// Every lane set to `value`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn splat(value: u16) -> Self::V;
    /// Bitwise and.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn and(a: Self::V, b: Self::V) -> Self::V;
    /// Bitwise or.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn or(a: Self::V, b: Self::V) -> Self::V;
    /// Each lane shifted right by `N` (logical).
    ///
    /// # Safety
    /// See the trait.
    unsafe fn shr<const N: i32>(v: Self::V) -> Self::V;
    /// Each lane shifted left by `N`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn shl<const N: i32>(v: Self::V) -> Self::V;
    /// All ones in each lane below `bound` (unsigned; `bound >= 1`), zeros elsewhere.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn below(v: Self::V, bound: u16) -> Self::V;
    /// All ones in each lane where `a` equals `b`, zeros elsewhere.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn equal(a: Self::V, b: Self::V) -> Self::V;
    /// Lane `i` of `a` where lane `i` of `mask` is all ones, else of `b`.
    ///
    /// # Safety
    /// See the trait: `mask` has lanes of all ones or all zeros.
    unsafe fn select(mask: Self::V, a: Self::V, b: Self::V) -> Self::V;
    /// Bit `i` set iff lane `i` of `mask` (all ones or all zeros) is set; 8 bits.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn bits(mask: Self::V) -> u32;
    /// The lanes of `a` and `b` interleaved (`a0 b0 a1 b1 ...`): lanes 0..3 of each in
    /// the first register, 4..7 in the second.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn interleave(a: Self::V, b: Self::V) -> (Self::V, Self::V);
    /// Stores the 16 bytes `v[shuffle[i]]` (0 where `shuffle[i]` has its high bit set).
    ///
    /// # Safety
    /// See the trait: `dst` valid for writes of 16 bytes.
    unsafe fn shuffle_store(v: Self::V, shuffle: &[u8; 16], dst: *mut u8);
    /// Stores the low byte of each lane (all lanes below 0x100): 8 bytes.
    ///
    /// # Safety
    /// See the trait: `dst` valid for writes of 8 bytes.
    unsafe fn narrow_store(v: Self::V, dst: *mut u8);
    /// Stores the 16 code units at `src`, all below 0x80, as 16 bytes.
    ///
    /// # Safety
    /// See the trait: `src` valid for reads of 16 `u16`, `dst` for writes of 16 bytes.
    unsafe fn narrow16_store(src: *const u16, dst: *mut u8);
    /// Stores the 16 values at `src`, all below 0x80, as 16 bytes.
    ///
    /// # Safety
    /// See the trait: `src` valid for reads of 16 `u32`, `dst` for writes of 16 bytes.
    unsafe fn narrow16_store_u32(src: *const u32, dst: *mut u8);
}

/// Bytes not taken from the register by a shuffle (zero; written past the output's end
/// and overwritten by the next store).
const UNUSED: u8 = 0x80;

/// A shuffle and the number of bytes of it that are output.
#[derive(Clone, Copy)]
pub struct Pack {
    /// The byte shuffle, 0x80 (a zero byte) after the output bytes.
    pub shuffle: [u8; 16],
    /// The number of output bytes.
    pub len: u8,
}

/// Per mask `m` of the lanes that are not ASCII: the bytes of eight 16-bit lanes
/// `lead | tail << 8`, the lead of each lane, and the tail of each lane in `m`.
pub static TWO_BYTE: [Pack; 256] = two_byte_table();

/// Per index `ascii | three << 4` (`ascii`: the lanes of four that are not ASCII;
/// `three`: those of three octets): the bytes of four 32-bit lanes `b0 | b1 << 8 |
/// b2 << 16`, the first one, two or three of each.
pub static THREE_BYTE: [Pack; 256] = three_byte_table();

const fn two_byte_table() -> [Pack; 256] {
    let mut table = [Pack {
        shuffle: [UNUSED; 16],
        len: 0,
    }; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut len = 0;
        let mut lane = 0;
        while lane < 8 {
            table[mask].shuffle[len] = 2 * lane as u8;
            len += 1;
            if mask >> lane & 1 == 1 {
                table[mask].shuffle[len] = 2 * lane as u8 + 1;
                len += 1;
            }
            lane += 1;
        }
        table[mask].len = len as u8;
        mask += 1;
    }
    table
}

const fn three_byte_table() -> [Pack; 256] {
    let mut table = [Pack {
        shuffle: [UNUSED; 16],
        len: 0,
    }; 256];
    let mut index = 0;
    while index < 256 {
        let mut len = 0;
        let mut lane = 0;
        while lane < 4 {
            // Octets: 1, plus 1 if not ASCII, plus 1 if three. (Indexes with a lane
            // "three" but ASCII never occur.)
            let octets = 1 + (index >> lane & 1) + (index >> (lane + 4) & 1);
            let mut octet = 0;
            while octet < octets {
                table[index].shuffle[len] = (4 * lane + octet) as u8;
                len += 1;
                octet += 1;
            }
            lane += 1;
        }
        table[index].len = len as u8;
        index += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_keep_every_lane_in_order() {
        // All ASCII: the eight leads; all two-byte: every byte.
        assert_eq!(TWO_BYTE[0].len, 8);
        assert_eq!(TWO_BYTE[0].shuffle[..8], [0, 2, 4, 6, 8, 10, 12, 14]);
        assert_eq!(TWO_BYTE[255].len, 16);
        assert_eq!(TWO_BYTE[0b10].shuffle[..4], [0, 2, 3, 4]);
        // ASCII, 2, 3, 3 octets.
        let pack = THREE_BYTE[0b1110 | 0b1100 << 4];
        assert_eq!(pack.len, 9);
        assert_eq!(pack.shuffle[..9], [0, 4, 5, 8, 9, 10, 12, 13, 14]);
        assert_eq!(pack.shuffle[9], UNUSED);
    }
}
