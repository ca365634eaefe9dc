use super::super::abnf::parse_rules;
use super::*;

fn automaton(grammar: &str, start: &str) -> Automaton {
    Automaton::compile(&parse_rules(grammar).unwrap(), start).unwrap()
}

#[test]
fn bounded_and_unbounded_repetition() {
    let a = automaton("r = 2*3%x41 %x42", "r");
    assert_eq!(a.match_at(b"AAB"), Match::Whole { len: 3 });
    assert_eq!(a.match_at(b"AAAB"), Match::Whole { len: 4 });
    assert!(matches!(
        a.match_at(b"AB"),
        Match::Partial {
            reached: 1,
            hit_end: false,
            ..
        }
    ));
    assert!(matches!(
        a.match_at(b"AAAAB"),
        Match::Partial { reached: 3, .. }
    ));
    let star = automaton("r = *%x41 %x42", "r");
    assert_eq!(star.match_at(b"AAAAAB"), Match::Whole { len: 6 });
    assert_eq!(star.match_at(b"B"), Match::Whole { len: 1 });
    assert!(matches!(
        star.match_at(b"AA"),
        Match::Partial {
            reached: 2,
            hit_end: true,
            ..
        }
    ));
}

#[test]
fn subset_table_agrees_with_simulation() {
    let a = automaton("r = 2*3%x41 %x42 / %x41 *%x43", "r");
    assert!(a.subset_count() > 2);
    for input in [
        &b"AAB"[..],
        b"AAAB",
        b"AB",
        b"ACCC",
        b"A",
        b"",
        b"B",
        b"AAAAB",
        b"ACB",
    ] {
        assert_eq!(
            a.match_at(input),
            a.match_at_by_simulation(input),
            "{input:?}"
        );
    }
}

#[test]
fn rule_references_are_inlined_and_recursion_rejected() {
    let a = automaton("r = x x\nx = %x30-39", "r");
    assert_eq!(a.match_at(b"42"), Match::Whole { len: 2 });
    let rules = parse_rules("r = %x41 r / %x42").unwrap();
    assert!(Automaton::compile(&rules, "r").is_err());
    assert!(Automaton::compile(&rules, "missing").is_err());
}

#[test]
fn origins_name_the_alternative_taken() {
    let a = automaton(
        "c = one / two\none = %x41\ntwo = %x42 %x43 / %x44 tail\ntail = %x45",
        "c",
    );
    let Match::Partial { live, .. } = a.match_at(b"BX") else {
        panic!()
    };
    let origins = a.expectations(live);
    assert_eq!(origins.len(), 1);
    assert_eq!(
        origins[0].sequence_frame(),
        &("two".to_string(), "%x42 %x43".to_string())
    );
    assert_eq!(origins[0].expected(), "%x43");
    let Match::Partial { live, .. } = a.match_at(b"DX") else {
        panic!()
    };
    assert_eq!(a.expectations(live)[0].expected(), "tail (%x45)");
}
