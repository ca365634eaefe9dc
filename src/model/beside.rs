//! A lossy convention beside strict bugs: a decoder whose lossy side follows one
//! convention (a substitute `?`, a per-byte policy) and whose strict side has a bug of
//! its own (an offset moved) departs on both sides of the same steps, so no single
//! hypothesis explains a whole output and every departure looks like a bug of its own.
//! Where one convention gives the decoder's lossy side on every difference, it is
//! taken as the baseline: its finding first, then the decoder's machine compared with
//! the convention's own machine, whose differences are the strict bugs alone.

use super::conventions::{Convention, ConventionDecoder};
use super::difference::{self, Difference};
use super::learner::{Hypothesis, Limits};
use super::mechanism::{self, Finding};
use super::oracle::Oracle;
use super::output::StepOutput;
use crate::automaton::grammar::Grammar;
use crate::decoders::Capabilities;

/// The findings with a convention as the lossy baseline, when one gives the decoder's
/// lossy side on the witness of every difference and departs from the reference's on
/// two of them or more, but does not give the whole outputs (then the ordinary
/// diagnosis names it already). `None` otherwise.
pub(super) fn findings(
    decoder: &Hypothesis,
    differences: &[Difference],
    capabilities: Capabilities,
    conventions: &[Convention],
    grammar: &Grammar,
) -> Option<Vec<Finding>> {
    if !capabilities.scalars || differences.is_empty() {
        return None;
    }
    let lossy = |outputs: &[StepOutput]| outputs.iter().map(|o| o.lossy).collect::<Vec<_>>();
    let seen: Vec<Vec<StepOutput>> = differences
        .iter()
        .map(|d| decoder.run(&d.witness))
        .collect();
    let convention = conventions
        .iter()
        .copied()
        // Only conventions whose strict answer is the reference's: the rest of the
        // difference is then the strict bugs' alone.
        .filter(|c| c.strict_is_the_reference())
        .find(|&convention| {
            let subject = ConventionDecoder::new(convention);
            let mut oracle = Oracle::new(&subject, capabilities);
            let mut departs = 0;
            let mut whole = true;
            for (d, seen) in differences.iter().zip(&seen) {
                let outputs = oracle.outputs(&d.witness);
                if lossy(&outputs) != lossy(seen) {
                    return false;
                }
                whole &= outputs == *seen;
                departs += usize::from(d.decoder.lossy != d.reference.lossy);
            }
            departs >= 2 && !whole
        })?;
    let baseline = super::learn_machine(
        &ConventionDecoder::new(convention),
        capabilities,
        grammar,
        Limits::default(),
    );
    let (mut rest, _) = difference::differences(decoder, baseline.hypothesis());
    difference::value_checks(decoder, baseline.hypothesis(), &mut rest);
    let witness = differences
        .iter()
        .position(|d| d.decoder.lossy != d.reference.lossy)?;
    let every: Vec<usize> = (0..differences.len()).collect();
    let mut found = vec![mechanism::convention_finding(
        convention,
        differences,
        witness,
        &every,
    )];
    // Against the baseline, whose lossy side is the substitute's if any, the
    // substitute is no hypothesis of its own.
    let unsubstituted: Vec<Convention> = conventions
        .iter()
        .copied()
        .filter(|c| !matches!(c, Convention::Substitute(_)))
        .collect();
    let mut strict = mechanism::findings(
        decoder,
        baseline.hypothesis(),
        &rest,
        capabilities,
        &unsubstituted,
    );
    // Their indices are into the differences from the baseline, which are not reported.
    for finding in &mut strict {
        finding.differences.clear();
        finding.manifestations.clear();
    }
    found.extend(strict);
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::super::conventions::{Convention, Substitute};
    use super::super::mechanism::Mechanism;
    use super::*;
    use crate::decoders::Decoder;
    use crate::outcome::{DecoderFailure, ErrorLen, Outcome};
    use crate::policy::ReplacementPolicy;

    const QUESTION_MARKS: Convention = Convention::Substitute(Substitute {
        policy: ReplacementPolicy::MaximalSubpart,
        scalar: 0x3F,
    });

    /// `?` in place of U+FFFD, and each error reported where its bytes end: a lossy
    /// convention and a strict bug on the same steps.
    struct QuestionMarksLateErrors(ConventionDecoder);

    impl Decoder for QuestionMarksLateErrors {
        fn name(&self) -> &str {
            "test-question-marks-late-errors"
        }
        fn version(&self) -> String {
            String::new()
        }
        fn description(&self) -> &str {
            "`?` for U+FFFD, errors reported at their end"
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::FIRST_ERROR_AND_SCALARS
        }
        fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
            self.0.decode_into(input, outcome)?;
            if let (Some(at), Some(ErrorLen::Invalid(len))) =
                (outcome.valid_up_to, outcome.error_len)
            {
                outcome.valid_up_to = Some(at + len);
            }
            Ok(())
        }
    }

    #[test]
    fn a_substitute_beside_an_offset_bug_is_two_findings() {
        let decoder = QuestionMarksLateErrors(ConventionDecoder::new(QUESTION_MARKS));
        let grammar = Grammar::rfc3629().expect("the grammar parses");
        let reference = super::super::reference_machine(decoder.capabilities(), &grammar);
        let report = super::super::compare_with(&decoder, reference, &grammar, Limits::default());
        let titles: Vec<&str> = report.findings.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(report.findings.len(), 2, "{titles:#?}");
        assert_eq!(
            report.findings[0].mechanism,
            Mechanism::Convention(QUESTION_MARKS)
        );
        assert!(titles[1].starts_with("reports each error where its ill-formed bytes end"));
    }
}
