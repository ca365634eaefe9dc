//! The planted decoder: a correct walker with [`Bug`]s switched on.
//!
//! The correct walker takes one unit at a time with `bstr::decode_utf8` (one U+FFFD per
//! maximal subpart, Unicode §3.9) and reports `valid`, `valid_up_to`, `error_len` (Rust
//! std's shape) and `scalars`. Before the correct step, a unit may be taken by the bugs:
//! `Planted::accepted` for the original accepting bugs, or `Planted::lenient` for
//! decoders that decode a unit from its lead byte's bit pattern and then ask which
//! departures (an overlong, a surrogate, a value above U+10FFFF, an unchecked continuation
//! byte) their bugs allow. After the walk, the bugs that change one field (the offset,
//! the error length, the replacement policy, the verdict) are applied in turn.

use super::bugs::Bug;
use crate::decoders::{Capabilities, Decoder};
use crate::outcome::{DecoderFailure, ErrorLen, Outcome, REPLACEMENT};
use crate::policy::{expected_scalars, valid_lead_sized_scalars, ReplacementPolicy, Segment};
use crate::taxonomy::{self, Category};

/// A correct decoder with planted bugs, some of which may be switched off (the tests
/// remove one bug at a time to show that it is necessary).
#[derive(Debug, Clone)]
pub struct Planted {
    name: &'static str,
    bugs: &'static [Bug],
    disabled: Vec<Bug>,
}

/// The one or two scalars a lenient unit decodes to.
type Units = ([u32; 2], usize);

/// What a walk over the input found: the first error's true offset (`valid_up_to` may
/// be counted otherwise), and the units it took, each character as the scalars it gave.
struct Walked {
    first_error: Option<usize>,
    units: Vec<Segment>,
}

impl Planted {
    /// The decoder `name` with `bugs`.
    pub fn new(name: &'static str, bugs: &'static [Bug]) -> Self {
        Planted {
            name,
            bugs,
            disabled: Vec::new(),
        }
    }

    /// The same decoder with `off` switched off, wherever they sit (also inside a
    /// [`Bug::When`]).
    pub fn without(&self, off: &[Bug]) -> Self {
        let mut disabled = self.disabled.clone();
        disabled.extend_from_slice(off);
        Planted {
            name: self.name,
            bugs: self.bugs,
            disabled,
        }
    }

    /// Whether `bug` is on for a whole input of `total` bytes.
    fn has_in(&self, bug: Bug, total: usize) -> bool {
        self.on(bug, total, None)
    }

    /// Whether `bug` is on for the unit at `unit` (offset, length) of an input of `total`
    /// bytes: listed directly, or inside a [`Bug::When`] whose gate is open.
    fn on(&self, bug: Bug, total: usize, unit: Option<(usize, usize)>) -> bool {
        !self.disabled.contains(&bug)
            && self.bugs.iter().any(|&listed| match listed {
                Bug::When(gate, inner) => inner.contains(&bug) && gate.open(total, unit),
                other => other == bug,
            })
    }

    /// Every bug listed, with those inside a [`Bug::When`], whatever the gate.
    fn every_bug(&self) -> impl Iterator<Item = Bug> + '_ {
        self.bugs.iter().flat_map(|&listed| match listed {
            Bug::When(_, inner) => inner.to_vec(),
            other => vec![other],
        })
    }

    /// A unit the original accepting bugs take at the start of `rest` (in an input of
    /// `total` bytes): its scalar and length.
    fn accepted(&self, rest: &[u8], total: usize) -> Option<(u32, usize)> {
        let has = |bug| self.has_in(bug, total);
        let cont = |i: usize| rest.get(i).is_some_and(|&b| b & 0xC0 == 0x80);
        let bits = |i: usize| u32::from(rest[i] & 0x3F);
        let lead = *rest.first()?;
        let second = rest.get(1).copied().unwrap_or(0);
        if has(Bug::AcceptsSurrogates) && lead == 0xED && (0xA0..=0xBF).contains(&second) && cont(2)
        {
            return Some((0xD000 | bits(1) << 6 | bits(2), 3));
        }
        let overlong2 = matches!(lead, 0xC0 | 0xC1) && cont(1);
        if overlong2
            && (has(Bug::AcceptsOverlong2)
                || (has(Bug::ShortTailAcceptsC080) && total < 16 && rest[..2] == [0xC0, 0x80]))
        {
            return Some((u32::from(lead & 0x1F) << 6 | bits(1), 2));
        }
        if has(Bug::AcceptsOverlong3) && lead == 0xE0 && (0x80..=0x9F).contains(&second) && cont(2)
        {
            return Some((bits(1) << 6 | bits(2), 3));
        }
        if has(Bug::AcceptsAboveMax)
            && lead == 0xF4
            && (0x90..=0xBF).contains(&second)
            && cont(2)
            && cont(3)
        {
            return Some((0x100000 | bits(1) << 12 | bits(2) << 6 | bits(3), 4));
        }
        if has(Bug::AcceptsFiveByte) && (0xF8..=0xFB).contains(&lead) && (1..5).all(cont) {
            let value = u32::from(lead & 0x03) << 24
                | bits(1) << 18
                | bits(2) << 12
                | bits(3) << 6
                | bits(4);
            return Some((value, 5));
        }
        None
    }

    /// The lenient walker's unit at the start of `rest` (at `offset` of `total` bytes):
    /// the lead byte's bit pattern says how many bytes to take, their payload bits make
    /// a value, and the unit is taken only if every departure it has from RFC 3629 is
    /// allowed by a bug that is on for it. A unit with no departure is left to the
    /// correct walker.
    fn lenient(&self, rest: &[u8], offset: usize, total: usize) -> Option<(Units, usize)> {
        let on = |bug, len| self.on(bug, total, Some((offset, len)));
        let lead = rest[0];
        if lead >= 0xF5 && on(Bug::AcceptsInvalidLead, 1) {
            return Some((([u32::from(lead), 0], 1), 1));
        }
        if (0x80..=0xBF).contains(&lead) && on(Bug::StrayAsOneByte, 1) {
            return Some((([u32::from(lead & 0x3F), 0], 1), 1));
        }
        let (n, bits, lead_needs) = match lead {
            0x00..=0x7F => return None,
            0x80..=0xBF => (3, lead & 0x0F, Some(Bug::ContinuationAsLead3)),
            0xC0..=0xDF => (2, lead & 0x1F, None),
            0xE0..=0xEF => (3, lead & 0x0F, None),
            0xF0..=0xF7 => (4, lead & 0x07, None),
            0xF8..=0xFB if self.every_bug().any(|b| b == Bug::AcceptsFiveByte) => {
                (5, lead & 0x03, Some(Bug::AcceptsFiveByte))
            }
            0xF8..=0xFF => (4, lead & 0x07, Some(Bug::HighLeadsAsFour)),
        };
        let len = n.min(rest.len());
        let mut value = u32::from(bits);
        let (mut unchecked, mut past_end) = (false, false);
        for i in 1..n {
            let byte = match rest.get(i) {
                Some(&byte) => byte,
                None => {
                    past_end = true;
                    0x80
                }
            };
            unchecked |= byte & 0xC0 != 0x80;
            value = value << 6 | u32::from(byte & 0x3F);
        }
        let minimum = [0, 0, 0x80, 0x800, 0x10000, 0x200000][n];
        let overlong = value < minimum;
        let surrogate = (0xD800..=0xDFFF).contains(&value);
        let above_max = n == 4 && value > 0x10FFFF;
        let any_of = |bugs: &[Bug]| bugs.iter().any(|&bug| on(bug, len));
        let overlong_bugs: &[Bug] = match n {
            2 => &[Bug::AcceptsOverlongAll, Bug::AcceptsOverlong2],
            3 => &[Bug::AcceptsOverlongAll, Bug::AcceptsOverlong3],
            4 => &[Bug::AcceptsOverlongAll, Bug::AcceptsOverlong4],
            _ => &[Bug::AcceptsOverlongAll],
        };
        let above_bugs = [
            Bug::AcceptsAboveMax,
            Bug::AboveMaxAsPairs,
            Bug::AboveMaxWraps,
        ];
        let departures = [
            (lead_needs.is_some(), lead_needs.as_slice()),
            (unchecked, &[Bug::ContinuationUnchecked][..]),
            (past_end, &[Bug::TruncatedEndReadsZero][..]),
            (overlong, overlong_bugs),
            (surrogate, &[Bug::AcceptsSurrogates][..]),
            (above_max, &above_bugs[..]),
        ];
        if departures.iter().all(|&(present, _)| !present) {
            return None;
        }
        if departures
            .iter()
            .any(|&(present, allowed)| present && !any_of(allowed))
        {
            return None;
        }
        let units = if above_max && on(Bug::AboveMaxAsPairs, len) {
            let v = value - 0x10000;
            ([0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)], 2)
        } else if above_max && on(Bug::AboveMaxWraps, len) {
            ([0x10000 + ((value - 0x10000) & 0xFFFFF), 0], 1)
        } else {
            ([value, 0], 1)
        };
        Some((units, len))
    }

    /// Whether a well-formed character is rejected by a bug.
    fn rejects(&self, scalar: u32, offset: usize, len: usize, total: usize) -> bool {
        let has = |bug| self.on(bug, total, Some((offset, len)));
        let straddles = len > 1 && offset / 32 != (offset + len - 1) / 32;
        (has(Bug::RejectsNoncharacters) && taxonomy::is_noncharacter(scalar))
            || (has(Bug::RejectsAcross32) && straddles)
            || (has(Bug::RejectsSupplementary) && scalar >= 0x10000)
            || (has(Bug::RejectsMultibyte) && scalar >= 0x80)
            || (has(Bug::RejectsNul) && scalar == 0)
            || (has(Bug::RejectsFFFF) && scalar == 0xFFFF)
            || (has(Bug::RejectsFFFEAndFFFF) && matches!(scalar, 0xFFFE | 0xFFFF))
    }

    /// Appends what the decoder emits for the ill-formed (or rejected) `unit`.
    fn replace(&self, unit: &[u8], incomplete: bool, total: usize, scalars: &mut Vec<u32>) {
        let has = |bug| self.has_in(bug, total);
        let held_back = has(Bug::HoldsBackTail) && incomplete;
        if held_back || has(Bug::IgnoresErrors) {
            return;
        }
        if has(Bug::SurrogateEscape) {
            scalars.extend(unit.iter().map(|&b| 0xDC00 + u32::from(b)));
        } else if has(Bug::InvalidByteAsLatin1) {
            scalars.extend(unit.iter().map(|&b| u32::from(b)));
        } else {
            scalars.push(REPLACEMENT);
        }
    }

    /// Walks the input unit by unit: the strict fields of the first error, and the
    /// scalars. Returns the first error's true offset (`valid_up_to` may be counted
    /// another way by a bug) and the units taken, for a replacement policy.
    fn decode_units(&self, input: &[u8], outcome: &mut Outcome) -> Walked {
        let total = input.len();
        let mut units = Vec::new();
        let has = |bug| self.has_in(bug, total);
        let lenient = self.every_bug().any(Bug::is_lenient);
        let mut scalars = Vec::new();
        let mut offset = 0;
        let mut chars_before_error = 0usize;
        let mut after_stray = false;
        let mut first_error = None;
        while offset < total {
            let rest = &input[offset..];
            let taken = if lenient {
                self.lenient(rest, offset, total)
            } else {
                self.accepted(rest, total)
                    .map(|(s, len)| (([s, 0], 1), len))
            };
            if let Some(((taken, count), len)) = taken {
                scalars.extend_from_slice(&taken[..count]);
                units.extend(
                    taken[..count]
                        .iter()
                        .map(|&scalar| Segment::Char { scalar }),
                );
                offset += len;
                chars_before_error += 1;
                after_stray = false;
                continue;
            }
            let (decoded, len) = bstr::decode_utf8(rest);
            let len = len.max(1);
            let rejected = match decoded {
                Some(c) => self.rejects(u32::from(c), offset, len, total),
                None => true,
            };
            if rejected {
                let incomplete = decoded.is_none()
                    && std::str::from_utf8(rest)
                        .err()
                        .is_some_and(|e| e.error_len().is_none());
                if outcome.valid {
                    first_error = Some(offset);
                    outcome.valid = false;
                    outcome.valid_up_to = Some(offset);
                    outcome.error_len = Some(ErrorLen::new(len, incomplete));
                    if has(Bug::OffsetInCharacters) {
                        outcome.valid_up_to = Some(chars_before_error);
                    }
                }
                if has(Bug::TruncatesAtError) {
                    break;
                }
                self.replace(&rest[..len], incomplete, total, &mut scalars);
                units.push(Segment::Error { offset, len });
                after_stray = decoded.is_none() && rest[0] & 0xC0 == 0x80;
            } else {
                let scalar = u32::from(decoded.expect("not rejected"));
                let before = scalars.len();
                if has(Bug::SwallowsAfterStray) && after_stray {
                    scalars.push(REPLACEMENT);
                } else if has(Bug::Utf16Pairs) && scalar >= 0x10000 {
                    let v = scalar - 0x10000;
                    scalars.extend([0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)]);
                } else if has(Bug::MisdecodesE9) && scalar == 0xE9 {
                    scalars.push(0x65);
                } else {
                    scalars.push(scalar);
                }
                units.extend(
                    scalars[before..]
                        .iter()
                        .map(|&scalar| Segment::Char { scalar }),
                );
                chars_before_error += 1;
                after_stray = false;
            }
            offset += len;
        }
        outcome.scalars = Some(scalars);
        Walked { first_error, units }
    }

    /// The first error's length as the error-length bugs report it; `at` is the true
    /// offset of the first error.
    fn error_len_bugs(&self, input: &[u8], at: usize, outcome: &mut Outcome) {
        let has = |bug| self.has_in(bug, input.len());
        let Some(error_len) = outcome.error_len.as_mut() else {
            return;
        };
        if let ErrorLen::Invalid(len) = error_len {
            let category = input.get(at).and_then(|_| taxonomy::category_at(input, at));
            if has(Bug::ErrorLenTakesInterrupter)
                && category == Some(Category::TruncatedInterrupted)
            {
                *len += 1;
            }
        }
        if has(Bug::ErrorLenEndAsInvalid) && *error_len == ErrorLen::Incomplete {
            *error_len = ErrorLen::Invalid(input.len() - at);
        }
        let announced = input
            .get(at)
            .map_or(0, |&lead| taxonomy::announced_len(lead));
        if has(Bug::ErrorLenAnnounced) && announced >= 2 {
            *error_len = ErrorLen::Invalid(announced);
        }
        if has(Bug::ErrorLenAlwaysOne) {
            *error_len = ErrorLen::Invalid(1);
        }
    }

    /// The scalars under a replacement-policy bug, from the units the walk took: the
    /// policy replaces the walk's errors, and what the other bugs accepted or rejected
    /// stays accepted or rejected (a decoder that decodes surrogates and gives one
    /// U+FFFD per byte does both).
    fn policy_scalars(&self, input: &[u8], units: &[Segment]) -> Option<Vec<u32>> {
        let has = |bug| self.has_in(bug, input.len());
        if has(Bug::PerLeadSizedValidLeads) {
            return Some(valid_lead_sized_scalars(input, units));
        }
        let policy = [
            (Bug::PerBytePolicy, ReplacementPolicy::PerByte),
            (Bug::PerRunPolicy, ReplacementPolicy::PerRun),
            (
                Bug::PerLeadSizedPolicy,
                ReplacementPolicy::PerLeadSizedSequence,
            ),
        ]
        .into_iter()
        .find(|&(bug, _)| has(bug))?;
        Some(expected_scalars(input, units, policy.1))
    }
}

impl Decoder for Planted {
    fn name(&self) -> &str {
        self.name
    }

    fn version(&self) -> String {
        format!("utf8conf {}", env!("CARGO_PKG_VERSION"))
    }

    fn description(&self) -> &str {
        "harness self-test: a correct decoder with planted bugs (see decoders/planted)"
    }

    fn capabilities(&self) -> Capabilities {
        if self.bugs.contains(&Bug::NeverReports) && !self.disabled.contains(&Bug::NeverReports) {
            Capabilities::SCALARS
        } else {
            Capabilities::FIRST_ERROR_AND_SCALARS
        }
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        crate::decoders::reset_outcome(outcome, self.name);
        outcome.errors = None;
        let has = |bug| self.has_in(bug, input.len());
        let input = match input.iter().position(|&b| b == 0) {
            Some(nul) if has(Bug::StopsAtNul) => &input[..nul],
            _ => input,
        };
        let Walked {
            first_error: at,
            units,
        } = self.decode_units(input, outcome);
        let bom = input.starts_with(&[0xEF, 0xBB, 0xBF]);
        if let Some(valid_up_to) = outcome.valid_up_to.as_mut() {
            if has(Bug::OffsetAfterBom) && bom {
                *valid_up_to -= 3;
            }
            if has(Bug::OffByOnePast64) && *valid_up_to >= 64 {
                *valid_up_to += 1;
            }
        }
        self.error_len_bugs(input, at.unwrap_or(0), outcome);
        if let Some(scalars) = self.policy_scalars(input, &units) {
            outcome.scalars = Some(scalars);
        }
        if has(Bug::Latin1Fallback) && !outcome.valid {
            outcome.scalars = Some(input.iter().map(|&b| u32::from(b)).collect());
        }
        if has(Bug::StripsBom) && bom {
            if let Some(scalars) = outcome.scalars.as_mut() {
                scalars.remove(0);
            }
        }
        if has(Bug::NeverReports) {
            outcome.valid = true;
            outcome.valid_up_to = None;
            outcome.error_len = None;
        }
        Ok(())
    }
}
