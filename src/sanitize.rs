//! Text that an adapter controls (its hello `name` and `version`, its `error` text, its
//! stderr, a report file's fields), made safe for each place it is shown.
//!
//! Such text is written by whoever wrote the adapter and must never change what a report
//! or a terminal says around it. Each function here is for one kind of output:
//!
//! - [`single_line`]: control characters (C0, DEL, C1: terminal escapes, newlines,
//!   carriage returns) and invisible format characters (bidirectional overrides and
//!   isolates, zero-width characters: [`is_format`]) become visible `\u{..}` escapes
//!   and the text is cut to a length; applied where the text enters the harness, so every later use is one line.
//! - [`terminal`]: the same escaping, for text printed to stdout/stderr (escape bytes
//!   would otherwise move the cursor, recolour or retitle the terminal).
//! - [`markdown_text`]: for running Markdown text. CommonMark §2.4: "Any ASCII
//!   punctuation character may be backslash-escaped", and an escaped character is literal,
//!   so every ASCII punctuation character is escaped; `<` can then open no raw HTML
//!   (§6.6) or HTML comment, and `` ` `` no code span; newlines are escaped first, so no
//!   new block (a fake heading or verdict line) can start.
//! - [`markdown_code`]: the same text as a code span. CommonMark §6.1: "A code span begins
//!   with a backtick string and ends with a backtick string of equal length", so the
//!   fence is one backtick longer than the longest run inside, with a space on each side
//!   ("If the resulting string both begins and ends with a space character ... a single
//!   space character is removed from the front and back").
//! - [`html`]: format characters escaped as above (control characters are left to the
//!   callers: the harness's own text has newlines), and the five HTML special characters
//!   as character references (HTML Standard
//!   §13.1.4: text may not contain a literal `<` or an ambiguous `&`; attribute values
//!   are quoted with `"`, and `'` is escaped too so single-quoted attributes are safe).

use std::fmt::Write;

/// The longest adapter-controlled text kept, in characters, by default.
pub const MAX_TEXT_CHARS: usize = 500;

/// One line: control characters escaped as `\u{XX}`, cut to `max_chars` characters (with
/// `...` when cut).
pub fn single_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 2));
    for (count, c) in text.chars().enumerate() {
        if count == max_chars {
            out.push_str("...");
            break;
        }
        push_visible(&mut out, c);
    }
    out
}

/// Text for a terminal: every control character escaped.
pub fn terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    out
}

/// The characters that can open Markdown syntax inside running text (CommonMark: code
/// spans, emphasis, links and images, raw HTML and entities, tables, strikethrough,
/// autolinks, and the backslash itself). Others (`.`, `-`, `;`, `(` ...) only mean
/// something at the start of a line, where this text never is, or after one of these.
const MARKDOWN_SPECIAL: &str = "\\`*_[]<>!|~&#";

/// Text for running Markdown (never at the start of a line): control characters escaped,
/// then every character that could open Markdown syntax backslash-escaped, so
/// `utf8-decode 2.0.0; 5 findings` stays readable as it is.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in terminal(text).chars() {
        if MARKDOWN_SPECIAL.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text as a Markdown code span, whatever backticks it holds.
pub fn markdown_code(text: &str) -> String {
    let text = terminal(text);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {text} {fence}")
}

/// Text for HTML element content or a quoted attribute value.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if is_format(c) => {
                let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Text for an XML (JUnit, SVG) attribute value or element content: the five special
/// characters escaped, and a character XML 1.0 cannot carry written as `\u{..}`.
pub fn xml(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\t' | '\n' | '\r' => escaped.push(c),
            c if is_xml_char(c) => escaped.push(c),
            c => {
                let _ = write!(escaped, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    escaped
}

/// XML 1.0 §2.2 `Char`, less the three whitespace controls handled by [`xml`].
fn is_xml_char(c: char) -> bool {
    matches!(c as u32, 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

/// Pushes `c`, or `\u{XX}` for a control character (Unicode general category Cc: U+0000
/// to U+001F and U+007F to U+009F) or an invisible format character ([`is_format`]).
fn push_visible(out: &mut String, c: char) {
    if c.is_control() || is_format(c) {
        let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
    } else {
        out.push(c);
    }
}

/// Invisible characters that change how the text around them is shown: the bidirectional
/// controls (UAX #9 §2: the embeddings and overrides U+202A..U+202E, the isolates
/// U+2066..U+2069, the marks U+200E, U+200F and U+061C), which can make a report read
/// backwards ("Trojan Source"), the line and paragraph separators U+2028/U+2029, and the
/// other format characters (general category Cf) of the BMP and the tag block: zero-width
/// characters, the soft hyphen, U+FEFF, the deprecated format characters U+206A..U+206F,
/// the interlinear annotation characters and the language tags.
pub fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{070F}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names and error texts an adapter could send to forge a verdict line, open an HTML
    /// comment, or drive the terminal.
    const NEWLINE_NAME: &str = "x\nutf8conf: conformant\n<!--";
    const ESCAPE_NAME: &str = "evil\x1b[2J\x1b]0;title\x07";
    const BACKTICK_ERROR: &str = "` <img src=x onerror=alert(1)> `";

    #[test]
    fn single_line_text_has_no_control_characters_and_is_bounded() {
        let line = single_line(NEWLINE_NAME, 500);
        assert!(!line.contains('\n'));
        assert_eq!(line, "x\\u{A}utf8conf: conformant\\u{A}<!--");
        assert_eq!(single_line("abcdef", 3), "abc...");
        assert!(!terminal(ESCAPE_NAME).contains('\x1b'));
        assert!(!terminal(ESCAPE_NAME).contains('\x07'));
        assert!(!terminal("\u{9b}31m").contains('\u{9b}'), "C1 CSI too");
    }

    #[test]
    fn markdown_text_opens_no_tag_comment_code_span_or_block() {
        let text = markdown_text(NEWLINE_NAME);
        assert!(!text.contains('\n'));
        assert!(text.contains("\\<\\!--"), "{text}");
        assert_eq!(
            markdown_text("utf8-decode 2.0.0; a.b"),
            "utf8-decode 2.0.0; a.b"
        );
        let text = markdown_text(BACKTICK_ERROR);
        assert!(!text.contains(" <img"), "{text}");
        assert!(text.contains("\\`"), "{text}");
    }

    #[test]
    fn markdown_code_spans_cannot_be_closed_from_inside() {
        assert_eq!(markdown_code("a"), "` a `");
        let span = markdown_code(BACKTICK_ERROR);
        assert!(span.starts_with("`` ") && span.ends_with(" ``"), "{span}");
        assert_eq!(markdown_code("a``b"), "``` a``b ```");
        assert!(!markdown_code(NEWLINE_NAME).contains('\n'));
    }

    #[test]
    fn bidi_controls_and_format_characters_are_shown_as_escapes_everywhere() {
        let name = "abc\u{202E}gnp.exe\u{2066}x\u{2069}\u{200B}\u{2028}";
        let shown = "abc\\u{202E}gnp.exe\\u{2066}x\\u{2069}\\u{200B}\\u{2028}";
        assert_eq!(terminal(name), shown);
        assert_eq!(single_line(name, 500), shown);
        assert!(!markdown_text(name).contains('\u{202E}'));
        assert!(!markdown_code(name).contains('\u{202E}'));
        assert_eq!(html("a\u{202E}b"), "a\\u{202E}b");
        assert_eq!(terminal("é ü 中"), "é ü 中", "letters are kept");
    }

    #[test]
    fn html_escapes_the_special_characters() {
        assert_eq!(
            html("<img src=x onerror='a'>&\""),
            "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;&quot;"
        );
    }
}
