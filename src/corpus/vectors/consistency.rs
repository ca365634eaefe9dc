//! The internal consistency rules of a test vector: what its fields imply about each
//! other, independently of any decoder (see the parent module for why a vector file is
//! checked this hard).

use super::{FffdCounts, Vector};
use crate::outcome::{ErrorLen, REPLACEMENT};

/// The internal consistency rules of a case: what its fields imply about
/// each other, independently of any decoder.
pub(super) fn check_consistency(vector: &Vector) -> Result<(), String> {
    if vector.valid {
        check_valid(vector)?;
    } else {
        check_invalid(vector)?;
    }
    let replacements = check_counts(vector)?;
    check_byte_accounting(vector, replacements)
}

/// A well-formed input has no error and decodes to its own scalars.
fn check_valid(vector: &Vector) -> Result<(), String> {
    let fffd = vector.fffd;
    if vector.valid_up_to.is_some() || vector.error_len.is_some() {
        return Err("a valid case has no valid_up_to or error_len".to_string());
    }
    if fffd != FffdCounts::NONE {
        return Err("a valid case has all fffd counts 0".to_string());
    }
    if !vector.categories.is_empty() {
        return Err("a valid case has no categories".to_string());
    }
    let encoded: String = vector
        .scalars
        .iter()
        .filter_map(|&scalar| char::from_u32(scalar))
        .collect();
    if encoded.as_bytes() != vector.bytes.as_slice() {
        return Err("a valid case's scalars, encoded as UTF-8, must equal its bytes".to_string());
    }
    Ok(())
}

/// An ill-formed input's first error lies inside it, and it has error units and categories.
fn check_invalid(vector: &Vector) -> Result<(), String> {
    let length = vector.bytes.len();
    let fffd = vector.fffd;
    let (Some(valid_up_to), Some(error_len)) = (vector.valid_up_to, vector.error_len) else {
        return Err("an invalid case has both valid_up_to and error_len".to_string());
    };
    if valid_up_to >= length {
        return Err(format!(
            "valid_up_to {valid_up_to} must be an offset inside the input ({length} bytes)"
        ));
    }
    match error_len {
        ErrorLen::Invalid(0) => return Err("error_len must be at least 1".to_string()),
        ErrorLen::Invalid(error_len) if valid_up_to + error_len > length => {
            return Err(format!(
                "valid_up_to {valid_up_to} + error_len {error_len} runs past the input ({length} bytes)"
            ))
        }
        ErrorLen::Invalid(_) => {}
        // "null": the first error is an incomplete character of at most
        // three bytes (UTF8-4 minus its last byte) running to the end.
        ErrorLen::Incomplete if length - valid_up_to > 3 => {
            return Err(format!(
                "error_len \"null\" needs the input to end within 3 bytes of valid_up_to {valid_up_to}"
            ))
        }
        ErrorLen::Incomplete => {}
    }
    if fffd.maximal_subpart == 0 {
        return Err("an invalid case has at least one maximal subpart".to_string());
    }
    if vector.categories.is_empty() {
        return Err("an invalid case names at least one category".to_string());
    }
    if vector.categories.len() > fffd.maximal_subpart {
        return Err("more categories than error units".to_string());
    }
    Ok(())
}

/// The U+FFFD counts agree with each other, the input's length and the scalars; the number
/// of U+FFFD in the scalars.
fn check_counts(vector: &Vector) -> Result<usize, String> {
    let length = vector.bytes.len();
    let fffd = vector.fffd;
    if !(fffd.per_byte >= fffd.maximal_subpart && fffd.maximal_subpart >= fffd.per_run) {
        return Err(format!(
            "fffd counts must satisfy per_byte >= maximal_subpart >= per_run, got {fffd:?}"
        ));
    }
    if fffd.per_byte > length {
        return Err(format!(
            "fffd per_byte {} exceeds the input length {length}",
            fffd.per_byte
        ));
    }
    if (fffd.maximal_subpart == 0) != (fffd.per_run == 0) {
        return Err("per_run is 0 exactly when there is no error".to_string());
    }
    let replacements = vector
        .scalars
        .iter()
        .filter(|&&scalar| scalar == REPLACEMENT)
        .count();
    if replacements < fffd.maximal_subpart {
        return Err(format!(
            "scalars hold {replacements} U+FFFD, fewer than the {} maximal subparts",
            fffd.maximal_subpart
        ));
    }
    Ok(replacements)
}

/// Every byte is accounted for, and the Kuhn layout count lies between the others.
fn check_byte_accounting(vector: &Vector, replacements: usize) -> Result<(), String> {
    let length = vector.bytes.len();
    let fffd = vector.fffd;
    // Byte accounting: every input byte is either in an error unit
    // (per_byte of them) or in a well-formed character whose scalar is in
    // `scalars`; literal U+FFFD characters (EF BF BD) are the U+FFFD beyond
    // the substituted ones.
    let literal_replacements = replacements - fffd.maximal_subpart;
    let decoded_bytes: usize = vector
        .scalars
        .iter()
        .filter(|&&scalar| scalar != REPLACEMENT)
        .map(|&scalar| utf8_len(scalar))
        .sum::<usize>()
        + literal_replacements * utf8_len(REPLACEMENT);
    if decoded_bytes + fffd.per_byte != length {
        return Err(format!(
            "the scalars account for {decoded_bytes} bytes and per_byte for {}, but the input has {length}",
            fffd.per_byte
        ));
    }
    if let Some(kuhn_layout) = vector.kuhn_layout {
        // One per lead-byte-sized sequence: never more than the maximal
        // subparts inside them, never fewer than the runs they form.
        if !(fffd.per_run <= kuhn_layout && kuhn_layout <= fffd.maximal_subpart) {
            return Err(format!(
                "kuhn_layout {kuhn_layout} must lie between per_run {} and maximal_subpart {}",
                fffd.per_run, fffd.maximal_subpart
            ));
        }
    }
    Ok(())
}

/// The number of bytes UTF-8 uses for the scalar value `scalar`
/// (RFC 3629 section 3 table).
fn utf8_len(scalar: u32) -> usize {
    match scalar {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        _ => 4,
    }
}
