//! Proofs that the fast decoder's automata equal the RFC 3629 grammar.
//!
//! UTF-8's language is regular and small, so equality with the grammar need not be
//! sampled: it can be decided. Each proof here builds two finite machines and searches
//! their product for an input that tells them apart ([`machine::compare`]); the search
//! visits every reachable pair of states, so "no such input" is a proof over *all*
//! inputs of every length, and on a difference it returns a shortest one.
//!
//! - [`grammar`]: the reference decoder's own parsed RFC 3629 grammar, determinised and
//!   minimised into a unit machine (characters and maximal-subpart error units, std's
//!   `error_len` included) and an acceptor.
//! - [`shift_dfa`]: `fast::dfa::ROWS` driven as the fast decoder drives it. Proven
//!   equal to the grammar's unit machine: same acceptance, same `valid_up_to`, same
//!   `error_len`, same error units.
//! - [`simd_check`]: the Keiser–Lemire lookup check of the SIMD backends, built from
//!   their nibble tables, with each of its end-of-input checks. Proven to accept exactly
//!   the grammar's language.
//! - [`utf32_steps`]: the decisions of the UTF-32 kernel (character ends from tails, the
//!   step table), checked over the grammar's character lengths.
//!
//! [`prove_all`] runs them; `utf8conf prove` prints the result and `cargo test` runs it
//! (in milliseconds), together with mutation tests: one corrupted transition and one
//! corrupted nibble-table entry, each caught with its shortest counterexample.

pub mod dot;
pub mod grammar;
pub mod machine;
pub mod shift_dfa;
pub mod simd_check;
pub mod utf32_steps;

use crate::hex::format_hex;
use crate::reference::GrammarError;

use grammar::Grammar;
use machine::{compare, compare_languages, describe_units, units, Acceptor, Verdict};
use simd_check::{EndCheck, LookupCheck, LookupTables};

/// One proof: what was compared, the machines' sizes, and the verdict.
#[derive(Debug, Clone)]
pub struct Proof {
    /// What is proven equal to what.
    pub claim: String,
    /// The machines involved and their state counts.
    pub machines: Vec<(String, usize)>,
    /// `Ok(detail)` when the claim holds, `Err(explanation)` with the shortest
    /// counterexample when it does not.
    pub result: Result<String, String>,
    /// The shortest distinguishing input, when there is one.
    pub counterexample: Option<Vec<u8>>,
}

impl Proof {
    /// Whether the claim holds.
    pub fn holds(&self) -> bool {
        self.result.is_ok()
    }
}

/// Every proof about the fast decoder as built.
pub fn prove_all() -> Result<Vec<Proof>, GrammarError> {
    let grammar = Grammar::rfc3629()?;
    let mut proofs = vec![prove_shift_dfa(&grammar, &crate::fast::dfa::ROWS)];
    proofs.extend(prove_simd_check(&grammar, LookupTables::of_backends()));
    proofs.push(prove_utf32_steps(&grammar));
    Ok(proofs)
}

/// Proves the shift-DFA `rows`, driven as `fast::dfa` drives it, equal to the grammar's
/// unit machine.
pub fn prove_shift_dfa(grammar: &Grammar, rows: &[u64; 256]) -> Proof {
    let model = shift_dfa::unit_machine(rows);
    let verdict = compare(&grammar.units, &model, |_, _| false);
    let (result, counterexample) = match verdict {
        Verdict::Equivalent { pairs } => (
            Ok(format!(
                "equivalent ({pairs} state pairs): same acceptance, valid_up_to, error_len and error units"
            )),
            None,
        ),
        Verdict::Differs(found) => {
            let input = found.input;
            let explanation = format!(
                "differs on {}: grammar {}; table {}",
                format_hex(&input),
                describe_units(&input, &units(&grammar.units, &input)),
                describe_units(&input, &units(&model, &input)),
            );
            (Err(explanation), Some(input))
        }
    };
    Proof {
        claim: "shift-DFA table (fast::dfa::ROWS, as validate/lossy run it) = grammar units"
            .to_string(),
        machines: vec![
            (
                "grammar unit machine (minimal)".to_string(),
                grammar.units.state_count(),
            ),
            ("shift-DFA unit machine".to_string(), model.state_count()),
            (
                "shift-DFA unit machine (minimal)".to_string(),
                model.minimize().state_count(),
            ),
        ],
        result,
        counterexample,
    }
}

/// Proves the lookup check over `tables`, with each end-of-input check, to accept exactly
/// the grammar's language; and the ASCII-block skip sound.
pub fn prove_simd_check(grammar: &Grammar, tables: LookupTables) -> Vec<Proof> {
    let check = LookupCheck::new(tables);
    let mut proofs: Vec<Proof> = EndCheck::ALL
        .iter()
        .map(|&end| {
            let acceptor = check.acceptor(end);
            language_proof(
                format!("SIMD lookup check, {} = grammar language", end.name()),
                grammar,
                "SIMD check acceptor",
                &acceptor,
            )
        })
        .collect();
    let skip_sound = check.ascii_is_zero();
    proofs.push(Proof {
        claim: "SIMD ASCII-block skip (previous bytes reset to 00) changes nothing".to_string(),
        machines: Vec::new(),
        result: if skip_sound {
            Ok("holds: every ASCII byte is in the class of 00".to_string())
        } else {
            Err("some ASCII byte is not interchangeable with 00 in the tables".to_string())
        },
        counterexample: None,
    });
    proofs
}

fn language_proof(claim: String, grammar: &Grammar, what: &str, acceptor: &Acceptor) -> Proof {
    let (result, counterexample) = match compare_languages(&grammar.language, acceptor) {
        Verdict::Equivalent { pairs } => (Ok(format!("equivalent ({pairs} state pairs)")), None),
        Verdict::Differs(found) => {
            let input = found.input;
            let grammar_accepts = grammar.language.run(&input).1;
            let explanation = format!(
                "differs on {}: the grammar {} it, the check {} it",
                format_hex(&input),
                if grammar_accepts {
                    "accepts"
                } else {
                    "rejects"
                },
                if grammar_accepts {
                    "rejects"
                } else {
                    "accepts"
                },
            );
            (Err(explanation), Some(input))
        }
    };
    Proof {
        claim,
        machines: vec![
            (
                "grammar acceptor (minimal)".to_string(),
                grammar.language.state_count(),
            ),
            (what.to_string(), acceptor.state_count()),
            (
                format!("{what} (minimal)"),
                acceptor.minimize().state_count(),
            ),
        ],
        result,
        counterexample,
    }
}

/// Checks the UTF-32 kernel's decisions over the grammar.
pub fn prove_utf32_steps(grammar: &Grammar) -> Proof {
    let lengths = utf32_steps::char_lengths(&grammar.units);
    let result = utf32_steps::tails_mark_character_starts(&grammar.units)
        .and_then(|()| utf32_steps::check_step_table(&lengths))
        .map(|sequences| {
            format!(
                "holds: tails are exactly the non-initial bytes; STEP_INDEX/STEPS right for all \
                 {sequences} sequences of {lengths:?}-byte characters over 12 bytes"
            )
        });
    Proof {
        claim: "UTF-32 kernel decisions (character ends, step table) follow the grammar"
            .to_string(),
        machines: vec![(
            "grammar unit machine (minimal)".to_string(),
            grammar.units.state_count(),
        )],
        result,
        counterexample: None,
    }
}

/// Graphviz diagrams of the automata: `(file stem, dot text)`.
pub fn diagrams() -> Result<Vec<(String, String)>, GrammarError> {
    let grammar = Grammar::rfc3629()?;
    let check = LookupCheck::new(LookupTables::of_backends());
    Ok(vec![
        (
            "grammar-units".to_string(),
            dot::unit_machine("RFC 3629 unit machine (minimal)", &grammar.units),
        ),
        (
            "grammar-language".to_string(),
            dot::acceptor("RFC 3629 UTF8-octets (minimal DFA)", &grammar.language),
        ),
        (
            "shift-dfa".to_string(),
            dot::unit_machine(
                "fast::dfa::ROWS as run",
                &shift_dfa::unit_machine(&crate::fast::dfa::ROWS),
            ),
        ),
        (
            "simd-check".to_string(),
            dot::acceptor(
                "SIMD lookup check, zero padding (minimal)",
                &check.acceptor(EndCheck::Padding(1)).minimize(),
            ),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::dfa::{self, ACCEPT, AFTER_E0, REJECT, TAIL1, TAIL2};
    use crate::fast::simd::error_bits::SURROGATE;

    #[test]
    fn every_proof_holds() {
        for proof in prove_all().unwrap() {
            assert!(proof.holds(), "{}: {:?}", proof.claim, proof.result);
            assert_eq!(proof.counterexample, None);
        }
    }

    /// Sets the transition of `state` on `byte` in a copy of the table.
    fn with_transition(state: u64, byte: u8, next: u64) -> [u64; 256] {
        let mut rows = dfa::ROWS;
        rows[byte as usize] &= !(63 << state);
        rows[byte as usize] |= next << state;
        rows
    }

    #[test]
    fn a_corrupted_transition_is_caught_with_its_shortest_counterexample() {
        let grammar = Grammar::rfc3629().unwrap();
        // E0 9F would start an overlong 3-byte form: after E0 the table must reject 9F.
        let proof = prove_shift_dfa(&grammar, &with_transition(AFTER_E0, 0x9F, TAIL1));
        assert_eq!(proof.counterexample, Some(vec![0xE0, 0x9F]));
        let explanation = proof.result.unwrap_err();
        assert!(
            explanation.contains("grammar [E0] error, [9F] error; table [E0 9F] incomplete"),
            "{explanation}"
        );
        // A lost transition: F0 90 .. must go on to TAIL2.
        let proof = prove_shift_dfa(&grammar, &with_transition(dfa::AFTER_F0, 0xBF, REJECT));
        assert_eq!(proof.counterexample, Some(vec![0xF0, 0xBF]));
        // ASCII rows are never read (the fast path skips them); a corrupted one is not a
        // behaviour change, and the proof says so.
        assert!(prove_shift_dfa(&grammar, &with_transition(ACCEPT, 0x41, TAIL2)).holds());
    }

    #[test]
    fn a_corrupted_nibble_table_entry_is_caught_with_its_shortest_counterexample() {
        let grammar = Grammar::rfc3629().unwrap();
        // Without SURROGATE in PREV1_LOW[D], ED A0 80 (U+D800) would pass.
        let mut tables = LookupTables::of_backends();
        tables.prev1_low[0xD] &= !SURROGATE;
        let proofs = prove_simd_check(&grammar, tables);
        for proof in &proofs[..EndCheck::ALL.len()] {
            assert_eq!(
                proof.counterexample,
                Some(vec![0xED, 0xA0, 0x80]),
                "{}",
                proof.claim
            );
            assert!(proof
                .result
                .as_ref()
                .unwrap_err()
                .contains("the grammar rejects it"));
        }
        // An extra bit: C2 (PREV1_LOW[2] with OVERLONG_2) followed by a tail rejected.
        let mut tables = LookupTables::of_backends();
        tables.prev1_low[2] |= crate::fast::simd::error_bits::OVERLONG_2;
        let proof = &prove_simd_check(&grammar, tables)[0];
        assert_eq!(proof.counterexample, Some(vec![0xC2, 0x80]));
        assert!(proof
            .result
            .as_ref()
            .unwrap_err()
            .contains("the grammar accepts it"));
    }

    #[test]
    fn diagrams_are_graphviz() {
        let diagrams = diagrams().unwrap();
        assert_eq!(diagrams.len(), 4);
        for (name, dot) in diagrams {
            assert!(dot.starts_with("digraph "), "{name}");
            assert!(dot.trim_end().ends_with('}'), "{name}");
        }
    }
}
