//! Compile-time tables for the UTF-32 conversion kernel.
//!
//! The kernel looks at 16 bytes that start at a character boundary and computes a 12-bit
//! mask of character ends (bit `i` set iff byte `i` is the last byte of a character).
//! Twelve bytes always hold at least three complete characters (at most 4 bytes each),
//! so each step converts the first 6 characters if they end within 12 bytes and none is
//! longer than 2 bytes (a [`ShortStep`]: Latin, Greek, Cyrillic, Hebrew, Arabic text
//! with its spaces and punctuation), else the first 4 if they end within 12 bytes, else
//! the first 3 (a [`Step`]). [`STEP_INDEX`] maps the mask to the step: the shuffle that
//! moves the bytes of those characters into 32-bit lanes (last byte in the lowest byte
//! of the lane, zeros above the lead, as [`super::assemble_lane`] expects), how many
//! bytes they use and how many characters they are.
//!
//! A step is identified by its character lengths: two bits `length - 1` per character,
//! plus 256 when there are three characters; a short step by one bit `length - 1` per
//! character, plus [`SHORT_BASE`]; one extra entry marks masks that well-formed input
//! cannot produce (a "character" longer than 4 bytes).

/// One conversion step: a shuffle and how far it advances.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Step {
    /// Byte `4k + j` of the output takes input byte `shuffle[4k + j]`, or 0 if 0x80.
    pub shuffle: [u8; 16],
    /// The payload bits of each shuffled byte: 7F for ASCII, 3F for a tail, 1F, 0F or
    /// 07 for a 2-, 3- or 4-byte lead (0 for unused bytes), so that a lane ANDed with it
    /// holds exactly the bits of the scalar value, 6 per tail.
    pub payload: [u8; 16],
    /// Input bytes covered by the characters converted.
    pub consumed: u8,
    /// Characters converted (3 or 4); 0 for [`UNREACHABLE_STEP`].
    pub chars: u8,
    /// Bit `k` set iff character `k` has 4 bytes (two UTF-16 code units).
    pub pairs: u8,
}

/// A step of six characters of one or two bytes: the [`Step`] layout over eight lanes
/// (the last two unused), so that a 32-byte shuffle of the 16 input bytes repeated
/// twice fills all six at once.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct ShortStep {
    /// As [`Step::shuffle`], for lanes 0..4 and 4..8 (indices into the same 16 input
    /// bytes).
    pub shuffle: [[u8; 16]; 2],
    /// As [`Step::payload`], for lanes 0..4 and 4..8.
    pub payload: [[u8; 16]; 2],
}

/// The first short step identifier; short step `bits` (bit `k` = length of character
/// `k` minus 1) is [`SHORT_STEPS`]`[bits]`.
pub const SHORT_BASE: u16 = 320;

/// Characters per [`ShortStep`].
pub const SHORT_CHARS: usize = 6;

/// Whether an entry's step is a [`ShortStep`] (else a [`Step`]).
#[inline(always)]
pub const fn is_short(entry: StepEntry) -> bool {
    let id = entry & 0x1FF;
    id >= SHORT_BASE && id < SHORT_BASE + 64
}

const fn build_short_steps() -> [ShortStep; 64] {
    let empty = ShortStep {
        shuffle: [[0x80; 16]; 2],
        payload: [[0; 16]; 2],
    };
    let mut steps = [empty; 64];
    let mut bits = 0;
    while bits < 64 {
        let mut start = 0u8;
        let mut k = 0;
        while k < SHORT_CHARS {
            let length = ((bits >> k) & 1) as u8 + 1;
            let last = start + length - 1;
            let mut j = 0;
            while j < length {
                let (half, byte) = (k / 4, 4 * (k % 4) + j as usize);
                steps[bits].shuffle[half][byte] = last - j;
                steps[bits].payload[half][byte] = if j + 1 < length {
                    0x3F
                } else {
                    [0x7F, 0x1F][length as usize - 1]
                };
                j += 1;
            }
            start += length;
            k += 1;
        }
        bits += 1;
    }
    steps
}

/// The short steps, by `id - SHORT_BASE`.
pub static SHORT_STEPS: [ShortStep; 64] = build_short_steps();

/// A [`ShortStep`] for UTF-16 output: its six characters (one or two bytes, so below
/// U+0800, one code unit each) shuffled into 16-bit lanes, last byte low, so that one
/// multiply-add (`low + 64 * high`) gives each unit, with no 32-bit values to pack.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub struct ShortUnits {
    /// Byte `2k + j` of the output takes input byte `shuffle[2k + j]`, or 0 if 0x80.
    pub shuffle: [u8; 16],
    /// The payload bits of each shuffled byte: 7F for ASCII, 3F for a tail, 1F for a
    /// lead (0 for unused bytes).
    pub payload: [u8; 16],
}

const fn build_short_units() -> [ShortUnits; 64] {
    let empty = ShortUnits {
        shuffle: [0x80; 16],
        payload: [0; 16],
    };
    let mut steps = [empty; 64];
    let mut bits = 0;
    while bits < 64 {
        let mut start = 0u8;
        let mut k = 0;
        while k < SHORT_CHARS {
            let two = (bits >> k) & 1 == 1;
            if two {
                steps[bits].shuffle[2 * k] = start + 1;
                steps[bits].payload[2 * k] = 0x3F;
                steps[bits].shuffle[2 * k + 1] = start;
                steps[bits].payload[2 * k + 1] = 0x1F;
                start += 2;
            } else {
                steps[bits].shuffle[2 * k] = start;
                steps[bits].payload[2 * k] = 0x7F;
                start += 1;
            }
            k += 1;
        }
        bits += 1;
    }
    steps
}

/// The short steps for UTF-16 output, by `id - SHORT_BASE`.
pub static SHORT_UNITS: [ShortUnits; 64] = build_short_units();

/// Number of step identifiers (two bits per character for up to 4 characters, and a
/// flag for three-character steps).
pub const STEP_COUNT: usize = 512;

/// The step for masks that well-formed input cannot produce: converts nothing.
pub const UNREACHABLE_STEP: u16 = (STEP_COUNT - 1) as u16;

const fn lengths_id(lengths: &[u8; 4], chars: usize) -> u16 {
    let mut id = if chars == 3 { 256 } else { 0 };
    let mut k = 0;
    while k < chars {
        id |= ((lengths[k] - 1) as u16) << (2 * k);
        k += 1;
    }
    id
}

const fn build_steps() -> [Step; STEP_COUNT] {
    let empty = Step {
        shuffle: [0x80; 16],
        payload: [0; 16],
        consumed: 0,
        chars: 0,
        pairs: 0,
    };
    let mut steps = [empty; STEP_COUNT];
    let mut id = 0;
    while id < STEP_COUNT - 1 {
        let chars = if id >= 256 { 3 } else { 4 };
        if chars == 4 || id < 256 + 64 {
            let mut step = empty;
            let mut start = 0u8;
            let mut k = 0;
            while k < chars {
                let length = ((id >> (2 * k)) & 3) as u8 + 1;
                if length == 4 {
                    step.pairs |= 1 << k;
                }
                let last = start + length - 1;
                let mut j = 0;
                while j < length {
                    step.shuffle[4 * k + j as usize] = last - j;
                    step.payload[4 * k + j as usize] = if j + 1 < length {
                        0x3F
                    } else {
                        // The lead, last in the lane.
                        [0x7F, 0x1F, 0x0F, 0x07][length as usize - 1]
                    };
                    j += 1;
                }
                start += length;
                k += 1;
            }
            step.consumed = start;
            step.chars = chars as u8;
            steps[id] = step;
        }
        id += 1;
    }
    steps
}

/// An entry of [`STEP_INDEX`]: bits 0..9 the step identifier, 9..13 the bytes consumed,
/// 13..16 the characters converted, so that one load gives all three.
pub type StepEntry = u16;

const fn entry(id: u16, consumed: usize, chars: usize) -> StepEntry {
    id | ((consumed as u16) << 9) | ((chars as u16) << 13)
}

/// The step identifier of an entry (an index into [`STEPS`]).
#[inline(always)]
pub const fn step_id(entry: StepEntry) -> usize {
    (entry & 0x1FF) as usize
}

/// Input bytes consumed by an entry's step (0 for masks well-formed input cannot give).
#[inline(always)]
pub const fn step_consumed(entry: StepEntry) -> usize {
    ((entry >> 9) & 0xF) as usize
}

/// Characters converted by an entry's step.
#[inline(always)]
pub const fn step_chars(entry: StepEntry) -> usize {
    (entry >> 13) as usize
}

const fn build_step_index() -> [StepEntry; 4096] {
    let mut index = [entry(UNREACHABLE_STEP, 0, 0); 4096];
    let mut mask = 0usize;
    while mask < 4096 {
        // The lengths of the first (up to 6) characters that end within 12 bytes.
        let mut lengths = [0u8; SHORT_CHARS];
        let mut chars = 0;
        let mut start = 0;
        let mut valid = true;
        while chars < SHORT_CHARS {
            // The next character end at or after `start`.
            let mut end = start;
            while end < 12 && mask & (1 << end) == 0 {
                end += 1;
            }
            if end == 12 {
                break;
            }
            let length = end - start + 1;
            if length > 4 {
                // Ill-formed; it matters only among the characters a step converts.
                valid = chars >= 4;
                break;
            }
            lengths[chars] = length as u8;
            chars += 1;
            start = end + 1;
        }
        let mut short = chars == SHORT_CHARS;
        let mut bits = 0;
        let mut k = 0;
        while k < chars {
            short &= lengths[k] <= 2;
            bits |= ((lengths[k] as u16 - 1) & 1) << k;
            k += 1;
        }
        if short {
            index[mask] = entry(SHORT_BASE + bits, start, SHORT_CHARS);
        } else if valid && chars >= 3 {
            let chars = if chars >= 4 { 4 } else { 3 };
            let mut first = [0u8; 4];
            let mut consumed = 0;
            let mut k = 0;
            while k < chars {
                first[k] = lengths[k];
                consumed += lengths[k] as usize;
                k += 1;
            }
            index[mask] = entry(lengths_id(&first, chars), consumed, chars);
        }
        mask += 1;
    }
    index
}

/// The steps, by identifier.
pub static STEPS: [Step; STEP_COUNT] = build_steps();

const fn build_consumed() -> [u8; 4096] {
    let index = build_step_index();
    let mut consumed = [0u8; 4096];
    let mut mask = 0;
    while mask < 4096 {
        consumed[mask] = step_consumed(index[mask]) as u8;
        mask += 1;
    }
    consumed
}

/// [`step_consumed`] of each [`STEP_INDEX`] entry, as a table of its own: the step loop's
/// cursor depends on it, and a byte load is the shortest path from mask to cursor.
pub static STEP_CONSUMED: [u8; 4096] = build_consumed();

/// Character-end mask of 12 bytes to step (see [`StepEntry`]).
pub static STEP_INDEX: [StepEntry; 4096] = build_step_index();

/// The character-end mask of 12 bytes that are four 3-byte characters (ends at bytes 2,
/// 5, 8 and 11), the step of Chinese and Japanese prose.
pub const THREE_BYTE_ENDS: usize = 0b1001_0010_0100;

/// The step of [`THREE_BYTE_ENDS`] as a constant, so that runs of 3-byte characters are
/// converted without a table load.
pub const THREE_BYTE_STEP: Step = build_steps()[step_id(build_step_index()[THREE_BYTE_ENDS])];

/// Lossy expansion of a 4-byte group (see `super::lossy_dense`): for each pattern of 4
/// "copy" bits, byte `j` of the group is either copied (bit set) or replaced by EF BF BD.
/// `EXPAND_SHUFFLE[group][pattern]` picks the copied bytes from the 16-byte chunk
/// (0x80 elsewhere, which shuffles in zeros); `EXPAND_FILL[pattern]` holds the U+FFFD
/// bytes to OR in; `EXPAND_LEN[pattern]` is the output length.
pub static EXPAND_SHUFFLE: [[[u8; 16]; 16]; 4] = {
    let mut tables = [[[0x80u8; 16]; 16]; 4];
    let mut group = 0;
    while group < 4 {
        let mut pattern = 0;
        while pattern < 16 {
            let mut out = 0;
            let mut j = 0;
            while j < 4 {
                if pattern & (1 << j) != 0 {
                    tables[group][pattern][out] = (4 * group + j) as u8;
                    out += 1;
                } else {
                    out += 3;
                }
                j += 1;
            }
            pattern += 1;
        }
        group += 1;
    }
    tables
};

/// See [`EXPAND_SHUFFLE`].
pub static EXPAND_FILL: [[u8; 16]; 16] = {
    let mut fills = [[0u8; 16]; 16];
    let mut pattern = 0;
    while pattern < 16 {
        let mut out = 0;
        let mut j = 0;
        while j < 4 {
            if pattern & (1 << j) != 0 {
                out += 1;
            } else {
                fills[pattern][out] = 0xEF;
                fills[pattern][out + 1] = 0xBF;
                fills[pattern][out + 2] = 0xBD;
                out += 3;
            }
            j += 1;
        }
        pattern += 1;
    }
    fills
};

/// See [`EXPAND_SHUFFLE`].
pub static EXPAND_LEN: [u8; 16] = {
    let mut lens = [0u8; 16];
    let mut pattern = 0;
    while pattern < 16 {
        lens[pattern] = (12 - 2 * (pattern as u32).count_ones()) as u8;
        pattern += 1;
    }
    lens
};

/// Compaction of 4 lanes of UTF-16 code units, by which lanes hold a surrogate pair
/// (bit `k` of the index for lane `k`): a byte shuffle that keeps the low 16 bits of
/// every lane and the high 16 bits of the lanes with a pair, in order. A lane holds one
/// character: its only unit (high bits zero), or the high surrogate in its low bits and
/// the low surrogate in its high bits, so the pair comes out in order (D91, Table 3-5).
pub static PAIR_COMPACT: [[u8; 16]; 16] = {
    let mut table = [[0x80; 16]; 16];
    let mut pairs = 0;
    while pairs < 16 {
        let mut unit = 0;
        let mut lane = 0;
        while lane < 4 {
            let units = if pairs & (1 << lane) != 0 { 2 } else { 1 };
            let mut j = 0;
            while j < units {
                let word = 2 * lane + j;
                table[pairs][2 * unit] = 2 * word as u8;
                table[pairs][2 * unit + 1] = 2 * word as u8 + 1;
                unit += 1;
                j += 1;
            }
            lane += 1;
        }
        pairs += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_cover_the_first_characters() {
        // "aé中😀": lengths 1, 2, 3, 4 -> ends at bytes 0, 2, 5, 9.
        let mask = (1 << 0) | (1 << 2) | (1 << 5) | (1 << 9);
        let entry = STEP_INDEX[mask];
        let step = &STEPS[step_id(entry)];
        assert_eq!((step.chars, step.consumed), (4, 10));
        assert_eq!((step_chars(entry), step_consumed(entry)), (4, 10));
        assert_eq!(
            step.shuffle,
            [0, 0x80, 0x80, 0x80, 2, 1, 0x80, 0x80, 5, 4, 3, 0x80, 9, 8, 7, 6]
        );
        // Three 4-byte characters.
        let mask = (1 << 3) | (1 << 7) | (1 << 11);
        let entry = STEP_INDEX[mask];
        assert_eq!((step_chars(entry), step_consumed(entry)), (3, 12));
        // No character end in the first 5 bytes: impossible in well-formed input.
        assert_eq!(
            step_id(STEP_INDEX[0b1111_1110_0000]),
            UNREACHABLE_STEP as usize
        );
        assert_eq!(step_consumed(STEP_INDEX[0b1111_1110_0000]), 0);
        assert_eq!(STEPS[UNREACHABLE_STEP as usize].consumed, 0);
        // "aéb cdé" + "x": lengths 1, 2, 1, 1, 1, 2 end within 12 bytes: a short step.
        let mask = (1 << 0) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 7) | (1 << 8);
        let entry = STEP_INDEX[mask];
        assert!(is_short(entry));
        assert_eq!((step_chars(entry), step_consumed(entry)), (6, 8));
        let step = &SHORT_STEPS[step_id(entry) - SHORT_BASE as usize];
        assert_eq!(
            step.shuffle,
            [
                [0, 0x80, 0x80, 0x80, 2, 1, 0x80, 0x80, 3, 0x80, 0x80, 0x80, 4, 0x80, 0x80, 0x80],
                [
                    5, 0x80, 0x80, 0x80, 7, 6, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                    0x80, 0x80
                ]
            ]
        );
        assert_eq!(&step.payload[1][..8], &[0x7F, 0, 0, 0, 0x3F, 0x1F, 0, 0]);
        // A 3-byte character among the first six: four characters.
        let mask = (1 << 0) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7);
        assert!(!is_short(STEP_INDEX[mask]));
        assert_eq!(step_chars(STEP_INDEX[mask]), 4);
    }

    #[test]
    fn short_units_give_the_code_units_of_every_short_step() {
        // Each short step's six characters, one or two bytes (the largest of each
        // length, then the smallest), through the 16-bit-lane shuffle, the payload and
        // `low + 64 * high`, as the kernels compute them.
        for (lead, tail) in [(0xDFu8, 0xBFu8), (0xC2, 0x80)] {
            for (bits, step) in SHORT_UNITS.iter().enumerate() {
                let mut input = [0u8; 16];
                let mut expected = [0u16; 8];
                let mut at = 0;
                for (k, unit) in expected.iter_mut().take(SHORT_CHARS).enumerate() {
                    if (bits >> k) & 1 == 1 {
                        input[at..at + 2].copy_from_slice(&[lead, tail]);
                        *unit = ((lead as u16 & 0x1F) << 6) | (tail as u16 & 0x3F);
                        at += 2;
                    } else {
                        input[at] = 0x41 + k as u8;
                        *unit = input[at] as u16;
                        at += 1;
                    }
                }
                let byte = |i: usize| match step.shuffle[i] {
                    0x80 => 0,
                    from => input[from as usize] & step.payload[i],
                };
                let units: Vec<u16> = (0..8)
                    .map(|k| byte(2 * k) as u16 + 64 * byte(2 * k + 1) as u16)
                    .collect();
                assert_eq!(units, expected, "short step {bits:06b}");
            }
        }
    }

    #[test]
    fn run_steps_are_the_table_steps() {
        let entry = STEP_INDEX[THREE_BYTE_ENDS];
        assert_eq!((step_chars(entry), step_consumed(entry)), (4, 12));
        assert_eq!(
            THREE_BYTE_STEP.shuffle,
            [2, 1, 0, 0x80, 5, 4, 3, 0x80, 8, 7, 6, 0x80, 11, 10, 9, 0x80]
        );
        assert_eq!(
            THREE_BYTE_STEP.payload,
            [0x3F, 0x3F, 0x0F, 0, 0x3F, 0x3F, 0x0F, 0, 0x3F, 0x3F, 0x0F, 0, 0x3F, 0x3F, 0x0F, 0]
        );
    }

    #[test]
    fn expansion_tables() {
        // Group 1, copy bytes 0 and 2, replace bytes 1 and 3.
        let pattern = 0b0101;
        assert_eq!(EXPAND_LEN[pattern], 8);
        assert_eq!(
            &EXPAND_SHUFFLE[1][pattern][..8],
            &[4, 0x80, 0x80, 0x80, 6, 0x80, 0x80, 0x80]
        );
        assert_eq!(
            &EXPAND_FILL[pattern][..8],
            &[0, 0xEF, 0xBF, 0xBD, 0, 0xEF, 0xBF, 0xBD]
        );
    }
}
