//! The `explanation` of a report: what the reference says about the minimised input, in
//! the words of RFC 3629's grammar.

use crate::reference::{Decoded, Reference};

use crate::taxonomy::is_noncharacter;

/// At most this many error units are explained one by one.
const MAX_EXPLAINED_UNITS: usize = 16;

/// Explains `input`: each error unit by the ABNF alternative that failed and the byte that
/// broke it (`Reference::explain`), or, for well-formed input, which `UTF8-n` rules matched
/// (in RFC 3629 §4 `UTF8-n` is exactly the `n`-octet alternative of `UTF8-char`) and which
/// well-formed characters decoders commonly mishandle (noncharacters, U+FEFF). `decoded`
/// is the reference's decode of `input`, which the caller already has.
pub fn explain(input: &[u8], decoded: &Decoded) -> String {
    let reference = Reference::rfc3629();
    if !decoded.is_valid() {
        let mut lines: Vec<String> = decoded
            .errors
            .iter()
            .take(MAX_EXPLAINED_UNITS)
            .map(|error| {
                format!(
                    "error unit at offset {} ({} byte{}): {}",
                    error.offset,
                    error.len,
                    if error.len == 1 { "" } else { "s" },
                    reference.explain(input, error)
                )
            })
            .collect();
        if decoded.errors.len() > MAX_EXPLAINED_UNITS {
            lines.push(format!(
                "... and {} more error units",
                decoded.errors.len() - MAX_EXPLAINED_UNITS
            ));
        }
        return lines.join("\n");
    }
    let sequence_rule = reference.sequence_rule();
    let char_rule = reference.char_rule();
    let text = std::str::from_utf8(input).expect("the reference found no error");
    if text.is_empty() {
        return format!(
            "well-formed: the empty input matches {sequence_rule} = *( {char_rule} ) with zero characters"
        );
    }
    let mut rule_counts = [0usize; 4];
    let mut notes = Vec::new();
    for (offset, c) in text.char_indices() {
        rule_counts[c.len_utf8() - 1] += 1;
        let scalar = u32::from(c);
        if is_noncharacter(scalar) && notes.len() < MAX_EXPLAINED_UNITS {
            notes.push(format!(
                "U+{scalar:04X} at offset {offset} is a noncharacter: well-formed (UTF8-{})",
                c.len_utf8()
            ));
        } else if scalar == 0xFEFF && notes.len() < MAX_EXPLAINED_UNITS {
            notes.push(format!(
                "U+FEFF (BOM) at offset {offset} is an ordinary well-formed character (UTF8-3)"
            ));
        }
    }
    let matched: Vec<String> = rule_counts
        .iter()
        .enumerate()
        .filter(|(_, &count)| count > 0)
        .map(|(index, count)| format!("{count} x UTF8-{}", index + 1))
        .collect();
    let mut explanation = format!(
        "well-formed: every {char_rule} matched ({}); the input is {sequence_rule}",
        matched.join(", ")
    );
    for note in notes {
        explanation.push('\n');
        explanation.push_str(&note);
    }
    explanation
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explain(input: &[u8]) -> String {
        super::explain(input, &Reference::rfc3629().decode(input))
    }

    #[test]
    fn explains_errors_and_well_formed_inputs() {
        let surrogate = explain(&[0xED, 0xA0, 0x80]);
        assert_eq!(surrogate.lines().count(), 3, "{surrogate}");
        assert!(surrogate.contains("offset 0"), "{surrogate}");
        let valid = explain("a\u{FEFF}\u{FFFF}".as_bytes());
        assert!(valid.starts_with("well-formed"), "{valid}");
        assert!(valid.contains("1 x UTF8-1, 2 x UTF8-3"), "{valid}");
        assert!(valid.contains("noncharacter"), "{valid}");
        assert!(valid.contains("U+FEFF"), "{valid}");
        assert!(explain(b"").contains("zero characters"));
    }
}
