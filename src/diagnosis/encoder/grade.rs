//! Grading over many inputs: observations grouped into findings, each with its
//! smallest witness, and the policy an encoder's answers add up to.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{observe, EncoderBehaviour, EncoderCategory};
use crate::encoders::{CodeUnits, Encoded, Encoder};
use crate::security::Severity;

/// One finding: one behaviour that is a bug, where it shows, and its smallest witness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EncoderFinding {
    /// What the encoder did.
    pub behaviour: EncoderBehaviour,
    /// The categories of the elements it did it to.
    pub categories: Vec<EncoderCategory>,
    /// "writes a non-shortest form: U+0000 as C0 80".
    pub title: String,
    /// The smallest input that shows it.
    pub witness: String,
    /// What the encoder wrote for the witness, in hex (or "refused").
    pub written: String,
    /// What the reference writes for the witness.
    pub expected: String,
    /// How serious it is.
    pub severity: Severity,
    /// The text it breaks.
    pub citation: &'static str,
    /// How many inputs showed it.
    pub inputs: usize,
}

/// What an encoder does with what it cannot encode, recognised from its observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncoderPolicy {
    /// Refuses, like the reference.
    Error,
    /// Writes U+FFFD (WHATWG's encoder, JavaScript's `TextEncoder`).
    ReplacementCharacter,
    /// Writes `?` (Java's `String.getBytes`).
    QuestionMark,
    /// Writes nothing.
    Skip,
    /// Writes lone surrogates in three octets and joins pairs (WTF-8).
    Wtf8,
    /// Writes each half of a pair in three octets (CESU-8).
    Cesu8,
    /// CESU-8 with U+0000 as `C0 80` (Java's `DataOutputStream.writeUTF`).
    ModifiedUtf8,
    /// Writes values above U+10FFFF in RFC 2279's longer forms.
    Rfc2279Forms,
    /// Writes U+DC80..U+DCFF as the bytes 80..FF they escape (Python's
    /// `surrogateescape`) and refuses other surrogates.
    SurrogateEscape,
    /// More than one of these, or none seen.
    Other,
}

/// The grade of one encoder over a set of inputs.
#[derive(Debug, Clone, Serialize)]
pub struct EncoderGrade {
    /// The encoder's name.
    pub encoder: String,
    /// How many inputs were encoded.
    pub inputs: usize,
    /// What it does with surrogates (lone code units, or surrogate code points).
    pub policy: EncoderPolicy,
    /// What it does with values above U+10FFFF (`null` for a UTF-16 encoder, which is never
    /// given one).
    pub out_of_range_policy: Option<EncoderPolicy>,
    /// One finding per bug behaviour.
    pub findings: Vec<EncoderFinding>,
    /// Why grading stopped before every input was encoded (an encoder in another process
    /// became unusable, the time limit, a signal); `null` when it did not. A stopped
    /// grade is partial: its findings and policy cover the inputs encoded so far.
    pub stopped_by: Option<String>,
}

/// Inputs sent to an encoder at once: an encoder in another process gets them pipelined.
const BATCH: usize = 256;

/// Grades `encoder` over `inputs` (those of a form it takes are used).
pub fn grade(encoder: &dyn Encoder, inputs: &[CodeUnits]) -> EncoderGrade {
    let reference = crate::encoders::builtin::ReferenceEncoder;
    let mut bugs: Bugs = BTreeMap::new();
    let mut policies: BTreeMap<(EncoderBehaviour, EncoderCategory), usize> = BTreeMap::new();
    let mut used = 0;
    let mut stopped_by = None;
    let taken: Vec<&CodeUnits> = inputs
        .iter()
        .filter(|input| encoder.forms().contains(&input.form()))
        .collect();
    for batch in taken.chunks(BATCH) {
        let answers = encoder.encode_batch(batch);
        if let Some(reason) = encoder.stopped() {
            stopped_by = Some(reason);
        }
        for (&input, answer) in batch.iter().zip(answers) {
            used += 1;
            tally(encoder, input, answer, &mut bugs, &mut policies);
        }
        if stopped_by.is_some() {
            break;
        }
    }
    let findings = bugs
        .into_iter()
        .map(|(behaviour, (mut categories, count, witness, answer))| {
            categories.sort();
            let (severity, citation) = behaviour.severity();
            let written = describe(&answer);
            let expected = describe(&crate::encoders::Encoder::encode(&reference, witness));
            EncoderFinding {
                behaviour,
                title: format!("{}: {} as {}", behaviour.describe(), witness, written),
                categories,
                witness: witness.to_string(),
                written,
                expected,
                severity,
                citation,
                inputs: count,
            }
        })
        .collect::<Vec<_>>();
    let takes_utf32 = encoder.forms().contains(&crate::encoders::Form::Utf32);
    EncoderGrade {
        encoder: encoder.name().to_string(),
        inputs: used,
        policy: recognise(&findings, &policies, SURROGATES),
        out_of_range_policy: takes_utf32.then(|| recognise(&findings, &policies, OUT_OF_RANGE)),
        findings,
        stopped_by,
    }
}

/// Each bug behaviour: the categories it shows in, how many inputs, the smallest witness
/// and the answer to it.
type Bugs<'a> = BTreeMap<EncoderBehaviour, (Vec<EncoderCategory>, usize, &'a CodeUnits, Encoded)>;

/// Adds one answer's observations to the bugs and the policies seen.
fn tally<'a>(
    encoder: &dyn Encoder,
    input: &'a CodeUnits,
    answer: Encoded,
    bugs: &mut Bugs<'a>,
    policies: &mut BTreeMap<(EncoderBehaviour, EncoderCategory), usize>,
) {
    for observation in observe(encoder, input, &answer) {
        if observation.behaviour.is_policy() {
            *policies
                .entry((observation.behaviour, observation.category))
                .or_default() += 1;
            continue;
        }
        let entry = bugs
            .entry(observation.behaviour)
            .or_insert_with(|| (Vec::new(), 0, input, answer.clone()));
        if !entry.0.contains(&observation.category) {
            entry.0.push(observation.category);
        }
        entry.1 += 1;
        if smaller(input, entry.2) {
            entry.2 = input;
            entry.3 = answer.clone();
        }
    }
}

/// Fewer elements first, then smaller values: the order in which witnesses are preferred.
fn smaller(a: &CodeUnits, b: &CodeUnits) -> bool {
    let key = |input: &CodeUnits| {
        let values: Vec<u32> = (0..input.len()).filter_map(|i| input.get(i)).collect();
        (input.len(), values)
    };
    key(a) < key(b)
}

fn describe(answer: &Encoded) -> String {
    match answer {
        Encoded::Bytes(bytes) => crate::hex::format_hex(bytes),
        Encoded::Refused { position: Some(p) } => format!("refused at element {p}"),
        Encoded::Refused { position: None } => "refused".to_string(),
        Encoded::Failed { kind, message } => format!("{}: {message}", kind.as_str()),
    }
}

/// The categories a surrogate policy covers.
const SURROGATES: &[EncoderCategory] = &[
    EncoderCategory::LoneHighSurrogate,
    EncoderCategory::LoneLowSurrogate,
    EncoderCategory::ReversedPair,
    EncoderCategory::SurrogateCodePoint,
];

/// The categories an out-of-range policy covers.
const OUT_OF_RANGE: &[EncoderCategory] = &[EncoderCategory::AboveMax, EncoderCategory::Above31Bits];

/// Names the policy for the unencodable elements of `class`: the substitution it uses, or
/// the variant of UTF-8 its findings add up to.
fn recognise(
    findings: &[EncoderFinding],
    policies: &BTreeMap<(EncoderBehaviour, EncoderCategory), usize>,
    class: &[EncoderCategory],
) -> EncoderPolicy {
    use EncoderBehaviour as B;
    use EncoderCategory as C;
    let shows = |behaviour: B, category: C| {
        findings
            .iter()
            .any(|finding| finding.behaviour == behaviour && finding.categories.contains(&category))
    };
    let in_class = |behaviour: B| class.iter().any(|&category| shows(behaviour, category));
    if class == SURROGATES {
        let pairs_split = shows(B::SurrogateWritten, C::Supplementary);
        if pairs_split && shows(B::NonShortestForm, C::Nul) {
            return EncoderPolicy::ModifiedUtf8;
        }
        if pairs_split {
            return EncoderPolicy::Cesu8;
        }
        if in_class(B::SurrogateWritten) {
            return EncoderPolicy::Wtf8;
        }
        if in_class(B::EscapedByte) {
            return EncoderPolicy::SurrogateEscape;
        }
    } else if in_class(B::AboveMaxWritten) {
        return EncoderPolicy::Rfc2279Forms;
    }
    // A skip policy drops the unencodable element and nothing else.
    let skips = findings.iter().any(|finding| {
        finding.behaviour == B::DropsInput && finding.categories.iter().all(|c| class.contains(c))
    });
    let mut substitutions: Vec<B> = policies
        .keys()
        .filter(|(_, category)| class.contains(category))
        .map(|&(behaviour, _)| behaviour)
        .collect();
    substitutions.dedup();
    match (skips, substitutions.as_slice()) {
        (true, []) => EncoderPolicy::Skip,
        (false, [B::Refuses]) => EncoderPolicy::Error,
        (false, [B::Replacement]) => EncoderPolicy::ReplacementCharacter,
        (false, [B::QuestionMark]) => EncoderPolicy::QuestionMark,
        _ => EncoderPolicy::Other,
    }
}
