//! Position dependence: does a departure need its bytes at a particular place?
//!
//! A decoder with a block-based fast path (16-, 32- or 64-byte vectors) or an off-by-one in
//! a length check may depart only when an error sits past some offset, straddles a block
//! boundary, or only in short inputs. The minimiser keeps such a condition in the witness
//! (it cannot remove the padding that puts the error at offset 64) but does not say it.
//! So the witness is stripped of its `A` filler around the root-cause unit to its *core*,
//! and the core is moved: padded with `A` before it (every offset from 0 to 130, which
//! covers each offset within a 16-, 32- and 64-byte block, twice over) and after it (total
//! lengths up to 70 bytes). The pattern of where the departure shows names the condition.

use super::{diagnose_input, same_kind, Diagnosis};
use crate::decoders::Capabilities;
use crate::finding::{DecoderAction, PositionCondition};
use crate::outcome::Answer;

/// The filler byte used for padding (also the minimiser's filler).
pub const FILLER: u8 = b'A';
/// Offsets tried before the core: 0..=MAX_SHIFT.
const MAX_SHIFT: usize = 130;
/// Bytes of padding tried after the core: 0..=MAX_TAIL.
const MAX_TAIL: usize = 70;
/// Block sizes a SIMD or word-at-a-time decoder commonly uses.
const BLOCKS: [usize; 3] = [16, 32, 64];

/// Where the departure `diagnosis` of `bytes` shows: its core moved through the
/// candidate placements, each diagnosed again. `None` when it shows everywhere (or the
/// departure is about the whole input: a BOM, a failure).
pub fn probe<E>(
    bytes: &[u8],
    diagnosis: &Diagnosis,
    capabilities: Capabilities,
    decode: &mut impl FnMut(&[Vec<u8>]) -> Result<Vec<Answer>, E>,
) -> Result<Option<PositionCondition>, E> {
    let action = &diagnosis.cause.decoder_does;
    if matches!(action, DecoderAction::StripsBom | DecoderAction::Fails) {
        return Ok(None);
    }
    let unit = &diagnosis.cause.unit;
    let (mut core, unit_offset) = core_of(bytes, unit.offset, unit.len.max(1));
    let mut verdicts = |inputs: &[Vec<u8>]| -> Result<Vec<bool>, E> {
        let answers = decode(inputs)?;
        Ok(inputs
            .iter()
            .zip(&answers)
            .map(|(c, a)| same_kind(diagnose_input(c, a, capabilities).as_ref(), diagnosis))
            .collect())
    };
    let mut shows = verdicts(&candidates(&core))?;
    if !shows.iter().any(|&s| s) {
        // A witness longer than the candidates reach may need its length or offset.
        if bytes.len() > MAX_SHIFT + core.len() {
            if let Some(found) = beyond_reach(&core, unit_offset, bytes.len(), &mut verdicts)? {
                return Ok(Some(found));
            }
        }
        // The filler after the unit may be what the decoder takes with it (an unchecked
        // continuation byte that is an `A`): a core that never shows keeps it.
        core = core_with_tail(bytes, unit.offset);
        shows = verdicts(&candidates(&core))?;
    }
    match condition(&shows, core.len(), unit_offset, unit.len.max(1)) {
        // Shows once enough filler is before the core: from that offset on, or in inputs
        // that long, wherever the unit is.
        Some(PositionCondition::AtOrPast { offset }) => {
            length_or_offset(&core, unit_offset, offset - unit_offset, &mut verdicts)
        }
        other => Ok(other),
    }
}

/// Whether the departure shows on the one input `input`.
fn shows_on<E>(
    shows: &mut impl FnMut(&[Vec<u8>]) -> Result<Vec<bool>, E>,
    input: Vec<u8>,
) -> Result<bool, E> {
    Ok(shows(&[input])?.first() == Some(&true))
}

/// The condition of a departure that shows with `filler` bytes of filler before `core`
/// and not with fewer: the same total length with the filler after the core instead
/// tells a second path for long inputs from an offset.
fn length_or_offset<E>(
    core: &[u8],
    unit_offset: usize,
    filler: usize,
    shows: &mut impl FnMut(&[Vec<u8>]) -> Result<Vec<bool>, E>,
) -> Result<Option<PositionCondition>, E> {
    Ok(Some(if shows_on(shows, padded(core, filler))? {
        PositionCondition::InputLongerThan {
            len: filler + core.len() - 1,
        }
    } else {
        PositionCondition::AtOrPast {
            offset: filler + unit_offset,
        }
    }))
}

/// The condition of a departure that shows on its witness but at none of the
/// candidates, which the witness is longer than: a second path for long inputs, or an
/// offset past the candidates' reach. The shortest filler before the core at which it
/// shows is found by bisection between the candidates' reach and the witness's length
/// (a path that starts at some length or offset stays on past it); the same total length
/// with the filler after the core instead tells a length from an offset.
fn beyond_reach<E>(
    core: &[u8],
    unit_offset: usize,
    witness_len: usize,
    shows: &mut impl FnMut(&[Vec<u8>]) -> Result<Vec<bool>, E>,
) -> Result<Option<PositionCondition>, E> {
    let (mut absent, mut present) = (MAX_SHIFT, witness_len - core.len());
    if !shows_on(shows, shifted(core, present))? {
        return Ok(None);
    }
    while present - absent > 1 {
        let mid = absent + (present - absent) / 2;
        if shows_on(shows, shifted(core, mid))? {
            present = mid;
        } else {
            absent = mid;
        }
    }
    length_or_offset(core, unit_offset, present, shows)
}

/// The witness stripped of leading and trailing filler around the unit at `unit_offset`
/// (`unit_len` bytes): the core, and the unit's offset in it.
pub fn core_of(witness: &[u8], unit_offset: usize, unit_len: usize) -> (Vec<u8>, usize) {
    let unit_offset = unit_offset.min(witness.len());
    let lead = leading_filler(&witness[..unit_offset]);
    let end = (unit_offset + unit_len).min(witness.len());
    let trail = witness[end..]
        .iter()
        .rev()
        .take_while(|&&b| b == FILLER)
        .count();
    (
        witness[lead..witness.len() - trail].to_vec(),
        unit_offset - lead,
    )
}

/// The witness stripped of the leading filler before the unit at `unit_offset` only: the
/// core for a departure that needs the filler after its unit. The unit's offset in it is
/// the same as in [`core_of`]'s.
pub fn core_with_tail(witness: &[u8], unit_offset: usize) -> Vec<u8> {
    let unit_offset = unit_offset.min(witness.len());
    witness[leading_filler(&witness[..unit_offset])..].to_vec()
}

/// How many filler bytes start `bytes`.
pub fn leading_filler(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| b == FILLER).count()
}

/// `core` after `filler` bytes of filler: the core moved to that offset.
fn shifted(core: &[u8], filler: usize) -> Vec<u8> {
    let mut input = vec![FILLER; filler];
    input.extend_from_slice(core);
    input
}

/// `core` followed by `filler` bytes of filler: the input made longer, the core where it
/// was.
fn padded(core: &[u8], filler: usize) -> Vec<u8> {
    let mut input = core.to_vec();
    input.resize(core.len() + filler, FILLER);
    input
}

/// The candidate inputs of a probe: the core shifted by 0..=MAX_SHIFT, then the core with
/// 0..=MAX_TAIL bytes of padding after it.
pub fn candidates(core: &[u8]) -> Vec<Vec<u8>> {
    (0..=MAX_SHIFT)
        .map(|shift| shifted(core, shift))
        .chain((0..=MAX_TAIL).map(|tail| padded(core, tail)))
        .collect()
}

/// Where the core starts in the candidate at `index` of [`candidates`].
pub fn core_start(index: usize) -> usize {
    if index <= MAX_SHIFT {
        index
    } else {
        0
    }
}

/// The condition shown by `shows` (one verdict per input of [`candidates`]), for a core of
/// `core_len` bytes whose root-cause unit is at `unit_offset` and `unit_len` bytes long.
/// `None` when the departure shows everywhere, or in no pattern this knows.
pub fn condition(
    shows: &[bool],
    core_len: usize,
    unit_offset: usize,
    unit_len: usize,
) -> Option<PositionCondition> {
    let (shifted, padded) = shows.split_at(MAX_SHIFT + 1);
    if shifted.iter().all(|&s| s) && padded.iter().all(|&s| s) {
        return None;
    }
    // Only in short inputs: shows while the total length stays below a bound, both when
    // padding goes before and when it goes after.
    let length_bound = |verdicts: &[bool]| {
        let first_absent = verdicts.iter().position(|&s| !s)?;
        verdicts[first_absent..]
            .iter()
            .all(|&s| !s)
            .then_some(first_absent)
    };
    if let (Some(before), Some(after)) = (length_bound(shifted), length_bound(padded)) {
        if before == after && before > 0 {
            return Some(PositionCondition::InputShorterThan {
                len: core_len + before,
            });
        }
    }
    // Only from some offset on.
    if let Some(first) = shifted.iter().position(|&s| s) {
        if first > 0 && shifted[first..].iter().all(|&s| s) {
            return Some(PositionCondition::AtOrPast {
                offset: first + unit_offset,
            });
        }
    }
    if shifted[0] && shifted[1..].iter().all(|&s| !s) && padded.iter().all(|&s| s) {
        return Some(PositionCondition::AtStart);
    }
    if unit_len > 1 {
        for block in BLOCKS {
            let straddles = |shift: usize| {
                let start = shift + unit_offset;
                start / block != (start + unit_len - 1) / block
            };
            if shifted
                .iter()
                .enumerate()
                .all(|(shift, &s)| s == straddles(shift))
            {
                return Some(PositionCondition::AcrossBlockBoundary { block });
            }
        }
    }
    in_block(shifted, unit_offset)
}

/// The condition of a departure that shows at some offsets of every block and not at
/// others, whatever the unit's length: the shifts repeat with the block's period, and the
/// offsets within a block where it shows are one range. The smallest such block.
fn in_block(shifted: &[bool], unit_offset: usize) -> Option<PositionCondition> {
    BLOCKS.into_iter().find_map(|block| {
        let periodic = (0..shifted.len() - block).all(|s| shifted[s] == shifted[s + block]);
        // Every offset within the block, once: the unit starts at `shift + unit_offset`.
        let shows_at = |offset: usize| {
            let shift = (offset + block - unit_offset % block) % block;
            shifted[shift]
        };
        let at: Vec<usize> = (0..block).filter(|&offset| shows_at(offset)).collect();
        let (&first, &last) = (at.first()?, at.last()?);
        (periodic && at.len() < block && at.len() == last - first + 1)
            .then_some(PositionCondition::InBlock { block, first, last })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdicts(core: &[u8], unit_offset: usize, shows: impl Fn(&[u8]) -> bool) -> Vec<bool> {
        let _ = unit_offset;
        candidates(core).iter().map(|c| shows(c)).collect()
    }

    /// A departure past the candidates' reach: found on its long witness, then placed by
    /// bisection, and told a length from an offset by the filler moved after the core.
    #[test]
    fn places_a_departure_beyond_the_candidates_by_length_or_offset() {
        let core = [0xED, 0xA0, 0x80];
        let mut asked = 0;
        let mut longer_than_200 = |inputs: &[Vec<u8>]| {
            asked += inputs.len();
            Ok::<_, ()>(inputs.iter().map(|i| i.len() > 200).collect())
        };
        assert_eq!(
            beyond_reach(&core, 0, 230, &mut longer_than_200),
            Ok(Some(PositionCondition::InputLongerThan { len: 200 }))
        );
        assert!(asked < 12, "{asked} queries");
        let mut past_256 = |inputs: &[Vec<u8>]| {
            Ok::<_, ()>(
                inputs
                    .iter()
                    .map(|i| i.iter().position(|&b| b == 0xED) >= Some(256))
                    .collect(),
            )
        };
        assert_eq!(
            beyond_reach(&core, 0, 300, &mut past_256),
            Ok(Some(PositionCondition::AtOrPast { offset: 256 }))
        );
        let mut never = |inputs: &[Vec<u8>]| Ok::<_, ()>(vec![false; inputs.len()]);
        assert_eq!(beyond_reach(&core, 0, 300, &mut never), Ok(None));
    }

    #[test]
    fn strips_filler_around_the_unit() {
        let mut witness = vec![FILLER; 64];
        witness.extend_from_slice(&[0xFF, FILLER]);
        assert_eq!(core_of(&witness, 64, 1), (vec![0xFF], 0));
    }

    #[test]
    fn recognises_offsets_blocks_and_short_inputs() {
        let core = [0xFF];
        let past_64 = verdicts(&core, 0, |c| c.iter().position(|&b| b == 0xFF) >= Some(64));
        assert_eq!(
            condition(&past_64, 1, 0, 1),
            Some(PositionCondition::AtOrPast { offset: 64 })
        );
        let everywhere = verdicts(&core, 0, |_| true);
        assert_eq!(condition(&everywhere, 1, 0, 1), None);
        let short = verdicts(&core, 0, |c| c.len() < 16);
        assert_eq!(
            condition(&short, 1, 0, 1),
            Some(PositionCondition::InputShorterThan { len: 16 })
        );
        let at_start = verdicts(&core, 0, |c| c[0] == 0xFF);
        assert_eq!(
            condition(&at_start, 1, 0, 1),
            Some(PositionCondition::AtStart)
        );
        let pair = [0xE2, 0x82, 0xAC];
        let across = verdicts(&pair, 0, |c| {
            let start = c.iter().position(|&b| b == 0xE2).unwrap();
            start / 32 != (start + 2) / 32
        });
        assert_eq!(
            condition(&across, 3, 0, 3),
            Some(PositionCondition::AcrossBlockBoundary { block: 32 })
        );
        // A lead mishandled on the last byte of a 64-byte block, the unit one byte into
        // its core.
        let core = [0x41, 0xFF];
        let last_byte = verdicts(&core, 1, |c| {
            c.iter()
                .position(|&b| b == 0xFF)
                .is_some_and(|at| at % 64 == 63)
        });
        assert_eq!(
            condition(&last_byte, 2, 1, 1),
            Some(PositionCondition::InBlock {
                block: 64,
                first: 63,
                last: 63
            })
        );
        // A 2-byte unit the decoder takes as 3 bytes: it shows where the 3 bytes cross a
        // 32-byte boundary, which the unit's own 2 bytes do not tell.
        let pair = [0xE0, 0xBF, 0x41];
        let longer = verdicts(&pair, 0, |c| {
            let start = c.iter().position(|&b| b == 0xE0).unwrap();
            start / 32 != (start + 2) / 32
        });
        assert_eq!(
            condition(&longer, 3, 0, 2),
            Some(PositionCondition::InBlock {
                block: 32,
                first: 30,
                last: 31
            })
        );
    }
}
