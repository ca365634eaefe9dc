//! Failures that stood: an input whose crash or hang recurred on its retry (or whose
//! answer broke the protocol) is remembered with that failure, and answered from memory
//! when the check asks for it again.
//!
//! A check asks for the same input more than once: the corpus has a few duplicates, and
//! grouping, minimisation and the model decode witnesses and their parts again. Against
//! a decoder that hangs on an input, each of those asks costs two answer timeouts (the
//! call and its retry) and a restart; a library that hangs on `ED A0 80` spent 25 of a
//! check's 28 seconds so. The decoder is deterministic as far as the harness can tell
//! (a failure that did not recur was filed as flaky, not here), so asking again can
//! only lose time.

use std::collections::HashMap;

use crate::outcome::DecoderFailure;

/// Inputs remembered at most; past it, new failures are not remembered (the check
/// goes on as without the memory).
const MAX_REMEMBERED: usize = 4096;
/// Longest input remembered.
const MAX_INPUT_LEN: usize = 4096;

/// The standing failures of one decoder, by input.
#[derive(Debug, Default)]
pub struct StandingFailures {
    by_input: HashMap<Vec<u8>, DecoderFailure>,
}

impl StandingFailures {
    /// Remembers that `input` fails with `failure` (within the bounds above).
    pub fn remember(&mut self, input: &[u8], failure: &DecoderFailure) {
        if self.by_input.len() < MAX_REMEMBERED && input.len() <= MAX_INPUT_LEN {
            self.by_input.insert(input.to_vec(), failure.clone());
        }
    }

    /// The failure `input` stood with, if it did.
    pub fn get(&self, input: &[u8]) -> Option<&DecoderFailure> {
        if self.by_input.is_empty() {
            return None;
        }
        self.by_input.get(input)
    }

    /// The index of the first of `inputs` that stood as a failure; `None` items (inputs
    /// that are never remembered, such as a chunked request) never match.
    pub fn first_in<'a>(
        &self,
        mut inputs: impl Iterator<Item = Option<&'a [u8]>>,
    ) -> Option<usize> {
        if self.by_input.is_empty() {
            return None;
        }
        inputs.position(|input| input.is_some_and(|input| self.by_input.contains_key(input)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::FailureKind;

    fn hang() -> DecoderFailure {
        DecoderFailure {
            kind: FailureKind::Timeout,
            message: "no answer within 1 s".into(),
        }
    }

    #[test]
    fn remembers_within_its_bounds_and_finds_the_first() {
        let mut standing = StandingFailures::default();
        assert_eq!(
            standing.first_in([Some(&b"\xED\xA0\x80"[..])].into_iter()),
            None
        );
        standing.remember(b"\xED\xA0\x80", &hang());
        standing.remember(&vec![0x80; MAX_INPUT_LEN + 1], &hang());
        let inputs: [Option<&[u8]>; 4] = [Some(b"A"), None, Some(b"\xED\xA0\x80"), None];
        assert_eq!(standing.first_in(inputs.into_iter()), Some(2));
        // An input never remembered is not taken for the empty input.
        standing.remember(b"", &hang());
        assert_eq!(
            standing.first_in([None, Some(&b""[..])].into_iter()),
            Some(1)
        );
        assert_eq!(
            standing.get(b"\xED\xA0\x80").unwrap().kind,
            FailureKind::Timeout
        );
        assert!(standing.get(&vec![0x80; MAX_INPUT_LEN + 1]).is_none());
        for n in 0..MAX_REMEMBERED as u32 + 10 {
            standing.remember(&n.to_le_bytes(), &hang());
        }
        assert_eq!(standing.by_input.len(), MAX_REMEMBERED);
    }
}
