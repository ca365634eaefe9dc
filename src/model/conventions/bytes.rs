//! The byte-by-byte family of conventions, read off a decoder's machine: each ill-formed
//! byte replaced by a character of its own, chosen by the byte alone. U+FFFD for every
//! byte is the per-byte policy; U+DC00 + byte is Python's `surrogateescape`; the byte's
//! own value is a Latin-1 reading; a Windows-1252 reading gives the byte's own value for
//! `A0..FF` and other characters for most of `80..9F`. A member other than the known
//! ones is described by what it gives each byte.

use crate::model::alphabet::format_ranges;
use crate::model::learner::Hypothesis;
use crate::model::output::UnitKind;
use crate::outcome::REPLACEMENT;

/// What a decoder puts in place of each ill-formed byte `80..FF` (entry `i` for byte
/// `0x80 + i`), as the machine's abstract outputs see it: U+FFFD, the byte's own value,
/// or another value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ByteValues([UnitKind; 128]);

impl ByteValues {
    /// The table of `(byte, kind)` entries, U+FFFD for every byte not given.
    pub fn new(entries: impl IntoIterator<Item = (u8, UnitKind)>) -> ByteValues {
        let mut table = [UnitKind::Replacement; 128];
        for (byte, kind) in entries {
            table[usize::from(byte - 0x80)] = kind;
        }
        ByteValues(table)
    }

    /// The table of the decoder's machine: on each byte `80..FF` alone (ill-formed, or a
    /// lead cut short by the end of input), the one scalar the decoder appends, which
    /// must stay when `41` follows. `None` when a byte gives anything else, when every
    /// byte gives U+FFFD (the reference's answer on a lone byte), or when every byte has
    /// another value (the known `surrogateescape` convention explains as much).
    pub fn of_machine(decoder: &Hypothesis) -> Option<ByteValues> {
        let mut table = [UnitKind::Replacement; 128];
        for byte in 0x80..=0xFFu8 {
            let output = *decoder.run(&[byte]).first()?;
            let lossy = output.lossy?;
            let kind = match (lossy.taken_back, lossy.appended, lossy.kinds[0]) {
                (
                    0,
                    1,
                    Some(kind @ (UnitKind::Replacement | UnitKind::OwnByte | UnitKind::Other)),
                ) => kind,
                _ => return None,
            };
            // A value of the byte alone stays when a byte that ends any sequence (`41`)
            // follows, and that byte is a character of its own: a value the decoder
            // reads past the end of input, or from the bytes after the lead, is not
            // the byte's.
            if kind != UnitKind::Replacement {
                let next = decoder.run(&[byte, 0x41]).get(1)?.lossy?;
                if (next.taken_back, next.appended, next.kinds[0]) != (0, 1, Some(UnitKind::Scalar))
                {
                    return None;
                }
            }
            table[usize::from(byte - 0x80)] = kind;
        }
        let all = |kind| table.iter().all(|&k| k == kind);
        (!all(UnitKind::Replacement) && !all(UnitKind::Other)).then_some(ByteValues(table))
    }

    /// The scalar put in place of ill-formed byte `byte`: U+FFFD, its own value, or a
    /// private-use character standing for another value.
    pub fn scalar(self, byte: u8) -> u32 {
        match byte.checked_sub(0x80).map(|i| self.0[usize::from(i)]) {
            Some(UnitKind::OwnByte) => u32::from(byte),
            Some(UnitKind::Other) => 0xE000 + u32::from(byte),
            _ => REPLACEMENT,
        }
    }

    /// The bytes given each kind, as a title says them: "its own value (Latin-1) for
    /// A0..FF; another character for 80, 82..8C; U+FFFD for 81, 8D".
    pub fn described(self) -> String {
        let parts = [
            (UnitKind::OwnByte, "its own value (Latin-1)"),
            (UnitKind::Other, "another character"),
            (UnitKind::Replacement, "U+FFFD"),
        ];
        parts
            .iter()
            .filter_map(|&(kind, name)| {
                let bytes = self.ranges(kind);
                (!bytes.is_empty()).then(|| format!("{name} for {bytes}"))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The bytes of `kind`, as ranges: `80, 82..8C`.
    fn ranges(self, kind: UnitKind) -> String {
        let bytes: Vec<u8> = (0x80..=0xFFu8)
            .filter(|&b| self.0[usize::from(b - 0x80)] == kind)
            .collect();
        format_ranges(&bytes)
    }
}

impl std::fmt::Display for ByteValues {
    /// The table as a name part: `own-A0..FF-other-80-82..8C` (U+FFFD elsewhere).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let own = self.ranges(UnitKind::OwnByte);
        let other = self.ranges(UnitKind::Other);
        let mut parts = Vec::new();
        if !own.is_empty() {
            parts.push(format!("own-{own}"));
        }
        if !other.is_empty() {
            parts.push(format!("other-{other}"));
        }
        f.write_str(&parts.join("-").replace(", ", "-"))
    }
}
