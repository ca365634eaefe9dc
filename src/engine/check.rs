//! One decoder against the reference on one input: decode (contained), compare, and name
//! the departure by its signature.
//!
//! The run loop, the minimiser and `utf8conf reproduce` all ask this same question, so it
//! is answered in one place: a report reproduces exactly when [`PairChecker::signature`]
//! gives the report's signature again.

use crate::decoders::{Capabilities, Decoder};
use crate::outcome::Outcome;
use crate::reference::{Decoded, Reference};

use super::signature::{categorize, Signature};
use crate::aspect::Aspect;
use crate::diagnosis::compare::{agrees, compare, Comparison};
use crate::diagnosis::contain::contained;

/// The name of the oracle in reports (`decoders[0]`).
pub const REFERENCE_NAME: &str = "reference";

/// What one decoder did with one input, compared with the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The aspect-by-aspect comparison.
    pub comparison: Comparison,
    /// When the decoder gave no outcome: why (a panic message, a failure message).
    pub failure: Option<String>,
}

/// Runs `decoder` on `input` into `outcome` (panics contained) and compares the result
/// with the reference's `reference` decode of the same input.
pub fn check_decoder(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    input: &[u8],
    reference: &Decoded,
    outcome: &mut Outcome,
) -> Checked {
    match contained(|| decoder.decode_into(input, outcome)) {
        Ok(Ok(())) => Checked {
            comparison: compare(capabilities, outcome, reference),
            failure: None,
        },
        Ok(Err(failure)) => Checked {
            comparison: Comparison::failure(failure.kind.aspect()),
            failure: Some(failure.message),
        },
        Err(panic_message) => {
            // The decoder may have left the buffer half-written: start it afresh.
            *outcome = Outcome::verdict(decoder.name(), true);
            Checked {
                comparison: Comparison::failure(Aspect::Crash),
                failure: Some(panic_message),
            }
        }
    }
}

/// Runs `decoder` on `input` into `outcome` (panics contained) and answers only whether it
/// departs from the reference's `reference` decode: the question [`check_decoder`] answers
/// with `comparison.primary.is_some()`, asked without building the comparison or keeping a
/// failure message (see [`agrees`]). For screening many decoders per input, as the fuzz
/// targets do; a decoder that departs then goes to [`PairChecker`] for the full account.
pub fn departs(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    input: &[u8],
    reference: &Decoded,
    outcome: &mut Outcome,
) -> bool {
    match contained(|| decoder.decode_into(input, outcome)) {
        Ok(Ok(())) => !agrees(capabilities, outcome, reference),
        Ok(Err(_)) => true,
        Err(_) => {
            // The decoder may have left the buffer half-written: start it afresh.
            *outcome = Outcome::verdict(decoder.name(), true);
            true
        }
    }
}

/// The signature of the departure in `checked`, if there is one.
pub fn signature_of(
    decoder_name: &str,
    input: &[u8],
    reference: &Decoded,
    checked: &Checked,
    outcome: &Outcome,
) -> Option<Signature> {
    let difference = checked.comparison.primary?;
    let outcome = checked.failure.is_none().then_some(outcome);
    Some(Signature {
        reference: REFERENCE_NAME.to_string(),
        decoder: decoder_name.to_string(),
        aspect: difference.aspect,
        categories: categorize(input, reference, outcome, difference),
        shape: difference.shape,
    })
}

/// A reusable checker of one decoder against the reference, for inputs one at a time.
pub struct PairChecker<'a> {
    decoder: &'a dyn Decoder,
    capabilities: Capabilities,
    decoded: Decoded,
    outcome: Outcome,
}

impl<'a> PairChecker<'a> {
    /// A checker for `decoder`.
    pub fn new(decoder: &'a dyn Decoder) -> Self {
        PairChecker {
            decoder,
            capabilities: decoder.capabilities(),
            decoded: Decoded::default(),
            outcome: Outcome::verdict(decoder.name(), true),
        }
    }

    /// Checks `input`, returning the full result.
    pub fn check(&mut self, input: &[u8]) -> Checked {
        Reference::rfc3629().decode_into(input, &mut self.decoded);
        check_decoder(
            self.decoder,
            self.capabilities,
            input,
            &self.decoded,
            &mut self.outcome,
        )
    }

    /// The signature of the departure on `input`, or `None` when the decoder agrees with
    /// the reference on every aspect both report.
    pub fn signature(&mut self, input: &[u8]) -> Option<Signature> {
        let checked = self.check(input);
        signature_of(
            self.decoder.name(),
            input,
            &self.decoded,
            &checked,
            &self.outcome,
        )
    }

    /// The decoder's outcome for the last checked input (meaningless after a failure).
    pub fn last_outcome(&self) -> &Outcome {
        &self.outcome
    }
}
