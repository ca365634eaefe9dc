//! Learning a decoder's machine within a budget, for every command that grades through
//! the model (`check`, `run`, `exhaustive`): one budget type, one place that contains an
//! in-process decoder's panics while the learner asks it.

use std::time::{Duration, Instant};

use crate::decoders::Decoder;
use crate::model::learner::Limits;
use crate::model::ModelReport;

use super::contain::Contained;

/// What learning one decoder's machine may cost.
#[derive(Debug, Clone, Copy)]
pub struct ModelBudget {
    /// Most inputs decoded while learning.
    pub max_decodes: u64,
    /// Most wall-clock time spent learning.
    pub max_time: Duration,
}

impl Default for ModelBudget {
    /// A correct decoder's machine takes some 94,000 decodes (under 2 s through
    /// Python's pipe, in batches), a buggy one's up to 250,000 (docs/MODEL.md), and
    /// Perl's strict and lax Encode 690,000 and 750,000 (76 and 78 states, about 12 s
    /// through its pipe): these bounds let those finish, and stop a machine that grows
    /// like a counter so that the grading falls back to the rule-based diagnosis in
    /// bounded time.
    fn default() -> Self {
        ModelBudget {
            max_decodes: 1_000_000,
            max_time: Duration::from_secs(30),
        }
    }
}

/// Learns `decoder`'s machine within `budget`, and by `deadline` when there is one;
/// `None` when the grammar's machine cannot be built. A machine whose budget ran out is
/// returned marked incomplete: it then explains nothing ([`super::model::with_model`]).
pub fn learn(
    decoder: &dyn Decoder,
    budget: ModelBudget,
    deadline: Option<Instant>,
) -> Option<ModelReport> {
    let own = Instant::now() + budget.max_time;
    let limits = Limits {
        max_decodes: budget.max_decodes,
        deadline: Some(deadline.map_or(own, |d| d.min(own))),
        ..Limits::default()
    };
    // The learner asks its decoder directly: an in-process panic must be contained there.
    crate::model::model_report(&Contained(decoder), limits).ok()
}
