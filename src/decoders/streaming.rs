//! Streaming decoders, and the adapter that makes one a [`Decoder`] by cutting each input
//! into chunks.
//!
//! A streaming decoder takes its input in pieces and keeps state between them (a sequence
//! whose first bytes arrived in the previous chunk). [`StreamingDecoder`] is that decoder,
//! whatever cuts the input; [`Chunked`] pairs one with a [`ChunkPlan`]: the engine's
//! per-input plan (`encoding_rs-chunked`, `fast-stream`), or the fuzz crate's cycled chunk
//! sizes read from the fuzz input. The fuzz crate uses these same types, so a streaming
//! decoder is written once.

use super::chunk_plan::ChunkPlan;
use super::{Capabilities, Decoder};
use crate::outcome::{DecoderFailure, Outcome};

/// A decoder that takes its input in chunks.
pub trait StreamingDecoder: Send + Sync {
    /// The name used on the command line and in reports.
    fn name(&self) -> &str;
    /// The decoder's version.
    fn version(&self) -> String;
    /// One line saying what is called.
    fn description(&self) -> &str;
    /// Which outcome fields it reports.
    fn capabilities(&self) -> Capabilities;
    /// Decodes `chunks`, fed in order and then told the input has ended, as one input into
    /// `outcome`, with the contract of [`Decoder::decode_into`]: every field is set, and
    /// offsets count from the start of the first chunk.
    fn decode_chunks(&self, chunks: &[&[u8]], outcome: &mut Outcome);
}

impl<T: StreamingDecoder + ?Sized> StreamingDecoder for &T {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn version(&self) -> String {
        (**self).version()
    }

    fn description(&self) -> &str {
        (**self).description()
    }

    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }

    fn decode_chunks(&self, chunks: &[&[u8]], outcome: &mut Outcome) {
        (**self).decode_chunks(chunks, outcome)
    }
}

/// A streaming decoder fed each input cut by a chunk plan: a [`Decoder`] under the
/// streaming decoder's name.
pub struct Chunked<S> {
    streamer: S,
    plan: ChunkPlan,
}

impl<S: StreamingDecoder> Chunked<S> {
    /// `streamer` fed each input in that input's own plan ([`ChunkPlan::PerInput`]).
    pub fn per_input(streamer: S) -> Chunked<S> {
        Chunked::new(streamer, ChunkPlan::PerInput)
    }

    /// `streamer` fed each input cut by `plan`.
    pub fn new(streamer: S, plan: ChunkPlan) -> Chunked<S> {
        Chunked { streamer, plan }
    }
}

impl<S: StreamingDecoder> Decoder for Chunked<S> {
    fn name(&self) -> &str {
        self.streamer.name()
    }

    fn version(&self) -> String {
        self.streamer.version()
    }

    fn description(&self) -> &str {
        self.streamer.description()
    }

    fn capabilities(&self) -> Capabilities {
        self.streamer.capabilities()
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        self.plan
            .with_chunks(input, |chunks| self.streamer.decode_chunks(chunks, outcome));
        Ok(())
    }
}
