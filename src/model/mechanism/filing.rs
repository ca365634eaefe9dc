//! Where each difference that no chosen hypothesis holds as its own is filed: as a
//! manifestation of the finding it follows from, or as a bug behind another bug.
//!
//! A difference is reached through the departure its witness last takes before its
//! own step. It is a manifestation of that departure's finding when a chosen hypothesis
//! gives the decoder's outputs on it, or when it follows from the departure
//! ([`consequences`](super::consequence::consequences)), unless the decoder gives
//! ill-formed bytes of another kind a value of its own (a check it lacks) or rejects a
//! well-formed input. Otherwise it is a bug behind the other one: one finding per kind
//! of bytes.

use super::behaviour::behaviour;
use super::consequence::{gives_a_value, value_kinds};
use super::family::{kind, leaves_out_a_replacement};
use super::place::same_place;
use super::{finding, offset_shift, Behaviour, Candidate, Finding, Group, Mechanism};
use crate::model::conventions::Convention;
use crate::model::difference::Difference;
use crate::model::output::{Strict, UnitKind};
use crate::model::title;
use crate::taxonomy::Category;

/// What is known of each difference where it is reached, by index.
#[derive(Clone, Copy)]
pub(super) struct Reached<'a> {
    /// It follows from the departure it is reached through.
    pub follows: &'a [bool],
    /// Its witness first departs by rejecting well-formed bytes.
    pub after_rejection: &'a [bool],
    /// The category of the bytes the decoder gives a value at its last step, as the
    /// decoder reads them.
    pub valued: &'a [Option<Category>],
    /// The decoder takes its last byte as a continuation byte.
    pub taken: &'a [bool],
    /// The decoder takes a byte before its last as a continuation byte.
    pub after_taken: &'a [bool],
}

/// Files every difference that is not primary into `findings` (one per group first).
pub(super) fn file(
    differences: &[Difference],
    groups: &[Group],
    candidates: &[Candidate],
    origins: &[Option<usize>],
    reached: &Reached<'_>,
    findings: &mut Vec<Finding>,
) {
    // For each difference: whether it follows from the departure it is reached through,
    // whether its witness first departs by rejecting well-formed bytes, and the category
    // of the bytes the decoder gives a value to at its last step.
    let Reached {
        follows: consequences,
        after_rejection,
        valued: valued_categories,
        taken: consumed,
        ..
    } = *reached;
    // Where each difference is filed: the finding explaining it (a primary one), or the
    // finding of the departure it is reached through.
    let mut home_of: Vec<Option<usize>> = (0..differences.len())
        .map(|i| groups.iter().position(|g| g.explained.contains(&i)))
        .collect();
    let mut behind: Vec<(BehindKey, usize)> = Vec::new();
    for (index, origin) in origins.iter().enumerate() {
        if differences[index].primary {
            continue;
        }
        let d = &differences[index];
        let home = origin.and_then(|o| home_of[o]);
        let previous = origin.map(|o| &differences[o]);
        let valued = gives_a_value(d, previous);
        let valued_kind = kind(valued_categories[index]);
        let filed = filed_at(
            differences,
            groups,
            candidates,
            findings,
            (index, home, previous),
            (
                consequences[index],
                valued,
                valued_kind,
                after_rejection[index],
            ),
        );
        let filed = match taking_in(groups, reached, (index, home, filed), (valued, valued_kind)) {
            Some(taken) => taken,
            None => filed.or_else(|| {
                valued
                    .then(|| family_of_value(d, valued_kind, groups, findings))
                    .flatten()
            }),
        };
        match filed {
            Some(home) => {
                findings[home].manifestations.push(index);
                home_of[index] = Some(home);
            }
            None => {
                let key = if consumed[index] {
                    (None, Some(Category::TruncatedInterrupted), true)
                } else if valued {
                    (None, valued_kind, false)
                } else {
                    behind_key(d)
                };
                // A bug behind another bug: what the decoder does after the first
                // departure that the reference does nowhere, one finding per kind of
                // bytes (or one for an error offset shifted wherever it shows, as for
                // the families).
                let at = match behind.iter().find(|(k, _)| *k == key) {
                    Some(&(_, at)) => at,
                    None => {
                        let mut finding = finding(differences, Mechanism::Transition, index, &[]);
                        finding.differences.clear();
                        findings.push(finding);
                        behind.push((key, findings.len() - 1));
                        findings.len() - 1
                    }
                };
                findings[at].differences.push(index);
                home_of[index] = Some(at);
            }
        }
    }
    title_behind(differences, &behind, findings);
    absorb_into_behind(differences, findings, groups.len());
}

/// Titles each bug behind another (`behind`: the findings' indices) from all of its
/// differences, witnessed by the shortest.
fn title_behind(
    differences: &[Difference],
    behind: &[(BehindKey, usize)],
    findings: &mut [Finding],
) {
    for &(_, at) in behind {
        let members = std::mem::take(&mut findings[at].differences);
        let manifestations = std::mem::take(&mut findings[at].manifestations);
        // Of the shortest, one where the reference has no character at the last step:
        // `ED A0 80` decoded to a surrogate shows the missing check alone, `ED A0 41`
        // with the letter swallowed as well.
        let swallows = |i: usize| {
            differences[i]
                .reference
                .lossy
                .is_some_and(|l| l.kinds.contains(&Some(UnitKind::Scalar)))
        };
        let witness = members
            .iter()
            .copied()
            .min_by_key(|&i| (differences[i].witness.len(), swallows(i), i))
            .unwrap_or(members[0]);
        findings[at] = finding(differences, Mechanism::Transition, witness, &members);
        findings[at].differences = members;
        findings[at].manifestations = manifestations;
    }
}

/// The family a value given behind another bug belongs to: one about bytes of the
/// value's kind with the value's change of behaviour, whose check is missing there too
/// (a 4-byte overlong form accepted behind an error at its lead byte, beside the family
/// of 2-byte ones). Behind the decoder's own settled error only the scalars can show an
/// acceptance: a value given there is what the family accepting those bytes does.
fn family_of_value(
    d: &Difference,
    valued_kind: Option<Category>,
    groups: &[Group],
    findings: &[Finding],
) -> Option<usize> {
    let own = behaviour(d.reference, d.decoder);
    let settled = d.decoder.strict == Strict::Settled;
    // Whether the reference had its scalar or U+FFFD there is the reference's business:
    // the decoder gave the bytes a value either way.
    let gives = |b: Behaviour| matches!(b, Behaviour::DecodesIllFormed | Behaviour::Misdecodes);
    (0..groups.len()).find(|&h| {
        let theirs = findings[h].behaviour;
        groups[h].mechanism == Mechanism::Transition
            && kind(findings[h].category) == valued_kind
            && (theirs == own
                || (gives(own) && gives(theirs))
                || (settled && theirs == Behaviour::AcceptsIllFormed))
    })
}

/// The finding a difference that is not primary is a manifestation of, or `None` for a bug
/// behind another bug. `at` is the difference's index, the finding of the departure it is
/// reached through (its home) and that departure; `seen` says whether it follows from that
/// departure, whether the decoder gives its bytes a value ([`gives_a_value`]) and the
/// kind of bytes given one.
fn filed_at(
    differences: &[Difference],
    groups: &[Group],
    candidates: &[Candidate],
    findings: &[Finding],
    at: (usize, Option<usize>, Option<&Difference>),
    seen: (bool, bool, Option<Category>, bool),
) -> Option<usize> {
    let (index, home, previous) = at;
    let (follows, valued, valued_kind, after_rejection) = seen;
    let d = &differences[index];
    let explains = |h: usize| {
        groups
            .get(h)
            .is_some_and(|g| g.candidate.is_some_and(|c| candidates[c].explains[index]))
    };
    // The finding whose hypothesis gives the decoder's outputs on the witness: the
    // home's, else a chosen convention's (a Latin-1 fallback's byte after a bug
    // behind which it shows). A family that gives bytes no value (it drops them) does
    // not explain a value given to bytes of another kind: a decoder that deletes
    // ill-formed bytes and decodes `ED A0 80` to U+D800 has shown nothing for `ED A0`,
    // as its deletion would, but the value is a missing check of its own.
    let drops_other_bytes = |h: usize| {
        valued
            && findings[h].behaviour == Behaviour::DropsOutput
            && kind(findings[h].category) != valued_kind
    };
    let explained_by = home
        .filter(|&h| explains(h) && !drops_other_bytes(h))
        .or_else(|| {
            (0..groups.len())
                .find(|&h| matches!(groups[h].mechanism, Mechanism::Convention(_)) && explains(h))
        });
    let explained_by =
        explained_by.or_else(|| convention_of_the_outputs(differences, groups, d, valued));
    // A decoder that gives ill-formed bytes a value of its own (or accepts them) does
    // so because it lacks a check, not because of an earlier departure on bytes of
    // another kind: that is a bug behind the earlier one.
    let own_check = valued && home.is_some_and(|h| kind(findings[h].category) != valued_kind);
    // An error reported further back or further on than the same error in the reference,
    // behind a departure that moved no error, is an offset counted wrong, not what that
    // departure does: a byte order mark dropped alone leaves every later offset where it
    // was, and one counted from after the mark is a fault of its own.
    let miscounted = offset_shift(d).is_some()
        && home.is_some_and(|h| findings[h].behaviour != Behaviour::ErrorSpan);
    let own_check = own_check || miscounted;
    // A well-formed input rejected is reported whatever came before it, unless the
    // departure it is reached through, or the first one on its witness, rejected
    // well-formed bytes too (the same rejection going on): how a decoder reported the
    // input's incomplete prefix does not make it reject the character that completes it.
    let rejects = title::category(&d.witness).is_none()
        && behaviour(d.reference, d.decoder) == Behaviour::RejectsWellFormed
        && previous.is_none_or(|p| p.reference.strict != Strict::Valid)
        && !after_rejection;
    // Bytes the decoder held open at the departure just before, then given a value of
    // the kind its home is about: the acceptance that wait was the first sign of (a
    // decoder without the `F4 %x80-8F` check waits at `F4 90` and accepts
    // `F4 90 80 80`), the same bug even where the decoder's machine reaches that
    // acceptance through a state it shares with another path (`F0 80 80`, when it lacks
    // the overlong check too).
    let completes_a_wait = valued
        && previous
            .is_some_and(|p| p.decoder.strict == Strict::Incomplete || leaves_out_a_replacement(p))
        && home.is_some_and(|h| kind(findings[h].category) == valued_kind);
    match (explained_by, home) {
        (Some(there), _) => Some(there),
        (None, Some(home)) if (follows && !own_check && !rejects) || completes_a_wait => Some(home),
        // Else a family doing the very same thing there, or one whose change shows at
        // the same place (a character swallowed after a lead byte, behind an overlong
        // form accepted before it), unless the decoder gives the bytes a value or
        // rejects a well-formed input there: those are checks of their own.
        _ => doing_the_same(differences, groups, &explains, index).or_else(|| {
            (!valued && !rejects)
                .then(|| {
                    (0..groups.len())
                        .find(|&h| groups[h].mechanism == Mechanism::Transition && explains(h))
                })
                .flatten()
        }),
    }
}

/// A chosen family at whose place the decoder does the very same thing as at one of the
/// family's own differences (a Latin-1 reading of a byte that follows a sequence taken
/// unchecked, where the reference may be in the middle of a sequence of its own): the
/// family going on there, where the departure difference `index` is reached through
/// does not account for it.
/// `explains` says whether a group's hypothesis explains that difference.
fn doing_the_same(
    differences: &[Difference],
    groups: &[Group],
    explains: &dyn Fn(usize) -> bool,
    index: usize,
) -> Option<usize> {
    (0..groups.len()).find(|&h| {
        groups[h].mechanism == Mechanism::Transition
            && explains(h)
            && groups[h]
                .explained
                .iter()
                .any(|&i| differences[i].decoder == differences[index].decoder)
    })
}

/// What groups bugs behind another bug: an offset shift's sign, or the kind of bytes,
/// and whether a byte is taken as a continuation byte.
type BehindKey = (Option<i16>, Option<Category>, bool);

fn behind_key(d: &Difference) -> BehindKey {
    match offset_shift(d) {
        Some(shift) => (Some(shift.signum()), None, false),
        None => (None, kind(title::category(&d.witness)), false),
    }
}

/// Where difference `index` goes when a byte taken in as a continuation byte accounts for
/// it (`Some` of where it goes, `None` when none does): `filed` is where it would go
/// otherwise, `home` the finding of the departure it is reached through, and `valued`
/// whether the decoder gives its bytes a value, of which kind of bytes as it reads them.
fn taking_in(
    groups: &[Group],
    reached: &Reached<'_>,
    (index, home, filed): (usize, Option<usize>, Option<usize>),
    (valued, valued_kind): (bool, Option<Category>),
) -> Option<Option<usize>> {
    let after_taken = reached.after_taken[index];
    // A byte taken as a continuation byte behind another bug is the same missing check
    // as where it shows first: that family's, or one bug behind. A character lost behind
    // a byte taken in (`C2 F0 9F BF BD`: the lead `F0` taken into `C2`'s sequence, and
    // the character it began lost) is that taking's doing too.
    if reached.taken[index] || (after_taken && !valued && filed.is_none()) {
        return Some(consuming_family(groups, reached.taken).or(filed));
    }
    // A value that is a well-formed character as the decoder reads the bytes, reached
    // through a byte it took in, is what taking it gives.
    (valued && valued_kind.is_none() && after_taken && home.is_some()).then_some(home)
}

/// The chosen family of bytes taken as continuation bytes, if one is.
fn consuming_family(groups: &[Group], consumed: &[bool]) -> Option<usize> {
    groups
        .iter()
        .position(|g| g.mechanism == Mechanism::Transition && consumed[g.witness])
}

/// Moves a transition family (one of the first `families_end` findings) into a bug behind
/// another bug (the findings after them) when every one of its differences is at the
/// place of one of that bug's (see [`same_place`]): the same rejection of `F0 BF BF BF`
/// shows at the start of an input behind an earlier departure (there, a bug behind it)
/// and after a stray `80` through agreeing transitions (there, a family of its own).
fn absorb_into_behind(
    differences: &[Difference],
    findings: &mut Vec<Finding>,
    families_end: usize,
) {
    let mut absorbed = vec![false; findings.len()];
    for family in 0..families_end {
        if findings[family].mechanism != Mechanism::Transition {
            continue;
        }
        let into = (families_end..findings.len()).find(|&bug| {
            findings[family].differences.iter().all(|&i| {
                findings[bug]
                    .differences
                    .iter()
                    .any(|&b| same_place(&differences[b], &differences[i], false))
            })
        });
        if let Some(bug) = into {
            let moved = std::mem::take(&mut findings[family].differences);
            let also = std::mem::take(&mut findings[family].manifestations);
            findings[bug]
                .manifestations
                .extend(moved.into_iter().chain(also));
            absorbed[family] = true;
        }
    }
    let mut index = 0;
    findings.retain(|_| {
        index += 1;
        !absorbed[index - 1]
    });
}

/// A chosen convention that accounts for a difference's outputs where no hypothesis
/// gives them: stopping at the first error, or the values the convention gives.
fn convention_of_the_outputs(
    differences: &[Difference],
    groups: &[Group],
    d: &Difference,
    valued: bool,
) -> Option<usize> {
    // A decoder that stops at its first error appends nothing once it has reported one,
    // whichever departure that error was (a well-formed character rejected, then a
    // truncated sequence after it that the reference would replace).
    let stopped = d.decoder.strict == Strict::Settled
        && d.decoder
            .lossy
            .is_some_and(|l| l.appended == 0 && l.taken_back == 0);
    let stop = Mechanism::Convention(Convention::StopsAtFirstError);
    let stopped_by = stopped
        .then(|| (0..groups.len()).find(|&h| groups[h].mechanism == stop))
        .flatten();
    // Values a chosen convention gives (a Latin-1 fallback's bytes as their own
    // values) are that convention's wherever they show, also behind another bug.
    stopped_by.or_else(|| {
        let kinds = value_kinds(d.decoder);
        (valued && !kinds.is_empty())
            .then(|| {
                (0..groups.len()).find(|&h| {
                    matches!(groups[h].mechanism, Mechanism::Convention(_))
                        && kinds.iter().all(|k| {
                            groups[h]
                                .explained
                                .iter()
                                .any(|&i| value_kinds(differences[i].decoder).contains(k))
                        })
                })
            })
            .flatten()
    })
}
