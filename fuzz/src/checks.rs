//! What each fuzz target checks, as plain functions of the fuzz input.
//!
//! The targets in `fuzz_targets/` are thin: they call these functions and hand a finding to
//! [`crate::findings`]. `cargo test` (`tests/fuzz_replay.rs`) calls the same functions on
//! every corpus and regression file, so a file replays exactly as its target ran it, on
//! stable Rust and without libFuzzer.
//!
//! Every target reduces to one question, asked in [`check_pair`]: does this [`Decoder`]
//! agree with the reference on these bytes? A streaming decoder fed in the input's chunk
//! plan ([`ChunkedDecoder`]) and a backend called on a copy of the bytes at an alignment
//! offset ([`AlignedDecoder`]) are decoders too, so the comparison, the signature and the
//! minimisation are the same for all four targets. A finding's input is already minimised:
//! the smallest input, found by removing bytes, on which the same decoder, under the same
//! conditions (chunk sizes, alignment offset), still diverges with the same signature.

use arbitrary::{Arbitrary, Unstructured};
use utf8conf::corpus::Origin;
use utf8conf::decoders::{Capabilities, Decoder, DecoderFailure};
use utf8conf::hex::format_hex;
use utf8conf::outcome::Outcome;

use crate::compare::{compare, minimize, reference_outcome, Divergence, Finding};
use crate::program::Program;
use crate::streaming::{ChunkPlan, StreamingDecoder};

/// The alignment offsets the `backends` target tries: every offset in a 64-byte line.
pub const ALIGNMENT_OFFSETS: std::ops::RangeInclusive<usize> = 0..=63;

/// Runs `decoder` on `input` and compares it with the reference outcome.
fn diverges(decoder: &dyn Decoder, input: &[u8], reference: &Outcome) -> Option<Divergence> {
    let outcome = match decoder.decode(input) {
        Ok(outcome) => outcome,
        Err(failure) => {
            let mut outcome = Outcome::verdict(decoder.name(), false);
            outcome.error = Some(failure.message);
            return Some(Divergence {
                reference: reference.clone(),
                other: outcome,
                aspect: failure.kind.as_str(),
                categories: Vec::new(),
            });
        }
    };
    compare(input, reference, &outcome, decoder.capabilities())
}

/// How a finding is reproduced and described, beyond the decoder and the bytes.
struct Context<'a> {
    /// The fuzz target.
    target: &'a str,
    /// The raw fuzz input.
    fuzz_input: &'a [u8],
    /// The conditions the decoder ran under, in words (chunk plan, alignment offset).
    conditions: Option<String>,
    /// The fuzz input that reproduces the finding from the minimised bytes.
    reproducer: fn(&[u8]) -> Vec<u8>,
}

/// `decoder` against the reference on `input`; on a divergence, the minimised finding.
fn check_pair(decoder: &dyn Decoder, input: &[u8], context: Context<'_>) -> Option<Finding> {
    let divergence = diverges(decoder, input, &reference_outcome(input))?;
    let signature = divergence.signature();
    let minimized = minimize(input, |candidate| {
        diverges(decoder, candidate, &reference_outcome(candidate))
            .is_some_and(|found| found.signature() == signature)
    });
    let reproduce = reproduce_command(context.target, decoder.name(), &{
        (context.reproducer)(&minimized)
    });
    Some(Finding {
        divergence,
        input: input.to_vec(),
        minimized,
        fuzz_input: context.fuzz_input.to_vec(),
        conditions: context.conditions,
        origin: Origin::Fuzz {
            target: context.target.to_string(),
        },
        reproduce,
    })
}

/// The first divergence of any of `decoders` from the reference on plain bytes.
fn differential(
    target: &str,
    fuzz_input: &[u8],
    input: &[u8],
    decoders: &[&dyn Decoder],
) -> Option<Finding> {
    decoders.iter().find_map(|&decoder| {
        check_pair(
            decoder,
            input,
            Context {
                target,
                fuzz_input,
                conditions: None,
                reproducer: <[u8]>::to_vec,
            },
        )
    })
}

/// The `differential` target: the fuzz input is the bytes to decode.
pub fn differential_target(data: &[u8], decoders: &[&dyn Decoder]) -> Option<Finding> {
    differential("differential", data, data, decoders)
}

/// The `structured` target: the fuzz input is an [`arbitrary`]-encoded [`Program`], turned
/// into bytes and checked like `differential`. Inputs too short to build a program are
/// skipped (`None`).
pub fn structured_target(data: &[u8], decoders: &[&dyn Decoder]) -> Option<Finding> {
    let program = Program::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    differential("structured", data, &program.to_bytes(), decoders)
}

/// A streaming decoder fed its input in a fixed chunk plan, as a [`Decoder`].
pub struct ChunkedDecoder<'a> {
    streamer: &'a dyn StreamingDecoder,
    sizes: Vec<usize>,
}

impl<'a> ChunkedDecoder<'a> {
    /// `streamer`, fed in chunks of `sizes` (cycled; empty: one chunk).
    pub fn new(streamer: &'a dyn StreamingDecoder, sizes: Vec<usize>) -> Self {
        ChunkedDecoder { streamer, sizes }
    }
}

impl Decoder for ChunkedDecoder<'_> {
    fn name(&self) -> &str {
        self.streamer.name()
    }

    fn version(&self) -> String {
        String::new()
    }

    fn description(&self) -> &str {
        "a streaming decoder fed in the chunk plan of the fuzz input"
    }

    fn capabilities(&self) -> Capabilities {
        self.streamer.capabilities()
    }

    fn decode(&self, input: &[u8]) -> Result<Outcome, DecoderFailure> {
        let plan = ChunkPlan {
            sizes: self.sizes.clone(),
            text: input,
        };
        Ok(self.streamer.decode_chunks(&plan.chunks()))
    }
}

/// The `streaming` target: a chunk plan and a text (see [`crate::streaming`]); every
/// streaming decoder, fed the chunks, against the reference on the whole text.
pub fn streaming_target(data: &[u8], streamers: &[&dyn StreamingDecoder]) -> Option<Finding> {
    let plan = ChunkPlan::parse(data);
    streamers.iter().find_map(|&streamer| {
        let chunked = ChunkedDecoder::new(streamer, plan.sizes.clone());
        let sizes = plan.sizes.clone();
        let finding = check_pair(
            &chunked,
            plan.text,
            Context {
                target: "streaming",
                fuzz_input: data,
                conditions: Some(plan.describe()),
                reproducer: |text| text.to_vec(),
            },
        )?;
        // The reproducer needs the plan in front of the minimised text.
        Some(Finding {
            reproduce: fuzz_reproduce_command(
                "streaming",
                &ChunkPlan::encode(&sizes, &finding.minimized),
            ),
            ..finding
        })
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

    fn decode(&self, input: &[u8]) -> Result<Outcome, DecoderFailure> {
        self.decoder
            .decode(AlignedCopy::new(input, self.offset).bytes())
    }
}

/// The `backends` target: every backend, called explicitly, on the input placed at every
/// alignment offset 0..=63, against the reference.
pub fn backends_target(data: &[u8], backends: &[&dyn Decoder]) -> Option<Finding> {
    let reference = reference_outcome(data);
    for &backend in backends {
        for offset in ALIGNMENT_OFFSETS {
            let aligned = AlignedDecoder::new(backend, offset);
            // The reference outcome does not depend on alignment: decode it once.
            if diverges(&aligned, data, &reference).is_none() {
                continue;
            }
            return check_pair(
                &aligned,
                data,
                Context {
                    target: "backends",
                    fuzz_input: data,
                    conditions: Some(format!(
                        "input placed {offset} bytes past a 64-byte boundary"
                    )),
                    reproducer: <[u8]>::to_vec,
                },
            );
        }
    }
    None
}

/// A shell command that replays `data` through a fuzz target.
fn fuzz_reproduce_command(target: &str, data: &[u8]) -> String {
    let escaped: String = data.iter().map(|byte| format!("\\x{byte:02x}")).collect();
    format!("printf '{escaped}' > case && cargo fuzz run {target} case")
}

/// The command that reproduces a finding: `utf8conf decode` for a built-in decoder on plain
/// bytes, else the fuzz target on `data` (plain bytes from `structured` go to
/// `differential`).
fn reproduce_command(target: &str, decoder: &str, data: &[u8]) -> String {
    let plain_bytes = matches!(target, "differential" | "structured");
    if plain_bytes && utf8conf::decoders::by_name(decoder).is_some() {
        return format!(
            "utf8conf decode --decoder {decoder} --hex '{}'",
            format_hex(data)
        );
    }
    let target = if target == "structured" {
        "differential"
    } else {
        target
    };
    let command = fuzz_reproduce_command(target, data);
    if decoder == crate::buggy::NAME {
        command.replace(
            "cargo fuzz run",
            "cargo fuzz run --features buggy-above-max",
        )
    } else {
        command
    }
}
