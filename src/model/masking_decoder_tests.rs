//! Decoders written as two JavaScript libraries write them: the lead byte says how many
//! bytes follow, each following byte is masked with `0x3F` whatever it is, a byte past
//! the end reads as 0, and no error is ever reported. Taking a letter or a lead byte in
//! as a continuation byte is one missing check, whatever the lead before it was to the
//! grammar (`C0`, `E0`, `F8`) and whatever value the sequence then had: one finding,
//! not one per lead and value.

use super::learner::Limits;
use super::{compare_with, reference_machine};
use crate::automaton::grammar::Grammar;
use crate::decoders::{self, Capabilities, Decoder};
use crate::outcome::{DecoderFailure, Outcome, REPLACEMENT};

/// Which library's reading.
#[derive(Clone, Copy)]
enum Masking {
    /// protobuf.js `utf8.read`: `C0..DF` 2-byte, `E0..EF` 3-byte, `F0..FF` 4-byte leads
    /// (`t & 7`); U+FFFD where the value is below the length's least (an overlong form)
    /// or above U+10FFFF; `80..BF` at a character boundary dropped; surrogates kept.
    Protobuf,
    /// msgpack-javascript `utf8DecodeJs`: leads by `& 0xE0 == 0xC0` and so on, no value
    /// check at all, any other byte (`80..BF`, `F8..FF`) its own value.
    Msgpack,
}

impl Masking {
    fn scalars(self, input: &[u8]) -> Vec<u32> {
        let at = |i: usize| u32::from(input.get(i).copied().unwrap_or(0) & 0x3F);
        let (mut out, mut i) = (Vec::new(), 0);
        while i < input.len() {
            let lead = u32::from(input[i]);
            let (more, bits, least) = match (self, lead) {
                (_, 0x00..=0x7F) => (0, lead, 0),
                (Masking::Protobuf, 0x80..=0xBF) => {
                    i += 1;
                    continue;
                }
                (Masking::Msgpack, 0x80..=0xBF | 0xF8..=0xFF) => (0, lead, 0),
                (_, 0xC0..=0xDF) => (1, lead & 0x1F, 0x80),
                (_, 0xE0..=0xEF) => (2, lead & 0x0F, 0x800),
                (_, _) => (3, lead & 0x07, 0x1_0000),
            };
            let value = (1..=more).fold(bits, |value, k| value << 6 | at(i + k));
            let checked =
                matches!(self, Masking::Msgpack) || (value >= least && value <= 0x10_FFFF);
            out.push(match (checked, self) {
                (true, Masking::Msgpack) if value > 0x10_FFFF => 0x1_0000 | (value & 0x3FF),
                (true, _) => value,
                (false, _) => REPLACEMENT,
            });
            i += 1 + more;
        }
        out
    }
}

impl Decoder for Masking {
    fn name(&self) -> &str {
        match self {
            Masking::Protobuf => "masking-protobuf",
            Masking::Msgpack => "masking-msgpack",
        }
    }
    fn version(&self) -> String {
        String::new()
    }
    fn description(&self) -> &str {
        "a test decoder that masks every byte after a lead"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::SCALARS
    }
    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        decoders::reset_outcome(outcome, self.name());
        outcome.errors = None;
        outcome.scalars = Some(self.scalars(input));
        Ok(())
    }
}

fn findings(decoder: Masking) -> Vec<super::mechanism::Finding> {
    let grammar = Grammar::rfc3629().expect("the grammar parses");
    let reference = reference_machine(decoder.capabilities(), &grammar);
    compare_with(&decoder, reference, &grammar, Limits::default()).findings
}

/// Asserts that `decoder` gives `expected` findings, and one of them is witnessed by a
/// lead byte and a byte that is no continuation byte: the bytes taken in.
fn one_taken_in(decoder: Masking, expected: usize) {
    let found = findings(decoder);
    let titles: Vec<&str> = found.iter().map(|f| f.title.as_str()).collect();
    let taken_in = found
        .iter()
        .filter(|f| match f.witness[..] {
            [.., lead, last] => lead >= 0xC0 && !(0x80..=0xBF).contains(&last),
            _ => false,
        })
        .count();
    assert_eq!(found.len(), expected, "{titles:#?}");
    assert_eq!(taken_in, 1, "{titles:#?}");
}

/// Never reports; the missing continuation check; stray `80..BF` dropped; a lead at the
/// end read with zeros; `F8..FF` as 4-byte leads; surrogates kept: six, not nine (the
/// continuation check once for `C0 41`, `E0 41`, `C2 C2` and `F9 41`).
#[test]
fn a_byte_taken_in_after_any_lead_is_one_finding_when_the_value_is_checked() {
    one_taken_in(Masking::Protobuf, 6);
}

/// Never reports; the missing continuation check; own values for `80..BF` and
/// `F8..FF`; a lead at the end read with zeros; overlong forms, surrogates and values
/// above U+10FFFF each decoded: seven (the continuation check once for `C0 C2` and
/// `C2 C2`, and no finding for the value `E0 E0 90` has only because `E0` was taken in).
#[test]
fn a_byte_taken_in_after_any_lead_is_one_finding_when_nothing_is_checked() {
    one_taken_in(Masking::Msgpack, 7);
}
