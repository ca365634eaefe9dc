//! What each fuzz target checks, as plain functions of the fuzz input.
//!
//! The targets in `fuzz_targets/` are thin: they call these functions and hand a finding to
//! [`crate::findings`]. `cargo test` (`tests/fuzz_replay.rs`) calls the same functions on
//! every corpus and regression file, so a file replays exactly as its target ran it, on
//! stable Rust and without libFuzzer.
//!
//! Every check returns a [`Finding`] whose input is already minimised: the smallest input,
//! found by removing bytes, on which the same decoder still diverges with the same signature.

use arbitrary::{Arbitrary, Unstructured};
use utf8conf::corpus::Origin;
use utf8conf::decoders::Decoder;
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

/// The first divergence of any of `decoders` from the reference on `input`, minimised.
pub fn differential(
    target: &str,
    fuzz_input: &[u8],
    input: &[u8],
    decoders: &[&dyn Decoder],
) -> Option<Finding> {
    let reference = reference_outcome(input);
    decoders.iter().find_map(|&decoder| {
        let divergence = diverges(decoder, input, &reference)?;
        let signature = divergence.signature();
        let minimized = minimize(input, |candidate| {
            diverges(decoder, candidate, &reference_outcome(candidate))
                .is_some_and(|found| found.signature() == signature)
        });
        Some(Finding {
            divergence,
            input: input.to_vec(),
            reproduce: reproduce_command(decoder.name(), &minimized),
            minimized,
            fuzz_input: fuzz_input.to_vec(),
            conditions: None,
            origin: Origin::Fuzz {
                target: target.to_string(),
            },
        })
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

/// The `streaming` target: a chunk plan and a text (see [`crate::streaming`]); every
/// streaming decoder, fed the chunks, against the reference on the whole text.
pub fn streaming_target(data: &[u8], streamers: &[&dyn StreamingDecoder]) -> Option<Finding> {
    let plan = ChunkPlan::parse(data);
    let reference = reference_outcome(plan.text);
    streamers.iter().find_map(|&streamer| {
        let outcome = streamer.decode_chunks(&plan.chunks());
        let divergence = compare(plan.text, &reference, &outcome, streamer.capabilities())?;
        let signature = divergence.signature();
        let minimized_data = minimize(data, |candidate| {
            let plan = ChunkPlan::parse(candidate);
            let outcome = streamer.decode_chunks(&plan.chunks());
            compare(
                plan.text,
                &reference_outcome(plan.text),
                &outcome,
                streamer.capabilities(),
            )
            .is_some_and(|found| found.signature() == signature)
        });
        let minimized_plan = ChunkPlan::parse(&minimized_data);
        Some(Finding {
            divergence,
            input: plan.text.to_vec(),
            minimized: minimized_plan.text.to_vec(),
            fuzz_input: data.to_vec(),
            conditions: Some(format!(
                "{} (minimised: {})",
                plan.describe(),
                minimized_plan.describe()
            )),
            origin: Origin::Fuzz {
                target: "streaming".to_string(),
            },
            reproduce: fuzz_reproduce_command("streaming", &minimized_data),
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

/// The `backends` target: every backend, called explicitly, on the input placed at every
/// alignment offset 0..=63, against the reference.
pub fn backends_target(data: &[u8], backends: &[&dyn Decoder]) -> Option<Finding> {
    let reference = reference_outcome(data);
    for &backend in backends {
        for offset in ALIGNMENT_OFFSETS {
            let copy = AlignedCopy::new(data, offset);
            let Some(divergence) = diverges(backend, copy.bytes(), &reference) else {
                continue;
            };
            let signature = divergence.signature();
            let minimized = minimize(data, |candidate| {
                let copy = AlignedCopy::new(candidate, offset);
                diverges(backend, copy.bytes(), &reference_outcome(candidate))
                    .is_some_and(|found| found.signature() == signature)
            });
            return Some(Finding {
                divergence,
                input: data.to_vec(),
                reproduce: fuzz_reproduce_command("backends", &minimized),
                minimized,
                fuzz_input: data.to_vec(),
                conditions: Some(format!(
                    "input placed {offset} bytes past a 64-byte boundary"
                )),
                origin: Origin::Fuzz {
                    target: "backends".to_string(),
                },
            });
        }
    }
    None
}

/// A shell command that replays `data` through a fuzz target.
fn fuzz_reproduce_command(target: &str, data: &[u8]) -> String {
    let escaped: String = data.iter().map(|byte| format!("\\x{byte:02x}")).collect();
    format!("printf '{escaped}' > case && cargo fuzz run {target} case")
}

/// The command that reproduces a differential finding (from either target that decodes
/// plain bytes): `utf8conf decode` for a built-in decoder, else the `differential` target on
/// the minimised bytes.
fn reproduce_command(decoder: &str, minimized: &[u8]) -> String {
    if utf8conf::decoders::by_name(decoder).is_some() {
        format!(
            "utf8conf decode --decoder {decoder} --hex '{}'",
            format_hex(minimized)
        )
    } else {
        let command = fuzz_reproduce_command("differential", minimized);
        if decoder == crate::buggy::NAME {
            command.replace(
                "cargo fuzz run",
                "cargo fuzz run --features buggy-above-max",
            )
        } else {
            command
        }
    }
}
