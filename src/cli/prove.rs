//! `utf8conf prove`: the equivalence proofs of [`crate::automaton`], for humans.
//!
//! Prints the grammar's automata with their state counts, then one line per proof with
//! its verdict (`equivalent` / `holds`, or `DIFFERS` with the shortest counterexample),
//! and the sizes of the machines compared. `--dot DIR` also writes each automaton as a
//! Graphviz file (`dot -Tsvg DIR/grammar-units.dot` renders it). Exit code 0 when every
//! proof holds, 1 when one does not.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::automaton::grammar::Grammar;
use crate::automaton::{diagrams, prove_all};
use crate::reference::Reference;

/// Arguments of `utf8conf prove`.
#[derive(Debug, Args)]
pub struct ProveArgs {
    /// Also write the automata as Graphviz files (`*.dot`) into this directory.
    #[arg(long, value_name = "DIR")]
    dot: Option<PathBuf>,
}

/// Runs `utf8conf prove`.
pub fn run(args: ProveArgs) -> Result<u8, CliError> {
    let reference = Reference::rfc3629();
    let grammar = Grammar::of(reference)?;
    println!(
        "grammar: RFC 3629 section 4, {} = *( {} )",
        reference.sequence_rule(),
        reference.char_rule()
    );
    println!(
        "  {} NFA: {} states; determinised: {} subsets",
        reference.char_rule(),
        reference.automaton().state_count(),
        grammar.char_subsets
    );
    println!(
        "  unit machine (characters and maximal-subpart error units): {} states, {} minimal",
        grammar.units_unminimized.state_count(),
        grammar.units.state_count()
    );
    println!(
        "  {} acceptor: {} states (minimal)",
        reference.sequence_rule(),
        grammar.language.state_count()
    );
    println!();
    let proofs = prove_all()?;
    let mut all_hold = true;
    for proof in &proofs {
        let verdict = match &proof.result {
            Ok(detail) if detail.starts_with("equivalent") => "equivalent",
            Ok(_) => "holds",
            Err(_) => "DIFFERS",
        };
        all_hold &= proof.holds();
        println!("{verdict:<10}  {}", proof.claim);
        for (machine, states) in &proof.machines {
            println!("            {machine}: {states} states");
        }
        match &proof.result {
            Ok(detail) => println!("            {detail}"),
            Err(explanation) => println!("            {explanation}"),
        }
    }
    if let Some(dir) = args.dot {
        std::fs::create_dir_all(&dir)
            .map_err(|e| CliError(format!("cannot create {}: {e}", dir.display())))?;
        println!();
        for (stem, dot) in diagrams()? {
            let path = dir.join(format!("{stem}.dot"));
            std::fs::write(&path, dot)
                .map_err(|e| CliError(format!("cannot write {}: {e}", path.display())))?;
            println!("wrote {}", path.display());
        }
    }
    Ok(if all_hold { 0 } else { 1 })
}
