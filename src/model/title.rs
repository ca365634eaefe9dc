//! Titles generated from differences: where (the input before the byte, as hex), which
//! bytes (as ranges), what the decoder does there (the [`Behaviour`]) and what the bytes
//! are (the witness's [`Category`]), e.g. "after `E0`, accepts `80..9F`: overlong-3".
//!
//! Every part is read off the difference, so a title is true of its witness by
//! construction: the witness is the context followed by one of the bytes.

use super::alphabet::format_ranges;
use super::difference::Difference;
use super::mechanism::Behaviour;
use super::output::Strict;
use crate::hex::format_hex;
use crate::reference::Reference;
use crate::taxonomy::{self, Category};

/// At most this many contexts are named in a title.
const CONTEXTS: usize = 3;

/// The category of the witness's bytes: that of the reference's first error unit, or
/// `None` when the witness is well-formed (an incomplete tail counts as its category).
pub fn category(witness: &[u8]) -> Option<Category> {
    let decoded = Reference::rfc3629().decode(witness);
    let (offset, _) = decoded.first_error()?;
    taxonomy::category_at(witness, offset)
}

/// The title of a transition family (its differences, the witness's first).
pub fn transition_title(
    family: &[&Difference],
    behaviour: Behaviour,
    category: Option<Category>,
) -> String {
    let Some(first) = family.first() else {
        return String::from("differs from RFC 3629");
    };
    let (place, bytes) = place_and_bytes(family);
    let bytes = format!("`{}`", format_ranges(&bytes));
    let (r, d) = (first.reference, first.decoder);
    let what = match behaviour {
        Behaviour::AcceptsIllFormed => format!("accepts {bytes}"),
        Behaviour::RejectsWellFormed => format!("rejects {bytes}"),
        Behaviour::IncompleteAsError => {
            format!("reports {bytes} as a definite error where more input could complete it")
        }
        Behaviour::ErrorAsIncomplete => {
            format!("waits for more input after {bytes} where the error is already definite")
        }
        Behaviour::ErrorSpan => match shift(family) {
            // valid_up_to is short by the shift: the error is put that many bytes early.
            Some((low, high)) => format!(
                "reports the error at {bytes} {} byte{} {} than RFC 3629 ({} where it has {})",
                if low == high {
                    low.unsigned_abs().to_string()
                } else {
                    format!(
                        "{} to {}",
                        low.unsigned_abs().min(high.unsigned_abs()),
                        low.unsigned_abs().max(high.unsigned_abs())
                    )
                },
                if low.unsigned_abs() == 1 && low == high {
                    ""
                } else {
                    "s"
                },
                if low > 0 { "earlier" } else { "later" },
                d.strict,
                r.strict
            ),
            None => format!(
                "reports the error at {bytes} as {} where RFC 3629 has {}",
                d.strict, r.strict
            ),
        },
        Behaviour::Replacement => format!(
            "emits {} on {bytes} where maximal subparts give {}",
            lossy(d),
            lossy(r)
        ),
        Behaviour::Misdecodes => {
            format!(
                "decodes {bytes} to {} instead of its scalar",
                appended(d, r)
            )
        }
        Behaviour::DropsOutput if gives_character(r) && replaces_one_for_one(d, r) => {
            format!("replaces the well-formed character ending at {bytes} with U+FFFD")
        }
        Behaviour::DropsOutput if gives_character(r) => {
            format!("loses the well-formed character ending at {bytes}")
        }
        Behaviour::DropsOutput => format!("drops the output of {bytes}"),
        Behaviour::DecodesIllFormed => {
            format!("decodes {bytes} to {} instead of U+FFFD", appended(d, r))
        }
        Behaviour::Other => format!("on {bytes}, gives {d} where RFC 3629 gives {r}"),
    };
    match category {
        Some(category) => format!("{place}, {what}: {}", category.as_str()),
        // A lossy-only decoder rejects a character by giving U+FFFD in its place.
        None if (behaviour == Behaviour::RejectsWellFormed
            || (behaviour == Behaviour::DropsOutput && replaces_one_for_one(d, r)))
            && noncharacters(family) =>
        {
            format!("{place}, {what}: noncharacters (well-formed, Unicode §23.7)")
        }
        None => format!("{place}, {what}"),
    }
}

/// Where a family shows (its witnesses' contexts, at most [`CONTEXTS`] named) and the
/// bytes it is about.
fn place_and_bytes(family: &[&Difference]) -> (String, Vec<u8>) {
    let mut contexts: Vec<String> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    for d in family {
        let context = &d.witness[..d.witness.len() - 1];
        let name = if context.is_empty() {
            "at a character boundary".to_string()
        } else {
            format!("after `{}`", format_hex(context))
        };
        if !contexts.contains(&name) {
            contexts.push(name);
        }
        bytes.extend(&d.bytes);
    }
    bytes.sort_unstable();
    bytes.dedup();
    let mut place = contexts
        .iter()
        .take(CONTEXTS)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if contexts.len() > CONTEXTS {
        place.push_str(&format!(" and {} more states", contexts.len() - CONTEXTS));
    }
    (place, bytes)
}

/// The title of a family of offset shifts in which every error is put where its bytes
/// end: each difference's error is reported its own length later than RFC 3629
/// (`valid_up_to` is the error's start plus its `error_len`). It holds only over errors
/// of two lengths or more, where no one shift says it; `None` otherwise.
pub fn error_at_its_end(family: &[&Difference]) -> Option<String> {
    let mut lengths = Vec::new();
    for d in family {
        let Strict::Error { len, .. } = d.decoder.strict else {
            return None;
        };
        if super::mechanism::offset_shift(d) != Some(-i16::from(len)) {
            return None;
        }
        lengths.push(len);
    }
    lengths.sort_unstable();
    lengths.dedup();
    let (&shortest, &longest) = (lengths.first()?, lengths.last()?);
    (shortest != longest).then(|| {
        format!(
            "reports each error where its ill-formed bytes end, not where they start: the \
             offset is too large by the error's length ({shortest} to {longest} bytes)"
        )
    })
}

/// Whether every character the family's witnesses complete is a noncharacter (U+FDD0..
/// U+FDEF, and the last two code points of each plane): a decoder that rejects exactly
/// those rejects noncharacters, which are well-formed (Unicode §23.7, "Noncharacters";
/// Corrigendum #9).
fn noncharacters(family: &[&Difference]) -> bool {
    family.iter().all(|d| {
        d.bytes.iter().all(|&byte| {
            let mut input = d.witness[..d.witness.len() - 1].to_vec();
            input.push(byte);
            Reference::rfc3629()
                .decode(&input)
                .scalars
                .last()
                .is_some_and(|&s| taxonomy::is_noncharacter(s))
        })
    })
}

/// The least and greatest offset shift of `family`, when every difference in it is a
/// shift in the same direction.
fn shift(family: &[&Difference]) -> Option<(i16, i16)> {
    let shifts: Option<Vec<i16>> = family
        .iter()
        .map(|d| super::mechanism::offset_shift(d))
        .collect();
    let shifts = shifts?;
    let (low, high) = (*shifts.iter().min()?, *shifts.iter().max()?);
    (low.signum() == high.signum()).then_some((low, high))
}

/// Whether a step appends the scalar of a well-formed character.
fn gives_character(output: super::output::StepOutput) -> bool {
    output
        .lossy
        .is_some_and(|l| l.kinds.contains(&Some(super::output::UnitKind::Scalar)))
}

/// Whether a step gives U+FFFD for each scalar the reference's gives, and takes back
/// as many: a character replaced, not lost among others.
fn replaces_one_for_one(
    decoder: super::output::StepOutput,
    reference: super::output::StepOutput,
) -> bool {
    use super::output::UnitKind;
    let (Some(d), Some(r)) = (decoder.lossy, reference.lossy) else {
        return false;
    };
    let shown = usize::from(d.appended).min(d.kinds.len());
    d.appended > 0
        && d.appended == r.appended
        && d.taken_back == r.taken_back
        && d.kinds[..shown]
            .iter()
            .all(|&kind| kind == Some(UnitKind::Replacement))
}

/// What the decoder's step appends, in words where it takes back and appends as many
/// scalars as the reference's and they are one or two ("another value", "U+FFFD and the
/// value of its bits"), else as the step's output (`-1 +[other] of 3`).
fn appended(decoder: super::output::StepOutput, reference: super::output::StepOutput) -> String {
    use super::output::UnitKind;
    let (Some(d), Some(r)) = (decoder.lossy, reference.lossy) else {
        return lossy(decoder);
    };
    let counted = usize::from(d.appended);
    if counted == 0 {
        return lossy(decoder);
    }
    let words: Option<Vec<&str>> = d.kinds[..counted.min(d.kinds.len())]
        .iter()
        .map(|kind| {
            Some(match (*kind)? {
                UnitKind::Replacement => "U+FFFD",
                UnitKind::Scalar => "the scalar of a well-formed character",
                UnitKind::OwnByte => "its own byte value",
                UnitKind::Bits => "the value of its bits",
                UnitKind::Other => "another value",
            })
        })
        .collect();
    match words {
        Some(words) if words.len() == counted => {
            let words = words.join(" and ");
            // A decoder that takes back what it gave the bytes before (held-open bytes
            // shown provisionally, then joined into one value) says so: the units it
            // appends stand for those bytes too.
            if d.taken_back > r.taken_back {
                let n = d.taken_back;
                format!(
                    "{words} (taking back the {n} unit{} it gave before)",
                    if n == 1 { "" } else { "s" }
                )
            } else {
                words
            }
        }
        _ => lossy(decoder),
    }
}

fn lossy(output: super::output::StepOutput) -> String {
    output
        .lossy
        .map_or_else(|| "nothing".to_string(), |l| l.to_string())
}
