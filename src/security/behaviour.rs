//! What a decoder did with an input, read off its lossy decode: which well-formed
//! characters it kept, and what it put where the reference has error units.
//!
//! The reference's decode is a sequence of well-formed characters (the *anchors*) with
//! runs of error units between them. The decoder's scalars are aligned to it by the
//! longest common subsequence of anchors, preferring the latest match (so that in
//! `C0 AF 2F` decoded to `2F 2F` the reference's `/` is the second one and the first is
//! the decoder's reading of `C0 AF`). Each gap between matched anchors then holds, on the
//! reference's side, unmatched anchors and error units, and on the decoder's side the
//! scalars it produced there. Reading the gaps:
//!
//! | reference side            | decoder side            | behaviour                  |
//! |---------------------------|-------------------------|----------------------------|
//! | error units only          | nothing                 | bytes deleted              |
//! | error units only          | a scalar other than FFFD| ill-formed bytes accepted  |
//! | error units only          | only U+FFFD             | fine (a replacement policy)|
//! | anchors after error units | only U+FFFD             | characters swallowed       |
//! | anchors (last gap)        | nothing                 | output cut short           |
//! | anchors                   | other scalars           | well-formed misdecoded     |

use crate::outcome::REPLACEMENT;
use crate::policy::{segments, Segment};
use crate::reference::Decoded;
use crate::taxonomy::{self, Category};

/// Inputs longer than this (in anchors times scalars) are aligned greedily instead.
const ALIGNMENT_CELLS: usize = 4_000_000;

const BOM: u32 = 0xFEFF;

/// What the alignment shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alignment {
    /// Error units with nothing in their place.
    pub deleted: bool,
    /// Categories of error units the decoder turned into characters other than U+FFFD.
    pub accepted_categories: Vec<Category>,
    /// Ill-formed bytes each turned into a character of its own (one scalar per byte,
    /// none of them the value the bytes would have as a sequence): a Latin-1, Windows-1252
    /// or escape reading of the bytes, which hides no other character (`C0 AF` became
    /// two characters, not `/`). Their categories are not in `accepted_categories`.
    pub bytes_as_characters: bool,
    /// A well-formed character after an error unit is gone, with only U+FFFD in its place.
    pub swallowed: bool,
    /// The decode stops before the input's last well-formed characters.
    pub cut_short: bool,
    /// Well-formed characters became other characters.
    pub misdecoded: bool,
}

/// A gap between two matched anchors.
#[derive(Default)]
struct Gap {
    unmatched_anchors: usize,
    /// An error unit came before the first unmatched anchor of the gap.
    error_before_unmatched: bool,
    /// The error units' offsets and lengths.
    errors: Vec<(usize, usize)>,
    decoded: Vec<u32>,
}

/// Aligns the decoder's `scalars` for `input` with the reference's `decoded`.
pub fn align(input: &[u8], decoded: &Decoded, scalars: &[u32]) -> Alignment {
    let mut pieces = segments(input, decoded);
    let mut scalars = scalars;
    // A stripped leading BOM is a wrapper policy, judged elsewhere.
    if matches!(pieces.first(), Some(Segment::Char { scalar: BOM }))
        && scalars.first() != Some(&BOM)
    {
        pieces.remove(0);
    } else if pieces.is_empty() && scalars.first() == Some(&BOM) {
        scalars = &scalars[1..];
    }
    let anchors: Vec<u32> = pieces
        .iter()
        .filter_map(|piece| match piece {
            Segment::Char { scalar } => Some(*scalar),
            Segment::Error { .. } => None,
        })
        .collect();
    let matched = match_anchors(&anchors, scalars);

    // Walk the pieces and the scalars together, closing a gap at every matched anchor.
    let mut alignment = Alignment::default();
    let mut gap = Gap::default();
    let mut anchor_index = 0;
    let mut scalar_index = 0;
    for piece in &pieces {
        match *piece {
            Segment::Error { offset, len } => gap.errors.push((offset, len)),
            Segment::Char { .. } => {
                match matched[anchor_index] {
                    Some(at) => {
                        gap.decoded = scalars[scalar_index..at].to_vec();
                        read_gap(input, &gap, false, &mut alignment);
                        gap = Gap::default();
                        scalar_index = at + 1;
                    }
                    None => {
                        if gap.unmatched_anchors == 0 {
                            gap.error_before_unmatched = !gap.errors.is_empty();
                        }
                        gap.unmatched_anchors += 1;
                    }
                }
                anchor_index += 1;
            }
        }
    }
    gap.decoded = scalars[scalar_index..].to_vec();
    read_gap(input, &gap, true, &mut alignment);
    alignment.accepted_categories.sort();
    alignment.accepted_categories.dedup();
    alignment
}

fn read_gap(input: &[u8], gap: &Gap, last: bool, alignment: &mut Alignment) {
    let only_replacements = gap.decoded.iter().all(|&s| s == REPLACEMENT);
    if gap.unmatched_anchors > 0 {
        if gap.decoded.is_empty() && last {
            alignment.cut_short = true;
        } else if only_replacements && gap.error_before_unmatched {
            alignment.swallowed = true;
        } else {
            alignment.misdecoded = true;
        }
    } else if !gap.errors.is_empty() {
        if gap.decoded.is_empty() {
            alignment.deleted = true;
        } else if !only_replacements && bytewise(input, gap) {
            alignment.bytes_as_characters = true;
        } else if !only_replacements {
            alignment.accepted_categories.extend(
                gap.errors
                    .iter()
                    .filter_map(|&(offset, _)| taxonomy::category_at(input, offset)),
            );
        }
    } else if !gap.decoded.is_empty() {
        alignment.misdecoded = true;
    }
}

/// Whether the gap's ill-formed bytes became one scalar each, none of them the value
/// the bits of a lead byte and the continuation bytes after it give (the value a decoder
/// without RFC 3629's checks reads: `C0 AF` as `/`).
fn bytewise(input: &[u8], gap: &Gap) -> bool {
    let bytes: usize = gap.errors.iter().map(|&(_, len)| len).sum();
    gap.decoded.len() == bytes
        && gap
            .errors
            .iter()
            .flat_map(|&(offset, len)| offset..offset + len)
            .filter_map(|offset| {
                let sequence =
                    input.get(offset..offset + taxonomy::announced_len(input[offset]))?;
                taxonomy::lax_value(sequence)
            })
            .all(|value| !gap.decoded.contains(&value))
}

/// For each anchor, the index of the scalar it matches, if any: a longest common
/// subsequence, backtracked from the end so that later matches win.
fn match_anchors(anchors: &[u32], scalars: &[u32]) -> Vec<Option<usize>> {
    let (n, m) = (anchors.len(), scalars.len());
    if n.saturating_mul(m) > ALIGNMENT_CELLS {
        return match_greedily(anchors, scalars);
    }
    let width = m + 1;
    let mut lengths = vec![0u32; (n + 1) * width];
    for i in 1..=n {
        for j in 1..=m {
            lengths[i * width + j] = if anchors[i - 1] == scalars[j - 1] {
                lengths[(i - 1) * width + j - 1] + 1
            } else {
                lengths[(i - 1) * width + j].max(lengths[i * width + j - 1])
            };
        }
    }
    let mut matched = vec![None; n];
    let (mut i, mut j) = (n, m);
    while i > 0 && j > 0 {
        if anchors[i - 1] == scalars[j - 1]
            && lengths[i * width + j] == lengths[(i - 1) * width + j - 1] + 1
        {
            matched[i - 1] = Some(j - 1);
            i -= 1;
            j -= 1;
        } else if lengths[i * width + j - 1] >= lengths[(i - 1) * width + j] {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    matched
}

fn match_greedily(anchors: &[u32], scalars: &[u32]) -> Vec<Option<usize>> {
    let mut next = 0;
    anchors
        .iter()
        .map(|anchor| {
            let found = scalars[next..].iter().position(|s| s == anchor)?;
            next += found + 1;
            Some(next - 1)
        })
        .collect()
}
