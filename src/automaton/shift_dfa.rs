//! The fast decoder's shift-DFA table as the decoder runs it, as a unit machine.
//!
//! [`crate::fast::dfa`] decides every error position and unit length with one table,
//! `ROWS`: the state after `byte` in `state` is `ROWS[byte] >> (state & 63) & 63`. The
//! table alone is not the decoder; how `dfa::validate_from`, `dfa::maximal_subpart_len`
//! and the lossy drivers *use* it is part of the behaviour, so the machine built here
//! follows that code step by step:
//!
//! - at a character boundary (state `ACCEPT`) a byte below 0x80 is a whole character
//!   without a table lookup (`validate_from`'s ASCII fast path, `ascii_prefix_len`);
//! - otherwise the table is stepped; reaching `ACCEPT` ends a character;
//! - reaching `REJECT` is an error: the unit is the bytes consumed since the last
//!   `ACCEPT`, or the failing byte alone when there are none (`maximal_subpart_len`
//!   returns `consumed.max(1)`), and decoding restarts right after the unit
//!   (`decode_lossy_into`: `valid_up_to + error_len`), so a failing byte that was not
//!   alone is read again from `ACCEPT`;
//! - input ending in any other state is an incomplete unit (`Utf8Error::new(start,
//!   None)`).
//!
//! Any 6-bit state value a (possibly corrupted) table produces is followed, exactly as
//! the shift would; nothing assumes the table has the nine states it should.

use crate::fast::dfa::{ACCEPT, REJECT};

use super::machine::{explore, Action, EndAction, Role, UnitMachine};

/// The unit machine of the shift-DFA `rows` driven as `crate::fast::dfa` drives it.
pub fn unit_machine(rows: &[u64; 256]) -> UnitMachine {
    let step = |state: u8, byte: u8| ((rows[byte as usize] >> state) & 63) as u8;
    let accept = ACCEPT as u8;
    let reject = REJECT as u8;
    // A byte read at a character boundary: the ASCII fast path, else one table step.
    let at_boundary = |byte: u8| -> (Role, u8) {
        if byte < 0x80 {
            return (Role::EndsChar, accept);
        }
        match step(accept, byte) {
            next if next == accept => (Role::EndsChar, accept),
            next if next == reject => (Role::ErrorAlone, accept),
            next => (Role::Pending, next),
        }
    };
    explore(
        accept,
        64,
        |&state, byte| {
            if state == accept {
                let (role, next) = at_boundary(byte);
                return (
                    Action {
                        closes_error: false,
                        role,
                    },
                    next,
                );
            }
            match step(state, byte) {
                next if next == accept => (
                    Action {
                        closes_error: false,
                        role: Role::EndsChar,
                    },
                    accept,
                ),
                next if next == reject => {
                    let (role, next) = at_boundary(byte);
                    (
                        Action {
                            closes_error: true,
                            role,
                        },
                        next,
                    )
                }
                next => (
                    Action {
                        closes_error: false,
                        role: Role::Pending,
                    },
                    next,
                ),
            }
        },
        |&state| {
            if state == accept {
                EndAction::Clean
            } else {
                EndAction::Incomplete
            }
        },
        |&state| state_name(state),
    )
    .expect("a 6-bit state has at most 64 values")
}

/// The name of a state of `crate::fast::dfa`, or its bit offset.
fn state_name(state: u8) -> String {
    use crate::fast::dfa::*;
    let name = match u64::from(state) {
        REJECT => "REJECT",
        ACCEPT => "ACCEPT",
        TAIL1 => "TAIL1",
        TAIL2 => "TAIL2",
        TAIL3 => "TAIL3",
        AFTER_E0 => "AFTER_E0",
        AFTER_ED => "AFTER_ED",
        AFTER_F0 => "AFTER_F0",
        AFTER_F4 => "AFTER_F4",
        _ => return format!("state {state}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::super::machine::{units, UnitKind};
    use super::*;
    use crate::corpus::exhaustive::EDGE_ALPHABET;
    use crate::fast::dfa;

    /// The machine is a faithful model of the code: its first error is what
    /// `dfa::validate` returns and its error count is the U+FFFD count of
    /// `dfa::decode_lossy_into`, on every input of up to 2 bytes and every input of 3
    /// and 4 bytes over the class boundary bytes.
    #[test]
    fn machine_models_the_decoder_code() {
        let machine = unit_machine(&dfa::ROWS);
        let check = |input: &[u8]| {
            let found = units(&machine, input);
            let first = found.iter().find(|unit| unit.kind != UnitKind::Char);
            let expected = dfa::validate(input).map_err(|e| (e.valid_up_to(), e.error_len()));
            let modelled = match first {
                None => Ok(()),
                Some(unit) => Err((
                    unit.offset,
                    (unit.kind == UnitKind::Error).then_some(unit.len),
                )),
            };
            assert_eq!(modelled, expected, "{input:02X?}");
            let mut lossy = String::new();
            dfa::decode_lossy_into(input, &mut lossy);
            let replacements = lossy.chars().filter(|&c| c == '\u{FFFD}').count();
            let errors = found.iter().filter(|u| u.kind != UnitKind::Char).count();
            assert_eq!(errors, replacements, "{input:02X?}");
        };
        check(&[]);
        for a in 0..=255u8 {
            check(&[a]);
            for b in 0..=255u8 {
                check(&[a, b]);
            }
        }
        for &a in &EDGE_ALPHABET {
            for &b in &EDGE_ALPHABET {
                for &c in &EDGE_ALPHABET {
                    check(&[a, b, c]);
                    for &d in &EDGE_ALPHABET {
                        check(&[a, b, c, d]);
                    }
                }
            }
        }
    }

    #[test]
    fn the_real_table_has_nine_states_and_eight_are_reached() {
        // REJECT is never a state of the unit machine: errors restart at ACCEPT.
        let machine = unit_machine(&dfa::ROWS);
        assert_eq!(machine.state_count(), 8);
        assert_eq!(machine.label(0), "ACCEPT");
    }
}
