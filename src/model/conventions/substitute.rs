//! A substitute character: a U+FFFD policy whose marker is another character. Unicode
//! does not require U+FFFD: "there is no requirement that an ill-formed subsequence be
//! replaced using U+FFFD character(s); an application can, for example, throw an
//! exception or substitute other characters such as "?"" (Public Review Issue #121,
//! 2008). PHP's `mb_substitute_character`, Kotlin's JVM decoder and .NET's
//! `DecoderReplacementFallback` put `?` there; Plan 9 put U+0080.
//!
//! The machine's outputs cannot say which character it is (another value is "other",
//! and `?` after `C0` even reads as the bits of `C0 BF`), so it is read off the decoder
//! itself, on three inputs every policy gives one marker each for.

use crate::decoders::Decoder;
use crate::outcome::REPLACEMENT;
use crate::policy::{expected_scalars, ReplacementPolicy, Segment};

/// The inputs read, each with the characters after its one marker: a stray continuation
/// byte, a byte no character starts with, a lead byte before a letter.
const PROBES: [(&[u8], &[u32]); 3] = [(&[0x80], &[]), (&[0xFF], &[]), (&[0xC0, 0x41], &[0x41])];

/// A policy's units, each replaced by `scalar` instead of U+FFFD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Substitute {
    /// How the ill-formed bytes are cut into units.
    pub policy: ReplacementPolicy,
    /// The character put in place of each unit.
    pub scalar: u32,
}

impl Substitute {
    /// The one character `decoder` puts in place of the ill-formed unit of `80`, of `FF`
    /// and of `C0 41`, when it is the same for all three and not U+FFFD. `None` for a decoder that gives
    /// U+FFFD, no scalars, nothing, or a character that depends on the byte (a Latin-1
    /// reading, `surrogateescape`).
    pub fn of_decoder(decoder: &dyn Decoder) -> Option<u32> {
        let inputs: Vec<&[u8]> = PROBES.iter().map(|&(input, _)| input).collect();
        let answers = decoder.decode_batch(&inputs);
        let mut marker = None;
        for (&(_, after), answer) in PROBES.iter().zip(&answers) {
            let scalars = answer.as_ref().ok()?.scalars.as_ref()?;
            let (&first, rest) = scalars.split_first()?;
            if rest != after || marker.is_some_and(|m| m != first) {
                return None;
            }
            marker = Some(first);
        }
        marker.filter(|&m| m != REPLACEMENT)
    }

    /// The scalars for `input`: the policy's, with each of its U+FFFD markers replaced by
    /// [`Substitute::scalar`] (a literal U+FFFD in the input stays).
    pub fn scalars(self, input: &[u8], segments: &[Segment]) -> Vec<u32> {
        // A literal U+FFFD is told from a marker by standing in for it while the policy
        // runs: no scalar value is this large.
        const LITERAL: u32 = u32::MAX;
        let marked: Vec<Segment> = segments
            .iter()
            .map(|&segment| match segment {
                Segment::Char { scalar } if scalar == REPLACEMENT => {
                    Segment::Char { scalar: LITERAL }
                }
                other => other,
            })
            .collect();
        expected_scalars(input, &marked, self.policy)
            .into_iter()
            .map(|s| match s {
                REPLACEMENT => self.scalar,
                LITERAL => REPLACEMENT,
                other => other,
            })
            .collect()
    }

    /// The character as a title says it: "U+003F `?`", or "U+0080" where it does not
    /// print.
    pub fn character(self) -> String {
        match char::from_u32(self.scalar) {
            Some(c) if !c.is_control() && !c.is_whitespace() && c != '`' => {
                format!("U+{:04X} `{c}`", self.scalar)
            }
            _ => format!("U+{:04X}", self.scalar),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::segments;
    use crate::reference::Reference;

    #[test]
    fn markers_are_substituted_and_literal_replacement_characters_stay() {
        let input = [0x41, 0xE0, 0x80, 0xEF, 0xBF, 0xBD, 0x80];
        let decoded = Reference::rfc3629().decode(&input);
        let segments = segments(&input, &decoded);
        let substitute = |policy| Substitute {
            policy,
            scalar: 0x3F,
        };
        assert_eq!(
            substitute(ReplacementPolicy::MaximalSubpart).scalars(&input, &segments),
            vec![0x41, 0x3F, 0x3F, REPLACEMENT, 0x3F]
        );
        assert_eq!(
            substitute(ReplacementPolicy::PerLeadSizedSequence).scalars(&input, &segments),
            vec![0x41, 0x3F, REPLACEMENT, 0x3F]
        );
        assert_eq!(
            substitute(ReplacementPolicy::MaximalSubpart).character(),
            "U+003F `?`"
        );
        let plan9 = Substitute {
            policy: ReplacementPolicy::MaximalSubpart,
            scalar: 0x80,
        };
        assert_eq!(plan9.character(), "U+0080");
    }
}
