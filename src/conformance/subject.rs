//! The decoder under check: a built-in decoder called in process, or an external adapter
//! fed in pipelined batches.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::adapter::{interrupt, BatchAnswers, ExternalDecoder, Stop};
use crate::decoders::{Capabilities, Decoder, DecoderFailure, FailureKind};

/// A decoder being checked.
#[derive(Clone, Copy)]
pub enum Subject<'a> {
    /// A decoder in this process (a panic is contained and reported as a `crash`).
    InProcess(&'a dyn Decoder),
    /// An adapter program behind the protocol.
    External(&'a ExternalDecoder),
}

impl Subject<'_> {
    /// The decoder's name.
    pub fn name(&self) -> &str {
        self.decoder().name()
    }

    /// The decoder's version.
    pub fn version(&self) -> String {
        self.decoder().version()
    }

    /// What it reported (for an adapter: the fields seen in its answers so far).
    pub fn capabilities(&self) -> Capabilities {
        self.decoder().capabilities()
    }

    /// The adapter's argv, for an external decoder.
    pub fn command(&self) -> Option<Vec<String>> {
        match self {
            Subject::InProcess(_) => None,
            Subject::External(external) => Some(external.argv().to_vec()),
        }
    }

    fn decoder(&self) -> &dyn Decoder {
        match *self {
            Subject::InProcess(decoder) => decoder,
            Subject::External(external) => external,
        }
    }

    /// Decodes a batch; one result per input, unless it stopped early (an adapter that is
    /// unusable, a signal, the deadline).
    pub fn decode_batch(&self, inputs: &[&[u8]]) -> BatchAnswers {
        match *self {
            Subject::External(external) => external.decode_batch(inputs),
            Subject::InProcess(_) if interrupt::requested() => BatchAnswers {
                answers: Vec::new(),
                stopped: Some(Stop::Interrupted),
            },
            Subject::InProcess(decoder) => BatchAnswers {
                stopped: None,
                answers: inputs
                    .iter()
                    .map(|input| {
                        catch_unwind(AssertUnwindSafe(|| decoder.decode(input))).unwrap_or_else(
                            |panic| {
                                let message = panic
                                    .downcast_ref::<&str>()
                                    .map(|s| s.to_string())
                                    .or_else(|| panic.downcast_ref::<String>().cloned())
                                    .unwrap_or_else(|| "panic".into());
                                Err(DecoderFailure {
                                    kind: FailureKind::Crash,
                                    message: format!("panicked: {message}"),
                                })
                            },
                        )
                    })
                    .collect(),
            },
        }
    }
}
