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
//! than turned into a bogus departure later.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;

mod consistency;

use super::input::{Input, Origin};
use crate::hex;
use crate::outcome::ErrorLen;
use crate::taxonomy::Category;
use consistency::check_consistency;

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
    /// Length of the first error unit (std's `Utf8Error::error_len`; the
    /// file's `"null"` is [`ErrorLen::Incomplete`]); `None` when `valid`.
    pub error_len: Option<ErrorLen>,
    /// The lossy decode as scalar values, one U+FFFD per maximal subpart.
    pub scalars: Vec<u32>,
    /// U+FFFD counts under the three substitution policies.
    pub fffd: FffdCounts,
    /// The error categories of the error units, unique, in the taxonomy's
    /// order (that of [`crate::taxonomy::categories_of_units`]; the file lists
    /// them alphabetically); empty when `valid`.
    pub categories: Vec<Category>,
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

impl From<Vector> for Input {
    /// The vector's bytes, from the vector's file and id.
    fn from(vector: Vector) -> Input {
        Input {
            bytes: vector.bytes,
            origin: Origin::Vector {
                file: vector.file,
                id: vector.id,
            },
        }
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
        Some(RawErrorLen::Length(length)) => Some(ErrorLen::Invalid(length)),
        Some(RawErrorLen::Word(word)) if word == "null" => Some(ErrorLen::Incomplete),
        Some(RawErrorLen::Word(word)) => {
            return Err(format!(
                "error_len must be an integer or \"null\", not {word:?}"
            ))
        }
    };
    let categories = check_categories(&case.categories)?;

    let vector = Vector {
        id: case.id,
        file: file.to_string(),
        bytes,
        valid: case.valid,
        valid_up_to: case.valid_up_to,
        error_len,
        scalars: case.scalars,
        fffd: case.fffd,
        categories,
        cite: case.cite,
        note: case.note,
        kuhn_layout: case.kuhn_layout,
    };
    check_consistency(&vector)?;
    Ok(vector)
}

/// Categories must be names of ill-formed-input categories of the taxonomy
/// (docs/DESIGN.md §2), sorted and unique. The categories for well-formed input
/// that a decoder mishandles (`noncharacter-rejected`, `bom-stripped`, ...)
/// describe decoder behaviour, not bytes, so they never appear in a vector.
/// Returns them in the taxonomy's order.
fn check_categories(names: &[String]) -> Result<Vec<Category>, String> {
    let mut categories = Vec::with_capacity(names.len());
    for category in names {
        let known = Category::from_name(category)
            .filter(|category| Category::ILL_FORMED.contains(category));
        let Some(known) = known else {
            let names: Vec<&str> = Category::ILL_FORMED.iter().map(|c| c.as_str()).collect();
            return Err(format!(
                "categories: unknown category {category:?} (known: {})",
                names.join(", ")
            ));
        };
        categories.push(known);
    }
    if names.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err("categories must be sorted alphabetically and unique".to_string());
    }
    categories.sort();
    Ok(categories)
}

#[cfg(test)]
#[path = "vectors/tests.rs"]
mod tests;
