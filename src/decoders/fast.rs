//! The project's optimised decoder ([`crate::fast`]) as decoders, one per backend.
//!
//! The engine tests every backend that this CPU can run, each as its own decoder, so that
//! a bug in one instruction set's code is reported under that backend's name:
//!
//! - `fast`: the public entry points, dispatched to the best backend;
//! - `fast-scalar`, `fast-sse42`, `fast-avx2`, `fast-avx512`, `fast-neon`: one backend
//!   each, listed only where [`Backend::is_available`];
//! - `fast-stream`: the streaming decoder ([`FastStream`]) fed in the input's chunk plan
//!   ([`super::chunk_plan`]), reporting every error unit as it decides it.
//!
//! A one-shot backend reports `valid`, `valid_up_to` and `error_len` from its validator,
//! and `scalars` from its UTF-32 kernel when the kernel reports success, else from its
//! lossy decoder (`decode_lossy_into`, which shares all but its output buffer with
//! `decode_lossy`, into a reused buffer). So the kernel is checked on every well-formed
//! input (a wrong scalar, or a failure on good input, leaves other scalars than the
//! reference's), and the lossy decoder on every ill-formed one; a kernel that accepts ill-formed input returns
//! scalars without U+FFFD, which differ too.

use std::cell::RefCell;

use super::streaming::{Chunked, StreamingDecoder};
use super::{push_scalars, reset_outcome, reuse_errors, reuse_scalars, Capabilities, Decoder};
use crate::fast::stream::{ErrorUnit as StreamUnit, Sink, StreamDecoder};
use crate::fast::{decode_lossy_into_with, decode_utf32_with, validate_with, Backend, Utf8Error};
use crate::outcome::{DecoderFailure, ErrorLen, ErrorUnit, Outcome};

/// The version string of the fast decoder: it is part of this crate.
fn own_version(backend: Backend) -> String {
    format!("utf8conf {} ({backend})", env!("CARGO_PKG_VERSION"))
}

thread_local! {
    /// The lossy decode's text, reused from input to input (`decode_lossy_into`), so
    /// that decoding allocates nothing once the buffers have grown.
    static LOSSY: RefCell<String> = const { RefCell::new(String::new()) };
}

/// One backend of the fast decoder, or the dispatched entry points.
pub struct FastDecoder {
    name: String,
    backend: Backend,
    dispatched: bool,
}

impl FastDecoder {
    /// The dispatched decoder (`fast`), using [`Backend::best`].
    pub fn dispatched() -> FastDecoder {
        FastDecoder {
            name: "fast".to_string(),
            backend: Backend::best(),
            dispatched: true,
        }
    }

    /// The decoder of one backend (`fast-<backend>`), if it is available here.
    pub fn with_backend(backend: Backend) -> Option<FastDecoder> {
        backend.is_available().then(|| FastDecoder {
            name: format!("fast-{}", backend.name()),
            backend,
            dispatched: false,
        })
    }
}

impl Decoder for FastDecoder {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        own_version(self.backend)
    }

    fn description(&self) -> &str {
        if self.dispatched {
            "utf8conf fast decoder, dispatched: validate (strict), decode_utf32 / decode_lossy_into (scalars)"
        } else {
            "utf8conf fast decoder, one backend: validate_with (strict), decode_utf32_with / decode_lossy_into_with (scalars)"
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::FIRST_ERROR_AND_SCALARS
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, &self.name);
        outcome.errors = None;
        let unavailable = || DecoderFailure {
            kind: crate::outcome::FailureKind::Crash,
            message: format!("backend {} is not available", self.backend),
        };
        // Each result is taken apart where it is returned, in each branch, not moved into
        // one variable first: that move read the 16-byte `Result<(), Utf8Error>` back with
        // one wide load just after the backend wrote it field by field: a store that
        // cannot be forwarded, stalling each call (docs/PROOFS.md, "Time").
        if self.dispatched {
            note_strict(outcome, crate::fast::validate(input));
        } else {
            match validate_with(self.backend, input) {
                Some(strict) => note_strict(outcome, strict),
                None => return Err(unavailable()),
            }
        }
        let mut scalars = reuse_scalars(outcome);
        let kernel_failed = if self.dispatched {
            crate::fast::decode_utf32(input, &mut scalars).is_err()
        } else {
            match decode_utf32_with(self.backend, input, &mut scalars) {
                Some(kernel) => kernel.is_err(),
                None => return Err(unavailable()),
            }
        };
        if kernel_failed && !outcome.valid {
            scalars.clear();
            LOSSY.with(|text| {
                let mut text = text.borrow_mut();
                text.clear();
                if self.dispatched {
                    crate::fast::decode_lossy_into(input, &mut text);
                } else {
                    decode_lossy_into_with(self.backend, input, &mut text)
                        .ok_or_else(unavailable)?;
                }
                push_scalars(&mut scalars, &text);
                Ok(())
            })?;
        }
        outcome.scalars = Some(scalars);
        Ok(())
    }
}

/// Sets the strict fields of `outcome` from a validator's result.
#[inline(always)]
fn note_strict(outcome: &mut Outcome, strict: Result<(), Utf8Error>) {
    if let Err(error) = strict {
        outcome.set_first_error(error.valid_up_to(), ErrorLen::from_std(error.error_len()));
    }
}

/// The streaming decoder over one backend: `fast-stream` over [`Backend::best`], or
/// `fast-stream-<backend>` over one backend (the fuzz crate runs every available one).
pub struct FastStream {
    name: String,
    backend: Backend,
}

impl FastStream {
    /// `fast-stream`, over the best backend of this machine.
    pub fn best() -> FastStream {
        FastStream {
            name: "fast-stream".to_string(),
            backend: Backend::best(),
        }
    }

    /// `fast-stream-<backend>`, if the backend is available here.
    pub fn with_backend(backend: Backend) -> Option<FastStream> {
        backend.is_available().then(|| FastStream {
            name: format!("fast-stream-{}", backend.name()),
            backend,
        })
    }
}

impl StreamingDecoder for FastStream {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        own_version(self.backend)
    }

    fn description(&self) -> &str {
        "utf8conf fast streaming decoder fed in chunks"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode_chunks(&self, chunks: &[&[u8]], outcome: &mut Outcome) {
        reset_outcome(outcome, &self.name);
        let mut sink = OutcomeSink {
            scalars: reuse_scalars(outcome),
            errors: reuse_errors(outcome),
            first_at_end: false,
        };
        let mut decoder = StreamDecoder::with_backend(self.backend)
            .expect("FastStream is made only for available backends");
        for chunk in chunks {
            decoder.feed(chunk, &mut sink);
        }
        decoder.finish(&mut sink);
        if let Some(first) = sink.errors.first() {
            outcome.set_first_error(first.offset, ErrorLen::new(first.len, sink.first_at_end));
        }
        outcome.scalars = Some(sink.scalars);
        outcome.errors = Some(sink.errors);
    }
}

/// The streaming decoder's [`Sink`], writing straight into an outcome's buffers: the
/// text as scalars, the error units as the outcome's units.
struct OutcomeSink {
    scalars: Vec<u32>,
    errors: Vec<ErrorUnit>,
    /// Whether the first error unit is cut off by the end of input (`at_end`).
    first_at_end: bool,
}

impl Sink for OutcomeSink {
    fn text(&mut self, text: &str) {
        push_scalars(&mut self.scalars, text);
    }

    fn error(&mut self, unit: StreamUnit) {
        self.scalars.push(crate::outcome::REPLACEMENT);
        if self.errors.is_empty() {
            self.first_at_end = unit.at_end;
        }
        self.errors.push(ErrorUnit {
            offset: unit.offset as usize,
            len: unit.len,
            category: None,
        });
    }
}

/// Every fast decoder available on this machine: dispatched, each backend, streaming.
pub fn all() -> Vec<Box<dyn Decoder>> {
    let mut decoders: Vec<Box<dyn Decoder>> = vec![Box::new(FastDecoder::dispatched())];
    for &backend in Backend::all() {
        if let Some(decoder) = FastDecoder::with_backend(backend) {
            decoders.push(Box::new(decoder));
        }
    }
    decoders.push(Box::new(Chunked::per_input(FastStream::best())));
    decoders
}
