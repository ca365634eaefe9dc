//! Planted-bug encoders: a correct encoder with one known bug each, the evidence that
//! encoder grading gives one finding per bug, named by its cause.
//!
//! The correct encoder refuses the first unencodable element, as the reference does. Each
//! [`EncoderBug`] changes that in one place, the way real encoders go wrong: Java's
//! `writeUTF` writes U+0000 as `C0 80`; WTF-8-style encoders write surrogates; RFC
//! 2279-era encoders write 4-byte forms above U+10FFFF; a lossy encoder that resumes one
//! unit too late loses the character after a lone surrogate; a length table off by one at
//! a boundary writes a non-shortest form. [`PLANTED`] lists every encoder with the
//! finding it must give; the grading tests check exactly that.

use super::{CodeUnits, Encoded, Encoder, Form};
use crate::reference::encode::{distribute_bits, Unencodable};

/// One planted encoder bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncoderBug {
    /// Writes U+0000 as the two-octet `C0 80` (Java's Modified UTF-8).
    NulAsC080,
    /// Writes a surrogate code point or a lone surrogate code unit in three octets
    /// (`ED A0 80`), as WTF-8 does, instead of refusing it.
    EncodesSurrogates,
    /// Writes U+110000..U+1FFFFF in RFC 2279's four-octet form (`F4 90 80 80`).
    FourByteAboveMax,
    /// Replaces a lone surrogate by U+FFFD and then skips the code unit after it.
    DropsAfterLoneSurrogate,
    /// Takes U+07FF for a three-octet character: `E0 9F BF`, a non-shortest form.
    OffByOneAt07FF,
    /// Takes U+FFFF for a four-octet character: `F0 8F BF BF`, a non-shortest form.
    OffByOneAtFFFF,
}

/// A planted encoder: its name and its bug.
pub struct PlantedEncoder {
    name: &'static str,
    bug: EncoderBug,
}

/// Every planted encoder: its name and bug.
pub const PLANTED: &[(&str, EncoderBug)] = &[
    ("planted-enc-nul-c080", EncoderBug::NulAsC080),
    ("planted-enc-surrogates", EncoderBug::EncodesSurrogates),
    ("planted-enc-above-max", EncoderBug::FourByteAboveMax),
    (
        "planted-enc-drops-after-lone",
        EncoderBug::DropsAfterLoneSurrogate,
    ),
    ("planted-enc-off-by-one-07ff", EncoderBug::OffByOneAt07FF),
    ("planted-enc-off-by-one-ffff", EncoderBug::OffByOneAtFFFF),
];

/// Every planted encoder, for the registry.
pub fn all() -> Vec<Box<dyn Encoder>> {
    PLANTED
        .iter()
        .map(|&(name, bug)| Box::new(PlantedEncoder { name, bug }) as Box<dyn Encoder>)
        .collect()
}

impl PlantedEncoder {
    /// The octets for one element value, or `None` to refuse it. `unencodable` says why
    /// the reference refuses it, if it does.
    fn octets(&self, value: u32, unencodable: Option<Unencodable>) -> Option<Vec<u8>> {
        let bits = |octets| distribute_bits(value, octets).map(|c| c.as_bytes().to_vec());
        match (self.bug, unencodable) {
            (EncoderBug::NulAsC080, None) if value == 0 => Some(vec![0xC0, 0x80]),
            (EncoderBug::OffByOneAt07FF, None) if value == 0x7FF => bits(3),
            (EncoderBug::OffByOneAtFFFF, None) if value == 0xFFFF => bits(4),
            (EncoderBug::EncodesSurrogates, Some(kind)) if is_surrogate_kind(kind) => bits(3),
            (EncoderBug::FourByteAboveMax, Some(Unencodable::AboveMax)) => bits(4),
            (EncoderBug::DropsAfterLoneSurrogate, Some(kind)) if is_surrogate_kind(kind) => {
                Some("\u{FFFD}".as_bytes().to_vec())
            }
            (_, Some(_)) => None,
            (_, None) => {
                let c = char::from_u32(value).expect("the reference encodes only scalars");
                Some(c.to_string().into_bytes())
            }
        }
    }
}

fn is_surrogate_kind(kind: Unencodable) -> bool {
    matches!(
        kind,
        Unencodable::SurrogateCodePoint
            | Unencodable::LoneHighSurrogate
            | Unencodable::LoneLowSurrogate
            | Unencodable::ReversedPair
    )
}

impl Encoder for PlantedEncoder {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        match self.bug {
            EncoderBug::NulAsC080 => "planted: U+0000 as C0 80",
            EncoderBug::EncodesSurrogates => "planted: writes surrogates in three octets",
            EncoderBug::FourByteAboveMax => "planted: four-octet forms above U+10FFFF",
            EncoderBug::DropsAfterLoneSurrogate => "planted: U+FFFD, then drops the next unit",
            EncoderBug::OffByOneAt07FF => "planted: U+07FF in three octets",
            EncoderBug::OffByOneAtFFFF => "planted: U+FFFF in four octets",
        }
    }
    fn forms(&self) -> &'static [Form] {
        &[Form::Utf16, Form::Utf32]
    }
    fn encode(&self, input: &CodeUnits) -> Encoded {
        let mut out = Vec::new();
        let mut position = 0;
        while position < input.len() {
            let (value, taken, unencodable) = input.element(position);
            let Some(octets) = self.octets(value, unencodable) else {
                return Encoded::Refused {
                    position: Some(position),
                };
            };
            out.extend_from_slice(&octets);
            position += taken;
            if self.bug == EncoderBug::DropsAfterLoneSurrogate && unencodable.is_some() {
                position += 1;
            }
        }
        Encoded::Bytes(out)
    }
}
