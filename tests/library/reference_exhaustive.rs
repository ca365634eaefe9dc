//! The reference decoder agrees with Rust std and encoding_rs on every input of length
//! 0..=3: all 16,843,009 of them (`#[ignore]`d, run by `.ci/run` in release mode; every
//! `cargo test` runs the inputs up to 2 bytes and the 3-byte inputs over Table 3-7's
//! boundary bytes). Three independent implementations of the same semantics
//! (the RFC grammar, std's hand-written validator, the WHATWG decoder) agreeing on the whole
//! space is the strongest evidence the reference is right where inputs are short.
//!
//! Compared: the strict verdict in std's shape (`valid_up_to`, `error_len`), the lossy
//! scalars, and every error unit (std's `Utf8Chunks`, encoding_rs's streaming decoder).

use utf8conf::decoders::encoding_rs::streaming_error_units;
use utf8conf::outcome::ErrorLen;
use utf8conf::reference::{Decoded, Reference};

/// Checks every input whose index falls in `range`, in the order: length, then bytes.
/// Inputs of length 0..=2: indices `0..INPUTS_UP_TO_2` of [`check_range`].
const INPUTS_UP_TO_2: u32 = 1 + 256 + 65_536;

/// The bytes where the byte classes of Unicode Table 3-7 begin and end.
const BOUNDARY_BYTES: [u8; 24] = [
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
    0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
];

/// Every 3-byte input over [`BOUNDARY_BYTES`].
fn boundary_triples() -> impl Iterator<Item = [u8; 3]> {
    BOUNDARY_BYTES.into_iter().flat_map(|a| {
        BOUNDARY_BYTES
            .into_iter()
            .flat_map(move |b| BOUNDARY_BYTES.into_iter().map(move |c| [a, b, c]))
    })
}

fn check_range(range: std::ops::Range<u32>) {
    let reference = Reference::rfc3629();
    let mut decoded = Decoded::default();
    let mut input = Vec::with_capacity(3);
    for index in range {
        input.clear();
        // Index 0 is the empty input; then 256 of length 1, 65,536 of length 2, 16.7M of 3.
        let (len, value) = match index {
            0 => (0, 0),
            1..=256 => (1, index - 1),
            257..=65_792 => (2, index - 257),
            _ => (3, index - 65_793),
        };
        for position in (0..len).rev() {
            input.push((value >> (8 * position)) as u8);
        }
        check_input(reference, &mut decoded, &input);
    }
}

/// The reference's decode of `input` against std's and encoding_rs's.
fn check_input(reference: &Reference, decoded: &mut Decoded, input: &[u8]) {
    reference.decode_into(input, decoded);

    let std_first_error = std::str::from_utf8(input)
        .err()
        .map(|e| (e.valid_up_to(), ErrorLen::from_std(e.error_len())));
    assert_eq!(
        decoded.first_error(),
        std_first_error,
        "strict, std, {input:02X?}"
    );

    let std_lossy = String::from_utf8_lossy(input);
    assert!(
        decoded
            .scalars
            .iter()
            .copied()
            .eq(std_lossy.chars().map(u32::from)),
        "scalars, std, {input:02X?}"
    );
    let mut offset = 0;
    let mut std_units = Vec::new();
    for chunk in input.utf8_chunks() {
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            std_units.push((offset, chunk.invalid().len()));
            offset += chunk.invalid().len();
        }
    }
    assert!(
        decoded
            .errors
            .iter()
            .map(|e| (e.offset, e.len))
            .eq(std_units.iter().copied()),
        "error units, std, {input:02X?}"
    );

    if decoded.errors.is_empty() {
        // Valid input: encoding_rs must agree it is valid (and borrows it unchanged).
        let (text, had_errors) = encoding_rs::UTF_8.decode_without_bom_handling(input);
        assert!(
            !had_errors && text.as_bytes() == input,
            "encoding_rs, {input:02X?}"
        );
        return;
    }
    let (text, _) = encoding_rs::UTF_8.decode_without_bom_handling(input);
    assert!(
        decoded
            .scalars
            .iter()
            .copied()
            .eq(text.chars().map(u32::from)),
        "scalars, encoding_rs, {input:02X?}"
    );
    let (units, last_incomplete) = streaming_error_units(input);
    let last = units.len().wrapping_sub(1);
    assert!(
        decoded
            .errors
            .iter()
            .map(|e| (e.offset, e.len, e.incomplete))
            .eq(units.iter().enumerate().map(|(i, u)| (
                u.offset,
                u.len,
                i == last && last_incomplete
            ))),
        "error units, encoding_rs, {input:02X?}: {units:?}"
    );
}

/// The quick form of the sweep below, in every `cargo test`: every input up to 2 bytes,
/// and every 3-byte input over Table 3-7's boundary bytes.
#[test]
fn reference_agrees_with_std_and_encoding_rs_up_to_2_bytes_and_on_boundary_triples() {
    check_range(0..INPUTS_UP_TO_2);
    let reference = Reference::rfc3629();
    let mut decoded = Decoded::default();
    for triple in boundary_triples() {
        check_input(reference, &mut decoded, &triple);
    }
}

#[test]
#[ignore = "long sweep (16.8M inputs): .ci/run runs it in release mode with --include-ignored"]
fn reference_agrees_with_std_and_encoding_rs_on_every_input_up_to_3_bytes() {
    const TOTAL: u32 = 1 + 256 + 65_536 + 16_777_216;
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8) as u32;
    let per_thread = TOTAL.div_ceil(threads);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let start = t * per_thread;
            let end = (start + per_thread).min(TOTAL);
            scope.spawn(move || check_range(start..end));
        }
    });
}

/// The determinised matcher and the plain NFA simulation agree at every offset of every
/// input of length 0..=3 (and so the exhaustive test above checks both).
#[test]
#[ignore = "long sweep (16.8M inputs): .ci/run runs it in release mode with --include-ignored"]
fn subset_table_matches_the_nfa_simulation_on_every_input_up_to_3_bytes() {
    subset_table_matches_the_nfa_simulation_on((0..(1u32 << 24)).map(u32::to_be_bytes));
}

/// The quick form, in every `cargo test`: inputs up to 2 bytes, and the 3-byte inputs over
/// Table 3-7's boundary bytes.
#[test]
fn subset_table_matches_the_nfa_simulation_up_to_2_bytes_and_on_boundary_triples() {
    let short = (0..(1u32 << 16)).map(u32::to_be_bytes);
    let triples = boundary_triples().map(|[a, b, c]| [0, a, b, c]);
    subset_table_matches_the_nfa_simulation_on(short.chain(triples));
}

/// For each 4-byte big-endian value, its last 1, 2 and 3 bytes as inputs.
fn subset_table_matches_the_nfa_simulation_on(values: impl Iterator<Item = [u8; 4]>) {
    let automaton = Reference::rfc3629().automaton();
    assert!(
        automaton.subset_count() > 0,
        "the RFC 3629 grammar determinises"
    );
    for bytes in values {
        for len in 1..=3 {
            let input = &bytes[4 - len..];
            assert_eq!(
                automaton.match_at(input),
                automaton.match_at_by_simulation(input),
                "{input:02X?}"
            );
        }
    }
}
