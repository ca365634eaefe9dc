//! The crate authors' API (`utf8conf::author`): the same grading as `utf8conf check`, the
//! assertion helper, the fuzz entry point and streaming decoders, on decoders whose
//! behaviour is known: std (conformant, maximal-subpart U+FFFD policy per Unicode §3.9
//! and WHATWG), encoding_rs's streaming decoder (the same), and two deliberately wrong
//! ones.

use utf8conf::author::stream::split_point_mismatches;
use utf8conf::author::{
    check, fuzz_report, Chunked, Expectations, YourDecoder, YourStreamingDecoder,
};
use utf8conf::outcome::{ErrorLen, Outcome};
use utf8conf::policy::ReplacementPolicy;
use utf8conf::taxonomy::Category;

/// Rust's std: `from_utf8` for the strict verdict, `from_utf8_lossy` for the scalars.
struct Std;

impl YourDecoder for Std {
    fn name(&self) -> &str {
        "std-via-author-api"
    }
    fn decode(&self, input: &[u8]) -> Outcome {
        let mut outcome = Outcome::verdict(self.name(), true);
        if let Err(error) = std::str::from_utf8(input) {
            outcome.valid = false;
            outcome.valid_up_to = Some(error.valid_up_to());
            outcome.error_len = Some(ErrorLen::from_std(error.error_len()));
        }
        outcome.scalars = Some(
            String::from_utf8_lossy(input)
                .chars()
                .map(u32::from)
                .collect(),
        );
        outcome
    }
}

/// std, except that it accepts the overlong NUL `C0 80` (Modified UTF-8's NUL), which
/// RFC 3629 §3 forbids ("C0 80" is an overlong encoding of U+0000).
struct AcceptsOverlongNul;

impl YourDecoder for AcceptsOverlongNul {
    fn name(&self) -> &str {
        "accepts-c0-80"
    }
    fn decode(&self, input: &[u8]) -> Outcome {
        if input == [0xC0, 0x80] {
            let mut outcome = Outcome::verdict(self.name(), true);
            outcome.scalars = Some(vec![0]);
            return outcome;
        }
        Std.decode(input)
    }
}

#[test]
fn std_is_conformant_with_the_maximal_subpart_policy() {
    let report = check(&Std);
    Expectations::conformant()
        .policy(ReplacementPolicy::MaximalSubpart)
        .assert(&report);
    assert!(report.is_conformant());
    assert!(report.summary.inputs > 300_000);
}

#[test]
fn a_planted_departure_fails_the_assertion_unless_expected() {
    let report = check(&AcceptsOverlongNul);
    // The author's check grades through the learned machine, as `check` and `run` do.
    let model = report
        .model
        .as_ref()
        .expect("a departing decoder is learned");
    assert!(model.model.incomplete.is_none());
    assert!(report.findings.iter().all(|f| f.model.is_some()));
    let mismatches = Expectations::conformant().mismatches(&report);
    assert!(!mismatches.is_empty());
    assert!(
        mismatches
            .iter()
            .all(|line| line.contains("[C0 80]") && line.contains("overlong-2")),
        "{mismatches:#?}"
    );
    Expectations::conformant()
        .failing(&[Category::Overlong2])
        .assert(&report);

    // The report names the call that replays it, and the call does: the finding is
    // still there for the same decoder, and gone for a fixed one.
    assert!(report.findings.iter().all(|finding| finding
        .reproduce
        .starts_with("utf8conf::author::reproduce(")
        && finding.reproduce.contains(&finding.witness_hex)));
    let directory =
        std::env::temp_dir().join(format!("utf8conf-author-replay-{}", std::process::id()));
    report.write(&directory).unwrap();
    let written = directory.join("conformance.json");
    let replay = utf8conf::author::reproduce(&written, &AcceptsOverlongNul).unwrap();
    assert_eq!(
        replay.reproduced.len(),
        report.findings.len(),
        "{replay:#?}"
    );
    assert!(replay.gone.is_empty());
    assert!(std::panic::catch_unwind(|| replay.assert_fixed()).is_err());
    let fixed = utf8conf::author::reproduce(&written, &Std).unwrap();
    assert!(fixed.reproduced.is_empty(), "{fixed:#?}");
    fixed.assert_fixed();
    let missing = utf8conf::author::reproduce(directory.join("nothing.json"), &Std);
    assert!(missing.unwrap_err().starts_with("cannot read "));
    let _ = std::fs::remove_dir_all(&directory);

    // Expecting a failure that does not happen is a mismatch too.
    let wrong = Expectations::conformant().failing(&[Category::Surrogate]);
    assert!(wrong
        .mismatches(&check(&Std))
        .iter()
        .any(|line| line.contains("surrogate was expected to fail but is pass")));
    // And so is the wrong policy.
    let lines = Expectations::conformant()
        .policy(ReplacementPolicy::PerByte)
        .mismatches(&check(&Std));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("policy is maximal-subpart")),
        "{lines:#?}"
    );
}

#[test]
fn fuzzing_reports_only_unexpected_departures_and_writes_the_report() {
    let conformant = Expectations::conformant();
    assert!(fuzz_report(&AcceptsOverlongNul, b"abc", &conformant).is_none());
    assert!(fuzz_report(&AcceptsOverlongNul, &[0xE0, 0x80], &conformant).is_none());
    let report =
        fuzz_report(&AcceptsOverlongNul, &[0xC0, 0x80], &conformant).expect("C0 80 departs");
    assert_eq!(report.departures[0].input_hex, "C0 80");
    let expected = Expectations::conformant().failing(&[Category::Overlong2]);
    assert!(fuzz_report(&AcceptsOverlongNul, &[0xC0, 0x80], &expected).is_none());
    // A category listed as affected is tolerated on one fuzz input (the diagnosis cannot
    // place a root cause elsewhere there), but a full report must mark it `affected`.
    let affected = Expectations::conformant().affected(&[Category::Overlong2]);
    assert!(fuzz_report(&AcceptsOverlongNul, &[0xC0, 0x80], &affected).is_none());
    let lines = affected.mismatches(&check(&AcceptsOverlongNul));
    assert!(
        lines
            .iter()
            .any(|line| line.contains("overlong-2 was expected to be affected but is fail")),
        "{lines:#?}"
    );

    let findings = std::env::temp_dir().join(format!("utf8conf-author-{}", std::process::id()));
    std::env::set_var("UTF8CONF_FINDINGS", &findings);
    let panic = std::panic::catch_unwind(|| {
        utf8conf::author::fuzz_one(&AcceptsOverlongNul, &[0xC0, 0x80], &conformant)
    })
    .expect_err("fuzz_one panics on a departure");
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(message.contains("[C0 80]"), "{message}");
    let written: Vec<_> = std::fs::read_dir(&findings).unwrap().flatten().collect();
    assert_eq!(written.len(), 1);
    assert!(written[0].path().join("conformance.json").is_file());
    let _ = std::fs::remove_dir_all(&findings);
}

/// encoding_rs's streaming UTF-8 decoder (`Decoder::decode_to_string`, `last` on the
/// flush), a real streaming API.
struct EncodingRsStream;

impl YourStreamingDecoder for EncodingRsStream {
    type Session = encoding_rs::Decoder;
    fn name(&self) -> &str {
        "encoding_rs-stream"
    }
    fn start(&self) -> encoding_rs::Decoder {
        encoding_rs::UTF_8.new_decoder_without_bom_handling()
    }
    fn feed(
        &self,
        session: &mut encoding_rs::Decoder,
        chunk: &[u8],
        scalars: &mut Vec<u32>,
    ) -> usize {
        decode_encoding_rs(session, chunk, false, scalars)
    }
    fn finish(&self, mut session: encoding_rs::Decoder, scalars: &mut Vec<u32>) -> usize {
        decode_encoding_rs(&mut session, b"", true, scalars)
    }
}

fn decode_encoding_rs(
    decoder: &mut encoding_rs::Decoder,
    chunk: &[u8],
    last: bool,
    scalars: &mut Vec<u32>,
) -> usize {
    let mut text = String::with_capacity(decoder.max_utf8_buffer_length(chunk.len()).unwrap());
    let (_, read, had_errors) = decoder.decode_to_string(chunk, &mut text, last);
    assert_eq!(
        read,
        chunk.len(),
        "the buffer was sized for the whole chunk"
    );
    scalars.extend(text.chars().map(u32::from));
    usize::from(had_errors)
}

/// A broken streaming decoder: it forgets a sequence cut by a chunk boundary (decodes
/// each chunk on its own), the classic streaming bug.
struct ForgetsAcrossChunks;

impl YourStreamingDecoder for ForgetsAcrossChunks {
    type Session = ();
    fn name(&self) -> &str {
        "forgets-across-chunks"
    }
    fn start(&self) {}
    fn feed(&self, _: &mut (), chunk: &[u8], scalars: &mut Vec<u32>) -> usize {
        let text = String::from_utf8_lossy(chunk);
        scalars.extend(text.chars().map(u32::from));
        usize::from(std::str::from_utf8(chunk).is_err())
    }
    fn finish(&self, _: (), _: &mut Vec<u32>) -> usize {
        0
    }
}

#[test]
fn a_real_streaming_decoder_is_graded_through_its_chunks_and_is_split_equivalent() {
    let report = check(&Chunked::new(&EncodingRsStream));
    Expectations::conformant()
        .policy(ReplacementPolicy::MaximalSubpart)
        .assert(&report);
    let euro: &[u8] = &[0xE2, 0x82, 0xAC];
    let inputs: Vec<&[u8]> = vec![
        b"",
        b"a",
        euro,
        &[0xF0, 0x9F, 0x98],
        &[0xE2, 0x41, 0xC3, 0xA9],
    ];
    assert_eq!(
        split_point_mismatches(&EncodingRsStream, &inputs),
        Vec::<String>::new()
    );
}

#[test]
fn a_streaming_decoder_that_forgets_state_is_caught_both_ways() {
    let euro: &[u8] = &[0xE2, 0x82, 0xAC];
    let lines = split_point_mismatches(&ForgetsAcrossChunks, &[euro]);
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].contains("[E2 82 AC] split at [1]"), "{lines:#?}");
    let report = check(&Chunked::new(&ForgetsAcrossChunks));
    assert!(!report.is_conformant());
    assert!(report
        .categories
        .iter()
        .any(|row| row.category == Category::ValidRejected
            && row.status == utf8conf::conformance::CategoryStatus::Fail));
}

/// An author's encoder through `utf8conf::author::encoder`: std's `char::encode_utf8`
/// from code points, and from UTF-16 with one planted bug (U+0000 as `C0 80`, Modified
/// UTF-8's NUL) and a panic on U+FFFF.
struct AuthorEncoder {
    nul_as_c080: bool,
}

impl utf8conf::author::encoder::YourEncoder for AuthorEncoder {
    fn name(&self) -> &str {
        "author-encoder"
    }
    fn encode_utf16(&self, units: &[u16]) -> Option<utf8conf::encoders::Encoded> {
        use utf8conf::encoders::Encoded;
        assert!(units != [0xFFFF], "planted panic on U+FFFF");
        let mut out = Vec::new();
        let mut at = 0;
        for decoded in char::decode_utf16(units.iter().copied()) {
            let Ok(c) = decoded else {
                return Some(Encoded::Refused { position: Some(at) });
            };
            at += c.len_utf16();
            if c == '\0' && self.nul_as_c080 {
                out.extend_from_slice(&[0xC0, 0x80]);
            } else {
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
        Some(Encoded::Bytes(out))
    }
    fn encode_utf32(&self, points: &[u32]) -> Option<utf8conf::encoders::Encoded> {
        use utf8conf::encoders::Encoded;
        let mut out = Vec::new();
        for (position, &point) in points.iter().enumerate() {
            let Some(c) = char::from_u32(point) else {
                return Some(Encoded::Refused {
                    position: Some(position),
                });
            };
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        Some(Encoded::Bytes(out))
    }
}

#[test]
fn an_author_encoder_is_graded_as_check_encoder_grades_it() {
    use utf8conf::author::encoder::{check_encoder, fuzz_encoder_one, EncoderExpectations};
    use utf8conf::diagnosis::encoder::{EncoderBehaviour, EncoderPolicy};

    let planted = AuthorEncoder { nul_as_c080: true };
    let report = check_encoder(&planted);
    let expected = EncoderExpectations::conformant()
        .findings(&[EncoderBehaviour::NonShortestForm, EncoderBehaviour::Crashes])
        .policy(EncoderPolicy::Error)
        .out_of_range_policy(EncoderPolicy::Error);
    expected.assert(&report);
    let grade = &report.encoders[0].grade;
    let crash = grade
        .findings
        .iter()
        .find(|f| f.behaviour == EncoderBehaviour::Crashes)
        .unwrap();
    assert_eq!(crash.witness, "utf16: FFFF");
    assert!(crash.written.contains("planted panic"), "{}", crash.written);

    let mismatches = EncoderExpectations::conformant()
        .policy(EncoderPolicy::ReplacementCharacter)
        .mismatches(&report);
    assert_eq!(mismatches.len(), 3, "{mismatches:?}");
    assert!(
        mismatches[0].contains("non-shortest form"),
        "{mismatches:?}"
    );
    assert!(
        mismatches[2].contains("policy for surrogates is error, expected replacement-character")
    );

    // One fuzz input (U+0000 as a little-endian code unit) shows the planted NUL.
    let caught = std::panic::catch_unwind(|| {
        fuzz_encoder_one(&planted, &[0, 0], &EncoderExpectations::conformant())
    });
    let message = caught.unwrap_err();
    let message = message.downcast_ref::<String>().unwrap();
    assert!(message.contains("C0 80"), "{message}");
    fuzz_encoder_one(
        &AuthorEncoder { nul_as_c080: false },
        &[0, 0],
        &EncoderExpectations::conformant(),
    );
}
