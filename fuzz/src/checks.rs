//! What each fuzz target checks, as plain functions of the fuzz input.
//!
//! The targets in `fuzz_targets/` are thin: they call these functions and hand a finding to
//! [`crate::findings`]. `cargo test` (`tests/fuzz_replay.rs`) calls the same functions on
//! every corpus and regression file, so a file replays exactly as its target ran it, on
//! stable Rust and without libFuzzer.
//!
//! Every target reduces to one question, asked in [`check_pair`]: does this [`Decoder`]
//! agree with the reference on these bytes? A streaming decoder fed in the input's chunk
//! plan ([`Chunked`]) and a backend called on a copy of the bytes at an alignment
//! offset ([`AlignedDecoder`]) are decoders too, so the comparison, the signature and the
//! minimisation (the engine's, see [`crate::report`]) are the same for all four targets. A
//! finding's input is already minimised: a smallest input, found by removing bytes, on which
//! the same decoder, under the same conditions (chunk sizes, alignment offset), still
//! diverges on the same aspect in the same way.

use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};
use utf8conf::decoders::chunk_plan::{ChunkPlan, CycledSizes};
use utf8conf::decoders::streaming::{Chunked, StreamingDecoder};
use utf8conf::decoders::{Capabilities, Decoder, DecoderFailure};
use utf8conf::engine::check::check_decoder;
use utf8conf::outcome::Outcome;
use utf8conf::reference::Reference;

use crate::program::Program;
use crate::report::{check_pair, Finding, FuzzContext};

/// The alignment offsets the `backends` target tries: every offset in a 64-byte line.
pub const ALIGNMENT_OFFSETS: std::ops::RangeInclusive<usize> = 0..=63;

/// The first divergence of any of `decoders` from the reference on plain bytes.
fn differential(
    target: &str,
    input: &[u8],
    decoders: &[&dyn Decoder],
    report_dir: &Path,
) -> Option<Finding> {
    let context = FuzzContext {
        target,
        conditions: None,
        report_dir,
    };
    decoders
        .iter()
        .find_map(|&decoder| check_pair(decoder, input, context))
}

/// The `differential` target: the fuzz input is the bytes to decode.
pub fn differential_target(
    data: &[u8],
    decoders: &[&dyn Decoder],
    report_dir: &Path,
) -> Option<Finding> {
    differential("differential", data, decoders, report_dir)
}

/// The `structured` target: the fuzz input is an [`arbitrary`]-encoded [`Program`], turned
/// into bytes and checked like `differential`. Inputs too short to build a program are
/// skipped (`None`).
pub fn structured_target(
    data: &[u8],
    decoders: &[&dyn Decoder],
    report_dir: &Path,
) -> Option<Finding> {
    let program = Program::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    differential("structured", &program.to_bytes(), decoders, report_dir)
}

/// The `streaming` target: a chunk plan and a text (the format of [`CycledSizes`]); every
/// streaming decoder, fed the chunks, against the reference on the whole text.
pub fn streaming_target(
    data: &[u8],
    streamers: &[&dyn StreamingDecoder],
    report_dir: &Path,
) -> Option<Finding> {
    let (plan, text) = CycledSizes::parse(data);
    let conditions = plan.describe();
    let context = FuzzContext {
        target: "streaming",
        conditions: Some(&conditions),
        report_dir,
    };
    streamers.iter().find_map(|&streamer| {
        let chunked = Chunked::new(streamer, ChunkPlan::Cycled(plan.clone()));
        check_pair(&chunked, text, context)
    })
}

/// A copy of `bytes` starting at `offset` bytes past a 64-byte boundary.
pub struct AlignedCopy {
    buffer: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedCopy {
    /// Copies `bytes` so that the copy's address is `offset` (mod 64).
    pub fn new(bytes: &[u8], offset: usize) -> AlignedCopy {
        let mut buffer = vec![0u8; bytes.len() + 128];
        let address = buffer.as_ptr() as usize;
        // The first index whose address is `offset` past a 64-byte boundary.
        let start = (offset % 64 + 64 - address % 64) % 64;
        buffer[start..start + bytes.len()].copy_from_slice(bytes);
        AlignedCopy {
            buffer,
            start,
            len: bytes.len(),
        }
    }

    /// The copied bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.buffer[self.start..self.start + self.len]
    }
}

/// A decoder called on a copy of its input placed `offset` bytes past a 64-byte boundary.
pub struct AlignedDecoder<'a> {
    decoder: &'a dyn Decoder,
    offset: usize,
}

impl<'a> AlignedDecoder<'a> {
    /// `decoder`, at alignment `offset` (0..=63).
    pub fn new(decoder: &'a dyn Decoder, offset: usize) -> Self {
        AlignedDecoder { decoder, offset }
    }
}

impl Decoder for AlignedDecoder<'_> {
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
        self.decoder
            .decode_into(AlignedCopy::new(input, self.offset).bytes(), outcome)
    }
}

/// The `backends` target: every backend, called explicitly, on the input placed at every
/// alignment offset 0..=63, against the reference.
pub fn backends_target(
    data: &[u8],
    backends: &[&dyn Decoder],
    report_dir: &Path,
) -> Option<Finding> {
    // The reference does not depend on alignment: decode once, then only compare.
    let reference = Reference::rfc3629().decode(data);
    for &backend in backends {
        let mut outcome = Outcome::verdict(backend.name(), true);
        for offset in ALIGNMENT_OFFSETS {
            let aligned = AlignedDecoder::new(backend, offset);
            let checked = check_decoder(
                &aligned,
                aligned.capabilities(),
                data,
                &reference,
                &mut outcome,
            );
            if checked.comparison.primary.is_none() {
                continue;
            }
            let conditions = format!("input placed {offset} bytes past a 64-byte boundary");
            let context = FuzzContext {
                target: "backends",
                conditions: Some(&conditions),
                report_dir,
            };
            return check_pair(&aligned, data, context);
        }
    }
    None
}
