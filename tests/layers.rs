//! The layering of `src/` as docs/DESIGN.md §4 draws it: data flows one way, and no
//! top-level module imports one above it. This test reads the sources (not the compiled
//! crate), finds every `crate::<module>` path outside test code (doc links count: a link
//! is a dependency a reader follows), and fails on an import that goes upward, and on an
//! import cycle between top-level modules or between files.
//!
//! [`KNOWN_UPWARD`] is empty. An upward import fails with the files it is in; the fix is
//! to move the shared item down to where both sides can reach it. Were one ever to stay, it
//! would go on that list with its reason, and an entry that no longer occurs fails too
//! (remove it, so that it cannot come back unnoticed).
//!
//! It also holds the sizes of docs/DESIGN.md §6: no function in `src/` over 100 lines and
//! no file over 500, tables aside. Nothing is exempt: an offender fails, named with its
//! length.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, top first, as in docs/DESIGN.md §4; modules on one line are one layer and
/// may import each other, as long as no import cycle forms between top-level modules
/// ([`no_import_cycle_between_top_level_modules`]).
const LAYERS: &[&[&str]] = &[
    // The front ends: the command line, and the crate authors' in-process API (which,
    // like the command line, writes report files when a fuzz input fails, and so sits
    // above presentation).
    &["main", "cli", "author"],
    // Presentation: every renderer and report writer.
    &["report"],
    // The drivers: `check`, `exhaustive`, `run`, C libraries, adapters.
    &["conformance", "exhaustive", "engine", "native", "adapter"],
    // The grading core.
    &["diagnosis", "finding", "security", "model", "automaton"],
    // The generators.
    &["corpus"],
    // The reference, the fast decoder, the decoders and encoders, and the U+FFFD
    // policies' predictions (read from the reference's decode).
    &["reference", "fast", "decoders", "encoders", "policy"],
    // The vocabulary every layer shares.
    &[
        "outcome",
        "taxonomy",
        "aspect",
        "verdict",
        "byte_class",
        "hex",
        "sanitize",
        "time",
        "reproduction",
        "atomic_file",
        "stable_hash",
        "rng",
    ],
];

/// Upward imports that remain, as (importer, imported), with why each is still there.
/// Empty: a new upward import fails, and the way out is to move the shared thing down,
/// or, if it truly must stay, to name it here with its reason.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

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
        "upward imports (docs/DESIGN.md §4: no module imports one above it; move what is \
         shared down, or name the import in KNOWN_UPWARD with its reason):\n{}",
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

/// Every source file of src/ outside test code, as (path relative to src/, its source
/// without test items).
fn non_test_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut sources = Vec::new();
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
        let source = without_test_code(&std::fs::read_to_string(&file).unwrap());
        sources.push((relative, source));
    }
    sources
}

/// Every `crate::` path in `source`, as its segments; a `{..}` group is expanded one
/// level (`crate::a::{b, c::d}` gives `a::b` and `a::c::d`).
fn full_crate_paths(source: &str) -> Vec<Vec<String>> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let segments = |text: &str| -> Vec<String> {
        text.split("::")
            .map(|segment| segment.chars().take_while(|&c| is_ident(c)).collect())
            .take_while(|segment: &String| !segment.is_empty())
            .collect()
    };
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("crate::") {
        let preceded_by_ident = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| is_ident(c) || c == '$');
        let after = &rest[at + "crate::".len()..];
        rest = after;
        if preceded_by_ident {
            continue;
        }
        let path_len = after
            .find(|c: char| !(is_ident(c) || c == ':'))
            .unwrap_or(after.len());
        let prefix = segments(&after[..path_len]);
        let group = after[path_len..]
            .strip_prefix('{')
            .filter(|_| after[..path_len].ends_with("::"))
            .and_then(|inner| inner.find('}').map(|end| &inner[..end]));
        match group {
            Some(group) => {
                for member in group.split(',').map(str::trim) {
                    let mut path = prefix.clone();
                    path.extend(segments(member).into_iter().filter(|s| s != "self"));
                    found.push(path);
                }
            }
            None if !prefix.is_empty() => found.push(prefix),
            None => {}
        }
    }
    found
}

/// The file of src/ that a `crate::` path leads into: the deepest module file its
/// segments name (`a::b::Item` is in `a/b.rs` or `a/b/mod.rs` if either exists, else in
/// `a.rs` or `a/mod.rs`).
fn file_of(path: &[String], files: &BTreeSet<String>) -> Option<String> {
    let mut found = None;
    for depth in 1..=path.len() {
        let stem = path[..depth].join("/");
        let candidates = [format!("{stem}.rs"), format!("{stem}/mod.rs")];
        match candidates.into_iter().find(|file| files.contains(file)) {
            Some(file) => found = Some(file),
            None => break,
        }
    }
    found
}

/// A cycle in `graph` (each node's successors), as its nodes in order, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search; a successor still on the stack closes a cycle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (relative, source) in non_test_sources() {
        let top = relative.split('/').next().unwrap().trim_end_matches(".rs");
        for imported in crate_paths(&source) {
            if imported != top && layer_of(&imported).is_some() {
                graph.entry(top.to_string()).or_default().insert(imported);
            }
        }
    }
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "top-level modules import each other in a circle: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn no_import_cycle_between_files() {
    let sources = non_test_sources();
    let files: BTreeSet<String> = sources.iter().map(|(file, _)| file.clone()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (relative, source) in &sources {
        for path in full_crate_paths(source) {
            if let Some(target) = file_of(&path, &files).filter(|t| t != relative) {
                graph.entry(relative.clone()).or_default().insert(target);
            }
        }
    }
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "files of src/ import each other in a circle: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_cycle_search_finds_a_circle_and_resolves_paths() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(node, next)| {
        let next = next.into_iter().map(String::from).collect();
        (node.to_string(), next)
    })
    .collect();
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let acyclic: BTreeMap<String, BTreeSet<String>> =
        [("a".to_string(), BTreeSet::from(["b".to_string()]))].into();
    assert_eq!(find_cycle(&acyclic), None);

    let paths = full_crate_paths("use crate::x::{self, y::Z, w};\nlet v = crate::q::r(1);");
    let expected: Vec<Vec<String>> = [
        vec!["x"],
        vec!["x", "y", "Z"],
        vec!["x", "w"],
        vec!["q", "r"],
    ]
    .iter()
    .map(|p| p.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(paths, expected);
    let files = BTreeSet::from(["x/mod.rs".to_string(), "x/y.rs".to_string()]);
    assert_eq!(file_of(&expected[1], &files).as_deref(), Some("x/y.rs"));
    assert_eq!(file_of(&expected[2], &files).as_deref(), Some("x/mod.rs"));
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

// ---------------------------------------------------------------------------------------
// Sizes: the house rule (docs/DESIGN.md §6) is that no function in `src/` is over about
// 100 lines and no file over about 500, tables aside. The rule for a table is simple: a
// `const` or `static` item (wherever it stands) is a table, and its lines count towards
// neither the function nor the file that holds it. Everything else counts, comments and
// test modules included.

/// Longest function body, in lines from its `fn` line to its closing brace.
const MAX_FUNCTION_LINES: usize = 100;
/// Longest file, in lines.
const MAX_FILE_LINES: usize = 500;

/// `source` with the insides of comments, strings and character literals blanked out
/// (newlines kept), so that braces and keywords are found only in code.
fn code_only(source: &str) -> Vec<u8> {
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for byte in &mut out[from..to.min(bytes.len())] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    };
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (0usize, i);
            while j < bytes.len() {
                if bytes[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if bytes[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (rest[0] == b'r' || rest.starts_with(b"br"))
            && (i == 0 || !is_ident(bytes[i - 1]))
            && {
                let after_r = if rest[0] == b'r' { 1 } else { 2 };
                let hashes = rest[after_r..].iter().take_while(|&&b| b == b'#').count();
                rest.get(after_r + hashes) == Some(&b'"')
            }
        {
            let after_r = if rest[0] == b'r' { 1 } else { 2 };
            let hashes = rest[after_r..].iter().take_while(|&&b| b == b'#').count();
            let start = i + after_r + hashes + 1;
            let mut closing = vec![b'"'];
            closing.extend(std::iter::repeat_n(b'#', hashes));
            let end = bytes[start..]
                .windows(closing.len())
                .position(|w| w == closing.as_slice())
                .map_or(bytes.len(), |n| start + n + closing.len());
            blank(&mut out, start, end - closing.len().min(end - start));
            i = end;
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{7f}') rather than a lifetime ('a).
            let end = if rest.get(1) == Some(&b'\\') {
                rest[2..]
                    .iter()
                    .position(|&b| b == b'\'')
                    .map(|n| i + 2 + n + 1)
            } else {
                let width = source[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + width) == Some(&b'\'')).then_some(i + 2 + width)
            };
            match end {
                Some(end) => {
                    blank(&mut out, i + 1, end - 1);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The position just past the `;` that ends the item starting at `from`, or of the brace
/// that closes its body, whichever comes first at bracket depth zero; `None` at the end.
fn item_end(code: &[u8], from: usize, stop_at_body: bool) -> Option<(usize, bool)> {
    let mut depth = 0usize;
    for (n, &b) in code[from..].iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 && stop_at_body => return Some((from + n, true)),
            b'{' => depth += 1,
            b'}' if depth == 0 => return None,
            b'}' => depth -= 1,
            b';' if depth == 0 => return Some((from + n + 1, false)),
            _ => {}
        }
    }
    None
}

/// The position of the brace that closes the one at `open`.
fn matching_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (n, &b) in code[open..].iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return open + n;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// Every occurrence of keyword `word` followed by whitespace and an identifier, as (start
/// of the keyword, the identifier).
fn keyword_items<'a>(code: &'a [u8], word: &str) -> Vec<(usize, &'a str)> {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found = Vec::new();
    let word = word.as_bytes();
    let mut i = 0;
    while let Some(n) = code[i..].windows(word.len()).position(|w| w == word) {
        let at = i + n;
        i = at + word.len();
        let before_ok = at == 0 || !is_ident(code[at - 1]);
        let gap = code[i..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let name_len = code[i + gap..].iter().take_while(|&&b| is_ident(b)).count();
        if before_ok && gap > 0 && name_len > 0 {
            let name = std::str::from_utf8(&code[i + gap..i + gap + name_len]).unwrap();
            if name != "fn" {
                found.push((at, name));
            }
        }
    }
    found
}

/// The measured lengths of one source file: its length and each function's, in lines,
/// with the lines of tables (`const` and `static` items) left out of both.
fn measure(source: &str) -> (usize, Vec<(String, usize)>) {
    let code = code_only(source);
    let line_of = |pos: usize| code[..pos].iter().filter(|&&b| b == b'\n').count();
    let line_count = source.lines().count();
    let mut table_line = vec![false; line_count + 1];
    for word in ["const", "static"] {
        for (at, _) in keyword_items(&code, word) {
            if let Some((end, false)) = item_end(&code, at, false) {
                table_line[line_of(at)..=line_of(end - 1)].fill(true);
            }
        }
    }
    let counted = |from: usize, to: usize| (from..=to).filter(|&l| !table_line[l]).count();
    let mut functions = Vec::new();
    for (at, name) in keyword_items(&code, "fn") {
        if let Some((open, true)) = item_end(&code, at, true) {
            let close = matching_brace(&code, open);
            functions.push((name.to_string(), counted(line_of(at), line_of(close))));
        }
    }
    (counted(0, line_count.saturating_sub(1)), functions)
}

/// Every function and file in src/ over the limits, as (path, function or "", lines).
fn long_items() -> Vec<(String, String, usize)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut long = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let (lines, functions) = measure(&std::fs::read_to_string(&file).unwrap());
        if lines > MAX_FILE_LINES {
            long.push((relative.clone(), String::new(), lines));
        }
        for (name, lines) in functions {
            if lines > MAX_FUNCTION_LINES {
                long.push((relative.clone(), name, lines));
            }
        }
    }
    long
}

#[test]
fn no_function_or_file_in_src_is_too_long() {
    let long: Vec<String> = long_items()
        .iter()
        .map(|(path, name, lines)| match name.as_str() {
            "" => format!("src/{path}: {lines} lines (limit {MAX_FILE_LINES})"),
            _ => format!("src/{path}: fn {name}: {lines} lines (limit {MAX_FUNCTION_LINES})"),
        })
        .collect();
    assert!(
        long.is_empty(),
        "too long (split into named steps, or move a cohesive part to its own file):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_measure_skips_strings_comments_and_tables() {
    let source = "const TABLE: [u8; 3] = [\n    1,\n    2,\n];\n\
                  fn short() {\n    let brace = '{';\n    let text = \"}}\"; // }\n    /* { */\n}\n\
                  fn with_table() -> [u8; 2] {\n    static INNER: [u8; 2] = [\n        0, 1,\n    ];\n    INNER\n}\n\
                  trait T {\n    fn declared(&self);\n}\nfn raw() -> &'static str {\n    r#\"{\"#\n}\n";
    let (lines, functions) = measure(source);
    assert_eq!(lines, 21 - 4 - 3);
    assert_eq!(
        functions,
        vec![
            ("short".to_string(), 5),
            ("with_table".to_string(), 6 - 3),
            ("raw".to_string(), 3),
        ]
    );
}
