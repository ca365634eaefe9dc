//! The decoder under check: a built-in decoder called in process, or an external adapter
//! fed in pipelined batches, or a C library in its worker process.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::adapter::{AdapterError, ExternalDecoder};
use crate::decoders::{Capabilities, Decoder, DecoderFailure, FailureKind};
use crate::outcome::Outcome;

/// A decoder being checked.
#[derive(Clone, Copy)]
pub enum Subject<'a> {
    /// A decoder in this process (a panic is contained and reported as a `crash`).
    InProcess(&'a dyn Decoder),
    /// An adapter program behind the protocol.
    External(&'a ExternalDecoder),
    /// A C library in its worker process (`check --lib`).
    #[cfg(unix)]
    Native(&'a crate::native::NativeDecoder),
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
            #[cfg(unix)]
            Subject::Native(native) => Some(native.command()),
        }
    }

    fn decoder(&self) -> &dyn Decoder {
        match *self {
            Subject::InProcess(decoder) => decoder,
            Subject::External(external) => external,
            #[cfg(unix)]
            Subject::Native(native) => native,
        }
    }

    /// Decodes a batch; one result per input. Fails only when an adapter cannot be
    /// restarted.
    pub fn decode_batch(
        &self,
        inputs: &[&[u8]],
    ) -> Result<Vec<Result<Outcome, DecoderFailure>>, AdapterError> {
        match *self {
            Subject::External(external) => external.decode_batch(inputs),
            #[cfg(unix)]
            Subject::Native(native) => native.decode_batch(inputs),
            Subject::InProcess(decoder) => Ok(inputs
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
                .collect()),
        }
    }
}
