//! Conditions beyond the machine, learned as machines of their own.
//!
//! The short-word machine of [`crate::model`] does not predict a departure that needs its
//! bytes at some offset: a block-based path that mishandles a lead on a block's last
//! byte, a sequence that a block ends inside of, an off-by-one past byte 64. The
//! rule-based diagnosis names such a departure with the condition it shows under
//! ([`super::position`]), but it reads the departure off one witness at a time, so one
//! mechanism seen on two witnesses (`F5`, and `F5 9E`, on a block's last byte) could be
//! two findings with two titles.
//!
//! Here the decoder's machine is learned again with every query placed at the
//! condition's offset: filler before it, and the filler's share taken off the answer
//! ([`Placed`]). That is the path under the condition as a machine of its own. Its
//! differences from RFC 3629's machine that the unplaced machine does not have are the
//! condition's findings, one per mechanism as everywhere else; a rule-based finding whose
//! witness this machine predicts, through one of its differences, is one of them.

use serde::Serialize;

use super::position::FILLER;
use crate::decoders::reference::ReferenceDecoder;
use crate::decoders::{Capabilities, Decoder};
use crate::finding::PositionCondition;
use crate::model::difference::agree;
use crate::model::learner::Limits;
use crate::model::oracle::Oracle;
use crate::model::{model_report, ModelReport};
use crate::outcome::{Answer, DecoderFailure, Outcome};

/// A condition learned as a machine of its own, as the report shows it: the condition,
/// the filler its queries were placed after, and that machine's report (its witnesses
/// with the filler, as the decoder was asked them).
#[derive(Debug, Clone, Serialize)]
pub struct ConditionModel {
    /// The condition.
    pub condition: PositionCondition,
    /// Bytes of filler before every query.
    pub placed_at: usize,
    /// The machine under the condition, its differences and findings.
    pub model: ModelReport,
}

/// Where a condition's machine is learned: the offset its queries start at, or `None`
/// where the unplaced machine is already that path (at the start of the input, in short
/// inputs).
pub fn offset_of(condition: PositionCondition) -> Option<usize> {
    match condition {
        PositionCondition::AtOrPast { offset } => Some(offset),
        PositionCondition::InBlock { first, .. } => Some(first),
        // Three bytes before the boundary: every unit that crosses it (a 4-byte one from
        // there, a 2-byte one from its last byte) starts within the machine's first steps.
        PositionCondition::AcrossBlockBoundary { block } => Some(block - 3),
        // Every query then makes an input longer than `len`, whatever its own length.
        PositionCondition::InputLongerThan { len } => Some(len),
        PositionCondition::AtStart | PositionCondition::InputShorterThan { .. } => None,
    }
    .filter(|&offset| offset > 0)
}

/// `decoder` with `offset` filler bytes before every input, its answer read as if the
/// input had started where the filler ends: `valid_up_to` and the error units moved back
/// by the filler, and the filler's scalars taken off the front.
pub struct Placed<'a> {
    decoder: &'a dyn Decoder,
    offset: usize,
}

impl<'a> Placed<'a> {
    /// `decoder`, queried at `offset`.
    pub fn new(decoder: &'a dyn Decoder, offset: usize) -> Self {
        Placed { decoder, offset }
    }

    /// `input` with the filler before it.
    pub fn placed(&self, input: &[u8]) -> Vec<u8> {
        let mut placed = vec![FILLER; self.offset];
        placed.extend_from_slice(input);
        placed
    }

    fn unplace(&self, outcome: &mut Outcome) {
        if let Some(at) = outcome.valid_up_to.as_mut() {
            *at = at.saturating_sub(self.offset);
        }
        if let Some(scalars) = outcome.scalars.as_mut() {
            let filler = scalars
                .iter()
                .take(self.offset)
                .take_while(|&&scalar| scalar == u32::from(FILLER))
                .count();
            scalars.drain(..filler);
        }
        for unit in outcome.errors.iter_mut().flatten() {
            unit.offset = unit.offset.saturating_sub(self.offset);
        }
    }
}

impl Decoder for Placed<'_> {
    fn name(&self) -> &str {
        self.decoder.name()
    }

    fn version(&self) -> String {
        self.decoder.version()
    }

    fn description(&self) -> &str {
        self.decoder.description()
    }

    fn capabilities(&self) -> Capabilities {
        self.decoder.capabilities()
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        self.decoder.decode_into(&self.placed(input), outcome)?;
        self.unplace(outcome);
        Ok(())
    }

    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Answer> {
        let placed: Vec<Vec<u8>> = inputs.iter().map(|input| self.placed(input)).collect();
        let placed: Vec<&[u8]> = placed.iter().map(Vec::as_slice).collect();
        let mut answers = self.decoder.decode_batch(&placed);
        for outcome in answers.iter_mut().flatten() {
            self.unplace(outcome);
        }
        answers
    }
}

/// The machine of `decoder` at `offset`, when it is complete and has findings the
/// unplaced machine `everywhere` does not (by title: the same mechanism at every offset
/// is already reported).
pub fn learned_at(
    decoder: &dyn Decoder,
    offset: usize,
    everywhere: &ModelReport,
) -> Option<ModelReport> {
    let report = model_report(&Placed::new(decoder, offset), Limits::default()).ok()?;
    let new = report.findings.iter().any(|found| {
        !everywhere
            .findings
            .iter()
            .any(|known| known.title == found.title)
    });
    (report.model.incomplete.is_none() && new).then_some(report)
}

/// Where a finding of a condition's machine shows: its witness (the filler before it
/// taken off) moved through the placements of [`super::position::candidates`], asking
/// whether the decoder's step at the witness's last byte, the byte its title names,
/// departs from the reference's there. The offsets are that byte's.
pub fn where_it_shows(
    decoder: &dyn Decoder,
    capabilities: Capabilities,
    witness: &[u8],
) -> Option<PositionCondition> {
    let start = super::position::leading_filler(witness);
    let core = witness.get(start..).filter(|core| !core.is_empty())?;
    let placements = super::position::candidates(core);
    let mut ours = Oracle::new(decoder, capabilities);
    let mut theirs = Oracle::new(&ReferenceDecoder, capabilities);
    ours.prefetch(placements.iter().map(Vec::as_slice));
    let shows: Vec<bool> = placements
        .iter()
        .enumerate()
        .map(|(index, input)| {
            // The departing byte: the core's last, wherever the placement put the core.
            let at = super::position::core_start(index) + core.len() - 1;
            let (d, r) = (ours.outputs(input), theirs.outputs(input));
            !agree(d[at], r[at])
        })
        .collect();
    super::position::condition(&shows, core.len(), core.len() - 1, 1)
}

/// What a condition's machine, learned at `offset`, is asked of a witness of the decoder
/// itself: the witness without the filler that puts it under the condition. Under a
/// length condition that is all its leading filler, however long (the machine's filler
/// makes any word long enough); under an offset, exactly the offset's filler.
pub fn under_condition(
    condition: PositionCondition,
    offset: usize,
    witness: &[u8],
) -> Option<&[u8]> {
    match condition {
        PositionCondition::InputLongerThan { len } if witness.len() > len => {
            Some(&witness[super::position::leading_filler(witness)..])
        }
        _ => witness.strip_prefix(&vec![FILLER; offset][..]),
    }
}

/// `report` with the filler before every witness that puts it under `condition` (its
/// machine learned at `offset`): the inputs that show its differences on the decoder
/// itself. Under a length condition, just enough filler to make the input one byte
/// longer than the bound.
pub fn with_filler(
    mut report: ModelReport,
    condition: PositionCondition,
    offset: usize,
) -> ModelReport {
    let filler = |witness: &mut Vec<u8>| {
        let count = match condition {
            PositionCondition::InputLongerThan { len } => (len + 1).saturating_sub(witness.len()),
            _ => offset,
        };
        witness.splice(0..0, std::iter::repeat_n(FILLER, count));
    };
    report
        .findings
        .iter_mut()
        .for_each(|f| filler(&mut f.witness));
    report
        .differences
        .iter_mut()
        .for_each(|d| filler(&mut d.witness));
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoders::reference::ReferenceDecoder;

    #[test]
    fn a_placed_decoder_answers_as_if_the_input_started_after_the_filler() {
        let placed = Placed::new(&ReferenceDecoder, 63);
        let outcome = placed.decode(&[0x41, 0xFF]).unwrap();
        assert_eq!(outcome.valid_up_to, Some(1));
        assert_eq!(outcome.scalars, Some(vec![0x41, 0xFFFD]));
        let batch = placed.decode_batch(&[&[0xC2][..], &[0x42][..]]);
        assert_eq!(batch[0].as_ref().unwrap().valid_up_to, Some(0));
        assert_eq!(batch[1].as_ref().unwrap().scalars, Some(vec![0x42]));
    }

    #[test]
    fn conditions_at_the_start_or_in_short_inputs_have_no_offset_of_their_own() {
        assert_eq!(offset_of(PositionCondition::AtStart), None);
        assert_eq!(
            offset_of(PositionCondition::InputShorterThan { len: 16 }),
            None
        );
        assert_eq!(
            offset_of(PositionCondition::InBlock {
                block: 64,
                first: 63,
                last: 63
            }),
            Some(63)
        );
        assert_eq!(
            offset_of(PositionCondition::AcrossBlockBoundary { block: 32 }),
            Some(29)
        );
    }

    /// Under a length condition a witness is asked without all its leading filler (the
    /// machine's own filler makes any word long enough), and shown with just enough of
    /// it; under an offset, with exactly the offset's filler.
    #[test]
    fn a_length_condition_takes_and_gives_as_much_filler_as_the_length_needs() {
        let long = PositionCondition::InputLongerThan { len: 200 };
        assert_eq!(offset_of(long), Some(200));
        let mut witness = vec![FILLER; 198];
        witness.extend_from_slice(&[0xED, 0xA0, 0x80]);
        assert_eq!(
            under_condition(long, 200, &witness),
            Some(&[0xED, 0xA0, 0x80][..])
        );
        assert_eq!(under_condition(long, 200, &witness[1..]), None);
        let past = PositionCondition::AtOrPast { offset: 64 };
        assert_eq!(
            under_condition(past, 64, &witness).map(<[u8]>::len),
            Some(137)
        );
    }
}
