use super::*;

/// Counts `a` bytes modulo `modulus`, accepting at 0.
fn counter(modulus: usize) -> Acceptor {
    explore(
        0usize,
        16,
        |&s, byte| ((), if byte == b'a' { (s + 1) % modulus } else { s }),
        |&s| s == 0,
        |s| s.to_string(),
    )
    .unwrap()
}

#[test]
fn minimisation_merges_equivalent_states() {
    // "count mod 4 == 0" and "count mod 2 == 0" differ; mod 4 minimises to 4 states,
    // and a mod-2 counter built with redundant states minimises to 2.
    assert_eq!(counter(4).minimize().state_count(), 4);
    let redundant = explore(
        0usize,
        16,
        |&s, byte| ((), if byte == b'a' { (s + 1) % 6 } else { s }),
        |&s| s % 2 == 0,
        |s| s.to_string(),
    )
    .unwrap();
    assert_eq!(redundant.state_count(), 6);
    let minimal = redundant.minimize();
    assert_eq!(minimal.state_count(), 2);
    assert!(compare_languages(&minimal, &counter(2)).is_equivalent());
}

#[test]
fn comparison_finds_a_shortest_counterexample() {
    let verdict = compare_languages(&counter(2), &counter(4));
    assert_eq!(
        verdict,
        Verdict::Differs(Counterexample {
            input: b"aa".to_vec(),
            at_end: true
        })
    );
    assert!(explore(0u32, 3, |&s, _| ((), s + 1), |_| true, |_| String::new()).is_err());
}

#[test]
fn edges_group_byte_ranges() {
    let edges = counter(2).edges(0);
    assert_eq!(edges.len(), 3);
    assert_eq!(
        (edges[1].0, edges[1].1, edges[1].2),
        (b'a', b'a', 1),
        "{edges:?}"
    );
}
