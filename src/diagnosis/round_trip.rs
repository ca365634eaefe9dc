//! Round trips through a library's two directions (RFC 3629 §3: encoding and decoding
//! are inverse, "there is only one valid way to encode a given character"):
//!
//! - `decode(encode(x)) == x` for every scalar value x, sent in runs of [`RUN`]
//!   consecutive scalars (1,112,064 scalars in 4,344 inputs), a failing run taken apart
//!   scalar by scalar to name its first failing value;
//! - `encode(decode(b)) == b` for well-formed bytes b: the reference encoding of every
//!   run, and every well-formed input of the decoder check's inputs.
//!
//! A decoder that reports no scalars cannot be graded this way (nothing says what it
//! decoded); the grade then says so.

use serde::Serialize;

use crate::decoders::Decoder;
use crate::encoders::{CodeUnits, Encoded, Encoder, Form};
use crate::hex::format_hex;
use crate::outcome::Answer;

/// Scalars per input in the scalar direction.
pub const RUN: usize = 256;
/// Inputs sent to either side at once.
const BATCH: usize = 64;

/// The first value whose round trip fails, and what each side made of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundTripFailure {
    /// The value: `U+07FF`, or the bytes in hex.
    pub value: String,
    /// What the first side made of it.
    pub through: String,
    /// What the second side made of that.
    pub back: String,
}

/// The round-trip grade of one decoder and encoder pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundTripGrade {
    /// The decoder's name.
    pub decoder: String,
    /// The encoder's name.
    pub encoder: String,
    /// Scalars sent through `decode(encode(x))`.
    pub scalars_checked: usize,
    /// Runs of [`RUN`] scalars whose round trip failed.
    pub failing_scalar_runs: usize,
    /// The smallest scalar whose round trip fails.
    pub first_failing_scalar: Option<RoundTripFailure>,
    /// Well-formed byte inputs sent through `encode(decode(b))`.
    pub byte_inputs_checked: usize,
    /// Those whose round trip failed.
    pub failing_byte_inputs: usize,
    /// The first failing one (a single character where a run was taken apart).
    pub first_failing_bytes: Option<RoundTripFailure>,
    /// Why grading stopped early, or could not start.
    pub stopped_by: Option<String>,
}

impl RoundTripGrade {
    /// True when both directions hold for every value sent and grading was complete.
    pub fn holds(&self) -> bool {
        self.failing_scalar_runs == 0 && self.failing_byte_inputs == 0 && self.stopped_by.is_none()
    }
}

/// The runs of consecutive scalar values, in order.
fn scalar_runs() -> Vec<Vec<u32>> {
    let scalars: Vec<u32> = (0..=0x10_FFFFu32)
        .filter(|value| char::from_u32(*value).is_some())
        .collect();
    scalars.chunks(RUN).map(<[u32]>::to_vec).collect()
}

/// Scalars as the input `form` takes them.
fn as_input(form: Form, scalars: &[u32]) -> CodeUnits {
    match form {
        Form::Utf32 => CodeUnits::Utf32(scalars.to_vec()),
        Form::Utf16 => CodeUnits::Utf16(
            scalars
                .iter()
                .filter_map(|&s| char::from_u32(s))
                .flat_map(|c| c.encode_utf16(&mut [0; 2]).to_vec())
                .collect(),
        ),
    }
}

fn utf8_of(scalars: &[u32]) -> Vec<u8> {
    scalars
        .iter()
        .filter_map(|&s| char::from_u32(s))
        .collect::<String>()
        .into_bytes()
}

fn describe_encoded(answer: &Encoded) -> String {
    match answer {
        Encoded::Bytes(bytes) => format!("encoded as {}", format_hex(bytes)),
        Encoded::Refused { position } => match position {
            Some(at) => format!("refused at element {at}"),
            None => "refused".into(),
        },
        Encoded::Failed { kind, message } => format!("{}: {message}", kind.as_str()),
    }
}

fn describe_decoded(answer: &Answer) -> String {
    match answer {
        Ok(outcome) if outcome.valid => match &outcome.scalars {
            Some(scalars) => format!("decoded as {}", scalars_text(scalars)),
            None => "decoded as valid (no scalars reported)".into(),
        },
        Ok(outcome) => match outcome.valid_up_to {
            Some(at) => format!("decoded as invalid (error at byte {at})"),
            None => "decoded as invalid".into(),
        },
        Err(failure) => format!("{}: {}", failure.kind.as_str(), failure.message),
    }
}

fn scalars_text(scalars: &[u32]) -> String {
    const SHOWN: usize = 8;
    let shown: Vec<String> = scalars
        .iter()
        .take(SHOWN)
        .map(|s| format!("U+{s:04X}"))
        .collect();
    let more = if scalars.len() > SHOWN { " ..." } else { "" };
    format!("{}{more}", shown.join(" "))
}

/// The scalars a decoder answer holds when it decoded well-formed input fully.
fn decoded_scalars(answer: &Answer) -> Option<&[u32]> {
    match answer {
        Ok(outcome) if outcome.valid => outcome.scalars.as_deref(),
        _ => None,
    }
}

/// Grades `decoder` and `encoder` as a pair; `well_formed` are more well-formed byte
/// inputs for the bytes direction (the decoder check's, say).
pub fn grade_round_trip(
    decoder: &dyn Decoder,
    encoder: &dyn Encoder,
    well_formed: &[Vec<u8>],
) -> RoundTripGrade {
    let form = if encoder.forms().contains(&Form::Utf32) {
        Form::Utf32
    } else {
        Form::Utf16
    };
    let mut grade = RoundTripGrade {
        decoder: decoder.name().to_string(),
        encoder: encoder.name().to_string(),
        scalars_checked: 0,
        failing_scalar_runs: 0,
        first_failing_scalar: None,
        byte_inputs_checked: 0,
        failing_byte_inputs: 0,
        first_failing_bytes: None,
        stopped_by: None,
    };
    if encoder.forms().is_empty() {
        grade.stopped_by = Some("the encoder takes neither UTF-16 nor UTF-32".into());
        return grade;
    }
    let runs = scalar_runs();
    for batch in runs.chunks(BATCH) {
        if scalars_way(decoder, encoder, form, batch, &mut grade).is_err() {
            return grade;
        }
    }
    let mut byte_inputs: Vec<Vec<u8>> = runs.iter().map(|run| utf8_of(run)).collect();
    byte_inputs.extend(
        well_formed
            .iter()
            .filter(|bytes| std::str::from_utf8(bytes).is_ok())
            .cloned(),
    );
    for batch in byte_inputs.chunks(BATCH) {
        if bytes_way(decoder, encoder, form, batch, &mut grade).is_err() {
            return grade;
        }
    }
    grade
}

/// Stops grading when the encoder has stopped (an unusable process, a signal).
fn stop_if_stopped(encoder: &dyn Encoder, grade: &mut RoundTripGrade) -> Result<(), ()> {
    match encoder.stopped() {
        Some(reason) => {
            grade.stopped_by = Some(reason);
            Err(())
        }
        None => Ok(()),
    }
}

/// One scalar's round trip: `None` when it holds, else what each side did.
fn one_scalar(
    decoder: &dyn Decoder,
    encoder: &dyn Encoder,
    form: Form,
    scalar: u32,
) -> Option<RoundTripFailure> {
    let encoded = encoder.encode(&as_input(form, &[scalar]));
    let Encoded::Bytes(bytes) = &encoded else {
        return Some(RoundTripFailure {
            value: format!("U+{scalar:04X}"),
            through: describe_encoded(&encoded),
            back: "not decoded".into(),
        });
    };
    let decoded = decoder.decode(bytes);
    (decoded_scalars(&decoded) != Some(&[scalar][..])).then(|| RoundTripFailure {
        value: format!("U+{scalar:04X}"),
        through: describe_encoded(&encoded),
        back: describe_decoded(&decoded),
    })
}

fn scalars_way(
    decoder: &dyn Decoder,
    encoder: &dyn Encoder,
    form: Form,
    runs: &[Vec<u32>],
    grade: &mut RoundTripGrade,
) -> Result<(), ()> {
    let inputs: Vec<CodeUnits> = runs.iter().map(|run| as_input(form, run)).collect();
    let views: Vec<&CodeUnits> = inputs.iter().collect();
    let encoded = encoder.encode_batch(&views);
    stop_if_stopped(encoder, grade)?;
    let bytes: Vec<&[u8]> = encoded
        .iter()
        .map(|answer| match answer {
            Encoded::Bytes(bytes) => bytes.as_slice(),
            _ => &[],
        })
        .collect();
    let decoded = decoder.decode_batch(&bytes);
    // Known only from its answers (an adapter's capabilities are what it sends).
    if decoded
        .iter()
        .any(|back| matches!(back, Ok(outcome) if outcome.valid && outcome.scalars.is_none()))
    {
        grade.stopped_by =
            Some("the decoder reports no scalars, so what it decoded cannot be compared".into());
        return Err(());
    }
    for ((run, answer), back) in runs.iter().zip(&encoded).zip(&decoded) {
        grade.scalars_checked += run.len();
        let holds = matches!(answer, Encoded::Bytes(_)) && decoded_scalars(back) == Some(run);
        if holds {
            continue;
        }
        grade.failing_scalar_runs += 1;
        if grade.first_failing_scalar.is_none() {
            grade.first_failing_scalar = run
                .iter()
                .find_map(|&scalar| one_scalar(decoder, encoder, form, scalar))
                .or_else(|| {
                    Some(RoundTripFailure {
                        value: format!("U+{:04X}..U+{:04X}", run[0], run[run.len() - 1]),
                        through: describe_encoded(answer),
                        back: describe_decoded(back),
                    })
                });
        }
    }
    stop_if_stopped(encoder, grade)
}

fn bytes_way(
    decoder: &dyn Decoder,
    encoder: &dyn Encoder,
    form: Form,
    inputs: &[Vec<u8>],
    grade: &mut RoundTripGrade,
) -> Result<(), ()> {
    let views: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let decoded = decoder.decode_batch(&views);
    let again: Vec<CodeUnits> = decoded
        .iter()
        .map(|answer| as_input(form, decoded_scalars(answer).unwrap_or(&[])))
        .collect();
    let again_views: Vec<&CodeUnits> = again.iter().collect();
    let encoded = encoder.encode_batch(&again_views);
    stop_if_stopped(encoder, grade)?;
    for ((input, back), answer) in inputs.iter().zip(&decoded).zip(&encoded) {
        grade.byte_inputs_checked += 1;
        let holds = decoded_scalars(back).is_some() && *answer == Encoded::Bytes(input.to_vec());
        if holds {
            continue;
        }
        grade.failing_byte_inputs += 1;
        if grade.first_failing_bytes.is_none() {
            grade.first_failing_bytes = Some(
                first_failing_bytes(decoder, encoder, form, input).unwrap_or_else(|| {
                    RoundTripFailure {
                        value: format_hex(input),
                        through: describe_decoded(back),
                        back: describe_encoded(answer),
                    }
                }),
            );
        }
    }
    Ok(())
}

/// The first character of `input` whose bytes do not come back alone.
fn first_failing_bytes(
    decoder: &dyn Decoder,
    encoder: &dyn Encoder,
    form: Form,
    input: &[u8],
) -> Option<RoundTripFailure> {
    let text = std::str::from_utf8(input).ok()?;
    text.chars().find_map(|c| {
        let bytes = c.to_string().into_bytes();
        let decoded = decoder.decode(&bytes);
        let encoded = match decoded_scalars(&decoded) {
            Some(scalars) => encoder.encode(&as_input(form, scalars)),
            None => Encoded::Refused { position: None },
        };
        (encoded != Encoded::Bytes(bytes.clone())).then(|| RoundTripFailure {
            value: format_hex(&bytes),
            through: describe_decoded(&decoded),
            back: match decoded_scalars(&decoded) {
                Some(_) => describe_encoded(&encoded),
                None => "not encoded".into(),
            },
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoders;
    use crate::encoders;

    fn pair(decoder: &str, encoder: &str) -> RoundTripGrade {
        let decoder = decoders::by_name(decoder).unwrap();
        let encoder = encoders::by_name(encoder).unwrap();
        grade_round_trip(decoder.as_ref(), encoder.as_ref(), &[b"a\xC3\xA9".to_vec()])
    }

    #[test]
    fn std_both_ways_holds_for_every_scalar() {
        let grade = pair("std", "std-char-encode_utf8");
        assert!(grade.holds(), "{grade:?}");
        assert_eq!(grade.scalars_checked, 1_112_064);
        assert_eq!(grade.byte_inputs_checked, 4_344 + 1);
    }

    /// A planted encoder off by one at U+07FF writes `E0 9F BF`, which the decoder
    /// refuses: the round trip names U+07FF, and the bytes `DF BF` as the first
    /// well-formed input that does not come back.
    #[test]
    fn a_planted_pair_names_its_first_failing_value() {
        let grade = pair("reference", "planted-enc-off-by-one-07ff");
        assert!(!grade.holds());
        assert_eq!(grade.failing_scalar_runs, 1);
        let scalar = grade.first_failing_scalar.unwrap();
        assert_eq!(scalar.value, "U+07FF");
        assert_eq!(scalar.through, "encoded as E0 9F BF");
        assert!(
            scalar.back.starts_with("decoded as invalid"),
            "{}",
            scalar.back
        );
        assert_eq!(grade.failing_byte_inputs, 1);
        let bytes = grade.first_failing_bytes.unwrap();
        assert_eq!(bytes.value, "DF BF");
        assert_eq!(bytes.back, "encoded as E0 9F BF");
    }

    #[test]
    fn a_decoder_without_scalars_cannot_be_graded() {
        let grade = pair("std-from_utf8", "reference");
        assert!(grade.stopped_by.unwrap().contains("no scalars"));
    }
}
