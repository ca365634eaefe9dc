//! Hex byte strings, the way the project writes bytes for people: `"61 F1 80 80"`.
//!
//! Vectors, reports and the command line all spell inputs this way. Parsing accepts
//! upper or lower case, with or without spaces between pairs, and an optional `0x` on each
//! pair, so that bytes pasted from a hex dump or a test suite work as they are.

/// Why a hex string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HexError {
    /// Byte offset in the text where the problem is.
    pub position: usize,
    /// What is wrong there.
    pub reason: &'static str,
}

impl std::fmt::Display for HexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad hex at character {}: {}", self.position, self.reason)
    }
}

impl std::error::Error for HexError {}

/// Parses `"61 f1 80"`, `"61F180"` or `"0x61 0xF1"` into bytes.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let mut bytes = Vec::with_capacity(text.len() / 2);
    let mut high_nibble: Option<(usize, u8)> = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (position, c) = chars[i];
        if c == '0' && high_nibble.is_none() && matches!(chars.get(i + 1), Some((_, 'x' | 'X'))) {
            i += 2;
            continue;
        }
        if c.is_whitespace() || c == ',' {
            if high_nibble.is_some() {
                return Err(HexError {
                    position,
                    reason: "odd number of hex digits in a byte",
                });
            }
            i += 1;
            continue;
        }
        let Some(value) = c.to_digit(16) else {
            return Err(HexError {
                position,
                reason: "not a hex digit",
            });
        };
        match high_nibble.take() {
            None => high_nibble = Some((position, value as u8)),
            Some((_, high)) => bytes.push(high << 4 | value as u8),
        }
        i += 1;
    }
    if let Some((position, _)) = high_nibble {
        return Err(HexError {
            position,
            reason: "odd number of hex digits",
        });
    }
    Ok(bytes)
}

/// Formats bytes as upper-case pairs separated by spaces: `"61 F1 80"`.
pub fn format_hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 3);
    for (i, byte) in bytes.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&format!("{byte:02X}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_usual_spellings() {
        let expected = vec![0x61, 0xF1, 0x80];
        for text in [
            "61 F1 80",
            "61f180",
            "0x61 0xF1 0x80",
            " 61,F1,80 ",
            "61 F180",
        ] {
            assert_eq!(parse_hex(text), Ok(expected.clone()), "{text}");
        }
        assert_eq!(parse_hex(""), Ok(vec![]));
    }

    #[test]
    fn rejects_bad_digits_and_odd_lengths() {
        assert_eq!(parse_hex("6G").unwrap_err().reason, "not a hex digit");
        assert!(parse_hex("616").is_err());
        assert!(parse_hex("6 1").is_err());
    }

    #[test]
    fn formats_upper_case_pairs() {
        assert_eq!(format_hex(&[0x61, 0xF1, 0x0A]), "61 F1 0A");
        assert_eq!(
            parse_hex(&format_hex(&[0, 255, 16])).unwrap(),
            vec![0, 255, 16]
        );
    }
}
