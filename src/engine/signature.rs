//! Signatures: what makes two departures "the same".
//!
//! A run may see the same bug a million times; it should write one report. Two departures
//! are the same when they have the same *signature*: the decoder pair, the primary aspect,
//! the taxonomy categories of the bytes involved, and the coarse shape of the difference
//! (see [`crate::diagnosis::compare::Difference`]). The report id is a stable hash of the signature's
//! canonical text, so the same bug gets the same id in every run, on every machine.
//!
//! Categories come from the reference's error units and the taxonomy (docs/DESIGN.md §2): the
//! units the difference is about, not every unit of the input, so that one bug met in
//! inputs with unrelated errors beside it is still one signature. A decoder that accepts
//! ill-formed input is about every unit it accepted; a wrong `valid_up_to` or `error_len`
//! is about the first unit (or, when the decoder stops early, the well-formed character it
//! stopped at); a wrong lossy decode is about the unit where the two decodes first part
//! (or the unit just before, when a character after it went missing); wrong error units are
//! about the first unit where the lists part. When the reference says the input is
//! well-formed there are no error units, and the category says what the decoder got wrong
//! about good input instead:
//!
//! - `noncharacter-rejected`: it rejected a noncharacter ("Noncharacters [...] are not
//!   illegal in interchange", Unicode §23.7; they are well-formed UTF-8);
//! - `valid-rejected`: it rejected any other well-formed input;
//! - `bom-stripped`: its lossy decode is the reference's without the leading U+FEFF (BOM
//!   sniffing is a wrapper policy, not decoding);
//! - `valid-misdecoded`: it accepted the input but produced other scalars.

use crate::outcome::Outcome;
use crate::reference::Decoded;
use crate::stable_hash::fnv1a64_hex;
use crate::taxonomy::{self, Category};

use crate::aspect::{Aspect, Shape};
use crate::diagnosis::compare::Difference;
use crate::taxonomy::is_noncharacter;

/// The identity of a departure (see the module header).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// The oracle's name (`reference`).
    pub reference: String,
    /// The decoder under test.
    pub decoder: String,
    /// The primary aspect.
    pub aspect: Aspect,
    /// The categories of the bytes involved, sorted and unique.
    pub categories: Vec<Category>,
    /// The shape of the difference.
    pub shape: Shape,
}

impl Signature {
    /// The text that is hashed into the id: one field per line, categories comma-separated.
    pub fn canonical(&self) -> String {
        let categories: Vec<&str> = self.categories.iter().map(|c| c.as_str()).collect();
        format!(
            "utf8conf/divergence/1\n{}\n{}\n{}\n{}\n{}",
            self.reference,
            self.decoder,
            self.aspect,
            categories.join(","),
            self.shape
        )
    }

    /// The stable id: FNV-1a 64 of [`Signature::canonical`], 16 hex digits.
    pub fn id(&self) -> String {
        fnv1a64_hex(self.canonical().as_bytes())
    }
}

/// The categories of a departure with primary difference `difference` on `input`.
///
/// `outcome` is the decoder's outcome, absent when it failed.
pub fn categorize(
    input: &[u8],
    reference: &Decoded,
    outcome: Option<&Outcome>,
    difference: Difference,
) -> Vec<Category> {
    if !reference.is_valid() {
        return categories_of_ill_formed(input, reference, outcome, difference.aspect);
    }
    let Some(outcome) = outcome else {
        return Vec::new();
    };
    let category = match difference.aspect {
        Aspect::Valid => {
            if rejects_a_noncharacter(input, outcome) {
                Category::NoncharacterRejected
            } else {
                Category::ValidRejected
            }
        }
        Aspect::Scalars if difference.shape == Shape::BomStripped => Category::BomStripped,
        Aspect::Scalars if outcome.valid => Category::ValidMisdecoded,
        Aspect::Crash | Aspect::Timeout | Aspect::Protocol => return Vec::new(),
        _ => Category::ValidRejected,
    };
    vec![category]
}

/// The categories of a departure on ill-formed `input`: those of the reference's error
/// units that the difference is about (see the module header).
fn categories_of_ill_formed(
    input: &[u8],
    reference: &Decoded,
    outcome: Option<&Outcome>,
    aspect: Aspect,
) -> Vec<Category> {
    let units: Vec<(usize, usize)> = reference.errors.iter().map(|e| (e.offset, e.len)).collect();
    let first = units[0];
    let Some(outcome) = outcome else {
        return taxonomy::categories_of_units(input, units);
    };
    let relevant = match aspect {
        Aspect::ValidUpTo | Aspect::ErrorLen => match outcome.valid_up_to {
            // Stopped before the first error: it rejected a well-formed character.
            Some(offset) if offset < first.0 => {
                let prefix = std::str::from_utf8(&input[..first.0]).unwrap_or_default();
                let stopped_at = prefix.get(offset..).and_then(|rest| rest.chars().next());
                return vec![
                    if stopped_at.is_some_and(|c| is_noncharacter(u32::from(c))) {
                        Category::NoncharacterRejected
                    } else {
                        Category::ValidRejected
                    },
                ];
            }
            _ => vec![first],
        },
        Aspect::Scalars => match &outcome.scalars {
            Some(scalars) => {
                let parted = scalars
                    .iter()
                    .zip(&reference.scalars)
                    .take_while(|(a, b)| a == b)
                    .count();
                vec![unit_at_or_before(
                    &units,
                    input_offset_of_scalar(reference, parted),
                )]
            }
            None => units,
        },
        Aspect::Errors => match &outcome.errors {
            Some(errors) => {
                let parted = errors
                    .iter()
                    .zip(&units)
                    .position(|(unit, &(offset, len))| (unit.offset, unit.len) != (offset, len))
                    .unwrap_or(errors.len().min(units.len()));
                let offset = errors
                    .get(parted)
                    .map(|unit| unit.offset)
                    .into_iter()
                    .chain(units.get(parted).map(|&(offset, _)| offset))
                    .min()
                    .unwrap_or(input.len());
                vec![unit_at_or_before(&units, offset)]
            }
            None => units,
        },
        // Accepting ill-formed input, or failing on it: about every unit.
        _ => units,
    };
    taxonomy::categories_of_units(input, relevant)
}

/// The input offset where the reference's `index`-th scalar comes from (the input's length
/// past the last one): each scalar is a well-formed character or one error unit's U+FFFD.
fn input_offset_of_scalar(reference: &Decoded, index: usize) -> usize {
    let mut offset = 0;
    let mut units = reference.errors.iter().peekable();
    for &scalar in reference.scalars.iter().take(index) {
        match units.peek() {
            Some(unit) if unit.offset == offset => {
                offset += unit.len;
                units.next();
            }
            _ => offset += char::from_u32(scalar).map_or(1, char::len_utf8),
        }
    }
    offset
}

/// The first error unit that ends after `offset`, or else the last one (the difference
/// lies after every error: a character after the last unit went missing or was added).
fn unit_at_or_before(units: &[(usize, usize)], offset: usize) -> (usize, usize) {
    units
        .iter()
        .copied()
        .find(|&(start, len)| start + len > offset)
        .unwrap_or(units[units.len() - 1])
}

/// Did the decoder reject well-formed `input` because of a noncharacter? When it says
/// where (`valid_up_to`), the character there decides; when it does not, any noncharacter
/// in the input is the suspect (minimisation then keeps only what matters).
fn rejects_a_noncharacter(input: &[u8], outcome: &Outcome) -> bool {
    let Ok(text) = std::str::from_utf8(input) else {
        return false;
    };
    match outcome.valid_up_to {
        Some(offset) => text
            .get(offset..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| is_noncharacter(u32::from(c))),
        None => text.chars().any(|c| is_noncharacter(u32::from(c))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Reference;

    #[test]
    fn ill_formed_categories_are_those_of_the_units_the_difference_is_about() {
        let reference = Reference::rfc3629();
        let scalars = |input: &[u8], scalars: Vec<u32>| {
            let mut outcome = reference.outcome("d", input);
            outcome.scalars = Some(scalars);
            outcome
        };
        let at = |aspect| Difference {
            aspect,
            shape: Shape::OtherScalars,
        };
        // A per-byte U+FFFD policy on `E4 BD` after an unrelated `C0`: truncated-at-end only.
        let input = [0xC0, 0x41, 0xE4, 0xBD];
        let per_byte = scalars(&input, vec![0xFFFD, 0x41, 0xFFFD, 0xFFFD]);
        assert_eq!(
            categorize(
                &input,
                &reference.decode(&input),
                Some(&per_byte),
                at(Aspect::Scalars)
            ),
            vec![Category::TruncatedAtEnd]
        );
        // A character swallowed after an error: the error before it.
        let input = [0x41, 0xC0, 0xE1, 0x80, 0x80];
        let swallowed = scalars(&input, vec![0x41, 0xFFFD]);
        assert_eq!(
            categorize(
                &input,
                &reference.decode(&input),
                Some(&swallowed),
                at(Aspect::Scalars)
            ),
            vec![Category::InvalidLead]
        );
        // A wrong error_len is about the first unit only.
        let input = [0xED, 0xA0, 0x80, 0x80, 0xFF];
        let mut wrong_len = reference.outcome("d", &input);
        wrong_len.error_len = Some(crate::outcome::ErrorLen::Invalid(3));
        assert_eq!(
            categorize(
                &input,
                &reference.decode(&input),
                Some(&wrong_len),
                at(Aspect::ErrorLen)
            ),
            vec![Category::Surrogate]
        );
        // Stopping before the first error rejects a well-formed character.
        let input = [0xEF, 0xBF, 0xBE, 0xFF];
        let mut early = reference.outcome("d", &input);
        early.valid_up_to = Some(0);
        assert_eq!(
            categorize(
                &input,
                &reference.decode(&input),
                Some(&early),
                at(Aspect::ValidUpTo)
            ),
            vec![Category::NoncharacterRejected]
        );
        // Accepting ill-formed input is about every unit accepted.
        let input = [0xC0, 0x80, 0xED, 0xA0, 0x80];
        let accepted = Outcome::verdict("d", true);
        assert_eq!(
            categorize(
                &input,
                &reference.decode(&input),
                Some(&accepted),
                at(Aspect::Valid)
            ),
            vec![Category::Overlong2, Category::Surrogate]
        );
    }

    #[test]
    fn ids_are_stable_and_depend_on_every_field() {
        let signature = Signature {
            reference: "reference".into(),
            decoder: "mutant-cesu8".into(),
            aspect: Aspect::Valid,
            categories: vec![Category::Cesu8Pair],
            shape: Shape::AcceptsIllFormed,
        };
        // The id is part of the report contract: it must never change for this signature.
        assert_eq!(
            signature.canonical(),
            "utf8conf/divergence/1\nreference\nmutant-cesu8\nvalid\ncesu8-pair\naccepts-ill-formed"
        );
        assert_eq!(
            signature.id(),
            fnv1a64_hex(signature.canonical().as_bytes())
        );
        let mut other = signature.clone();
        other.shape = Shape::RejectsWellFormed;
        assert_ne!(signature.id(), other.id());
    }

    #[test]
    fn well_formed_inputs_get_the_well_formed_categories() {
        let reference = Reference::rfc3629();
        let reject = Difference {
            aspect: Aspect::Valid,
            shape: Shape::RejectsWellFormed,
        };
        let nonchar = "a\u{FFFE}".as_bytes();
        let outcome = Outcome::from_strict("x", Some((1, crate::outcome::ErrorLen::Invalid(3))));
        assert_eq!(
            categorize(nonchar, &reference.decode(nonchar), Some(&outcome), reject),
            vec![Category::NoncharacterRejected]
        );
        let plain = "ab".as_bytes();
        assert_eq!(
            categorize(plain, &reference.decode(plain), Some(&outcome), reject),
            vec![Category::ValidRejected]
        );
        let mut accepted = Outcome::verdict("x", true);
        accepted.scalars = Some(vec![0x41]);
        let scalars = Difference {
            aspect: Aspect::Scalars,
            shape: Shape::OtherScalars,
        };
        assert_eq!(
            categorize(plain, &reference.decode(plain), Some(&accepted), scalars),
            vec![Category::ValidMisdecoded]
        );
    }
}
