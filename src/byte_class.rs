//! The byte classes of UTF-8: the runs of byte values that the specification treats alike.
//!
//! The Unicode Standard, §3.9, Table 3-7 (Well-Formed UTF-8 Byte Sequences) gives, for each row of
//! code points, the range of each byte position. Taking the ranges of all columns together,
//! the 256 byte values fall into 14 classes ([`TABLE_3_7_CLASSES`]): every cell of the table
//! either admits the whole class or none of it. RFC 2279 (the UTF-8 of 1998, obsoleted by
//! RFC 3629) also gave meaning to Table 3-7's last class, F5..FF: F5..F7 led 4-byte
//! sequences above U+10FFFF, F8..FB 5-byte and FC..FD 6-byte sequences, and FE, FF never
//! appeared ([`RFC_2279_LEADS`]). Some decoders still follow it, so the inputs that look
//! for that split F5..FF along RFC 2279's lines ([`classes_with_rfc_2279_leads`]).
//!
//! The generators' boundary alphabets are drawn from these classes, each for its own job
//! (`corpus::exhaustive::EDGE_ALPHABET`, `conformance::inputs::BOUNDARY_3_4_ALPHABET`);
//! their tests check them against this one list.

/// Unicode Table 3-7, Well-Formed UTF-8 Byte Sequences: for each row, the inclusive byte
/// range of each byte position.
pub const TABLE_3_7: [&[(u8, u8)]; 9] = [
    &[(0x00, 0x7F)],                                           // U+0000..U+007F
    &[(0xC2, 0xDF), (0x80, 0xBF)],                             // U+0080..U+07FF
    &[(0xE0, 0xE0), (0xA0, 0xBF), (0x80, 0xBF)],               // U+0800..U+0FFF
    &[(0xE1, 0xEC), (0x80, 0xBF), (0x80, 0xBF)],               // U+1000..U+CFFF
    &[(0xED, 0xED), (0x80, 0x9F), (0x80, 0xBF)],               // U+D000..U+D7FF
    &[(0xEE, 0xEF), (0x80, 0xBF), (0x80, 0xBF)],               // U+E000..U+FFFF
    &[(0xF0, 0xF0), (0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF)], // U+10000..U+3FFFF
    &[(0xF1, 0xF3), (0x80, 0xBF), (0x80, 0xBF), (0x80, 0xBF)], // U+40000..U+FFFFF
    &[(0xF4, 0xF4), (0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF)], // U+100000..U+10FFFF
];

/// One class: the inclusive run `first..=last` of byte values, and its role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteClass {
    /// The first byte of the run.
    pub first: u8,
    /// The last byte of the run (equal to `first` for a class of one byte).
    pub last: u8,
    /// What the specification makes of these bytes.
    pub role: &'static str,
}

impl ByteClass {
    /// Whether `byte` is in this class.
    pub fn contains(self, byte: u8) -> bool {
        (self.first..=self.last).contains(&byte)
    }
}

const fn class(first: u8, last: u8, role: &'static str) -> ByteClass {
    ByteClass { first, last, role }
}

/// The 14 byte classes of Table 3-7, in increasing order; together they cover 00..FF once.
pub const TABLE_3_7_CLASSES: [ByteClass; 14] = [
    class(0x00, 0x7F, "one-byte characters"),
    class(0x80, 0x8F, "continuation; the only second bytes after F4"),
    class(
        0x90,
        0x9F,
        "continuation; second after F0 starts at 90, after ED ends at 9F",
    ),
    class(0xA0, 0xBF, "continuation; second after E0 starts at A0"),
    class(0xC0, 0xC1, "never appear (overlong two-byte leads)"),
    class(0xC2, 0xDF, "two-byte leads"),
    class(0xE0, 0xE0, "three-byte lead, second byte A0..BF"),
    class(0xE1, 0xEC, "three-byte leads"),
    class(
        0xED,
        0xED,
        "three-byte lead, second byte 80..9F (no surrogates)",
    ),
    class(0xEE, 0xEF, "three-byte leads"),
    class(0xF0, 0xF0, "four-byte lead, second byte 90..BF"),
    class(0xF1, 0xF3, "four-byte leads"),
    class(
        0xF4,
        0xF4,
        "four-byte lead, second byte 80..8F (up to U+10FFFF)",
    ),
    class(0xF5, 0xFF, "never appear"),
];

/// RFC 2279 §2's split of Table 3-7's last class, F5..FF, in increasing order.
pub const RFC_2279_LEADS: [ByteClass; 4] = [
    class(0xF5, 0xF7, "RFC 2279 four-byte leads above U+10FFFF"),
    class(0xF8, 0xFB, "RFC 2279 five-byte leads"),
    class(0xFC, 0xFD, "RFC 2279 six-byte leads"),
    class(0xFE, 0xFF, "never appear, even in RFC 2279"),
];

/// Table 3-7's classes with F5..FF split as RFC 2279 split it: 17 classes, in increasing
/// order, covering 00..FF once.
pub fn classes_with_rfc_2279_leads() -> impl Iterator<Item = ByteClass> {
    let table_3_7 = &TABLE_3_7_CLASSES[..TABLE_3_7_CLASSES.len() - 1];
    table_3_7.iter().chain(RFC_2279_LEADS.iter()).copied()
}

/// The first and last byte of each class of Table 3-7 (one byte for a class of one), in
/// increasing order: 24 bytes.
pub const fn table_3_7_edges() -> [u8; 24] {
    let mut edges = [0u8; 24];
    let mut next = 0;
    let mut index = 0;
    while index < TABLE_3_7_CLASSES.len() {
        let class = TABLE_3_7_CLASSES[index];
        edges[next] = class.first;
        next += 1;
        if class.last != class.first {
            edges[next] = class.last;
            next += 1;
        }
        index += 1;
    }
    // A class list that no longer gives 24 edges fails the build here.
    assert!(next == edges.len());
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `classes` are in increasing order, adjacent, and cover 00..FF.
    fn partitions_the_bytes(classes: &[ByteClass]) -> bool {
        let starts_at_zero = classes.first().is_some_and(|c| c.first == 0x00);
        let ends_at_ff = classes.last().is_some_and(|c| c.last == 0xFF);
        let adjacent = classes.windows(2).all(|pair| {
            pair[0].first <= pair[0].last && pair[0].last.checked_add(1) == Some(pair[1].first)
        });
        starts_at_zero && ends_at_ff && adjacent
    }

    #[test]
    fn the_classes_are_the_runs_of_bytes_table_3_7_treats_alike() {
        // A byte's signature: which (row, position) cells of the table admit it. A class is
        // a maximal run of consecutive bytes with the same signature.
        let signature = |byte: u8| -> Vec<(usize, usize)> {
            let mut cells = Vec::new();
            for (row, ranges) in TABLE_3_7.iter().enumerate() {
                for (position, &(low, high)) in ranges.iter().enumerate() {
                    if (low..=high).contains(&byte) {
                        cells.push((row, position));
                    }
                }
            }
            cells
        };
        let mut runs = Vec::new();
        let mut first = 0u8;
        for byte in 0..=255u8 {
            if byte == 255 || signature(byte) != signature(byte + 1) {
                runs.push((first, byte));
                first = byte.wrapping_add(1);
            }
        }
        let classes: Vec<(u8, u8)> = TABLE_3_7_CLASSES
            .iter()
            .map(|c| (c.first, c.last))
            .collect();
        assert_eq!(classes, runs);
        assert!(partitions_the_bytes(&TABLE_3_7_CLASSES));
    }

    #[test]
    fn rfc_2279_splits_exactly_the_last_class_of_table_3_7() {
        let last = TABLE_3_7_CLASSES[TABLE_3_7_CLASSES.len() - 1];
        assert_eq!(RFC_2279_LEADS[0].first, last.first);
        assert_eq!(RFC_2279_LEADS[RFC_2279_LEADS.len() - 1].last, last.last);
        let refined: Vec<ByteClass> = classes_with_rfc_2279_leads().collect();
        assert_eq!(refined.len(), 17);
        assert!(partitions_the_bytes(&refined));
        for byte in 0..=255u8 {
            assert_eq!(refined.iter().filter(|c| c.contains(byte)).count(), 1);
        }
    }

    #[test]
    fn the_edges_are_both_ends_of_every_class() {
        let edges = table_3_7_edges();
        assert!(edges.windows(2).all(|pair| pair[0] < pair[1]));
        for class in TABLE_3_7_CLASSES {
            assert!(edges.contains(&class.first) && edges.contains(&class.last));
        }
        assert!(edges.iter().all(|&b| TABLE_3_7_CLASSES
            .iter()
            .any(|c| b == c.first || b == c.last)));
    }
}
