//! Comparison of one decoder's outcome with the reference's, minimisation, classification and
//! the divergence report (DESIGN.md §3.4), as the fuzz targets need them.
//!
//! This is the fuzz side's stand-in for the differential engine (`src/engine`,
//! `src/report`): it compares the same outcome fields, names the same taxonomy categories and
//! writes the same report fields, so that a fuzz finding reads like a finding of the main
//! job. When the engine is available in the library, the targets call it instead and this
//! module goes.
//!
//! Rules, in the order they are applied:
//! - Fields are compared only where both decoders report them ([`Capabilities`]); error
//!   units are compared by offset and length (a category is the harness's opinion, not the
//!   decoder's).
//! - The *aspect* is the first differing field in the order `valid`, `valid_up_to`,
//!   `error_len`, `scalars`, `errors`.
//! - The *categories* are those of the reference's error units that the other decoder does
//!   not report the same way; on well-formed input they say how the decoder mishandled it
//!   (`valid-rejected`, `noncharacter-rejected`, `bom-stripped`, `valid-misdecoded`).
//! - The *signature* is a stable hash of the decoder pair, the aspect and the categories: the
//!   same bug found through a thousand inputs has one signature, hence one report.

use utf8conf::corpus::Origin;
use utf8conf::decoders::Capabilities;
use utf8conf::hex::format_hex;
use utf8conf::outcome::{ErrorUnit, Outcome};
use utf8conf::reference::Reference;
use utf8conf::taxonomy::{self, Category};

/// The report schema name (DESIGN.md §3.4).
pub const SCHEMA: &str = "utf8conf/divergence/1";

/// One difference between a decoder and the reference on one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// The reference's outcome.
    pub reference: Outcome,
    /// The other decoder's outcome.
    pub other: Outcome,
    /// The first differing field.
    pub aspect: &'static str,
    /// The taxonomy categories of the bytes the difference is about.
    pub categories: Vec<Category>,
}

impl Divergence {
    /// The stable signature: a hash of the decoder pair, the aspect and the categories.
    pub fn signature(&self) -> String {
        let mut key = format!(
            "{}|{}|{}",
            self.reference.decoder, self.other.decoder, self.aspect
        );
        for category in &self.categories {
            key.push('|');
            key.push_str(category.as_str());
        }
        format!("{:016x}", fnv1a_64(key.as_bytes()))
    }
}

/// FNV-1a, 64-bit: stable across runs, platforms and compiler versions (unlike
/// `std::hash`), which a signature must be.
fn fnv1a_64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// The reference's outcome for `input`.
pub fn reference_outcome(input: &[u8]) -> Outcome {
    Reference::rfc3629().outcome("reference", input)
}

fn unit_positions(errors: &[ErrorUnit]) -> Vec<(usize, usize)> {
    errors.iter().map(|unit| (unit.offset, unit.len)).collect()
}

/// Compares `other` with the reference outcome on `input`, field by field where `other`
/// reports the field, and classifies the first difference.
pub fn compare(
    input: &[u8],
    reference: &Outcome,
    other: &Outcome,
    capabilities: Capabilities,
) -> Option<Divergence> {
    let reference_units = unit_positions(reference.errors.as_deref().unwrap_or_default());
    let other_units = other.errors.as_deref().map(unit_positions);
    let aspect = if reference.valid != other.valid {
        "valid"
    } else if capabilities.valid_up_to && reference.valid_up_to != other.valid_up_to {
        "valid_up_to"
    } else if capabilities.error_len && reference.error_len != other.error_len {
        "error_len"
    } else if capabilities.scalars && other.scalars.is_some() && reference.scalars != other.scalars
    {
        "scalars"
    } else if capabilities.errors
        && other_units
            .as_ref()
            .is_some_and(|units| *units != reference_units)
    {
        "errors"
    } else {
        return None;
    };
    Some(Divergence {
        categories: categories(input, reference, other, &reference_units, other_units),
        reference: reference.clone(),
        other: other.clone(),
        aspect,
    })
}

/// The categories of a difference (see the module header).
fn categories(
    input: &[u8],
    reference: &Outcome,
    other: &Outcome,
    reference_units: &[(usize, usize)],
    other_units: Option<Vec<(usize, usize)>>,
) -> Vec<Category> {
    if reference.valid {
        return vec![well_formed_mishandling(input, reference, other)];
    }
    // The reference's units that the other decoder did not report the same way; if it
    // reports no units, those from its first error on (or all, if it reports none).
    let disputed: Vec<(usize, usize)> = match other_units {
        Some(units) => reference_units
            .iter()
            .filter(|unit| !units.contains(unit))
            .copied()
            .collect(),
        None => {
            let from = other.valid_up_to.unwrap_or(0);
            reference_units
                .iter()
                .filter(|unit| unit.0 >= from)
                .copied()
                .collect()
        }
    };
    let units = if disputed.is_empty() {
        reference_units
    } else {
        &disputed[..]
    };
    // The first disputed unit names the bug; later ones are usually its consequences.
    let first = units.iter().take(1).copied();
    let categories = taxonomy::categories_of_units(input, first);
    if categories.is_empty() {
        taxonomy::categories_of_units(input, units.iter().copied())
    } else {
        categories
    }
}

/// How a decoder mishandled well-formed input.
fn well_formed_mishandling(input: &[u8], reference: &Outcome, other: &Outcome) -> Category {
    const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
    let reference_scalars = reference.scalars.as_deref().unwrap_or_default();
    if let Some(scalars) = &other.scalars {
        if input.starts_with(&BOM) && scalars[..] == reference_scalars[1..] {
            return Category::BomStripped;
        }
    }
    if !other.valid {
        let at = other.valid_up_to.unwrap_or(0);
        // The scalar starting at the offset the decoder stopped at.
        let rejected = std::str::from_utf8(input)
            .ok()
            .and_then(|text| text.get(at..))
            .and_then(|rest| rest.chars().next());
        return match rejected {
            Some(c) if is_noncharacter(u32::from(c)) => Category::NoncharacterRejected,
            _ => Category::ValidRejected,
        };
    }
    Category::ValidMisdecoded
}

/// Unicode noncharacters: U+FDD0..U+FDEF and the last two code points of every plane.
pub fn is_noncharacter(scalar: u32) -> bool {
    (0xFDD0..=0xFDEF).contains(&scalar) || scalar & 0xFFFE == 0xFFFE
}

/// Shrinks `input` while `still_fails` holds: removes halves, quarters, ... down to single
/// bytes, keeping every removal after which the failure remains (a greedy delta debugging).
/// The result is 1-minimal: removing any one byte makes the failure go away.
pub fn minimize(input: &[u8], mut still_fails: impl FnMut(&[u8]) -> bool) -> Vec<u8> {
    let mut current = input.to_vec();
    let mut chunk = current.len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        let mut removed_any = false;
        while start < current.len() {
            let end = (start + chunk).min(current.len());
            let mut candidate = Vec::with_capacity(current.len() - (end - start));
            candidate.extend_from_slice(&current[..start]);
            candidate.extend_from_slice(&current[end..]);
            if still_fails(&candidate) {
                current = candidate;
                removed_any = true;
            } else {
                start += chunk;
            }
        }
        if chunk == 1 && !removed_any {
            return current;
        }
        if !removed_any {
            chunk = (chunk / 2).max(1);
        }
    }
}

/// Everything a divergence report holds beyond the divergence itself.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The divergence on the input as found.
    pub divergence: Divergence,
    /// The bytes decoded when it was found.
    pub input: Vec<u8>,
    /// The smallest input found with the same signature.
    pub minimized: Vec<u8>,
    /// The raw fuzz input that led to it (for targets that decode it into something else).
    pub fuzz_input: Vec<u8>,
    /// Target-specific conditions needed to reproduce (chunk sizes, alignment offset).
    pub conditions: Option<String>,
    /// Where the input came from.
    pub origin: Origin,
    /// A command that reproduces the finding.
    pub reproduce: String,
}

impl Finding {
    /// The reference's explanation of the first disputed error unit of the minimised input,
    /// in terms of the ABNF rule that failed.
    pub fn explanation(&self) -> String {
        let reference = Reference::rfc3629();
        let decoded = reference.decode(&self.minimized);
        let categories = &self.divergence.categories;
        let error = decoded
            .errors
            .iter()
            .find(|error| {
                taxonomy::category_at(&self.minimized, error.offset)
                    .is_some_and(|category| categories.contains(&category))
            })
            .or(decoded.errors.first());
        match error {
            Some(error) => reference.explain(&self.minimized, error),
            None => format!(
                "{} = *( {} ) matches all {} bytes: the input is well-formed",
                reference.sequence_rule(),
                reference.char_rule(),
                self.minimized.len()
            ),
        }
    }

    /// The divergence report as JSON (DESIGN.md §3.4).
    pub fn report_json(&self) -> serde_json::Value {
        let divergence = &self.divergence;
        let mut outcomes = serde_json::Map::new();
        for outcome in [&divergence.reference, &divergence.other] {
            outcomes.insert(
                outcome.decoder.clone(),
                serde_json::to_value(outcome).expect("an Outcome always serialises"),
            );
        }
        let mut report = serde_json::json!({
            "schema": SCHEMA,
            "id": divergence.signature(),
            "decoders": [divergence.reference.decoder, divergence.other.decoder],
            "aspect": divergence.aspect,
            "categories": divergence.categories,
            "input_hex": format_hex(&self.input),
            "minimized_hex": format_hex(&self.minimized),
            "outcomes": outcomes,
            "explanation": self.explanation(),
            "origin": self.origin,
            "reproduce": self.reproduce,
            "fuzz_input_hex": format_hex(&self.fuzz_input),
        });
        if let Some(conditions) = &self.conditions {
            report["conditions"] = serde_json::Value::String(conditions.clone());
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimize_keeps_only_what_the_failure_needs() {
        let input = b"abc\xF4\x90\x80\x80xyz".to_vec();
        let minimized = minimize(&input, |candidate| {
            candidate.windows(2).any(|pair| pair == [0xF4, 0x90])
        });
        assert_eq!(minimized, [0xF4, 0x90]);
    }
}
