//! Encoders outside the harness's process: an adapter program in the protocol's encode
//! mode (docs/PROTOCOL.md, "Encode mode"), or a C library's encode function under
//! `--lib` (include/utf8conf.h). Both go through the decoders' supervisors unchanged:
//! the same pipelining, time limits, retries, circuit breaker, out-of-step detection and
//! process-tree cleanup, so a hostile encoder is held exactly as a hostile decoder is.
//!
//! The supervisors hand each answer on as an [`Outcome`](crate::outcome::Outcome); an encoder's answer rides in
//! it as [`encoded_from`] reads it back: `valid` is the encoder's `ok`, `valid_up_to` the
//! element it refused (`error_at`), and `scalars` the bytes it wrote, one per value.

use std::sync::Mutex;
use std::time::Instant;

use super::{AdapterConfig, AdapterError, BatchAnswers, ExternalDecoder, Stop};
use crate::encoders::{CodeUnits, Encoded, Encoder, Form};
use crate::outcome::Answer;

/// What carries the frames: an adapter process, or a library worker
/// (the library worker's supervisor in `native/` implements it beside its decoder).
pub trait Carrier: Send + Sync {
    /// Sends `frames` in one pipelined batch and collects the answers.
    fn send(&self, frames: &[&[u8]]) -> BatchAnswers;
    /// Sets the time after which no answer is awaited ([`Stop::OutOfTime`]).
    fn set_deadline(&self, deadline: Option<Instant>);
    /// Restarts and flaky failures so far.
    fn restarts(&self) -> u64;
}

impl Carrier for ExternalDecoder {
    fn send(&self, frames: &[&[u8]]) -> BatchAnswers {
        self.decode_batch(frames)
    }

    fn set_deadline(&self, deadline: Option<Instant>) {
        ExternalDecoder::set_deadline(self, deadline);
    }

    fn restarts(&self) -> u64 {
        self.statistics().restarts
    }
}

/// An encoder in another process, graded like any [`Encoder`].
pub struct ExternalEncoder {
    carrier: Box<dyn Carrier>,
    name: String,
    version: String,
    description: String,
    form: Form,
    stop: Mutex<Option<Stop>>,
}

impl ExternalEncoder {
    /// Starts an encoder adapter and reads its hello, which must name the encode mode.
    pub fn start(config: AdapterConfig) -> Result<ExternalEncoder, AdapterError> {
        let decoder = ExternalDecoder::start(config)?;
        let Some(form) = decoder.hello().encode else {
            return Err(AdapterError(format!(
                "adapter `{}` is a decoder (its hello has no \"encode\": \"utf16\" or \"utf32\"; see docs/PROTOCOL.md, \"Encode mode\")",
                decoder.argv().join(" ")
            )));
        };
        Ok(ExternalEncoder {
            name: decoder.hello().name.clone(),
            version: decoder.hello().version.clone(),
            description: format!("encoder adapter: {}", decoder.argv().join(" ")),
            form,
            carrier: Box::new(decoder),
            stop: Mutex::new(None),
        })
    }

    /// An encoder whose frames `carrier` carries, reported as `name`, `version` and
    /// `description`, taking code units of `form`.
    pub fn with_carrier(
        carrier: Box<dyn Carrier>,
        name: String,
        version: String,
        description: String,
        form: Form,
    ) -> ExternalEncoder {
        ExternalEncoder {
            carrier,
            name,
            version,
            description,
            form,
            stop: Mutex::new(None),
        }
    }

    /// Reports under `name` instead of the adapter's or symbol's.
    pub fn rename(&mut self, name: String) {
        self.name = name;
    }

    /// The form of code units the encoder takes.
    pub fn form(&self) -> Form {
        self.form
    }

    /// What the encoder said its version is.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Sets the time after which grading stops ([`Stop::OutOfTime`]).
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        self.carrier.set_deadline(deadline);
    }

    /// Why the encoder stopped answering, once it has.
    pub fn stop(&self) -> Option<Stop> {
        self.stop
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Restarts and flaky failures so far, for the verdict line.
    pub fn restarts(&self) -> u64 {
        self.carrier.restarts()
    }
}

/// Reads an encoder's answer back from the [`Outcome`](crate::outcome::Outcome) the supervisor passed on (see the
/// module header), or its failure.
pub fn encoded_from(answer: Answer) -> Encoded {
    match answer {
        Ok(outcome) if outcome.valid => Encoded::Bytes(
            outcome
                .scalars
                .unwrap_or_default()
                .into_iter()
                .map(|byte| byte as u8)
                .collect(),
        ),
        Ok(outcome) => Encoded::Refused {
            position: outcome.valid_up_to,
        },
        Err(failure) => Encoded::Failed {
            kind: failure.kind,
            message: failure.message,
        },
    }
}

impl Encoder for ExternalEncoder {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn forms(&self) -> &'static [Form] {
        match self.form {
            Form::Utf16 => &[Form::Utf16],
            Form::Utf32 => &[Form::Utf32],
        }
    }

    /// One input; after a stop, a `crash` naming why.
    fn encode(&self, input: &CodeUnits) -> Encoded {
        self.encode_batch(&[input])
            .pop()
            .unwrap_or_else(|| Encoded::Failed {
                kind: crate::outcome::FailureKind::Crash,
                message: self.stopped().unwrap_or_default(),
            })
    }

    /// Pipelined through the supervisor. Once it stops (unusable, time limit, signal),
    /// the inputs not answered get no answer, and [`Encoder::stopped`] says why.
    fn encode_batch(&self, inputs: &[&CodeUnits]) -> Vec<Encoded> {
        let frames: Vec<Vec<u8>> = inputs.iter().map(|input| input.to_frame()).collect();
        let views: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        let batch = self.carrier.send(&views);
        if let Some(stop) = &batch.stopped {
            self.stop
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .get_or_insert_with(|| stop.clone());
        }
        batch.answers.into_iter().map(encoded_from).collect()
    }

    fn stopped(&self) -> Option<String> {
        self.stop().map(|stop| stop.to_string())
    }
}
