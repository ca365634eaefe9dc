//! The decoder under check: a built-in decoder called in process (each call contained by
//! the grading core, [`crate::diagnosis::decode_contained`]), or an external adapter fed
//! in pipelined batches.

use crate::adapter::{AdapterError, ExternalDecoder};
use crate::decoders::{Capabilities, Decoder, DecoderFailure};
use crate::outcome::Outcome;

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

    /// Decodes a batch; one result per input. Fails only when an adapter cannot be
    /// restarted.
    pub fn decode_batch(
        &self,
        inputs: &[&[u8]],
    ) -> Result<Vec<Result<Outcome, DecoderFailure>>, AdapterError> {
        match *self {
            Subject::External(external) => external.decode_batch(inputs),
            Subject::InProcess(decoder) => {
                let owned: Vec<Vec<u8>> = inputs.iter().map(|input| input.to_vec()).collect();
                Ok(crate::diagnosis::decode_contained(decoder, &owned))
            }
        }
    }
}
