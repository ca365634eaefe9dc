//! The diagnosis measured on the catalogue: for each planted decoder, how many findings
//! `check`'s grading path gives (the learned machine's mechanisms, then the rule-based
//! findings the machine does not explain) against how many mechanisms it has, and which
//! mechanisms are missed or split. `docs/FINDINGS.md` carries the table it prints, beside
//! the figures of the rule-based diagnosis alone that came before.
//!
//! A finding is attributed to the mechanisms it needs: mechanism `b` explains finding `f`
//! when the decoder with `b` switched off decodes `f`'s witness differently. A finding
//! is *of* mechanism `b` when it is attributed to `b` and otherwise only to mechanisms
//! the catalogue declares as masking `b` ([`super::expect::Expected::masked_by`]): a
//! lossy-only interface changes the verdict of every ill-formed input, so no witness of
//! a lossy-only decoder's policy can be attributed to the policy alone, and the
//! catalogue's own witness of it is not either (`catalogue_tests` checks each declared
//! mask). A mechanism is found when some finding is of it; merged when it is only ever
//! attributed together with mechanisms not declared as masking it (its finding's witness
//! shows two mechanisms at once, so the report does not separate them); missed when no
//! finding is attributed to it; split when more than one finding is of it alone. A
//! finding attributed to no mechanism is counted as unexplained. A decoder is exact when
//! it gives as many findings as it has mechanisms, none missed, merged or split, and
//! each finding can be matched to its own mechanism.
//!
//! Run it with `cargo test --lib planted::baseline::diagnosis_baseline -- --ignored --nocapture`;
//! `PLANTED_BASELINE_ONLY=name,name` measures only those decoders (self-tests too), and
//! `PLANTED_BASELINE_TITLES=1` prints each finding's title and witness as well.

use super::expect::render;
use super::tests::{findings_and_model, inputs};
use super::*;

/// The measurement of one decoder.
pub(super) struct Row {
    name: &'static str,
    mechanisms: usize,
    findings: usize,
    missed: Vec<&'static str>,
    merged: Vec<&'static str>,
    /// Merged as counted before declared masks were honoured: attributed only ever
    /// together with another mechanism, masking or not.
    merged_with_masks: Vec<&'static str>,
    split: Vec<&'static str>,
    unexplained: usize,
    /// Each finding can be matched to a mechanism of its own.
    matched: bool,
    /// Findings that are mechanisms of the learned machine (the rest are conditions).
    from_model: usize,
    /// Why the machine is incomplete (`None`: complete).
    incomplete: Option<String>,
}

impl Row {
    /// Exactly one finding per mechanism.
    pub(super) fn exact(&self) -> bool {
        self.findings == self.mechanisms
            && self.missed.is_empty()
            && self.merged.is_empty()
            && self.split.is_empty()
            && self.unexplained == 0
            && self.matched
    }

    /// One line for a failure message.
    pub(super) fn summary(&self) -> String {
        format!(
            "{}: {} findings for {} mechanisms; missed {:?}, merged {:?}, split {:?}, \
             {} unexplained",
            self.name,
            self.findings,
            self.mechanisms,
            self.missed,
            self.merged,
            self.split,
            self.unexplained
        )
    }
}

/// The mechanisms finding `attributed` can be *of*: those it is attributed to such that
/// every other mechanism it needs is declared as masking that one.
fn of_mechanism(entry: &Entry, attributed: &[Bug]) -> Vec<Bug> {
    attributed
        .iter()
        .copied()
        .filter(|&bug| {
            let masks = entry
                .findings
                .iter()
                .find(|f| f.bug == bug)
                .map_or(&[][..], |f| f.masked_by);
            attributed
                .iter()
                .all(|other| *other == bug || masks.contains(other))
        })
        .collect()
}

/// Whether every finding can be given a mechanism of its own among those it can be of
/// (augmenting paths; a handful of findings at most).
fn perfect_matching(options: &[Vec<Bug>]) -> bool {
    fn assign(
        finding: usize,
        options: &[Vec<Bug>],
        owner: &mut Vec<(Bug, usize)>,
        seen: &mut Vec<Bug>,
    ) -> bool {
        for &bug in &options[finding] {
            if seen.contains(&bug) {
                continue;
            }
            seen.push(bug);
            let holder = owner.iter().position(|&(b, _)| b == bug);
            let free = match holder {
                None => true,
                Some(at) => assign(owner[at].1, options, owner, seen),
            };
            if free {
                owner.retain(|&(b, _)| b != bug);
                owner.push((bug, finding));
                return true;
            }
        }
        false
    }
    let mut owner = Vec::new();
    (0..options.len()).all(|finding| assign(finding, options, &mut owner, &mut Vec::new()))
}

pub(super) fn measure(entry: &'static Entry, inputs: &[Vec<u8>]) -> Row {
    let decoder = Planted::new(entry.name, entry.bugs);
    let (found, incomplete) = findings_and_model(&decoder, inputs);
    if std::env::var_os("PLANTED_BASELINE_TITLES").is_some() {
        for finding in &found {
            let condition = finding.cause.position;
            println!(
                "  {}: {} [{}]{}",
                entry.name,
                finding.title,
                finding.witness_hex,
                condition.map_or(String::new(), |c| format!(" ({})", c.describe()))
            );
        }
    }
    let mechanisms: Vec<Bug> = entry.findings.iter().map(|f| f.bug).collect();
    // A mechanism the walker plants with several switches is off when all of them are.
    let switches = |bug: Bug| {
        entry
            .findings
            .iter()
            .find(|f| f.bug == bug)
            .map_or_else(|| vec![bug], |f| f.switches())
    };
    let attributions: Vec<Vec<Bug>> = found
        .iter()
        .map(|finding| {
            let witness = crate::hex::parse_hex(&finding.witness_hex).expect("hex witness");
            let with = render(&decoder.decode(&witness).expect("decodes"));
            mechanisms
                .iter()
                .copied()
                .filter(|&bug| {
                    render(&decoder.without(&switches(bug)).decode(&witness).unwrap()) != with
                })
                .collect()
        })
        .collect();
    let of: Vec<Vec<Bug>> = attributions
        .iter()
        .map(|a| of_mechanism(entry, a))
        .collect();
    let ids = |keep: &dyn Fn(Bug) -> bool| -> Vec<&'static str> {
        mechanisms
            .iter()
            .copied()
            .filter(|&bug| keep(bug))
            .map(Bug::id)
            .collect()
    };
    let touched = |bug: Bug| attributions.iter().any(|a| a.contains(&bug));
    Row {
        name: entry.name,
        mechanisms: mechanisms.len(),
        findings: found.len(),
        missed: ids(&|bug| !touched(bug)),
        merged: ids(&|bug| touched(bug) && !of.iter().any(|o| o.contains(&bug))),
        merged_with_masks: ids(&|bug| touched(bug) && !attributions.iter().any(|a| a[..] == [bug])),
        split: ids(&|bug| of.iter().filter(|o| o[..] == [bug]).count() > 1),
        unexplained: attributions.iter().filter(|a| a.is_empty()).count(),
        matched: perfect_matching(&of),
        from_model: found.iter().filter(|f| f.model.is_some()).count(),
        incomplete,
    }
}

#[test]
#[ignore = "a measurement: prints the diagnosis table of docs/FINDINGS.md"]
fn diagnosis_baseline() {
    let inputs = inputs();
    // A comma-separated list of decoder names measures only those (to iterate quickly).
    let only = std::env::var("PLANTED_BASELINE_ONLY").unwrap_or_default();
    // The real-world decoders by default; any decoder of the catalogue by name.
    let rows: Vec<Row> = catalogue()
        .filter(|entry| match only.as_str() {
            "" => real_world::entries().any(|real| real.name == entry.name),
            only => only.split(',').any(|name| name == entry.name),
        })
        .map(|entry| measure(entry, &inputs))
        .collect();
    println!("| Planted decoder | Mechanisms | Findings (from the model) | Missed | Merged | Split | Unexplained | Machine |");
    println!("|---|---|---|---|---|---|---|---|");
    let list = |ids: &[&str]| {
        if ids.is_empty() {
            "-".to_string()
        } else {
            ids.iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    for row in &rows {
        println!(
            "| `{}` | {} | {} ({}) | {} | {} | {} | {} | {} |",
            row.name,
            row.mechanisms,
            row.findings,
            row.from_model,
            list(&row.missed),
            list(&row.merged),
            list(&row.split),
            row.unexplained,
            row.incomplete.as_deref().unwrap_or("complete")
        );
    }
    let total = |f: fn(&Row) -> usize| rows.iter().map(f).sum::<usize>();
    let exact = rows.iter().filter(|r| r.exact()).count();
    println!(
        "\n{} decoders, {} mechanisms, {} findings; {} missed, {} merged ({} counting declared \
         masks as merging), {} split, {} unexplained; exactly one finding per mechanism for \
         {} decoders",
        rows.len(),
        total(|r| r.mechanisms),
        total(|r| r.findings),
        total(|r| r.missed.len()),
        total(|r| r.merged.len()),
        total(|r| r.merged_with_masks.len()),
        total(|r| r.split.len()),
        total(|r| r.unexplained),
        exact
    );
    // Every finding the diagnosis gives is a real departure of the decoder.
    assert!(rows.iter().all(|r| r.findings > 0 || r.mechanisms == 0));
}

#[test]
#[ignore = "prints the catalogue table of docs/FINDINGS.md"]
fn catalogue_table() {
    println!("| Planted decoder | Mechanism | Kind | Input | Witness | Outcome | Condition | Masked by |");
    println!("|---|---|---|---|---|---|---|---|");
    for entry in real_world::entries() {
        for finding in entry.findings {
            let masked: Vec<&str> = finding.masked_by.iter().map(|b| b.id()).collect();
            println!(
                "| `{}` | `{}` | {:?} | {} | `{}` | `{}` | {} | {} |",
                entry.name,
                finding
                    .switches()
                    .iter()
                    .map(|b| b.id())
                    .collect::<Vec<_>>()
                    .join("` + `"),
                finding.kind,
                match finding.input {
                    expect::Input::WellFormed => "well-formed".to_string(),
                    expect::Input::IllFormed(c) => c.as_str().to_string(),
                },
                finding.witness,
                finding.outcome,
                match finding.condition {
                    expect::Condition::Always => "-".to_string(),
                    other => format!("{other:?}"),
                },
                if masked.is_empty() {
                    "-".to_string()
                } else {
                    masked.join(", ")
                }
            );
        }
    }
    println!();
    for entry in real_world::entries() {
        println!(
            "- `{}`: {}",
            entry.name,
            entry
                .source
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
}
