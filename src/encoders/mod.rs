//! The `Encoder` abstraction: anything that turns code points or UTF-16 code units into
//! UTF-8 bytes, the other direction of RFC 3629.
//!
//! An encoder is given what its API takes: a sequence of UTF-16 code units (JavaScript,
//! Java, .NET and Windows strings) or of code points as `u32` (UTF-32, a `char` array, a
//! rune slice). It answers with bytes, or refuses, at an element it names when its API
//! says which. Like a decoder's outcome, an answer holds only what the encoder really
//! said: an API that refuses without a position is [`Encoded::Refused`] with `None`.
//!
//! The files, one job each:
//!
//! - this module: [`CodeUnits`], [`Encoded`], the [`Encoder`] trait and the registry
//!   ([`builtin()`], [`by_name`]);
//! - [`builtin`](mod@builtin): the reference encoder, Rust std's and encoding_rs's;
//! - [`fast`](mod@fast): the harness's fast encoder, strict and lossy, per backend;
//! - [`planted`]: encoders with one known bug each, the evidence that grading names it;
//!
//! An encoder behind the adapter protocol's encode mode, or a C library's encode function
//! under `--lib`, is built where those are supervised: `adapter/encoder.rs` and
//! `native/encoder.rs`.

pub mod builtin;
pub mod fast;
pub mod planted;

use std::fmt;

use crate::outcome::FailureKind;
use crate::reference::encode::{utf16_scalar, Unencodable};
use crate::reference::Reference;

/// What an encoder API takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// UTF-16 code units.
    Utf16,
    /// Code points as 32-bit values (UTF-32 when every value is a scalar).
    Utf32,
}

impl Form {
    /// Bytes per code unit on the wire: 2 for UTF-16, 4 for UTF-32.
    pub fn unit_bytes(self) -> usize {
        match self {
            Form::Utf16 => 2,
            Form::Utf32 => 4,
        }
    }

    /// The name in a hello and in reports: `utf16` or `utf32`.
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Utf16 => "utf16",
            Form::Utf32 => "utf32",
        }
    }

    /// Code units as a frame body (docs/PROTOCOL.md, "Encode mode"): "N bytes = the code
    /// units, little-endian (u16 each for utf16, u32 each for utf32)". Values are cut to
    /// the unit's width.
    pub fn frame(self, units: &[u32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(units.len() * self.unit_bytes());
        for &unit in units {
            match self {
                Form::Utf16 => out.extend_from_slice(&(unit as u16).to_le_bytes()),
                Form::Utf32 => out.extend_from_slice(&unit.to_le_bytes()),
            }
        }
        out
    }
}

/// One encoder input: UTF-16 code units or 32-bit code points.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CodeUnits {
    /// UTF-16 code units, possibly ill-formed (lone or reversed surrogates).
    Utf16(Vec<u16>),
    /// 32-bit code points, possibly not scalar values (surrogates, above U+10FFFF).
    Utf32(Vec<u32>),
}

impl CodeUnits {
    /// The form of the input.
    pub fn form(&self) -> Form {
        match self {
            CodeUnits::Utf16(_) => Form::Utf16,
            CodeUnits::Utf32(_) => Form::Utf32,
        }
    }

    /// How many elements (code units or code points) the input has.
    pub fn len(&self) -> usize {
        match self {
            CodeUnits::Utf16(units) => units.len(),
            CodeUnits::Utf32(points) => points.len(),
        }
    }

    /// True for the empty input.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element that starts at `position`: its value (a scalar, a lone code unit, or a
    /// code point), how many input elements it takes (2 for a surrogate pair), and why the
    /// reference refuses it, if it does.
    pub fn element(&self, position: usize) -> (u32, usize, Option<Unencodable>) {
        match self {
            CodeUnits::Utf16(units) => match utf16_scalar(units, position) {
                Ok((scalar, taken)) => (scalar, taken, None),
                Err(kind) => (u32::from(units[position]), 1, Some(kind)),
            },
            CodeUnits::Utf32(points) => {
                let value = points[position];
                (value, 1, Reference::rfc3629().encode_scalar(value).err())
            }
        }
    }

    /// The input from element `from` on (empty past the end).
    pub fn suffix(&self, from: usize) -> CodeUnits {
        match self {
            CodeUnits::Utf16(units) => CodeUnits::Utf16(units.get(from..).unwrap_or(&[]).to_vec()),
            CodeUnits::Utf32(points) => {
                CodeUnits::Utf32(points.get(from..).unwrap_or(&[]).to_vec())
            }
        }
    }

    /// The input before element `to` (all of it past the end).
    pub fn prefix(&self, to: usize) -> CodeUnits {
        match self {
            CodeUnits::Utf16(units) => CodeUnits::Utf16(units[..to.min(units.len())].to_vec()),
            CodeUnits::Utf32(points) => CodeUnits::Utf32(points[..to.min(points.len())].to_vec()),
        }
    }

    /// The input as a frame body of the protocol's encode mode (and of the `--lib` wire):
    /// its code units, little-endian.
    pub fn to_frame(&self) -> Vec<u8> {
        match self {
            CodeUnits::Utf16(units) => units.iter().flat_map(|u| u.to_le_bytes()).collect(),
            CodeUnits::Utf32(points) => points.iter().flat_map(|p| p.to_le_bytes()).collect(),
        }
    }

    /// The element at `index`, widened to `u32`.
    pub fn get(&self, index: usize) -> Option<u32> {
        match self {
            CodeUnits::Utf16(units) => units.get(index).map(|&unit| u32::from(unit)),
            CodeUnits::Utf32(points) => points.get(index).copied(),
        }
    }
}

impl fmt::Display for CodeUnits {
    /// `utf16: D83D DE00` or `utf32: 10FFFF 110000`: how reports and reproduction
    /// commands write an input.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (form, elements): (&str, Vec<String>) = match self {
            CodeUnits::Utf16(units) => {
                ("utf16", units.iter().map(|u| format!("{u:04X}")).collect())
            }
            CodeUnits::Utf32(points) => {
                ("utf32", points.iter().map(|p| format!("{p:04X}")).collect())
            }
        };
        write!(f, "{form}: {}", elements.join(" "))
    }
}

/// What an encoder answered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Encoded {
    /// The bytes it wrote.
    Bytes(Vec<u8>),
    /// It refused the input, at this element index when its API says.
    Refused {
        /// The element it refused, if the API reports one.
        position: Option<usize>,
    },
    /// It gave no answer: an adapter or library worker crashed, hung, or broke the
    /// protocol (only an encoder outside the process fails so).
    Failed {
        /// `crash`, `timeout` or `protocol`.
        kind: FailureKind,
        /// What happened, in one line.
        message: String,
    },
}

/// An encoder under test.
pub trait Encoder: Send + Sync {
    /// A short stable name (`std-from_utf16`).
    fn name(&self) -> &str;

    /// One line: which API, and what it does with what it cannot encode.
    fn description(&self) -> &str;

    /// The input forms its API takes.
    fn forms(&self) -> &'static [Form];

    /// Encodes `input`, whose form is one of [`Encoder::forms`].
    fn encode(&self, input: &CodeUnits) -> Encoded;

    /// Encodes many inputs, one answer each, in order. An encoder in another process
    /// sends them pipelined, and answers only a prefix of them once it has stopped
    /// ([`Encoder::stopped`] says why); the default calls [`Encoder::encode`] for each.
    fn encode_batch(&self, inputs: &[&CodeUnits]) -> Vec<Encoded> {
        inputs.iter().map(|input| self.encode(input)).collect()
    }

    /// Why grading must stop (the encoder's process is unusable, the check's time limit,
    /// a signal), once that has happened; never for an encoder in the harness's process.
    fn stopped(&self) -> Option<String> {
        None
    }
}

/// The built-in encoders: the reference, Rust std's, encoding_rs's and the fast one.
pub fn builtin() -> Vec<Box<dyn Encoder>> {
    builtin::all()
}

/// Finds an encoder by name: a built-in one or a planted one.
pub fn by_name(name: &str) -> Option<Box<dyn Encoder>> {
    builtin()
        .into_iter()
        .chain(planted::all())
        .find(|encoder| encoder.name() == name)
}
