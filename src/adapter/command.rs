//! Splitting a `--cmd` string into an argv, the way a POSIX shell splits words, without a
//! shell.
//!
//! The harness starts adapters with `execve`-style argv (docs/PROTOCOL.md: "argv, no
//! shell"), so `--cmd 'python3 adapters/python.py strict'` must be split into words here.
//! The rules are the quoting rules of the POSIX shell's token recognition (XCU §2.2), and
//! nothing else: no variable expansion, globbing, redirection or command substitution, so
//! a `$` or `*` in a command is passed on literally.
//!
//! - Unquoted blanks (space, tab, newline) separate words.
//! - `'...'`: "Enclosing characters in single-quotes shall preserve the literal value of
//!   each character within the single-quotes."
//! - `"..."`: literal, except that a backslash escapes `$`, `` ` ``, `"`, `\` and newline.
//! - An unquoted backslash preserves the literal value of the next character.

/// Why a command line could not be split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLineError(pub String);

impl std::fmt::Display for CommandLineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CommandLineError {}

/// Splits `command_line` into words (see the module documentation for the rules).
///
/// An empty command, an unterminated quote or a trailing backslash is an error.
pub fn split_command_line(command_line: &str) -> Result<Vec<String>, CommandLineError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // A word exists once any character, even an empty pair of quotes, has been read.
    let mut in_word = false;
    let mut chars = command_line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(quoted) => word.push(quoted),
                        None => return Err(CommandLineError("unterminated ' quote".into())),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(escaped @ ('$' | '`' | '"' | '\\')) => word.push(escaped),
                            Some('\n') => {}
                            Some(other) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => return Err(CommandLineError("unterminated \" quote".into())),
                        },
                        Some(quoted) => word.push(quoted),
                        None => return Err(CommandLineError("unterminated \" quote".into())),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(escaped) => {
                    in_word = true;
                    word.push(escaped);
                }
                None => return Err(CommandLineError("trailing backslash".into())),
            },
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(CommandLineError("empty command".into()));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<String> {
        split_command_line(text).unwrap()
    }

    #[test]
    fn blanks_separate_words() {
        assert_eq!(
            split("  python3\tadapters/python.py  strict \n"),
            ["python3", "adapters/python.py", "strict"]
        );
    }

    #[test]
    fn quotes_keep_blanks_and_specials_literal() {
        assert_eq!(split("'a b' \"c d\""), ["a b", "c d"]);
        assert_eq!(split("x'$HOME'y"), ["x$HOMEy"]);
        assert_eq!(split("echo $HOME *"), ["echo", "$HOME", "*"]);
        assert_eq!(split(r#""say \"hi\" \n""#), [r#"say "hi" \n"#]);
        assert_eq!(split("'' b"), ["", "b"]);
    }

    #[test]
    fn backslash_escapes_the_next_character() {
        assert_eq!(split(r"a\ b c\\d"), ["a b", r"c\d"]);
        assert_eq!(split("a\\\nb"), ["ab"]);
    }

    #[test]
    fn malformed_command_lines_are_errors() {
        for bad in ["", "   ", "'open", "\"open", "trailing\\"] {
            assert!(split_command_line(bad).is_err(), "{bad:?}");
        }
    }
}
