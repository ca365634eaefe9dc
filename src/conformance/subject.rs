//! The decoder under check: a built-in decoder called in process (each call contained by
//! the grading core, [`crate::diagnosis::decode_contained`]), an external adapter fed in
//! pipelined batches, or a C library in its worker process.

use crate::adapter::{interrupt, BatchAnswers, ExternalDecoder, ProcessStatistics, Stop};
use crate::decoders::{Capabilities, Decoder};

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

    /// What happened to the decoder's processes (restarts, flaky inputs, memory deaths),
    /// for a decoder outside this process.
    pub fn statistics(&self) -> Option<ProcessStatistics> {
        match self {
            Subject::InProcess(_) => None,
            Subject::External(external) => Some(external.statistics()),
            #[cfg(unix)]
            Subject::Native(native) => Some(native.statistics()),
        }
    }

    /// Sets the deadline of the whole check, for a decoder outside this process.
    pub fn set_deadline(&self, deadline: Option<std::time::Instant>) {
        match self {
            Subject::InProcess(_) => {}
            Subject::External(external) => external.set_deadline(deadline),
            #[cfg(unix)]
            Subject::Native(native) => native.set_deadline(deadline),
        }
    }

    pub(crate) fn decoder(&self) -> &dyn Decoder {
        match *self {
            Subject::InProcess(decoder) => decoder,
            Subject::External(external) => external,
            #[cfg(unix)]
            Subject::Native(native) => native,
        }
    }

    /// Decodes a batch; one result per input, unless it stopped early (an adapter that is
    /// unusable, a signal, the deadline). A built-in decoder's calls are contained by the
    /// grading core ([`crate::diagnosis::decode_contained`]).
    pub fn decode_batch(&self, inputs: &[&[u8]]) -> BatchAnswers {
        match *self {
            Subject::External(external) => external.decode_batch(inputs),
            #[cfg(unix)]
            Subject::Native(native) => native.decode_batch(inputs),
            Subject::InProcess(_) if interrupt::requested() => BatchAnswers {
                answers: Vec::new(),
                stopped: Some(Stop::Interrupted),
            },
            Subject::InProcess(decoder) => {
                let owned: Vec<Vec<u8>> = inputs.iter().map(|input| input.to_vec()).collect();
                BatchAnswers {
                    answers: crate::diagnosis::decode_contained(decoder, &owned),
                    stopped: None,
                }
            }
        }
    }
}
