//! The decisions of the UTF-32 conversion kernel, checked against the grammar.
//!
//! The SIMD UTF-32 kernel (`crate::fast::simd`, `convert_block`) converts input that is
//! already validated. Two of its steps still *decide* something, and both are checked
//! here over the grammar's own automata rather than over samples:
//!
//! 1. **Character ends from tails.** It marks byte `i` as the end of a character iff byte
//!    `i + 1` is not a tail (`dfa::is_continuation`, 80..BF). That is right exactly when,
//!    in well-formed input, a byte starts a character iff it is not a tail:
//!    [`tails_mark_character_starts`] checks every transition of the grammar's minimal
//!    unit machine that does not make an error.
//! 2. **The step table.** From the 12-bit mask of character ends, `STEP_INDEX` picks how
//!    many characters (6 if six end within 12 bytes and none is longer than 2 bytes, else
//!    4 if four end within 12 bytes, else 3) and how many bytes to convert, and `STEPS`
//!    (`SHORT_STEPS` for six) how to shuffle them. [`check_step_table`] enumerates every
//!    sequence of character lengths the grammar allows (the lengths of `UTF8-char`'s
//!    words, read off its unit machine) that covers 12 bytes, and checks the entry of its
//!    mask: the character count, the bytes consumed (also in `STEP_CONSUMED`), and that
//!    each lane of the shuffle takes exactly its character's bytes, last byte first.
//!
//! The `EXPAND_*` tables of the lossy kernel only convert (copy a byte or write U+FFFD,
//! as already decided by the DFA), so there is nothing to prove about them here.

use crate::fast::dfa::is_continuation;
use crate::fast::simd::tables::{
    is_short, step_chars, step_consumed, step_id, SHORT_BASE, SHORT_CHARS, SHORT_STEPS, STEPS,
    STEP_CONSUMED, STEP_INDEX,
};

use super::machine::{Role, UnitMachine};

/// Bytes the kernel's end mask covers.
const WINDOW: usize = 12;

/// Checks that, in every well-formed input, a byte starts a character exactly when it is
/// not a tail. Returns the first offending `(state label, byte)`.
pub fn tails_mark_character_starts(units: &UnitMachine) -> Result<(), String> {
    for state in 0..units.state_count() {
        for byte in 0..=255u8 {
            let (_, action) = units.step(state, byte);
            if action.closes_error || action.role == Role::ErrorAlone {
                continue;
            }
            let starts_char = state == 0;
            if starts_char == is_continuation(byte) {
                return Err(format!(
                    "in state '{}' byte {byte:02X} {} a character",
                    units.label(state),
                    if starts_char { "starts" } else { "continues" }
                ));
            }
        }
    }
    Ok(())
}

/// The lengths of well-formed characters: the numbers of bytes from the boundary back to
/// it without an error, up to 8.
pub fn char_lengths(units: &UnitMachine) -> Vec<usize> {
    let mut lengths = Vec::new();
    // Breadth-first by depth over the states inside a character.
    let mut frontier = vec![0usize];
    for depth in 1..=8 {
        let mut next_frontier = Vec::new();
        let mut ends = false;
        for &state in &frontier {
            for byte in 0..=255u8 {
                let (target, action) = units.step(state, byte);
                match (action.closes_error, action.role) {
                    (false, Role::EndsChar) => ends = true,
                    (false, Role::Pending) if !next_frontier.contains(&target) => {
                        next_frontier.push(target)
                    }
                    _ => {}
                }
            }
        }
        if ends {
            lengths.push(depth);
        }
        frontier = next_frontier;
    }
    lengths
}

/// Checks `STEP_INDEX`, `STEP_CONSUMED` and `STEPS` for every sequence of character
/// lengths in `lengths` covering 12 bytes; returns how many sequences were checked.
pub fn check_step_table(lengths: &[usize]) -> Result<usize, String> {
    let mut checked = 0;
    let mut sequence = Vec::new();
    check_sequences(lengths, &mut sequence, 0, &mut checked)?;
    Ok(checked)
}

fn check_sequences(
    lengths: &[usize],
    sequence: &mut Vec<usize>,
    covered: usize,
    checked: &mut usize,
) -> Result<(), String> {
    if covered >= WINDOW {
        *checked += 1;
        return check_one(sequence);
    }
    for &length in lengths {
        sequence.push(length);
        check_sequences(lengths, sequence, covered + length, checked)?;
        sequence.pop();
    }
    Ok(())
}

/// One sequence: the characters' lengths, in order, covering at least 12 bytes.
fn check_one(sequence: &[usize]) -> Result<(), String> {
    let mut mask = 0usize;
    let mut end = 0;
    let mut ends = Vec::new();
    for &length in sequence {
        end += length;
        if end <= WINDOW {
            mask |= 1 << (end - 1);
            ends.push(end);
        }
    }
    if ends.len() < 3 {
        return Err(format!(
            "lengths {sequence:?}: fewer than 3 characters end within {WINDOW} bytes"
        ));
    }
    let short = ends.len() >= SHORT_CHARS && sequence[..SHORT_CHARS].iter().all(|&l| l <= 2);
    let chars = if short {
        SHORT_CHARS
    } else if ends.len() >= 4 {
        4
    } else {
        3
    };
    let consumed = ends[chars - 1];
    let entry = STEP_INDEX[mask];
    let found = (
        step_chars(entry),
        step_consumed(entry),
        STEP_CONSUMED[mask] as usize,
    );
    if found != (chars, consumed, consumed) {
        return Err(format!(
            "lengths {sequence:?} (end mask {mask:03X}): the table converts {} characters \
             over {} bytes (STEP_CONSUMED {}), the grammar says {chars} over {consumed}",
            found.0, found.1, found.2
        ));
    }
    if is_short(entry) != short {
        return Err(format!(
            "lengths {sequence:?} (end mask {mask:03X}): short step {}, the grammar says {short}",
            is_short(entry)
        ));
    }
    // The shuffle, lane by lane (a short step's two halves in order).
    let shuffle: Vec<u8> = if short {
        SHORT_STEPS[step_id(entry) - SHORT_BASE as usize]
            .shuffle
            .concat()
    } else {
        STEPS[step_id(entry)].shuffle.to_vec()
    };
    let mut start = 0;
    for (k, &length) in sequence[..chars].iter().enumerate() {
        let lane = &shuffle[4 * k..4 * k + 4];
        let expected: Vec<u8> = (0..4)
            .map(|j| {
                if j < length {
                    (start + length - 1 - j) as u8
                } else {
                    0x80
                }
            })
            .collect();
        if lane != expected.as_slice() {
            return Err(format!(
                "lengths {sequence:?}: lane {k} shuffles {lane:02X?}, not {expected:02X?}"
            ));
        }
        start += length;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::grammar::Grammar;
    use super::*;

    #[test]
    fn the_kernel_decisions_follow_the_grammar() {
        let grammar = Grammar::rfc3629().unwrap();
        assert_eq!(tails_mark_character_starts(&grammar.units), Ok(()));
        let lengths = char_lengths(&grammar.units);
        assert_eq!(lengths, [1, 2, 3, 4]);
        let checked = check_step_table(&lengths).unwrap();
        // Sequences of 1..4-byte characters reaching 12 bytes.
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn a_wrong_length_set_is_caught() {
        // If 5-byte characters existed, a mask with a 5-byte gap would need a step.
        assert!(check_step_table(&[5, 1]).is_err());
    }
}
