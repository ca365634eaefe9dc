//! `utf8conf model --regenerate-known FILE`: learns the machine of every known decoder
//! (the built-in ones, the planted decoders written from real platforms, and every
//! adapter of `adapters/list.json` whose toolchain is on `PATH`) and writes them as the
//! known-models file that [`crate::model::recognise`] compares against
//! (`src/model/known/models.json`). An adapter that cannot start, or whose learning does
//! not finish within the limits, is skipped and named on stderr.

use std::io::Write;
use std::path::Path;

use super::CliError;
use crate::adapter::list::AdapterList;
use crate::adapter::{
    AdapterConfig, ExternalDecoder, DEFAULT_ANSWER_TIMEOUT, DEFAULT_HELLO_TIMEOUT,
};
use crate::automaton::grammar::Grammar;
use crate::decoders::{self, Decoder};
use crate::model::differential::learn_against;
use crate::model::known::{KnownFile, KnownModel, KNOWN_SCHEMA};
use crate::model::learner::Limits;
use crate::model::reference_machine;

/// The answers asked first, so that an adapter's capabilities (the fields seen in its
/// answers) are known before learning.
pub const PROBES: [&[u8]; 6] = [
    b"A",
    b"\x80",
    b"\xE0\x80",
    b"\xE0\xA0",
    b"\xC3\xA9",
    b"\xF0\x9F\x98",
];

/// Learns every known decoder and writes the file at `out`; adapters are read from
/// `adapters` (argv relative to its repository root, the list's grandparent folder).
pub fn regenerate(out: &Path, adapters: &Path, limits: Limits) -> Result<u8, CliError> {
    let grammar = Grammar::rfc3629()?;
    let mut models = Vec::new();
    let mut learn = |decoder: &dyn Decoder, name: &str, about: &str| {
        let _ = decoder.decode_batch(&PROBES);
        let capabilities = decoder.capabilities();
        // As a check learns a decoder (against the reference, each machine corrected
        // where their differences show it wrong): a known machine wrong behind a barely
        // told-apart state would show differences the decoder does not have, and
        // recognition would count them.
        let reference = reference_machine(capabilities, &grammar);
        let (learned, _) = learn_against(decoder, &grammar, limits, reference);
        match &learned.incomplete {
            Some(reason) => eprintln!("{name}: skipped, learning incomplete: {reason}"),
            None => {
                eprintln!(
                    "{name}: {} states, {} decodes, {} ms",
                    learned.hypothesis().state_count(),
                    learned.queries.decodes,
                    learned.queries.milliseconds
                );
                models.push(KnownModel::of(
                    name,
                    about,
                    &decoder.version(),
                    capabilities,
                    learned.hypothesis(),
                ));
            }
        }
    };
    for decoder in decoders::builtin() {
        learn(&*decoder, decoder.name(), "built-in decoder");
    }
    for entry in decoders::planted::real_world::platforms::PLATFORMS {
        let Some(decoder) = decoders::by_name(entry.name) else {
            continue;
        };
        learn(&*decoder, entry.name, &first_sentence(entry.source));
    }
    let list = AdapterList::load(adapters).map_err(CliError)?;
    let root = adapters
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    for entry in &list.adapters {
        let missing = entry.missing_tools();
        if !missing.is_empty() {
            eprintln!(
                "adapter:{}: skipped, missing {}",
                entry.name,
                missing.join(", ")
            );
            continue;
        }
        let config = AdapterConfig {
            argv: entry.argv_in(root),
            name: Some(entry.name.clone()),
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            hello_timeout: DEFAULT_HELLO_TIMEOUT,
        };
        match ExternalDecoder::start(config) {
            Ok(decoder) => learn(
                &decoder,
                &format!("adapter:{}", entry.name),
                &entry.description,
            ),
            Err(e) => eprintln!("adapter:{}: skipped, {}", entry.name, e.0),
        }
    }
    let file = KnownFile {
        schema: KNOWN_SCHEMA.to_string(),
        models,
    };
    write_file(out, &file)?;
    eprintln!("{}: {} models", out.display(), file.models.len());
    Ok(0)
}

/// The text up to its first full stop (or all of it), at most 120 characters.
fn first_sentence(text: &str) -> String {
    let end = text.find(". ").map_or(text.len(), |i| i + 1);
    text[..end].chars().take(120).collect()
}

/// One model per line, so that a regeneration's diff shows which machines changed.
fn write_file(out: &Path, file: &KnownFile) -> Result<(), CliError> {
    let mut text = format!("{{\"schema\": {:?}, \"models\": [\n", file.schema);
    for (i, model) in file.models.iter().enumerate() {
        text.push_str(&serde_json::to_string(model)?);
        text.push_str(if i + 1 < file.models.len() {
            ",\n"
        } else {
            "\n"
        });
    }
    text.push_str("]}\n");
    let mut f = std::fs::File::create(out)
        .map_err(|e| CliError(format!("cannot write {}: {e}", out.display())))?;
    f.write_all(text.as_bytes())
        .map_err(|e| CliError(format!("cannot write {}: {e}", out.display())))?;
    Ok(())
}
