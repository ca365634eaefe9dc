//! The reference encoder: RFC 3629 §3's bit distribution, read through the §4 grammar.
//!
//! RFC 3629 defines UTF-8 in both directions. §3 gives the encoding algorithm:
//!
//! > 1.  Determine the number of octets required from the character number and the first
//! >     column of the table above. [...]
//! > 2.  Prepare the high-order bits of the octets as per the second column of the table.
//! > 3.  Fill in the bits marked x from the bits of the character number, expressed in
//! >     binary. Start by putting the lowest-order bit of the character number in the
//! >     lowest-order position of the last octet of the sequence, [...]
//!
//! and forbids two kinds of character number:
//!
//! > The definition of UTF-8 prohibits encoding character numbers between U+D800 and
//! > U+DFFF, which are reserved for use with the UTF-16 encoding form (as surrogate pairs)
//! > and do not directly represent characters.
//!
//! and anything above U+10FFFF (§1, §3: "restricted [...] to match the constraints of the
//! UTF-16 encoding form"). Like the reference decoder, this encoder writes no scalar range
//! by hand. Step 1's table column is not consulted: for each length `n` in 1..=4 the
//! scalar's bits are distributed into the `n`-octet template of step 2 and 3 (possible
//! only where the scalar fits the template's `x` bits), and the one candidate that the
//! grammar's `UTF8-char` accepts as a whole character is the encoding. Shortest form, the
//! surrogate gap and the U+10FFFF ceiling all come from the grammar text: `C1 81` is no
//! `UTF8-2`, `ED A0 80` no `UTF8-3`, `F4 90 80 80` no `UTF8-4`. So `encode(s)` is, by
//! construction, a sequence the grammar accepts; that it is the *only* one the reference
//! decoder reads back as `s`, for every one of the 1,112,064 scalar values, is proven by
//! the tests (a bijection with the grammar's whole characters).
//!
//! What an encoder is given is a sequence of code points (UTF-32, `u32`) or of UTF-16 code
//! units (`u16`). Unicode §3.9 D91 makes a surrogate pair one scalar; a surrogate code unit
//! without its partner is ill-formed UTF-16 (D91, "ill-formed code unit sequence"), and
//! a conformant encoder must not write it as UTF-8 (UTS #36 §3.6).

use super::Reference;
use crate::reference::matcher::Match;

/// The largest number of octets in a `UTF8-char` template of RFC 3629 §3.
pub const MAX_OCTETS: usize = 4;

/// One encoded character: up to four octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodedChar {
    octets: [u8; MAX_OCTETS],
    len: u8,
}

impl EncodedChar {
    /// The octets of the character.
    pub fn as_bytes(&self) -> &[u8] {
        &self.octets[..usize::from(self.len)]
    }
}

/// Why a code point or code unit has no UTF-8 encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unencodable {
    /// A code point in U+D800..U+DFFF given as a `u32` (RFC 3629 §3 prohibits it).
    SurrogateCodePoint,
    /// A high-surrogate code unit (Unicode D72) not followed by a low one.
    LoneHighSurrogate,
    /// A low-surrogate code unit (Unicode D74) not preceded by a high one.
    LoneLowSurrogate,
    /// A low-surrogate code unit directly followed by a high one: a pair in the wrong order.
    ReversedPair,
    /// A value above U+10FFFF that RFC 2279's 4-octet template could still hold
    /// (U+110000..U+1FFFFF): the grammar's `UTF8-4` stops at `F4 8F BF BF`.
    AboveMax,
    /// A value above U+1FFFFF: no template of RFC 3629 §3 has room for it (RFC 2279's 5- and
    /// 6-octet forms, up to 0x7FFFFFFF, and beyond).
    BeyondTemplates,
}

impl Unencodable {
    /// A short name, as reports write it.
    pub fn name(self) -> &'static str {
        match self {
            Unencodable::SurrogateCodePoint => "surrogate-code-point",
            Unencodable::LoneHighSurrogate => "lone-high-surrogate",
            Unencodable::LoneLowSurrogate => "lone-low-surrogate",
            Unencodable::ReversedPair => "reversed-surrogate-pair",
            Unencodable::AboveMax => "above-max",
            Unencodable::BeyondTemplates => "beyond-templates",
        }
    }
}

/// The first input element that has no encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeError {
    /// Index of the element in the input (a `u32` or a `u16` index, as given).
    pub position: usize,
    /// Why it has none.
    pub kind: Unencodable,
}

/// The high-order bits of octet `index` of an `octets`-octet sequence, and how many value
/// bits (`x`) it carries: RFC 3629 §3's second column,
///
/// ```text
/// 0xxxxxxx
/// 110xxxxx 10xxxxxx
/// 1110xxxx 10xxxxxx 10xxxxxx
/// 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
/// ```
///
/// The first octet of an `n`-octet sequence (n > 1) starts with `n` ones and a zero;
/// every other starts `10`.
fn template(octets: usize, index: usize) -> (u8, u32) {
    if octets == 1 {
        (0, 7)
    } else if index == 0 {
        (0xFFu8 << (8 - octets), 7 - octets as u32)
    } else {
        (0b1000_0000, 6)
    }
}

/// Steps 2 and 3 of RFC 3629 §3 for an `octets`-octet sequence, without the grammar: `None`
/// when the value has more significant bits than the template has `x` positions.
///
/// This alone is what encoders without the grammar's constraints write: a surrogate code
/// point as `ED A0 80` (WTF-8, CESU-8), U+0000 in two octets as `C0 80` (Modified UTF-8),
/// U+110000 as `F4 90 80 80`. Grading uses it to recognise those forms.
pub fn distribute_bits(scalar: u32, octets: usize) -> Option<EncodedChar> {
    let room: u32 = (0..octets).map(|index| template(octets, index).1).sum();
    if room < 32 && scalar >> room != 0 {
        return None;
    }
    let mut encoded = EncodedChar {
        octets: [0; MAX_OCTETS],
        len: octets as u8,
    };
    // "Start by putting the lowest-order bit of the character number in the lowest-order
    // position of the last octet of the sequence [...] move on to the next to last octet".
    let mut rest = scalar;
    for index in (0..octets).rev() {
        let (high, bits) = template(octets, index);
        encoded.octets[index] = high | (rest & ((1 << bits) - 1)) as u8;
        rest >>= bits;
    }
    Some(encoded)
}

impl Reference {
    /// The UTF-8 encoding of one code point: the one template candidate that the grammar's
    /// character rule accepts whole (see the module documentation), or why there is none.
    pub fn encode_scalar(&self, code_point: u32) -> Result<EncodedChar, Unencodable> {
        let mut fits_a_template = false;
        for octets in 1..=MAX_OCTETS {
            let Some(candidate) = distribute_bits(code_point, octets) else {
                continue;
            };
            fits_a_template = true;
            let bytes = candidate.as_bytes();
            if self.automaton().match_at(bytes) == (Match::Whole { len: bytes.len() }) {
                return Ok(candidate);
            }
        }
        Err(if !fits_a_template {
            Unencodable::BeyondTemplates
        } else if is_surrogate(code_point) {
            Unencodable::SurrogateCodePoint
        } else {
            Unencodable::AboveMax
        })
    }

    /// Encodes UTF-32 (code points as `u32`): the bytes, or the first code point with no
    /// encoding.
    pub fn encode_utf32(&self, code_points: &[u32]) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(code_points.len());
        for (position, &code_point) in code_points.iter().enumerate() {
            match self.encode_scalar(code_point) {
                Ok(encoded) => out.extend_from_slice(encoded.as_bytes()),
                Err(kind) => return Err(EncodeError { position, kind }),
            }
        }
        Ok(out)
    }

    /// Encodes UTF-16 code units: each surrogate pair is one scalar (Unicode D91), and the
    /// first unpaired surrogate is the error.
    pub fn encode_utf16(&self, units: &[u16]) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(units.len());
        let mut position = 0;
        while position < units.len() {
            let (scalar, taken) = match utf16_scalar(units, position) {
                Ok(pair) => pair,
                Err(kind) => return Err(EncodeError { position, kind }),
            };
            let encoded = self
                .encode_scalar(scalar)
                .map_err(|kind| EncodeError { position, kind })?;
            out.extend_from_slice(encoded.as_bytes());
            position += taken;
        }
        Ok(out)
    }
}

/// The scalar at `units[position]` and how many code units it takes, by Unicode §3.9 D91:
/// a high surrogate followed by a low one is the scalar `0x10000 + (hi - D800) * 0x400 +
/// (lo - DC00)`; any other surrogate is ill-formed.
pub fn utf16_scalar(units: &[u16], position: usize) -> Result<(u32, usize), Unencodable> {
    let unit = units[position];
    let next = units.get(position + 1).copied();
    if is_low_surrogate(unit) {
        return Err(match next {
            Some(following) if is_high_surrogate(following) => Unencodable::ReversedPair,
            _ => Unencodable::LoneLowSurrogate,
        });
    }
    if !is_high_surrogate(unit) {
        return Ok((u32::from(unit), 1));
    }
    match next {
        Some(low) if is_low_surrogate(low) => {
            let high_bits = u32::from(unit - HIGH_SURROGATES.start) << 10;
            let low_bits = u32::from(low - LOW_SURROGATES.start);
            Ok((0x1_0000 + high_bits + low_bits, 2))
        }
        _ => Err(Unencodable::LoneHighSurrogate),
    }
}

/// High-surrogate code units, Unicode §3.8 D71/D72: D800..DBFF.
pub const HIGH_SURROGATES: std::ops::Range<u16> = 0xD800..0xDC00;
/// Low-surrogate code units, Unicode §3.8 D73/D74: DC00..DFFF.
pub const LOW_SURROGATES: std::ops::Range<u16> = 0xDC00..0xE000;

fn is_high_surrogate(unit: u16) -> bool {
    HIGH_SURROGATES.contains(&unit)
}

fn is_low_surrogate(unit: u16) -> bool {
    LOW_SURROGATES.contains(&unit)
}

/// A surrogate code point (Unicode §3.8 D71, D73), named only to say why a code point that
/// fits a template has no encoding; the grammar is what refuses it.
fn is_surrogate(code_point: u32) -> bool {
    (u32::from(HIGH_SURROGATES.start)..u32::from(LOW_SURROGATES.end)).contains(&code_point)
}

#[cfg(test)]
mod tests;
