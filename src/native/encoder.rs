//! An encoder behind `--lib`: a C library's encode function called in the library
//! worker, under the same supervision as a library decoder. The encoder itself is the
//! adapter's [`ExternalEncoder`]; only the carrier of its frames differs.

use std::time::Instant;

use super::{NativeConfig, NativeDecoder};
use crate::adapter::encoder::{Carrier, ExternalEncoder};
use crate::adapter::{AdapterError, BatchAnswers};

impl Carrier for NativeDecoder {
    fn send(&self, frames: &[&[u8]]) -> BatchAnswers {
        self.decode_batch(frames)
    }

    fn set_deadline(&self, deadline: Option<Instant>) {
        NativeDecoder::set_deadline(self, deadline);
    }

    fn restarts(&self) -> u64 {
        NativeDecoder::restarts(self)
    }
}

/// Starts a library worker that calls the library's encode function of `form`
/// (`config.encode` must be set).
pub fn start_encoder(config: NativeConfig) -> Result<ExternalEncoder, AdapterError> {
    let form = config
        .encode
        .ok_or_else(|| AdapterError("the library configuration names no encode form".into()))?;
    let name = config.name.clone().unwrap_or_else(|| config.symbol.clone());
    let native = NativeDecoder::start(config)?;
    let version = crate::decoders::Decoder::version(&native);
    let description = format!("encoder library: {}", native.command().join(" "));
    Ok(ExternalEncoder::with_carrier(
        Box::new(native),
        name,
        version,
        description,
        form,
    ))
}
