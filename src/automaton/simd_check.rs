//! The SIMD validation check (Keiser & Lemire's lookup algorithm) as an acceptor.
//!
//! The SIMD backends decide well-formedness with a *local* test: for each byte, with the
//! three bytes before it (`prev1`, `prev2`, `prev3`; zeros before the input),
//!
//! ```text
//! special      = PREV1_HIGH[prev1 >> 4] & PREV1_LOW[prev1 & 15] & BYTE_HIGH[byte >> 4]
//! must_be_tail = (prev2 -sat (0xE0 - 0x80) | prev3 -sat (0xF0 - 0x80)) & 0x80
//! error       |= must_be_tail ^ special
//! ```
//!
//! (Keiser & Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte", Software:
//! Practice and Experience 51(5), 2021, §5), and at the end of input one of two checks:
//! the last partial block is padded with zeros, which the same test flags after a cut
//! character, or, when the input ends exactly at a block boundary, `incomplete_tail`:
//! the last three bytes saturating-minus `EF`, `DF`, `BF` must all be zero.
//!
//! So the check is a finite machine whose state is the last three bytes, and only what
//! the tables make of a byte matters: bytes with the same *signature* (its `prev1` mask,
//! its `BYTE_HIGH` entry, the two threshold bits and the three end bits) are
//! interchangeable in every position. The state is therefore three byte classes, plus
//! one absorbing state once an error bit is set. The nibble tables are read from
//! [`crate::fast::simd`] itself, so a change to them changes this machine.
//!
//! The ASCII-block skip of the backends (after an all-ASCII block, `previous` is reset to
//! zeros) is sound exactly when every ASCII byte has the signature of `00`, which
//! [`LookupCheck::ascii_is_zero`] states and the proof checks.

use crate::fast::simd::{BYTE_HIGH, PREV1_HIGH, PREV1_LOW};

use super::machine::{explore, Acceptor};

/// `prev2 -sat THIRD_BYTE_THRESHOLD` has its high bit set iff `prev2 >= E0`.
pub const THIRD_BYTE_THRESHOLD: u8 = 0xE0 - 0x80;
/// `prev3 -sat FOURTH_BYTE_THRESHOLD` has its high bit set iff `prev3 >= F0`.
pub const FOURTH_BYTE_THRESHOLD: u8 = 0xF0 - 0x80;
/// `incomplete_tail`'s limits for the third-last, second-last and last byte of a
/// register at a block boundary.
pub const INCOMPLETE_MAX_ALLOWED: [u8; 3] = [0xEF, 0xDF, 0xBF];

/// The tables of the lookup algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookupTables {
    /// Indexed by the high nibble of `prev1`.
    pub prev1_high: [u8; 16],
    /// Indexed by the low nibble of `prev1`.
    pub prev1_low: [u8; 16],
    /// Indexed by the high nibble of the byte.
    pub byte_high: [u8; 16],
}

impl LookupTables {
    /// The tables the SIMD backends use.
    pub fn of_backends() -> LookupTables {
        LookupTables {
            prev1_high: PREV1_HIGH,
            prev1_low: PREV1_LOW,
            byte_high: BYTE_HIGH,
        }
    }
}

/// How the end of input is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndCheck {
    /// The last partial block padded with this many zero bytes (1 to 3; more zeros
    /// change nothing, as the zero state reads zeros without error).
    Padding(usize),
    /// The input ends at a block boundary: `incomplete_tail` on the last three bytes.
    BlockBoundary,
}

impl EndCheck {
    /// Every end check the backends perform.
    pub const ALL: [EndCheck; 4] = [
        EndCheck::Padding(1),
        EndCheck::Padding(2),
        EndCheck::Padding(3),
        EndCheck::BlockBoundary,
    ];

    /// A short name: `zero padding (1 byte)`, `block boundary`.
    pub fn name(self) -> String {
        match self {
            EndCheck::Padding(1) => "zero padding (1 byte)".to_string(),
            EndCheck::Padding(n) => format!("zero padding ({n} bytes)"),
            EndCheck::BlockBoundary => "block boundary (incomplete_tail)".to_string(),
        }
    }
}

/// The lookup check over given tables.
#[derive(Debug, Clone, Copy)]
pub struct LookupCheck {
    tables: LookupTables,
}

impl LookupCheck {
    /// The check with `tables`.
    pub fn new(tables: LookupTables) -> LookupCheck {
        LookupCheck { tables }
    }

    /// Whether `byte`, preceded by `prev3 prev2 prev1`, sets an error bit.
    pub fn error(&self, [prev3, prev2, prev1]: [u8; 3], byte: u8) -> bool {
        let t = &self.tables;
        let special = t.prev1_high[(prev1 >> 4) as usize]
            & t.prev1_low[(prev1 & 15) as usize]
            & t.byte_high[(byte >> 4) as usize];
        let must_be_tail = (prev2.saturating_sub(THIRD_BYTE_THRESHOLD)
            | prev3.saturating_sub(FOURTH_BYTE_THRESHOLD))
            & 0x80;
        must_be_tail ^ special != 0
    }

    /// Whether the input ending in `last` passes the end check.
    pub fn end_passes(&self, last: [u8; 3], end: EndCheck) -> bool {
        match end {
            EndCheck::Padding(zeros) => {
                let mut window = last;
                for _ in 0..zeros {
                    if self.error(window, 0) {
                        return false;
                    }
                    window = [window[1], window[2], 0];
                }
                true
            }
            EndCheck::BlockBoundary => last
                .iter()
                .zip(INCOMPLETE_MAX_ALLOWED)
                .all(|(&byte, max)| byte.saturating_sub(max) == 0),
        }
    }

    /// Everything the check can tell about a byte, in any position.
    fn signature(&self, byte: u8) -> [u8; 4] {
        let t = &self.tables;
        let mut end_bits = 0;
        for (i, max) in INCOMPLETE_MAX_ALLOWED.iter().enumerate() {
            end_bits |= ((byte.saturating_sub(*max) != 0) as u8) << i;
        }
        [
            t.prev1_high[(byte >> 4) as usize] & t.prev1_low[(byte & 15) as usize],
            t.byte_high[(byte >> 4) as usize],
            ((byte.saturating_sub(THIRD_BYTE_THRESHOLD) & 0x80) >> 7)
                | ((byte.saturating_sub(FOURTH_BYTE_THRESHOLD) & 0x80) >> 6),
            end_bits,
        ]
    }

    /// For each byte, the least byte with the same signature (its class representative).
    pub fn representatives(&self) -> [u8; 256] {
        let mut representative = [0u8; 256];
        let signatures: Vec<[u8; 4]> = (0..=255u8).map(|b| self.signature(b)).collect();
        for byte in 0..256 {
            representative[byte] = signatures
                .iter()
                .position(|s| *s == signatures[byte])
                .expect("a byte has its own signature") as u8;
        }
        representative
    }

    /// Whether every ASCII byte is interchangeable with `00` (what the ASCII-block skip
    /// relies on when it resets the previous bytes to zeros).
    pub fn ascii_is_zero(&self) -> bool {
        let representative = self.representatives();
        (0..0x80).all(|byte| representative[byte] == 0)
    }

    /// The acceptor of the check with `end` at the end of input. State 0 is the start
    /// (three zeros before the input); `None` is the absorbing error state.
    pub fn acceptor(&self, end: EndCheck) -> Acceptor {
        let representative = self.representatives();
        explore(
            Some([0u8; 3]),
            256 * 256 + 1,
            |window: &Option<[u8; 3]>, byte| {
                let next = window.and_then(|window| {
                    (!self.error(window, byte)).then_some([
                        window[1],
                        window[2],
                        representative[byte as usize],
                    ])
                });
                ((), next)
            },
            |window| window.is_some_and(|window| self.end_passes(window, end)),
            |window| match window {
                None => "error".to_string(),
                Some(w) => format!("{:02X} {:02X} {:02X}", w[0], w[1], w[2]),
            },
        )
        .expect("at most one state per three byte classes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::exhaustive::EDGE_ALPHABET;
    use crate::fast::{validate_with, Backend};

    /// The model agrees with every available SIMD backend's `validate` on inputs placed
    /// at the start, across a 64-byte block boundary, and ending exactly at one: every
    /// input of 1 and 2 bytes, and every input of 3 and 4 bytes over the boundary bytes.
    #[test]
    fn model_agrees_with_the_backends() {
        let check = LookupCheck::new(LookupTables::of_backends());
        let machines: Vec<(EndCheck, Acceptor)> = EndCheck::ALL
            .iter()
            .map(|&end| (end, check.acceptor(end)))
            .collect();
        let accepts = |end: EndCheck, input: &[u8]| {
            let (_, machine) = machines.iter().find(|(e, _)| *e == end).unwrap();
            machine.run(input).1
        };
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for a in 0..=255u8 {
            inputs.push(vec![a]);
            inputs.extend((0..=255u8).map(|b| vec![a, b]));
        }
        for &a in &EDGE_ALPHABET {
            for &b in &EDGE_ALPHABET {
                for &c in &EDGE_ALPHABET {
                    inputs.push(vec![a, b, c]);
                    if a >= 0xC0 {
                        inputs.extend(EDGE_ALPHABET.iter().map(|&d| vec![a, b, c, d]));
                    }
                }
            }
        }
        let backends: Vec<Backend> = Backend::available()
            .filter(|&b| b != Backend::Scalar)
            .collect();
        for input in &inputs {
            let padded = accepts(EndCheck::Padding(3), input);
            // Ending exactly at the end of a 64-byte block, after ASCII.
            let mut at_boundary = vec![b'a'; 64 - input.len()];
            at_boundary.extend_from_slice(input);
            // Straddling the first block boundary, then ASCII to the next one.
            let mut straddling = vec![b'a'; 62];
            straddling.extend_from_slice(input);
            straddling.resize(128, b'a');
            for &backend in &backends {
                let valid = |bytes: &[u8]| validate_with(backend, bytes).unwrap().is_ok();
                assert_eq!(valid(input), padded, "{backend} {input:02X?}");
                assert_eq!(
                    valid(&at_boundary),
                    accepts(EndCheck::BlockBoundary, &at_boundary),
                    "{backend} {input:02X?} at a block end"
                );
                assert_eq!(
                    valid(&straddling),
                    accepts(EndCheck::Padding(1), &straddling),
                    "{backend} {input:02X?} across blocks"
                );
            }
        }
    }

    #[test]
    fn ascii_bytes_are_one_class_with_zero() {
        let check = LookupCheck::new(LookupTables::of_backends());
        assert!(check.ascii_is_zero());
        assert!(!check.error([0, 0, 0], 0));
    }
}
