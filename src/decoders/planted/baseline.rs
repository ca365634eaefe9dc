//! The diagnosis measured on the catalogue: for each planted decoder, how many findings
//! `check`'s grading path gives (the learned machine's mechanisms, then the rule-based
//! findings the machine does not explain) against how many mechanisms it has, and which
//! mechanisms are missed or split. `docs/FINDINGS.md` carries the table it prints, beside
//! the figures of the rule-based diagnosis alone that came before.
//!
//! A finding is attributed to the mechanisms it needs: mechanism `b` explains finding `f`
//! when the decoder with `b` switched off decodes `f`'s witness differently. A mechanism
//! is found when some finding is attributed to it alone; merged when it is only ever
//! attributed together with others (its finding's witness shows two mechanisms at once,
//! so the report does not separate them); missed when no finding is attributed to it;
//! split when more than one finding is attributed to it alone. A finding attributed to
//! no mechanism is counted as unexplained.
//!
//! Run it with `cargo test --lib planted::baseline::diagnosis_baseline -- --ignored --nocapture`;
//! `PLANTED_BASELINE_ONLY=name,name` measures only those decoders, and
//! `PLANTED_BASELINE_TITLES=1` prints each finding's title and witness as well.

use super::expect::render;
use super::tests::{findings_and_model, inputs};
use super::*;

/// The measurement of one decoder.
struct Row {
    name: &'static str,
    mechanisms: usize,
    findings: usize,
    missed: Vec<&'static str>,
    merged: Vec<&'static str>,
    split: Vec<&'static str>,
    unexplained: usize,
    /// Findings that are mechanisms of the learned machine (the rest are conditions).
    from_model: usize,
    /// Why the machine is incomplete (`None`: complete).
    incomplete: Option<String>,
}

fn measure(entry: &'static Entry, inputs: &[Vec<u8>]) -> Row {
    let decoder = Planted::new(entry.name, entry.bugs);
    let (found, incomplete) = findings_and_model(&decoder, inputs);
    if std::env::var_os("PLANTED_BASELINE_TITLES").is_some() {
        for finding in &found {
            println!(
                "  {}: {} [{}]",
                entry.name, finding.title, finding.witness_hex
            );
        }
    }
    let mechanisms: Vec<Bug> = entry.findings.iter().map(|f| f.bug).collect();
    let attributions: Vec<Vec<Bug>> = found
        .iter()
        .map(|finding| {
            let witness = crate::hex::parse_hex(&finding.witness_hex).expect("hex witness");
            let with = render(&decoder.decode(&witness).expect("decodes"));
            mechanisms
                .iter()
                .copied()
                .filter(|&bug| render(&decoder.without(&[bug]).decode(&witness).unwrap()) != with)
                .collect()
        })
        .collect();
    let missed = mechanisms
        .iter()
        .filter(|bug| !attributions.iter().any(|a| a.contains(bug)))
        .map(|bug| bug.id())
        .collect();
    let merged = mechanisms
        .iter()
        .filter(|bug| {
            attributions.iter().any(|a| a.contains(bug))
                && !attributions.iter().any(|a| a[..] == [**bug])
        })
        .map(|bug| bug.id())
        .collect();
    let split = mechanisms
        .iter()
        .filter(|&&bug| attributions.iter().filter(|a| a[..] == [bug]).count() > 1)
        .map(|bug| bug.id())
        .collect();
    Row {
        name: entry.name,
        mechanisms: mechanisms.len(),
        findings: found.len(),
        missed,
        merged,
        split,
        unexplained: attributions.iter().filter(|a| a.is_empty()).count(),
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
    let rows: Vec<Row> = real_world::entries()
        .filter(|entry| only.is_empty() || only.split(',').any(|name| name == entry.name))
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
    let exact = rows
        .iter()
        .filter(|r| {
            r.findings == r.mechanisms
                && r.missed.is_empty()
                && r.merged.is_empty()
                && r.split.is_empty()
        })
        .count();
    println!(
        "\n{} decoders, {} mechanisms, {} findings; {} missed, {} merged, {} split, {} \
         unexplained; exactly one finding per mechanism for {} decoders",
        rows.len(),
        total(|r| r.mechanisms),
        total(|r| r.findings),
        total(|r| r.missed.len()),
        total(|r| r.merged.len()),
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
                finding.bug.id(),
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
