//! Findings from the decoder's learned machine ([`crate::model`]), and the conditions
//! the machine does not explain.
//!
//! A finding of the model is one mechanism: the differences of the decoder's machine
//! from RFC 3629's that one single-fault hypothesis explains, its witness the shortest
//! word reaching the first of them, its title generated from that difference. Each is
//! turned into a report [`Finding`] by diagnosing its witness like any departure (the
//! root-cause unit, the aspects, the security class, the reproduction), with the
//! model's title and its two typed axes, input category and behaviour ([`ModelBasis`]).
//!
//! The rule-based findings found from the check's inputs are then sorted by one
//! question: does the machine predict what the decoder does on the witness, byte by
//! byte, and is the departure the machine's (the witness runs through one of its
//! confirmed differences from RFC 3629's, or a finding of the machine names the same
//! categories)? When it is, the departure is already reported by mechanism, and the
//! rule-based finding goes. When the machine does not predict the decoder, the decoder
//! does there something its short-word machine cannot: the behaviour depends on
//! position or length (a block boundary, a second path for long inputs), and the
//! finding stays, titled with its position condition. A departure the abstract outputs
//! do not show at all stays too.
//!
//! A machine that is not complete (its learning budget ran out) explains nothing: the
//! rule-based findings are then the whole diagnosis.

use crate::finding::{Finding, Manifestation, ModelBasis, PositionCondition};
use crate::hex::format_hex;
use crate::model::mechanism::{self, Mechanism};
use crate::model::oracle::Oracle;
use crate::model::{title, ModelReport};
use crate::outcome::Answer;
use crate::stable_hash::fnv1a64_hex;
use crate::taxonomy::Category;

use super::{condition, diagnose_input, finding_of, Subject, Witnessed, MANIFESTATIONS_KEPT};

/// What grading through the model gives: the findings, and the conditions learned as
/// machines of their own that gave some of them.
#[derive(Debug, Clone, Default)]
pub struct Graded {
    /// The model's findings, then the rule-based ones it does not explain.
    pub findings: Vec<Finding>,
    /// The machines under a position or length condition behind some findings.
    pub conditions: Vec<condition::ConditionModel>,
}

/// The check's findings: the model's, then the rule-based ones the model does not
/// explain. `decoder` answers the per-prefix queries that test a witness against the
/// machine; `decode` the whole witnesses.
pub fn with_model<E>(
    subject: &Subject<'_>,
    report: &ModelReport,
    decoder: &dyn crate::decoders::Decoder,
    rule_based: Vec<Finding>,
    mut decode: impl FnMut(&[Vec<u8>]) -> Result<Vec<Answer>, E>,
) -> Result<Graded, E> {
    if report.model.incomplete.is_some() {
        return Ok(Graded {
            findings: rule_based,
            conditions: Vec::new(),
        });
    }
    let witnesses: Vec<Vec<u8>> = report
        .findings
        .iter()
        .map(|f| f.witness.clone())
        .chain(report.differences.iter().map(|d| d.witness.clone()))
        .collect();
    let answers = decode(&witnesses)?;
    let (own, shown) = answers.split_at(report.findings.len());
    let mut findings: Vec<Finding> = Vec::new();
    for (found, answer) in report.findings.iter().zip(own) {
        if let Some(finding) = of_mechanism(subject, report, found, answer, shown) {
            findings.push(finding);
        }
    }
    let rest = unexplained(report, decoder, subject, rule_based, &findings);
    let mut learned = Vec::new();
    let rest = conditions(
        report,
        decoder,
        subject,
        rest,
        (&mut findings, &mut learned),
        &mut decode,
    )?;
    findings.extend(rest);
    // After the rule-based findings are sorted, which compares categories as diagnosed.
    for finding in &mut findings {
        categories_of_its_inputs(finding, decoder);
    }
    Ok(Graded {
        findings,
        conditions: learned,
    })
}

/// The categories of well-formed input: a decoder rejected, misdecoded or stripped text
/// it should pass through.
fn of_well_formed(category: Category) -> bool {
    matches!(
        category,
        Category::ValidRejected
            | Category::ValidMisdecoded
            | Category::NoncharacterRejected
            | Category::BomStripped
    )
}

/// A finding marks as failing only categories one of its inputs is of. The root-cause
/// unit of a witness whose departure is on bytes the reference rejects too (a stray `80`
/// decoded as U+0080 by a Latin-1 fallback) may be diagnosed as a well-formed unit
/// misdecoded, though no well-formed text was harmed. When no input of the finding
/// (witness or manifestation) harms well-formed text, the categories of well-formed
/// input go, and the witness's own category is marked instead.
fn categories_of_its_inputs(finding: &mut Finding, decoder: &dyn crate::decoders::Decoder) {
    if !finding.categories.iter().any(|&c| of_well_formed(c)) {
        return;
    }
    let inputs: Vec<Vec<u8>> = std::iter::once(&finding.witness_hex)
        .chain(finding.manifestations.iter().map(|m| &m.input_hex))
        .map(|hex| crate::hex::parse_hex(hex).unwrap_or_default())
        .collect();
    let answers = super::decode_contained(decoder, &inputs);
    let harmed = inputs
        .iter()
        .zip(&answers)
        .any(|(input, answer)| harms_well_formed(input, answer));
    if harmed {
        return;
    }
    finding.categories.retain(|&c| !of_well_formed(c));
    let witness = &inputs[0];
    if let Some(own) = title::category(witness) {
        if !finding.categories.contains(&own) {
            finding.categories.push(own);
        }
    }
}

/// Whether the decoder harmed well-formed text in `input`: the input is well-formed, or
/// the decoder rejects earlier than the reference's first error, or a character the
/// reference decodes is not among the decoder's scalars in order (changed or lost).
fn harms_well_formed(input: &[u8], answer: &crate::outcome::Answer) -> bool {
    let Ok(outcome) = answer else { return true };
    let reference = crate::reference::Reference::rfc3629().decode(input);
    let Some((error, _)) = reference.first_error() else {
        return true;
    };
    if !outcome.valid && outcome.valid_up_to.is_some_and(|at| at < error) {
        return true;
    }
    let Some(scalars) = &outcome.scalars else {
        return false;
    };
    let mut ours = scalars.iter();
    !reference
        .scalars
        .iter()
        .filter(|&&s| s != crate::outcome::REPLACEMENT)
        .all(|s| ours.any(|o| o == s))
}

/// The report finding of one mechanism of the model; `None` when the decoder's answer on
/// the witness does not depart (a machine wrong there: confirmed differences depart).
fn of_mechanism(
    subject: &Subject<'_>,
    report: &ModelReport,
    found: &mechanism::Finding,
    answer: &Answer,
    shown: &[Answer],
) -> Option<Finding> {
    let diagnosis = diagnose_input(&found.witness, answer, subject.capabilities)?;
    let witnessed = Witnessed {
        bytes: found.witness.clone(),
        calls: 0,
        answer: answer.clone(),
        diagnosis,
        count: 1,
    };
    let mut finding = finding_of(subject, vec![witnessed]);
    finding.title = found.title.clone();
    // Two mechanisms may share a root-cause unit (a lossy-only decoder's verdict and its
    // decoding of a surrogate both show at the first byte): the id names the mechanism.
    finding.id = model_finding_id(subject.name, &found.title);
    finding.manifestations = found
        .manifestations
        .iter()
        .filter_map(|&index| {
            let difference = report.differences.get(index)?;
            let answer = shown.get(index)?;
            let aspects =
                diagnose_input(&difference.witness, answer, subject.capabilities)?.aspects;
            Some(Manifestation {
                categories: title::category(&difference.witness).into_iter().collect(),
                input_hex: format_hex(&difference.witness),
                aspects,
            })
        })
        .take(MANIFESTATIONS_KEPT)
        .collect();
    finding.occurrences = 1 + finding.manifestations.len() as u64;
    finding.model = Some(ModelBasis {
        mechanism: match &found.mechanism {
            Mechanism::Convention(convention) => format!("convention {}", convention.name()),
            Mechanism::Transition => "transition".to_string(),
            Mechanism::Unexplained => "unexplained".to_string(),
        },
        policy: matches!(found.mechanism, Mechanism::Convention(c) if c.is_policy()),
        input: found.category,
        behaviour: found.behaviour,
        differences: found.differences.len() + found.manifestations.len(),
    });
    categories_behind(&mut finding, report, found);
    Some(finding)
}

/// A bug behind another bug (none of its differences is reached through agreeing steps)
/// has a witness that departs first where the other bug does: the categories of the
/// witness's first departure are that bug's. Unless its own behaviour is about
/// well-formed text, the categories of well-formed input go, and the same error at
/// another offset is marked as the offset miscounted (an offset counted from after a
/// stripped byte order mark, behind the strip).
fn categories_behind(finding: &mut Finding, report: &ModelReport, found: &mechanism::Finding) {
    use crate::model::mechanism::Behaviour;
    let behind = found.mechanism == Mechanism::Transition
        && !found.differences.is_empty()
        && found
            .differences
            .iter()
            .all(|&i| report.differences.get(i).is_some_and(|d| !d.primary));
    let about_well_formed = matches!(
        found.behaviour,
        Behaviour::RejectsWellFormed | Behaviour::Misdecodes | Behaviour::DropsOutput
    );
    if !behind || about_well_formed {
        return;
    }
    finding.categories.retain(|&c| !of_well_formed(c));
    // The same error, the same length, at another offset: counted wrong.
    let shifted = found.differences.iter().any(|&i| {
        report
            .differences
            .get(i)
            .is_some_and(|d| mechanism::offset_shift(d).is_some())
    });
    let own = [
        shifted.then_some(Category::OffsetMiscounted),
        title::category(&found.witness),
    ];
    for category in own.into_iter().flatten() {
        if !finding.categories.contains(&category) {
            finding.categories.push(category);
        }
    }
}

/// The rule-based findings whose witness the machine does not predict, byte by byte:
/// the decoder's behaviour there depends on more than the bytes just read.
fn unexplained(
    report: &ModelReport,
    decoder: &dyn crate::decoders::Decoder,
    subject: &Subject<'_>,
    rule_based: Vec<Finding>,
    from_model: &[Finding],
) -> Vec<Finding> {
    let witnesses: Vec<Vec<u8>> = rule_based
        .iter()
        .map(|f| crate::hex::parse_hex(&f.witness_hex).unwrap_or_default())
        .collect();
    let decoder = super::contain::Contained(decoder);
    let mut oracle = Oracle::new(&decoder, subject.capabilities);
    oracle.prefetch(witnesses.iter().map(Vec::as_slice));
    let machine = report.model.hypothesis();
    // Explained: the machine predicts the decoder there, and either the witness runs
    // through one of the machine's confirmed differences, or a finding of the machine
    // already names the same categories (the abstract outputs hide this manifestation
    // of it: an incomplete tail's offset moved like the errors' offsets). A departure
    // they do not show at all (a BOM dropped by a decoder that gives scalars only for
    // valid input) is not the machine's, so its rule-based finding stays.
    let explained = |finding: &Finding, witness: &[u8], oracle: &mut Oracle<'_>| {
        machine.run(witness) == oracle.outputs(witness)
            && (first_difference(report, witness).is_some()
                || from_model
                    .iter()
                    .any(|f| f.categories == finding.categories))
    };
    // A decoder that never reports an error is one finding of the machine's. A witness
    // on which it gives the reference's scalars and only calls the input valid is that
    // finding again, whatever path the decoder took there (msgpack-javascript hands
    // strings over 200 bytes to a `TextDecoder`, which replaces as RFC 3629 does and
    // reports nothing): no second finding, and no title read off the verdict alone.
    let silent = report.findings.iter().any(|f| {
        f.mechanism == Mechanism::Convention(crate::model::conventions::Convention::NeverReports)
    });
    let silence_only = |witness: &[u8]| {
        let answers = super::decode_contained(&decoder, &[witness.to_vec()]);
        let reference = crate::decoders::Decoder::decode(
            &crate::decoders::reference::ReferenceDecoder,
            witness,
        );
        match (&answers[0], reference) {
            (Ok(ours), Ok(theirs)) => {
                ours.valid && ours.scalars.is_some() && ours.scalars == theirs.scalars
            }
            _ => false,
        }
    };
    rule_based
        .into_iter()
        .zip(&witnesses)
        .filter(|(finding, witness)| {
            !(explained(finding, witness, &mut oracle) || (silent && silence_only(witness)))
        })
        .map(|(finding, _)| finding)
        .collect()
}

/// The position conditions of the rule-based findings left, each learned as a machine
/// of its own where it has an offset to learn at ([`super::condition`]): the new
/// findings of those machines join `findings`, titled with their condition, and the
/// rule-based findings whose witnesses they explain go. Returns the rule-based findings
/// that stay.
fn conditions<E>(
    report: &ModelReport,
    decoder: &dyn crate::decoders::Decoder,
    subject: &Subject<'_>,
    rest: Vec<Finding>,
    (findings, models): (&mut Vec<Finding>, &mut Vec<condition::ConditionModel>),
    decode: &mut impl FnMut(&[Vec<u8>]) -> Result<Vec<Answer>, E>,
) -> Result<Vec<Finding>, E> {
    let contained = super::contain::Contained(decoder);
    let mut learned: Vec<condition::ConditionModel> = Vec::new();
    for condition in rest.iter().filter_map(|f| f.cause.position) {
        let Some(offset) = condition::offset_of(condition) else {
            continue;
        };
        if learned.iter().all(|known| known.placed_at != offset) {
            if let Some(model) = condition::learned_at(&contained, offset, report) {
                learned.push(condition::ConditionModel {
                    condition,
                    placed_at: offset,
                    model,
                });
            }
        }
    }
    // A rule-based finding is explained by the condition's machine that predicts the
    // decoder on its witness (the filler taken off) and reaches one of its differences
    // there; the machine's findings reported are those that explain one. A finding of
    // that machine no generated input showed is left out: its states count positions, so
    // the same mechanism reached behind another error is a place of its own there.
    let mut shown: Vec<(usize, usize)> = Vec::new();
    let mut kept = Vec::new();
    for finding in rest {
        let witness = crate::hex::parse_hex(&finding.witness_hex).unwrap_or_default();
        let explains = learned.iter().enumerate().find_map(|(at, learned)| {
            explaining(learned, &contained, subject.capabilities, &witness).map(|found| (at, found))
        });
        match explains {
            Some(pair) => shown.push(pair),
            None => kept.push(finding),
        }
    }
    for (at, learned) in learned.into_iter().enumerate() {
        let (condition, offset, placed) = (learned.condition, learned.placed_at, learned.model);
        // A length condition's machine is the second path's whole machine, its states
        // the same bytes' at any offset: each of its findings is a mechanism of that path.
        let whole_path = matches!(condition, PositionCondition::InputLongerThan { .. });
        let new: Vec<usize> = (0..placed.findings.len())
            .filter(|&i| whole_path || shown.contains(&(at, i)))
            .filter(|&i| {
                let title = &placed.findings[i].title;
                report.findings.iter().all(|known| &known.title != title)
            })
            .collect();
        let placed = condition::with_filler(placed, condition, offset);
        let witnesses: Vec<Vec<u8>> = new
            .iter()
            .map(|&i| placed.findings[i].witness.clone())
            .chain(placed.differences.iter().map(|d| d.witness.clone()))
            .collect();
        let answers = decode(&witnesses)?;
        let (own, manifest) = answers.split_at(new.len());
        let before = findings.len();
        for (&i, answer) in new.iter().zip(own) {
            let found = &placed.findings[i];
            if let Some(mut finding) = of_mechanism(subject, &placed, found, answer, manifest) {
                // Where the byte this finding names departs, which may be narrower than
                // the condition whose offset its machine was learned at. A length
                // condition is its machine's whole path: the decoder's step at a byte,
                // read off the input up to that byte, cannot tell it from an offset.
                let condition = match whole_path {
                    true => condition,
                    false => {
                        condition::where_it_shows(&contained, subject.capabilities, &found.witness)
                            .unwrap_or(condition)
                    }
                };
                finding.title = format!("{}, {}", found.title, condition.describe());
                finding.id = model_finding_id(subject.name, &finding.title);
                finding.cause.position = Some(condition);
                findings.push(finding);
            }
        }
        if findings.len() > before {
            models.push(condition::ConditionModel {
                condition,
                placed_at: offset,
                model: placed,
            });
        }
    }
    Ok(kept)
}

/// The finding of the condition's machine `learned` that explains `witness`: the machine predicts the decoder there, the filler taken
/// off, and the witness runs through the finding's difference. The finding the
/// difference is a mechanism of comes before one it is only a manifestation of.
fn explaining(
    learned: &condition::ConditionModel,
    decoder: &dyn crate::decoders::Decoder,
    capabilities: crate::decoders::Capabilities,
    witness: &[u8],
) -> Option<usize> {
    let (offset, placed) = (learned.placed_at, &learned.model);
    let tail = condition::under_condition(learned.condition, offset, witness)?;
    let placed_decoder = condition::Placed::new(decoder, offset);
    let predicted = placed.model.hypothesis().run(tail)
        == Oracle::new(&placed_decoder, capabilities).outputs(tail);
    let difference = first_difference(placed, tail).filter(|_| predicted)?;
    let findings = &placed.findings;
    findings
        .iter()
        .position(|f| f.differences.contains(&difference))
        .or_else(|| {
            findings
                .iter()
                .position(|f| f.manifestations.contains(&difference))
        })
}

/// The id of a finding of a machine: the decoder and the title, which names the
/// mechanism (two mechanisms may share a root-cause unit).
fn model_finding_id(decoder: &str, title: &str) -> String {
    fnv1a64_hex(format!("utf8conf/finding/1\n{decoder}\nmodel\n{title}").as_bytes())
}

/// The first of the report's (confirmed) differences that `witness` takes, run through
/// both machines together.
fn first_difference(report: &ModelReport, witness: &[u8]) -> Option<usize> {
    let (machine, reference) = (report.model.hypothesis(), report.reference.hypothesis());
    let (mut d, mut r) = (0, 0);
    for &byte in witness {
        let taken = report.differences.iter().position(|difference| {
            difference.decoder_state == d
                && difference.reference_state == r
                && difference.bytes.contains(&byte)
        });
        if taken.is_some() {
            return taken;
        }
        d = machine.step(d, byte).0;
        r = reference.step(r, byte).0;
    }
    None
}
