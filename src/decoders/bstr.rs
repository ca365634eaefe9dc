//! bstr as a decoder: `ByteSlice::to_str` for the strict verdict, `to_str_lossy_into` for
//! the scalars and a `bstr::decode_utf8` loop for the error units.
//!
//! bstr documents that it substitutes "maximal subparts" (Unicode §3.9) like std and
//! encoding_rs, and `decode_utf8` returns `(None, n)` with `n` the length of the invalid
//! sequence at the front of its input, so stepping by `n` enumerates bstr's own error units.

use std::cell::RefCell;

use bstr::ByteSlice;

use super::{push_scalars, reset_outcome, reuse_errors, reuse_scalars, Capabilities, Decoder};
use crate::outcome::{DecoderFailure, ErrorLen, ErrorUnit, Outcome};

/// The locked bstr version, recorded by the build script.
pub const VERSION: &str = env!("UTF8CONF_VERSION_bstr");

/// bstr: `to_str` + `to_str_lossy_into` + `decode_utf8`.
pub struct BstrDecoder;

thread_local! {
    /// The lossy output buffer, reused from input to input.
    static LOSSY: RefCell<String> = const { RefCell::new(String::new()) };
}

impl Decoder for BstrDecoder {
    fn name(&self) -> &str {
        "bstr"
    }

    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn description(&self) -> &str {
        "bstr ByteSlice::to_str (strict), to_str_lossy_into (scalars), decode_utf8 loop (error units)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, self.name());
        if let Err(error) = input.to_str() {
            outcome.set_first_error(error.valid_up_to(), ErrorLen::from_std(error.error_len()));
        }
        let mut scalars = reuse_scalars(outcome);
        LOSSY.with(|lossy| {
            let mut lossy = lossy.borrow_mut();
            lossy.clear();
            input.to_str_lossy_into(&mut lossy);
            push_scalars(&mut scalars, &lossy);
        });
        outcome.scalars = Some(scalars);
        let mut errors = reuse_errors(outcome);
        let mut offset = 0;
        while offset < input.len() {
            let (decoded, len) = bstr::decode_utf8(&input[offset..]);
            if decoded.is_none() {
                errors.push(ErrorUnit {
                    offset,
                    len,
                    category: None,
                });
            }
            offset += len.max(1);
        }
        outcome.errors = Some(errors);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_strict_lossy_and_units() {
        let input = [0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62];
        let outcome = BstrDecoder.decode(&input).unwrap();
        assert_eq!(outcome.valid_up_to, Some(1));
        assert_eq!(outcome.error_len, Some(ErrorLen::Invalid(3)));
        assert_eq!(
            outcome.scalars,
            Some(vec![0x61, 0xFFFD, 0xFFFD, 0xFFFD, 0x62])
        );
        let units: Vec<(usize, usize)> = outcome
            .errors
            .unwrap()
            .iter()
            .map(|unit| (unit.offset, unit.len))
            .collect();
        assert_eq!(units, vec![(1, 3), (4, 2), (6, 1)]);
    }
}
