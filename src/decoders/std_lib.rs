//! Rust's standard library as a [`Decoder`]: `str::from_utf8` for the strict verdict,
//! `String::from_utf8_lossy` for the scalars and `<[u8]>::utf8_chunks` for the error units.

use super::{Capabilities, Decoder, DecoderFailure};
use crate::outcome::{scalars_of, ErrorLen, Outcome};

/// Rust std: `from_utf8` + `from_utf8_lossy` + `Utf8Chunks`.
pub struct StdDecoder;

/// The rustc version that built std, recorded by the build script.
pub const RUSTC_VERSION: &str = env!("UTF8CONF_RUSTC_VERSION");

impl Decoder for StdDecoder {
    fn name(&self) -> &str {
        "std"
    }

    fn version(&self) -> String {
        format!("rustc {RUSTC_VERSION}")
    }

    fn description(&self) -> &str {
        "Rust std: str::from_utf8 (strict), String::from_utf8_lossy (scalars), Utf8Chunks (error units)"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn decode(&self, input: &[u8]) -> Result<Outcome, DecoderFailure> {
        let first_error = std::str::from_utf8(input)
            .err()
            .map(|e| (e.valid_up_to(), ErrorLen::from_std(e.error_len())));
        let mut outcome = Outcome::from_strict(self.name(), first_error);
        outcome.scalars = Some(scalars_of(&String::from_utf8_lossy(input)));
        outcome.errors = Some(super::std_split::utf8_chunk_units(input).collect());
        Ok(outcome)
    }
}
