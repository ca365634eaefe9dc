//! The fast decoder's backends (`utf8conf::fast`), each called by name, not through the
//! dispatcher, so that every backend this CPU can run is fuzzed and covered, whichever one
//! `fast::Backend::best()` would pick.
//!
//! Per backend the `backends` target runs:
//!
//! - `fast-<backend>`: the library's own per-backend decoder
//!   (`utf8conf::decoders::fast::FastDecoder`): `validate_with` for the strict result,
//!   `decode_utf32_with` (or `decode_lossy_into_with` on ill-formed input) for the scalars;
//! - `fast-<backend>-utf32` ([`ResumedUtf32`]): `decode_utf32_with`, resumed after each error
//!   unit the way a caller builds lossy decoding from a strict decoder (skip `error_len`
//!   bytes, or the rest when it is `None`). It reports the strict result, the scalars and
//!   every error unit, and so runs the UTF-32 kernel from every error onward, at every
//!   alignment the error leaves it.
//!
//! And the `streaming` target runs the streaming decoder over each backend
//! (`utf8conf::decoders::fast::FastStream`, `fast-stream-<backend>`), fed in the fuzz
//! input's own chunk plan.

use utf8conf::decoders::fast::FastDecoder;
use utf8conf::decoders::{reset_outcome, reuse_errors, reuse_scalars, Capabilities, Decoder};
use utf8conf::fast::{self, Backend};
use utf8conf::outcome::{DecoderFailure, ErrorLen, ErrorUnit, FailureKind, Outcome, REPLACEMENT};

/// The backends this CPU can run, in `Backend::all()` order.
pub fn available_backends() -> Vec<Backend> {
    Backend::all()
        .iter()
        .copied()
        .filter(|backend| backend.is_available())
        .collect()
}

/// One backend's `decode_utf32_with`, resumed after each error (see the module header).
pub struct ResumedUtf32 {
    backend: Backend,
    name: String,
}

impl ResumedUtf32 {
    /// The resumed UTF-32 decoder of `backend`.
    pub fn new(backend: Backend) -> ResumedUtf32 {
        ResumedUtf32 {
            backend,
            name: format!("fast-{}-utf32", backend.name()),
        }
    }
}

impl Decoder for ResumedUtf32 {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        format!("utf8conf {} ({})", env!("CARGO_PKG_VERSION"), self.backend)
    }

    fn description(&self) -> &str {
        "utf8conf fast decode_utf32_with, one backend, resumed after each error unit"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        reset_outcome(outcome, &self.name);
        let mut scalars = reuse_scalars(outcome);
        let mut errors = reuse_errors(outcome);
        let mut offset = 0;
        while offset < input.len() {
            let result = fast::decode_utf32_with(self.backend, &input[offset..], &mut scalars)
                .ok_or_else(|| DecoderFailure {
                    kind: FailureKind::Crash,
                    message: format!("backend {} is not available", self.backend),
                })?;
            let Err(error) = result else { break };
            let at = offset + error.valid_up_to();
            let rest = input.len() - at;
            // `None`: an incomplete character runs to the end; it is one unit.
            let len = error.error_len().unwrap_or(rest).clamp(1, rest.max(1));
            if outcome.valid {
                outcome.set_first_error(at, ErrorLen::from_std(error.error_len()));
            }
            errors.push(ErrorUnit {
                offset: at,
                len,
                category: None,
            });
            scalars.push(REPLACEMENT);
            offset = at + len;
        }
        outcome.scalars = Some(scalars);
        outcome.errors = Some(errors);
        Ok(())
    }
}

/// Per available backend: the library's `fast-<backend>` and [`ResumedUtf32`].
pub fn backend_decoders() -> Vec<Box<dyn Decoder>> {
    let mut decoders: Vec<Box<dyn Decoder>> = Vec::new();
    for backend in available_backends() {
        if let Some(decoder) = FastDecoder::with_backend(backend) {
            decoders.push(Box::new(decoder));
        }
        decoders.push(Box::new(ResumedUtf32::new(backend)));
    }
    decoders
}
