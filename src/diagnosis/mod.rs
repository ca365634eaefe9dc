//! The grading core: from departures to findings, for `run`, `check` and the fuzz targets.
//!
//! ```text
//!  departing inputs ─► diagnose (cause) ─► group by raw cause ─► minimise the smallest
//!        ▲                                                          │ (batch predicate)
//!        └── follow-up inputs around each cause unit ◄── probe position ◄┘
//!                                                        │
//!                                  group by root-cause key ─► findings
//! ```
//!
//! - [`compare`] compares a decoder's outcome with the reference's, aspect by aspect:
//!   what makes an input a departure.
//! - [`cause::diagnose`] names the root cause of one departure.
//! - [`minimize`] shrinks an input while the decoder still departs in the same aspect with
//!   the same kind of action (the categories may change: they are not the bug).
//! - [`position`] moves the minimal witness to learn whether the bug needs a position.
//! - [`followup_inputs`] builds inputs around each cause unit (the unit followed by each
//!   category of error, and by well-formed text), which are graded too.
//! - [`contain`] turns a panic of an in-process decoder into a `crash` answer;
//!   [`explain`] says what the reference does with the witness, in grammar terms.
//!
//! Departures with one root-cause key become one [`Finding`]; the decoder is asked for
//! every candidate through one batch function, so an external adapter answers them in
//! pipelined batches.

pub mod cause;
pub mod compare;
pub mod condition;
pub mod contain;
pub mod encoder;
pub mod explain;
pub mod learn;
pub mod minimize;
pub mod model;
pub mod position;
pub mod round_trip;

use std::collections::BTreeMap;

use crate::aspect::Aspect;
use crate::decoders::Capabilities;
use crate::finding::{DecoderAction, Finding, Manifestation, RootCause, UnitKind};
use crate::hex::format_hex;
use crate::outcome::{Answer, RecordedAnswer};
use crate::policy::{expected_scalars, segments, ReplacementPolicy};
use crate::reference::Reference;
use crate::taxonomy::Category;

pub use cause::{diagnose, diagnose_input, Diagnosis};

/// Candidates the minimiser may test per departure.
pub const MINIMISE_BUDGET: usize = 800;
/// Manifestations kept per finding.
const MANIFESTATIONS_KEPT: usize = 4;

/// One departing input, as the caller met it.
#[derive(Debug, Clone)]
pub struct Departed {
    /// The input.
    pub bytes: Vec<u8>,
    /// How many inputs showed the same raw cause (the caller may count them together).
    pub count: u64,
}

/// The departing inputs met so far, the smallest kept per raw kind of cause (so that a
/// million inputs showing one bug keep one input to minimise).
#[derive(Debug, Clone, Default)]
pub struct DepartureLog {
    kept: BTreeMap<RawKey, Departed>,
}

impl DepartureLog {
    /// Grades `answer` to `input` (reference decode `reference`); returns the diagnosis
    /// when it departs.
    pub fn record(
        &mut self,
        input: &[u8],
        reference: &crate::reference::Decoded,
        answer: &Answer,
        capabilities: Capabilities,
    ) -> Option<Diagnosis> {
        let diagnosis = diagnose(input, reference, answer, capabilities)?;
        let entry = self
            .kept
            .entry(raw_key(&diagnosis))
            .or_insert_with(|| Departed {
                bytes: input.to_vec(),
                count: 0,
            });
        entry.count += 1;
        if (input.len(), input) < (entry.bytes.len(), entry.bytes.as_slice()) {
            entry.bytes = input.to_vec();
        }
        Some(diagnosis)
    }

    /// The kept inputs.
    pub fn departed(&self) -> Vec<Departed> {
        self.kept.values().cloned().collect()
    }

    /// True when nothing departed.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

/// What the caller knows about the decoder.
pub struct Subject<'a> {
    /// Its name.
    pub name: &'a str,
    /// The fields it reports.
    pub capabilities: Capabilities,
    /// The command that reproduces a finding on `witness`.
    pub reproduce: &'a dyn Fn(&[u8]) -> String,
}

/// The raw key of a departure before minimisation: primary aspect, action kind and
/// categories, so that one minimisation serves every input of one raw kind.
type RawKey = (Aspect, &'static str, Vec<Category>);

fn raw_key(diagnosis: &Diagnosis) -> RawKey {
    (
        diagnosis.primary(),
        diagnosis.cause.decoder_does.name(),
        diagnosis.cause.categories(),
    )
}

/// True when `diagnosis` shows the same bug as `target` for minimisation: the same primary
/// aspect among its aspects and the same kind of action.
pub(crate) fn same_kind(diagnosis: Option<&Diagnosis>, target: &Diagnosis) -> bool {
    diagnosis.is_some_and(|d| {
        d.primary() == target.primary()
            && d.cause.decoder_does.name() == target.cause.decoder_does.name()
    })
}

/// A minimised, position-probed departure.
struct Witnessed {
    bytes: Vec<u8>,
    /// Candidates the minimiser tested.
    calls: usize,
    answer: Answer,
    diagnosis: Diagnosis,
    count: u64,
}

/// Turns `departed` into findings, asking `decode` (a batch of inputs in, one answer per
/// input out) for every candidate. An error from `decode` (an adapter that cannot be
/// restarted) ends the diagnosis.
pub fn findings<E>(
    subject: &Subject<'_>,
    departed: &[Departed],
    mut decode: impl FnMut(&[Vec<u8>]) -> Result<Vec<Answer>, E>,
) -> Result<Vec<Finding>, E> {
    let capabilities = subject.capabilities;
    // Diagnose the given inputs and keep the smallest of each raw kind.
    let mut raw: BTreeMap<RawKey, (Departed, Diagnosis)> = BTreeMap::new();
    let batch: Vec<Vec<u8>> = departed.iter().map(|d| d.bytes.clone()).collect();
    let answers = decode(&batch)?;
    for (given, answer) in departed.iter().zip(&answers) {
        add_raw(&mut raw, given.clone(), answer, capabilities);
    }
    let mut witnessed: Vec<Witnessed> = Vec::new();
    let mut followed_up: Vec<Vec<u8>> = Vec::new();
    // Two rounds: the given inputs, then the follow-up inputs around their causes.
    for round in 0..2 {
        for (_, (given, diagnosis)) in std::mem::take(&mut raw) {
            witnessed.push(witness(subject, given, diagnosis, &mut decode)?);
        }
        if round == 1 {
            break;
        }
        let mut inputs = Vec::new();
        for w in &witnessed {
            let unit = &w.diagnosis.cause.unit;
            let unit_bytes = w.bytes[unit.offset..unit.offset + unit.len].to_vec();
            if unit_bytes.is_empty() || followed_up.contains(&unit_bytes) {
                continue;
            }
            inputs.extend(followup_inputs(&unit_bytes));
            followed_up.push(unit_bytes);
        }
        if inputs.is_empty() {
            break;
        }
        let answers = decode(&inputs)?;
        let known: Vec<RawKey> = witnessed.iter().map(|w| raw_key(&w.diagnosis)).collect();
        for (bytes, answer) in inputs.into_iter().zip(&answers) {
            let Some(diagnosis) = diagnose_input(&bytes, answer, capabilities) else {
                continue;
            };
            if known.contains(&raw_key(&diagnosis)) {
                continue;
            }
            add_raw(&mut raw, Departed { bytes, count: 1 }, answer, capabilities);
        }
    }
    Ok(group(subject, witnessed))
}

/// The finding of one departing input of an in-process decoder (minimised, position
/// probed, each decode contained), with its witness and the candidates the minimiser
/// tested; `None` when `decoder` agrees with the reference on `input`. `utf8conf run` and
/// the fuzz targets file their reports by it.
pub fn in_process_finding(
    decoder: &dyn crate::decoders::Decoder,
    input: &[u8],
    occurrences: u64,
    reproduce: &dyn Fn(&[u8]) -> String,
) -> Option<(Finding, Vec<u8>, usize)> {
    let capabilities = decoder.capabilities();
    let answer = decode_contained(decoder, &[input.to_vec()]).pop()?;
    let diagnosis = diagnose_input(input, &answer, capabilities)?;
    let subject = Subject {
        name: decoder.name(),
        capabilities,
        reproduce,
    };
    let given = Departed {
        bytes: input.to_vec(),
        count: occurrences.max(1),
    };
    let decode =
        |batch: &[Vec<u8>]| Ok::<_, std::convert::Infallible>(decode_contained(decoder, batch));
    let Ok(witnessed) = witness(&subject, given, diagnosis, &mut { decode });
    let bytes = witnessed.bytes.clone();
    let calls = witnessed.calls;
    Some((finding_of(&subject, vec![witnessed]), bytes, calls))
}

fn add_raw(
    raw: &mut BTreeMap<RawKey, (Departed, Diagnosis)>,
    given: Departed,
    answer: &Answer,
    capabilities: Capabilities,
) {
    let Some(diagnosis) = diagnose_input(&given.bytes, answer, capabilities) else {
        return;
    };
    let count = given.count;
    match raw.entry(raw_key(&diagnosis)) {
        std::collections::btree_map::Entry::Vacant(slot) => {
            slot.insert((given, diagnosis));
        }
        std::collections::btree_map::Entry::Occupied(mut slot) => {
            let (kept, kept_diagnosis) = slot.get_mut();
            let total = kept.count + count;
            if (given.bytes.len(), &given.bytes) < (kept.bytes.len(), &kept.bytes) {
                *kept = given;
                *kept_diagnosis = diagnosis;
            }
            kept.count = total;
        }
    }
}

/// Minimises one departure and probes its position.
fn witness<E>(
    subject: &Subject<'_>,
    given: Departed,
    diagnosis: Diagnosis,
    decode: &mut impl FnMut(&[Vec<u8>]) -> Result<Vec<Answer>, E>,
) -> Result<Witnessed, E> {
    let capabilities = subject.capabilities;
    let mut failure = None;
    let minimized = minimize::minimize_batched(&given.bytes, MINIMISE_BUDGET, |candidates| {
        if failure.is_some() {
            return vec![false; candidates.len()];
        }
        match decode(candidates) {
            Ok(answers) => candidates
                .iter()
                .zip(&answers)
                .map(|(c, a)| same_kind(diagnose_input(c, a, capabilities).as_ref(), &diagnosis))
                .collect(),
            Err(error) => {
                failure = Some(error);
                vec![false; candidates.len()]
            }
        }
    });
    if let Some(error) = failure {
        return Err(error);
    }
    let calls = minimized.calls;
    let mut bytes = minimized.bytes;
    let mut answer = decode(std::slice::from_ref(&bytes))?
        .pop()
        .expect("one answer per input");
    let mut diagnosis = diagnose_input(&bytes, &answer, capabilities)
        .filter(|d| same_kind(Some(d), &diagnosis))
        .unwrap_or(diagnosis);
    // A character "swallowed" after an error may be one the decoder mishandles anyway
    // (a noncharacter it rejects, a U+0000 it stops at): then that is the cause.
    if let DecoderAction::SwallowsCharacter { .. } = diagnosis.cause.decoder_does {
        // The character in its place, everything before it filler.
        let unit = &diagnosis.cause.unit;
        let mut alone = vec![position::FILLER; unit.offset];
        alone.extend_from_slice(&bytes[unit.offset..unit.offset + unit.len]);
        let alone_answer = decode(std::slice::from_ref(&alone))?
            .pop()
            .expect("one answer per input");
        if let Some(own) = diagnose_input(&alone, &alone_answer, capabilities) {
            bytes = alone;
            answer = alone_answer;
            diagnosis = own;
        }
    }
    diagnosis.cause.position = position::probe(&bytes, &diagnosis, capabilities, decode)?;
    Ok(Witnessed {
        bytes,
        calls,
        answer,
        diagnosis,
        count: given.count,
    })
}

/// Inputs around a cause unit: the unit followed by an error of each category, and by
/// well-formed text of each length (what does the decoder do *after* the unit?).
pub fn followup_inputs(unit: &[u8]) -> Vec<Vec<u8>> {
    FOLLOWERS
        .iter()
        .map(|follower| [unit, follower].concat())
        .collect()
}

/// One example of each ill-formed category (Unicode Table 3-7's complement, as the
/// taxonomy names it), then well-formed characters of 1 to 4 bytes and a NUL.
const FOLLOWERS: [&[u8]; 16] = [
    &[0xFF],                               // invalid-lead
    &[0x80],                               // unexpected-continuation
    &[0xE2, 0x82],                         // truncated-at-end
    &[0xE2, 0x82, 0x41],                   // truncated-interrupted
    &[0xC0, 0x80],                         // overlong-2
    &[0xE0, 0x80, 0x80],                   // overlong-3
    &[0xF0, 0x80, 0x80, 0x80],             // overlong-4
    &[0xED, 0xA0, 0x80],                   // surrogate
    &[0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80], // cesu8-pair
    &[0xF4, 0x90, 0x80, 0x80],             // above-max
    &[0xF8, 0x88, 0x80, 0x80, 0x80],       // legacy-5-6-byte
    &[0x41],                               // UTF8-1
    &[0xC3, 0xA9],                         // UTF8-2 (U+00E9)
    &[0xE2, 0x82, 0xAC],                   // UTF8-3 (U+20AC)
    &[0xF0, 0x9F, 0x98, 0x80],             // UTF8-4 (U+1F600)
    &[0x00],                               // U+0000
];

/// Groups witnessed departures by root-cause key into findings; the smallest witness of a
/// group represents it, the others with other categories are its manifestations.
fn group(subject: &Subject<'_>, mut witnessed: Vec<Witnessed>) -> Vec<Finding> {
    name_one_policy(&mut witnessed);
    witnessed.sort_by(|a, b| (a.bytes.len(), &a.bytes).cmp(&(b.bytes.len(), &b.bytes)));
    let mut order: Vec<String> = Vec::new();
    let mut groups: BTreeMap<String, Vec<Witnessed>> = BTreeMap::new();
    for w in witnessed {
        let key = w.diagnosis.cause.key();
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(w);
    }
    order
        .into_iter()
        .map(|key| finding_of(subject, groups.remove(&key).expect("grouped")))
        .collect()
}

/// A replacement-policy bug is one finding: the policy named is the first that explains
/// every witness (a short witness alone may fit several).
fn name_one_policy(witnessed: &mut [Witnessed]) {
    let is_policy = |w: &Witnessed| {
        matches!(
            w.diagnosis.cause.decoder_does,
            DecoderAction::Replacements {
                policy: Some(_),
                ..
            }
        )
    };
    let explains = |policy: ReplacementPolicy, w: &Witnessed| {
        let decoded = Reference::rfc3629().decode(&w.bytes);
        let expected = expected_scalars(&w.bytes, &segments(&w.bytes, &decoded), policy);
        matches!(&w.answer, Ok(outcome) if outcome.scalars.as_ref() == Some(&expected))
    };
    let Some(policy) = cause::POLICIES_TRIED.into_iter().find(|&policy| {
        witnessed
            .iter()
            .filter(|w| is_policy(w))
            .all(|w| explains(policy, w))
    }) else {
        return;
    };
    for w in witnessed.iter_mut().filter(|w| is_policy(w)) {
        if let DecoderAction::Replacements { policy: named, .. } =
            &mut w.diagnosis.cause.decoder_does
        {
            *named = Some(policy);
        }
    }
}

fn finding_of(subject: &Subject<'_>, members: Vec<Witnessed>) -> Finding {
    let representative = &members[0];
    let cause: RootCause = representative.diagnosis.cause.clone();
    let categories = cause.categories();
    let mut aspects: Vec<Aspect> = members
        .iter()
        .flat_map(|m| m.diagnosis.aspects.iter().copied())
        .collect();
    aspects.sort();
    aspects.dedup();
    let mut manifestations: Vec<Manifestation> = Vec::new();
    for member in &members[1..] {
        let seen_in = unit_categories(&member.diagnosis.cause);
        if seen_in == unit_categories(&cause)
            || manifestations.iter().any(|m| m.categories == seen_in)
            || manifestations.len() == MANIFESTATIONS_KEPT
        {
            continue;
        }
        manifestations.push(Manifestation {
            categories: seen_in,
            input_hex: format_hex(&member.bytes),
            aspects: member.diagnosis.aspects.clone(),
        });
    }
    let bytes = &representative.bytes;
    // The reference's decode of the witness, made once for every part below.
    let reference = Reference::rfc3629().decode(bytes);
    let security = crate::finding::impact::classify_cause(
        &cause,
        &aspects,
        bytes,
        &reference,
        &representative.answer,
    );
    Finding {
        id: Finding::id_for(subject.name, &cause),
        decoder: subject.name.to_string(),
        title: cause.title(),
        categories,
        witness_hex: format_hex(bytes),
        aspects,
        occurrences: members.iter().map(|m| m.count).sum(),
        explanation: explain::explain(bytes, &reference),
        reference_outcome: serde_json::to_value(reference.to_outcome("reference", bytes))
            .expect("outcomes serialise"),
        decoder_answer: Some(RecordedAnswer::of(&representative.answer)),
        reproduce: (subject.reproduce)(bytes),
        manifestations,
        cause,
        security: Some(security),
        witnesses: Vec::new(),
        model: None,
    }
}

/// The taxonomy categories of the unit itself (not of the cause): where a manifestation
/// is met.
fn unit_categories(cause: &RootCause) -> Vec<Category> {
    match cause.unit.unit {
        UnitKind::Error { category } => vec![category],
        UnitKind::WellFormed { .. } | UnitKind::End => vec![Category::ValidMisdecoded],
    }
}

/// Decodes a batch in process, each input contained ([`contain::contained`]): a panic is a
/// `crash` answer.
pub fn decode_contained(decoder: &dyn crate::decoders::Decoder, inputs: &[Vec<u8>]) -> Vec<Answer> {
    inputs
        .iter()
        .map(|input| match contain::contained(|| decoder.decode(input)) {
            Ok(answer) => answer,
            Err(message) => Err(crate::outcome::DecoderFailure {
                kind: crate::outcome::FailureKind::Crash,
                message: format!("panicked: {message}"),
            }),
        })
        .collect()
}
