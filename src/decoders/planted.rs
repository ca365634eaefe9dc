//! Planted-bug decoders: a correct decoder with one or two known bugs each, the evidence
//! that diagnosis gives one finding per bug, named by its cause.
//!
//! The correct decoder walks the input one unit at a time with `bstr::decode_utf8` (one
//! U+FFFD per maximal subpart, Unicode §3.9) and reports `valid`, `valid_up_to`,
//! `error_len` (Rust std's shape) and `scalars`. Each [`Bug`] changes that in one place,
//! the way real decoders go wrong: accepting a class of ill-formed sequences, stopping at
//! U+0000, emitting UTF-16 surrogate pairs, a replacement policy other than maximal
//! subparts, a BOM wrapper, an offset counted after a BOM or in characters, an off-by-one
//! past byte 64, a swallowed character after a stray byte. [`PLANTED`] lists every
//! decoder with the finding it must give; `tests` in this file check exactly that.
//!
//! They are not in the default run; name them like any decoder
//! (`utf8conf check --decoder planted-stop-at-nul`).

use super::{Capabilities, Decoder, DecoderFailure};
use crate::conformance::policy::{expected_scalars, segments, ReplacementPolicy};
use crate::outcome::{ErrorLen, Outcome, REPLACEMENT};
use crate::taxonomy::{self, Category};

/// One planted bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Accepts encoded surrogates `ED A0..BF 80..BF` as the surrogate code point (WTF-8).
    AcceptsSurrogates,
    /// Accepts `C0`/`C1` two-byte overlongs as their value (Modified UTF-8's `C0 80`).
    AcceptsOverlong2,
    /// Accepts `E0 80..9F xx` three-byte overlongs.
    AcceptsOverlong3,
    /// Accepts `F4 90..BF xx xx` (above U+10FFFF) as its value.
    AcceptsAboveMax,
    /// Accepts the RFC 2279 5-byte form `F8..FB` + 4 continuation bytes.
    AcceptsFiveByte,
    /// Treats U+0000 as the end of the input (a C string).
    StopsAtNul,
    /// Emits a UTF-16 surrogate pair for each supplementary character.
    Utf16Pairs,
    /// Rejects the 66 noncharacters as ill-formed.
    RejectsNoncharacters,
    /// On ill-formed input, decodes the whole input as Latin-1 instead.
    Latin1Fallback,
    /// Drops a leading U+FEFF (WHATWG `decode`'s BOM sniffing, as a decoder).
    StripsBom,
    /// Counts `valid_up_to` after a leading BOM (CPython's `utf-8-sig`).
    OffsetAfterBom,
    /// Counts `valid_up_to` in characters instead of bytes.
    OffsetInCharacters,
    /// `valid_up_to` one too large when the first error is at byte 64 or later.
    OffByOnePast64,
    /// One U+FFFD per ill-formed byte.
    PerBytePolicy,
    /// One U+FFFD per run of ill-formed bytes.
    PerRunPolicy,
    /// One U+FFFD per lead-byte-sized sequence.
    PerLeadSizedPolicy,
    /// Consumes the well-formed character after a stray continuation byte (Perl lax).
    SwallowsAfterStray,
    /// `error_len` of a sequence cut by another byte counts that byte too.
    ErrorLenTakesInterrupter,
    /// A sequence cut by the end of input is reported with a length, not as incomplete.
    ErrorLenEndAsInvalid,
    /// In inputs shorter than 16 bytes (a scalar tail path), accepts `C0 80` as U+0000.
    ShortTailAcceptsC080,
    /// Rejects a multi-byte character that straddles a 32-byte block boundary.
    RejectsAcross32,
    /// Replaces a well-formed U+00E9 (`C3 A9`) by U+0065: a wrong table entry.
    MisdecodesE9,
}

/// A planted decoder: a name, its bugs, and the findings they must give.
pub struct Planted {
    name: &'static str,
    bugs: &'static [Bug],
}

/// One planted decoder: its name, its bugs, and for each bug the categories of the one
/// finding it must give.
pub type PlantedCase = (&'static str, &'static [Bug], &'static [&'static [Category]]);

/// Every planted decoder.
pub const PLANTED: &[PlantedCase] = &[
    (
        "planted-surrogates",
        &[Bug::AcceptsSurrogates],
        &[&[Category::Surrogate]],
    ),
    (
        "planted-overlong-2",
        &[Bug::AcceptsOverlong2],
        &[&[Category::Overlong2]],
    ),
    (
        "planted-overlong-3",
        &[Bug::AcceptsOverlong3],
        &[&[Category::Overlong3]],
    ),
    (
        "planted-above-max",
        &[Bug::AcceptsAboveMax],
        &[&[Category::AboveMax]],
    ),
    (
        "planted-five-byte",
        &[Bug::AcceptsFiveByte],
        &[&[Category::Legacy5Or6Byte]],
    ),
    (
        "planted-stop-at-nul",
        &[Bug::StopsAtNul],
        &[&[Category::OutputCutShort]],
    ),
    (
        "planted-utf16-pairs",
        &[Bug::Utf16Pairs],
        &[&[Category::ValidMisdecoded]],
    ),
    (
        "planted-noncharacters",
        &[Bug::RejectsNoncharacters],
        &[&[Category::NoncharacterRejected]],
    ),
    (
        "planted-latin1-fallback",
        &[Bug::Latin1Fallback],
        &[&[Category::ValidMisdecoded]],
    ),
    (
        "planted-bom-strip",
        &[Bug::StripsBom],
        &[&[Category::BomStripped]],
    ),
    (
        "planted-offset-after-bom",
        &[Bug::OffsetAfterBom],
        &[&[Category::OffsetMiscounted]],
    ),
    (
        "planted-offset-in-chars",
        &[Bug::OffsetInCharacters],
        &[&[Category::OffsetMiscounted]],
    ),
    (
        "planted-off-by-one-past-64",
        &[Bug::OffByOnePast64],
        &[&[Category::OffsetMiscounted]],
    ),
    (
        "planted-per-byte",
        &[Bug::PerBytePolicy],
        &[&[Category::TruncatedAtEnd]],
    ),
    (
        "planted-per-run",
        &[Bug::PerRunPolicy],
        &[&[Category::UnexpectedContinuation]],
    ),
    (
        "planted-per-lead-sized",
        &[Bug::PerLeadSizedPolicy],
        &[&[Category::Overlong2]],
    ),
    (
        "planted-swallow-after-stray",
        &[Bug::SwallowsAfterStray],
        &[&[Category::CharacterSwallowed]],
    ),
    (
        "planted-error-len-interrupter",
        &[Bug::ErrorLenTakesInterrupter],
        &[&[Category::TruncatedInterrupted]],
    ),
    (
        "planted-error-len-at-end",
        &[Bug::ErrorLenEndAsInvalid],
        &[&[Category::TruncatedAtEnd]],
    ),
    (
        "planted-short-tail-c0-80",
        &[Bug::ShortTailAcceptsC080],
        &[&[Category::Overlong2]],
    ),
    (
        "planted-across-32",
        &[Bug::RejectsAcross32],
        &[&[Category::ValidRejected]],
    ),
    (
        "planted-misdecodes-e9",
        &[Bug::MisdecodesE9],
        &[&[Category::ValidMisdecoded]],
    ),
    (
        "planted-two-nul-and-surrogates",
        &[Bug::StopsAtNul, Bug::AcceptsSurrogates],
        &[&[Category::OutputCutShort], &[Category::Surrogate]],
    ),
    (
        "planted-two-bom-and-overlong",
        &[Bug::StripsBom, Bug::AcceptsOverlong2],
        &[&[Category::BomStripped], &[Category::Overlong2]],
    ),
    (
        "planted-two-swallow-and-past-64",
        &[Bug::SwallowsAfterStray, Bug::OffByOnePast64],
        &[
            &[Category::CharacterSwallowed],
            &[Category::OffsetMiscounted],
        ],
    ),
];

/// Every planted decoder, for [`super::by_name`].
pub fn all() -> Vec<Box<dyn Decoder>> {
    PLANTED
        .iter()
        .map(|&(name, bugs, _)| Box::new(Planted { name, bugs }) as Box<dyn Decoder>)
        .collect()
}

impl Planted {
    fn has(&self, bug: Bug) -> bool {
        self.bugs.contains(&bug)
    }

    /// A unit the bugs accept at the start of `rest` (at `offset` in an input of `total`
    /// bytes): its scalar and length.
    fn accepted(&self, rest: &[u8], total: usize) -> Option<(u32, usize)> {
        let cont = |i: usize| rest.get(i).is_some_and(|&b| b & 0xC0 == 0x80);
        let bits = |i: usize| u32::from(rest[i] & 0x3F);
        let lead = *rest.first()?;
        let second = rest.get(1).copied().unwrap_or(0);
        if self.has(Bug::AcceptsSurrogates)
            && lead == 0xED
            && (0xA0..=0xBF).contains(&second)
            && cont(2)
        {
            return Some((0xD000 | bits(1) << 6 | bits(2), 3));
        }
        let overlong2 = matches!(lead, 0xC0 | 0xC1) && cont(1);
        if overlong2
            && (self.has(Bug::AcceptsOverlong2)
                || (self.has(Bug::ShortTailAcceptsC080) && total < 16 && rest[..2] == [0xC0, 0x80]))
        {
            return Some((u32::from(lead & 0x1F) << 6 | bits(1), 2));
        }
        if self.has(Bug::AcceptsOverlong3)
            && lead == 0xE0
            && (0x80..=0x9F).contains(&second)
            && cont(2)
        {
            return Some((bits(1) << 6 | bits(2), 3));
        }
        if self.has(Bug::AcceptsAboveMax)
            && lead == 0xF4
            && (0x90..=0xBF).contains(&second)
            && cont(2)
            && cont(3)
        {
            return Some((0x100000 | bits(1) << 12 | bits(2) << 6 | bits(3), 4));
        }
        if self.has(Bug::AcceptsFiveByte) && (0xF8..=0xFB).contains(&lead) && (1..5).all(cont) {
            let value = u32::from(lead & 0x03) << 24
                | bits(1) << 18
                | bits(2) << 12
                | bits(3) << 6
                | bits(4);
            return Some((value, 5));
        }
        None
    }

    fn decode_units(&self, input: &[u8], outcome: &mut Outcome) {
        let mut scalars = Vec::new();
        let mut offset = 0;
        let mut chars_before_error = 0usize;
        let mut after_stray = false;
        while offset < input.len() {
            let rest = &input[offset..];
            if let Some((scalar, len)) = self.accepted(rest, input.len()) {
                scalars.push(scalar);
                offset += len;
                chars_before_error += 1;
                after_stray = false;
                continue;
            }
            let (decoded, len) = bstr::decode_utf8(rest);
            let len = len.max(1);
            let straddles = len > 1 && offset / 32 != (offset + len - 1) / 32;
            let rejected = match decoded {
                Some(c) => {
                    (self.has(Bug::RejectsNoncharacters) && taxonomy::is_noncharacter(u32::from(c)))
                        || (self.has(Bug::RejectsAcross32) && straddles)
                }
                None => true,
            };
            if rejected {
                if outcome.valid {
                    outcome.valid = false;
                    outcome.valid_up_to = Some(offset);
                    let incomplete = decoded.is_none()
                        && std::str::from_utf8(rest)
                            .err()
                            .is_some_and(|e| e.error_len().is_none());
                    outcome.error_len = Some(if incomplete {
                        ErrorLen::Incomplete
                    } else {
                        ErrorLen::Invalid(len)
                    });
                    if self.has(Bug::OffsetInCharacters) {
                        outcome.valid_up_to = Some(chars_before_error);
                    }
                }
                scalars.push(REPLACEMENT);
                after_stray = decoded.is_none() && rest[0] & 0xC0 == 0x80;
            } else {
                let c = decoded.expect("not rejected");
                let scalar = u32::from(c);
                if self.has(Bug::SwallowsAfterStray) && after_stray {
                    scalars.push(REPLACEMENT);
                } else if self.has(Bug::Utf16Pairs) && scalar >= 0x10000 {
                    let v = scalar - 0x10000;
                    scalars.extend([0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)]);
                } else if self.has(Bug::MisdecodesE9) && scalar == 0xE9 {
                    scalars.push(0x65);
                } else {
                    scalars.push(scalar);
                }
                chars_before_error += 1;
                after_stray = false;
            }
            offset += len;
        }
        outcome.scalars = Some(scalars);
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
        "harness self-test: a correct decoder with planted bugs (see decoders/planted.rs)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR_AND_SCALARS
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        super::reset_outcome(outcome, self.name);
        outcome.errors = None;
        let input = match input.iter().position(|&b| b == 0) {
            Some(nul) if self.has(Bug::StopsAtNul) => &input[..nul],
            _ => input,
        };
        self.decode_units(input, outcome);
        let bom = input.starts_with(&[0xEF, 0xBB, 0xBF]);
        if let Some(valid_up_to) = outcome.valid_up_to.as_mut() {
            if self.has(Bug::OffsetAfterBom) && bom {
                *valid_up_to -= 3;
            }
            if self.has(Bug::OffByOnePast64) && *valid_up_to >= 64 {
                *valid_up_to += 1;
            }
        }
        if let Some(ErrorLen::Invalid(len)) = outcome.error_len.as_mut() {
            let at = outcome.valid_up_to.unwrap_or(0);
            let category = input.get(at).and_then(|_| taxonomy::category_at(input, at));
            if self.has(Bug::ErrorLenTakesInterrupter)
                && category == Some(Category::TruncatedInterrupted)
            {
                *len += 1;
            }
        }
        if self.has(Bug::ErrorLenEndAsInvalid) && outcome.error_len == Some(ErrorLen::Incomplete) {
            let at = outcome.valid_up_to.unwrap_or(0);
            outcome.error_len = Some(ErrorLen::Invalid(input.len() - at));
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
        .find(|&(bug, _)| self.has(bug));
        if let Some((_, policy)) = policy {
            let decoded = crate::reference::Reference::rfc3629().decode(input);
            outcome.scalars = Some(expected_scalars(input, &segments(input, &decoded), policy));
        }
        if self.has(Bug::Latin1Fallback) && !outcome.valid {
            outcome.scalars = Some(input.iter().map(|&b| u32::from(b)).collect());
        }
        if self.has(Bug::StripsBom) && bom {
            if let Some(scalars) = outcome.scalars.as_mut() {
                scalars.remove(0);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
