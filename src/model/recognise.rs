//! Recognition: a learned machine compared with every known decoder's
//! ([`super::known`]). Two machines are the same decoder, as far as the abstraction sees,
//! when their product has no differing transition ([`super::difference`]); otherwise
//! the closest known decoder is the one with the fewest differing transition families,
//! a family being every differing transition with the same change of behaviour (the
//! same pair of outputs), wherever it is. Counting families rather than transitions
//! keeps one bug that shows in many states (a decoder that stops at `00` differs after
//! every state) from outweighing a second bug, and counting them rather than the primary
//! differences keeps a decoder that stops at its first error (after which everything is
//! a manifestation) from looking close to everything.
//!
//! Machines are compared on what both decoders report. When the two report different
//! strict fields (a validator against a decoder giving offsets), the strict side of both
//! is read as the verdict alone (valid, invalid, no answer), which is exact: a validator's
//! step output is a function of the verdict. The lossy side is compared only where both
//! have one ([`super::difference::agree`]). "Behaves exactly like" needs a comparison of
//! everything the learned decoder reports: a decoder that substitutes Latin-1 for bad
//! bytes is not "exactly" a validator that reports no scalars, though they agree on every
//! verdict; such a match is ranked after the full ones, with `compared_on: fewer`.

use serde::Serialize;

use super::difference::{self, Difference};
use super::known::{self, KnownModel};
use super::learner::Hypothesis;
use super::output::Strict;
use crate::decoders::Capabilities;

/// Differences listed for the closest decoder (the rest are counted).
const SHOWN: usize = 6;
/// Candidates listed when no known decoder is equivalent.
const CANDIDATES: usize = 3;

/// What the comparison read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComparedOn {
    /// Every field the learned decoder reports.
    All,
    /// Fewer: the known decoder lacks a field the learned one reports (its strict side
    /// is then read as the verdict alone, or its scalars are missing).
    Fewer,
}

/// One known decoder compared with the learned machine.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// The known decoder's name.
    pub name: String,
    /// What it is.
    pub about: String,
    /// What the comparison read.
    pub compared_on: ComparedOn,
    /// What the learned decoder reports that the comparison could not read, because this
    /// known decoder reports other fields (`error offsets`, `error lengths`: the strict
    /// side is then read as the verdict alone) or no scalars where it has some
    /// (`scalars`); empty when `compared_on` is `all`.
    pub unread: Vec<&'static str>,
    /// Differing transition families in the product.
    pub differences: usize,
    /// Of those, the ones reached through agreeing transitions only.
    pub primary: usize,
    /// Differing transition families: the differing transitions grouped by the change of
    /// behaviour (the pair of outputs), wherever in the product they are.
    pub families: usize,
    /// The first differences (breadth-first: shortest witnesses first); `decoder` is the
    /// learned machine's output, `reference` the known decoder's.
    pub shown: Vec<Difference>,
}

/// The recognition of a learned machine.
#[derive(Debug, Clone, Serialize)]
pub struct Recognition {
    /// A sentence: "behaves exactly like X" or "closest: X (n differences)".
    pub summary: String,
    /// The known decoders no input tells apart from it.
    pub behaves_like: Vec<Candidate>,
    /// When none is equivalent, the closest ones, fewest differences first.
    pub closest: Vec<Candidate>,
    /// How many known machines were compared.
    pub known: usize,
}

/// Compares `learned` (a decoder reporting `capabilities`) with every known machine.
pub fn recognise(learned: &Hypothesis, capabilities: Capabilities) -> Recognition {
    recognise_among(learned, capabilities, known::all())
}

/// The recognition of a machine whose learning stopped before the equivalence oracle
/// accepted it: a part of a machine is not compared with whole ones, since the
/// transitions it lacks would count as differences and name a wrong closest decoder.
pub fn not_compared(why: &str) -> Recognition {
    Recognition {
        summary: format!(
            "not compared with known decoders: the learned machine is incomplete ({why})"
        ),
        behaves_like: Vec::new(),
        closest: Vec::new(),
        known: 0,
    }
}

/// [`recognise`] against a given set of known machines.
pub fn recognise_among(
    learned: &Hypothesis,
    capabilities: Capabilities,
    models: &[(KnownModel, Hypothesis)],
) -> Recognition {
    let mut candidates: Vec<Candidate> = models
        .iter()
        .map(|(model, machine)| compare(learned, capabilities, model, machine))
        .collect();
    // Full comparisons first; then the ones that read the scalars, then the ones that
    // read the most fields; then the fewest families, then the fewest transitions, then
    // the file's order (the sort is stable). A known decoder that reports less agrees
    // more easily: a validator agrees with every verdict of a decoder whose bugs are all
    // in its scalars, which says nothing about them. The scalars come before the error
    // fields because a lossy decoder's policy shows only in them, while an offset
    // mostly follows from the verdicts.
    candidates.sort_by_key(|c| {
        let scalars_unread = c.unread.contains(&"scalars");
        (
            c.compared_on,
            scalars_unread,
            c.unread.len(),
            c.families,
            c.differences,
        )
    });
    let (behaves_like, rest): (Vec<Candidate>, Vec<Candidate>) = candidates
        .into_iter()
        .partition(|c| c.differences == 0 && c.compared_on == ComparedOn::All);
    let closest: Vec<Candidate> = if behaves_like.is_empty() {
        rest.into_iter().take(CANDIDATES).collect()
    } else {
        Vec::new()
    };
    let summary = match (behaves_like.first(), closest.first()) {
        (Some(_), _) => {
            let names: Vec<&str> = behaves_like.iter().map(|c| c.name.as_str()).collect();
            format!("behaves exactly like {}", names.join(", "))
        }
        (None, Some(near)) if near.unread.is_empty() => format!(
            "behaves like no known decoder; closest: {} ({}): {} differing transition families, {} transitions",
            near.name, near.about, near.families, near.differences
        ),
        (None, Some(near)) => format!(
            "behaves like no known decoder on everything it reports; closest: {} ({}): {} differing transition families, {} transitions on what both report (its {} not compared)",
            near.name,
            near.about,
            near.families,
            near.differences,
            near.unread.join(" and "),
        ),
        (None, None) => "no known decoder to compare with".to_string(),
    };
    Recognition {
        summary,
        behaves_like,
        closest,
        known: models.len(),
    }
}

fn compare(
    learned: &Hypothesis,
    capabilities: Capabilities,
    model: &KnownModel,
    machine: &Hypothesis,
) -> Candidate {
    let theirs = model.capabilities();
    let mine = capabilities;
    let same_strict = mine.valid_up_to == theirs.valid_up_to && mine.error_len == theirs.error_len;
    let differences = if same_strict {
        difference::differences(learned, machine).0
    } else {
        difference::differences(&verdict_only(learned), &verdict_only(machine)).0
    };
    let mut unread = Vec::new();
    if !same_strict && mine.valid_up_to {
        unread.push("error offsets");
    }
    if !same_strict && mine.error_len {
        unread.push("error lengths");
    }
    if mine.scalars && !covers_lossy(learned, machine) {
        unread.push("scalars");
    }
    let compared_on = if unread.is_empty() {
        ComparedOn::All
    } else {
        ComparedOn::Fewer
    };
    Candidate {
        name: model.name.clone(),
        about: model.about.clone(),
        compared_on,
        unread,
        differences: differences.len(),
        primary: differences.iter().filter(|d| d.primary).count(),
        families: differences
            .iter()
            .map(|d| (d.decoder, d.reference))
            .collect::<std::collections::HashSet<_>>()
            .len(),
        shown: differences.into_iter().take(SHOWN).collect(),
    }
}

/// True when, wherever the product of the two machines goes, `known` has a lossy side
/// where `learned` has one: a decoder reporting scalars only for valid input (a fatal
/// decoder) cannot vouch for the scalars of a lossy one.
fn covers_lossy(learned: &Hypothesis, known: &Hypothesis) -> bool {
    let mut seen = std::collections::HashSet::from([(0usize, 0usize)]);
    let mut queue = std::collections::VecDeque::from([(0usize, 0usize)]);
    while let Some((a, b)) = queue.pop_front() {
        for byte in 0..=255u8 {
            let (an, aout) = learned.step(a, byte);
            let (bn, bout) = known.step(b, byte);
            if aout.lossy.is_some() && bout.lossy.is_none() {
                return false;
            }
            if seen.insert((an, bn)) {
                queue.push_back((an, bn));
            }
        }
    }
    true
}

/// `machine` with its strict side read as the verdict alone.
fn verdict_only(machine: &Hypothesis) -> Hypothesis {
    let mut projected = machine.clone();
    for output in projected.output.iter_mut().flatten() {
        output.strict = match output.strict {
            Strict::Valid => Strict::Valid,
            Strict::Failed => Strict::Failed,
            _ => Strict::Invalid,
        };
    }
    projected
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::grammar::Grammar;
    use crate::decoders;
    use crate::model::learn_machine;
    use crate::model::learner::Limits;

    fn learned(name: &str) -> (Hypothesis, Capabilities) {
        let decoder = decoders::by_name(name).unwrap_or_else(|| panic!("no decoder {name}"));
        let grammar = Grammar::rfc3629().unwrap();
        let machine = learn_machine(
            &*decoder,
            decoder.capabilities(),
            &grammar,
            Limits::default(),
        );
        assert!(
            machine.incomplete.is_none(),
            "{name}: {:?}",
            machine.incomplete
        );
        (machine.hypothesis().clone(), decoder.capabilities())
    }

    fn names(candidates: &[Candidate]) -> Vec<&str> {
        candidates.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn a_known_machine_is_recognised_as_itself() {
        for name in [
            "reference",
            "planted-java-modified-utf8",
            "planted-python-surrogatepass",
        ] {
            let (model, machine) = known::all()
                .iter()
                .find(|(m, _)| m.name == name)
                .unwrap_or_else(|| panic!("no known model {name}"));
            let recognition = recognise(machine, model.capabilities());
            assert!(
                names(&recognition.behaves_like).contains(&name),
                "{name}: {}",
                recognition.summary
            );
            assert!(recognition.closest.is_empty());
        }
    }

    #[test]
    fn a_built_in_decoder_learned_again_is_recognised_as_itself() {
        let (machine, capabilities) = learned("std-from_utf8");
        let recognition = recognise(&machine, capabilities);
        let found = names(&recognition.behaves_like);
        assert!(found.contains(&"std-from_utf8"), "{}", recognition.summary);
        assert!(recognition.summary.starts_with("behaves exactly like"));
        assert!(recognition
            .behaves_like
            .iter()
            .all(|c| c.compared_on == ComparedOn::All));
    }

    #[test]
    fn a_planted_decoder_is_closest_to_its_family() {
        // Stops at U+0000: PostgreSQL's text type, which rejects it, is the nearest.
        let (machine, capabilities) = learned("planted-stop-at-nul");
        let recognition = recognise(&machine, capabilities);
        assert!(
            recognition.behaves_like.is_empty(),
            "{}",
            recognition.summary
        );
        assert_eq!(
            recognition.closest[0].name, "planted-postgres-nul",
            "{}",
            recognition.summary
        );
        assert!(recognition.closest[0].families > 0);
        assert!(!recognition.closest[0].shown.is_empty());
    }

    #[test]
    fn two_bugs_are_closest_to_a_decoder_with_one_of_them() {
        let (machine, capabilities) = learned("planted-two-nul-and-surrogates");
        let recognition = recognise(&machine, capabilities);
        let closest = recognition.closest[0].name.as_str();
        assert!(
            [
                "planted-python-surrogatepass",
                "planted-freebsd-citrus-surrogates",
                "planted-postgres-nul"
            ]
            .contains(&closest),
            "{}",
            recognition.summary
        );
    }

    #[test]
    fn a_validator_is_compared_on_its_verdict_and_a_richer_decoder_is_not_one() {
        let find = |name: &str| known::all().iter().find(|(m, _)| m.name == name).unwrap();
        // A validator behaves exactly like the reference: its verdicts are all it says.
        let (validator, machine) = find("simdutf8-basic");
        let recognition = recognise(machine, validator.capabilities());
        assert!(names(&recognition.behaves_like).contains(&"reference"));
        // The reference is not exactly a validator: the validator says less.
        let (reference, machine) = find("reference");
        let recognition = recognise(machine, reference.capabilities());
        assert!(!names(&recognition.behaves_like).contains(&"simdutf8-basic"));
    }

    #[test]
    fn a_known_decoder_that_reads_less_ranks_after_one_that_reads_more_and_is_said_to() {
        let find = |name: &str| known::all().iter().find(|(m, _)| m.name == name).unwrap();
        let set = |names: &[&str]| -> Vec<(KnownModel, Hypothesis)> {
            names.iter().map(|n| find(n).clone()).collect()
        };
        // libxml2 gives an error offset but no length, and scalars. Neither peer reports
        // those strict fields; `std-lossy` gives scalars, `std-from_utf8` does not, so
        // its comparison reads the verdicts alone and it cannot rank first on them.
        let (learned, machine) = find("adapter:libxml2");
        let capabilities = learned.capabilities();
        let both = recognise_among(machine, capabilities, &set(&["std-from_utf8", "std-lossy"]));
        assert_eq!(names(&both.closest)[..2], ["std-lossy", "std-from_utf8"]);
        assert_eq!(both.closest[0].unread, ["error offsets"]);
        assert_eq!(both.closest[1].unread, ["error offsets", "scalars"]);
        // Alone, the validator is the closest, and the sentence says what was not read.
        let alone = recognise_among(machine, capabilities, &set(&["std-from_utf8"]));
        assert_eq!(alone.closest[0].compared_on, ComparedOn::Fewer);
        assert!(
            alone
                .summary
                .contains("on what both report (its error offsets and scalars not compared)"),
            "{}",
            alone.summary
        );
    }
}
