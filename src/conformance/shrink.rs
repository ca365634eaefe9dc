//! Shrinking a check's departures: a departure first seen on a long input is minimised
//! with the grading core's batched minimiser ([`crate::diagnosis::minimize`]), keeping
//! its aspect and categories (which may narrow to a subset); groups that become equal
//! are merged.

use std::collections::BTreeMap;

use super::grade::{evaluate, Departure, ReferenceView};
use super::{CheckRun, DepartureGroup, Example, Subject, MINIMISE_BUDGET, SHOWN_WITHOUT_SHRINKING};
use crate::adapter::Stop;
use crate::aspect::Aspect;
use crate::diagnosis::minimize::minimize_batched;
use crate::outcome::Answer;

/// Shrinks the departures whose smallest input is long, keeping aspect and categories
/// (the categories may narrow to a subset), then merges groups that became equal.
pub(super) fn shrink_departures(subject: Subject<'_>, run: &mut CheckRun) -> Result<(), Stop> {
    let mut merged: BTreeMap<Departure, DepartureGroup> = BTreeMap::new();
    let groups = std::mem::take(&mut run.departures);
    for (departure, mut group) in groups {
        let mut departure = departure;
        let worth_shrinking =
            group.smallest.bytes.len() > SHOWN_WITHOUT_SHRINKING || departure.categories.len() > 1;
        if worth_shrinking && departure.aspect != Aspect::Timeout {
            let mut adapter_error = None;
            let shrunk = minimize_batched(&group.smallest.bytes, MINIMISE_BUDGET, |candidates| {
                let slices: Vec<&[u8]> = candidates.iter().map(Vec::as_slice).collect();
                match subject.decode_batch(&slices).complete() {
                    Ok(answers) => candidates
                        .iter()
                        .zip(answers)
                        .map(|(candidate, answer)| {
                            shows_departure(candidate, &answer, &departure).is_some()
                        })
                        .collect(),
                    Err(error) => {
                        adapter_error = Some(error);
                        vec![false; candidates.len()]
                    }
                }
            })
            .bytes;
            if let Some(error) = adapter_error {
                return Err(error);
            }
            if shrunk.len() < group.smallest.bytes.len() {
                let answer = subject
                    .decode_batch(&[shrunk.as_slice()])
                    .complete()?
                    .pop()
                    .expect("one answer per input");
                if let Some(narrowed) = shows_departure(&shrunk, &answer, &departure) {
                    departure = narrowed;
                    group.smallest = Example {
                        bytes: shrunk,
                        origin: group.smallest.origin.clone(),
                        answer,
                    };
                    group.minimised = true;
                }
            }
        }
        match merged.get_mut(&departure) {
            Some(existing) => {
                existing.count += group.count;
                if group.smallest.is_smaller_than(&existing.smallest) {
                    existing.smallest = group.smallest;
                    existing.minimised = group.minimised;
                }
            }
            None => {
                merged.insert(departure, group);
            }
        }
    }
    run.departures = merged;
    Ok(())
}

/// The departure of the same aspect that `answer` to `candidate` shows, if its categories
/// are a non-empty subset of `wanted`'s.
fn shows_departure(candidate: &[u8], answer: &Answer, wanted: &Departure) -> Option<Departure> {
    let reference = ReferenceView::of(candidate);
    evaluate(candidate, &reference, answer)
        .departures
        .into_iter()
        .find(|d| {
            d.aspect == wanted.aspect
                && !d.categories.is_empty()
                && d.categories.iter().all(|c| wanted.categories.contains(c))
        })
}
