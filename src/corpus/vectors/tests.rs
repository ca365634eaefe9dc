//! Tests of the vector files: every embedded file parses, ids are unique, every file in
//! `vectors/` is embedded, and every case's facts agree with Rust std and with the
//! reference; and the format's rules reject what they should, with the file named.

use super::*;
use crate::taxonomy::categories_of_units;

fn all_vectors() -> Vec<Vector> {
    embedded().unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn every_embedded_file_parses() {
    for (name, text) in EMBEDDED_FILES {
        let vectors = parse_file(name, text).unwrap_or_else(|error| panic!("{error}"));
        assert!(!vectors.is_empty(), "{name} has no cases");
    }
}

#[test]
fn ids_are_unique_across_files() {
    let vectors = all_vectors();
    let mut ids: Vec<&str> = vectors.iter().map(|vector| vector.id.as_str()).collect();
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count);
}

#[test]
fn every_vector_file_in_the_directory_is_embedded() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors");
    let mut on_disk: Vec<String> = std::fs::read_dir(&directory)
        .unwrap_or_else(|error| panic!("reading {}: {error}", directory.display()))
        .map(|entry| entry.expect("directory entry").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let mut embedded_names: Vec<String> = EMBEDDED_FILES
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    embedded_names.sort();
    assert_eq!(on_disk, embedded_names);
    for (name, text) in EMBEDDED_FILES {
        let on_disk_text = std::fs::read_to_string(directory.join(name)).expect("read vector file");
        assert_eq!(&on_disk_text, text, "{name} differs from its embedded copy");
    }
}

#[test]
fn the_issue_coverage_is_present() {
    let vectors = all_vectors();
    let count_in = |file: &str| vectors.iter().filter(|vector| vector.file == file).count();
    assert_eq!(
        count_in("kuhn.toml"),
        80,
        "all 80 numbered lines of Kuhn's file"
    );
    for id in [
        "unicode-fffd-worked-example",
        "unicode-t3-8-non-shortest",
        "unicode-t3-9-surrogates",
        "unicode-t3-10-other",
        "unicode-t3-11-truncated",
        "mutf8-nul",
        "cesu8-u10000",
        "wtf8-lone-high",
        "bom-alone",
        "rfc3629-7-example-1",
    ] {
        assert!(vectors.iter().any(|vector| vector.id == id), "missing {id}");
    }
    for category in Category::ILL_FORMED {
        assert!(
            vectors
                .iter()
                .any(|vector| vector.categories.contains(&category)),
            "no vector of category {category}"
        );
    }
    assert!(vectors.len() >= 500, "only {} vectors", vectors.len());
}

/// The five worked examples of docs/DESIGN.md §2, byte-exact.
#[test]
fn worked_examples_reproduce_exactly() {
    let vectors = all_vectors();
    let find = |id: &str| {
        vectors
            .iter()
            .find(|vector| vector.id == id)
            .unwrap_or_else(|| panic!("missing {id}"))
    };
    let fffd = crate::outcome::REPLACEMENT;
    let cases: [(&str, &[u8], Vec<u32>); 5] = [
        (
            "unicode-fffd-worked-example",
            &[
                0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF, 0x64,
            ],
            vec![0x61, fffd, fffd, fffd, 0x62, fffd, 0x63, fffd, fffd, 0x64],
        ),
        (
            "unicode-t3-8-non-shortest",
            &[0xC0, 0xAF, 0xE0, 0x80, 0xBF, 0xF0, 0x81, 0x82, 0x41],
            [vec![fffd; 8], vec![0x41]].concat(),
        ),
        (
            "unicode-t3-9-surrogates",
            &[0xED, 0xA0, 0x80, 0xED, 0xBF, 0xBF, 0xED, 0xAF, 0x41],
            [vec![fffd; 8], vec![0x41]].concat(),
        ),
        (
            "unicode-t3-10-other",
            &[0xF4, 0x91, 0x92, 0x93, 0xFF, 0x41, 0x80, 0xBF, 0x42],
            [vec![fffd; 5], vec![0x41, fffd, fffd, 0x42]].concat(),
        ),
        (
            "unicode-t3-11-truncated",
            &[0xE1, 0x80, 0xE2, 0xF0, 0x91, 0x92, 0xF1, 0xBF, 0x41],
            [vec![fffd; 4], vec![0x41]].concat(),
        ),
    ];
    for (id, bytes, scalars) in cases {
        let vector = find(id);
        assert_eq!(vector.bytes, bytes, "{id} bytes");
        assert_eq!(vector.scalars, scalars, "{id} scalars");
    }
}

/// The facts of a case as some decoder computes them, for comparison.
#[derive(Debug, PartialEq, Eq)]
struct Facts {
    valid: bool,
    valid_up_to: Option<usize>,
    error_len: Option<ErrorLen>,
    scalars: Vec<u32>,
    fffd: FffdCounts,
    categories: Vec<Category>,
}

impl Facts {
    fn of_vector(vector: &Vector) -> Facts {
        Facts {
            valid: vector.valid,
            valid_up_to: vector.valid_up_to,
            error_len: vector.error_len,
            scalars: vector.scalars.clone(),
            fffd: vector.fffd,
            categories: vector.categories.clone(),
        }
    }

    /// Facts from a strict result, a lossy decode and the error units
    /// `(offset, len)` in input order; the U+FFFD counts follow from the
    /// units, the categories from the taxonomy's classifier.
    fn from_units(
        bytes: &[u8],
        first_error: Option<(usize, ErrorLen)>,
        scalars: Vec<u32>,
        units: &[(usize, usize)],
    ) -> Facts {
        let mut fffd = FffdCounts::NONE;
        let mut previous_end = None;
        for &(offset, len) in units {
            fffd.maximal_subpart += 1;
            fffd.per_byte += len;
            // A run continues only if no valid text separates this unit
            // from the previous one.
            if previous_end != Some(offset) {
                fffd.per_run += 1;
            }
            previous_end = Some(offset + len);
        }
        let mut categories = categories_of_units(bytes, units.iter().copied());
        categories.sort();
        Facts {
            valid: first_error.is_none(),
            valid_up_to: first_error.map(|(valid_up_to, _)| valid_up_to),
            error_len: first_error.map(|(_, error_len)| error_len),
            scalars,
            fffd,
            categories,
        }
    }
}

/// Rust std implements the same semantics: `from_utf8` gives the strict
/// verdict and the first error in exactly our shape, `from_utf8_lossy`
/// substitutes one U+FFFD per maximal subpart, and `utf8_chunks` yields
/// the maximal subparts one by one.
fn std_facts(bytes: &[u8]) -> Facts {
    let first_error = std::str::from_utf8(bytes)
        .err()
        .map(|error| (error.valid_up_to(), ErrorLen::from_std(error.error_len())));
    let scalars = String::from_utf8_lossy(bytes)
        .chars()
        .map(u32::from)
        .collect();
    let mut units = Vec::new();
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            units.push((offset, chunk.invalid().len()));
            offset += chunk.invalid().len();
        }
    }
    Facts::from_units(bytes, first_error, scalars, &units)
}

/// The reference decoder: RFC 3629 §4's grammar, interpreted.
fn reference_facts(bytes: &[u8]) -> Facts {
    let decoded = crate::reference::Reference::rfc3629().decode(bytes);
    let first_error = decoded.first_error();
    let units: Vec<(usize, usize)> = decoded
        .errors
        .iter()
        .map(|error| (error.offset, error.len))
        .collect();
    Facts::from_units(bytes, first_error, decoded.scalars, &units)
}

fn assert_all_agree(oracle_name: &str, oracle: fn(&[u8]) -> Facts) {
    let mut disagreements = Vec::new();
    for vector in all_vectors() {
        let expected = Facts::of_vector(&vector);
        let computed = oracle(&vector.bytes);
        if computed != expected {
            disagreements.push(format!(
                "{} ({}):\n  vector: {expected:?}\n  {oracle_name}: {computed:?}",
                vector.id, vector.file
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Every case's facts, recomputed with Rust std (categories by the
/// taxonomy over std's error units).
#[test]
fn every_vector_agrees_with_rust_std() {
    assert_all_agree("std", std_facts);
}

/// Every case's facts, recomputed with the reference decoder.
#[test]
fn every_vector_agrees_with_the_reference_decoder() {
    assert_all_agree("reference", reference_facts);
}

/// The worked example of Unicode §3.9 with its maximal subparts spelled
/// out, so that the unit bookkeeping above is itself checked.
#[test]
fn std_units_of_the_worked_example() {
    let bytes = [
        0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF, 0x64,
    ];
    let facts = std_facts(&bytes);
    assert_eq!(
        facts.fffd,
        FffdCounts {
            maximal_subpart: 6,
            per_byte: 9,
            per_run: 3
        }
    );
    let mut expected = [
        Category::TruncatedInterrupted,
        Category::UnexpectedContinuation,
    ];
    expected.sort();
    assert_eq!(facts.categories, expected);
    assert_eq!(facts.error_len, Some(ErrorLen::Invalid(3)));
}

fn one_case_file(case_body: &str) -> String {
    format!("[meta]\ntitle = \"t\"\nsources = [\"s\"]\n\n[[case]]\n{case_body}\ncite = \"test\"\n")
}

const GOOD_INVALID_CASE: &str = "id = \"bad-one\"\nhex = \"61 E1 80\"\nvalid = false\n\
    valid_up_to = 1\nerror_len = \"null\"\nscalars = [0x61, 0xFFFD]\n\
    fffd = { maximal_subpart = 1, per_byte = 2, per_run = 1 }\n\
    categories = [\"truncated-at-end\"]";

#[test]
fn a_well_formed_user_file_parses() {
    let vectors = parse_file("user.toml", &one_case_file(GOOD_INVALID_CASE)).expect("parses");
    assert_eq!(vectors.len(), 1);
    let vector = &vectors[0];
    assert_eq!(vector.file, "user.toml");
    assert_eq!(vector.bytes, [0x61, 0xE1, 0x80]);
    assert_eq!(vector.error_len, Some(ErrorLen::Incomplete));
    assert_eq!(vector.valid_up_to, Some(1));
}

/// Each broken variant of a good case is rejected, and the message names
/// the file and the case.
#[test]
fn inconsistent_cases_are_rejected_with_file_and_id() {
    let broken = [
        ("hex = \"61 E1 80\"", "hex = \"61E180\"", "hex"),
        ("hex = \"61 E1 80\"", "hex = \"61 G1 80\"", "hex"),
        ("error_len = \"null\"", "error_len = \"none\"", "error_len"),
        ("error_len = \"null\"", "error_len = 5", "runs past"),
        ("valid_up_to = 1\n", "", "both valid_up_to and error_len"),
        ("valid = false", "valid = true", "valid case"),
        (
            "per_byte = 2",
            "per_byte = 0",
            "per_byte >= maximal_subpart",
        ),
        ("per_run = 1", "per_run = 2", "maximal_subpart >= per_run"),
        ("scalars = [0x61, 0xFFFD]", "scalars = [0x61]", "fewer than"),
        (
            "scalars = [0x61, 0xFFFD]",
            "scalars = [0x62, 0xD800]",
            "scalar value",
        ),
        (
            "scalars = [0x61, 0xFFFD]",
            "scalars = [0xE9, 0xFFFD]",
            "account for",
        ),
        ("\"truncated-at-end\"", "\"truncated\"", "unknown category"),
        (
            "[\"truncated-at-end\"]",
            "[\"truncated-at-end\", \"surrogate\"]",
            "sorted",
        ),
        ("[\"truncated-at-end\"]", "[]", "at least one category"),
    ];
    for (from, to, expected) in broken {
        assert!(GOOD_INVALID_CASE.contains(from), "{from}");
        let text = one_case_file(&GOOD_INVALID_CASE.replacen(from, to, 1));
        let error = parse_file("user.toml", &text).expect_err(to);
        let message = error.to_string();
        assert!(message.contains("user.toml"), "{message}");
        assert!(message.contains("bad-one"), "{message}");
        assert!(message.contains(expected), "{to}: {message}");
    }
}

#[test]
fn malformed_files_are_rejected() {
    let bad_id = one_case_file(&GOOD_INVALID_CASE.replace("bad-one", "Bad_One"));
    let message = parse_file("user.toml", &bad_id)
        .expect_err("bad id")
        .to_string();
    assert!(
        message.contains("user.toml") && message.contains("Bad_One"),
        "{message}"
    );

    let unknown_field = one_case_file(&format!("{GOOD_INVALID_CASE}\nexpected = 1"));
    let error = parse_file("user.toml", &unknown_field).expect_err("unknown field");
    assert!(matches!(error, VectorError::Syntax { .. }), "{error}");
    assert!(error.to_string().contains("user.toml"));

    let twice = format!(
        "{}\n[[case]]\n{GOOD_INVALID_CASE}\ncite = \"again\"\n",
        one_case_file(GOOD_INVALID_CASE)
    );
    let error = parse_file("user.toml", &twice).expect_err("duplicate id");
    assert!(matches!(error, VectorError::DuplicateId { .. }), "{error}");
    assert!(error.to_string().contains("bad-one"));

    let no_meta = "[[case]]\nid = \"x\"\n";
    assert!(matches!(
        parse_file("user.toml", no_meta),
        Err(VectorError::Syntax { .. })
    ));
}
