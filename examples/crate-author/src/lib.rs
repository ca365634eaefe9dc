//! The `utf8-decode` crate (2.0.0) as a decoder under utf8conf's crate-author API.
//!
//! A crate author puts this impl beside their own decoder (in their tests, or in a small
//! crate shared by their tests and fuzz targets, as here): one [`YourDecoder`] impl, then
//! `utf8conf::author::check` in `cargo test` (tests/conformance.rs) and
//! `utf8conf::author::fuzz_one` in a cargo-fuzz target (fuzz/fuzz_targets/conformance.rs).
//!
//! What is called: `utf8_decode::try_decode_char(bytes, &mut i)`, the crate's slice
//! decoder, which "returns the character and its encoded byte length, moving the `i`
//! value to point to the start of the next character", or a `Utf8Error { offset, len }`.
//! Its first error gives `valid_up_to` and `error_len`; decoding on after each error, with
//! one U+FFFD per error, gives the lossy scalars (the crate has no lossy mode of its own,
//! so this is how a caller of its API replaces errors).

use utf8conf::author::{Expectations, YourDecoder};
use utf8conf::outcome::{ErrorLen, Outcome, REPLACEMENT};
use utf8conf::taxonomy::Category;

/// The `utf8-decode` crate's `try_decode_char`.
pub struct Utf8DecodeCrate;

impl YourDecoder for Utf8DecodeCrate {
    fn name(&self) -> &str {
        "utf8-decode"
    }

    fn version(&self) -> String {
        // Pinned with `=` in Cargo.toml.
        "2.0.0".into()
    }

    fn decode(&self, input: &[u8]) -> Outcome {
        let mut outcome = Outcome::verdict(self.name(), true);
        let mut scalars = Vec::with_capacity(input.len());
        let mut position = 0;
        loop {
            match utf8_decode::try_decode_char(input, &mut position) {
                Ok(Some((character, _))) => scalars.push(u32::from(character)),
                Ok(None) => break,
                Err(error) => {
                    if outcome.valid {
                        outcome.valid = false;
                        outcome.valid_up_to = Some(error.offset);
                        outcome.error_len = Some(ErrorLen::Invalid(error.len));
                    }
                    scalars.push(REPLACEMENT);
                }
            }
        }
        outcome.scalars = Some(scalars);
        outcome
    }
}

/// What utf8conf found in utf8-decode 2.0.0 (see README.md): the categories in which it
/// departs from RFC 3629. `cargo test` asserts exactly these, so a fix or a new
/// departure shows; the fuzz target reports departures anywhere else.
pub fn known_departures() -> Expectations {
    Expectations::conformant()
        .failing(&KNOWN_FAILING)
        .affected(&KNOWN_AFFECTED)
}

/// The categories utf8conf's report marks `fail` for utf8-decode: where each finding's
/// root cause lies, with the smallest input of each as utf8conf minimised it (RFC 3629
/// §3: "Implementations of the decoding algorithm above MUST protect against decoding
/// invalid sequences"). The categories where the same causes show again are `affected`:
/// [`KNOWN_AFFECTED`].
/// - overlong forms are accepted: `C0 80` decodes to U+0000 (no check of the second
///   byte's range; `E0 80 80` and `F0 80 80 80` are the same mechanism, RFC 3629 §4
///   `%xE0 %xA0-BF`, `%xF0 %x90-BF`);
/// - a sequence broken by a non-continuation byte swallows that byte: `C0 41` decodes to
///   one U+FFFD and the `A` is lost;
/// - the error length counts every byte read, never "incomplete" at the end (`C2`: 1, not
///   Rust's `None`).
pub const KNOWN_FAILING: [Category; 3] = [
    Category::TruncatedAtEnd,
    Category::Overlong2,
    Category::CharacterSwallowed,
];

/// The categories utf8conf's report marks `affected` for utf8-decode: inputs of these
/// categories show a finding whose root cause is in [`KNOWN_FAILING`] (3- and 4-byte
/// overlong forms, the swallowed character after an invalid lead, a broken sequence, a
/// surrogate, a CESU-8 pair, a value above U+10FFFF or a noncharacter). On a single fuzz
/// input the diagnosis cannot see that, and may root the swallow in the category itself
/// (`F4 90 41` is read as above-max): listing them keeps the fuzz target to new causes.
pub const KNOWN_AFFECTED: [Category; 8] = [
    Category::InvalidLead,
    Category::TruncatedInterrupted,
    Category::Overlong3,
    Category::Overlong4,
    Category::Surrogate,
    Category::Cesu8Pair,
    Category::AboveMax,
    Category::NoncharacterRejected,
];
