//! The abstract output of one step: what reading one more byte changed in a decoder's
//! answer.
//!
//! A membership query asks a decoder for its answer on every prefix of a word; the output
//! of step `i` compares the answers on `w[..i]` and `w[..=i]`. The output must be a
//! function of a bounded amount of history, or the learned machine grows a counter: so it
//! never carries offsets from the start of the input, only distances back from the
//! current byte, and every count is capped.
//!
//! - **Strict side** ([`Strict`]): still valid, incomplete (a prefix more bytes could
//!   complete, std's `error_len() == None`), or "the first error became definite here,
//!   `len` bytes long, starting `back` bytes before the end" (std's `error_len` and
//!   `valid_up_to`, measured from the current byte).
//! - **Lossy side** ([`Lossy`]): how many scalars of the previous answer were taken back
//!   (a U+FFFD for an incomplete tail becomes a character), and for each appended unit,
//!   what it is ([`UnitKind`]): U+FFFD, the scalar of the well-formed character ending
//!   here, the byte's own value (a Latin-1 reading), the value the bits of an ill-formed
//!   lead-plus-continuations sequence give (a lax decode), or another value.

use serde::Serialize;

use crate::decoders::Capabilities;
use crate::outcome::{Answer, ErrorLen, Outcome, REPLACEMENT};

/// Error lengths and distances above this are reported as this (so that the output
/// stays finite).
pub const CAP: u8 = 7;
/// Scalars taken back or appended above this are reported as this: a decoder that
/// rewrites everything after an error (a Latin-1 fallback) must not need a state per
/// scalar it rewrote.
pub const COUNT_CAP: u8 = 2;
/// At most this many appended units are classified (the last ones).
pub const UNITS: usize = 2;

/// The strict side of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Strict {
    /// The prefix is well-formed.
    Valid,
    /// The prefix ends inside a sequence more input could complete.
    Incomplete,
    /// The first error became definite at this byte: `len` bytes long (0 when the decoder
    /// does not report it), starting `back` bytes before the end of the prefix.
    Error {
        /// `error_len`, capped at [`CAP`].
        len: u8,
        /// Prefix length minus `valid_up_to`, capped at [`CAP`].
        back: u8,
    },
    /// The first error was already definite and did not change.
    Settled,
    /// The first error was already definite and moved or changed length.
    Revised,
    /// Invalid, for a decoder that reports only the verdict.
    Invalid,
    /// The decoder gave no answer (a crash, a timeout, a protocol error).
    Failed,
}

/// What one appended scalar is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitKind {
    /// U+FFFD.
    Replacement,
    /// The scalar of the well-formed character ending at the byte it stands for.
    Scalar,
    /// The value of the byte it stands for (a Latin-1 reading).
    OwnByte,
    /// The value the bits of a lead byte and its continuation bytes give, where that
    /// sequence is ill-formed (an overlong form, a surrogate, above U+10FFFF, 5 or 6 bytes).
    Bits,
    /// Any other value.
    Other,
}

/// The lossy side of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lossy {
    /// Scalars of the previous answer that are gone from this one (capped at
    /// [`COUNT_CAP`]).
    pub taken_back: u8,
    /// How many scalars were appended (capped at [`COUNT_CAP`]).
    pub appended: u8,
    /// The kinds of the last `min(appended, UNITS)` appended scalars, in order.
    pub kinds: [Option<UnitKind>; UNITS],
}

/// The output of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StepOutput {
    /// The strict side.
    pub strict: Strict,
    /// The lossy side, for decoders that report scalars.
    pub lossy: Option<Lossy>,
}

/// The output of the step that extends `word[..word.len() - 1]` (answered by `before`) by
/// its last byte (answered by `after`), for a decoder reporting `capabilities`.
pub fn step_output(
    capabilities: Capabilities,
    word: &[u8],
    before: &Answer,
    after: &Answer,
) -> StepOutput {
    let (Ok(before), Ok(after)) = (before, after) else {
        return StepOutput {
            strict: Strict::Failed,
            lossy: None,
        };
    };
    let strict = strict_step(capabilities, word.len(), before, after);
    let lossy = match (&before.scalars, &after.scalars) {
        (Some(old), Some(new)) if capabilities.scalars => Some(lossy_step(word, old, new)),
        _ => None,
    };
    StepOutput { strict, lossy }
}

fn cap(value: usize) -> u8 {
    value.min(usize::from(CAP)) as u8
}

fn strict_step(
    capabilities: Capabilities,
    len: usize,
    before: &Outcome,
    after: &Outcome,
) -> Strict {
    if after.valid {
        return Strict::Valid;
    }
    if !capabilities.valid_up_to && !capabilities.error_len {
        return Strict::Invalid;
    }
    // Only what the decoder reports is read: a field it cannot give is not compared.
    let error_len = |o: &Outcome| o.error_len.filter(|_| capabilities.error_len);
    let valid_up_to = |o: &Outcome| o.valid_up_to.filter(|_| capabilities.valid_up_to);
    if error_len(after) == Some(ErrorLen::Incomplete) {
        return Strict::Incomplete;
    }
    let definite_before = !before.valid && error_len(before) != Some(ErrorLen::Incomplete);
    if definite_before && len > 1 {
        let same =
            valid_up_to(before) == valid_up_to(after) && error_len(before) == error_len(after);
        return if same {
            Strict::Settled
        } else {
            Strict::Revised
        };
    }
    let length = match error_len(after) {
        Some(ErrorLen::Invalid(n)) => cap(n),
        _ => 0,
    };
    let back = valid_up_to(after).map_or(0, |offset| cap(len.saturating_sub(offset)));
    Strict::Error { len: length, back }
}

fn lossy_step(word: &[u8], old: &[u32], new: &[u32]) -> Lossy {
    let mut common = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    // A decoder that gave a sequence's bytes values of their own and, at its last byte,
    // takes them back for the value of the whole sequence has appended that value, even
    // where the value is the one it had kept before them (`F0 8F BF BD` decoded by its
    // bits is U+FFFD, the U+FFFD `F0` had alone): nothing appended would read as values
    // dropped, and the byte would be a class of its own.
    let rejoined = common == new.len()
        && old.len() > common
        && common > 0
        && lax_value_ending_at(word, word.len()) == Some(new[common - 1]);
    if rejoined {
        common -= 1;
    }
    let appended = &new[common..];
    let mut kinds = [None; UNITS];
    let shown = appended.len().min(UNITS);
    let end = word.len();
    for (slot, (j, &scalar)) in appended
        .iter()
        .enumerate()
        .skip(appended.len() - shown)
        .enumerate()
    {
        // The unit is aligned with the byte as many places back from the end as it is
        // from the last appended unit: exact for one unit per byte (a Latin-1 reading, a
        // per-byte policy) and for the last unit of every decoder.
        let back = appended.len() - 1 - j;
        let single = appended.len() == 1;
        kinds[slot] = Some(if rejoined {
            UnitKind::Bits
        } else {
            classify(word, end.saturating_sub(back), scalar, back == 0, single)
        });
    }
    let count = |n: usize| n.min(usize::from(COUNT_CAP)) as u8;
    Lossy {
        taken_back: count(old.len() - common),
        appended: count(appended.len()),
        kinds,
    }
}

/// Classifies `scalar`, standing for the byte just before `end` in `word`; `last` for the
/// last appended unit (its own character takes precedence over U+FFFD and over its
/// byte's value, so that a correct decoder's `C2 80` is a scalar, not a byte); `single`
/// when it is the only one appended (then a lax value of the bytes before it is a
/// likelier reading than the byte's own value: `E0 82 80` read as U+0080).
///
/// Only the sequence ending at the unit's own byte is looked at, never what came before
/// it: a kind that depended on whether the same value appeared a few bytes earlier (a
/// `00` before a stray `80` read as U+0000) would make the output a function of
/// history, and the learned machine would grow a state per byte of that history.
fn classify(word: &[u8], end: usize, scalar: u32, last: bool, single: bool) -> UnitKind {
    let own_byte = end > 0 && u32::from(word[end - 1]) == scalar;
    let own_char = end > 0 && char_ending_at(word, end) == Some(scalar);
    let bits = lax_value_ending_at(word, end) == Some(scalar);
    // A well-formed `EF BF BD` is its scalar, not a substitution.
    if last && own_char {
        return UnitKind::Scalar;
    }
    if scalar == REPLACEMENT {
        return UnitKind::Replacement;
    }
    if single && bits {
        return UnitKind::Bits;
    }
    if own_byte {
        return UnitKind::OwnByte;
    }
    if own_char {
        return UnitKind::Scalar;
    }
    if bits {
        return UnitKind::Bits;
    }
    UnitKind::Other
}

/// The scalar of the well-formed character that ends just before `end`, if one does.
fn char_ending_at(word: &[u8], end: usize) -> Option<u32> {
    (1..=4.min(end)).find_map(|k| {
        let text = std::str::from_utf8(&word[end - k..end]).ok()?;
        let mut chars = text.chars();
        let c = chars.next()?;
        chars.next().is_none().then_some(u32::from(c))
    })
}

/// The value of a lead byte (`C0..FD`) and exactly as many continuation bytes as it
/// announces, ending just before `end`, read by its bits alone (no range check).
fn lax_value_ending_at(word: &[u8], end: usize) -> Option<u32> {
    (2..=6.min(end)).find_map(|k| crate::taxonomy::lax_value(&word[end - k..end]))
}

impl std::fmt::Display for StepOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.strict)?;
        if let Some(lossy) = &self.lossy {
            write!(f, " / {lossy}")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Strict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Strict::Valid => write!(f, "valid"),
            Strict::Incomplete => write!(f, "incomplete"),
            Strict::Error { len, back } => write!(f, "error len {len} back {back}"),
            Strict::Settled => write!(f, "settled"),
            Strict::Revised => write!(f, "revised"),
            Strict::Invalid => write!(f, "invalid"),
            Strict::Failed => write!(f, "failed"),
        }
    }
}

impl std::fmt::Display for Lossy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.taken_back > 0 {
            write!(f, "-{} ", self.taken_back)?;
        }
        if self.appended == 0 {
            return write!(f, "nothing");
        }
        let kinds: Vec<&str> = self.kinds.iter().flatten().map(|k| k.as_str()).collect();
        write!(f, "+[{}]", kinds.join(" "))?;
        if usize::from(self.appended) > kinds.len() {
            write!(f, " of {}", self.appended)?;
        }
        Ok(())
    }
}

impl UnitKind {
    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Replacement => "U+FFFD",
            UnitKind::Scalar => "scalar",
            UnitKind::OwnByte => "own-byte",
            UnitKind::Bits => "bits",
            UnitKind::Other => "other",
        }
    }
}

impl Serialize for Lossy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Lossy", 3)?;
        s.serialize_field("taken_back", &self.taken_back)?;
        s.serialize_field("appended", &self.appended)?;
        let kinds: Vec<UnitKind> = self.kinds.iter().flatten().copied().collect();
        s.serialize_field("kinds", &kinds)?;
        s.end()
    }
}

impl Serialize for StepOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("StepOutput", 3)?;
        s.serialize_field("strict", &self.strict)?;
        s.serialize_field("lossy", &self.lossy)?;
        s.serialize_field("text", &self.to_string())?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lax_values_read_the_bits() {
        assert_eq!(lax_value_ending_at(&[0xC0, 0x80], 2), Some(0));
        assert_eq!(lax_value_ending_at(&[0xED, 0xA0, 0x80], 3), Some(0xD800));
        assert_eq!(lax_value_ending_at(&[0x41, 0x80], 2), None);
    }

    #[test]
    fn the_last_unit_is_its_own_character_first() {
        assert_eq!(
            classify(&[0xC2, 0x80], 2, 0x80, true, true),
            UnitKind::Scalar
        );
        assert_eq!(
            classify(&[0xC2, 0x80], 2, 0x80, false, false),
            UnitKind::OwnByte
        );
        assert_eq!(classify(&[0x80], 1, 0x80, true, true), UnitKind::OwnByte);
        assert_eq!(classify(&[0xC0, 0x80], 2, 0, true, true), UnitKind::Bits);
        assert_eq!(
            classify(&[0xE0, 0x82, 0x80], 3, 0x80, true, true),
            UnitKind::Bits
        );
        assert_eq!(
            classify(&[0xE0, 0x82, 0x80], 3, 0x80, true, false),
            UnitKind::OwnByte
        );
        assert_eq!(classify(&[0x41], 1, 0x42, true, true), UnitKind::Other);
        assert_eq!(
            classify(&[0xEF, 0xBF, 0xBD], 3, REPLACEMENT, true, true),
            UnitKind::Scalar
        );
    }

    #[test]
    fn a_sequence_whose_bits_give_the_value_kept_before_it_is_appended() {
        // `F0 8F BF BD` read by its bits is U+FFFD: a decoder that gave `F0` U+FFFD and
        // `8F`, `BF` values of their own takes those two back and the whole sequence's
        // value is the U+FFFD it kept. That is three taken back and one value appended.
        let word = [0xF0, 0x8F, 0xBF, 0xBD];
        let step = lossy_step(&word, &[REPLACEMENT, 0x0F, 0x3F], &[REPLACEMENT]);
        assert_eq!((step.taken_back, step.appended), (2, 1));
        assert_eq!(step.kinds[0], Some(UnitKind::Bits));
        // A value dropped where no sequence's bits give the value kept is dropped.
        let step = lossy_step(&[0x41, 0x80], &[0x41, 0x80], &[0x41]);
        assert_eq!((step.taken_back, step.appended), (1, 0));
    }
}
