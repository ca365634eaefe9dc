//! The `structured` target's input: a small program, derived with [`arbitrary`], that builds
//! a byte string from well-formed multilingual text, well-formed edge cases and injected
//! faults from the taxonomy, with the first fault placed near a 16-, 32- or 64-byte
//! boundary.
//!
//! Raw bytes reach ill-formed UTF-8 easily but well-formed multi-byte text, and faults
//! buried deep inside it, only by luck. A program reaches them by construction, so the
//! fuzzer spends its time where SIMD decoders change state: a fault straddling the edge of a
//! vector register, after a run of 2-, 3- or 4-byte characters.
//!
//! Every fault variant produces the bytes of exactly one taxonomy category (docs/DESIGN.md §2),
//! whatever its parameters: parameters are reduced into the category's range, never
//! rejected, so that every fuzz input is a program.

use arbitrary::Arbitrary;
use utf8conf::corpus::faults::encode_in_length;
use utf8conf::corpus::text::SAMPLES;

/// The largest number of pieces a program uses (the rest are ignored), to bound input size.
pub const MAX_PIECES: usize = 48;

/// A program: pieces in order, and where to put the first fault.
#[derive(Debug, Clone, Arbitrary)]
pub struct Program {
    /// Where the first fault goes.
    pub placement: Placement,
    /// The pieces, concatenated.
    pub pieces: Vec<Piece>,
}

/// The block sizes of the vector registers a SIMD decoder works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum Block {
    /// 16 bytes: SSE, NEON.
    Bytes16,
    /// 32 bytes: AVX2.
    Bytes32,
    /// 64 bytes: AVX-512, and the unrolled loops of 16/32-byte kernels.
    Bytes64,
}

impl Block {
    /// The block size in bytes.
    pub fn bytes(self) -> usize {
        match self {
            Block::Bytes16 => 16,
            Block::Bytes32 => 32,
            Block::Bytes64 => 64,
        }
    }
}

/// Where the first fault starts: `shift` bytes from the `multiple`-th block boundary (the
/// next one after the text before it, if that text is longer).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct Placement {
    /// The block size.
    pub block: Block,
    /// Which boundary: 1..=4 (reduced modulo 4).
    pub multiple: u8,
    /// Offset from the boundary: -4..=4 (reduced modulo 9), so faults start just before,
    /// on, or just after it and so straddle it.
    pub shift: i8,
    /// The filler that moves the fault into place.
    pub filler: Filler,
}

/// Filler text, which also decides what the decoder's fast path has seen before the fault.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Filler {
    /// ASCII letters: the all-ASCII fast path.
    Ascii,
    /// `é` (C3 A9) then ASCII to make up an odd length.
    TwoByte,
    /// `€` (E2 82 AC) then ASCII.
    ThreeByte,
    /// `😀` (F0 9F 98 80) then ASCII.
    FourByte,
}

/// One piece of a program.
#[derive(Debug, Clone, Arbitrary)]
pub enum Piece {
    /// Up to 31 characters of one of the text generator's multilingual samples
    /// (`utf8conf::corpus::text::SAMPLES`), starting at `start`.
    Text {
        /// Which sample (reduced modulo the number of samples).
        sample: u8,
        /// Where in the sample to start (reduced modulo its length).
        start: u8,
        /// How many characters (reduced modulo 32).
        chars: u8,
    },
    /// A well-formed character that decoders are known to mishandle.
    Edge(Edge),
    /// An ill-formed sequence of one taxonomy category.
    Fault(Fault),
}

/// Well-formed characters at the edges of the grammar or of decoders' habits.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Edge {
    /// A noncharacter: U+FDD0..U+FDEF or U+xFFFE/U+xFFFF of some plane (index reduced).
    Noncharacter(u8),
    /// U+FEFF, the byte order mark, anywhere (decoders must not strip it).
    ByteOrderMark,
    /// A scalar at a Table 3-7 boundary (index reduced): U+0000, U+007F, U+0080, U+07FF,
    /// U+0800, U+0FFF, U+1000, U+CFFF, U+D000, U+D7FF, U+E000, U+FFFF, U+10000, U+3FFFF,
    /// U+40000, U+FFFFF, U+100000, U+10FFFF.
    Boundary(u8),
    /// Any scalar value (reduced into 0..=10FFFF, surrogates moved up by 0x800).
    Scalar(u32),
}

/// Scalars on the row and column boundaries of Unicode Table 3-7.
const BOUNDARY_SCALARS: [u32; 18] = [
    0x0000, 0x007F, 0x0080, 0x07FF, 0x0800, 0x0FFF, 0x1000, 0xCFFF, 0xD000, 0xD7FF, 0xE000, 0xFFFF,
    0x10000, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFF,
];

impl Edge {
    /// The scalar value.
    pub fn scalar(self) -> u32 {
        match self {
            Edge::Noncharacter(index) => {
                let index = u32::from(index) % 66;
                if index < 32 {
                    0xFDD0 + index
                } else {
                    let plane = (index - 32) / 2;
                    (plane << 16) | 0xFFFE | (index & 1)
                }
            }
            Edge::ByteOrderMark => 0xFEFF,
            Edge::Boundary(index) => BOUNDARY_SCALARS[usize::from(index) % BOUNDARY_SCALARS.len()],
            Edge::Scalar(value) => {
                let value = value % 0x11_0000;
                if (0xD800..=0xDFFF).contains(&value) {
                    value + 0x800
                } else {
                    value
                }
            }
        }
    }
}

/// An ill-formed sequence; each variant is one taxonomy category.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Fault {
    /// `invalid-lead`: C0, C1 or F5..FF alone (index reduced into those 13 bytes), followed
    /// by nothing that continues it (the next piece decides; a continuation byte after C0
    /// makes it an overlong instead, which is still a fault).
    InvalidLead(u8),
    /// `unexpected-continuation`: a byte 80..BF (reduced) with no lead.
    UnexpectedContinuation(u8),
    /// `truncated-*`: the first 1..len-1 bytes of a multi-byte character. At the end of the
    /// program it is `truncated-at-end`, before other text `truncated-interrupted`.
    Truncated {
        /// The character (reduced into U+0080..U+10FFFF, surrogates moved up).
        scalar: u32,
        /// How many bytes to drop from its end (reduced into 1..len-1).
        drop: u8,
    },
    /// `overlong-2`: U+0000..U+007F (reduced) in 2 bytes, C0/C1 xx.
    Overlong2(u8),
    /// `overlong-3`: U+0000..U+07FF (reduced) in 3 bytes, E0 80..9F xx.
    Overlong3(u16),
    /// `overlong-4`: U+0000..U+FFFF in 4 bytes, F0 80..8F xx xx.
    Overlong4(u16),
    /// `surrogate`: U+D800..U+DFFF (reduced) in 3 bytes, ED A0..BF xx.
    Surrogate(u16),
    /// `cesu8-pair`: a high and a low surrogate (reduced), each in 3 bytes: CESU-8's
    /// encoding of one supplementary character.
    Cesu8Pair {
        /// The high surrogate's offset into D800..DBFF.
        high: u16,
        /// The low surrogate's offset into DC00..DFFF.
        low: u16,
    },
    /// `above-max`: a code point U+110000..U+1FFFFF (reduced) in 4 bytes, F4 90.. to F7.
    AboveMax(u32),
    /// `legacy-5-6-byte`: a code point U+200000..U+3FFFFFF in RFC 2279's 5-byte form.
    Legacy5(u32),
    /// `legacy-5-6-byte`: a code point U+4000000..U+7FFFFFFF in RFC 2279's 6-byte form.
    Legacy6(u32),
}

/// The lead bytes that can start no sequence on their own.
const INVALID_LEADS: [u8; 13] = [
    0xC0, 0xC1, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
];

/// The UTF-8 encoding of a scalar value.
fn encode_scalar(scalar: u32) -> Vec<u8> {
    let character = char::from_u32(scalar).expect("callers reduce into scalar values");
    character.to_string().into_bytes()
}

impl Fault {
    /// The bytes of the fault.
    pub fn to_bytes(self) -> Vec<u8> {
        match self {
            Fault::InvalidLead(index) => {
                vec![INVALID_LEADS[usize::from(index) % INVALID_LEADS.len()]]
            }
            Fault::UnexpectedContinuation(byte) => vec![0x80 | (byte & 0x3F)],
            Fault::Truncated { scalar, drop } => {
                let scalar = 0x80 + scalar % (0x11_0000 - 0x80);
                let scalar = if (0xD800..=0xDFFF).contains(&scalar) {
                    scalar + 0x800
                } else {
                    scalar
                };
                let mut bytes = encode_scalar(scalar);
                let drop = 1 + usize::from(drop) % (bytes.len() - 1);
                bytes.truncate(bytes.len() - drop);
                bytes
            }
            Fault::Overlong2(value) => encode_in_length(u32::from(value) % 0x80, 2),
            Fault::Overlong3(value) => encode_in_length(u32::from(value) % 0x800, 3),
            Fault::Overlong4(value) => encode_in_length(u32::from(value), 4),
            Fault::Surrogate(value) => encode_in_length(0xD800 + u32::from(value) % 0x800, 3),
            Fault::Cesu8Pair { high, low } => {
                let mut bytes = encode_in_length(0xD800 + u32::from(high) % 0x400, 3);
                bytes.extend(encode_in_length(0xDC00 + u32::from(low) % 0x400, 3));
                bytes
            }
            Fault::AboveMax(value) => {
                encode_in_length(0x11_0000 + value % (0x20_0000 - 0x11_0000), 4)
            }
            Fault::Legacy5(value) => {
                encode_in_length(0x20_0000 + value % (0x400_0000 - 0x20_0000), 5)
            }
            Fault::Legacy6(value) => {
                encode_in_length(0x400_0000 + value % (0x8000_0000 - 0x400_0000), 6)
            }
        }
    }
}

impl Piece {
    /// The bytes of the piece.
    pub fn to_bytes(&self) -> Vec<u8> {
        match *self {
            Piece::Text {
                sample,
                start,
                chars,
            } => {
                let sample = SAMPLES[usize::from(sample) % SAMPLES.len()];
                let sample: Vec<char> = sample.text.chars().collect();
                let start = usize::from(start) % sample.len();
                let text: String = sample
                    .iter()
                    .cycle()
                    .skip(start)
                    .take(usize::from(chars) % 32)
                    .collect();
                text.into_bytes()
            }
            Piece::Edge(edge) => encode_scalar(edge.scalar()),
            Piece::Fault(fault) => fault.to_bytes(),
        }
    }
}

impl Filler {
    /// `len` bytes of well-formed filler.
    fn bytes(self, len: usize) -> Vec<u8> {
        let wide: &[u8] = match self {
            Filler::Ascii => b"",
            Filler::TwoByte => "é".as_bytes(),
            Filler::ThreeByte => "€".as_bytes(),
            Filler::FourByte => "😀".as_bytes(),
        };
        let mut bytes = Vec::with_capacity(len);
        while !wide.is_empty() && bytes.len() + wide.len() <= len {
            bytes.extend_from_slice(wide);
        }
        let letters = b"abcdefghijklmnopqrstuvwxyz";
        while bytes.len() < len {
            bytes.push(letters[bytes.len() % letters.len()]);
        }
        bytes
    }
}

impl Program {
    /// The byte string the program builds.
    pub fn to_bytes(&self) -> Vec<u8> {
        let pieces = &self.pieces[..self.pieces.len().min(MAX_PIECES)];
        let first_fault = pieces
            .iter()
            .position(|piece| matches!(piece, Piece::Fault(_)));
        let mut before_fault = Vec::new();
        let mut from_fault = Vec::new();
        for (index, piece) in pieces.iter().enumerate() {
            let bytes = piece.to_bytes();
            if first_fault.is_some_and(|fault| index >= fault) {
                from_fault.extend(bytes);
            } else {
                before_fault.extend(bytes);
            }
        }
        if first_fault.is_none() {
            return before_fault;
        }
        // Put the fault at `boundary + shift`, the first such offset not before the text.
        let placement = self.placement;
        let block = placement.block.bytes();
        let shift = i64::from(placement.shift).rem_euclid(9) - 4;
        let mut target = (block * (1 + usize::from(placement.multiple) % 4)) as i64 + shift;
        while target < before_fault.len() as i64 {
            target += block as i64;
        }
        let mut bytes = placement.filler.bytes(target as usize - before_fault.len());
        bytes.extend(before_fault);
        bytes.extend(from_fault);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use utf8conf::reference::Reference;
    use utf8conf::taxonomy::{category_at, Category};

    fn category_of_fault(fault: Fault) -> Option<Category> {
        let mut bytes = fault.to_bytes();
        bytes.push(b'.');
        category_at(&bytes, 0)
    }

    #[test]
    fn each_fault_is_its_category() {
        use Category::*;
        for value in [0u32, 1, 0x3F, 0x40, 0x7FF, 0xFFFF, 0xFFFF_FFFF] {
            assert_eq!(
                category_of_fault(Fault::Overlong2(value as u8)),
                Some(Overlong2)
            );
            assert_eq!(
                category_of_fault(Fault::Overlong3(value as u16)),
                Some(Overlong3)
            );
            assert_eq!(
                category_of_fault(Fault::Overlong4(value as u16)),
                Some(Overlong4)
            );
            assert_eq!(
                category_of_fault(Fault::Surrogate(value as u16)),
                Some(Surrogate)
            );
            assert_eq!(
                category_of_fault(Fault::Cesu8Pair {
                    high: value as u16,
                    low: (value >> 3) as u16
                }),
                Some(Cesu8Pair)
            );
            assert_eq!(category_of_fault(Fault::AboveMax(value)), Some(AboveMax));
            assert_eq!(
                category_of_fault(Fault::Legacy5(value)),
                Some(Legacy5Or6Byte)
            );
            assert_eq!(
                category_of_fault(Fault::Legacy6(value)),
                Some(Legacy5Or6Byte)
            );
            assert_eq!(
                category_of_fault(Fault::UnexpectedContinuation(value as u8)),
                Some(UnexpectedContinuation)
            );
            assert_eq!(
                category_of_fault(Fault::InvalidLead(value as u8)),
                Some(InvalidLead)
            );
            assert_eq!(
                category_of_fault(Fault::Truncated {
                    scalar: value,
                    drop: value as u8
                }),
                Some(TruncatedInterrupted)
            );
        }
    }

    #[test]
    fn edges_and_text_are_well_formed() {
        let reference = Reference::rfc3629();
        for index in 0..=255u8 {
            for edge in [
                Edge::Noncharacter(index),
                Edge::Boundary(index),
                Edge::Scalar(u32::from(index) * 0x1_2345),
            ] {
                assert!(reference.decode(&Piece::Edge(edge).to_bytes()).is_valid());
            }
        }
        assert_eq!(Edge::Noncharacter(65).scalar(), 0x10FFFF);
        assert_eq!(Edge::Noncharacter(31).scalar(), 0xFDEF);
    }

    #[test]
    fn the_first_fault_lands_near_the_chosen_boundary() {
        let greek = SAMPLES
            .iter()
            .position(|sample| sample.label == "greek")
            .unwrap() as u8;
        for block in [Block::Bytes16, Block::Bytes32, Block::Bytes64] {
            for shift in -4i8..=4 {
                for filler in [
                    Filler::Ascii,
                    Filler::TwoByte,
                    Filler::ThreeByte,
                    Filler::FourByte,
                ] {
                    let program = Program {
                        placement: Placement {
                            block,
                            multiple: 1,
                            shift: shift + 4,
                            filler,
                        },
                        pieces: vec![
                            Piece::Text {
                                sample: greek,
                                start: 0,
                                chars: 5,
                            },
                            Piece::Fault(Fault::Surrogate(0)),
                        ],
                    };
                    let bytes = program.to_bytes();
                    let expected = (2 * block.bytes()) as i64 + i64::from(shift);
                    let first_error = Reference::rfc3629().first_error(&bytes).unwrap().0;
                    assert_eq!(first_error as i64, expected);
                }
            }
        }
    }
}
