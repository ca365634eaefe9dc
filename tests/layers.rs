//! The layering of `src/` as docs/DESIGN.md §4 draws it: data flows one way, and no
//! top-level module imports one above it. This test reads the sources (not the compiled
//! crate), finds every `crate::<module>` path outside test code, and fails on an import
//! that goes upward.
//!
//! The imports that still go upward are listed in [`KNOWN_UPWARD`], each with the reason it
//! is there. The list may only shrink: an upward import not on it fails, and so does an
//! entry that no longer occurs (remove it, so that it cannot come back unnoticed).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, top first, as in docs/DESIGN.md §4; modules on one line are one layer and
/// may import each other.
const LAYERS: &[&[&str]] = &[
    &["main", "cli"],
    &["conformance"],
    &["author"],
    &["exhaustive"],
    &["engine"],
    &["security"],
    &["diagnosis"],
    &["finding", "aspect"],
    &["model"],
    &["adapter", "native"],
    &["report"],
    &["corpus"],
    &["decoders", "encoders"],
    &["automaton"],
    &["fast"],
    &["reference"],
    &["outcome", "taxonomy", "hex", "stable_hash"],
];

/// Upward imports that remain, as (importer, imported), with why each is still there.
/// Moving the shared types they use into the bottom layer removes them.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[
    (
        "author",
        "conformance",
        "the author API runs check's inputs and grading in process",
    ),
    (
        "decoders",
        "conformance",
        "planted decoders name their expected policy with check's type",
    ),
    (
        "decoders",
        "corpus",
        "planted decoders' expectations use corpus generators",
    ),
    (
        "diagnosis",
        "conformance",
        "the U+FFFD policy model lives in check's folder",
    ),
    (
        "diagnosis",
        "engine",
        "the grading core reads the engine's departure type",
    ),
    (
        "diagnosis",
        "security",
        "encoder grading rates severity itself",
    ),
    (
        "finding",
        "security",
        "a finding carries its security class",
    ),
    (
        "encoders",
        "adapter",
        "an encoder behind the protocol is built beside the built-in ones",
    ),
    (
        "encoders",
        "native",
        "an encoder behind --lib is built beside the built-in ones",
    ),
    (
        "model",
        "conformance",
        "the model's conventions are check's U+FFFD policies",
    ),
    (
        "native",
        "exhaustive",
        "the --lib worker runs exhaustive blocks in the worker",
    ),
    ("report", "aspect", "report writers name aspects"),
    (
        "report",
        "conformance",
        "report writers render check's report types",
    ),
    (
        "report",
        "diagnosis",
        "the encoder report renders the encoder grade",
    ),
    ("report", "finding", "report writers render findings"),
    (
        "report",
        "security",
        "report writers render security classes",
    ),
    (
        "security",
        "conformance",
        "security reads the recognised U+FFFD policy",
    ),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The source without its `#[cfg(test)]` items: a test module may reach anywhere.
fn without_test_code(source: &str) -> String {
    let mut kept = String::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            kept.push_str(line);
            kept.push('\n');
            continue;
        }
        // Skip the item that follows: up to its `;`, or its balanced braces.
        let mut depth = 0usize;
        let mut opened = false;
        for item_line in lines.by_ref() {
            for ch in item_line.chars() {
                match ch {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            if (opened && depth == 0) || (!opened && item_line.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    kept
}

/// Every top-level module named by a `crate::` path in `source`.
fn crate_paths(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let preceded_by_ident = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if !name.is_empty() && !preceded_by_ident {
            found.insert(name);
        }
        rest = after;
    }
    found
}

/// (importer, imported) → the files where the import occurs.
fn upward_imports() -> BTreeMap<(String, String), Vec<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for file in files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let is_test_file = relative.ends_with("/tests.rs")
            || relative.contains("/tests/")
            || relative.ends_with("_tests.rs");
        if is_test_file || relative == "lib.rs" {
            continue;
        }
        let top = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let from = layer_of(&top)
            .unwrap_or_else(|| panic!("src/{relative}: module `{top}` is in no layer of LAYERS"));
        let source = std::fs::read_to_string(&file).unwrap();
        for imported in crate_paths(&without_test_code(&source)) {
            let Some(to) = layer_of(&imported) else {
                continue;
            };
            if to < from {
                upward
                    .entry((top.clone(), imported))
                    .or_default()
                    .push(relative.clone());
            }
        }
    }
    upward
}

#[test]
fn no_module_imports_a_layer_above_it() {
    let upward = upward_imports();
    let known: BTreeSet<(String, String)> = KNOWN_UPWARD
        .iter()
        .map(|(from, to, _)| (from.to_string(), to.to_string()))
        .collect();
    let new: Vec<String> = upward
        .iter()
        .filter(|(pair, _)| !known.contains(*pair))
        .map(|((from, to), files)| format!("{from} -> {to} (in {})", files.join(", ")))
        .collect();
    assert!(
        new.is_empty(),
        "upward imports (docs/DESIGN.md §4: no module imports one above it):\n{}",
        new.join("\n")
    );
    let gone: Vec<String> = known
        .iter()
        .filter(|pair| !upward.contains_key(*pair))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(
        gone.is_empty(),
        "these upward imports are gone; remove them from KNOWN_UPWARD:\n{}",
        gone.join("\n")
    );
}

#[test]
fn the_scanner_sees_paths_and_skips_test_code() {
    let source = "use crate::fast::dfa;\nfn f() { crate::report::write(); }\n\
                  #[cfg(test)]\nmod tests {\n    use crate::cli::x;\n}\n\
                  #[cfg(test)]\nuse crate::engine::y;\nfn g() { super::crate_like(); }\n";
    let paths = crate_paths(&without_test_code(source));
    assert_eq!(
        paths,
        BTreeSet::from(["fast".to_string(), "report".to_string()])
    );
}

#[test]
fn every_layer_module_exists_in_src() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for layer in LAYERS {
        for module in *layer {
            let exists = src.join(module).is_dir() || src.join(format!("{module}.rs")).is_file();
            assert!(exists, "LAYERS names `{module}`, which is not in src/");
        }
    }
}
