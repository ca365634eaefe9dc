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
//! departs on the same aspect in the same way.
//!
//! Speed (coverage-guided fuzzing lives on executions per second): the clean path, where
//! every decoder agrees with the reference, allocates nothing once warm. A [`Screen`]
//! decodes the reference once per input into a reused buffer and runs each decoder into a
//! reused outcome, and asks the engine's cheap question ([`departs`]: strict verdict and
//! lengths first, stopping at the first difference, nothing recorded); only a decoder that
//! departs is handed to [`check_pair`], which compares aspect by aspect, builds the
//! signature, minimises and writes the report. The screen asks exactly the question
//! `check_pair` asks, against the same reference decode, so it never hides a finding
//! (`the_screen_picks_the_decoder_the_full_check_reports` in `tests/fuzz_replay.rs`).

use std::cell::RefCell;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use arbitrary::{Arbitrary, Unstructured};
use utf8conf::decoders::chunk_plan::{ChunkPlan, CycledSizes};
use utf8conf::decoders::streaming::{Chunked, StreamingDecoder};
use utf8conf::decoders::{Capabilities, Decoder};
use utf8conf::engine::check::departs;
use utf8conf::outcome::{DecoderFailure, Outcome};
use utf8conf::reference::{Decoded, Reference};

use crate::program::Program;
use crate::report::{check_pair, Finding, FuzzContext};

/// The alignment offsets the `backends` target tries: every offset in a 64-byte line.
pub const ALIGNMENT_OFFSETS: std::ops::RangeInclusive<usize> = 0..=63;

/// Reused buffers for checking decoders against the reference, one input at a time (see
/// the module header).
#[derive(Default)]
pub struct Screen {
    reference: Decoded,
    outcomes: Vec<Outcome>,
}

impl Screen {
    /// An empty screen; buffers grow on first use and are kept.
    pub fn new() -> Screen {
        Screen::default()
    }

    /// Decodes `input` with the reference, once, for the following [`Screen::departs`]
    /// calls.
    pub fn set_input(&mut self, input: &[u8]) {
        Reference::rfc3629().decode_into(input, &mut self.reference);
    }

    /// True when decoder number `slot` (`decoder`) departs from the reference on `input`
    /// (the input of the last [`Screen::set_input`]) in any aspect both report, or fails.
    pub fn departs(&mut self, slot: usize, decoder: &dyn Decoder, input: &[u8]) -> bool {
        if self.outcomes.len() <= slot {
            self.outcomes
                .resize_with(slot + 1, || Outcome::verdict("", true));
        }
        departs(
            decoder,
            decoder.capabilities(),
            input,
            &self.reference,
            &mut self.outcomes[slot],
        )
    }

    /// The first of `decoders` that departs from the reference on `input`.
    pub fn first_departing<'d>(
        &mut self,
        input: &[u8],
        decoders: &[&'d dyn Decoder],
    ) -> Option<&'d dyn Decoder> {
        self.set_input(input);
        decoders
            .iter()
            .enumerate()
            .find(|&(slot, &decoder)| self.departs(slot, decoder, input))
            .map(|(_, &decoder)| decoder)
    }
}

thread_local! {
    /// The screen of this thread (libFuzzer runs a target on one thread; `cargo test` on
    /// several).
    static SCREEN: RefCell<Screen> = RefCell::new(Screen::new());
}

/// The first departure of any of `decoders` from the reference on plain bytes.
fn differential(
    target: &str,
    input: &[u8],
    decoders: &[&dyn Decoder],
    report_dir: &Path,
) -> Option<Finding> {
    let departing = SCREEN.with(|screen| screen.borrow_mut().first_departing(input, decoders))?;
    let context = FuzzContext {
        target,
        conditions: None,
        report_dir,
    };
    check_pair(departing, input, context)
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
    let departing = SCREEN.with(|screen| {
        let mut screen = screen.borrow_mut();
        screen.set_input(text);
        streamers.iter().enumerate().find_map(|(slot, &streamer)| {
            let chunked = Chunked::new(streamer, ChunkPlan::Cycled(plan.clone()));
            screen.departs(slot, &chunked, text).then_some(chunked)
        })
    })?;
    check_pair(&departing, text, context)
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
        let mut copy = AlignedCopy {
            buffer: Vec::new(),
            start: 0,
            len: 0,
        };
        copy.place(bytes, offset);
        copy
    }

    /// Copies `bytes` into this buffer (grown if needed, never shrunk) so that the copy's
    /// address is `offset` (mod 64).
    pub fn place(&mut self, bytes: &[u8], offset: usize) {
        if self.buffer.len() < bytes.len() + 128 {
            self.buffer.resize(bytes.len() + 128, 0);
        }
        let address = self.buffer.as_ptr() as usize;
        // The first index whose address is `offset` past a 64-byte boundary.
        self.start = (offset % 64 + 64 - address % 64) % 64;
        self.len = bytes.len();
        self.buffer[self.start..self.start + self.len].copy_from_slice(bytes);
    }

    /// The copied bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.buffer[self.start..self.start + self.len]
    }
}

/// A decoder called on a copy of its input placed `offset` bytes past a 64-byte boundary
/// (one copy buffer, reused from call to call; `Decoder`s are `Sync`, hence the atomic and
/// the uncontended lock).
pub struct AlignedDecoder<'a> {
    decoder: &'a dyn Decoder,
    offset: AtomicUsize,
    copy: Mutex<AlignedCopy>,
}

impl<'a> AlignedDecoder<'a> {
    /// `decoder`, at alignment `offset` (0..=63).
    pub fn new(decoder: &'a dyn Decoder, offset: usize) -> Self {
        AlignedDecoder {
            decoder,
            offset: AtomicUsize::new(offset),
            copy: Mutex::new(AlignedCopy::new(&[], 0)),
        }
    }

    /// Moves the decoder to alignment `offset` (0..=63).
    pub fn set_offset(&self, offset: usize) {
        self.offset.store(offset, Ordering::Relaxed);
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
        let mut copy = self
            .copy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        copy.place(input, self.offset.load(Ordering::Relaxed));
        self.decoder.decode_into(copy.bytes(), outcome)
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
    let departing = SCREEN.with(|screen| {
        let mut screen = screen.borrow_mut();
        screen.set_input(data);
        for (slot, &backend) in backends.iter().enumerate() {
            let aligned = AlignedDecoder::new(backend, 0);
            for offset in ALIGNMENT_OFFSETS {
                aligned.set_offset(offset);
                if screen.departs(slot, &aligned, data) {
                    return Some((backend, offset));
                }
            }
        }
        None
    })?;
    let (backend, offset) = departing;
    let aligned = AlignedDecoder::new(backend, offset);
    let conditions = format!("input placed {offset} bytes past a 64-byte boundary");
    let context = FuzzContext {
        target: "backends",
        conditions: Some(&conditions),
        report_dir,
    };
    check_pair(&aligned, data, context)
}
