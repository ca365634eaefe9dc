//! Filing a plain-bytes target's departures through the decoder's learned machine, the
//! way `utf8conf run` and `check` file theirs ([`utf8conf::engine::model`]).
//!
//! The first time a decoder departs, its machine is learned in process (once per process
//! and decoder: a second or two for a decoder with a handful of states), and from then on
//! each departure is filed under the mechanism of the machine that explains it: the
//! report of that mechanism, with its generated title and its shortest witness. One bug
//! that libFuzzer meets under ever new incidental bytes around it is then one report,
//! the one `utf8conf run` writes for it, and its id names the mechanism rather than the
//! signature of whichever input came first. A departure the machine does not explain
//! (its behaviour depends on position or length) keeps the engine's report, named by
//! its signature.
//!
//! Only departures found without a condition are filed this way: a chunk plan
//! (`streaming`) or an alignment offset (`backends`) is a condition beyond the machine,
//! whose report says under which condition the decoder departed.
//!
//! `UTF8CONF_FUZZ_MODEL=0` turns learning off: every report is then named by signature.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use utf8conf::decoders::Decoder;
use utf8conf::diagnosis::learn::{learn, ModelBudget};
use utf8conf::engine::finding_report::FindingReport;
use utf8conf::engine::model::{file_one, learned_model, Filing};
use utf8conf::engine::summary::LearnedModel;
use utf8conf::model::ModelReport;

/// The environment variable that turns learning off (`0`).
pub const MODEL_ENV: &str = "UTF8CONF_FUZZ_MODEL";

/// One decoder's learned machine, as the grading reads it and as reports carry it.
struct Learned {
    report: ModelReport,
    summary: LearnedModel,
}

/// The machines learned so far in this process, by decoder name; `None` when learning
/// failed or its machine is incomplete (it explains nothing: the reports stay by
/// signature), so that it is not tried again on every departure.
static MACHINES: Mutex<Option<HashMap<String, Option<Arc<Learned>>>>> = Mutex::new(None);

fn enabled() -> bool {
    std::env::var(MODEL_ENV).map_or(true, |value| value != "0")
}

/// The machine of `decoder`, learned on first use.
fn machine_of(decoder: &dyn Decoder) -> Option<Arc<Learned>> {
    // A panic while learning is contained per decoder call; one elsewhere leaves the map
    // as it was, which is still a valid cache.
    let mut machines = MACHINES.lock().unwrap_or_else(PoisonError::into_inner);
    let machines = machines.get_or_insert_with(HashMap::new);
    machines
        .entry(decoder.name().to_string())
        .or_insert_with(|| {
            let report = learn(decoder, ModelBudget::default(), None)?;
            if report.model.incomplete.is_some() {
                return None;
            }
            let summary = learned_model(decoder, &report);
            Some(Arc::new(Learned { report, summary }))
        })
        .clone()
}

/// `report`, found by `target` on `decoder` without a condition, filed through the
/// decoder's machine (see the module header); the report itself when learning is off or
/// no complete machine could be learned.
pub fn file(
    decoder: &dyn Decoder,
    report: FindingReport,
    run_id: &str,
    report_dir: &Path,
) -> FindingReport {
    if !enabled() {
        return report;
    }
    let Some(learned) = machine_of(decoder) else {
        return report;
    };
    let filing = Filing {
        run_id,
        report_dir,
        budget: None,
        threads: 1,
        library: None,
    };
    file_one(decoder, &learned.report, &learned.summary, report, &filing)
}
