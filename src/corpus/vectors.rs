//! The project's own UTF-8 test vectors: loading, validating and embedding
//! the data files in `vectors/`.
//!
//! Each file `vectors/<topic>.toml` holds a `[meta]` table and `[[case]]`
//! entries; `vectors/README.md` documents the format. A case is a fact about
//! a byte string under RFC 3629 section 4 (which equals Unicode Table 3-7):
//! its strict verdict, the first error in Rust std's shape
//! (`valid_up_to`, `error_len`), the lossy decode with one U+FFFD per
//! maximal subpart (Unicode section 3.9), the U+FFFD counts under three
//! substitution policies, the error categories, and a citation.
//!
//! Why the files are embedded: `cargo run --release` must work from the
//! binary alone, without the source tree, so every file is compiled in with
//! `include_str!` and parsed on demand by [`embedded`]. Users can load their
//! own files in the same format with [`parse_file`].
//!
//! Why the parser checks so much: a vector file is a claim about UTF-8 that
//! decoders are graded against, so a case that contradicts itself (say,
//! `valid = true` with an error category, or more substituted U+FFFD than
//! bytes) is rejected with an error naming the file and the case id, rather
//! than turned into a bogus divergence later.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;

use crate::hex;
use crate::taxonomy::Category;

/// Every file of `vectors/`, compiled into the binary: `(file name, text)`.
///
/// A unit test reads the directory at test time and fails if a `*.toml` file
/// there is missing from this list.
pub const EMBEDDED_FILES: &[(&str, &str)] = &[
    (
        "cesu8-mutf8-wtf8.toml",
        include_str!("../../vectors/cesu8-mutf8-wtf8.toml"),
    ),
    ("cpython.toml", include_str!("../../vectors/cpython.toml")),
    (
        "encoding-rs.toml",
        include_str!("../../vectors/encoding-rs.toml"),
    ),
    ("kuhn.toml", include_str!("../../vectors/kuhn.toml")),
    (
        "noncharacters-bom.toml",
        include_str!("../../vectors/noncharacters-bom.toml"),
    ),
    (
        "other-decoders.toml",
        include_str!("../../vectors/other-decoders.toml"),
    ),
    ("rfc3629.toml", include_str!("../../vectors/rfc3629.toml")),
    ("rust-std.toml", include_str!("../../vectors/rust-std.toml")),
    (
        "unicode-3-9.toml",
        include_str!("../../vectors/unicode-3-9.toml"),
    ),
    ("whatwg.toml", include_str!("../../vectors/whatwg.toml")),
];

/// The number of U+FFFD a lossy decoder emits for a case under each of the
/// three substitution policies found in the wild.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FffdCounts {
    /// One per error unit, i.e. per maximal subpart (Unicode D93b, §3.9
    /// "U+FFFD Substitution of Maximal Subparts"; WHATWG; Rust std).
    pub maximal_subpart: usize,
    /// One per byte that is not part of a well-formed UTF8-char (Go's
    /// `for range` loop).
    pub per_byte: usize,
    /// One per maximal run of consecutive such bytes (Go's
    /// `strings.ToValidUTF8`).
    pub per_run: usize,
}

impl FffdCounts {
    /// The counts of a well-formed input: no substitution at all.
    pub const NONE: FffdCounts = FffdCounts {
        maximal_subpart: 0,
        per_byte: 0,
        per_run: 0,
    };
}

/// One test vector: a byte string and the facts about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vector {
    /// Identifier, unique across all files (kebab-case; dots allowed, as in
    /// `kuhn-3.1.2`).
    pub id: String,
    /// Name of the file the case came from (`kuhn.toml`).
    pub file: String,
    /// The input bytes.
    pub bytes: Vec<u8>,
    /// Strict verdict: does the whole input match `UTF8-octets` of RFC 3629
    /// section 4?
    pub valid: bool,
    /// Offset of the first error (std's `Utf8Error::valid_up_to`); `None`
    /// when `valid`.
    pub valid_up_to: Option<usize>,
    /// Length of the first error unit (std's `Utf8Error::error_len`):
    /// `Some(Some(n))`, or `Some(None)` when that unit is a prefix that could
    /// still be completed and runs to the end of input; `None` when `valid`.
    pub error_len: Option<Option<usize>>,
    /// The lossy decode as scalar values, one U+FFFD per maximal subpart.
    pub scalars: Vec<u32>,
    /// U+FFFD counts under the three substitution policies.
    pub fffd: FffdCounts,
    /// The error categories of the error units, sorted and unique; empty
    /// when `valid`.
    pub categories: Vec<String>,
    /// Where the case comes from.
    pub cite: String,
    /// Optional free-text remark.
    pub note: Option<String>,
    /// For lines of Kuhn's stress test: the U+FFFD count implied by the
    /// file's layout (one per lead-byte-sized "malformed sequence"), a
    /// policy different from maximal subparts.
    pub kuhn_layout: Option<usize>,
}

/// Why a vector file could not be loaded. Every variant names the file, and
/// the case when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VectorError {
    /// The text is not TOML, or does not have the shape of a vector file.
    Syntax {
        /// File name.
        file: String,
        /// The TOML parser's message.
        message: String,
    },
    /// A case is well-typed but breaks a rule of the format.
    Case {
        /// File name.
        file: String,
        /// The case's id (or `#<index>` when the id itself is the problem).
        id: String,
        /// What is wrong.
        message: String,
    },
    /// Two cases share an id.
    DuplicateId {
        /// The id.
        id: String,
        /// File of the first case with this id.
        first_file: String,
        /// File of the second case with this id.
        second_file: String,
    },
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorError::Syntax { file, message } => {
                write!(f, "vector file {file}: {}", message.trim_end())
            }
            VectorError::Case { file, id, message } => {
                write!(f, "vector file {file}, case {id}: {message}")
            }
            VectorError::DuplicateId {
                id,
                first_file,
                second_file,
            } => write!(
                f,
                "vector id {id} is used twice: in {first_file} and in {second_file}"
            ),
        }
    }
}

impl std::error::Error for VectorError {}

impl Vector {
    /// The categories as taxonomy values, in the taxonomy's order (the order
    /// of [`crate::taxonomy::categories_of_units`]); the file lists them
    /// alphabetically.
    pub fn taxonomy_categories(&self) -> Vec<Category> {
        let mut categories: Vec<Category> = self
            .categories
            .iter()
            .filter_map(|name| Category::from_name(name))
            .collect();
        categories.sort();
        categories
    }
}

/// Parses and validates every embedded vector file, and checks that ids are
/// unique across all of them.
pub fn embedded() -> Result<Vec<Vector>, VectorError> {
    let mut all = Vec::new();
    for (name, text) in EMBEDDED_FILES {
        all.extend(parse_file(name, text)?);
    }
    check_unique_ids(&all)?;
    Ok(all)
}

/// Fails with [`VectorError::DuplicateId`] if two vectors share an id.
pub fn check_unique_ids(vectors: &[Vector]) -> Result<(), VectorError> {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for vector in vectors {
        if let Some(first_file) = seen.insert(&vector.id, &vector.file) {
            return Err(VectorError::DuplicateId {
                id: vector.id.clone(),
                first_file: first_file.to_string(),
                second_file: vector.file.clone(),
            });
        }
    }
    Ok(())
}

/// Parses one vector file (`name` is used in error messages and stored in
/// each [`Vector::file`]) and checks every case against the rules of the
/// format, including that ids are unique within the file.
pub fn parse_file(name: &str, text: &str) -> Result<Vec<Vector>, VectorError> {
    let raw: RawFile = toml::from_str(text).map_err(|error| VectorError::Syntax {
        file: name.to_string(),
        message: error.to_string(),
    })?;
    if raw.meta.title.trim().is_empty() {
        return Err(VectorError::Syntax {
            file: name.to_string(),
            message: "[meta] title is empty".to_string(),
        });
    }
    if raw
        .meta
        .sources
        .iter()
        .all(|source| source.trim().is_empty())
    {
        return Err(VectorError::Syntax {
            file: name.to_string(),
            message: "[meta] sources lists no source".to_string(),
        });
    }
    let mut vectors = Vec::with_capacity(raw.case.len());
    for (index, case) in raw.case.into_iter().enumerate() {
        let id_for_errors = if is_valid_id(&case.id) {
            case.id.clone()
        } else {
            format!("#{index} (id {:?})", case.id)
        };
        let vector = convert_case(name, case).map_err(|message| VectorError::Case {
            file: name.to_string(),
            id: id_for_errors,
            message,
        })?;
        vectors.push(vector);
    }
    check_unique_ids(&vectors)?;
    Ok(vectors)
}

/// The shape of a vector file, as the TOML parser sees it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    meta: RawMeta,
    #[serde(default)]
    case: Vec<RawCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMeta {
    title: String,
    sources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    id: String,
    hex: String,
    valid: bool,
    valid_up_to: Option<usize>,
    error_len: Option<RawErrorLen>,
    scalars: Vec<u32>,
    fffd: FffdCounts,
    categories: Vec<String>,
    cite: String,
    note: Option<String>,
    kuhn_layout: Option<usize>,
}

/// `error_len` is an integer, or the string `"null"` for std's `None`.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawErrorLen {
    Length(usize),
    Word(String),
}

/// An id is kebab-case words of lowercase ASCII letters and digits, joined
/// by single `-` or `.` (so Kuhn's section numbers fit: `kuhn-3.1.2`).
fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.split(['-', '.']).all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit())
        })
}

/// Parses `"80 BF"`: two-digit hex pairs separated by single spaces; `""`
/// is the empty input. Lower-case digits are accepted; anything else that
/// [`hex::parse_hex`] would tolerate (no spaces, `0x`, commas) is rejected,
/// so that every file spells bytes the same way.
fn parse_vector_hex(text: &str) -> Result<Vec<u8>, String> {
    let bytes = hex::parse_hex(text).map_err(|error| format!("hex: {error}"))?;
    if hex::format_hex(&bytes) != text.to_ascii_uppercase() {
        return Err(format!(
            "hex: {text:?} is not written as two-digit pairs separated by single spaces"
        ));
    }
    Ok(bytes)
}

/// The number of bytes UTF-8 uses for the scalar value `scalar`
/// (RFC 3629 section 3 table).
fn utf8_len(scalar: u32) -> usize {
    match scalar {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        _ => 4,
    }
}

const REPLACEMENT_CHARACTER: u32 = 0xFFFD;

/// Turns a parsed case into a [`Vector`], enforcing every rule of the format
/// that can be checked from the case alone.
fn convert_case(file: &str, case: RawCase) -> Result<Vector, String> {
    if !is_valid_id(&case.id) {
        return Err(format!(
            "id {:?} is not kebab-case (lowercase letters and digits joined by '-' or '.')",
            case.id
        ));
    }
    let bytes = parse_vector_hex(&case.hex)?;
    if case.cite.trim().is_empty() {
        return Err("cite is empty: every case names its source".to_string());
    }
    for &scalar in &case.scalars {
        if char::from_u32(scalar).is_none() {
            return Err(format!(
                "scalars: {scalar:#X} is not a Unicode scalar value"
            ));
        }
    }
    let error_len = match case.error_len {
        None => None,
        Some(RawErrorLen::Length(length)) => Some(Some(length)),
        Some(RawErrorLen::Word(word)) if word == "null" => Some(None),
        Some(RawErrorLen::Word(word)) => {
            return Err(format!(
                "error_len must be an integer or \"null\", not {word:?}"
            ))
        }
    };
    check_categories(&case.categories)?;

    let vector = Vector {
        id: case.id,
        file: file.to_string(),
        bytes,
        valid: case.valid,
        valid_up_to: case.valid_up_to,
        error_len,
        scalars: case.scalars,
        fffd: case.fffd,
        categories: case.categories,
        cite: case.cite,
        note: case.note,
        kuhn_layout: case.kuhn_layout,
    };
    check_consistency(&vector)?;
    Ok(vector)
}

/// Categories must be names of ill-formed-input categories of the taxonomy
/// (DESIGN.md §2), sorted and unique. The categories for well-formed input
/// that a decoder mishandles (`noncharacter-rejected`, `bom-stripped`, ...)
/// describe decoder behaviour, not bytes, so they never appear in a vector.
fn check_categories(categories: &[String]) -> Result<(), String> {
    for category in categories {
        let known = Category::from_name(category)
            .is_some_and(|category| Category::ILL_FORMED.contains(&category));
        if !known {
            let names: Vec<&str> = Category::ILL_FORMED.iter().map(|c| c.as_str()).collect();
            return Err(format!(
                "categories: unknown category {category:?} (known: {})",
                names.join(", ")
            ));
        }
    }
    if categories.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err("categories must be sorted alphabetically and unique".to_string());
    }
    Ok(())
}

/// The internal consistency rules of a case: what its fields imply about
/// each other, independently of any decoder.
fn check_consistency(vector: &Vector) -> Result<(), String> {
    let length = vector.bytes.len();
    let fffd = vector.fffd;
    if vector.valid {
        // A well-formed input has no error and decodes to its own scalars.
        if vector.valid_up_to.is_some() || vector.error_len.is_some() {
            return Err("a valid case has no valid_up_to or error_len".to_string());
        }
        if fffd != FffdCounts::NONE {
            return Err("a valid case has all fffd counts 0".to_string());
        }
        if !vector.categories.is_empty() {
            return Err("a valid case has no categories".to_string());
        }
        let encoded: String = vector
            .scalars
            .iter()
            .filter_map(|&scalar| char::from_u32(scalar))
            .collect();
        if encoded.as_bytes() != vector.bytes.as_slice() {
            return Err(
                "a valid case's scalars, encoded as UTF-8, must equal its bytes".to_string(),
            );
        }
    } else {
        let (Some(valid_up_to), Some(error_len)) = (vector.valid_up_to, vector.error_len) else {
            return Err("an invalid case has both valid_up_to and error_len".to_string());
        };
        if valid_up_to >= length {
            return Err(format!(
                "valid_up_to {valid_up_to} must be an offset inside the input ({length} bytes)"
            ));
        }
        match error_len {
            Some(0) => return Err("error_len must be at least 1".to_string()),
            Some(error_len) if valid_up_to + error_len > length => {
                return Err(format!(
                    "valid_up_to {valid_up_to} + error_len {error_len} runs past the input ({length} bytes)"
                ))
            }
            Some(_) => {}
            // "null": the first error is an incomplete character of at most
            // three bytes (UTF8-4 minus its last byte) running to the end.
            None if length - valid_up_to > 3 => {
                return Err(format!(
                    "error_len \"null\" needs the input to end within 3 bytes of valid_up_to {valid_up_to}"
                ))
            }
            None => {}
        }
        if fffd.maximal_subpart == 0 {
            return Err("an invalid case has at least one maximal subpart".to_string());
        }
        if vector.categories.is_empty() {
            return Err("an invalid case names at least one category".to_string());
        }
        if vector.categories.len() > fffd.maximal_subpart {
            return Err("more categories than error units".to_string());
        }
    }
    if !(fffd.per_byte >= fffd.maximal_subpart && fffd.maximal_subpart >= fffd.per_run) {
        return Err(format!(
            "fffd counts must satisfy per_byte >= maximal_subpart >= per_run, got {fffd:?}"
        ));
    }
    if fffd.per_byte > length {
        return Err(format!(
            "fffd per_byte {} exceeds the input length {length}",
            fffd.per_byte
        ));
    }
    if (fffd.maximal_subpart == 0) != (fffd.per_run == 0) {
        return Err("per_run is 0 exactly when there is no error".to_string());
    }
    let replacements = vector
        .scalars
        .iter()
        .filter(|&&scalar| scalar == REPLACEMENT_CHARACTER)
        .count();
    if replacements < fffd.maximal_subpart {
        return Err(format!(
            "scalars hold {replacements} U+FFFD, fewer than the {} maximal subparts",
            fffd.maximal_subpart
        ));
    }
    // Byte accounting: every input byte is either in an error unit
    // (per_byte of them) or in a well-formed character whose scalar is in
    // `scalars`; literal U+FFFD characters (EF BF BD) are the U+FFFD beyond
    // the substituted ones.
    let literal_replacements = replacements - fffd.maximal_subpart;
    let decoded_bytes: usize = vector
        .scalars
        .iter()
        .filter(|&&scalar| scalar != REPLACEMENT_CHARACTER)
        .map(|&scalar| utf8_len(scalar))
        .sum::<usize>()
        + literal_replacements * utf8_len(REPLACEMENT_CHARACTER);
    if decoded_bytes + fffd.per_byte != length {
        return Err(format!(
            "the scalars account for {decoded_bytes} bytes and per_byte for {}, but the input has {length}",
            fffd.per_byte
        ));
    }
    if let Some(kuhn_layout) = vector.kuhn_layout {
        // One per lead-byte-sized sequence: never more than the maximal
        // subparts inside them, never fewer than the runs they form.
        if !(fffd.per_run <= kuhn_layout && kuhn_layout <= fffd.maximal_subpart) {
            return Err(format!(
                "kuhn_layout {kuhn_layout} must lie between per_run {} and maximal_subpart {}",
                fffd.per_run, fffd.maximal_subpart
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let on_disk_text =
                std::fs::read_to_string(directory.join(name)).expect("read vector file");
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
                vectors.iter().any(|vector| vector
                    .categories
                    .iter()
                    .any(|name| name == category.as_str())),
                "no vector of category {category}"
            );
        }
        assert!(vectors.len() >= 500, "only {} vectors", vectors.len());
    }

    /// The five worked examples of DESIGN.md §2, byte-exact.
    #[test]
    fn worked_examples_reproduce_exactly() {
        let vectors = all_vectors();
        let find = |id: &str| {
            vectors
                .iter()
                .find(|vector| vector.id == id)
                .unwrap_or_else(|| panic!("missing {id}"))
        };
        let fffd = REPLACEMENT_CHARACTER;
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
        error_len: Option<Option<usize>>,
        scalars: Vec<u32>,
        fffd: FffdCounts,
        categories: Vec<String>,
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
            first_error: Option<(usize, Option<usize>)>,
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
            // Vector files list categories alphabetically; the taxonomy
            // sorts them in its own order.
            let mut categories: Vec<String> =
                crate::taxonomy::categories_of_units(bytes, units.iter().copied())
                    .into_iter()
                    .map(|category| category.as_str().to_string())
                    .collect();
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
            .map(|error| (error.valid_up_to(), error.error_len()));
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
        let first_error = decoded
            .first_error()
            .map(|(valid_up_to, error_len)| (valid_up_to, error_len.to_std()));
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
        assert_eq!(
            facts.categories,
            ["truncated-interrupted", "unexpected-continuation"]
        );
        assert_eq!(facts.error_len, Some(Some(3)));
    }

    fn one_case_file(case_body: &str) -> String {
        format!(
            "[meta]\ntitle = \"t\"\nsources = [\"s\"]\n\n[[case]]\n{case_body}\ncite = \"test\"\n"
        )
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
        assert_eq!(vector.error_len, Some(None));
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
}
