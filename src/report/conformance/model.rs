//! The model section of `conformance.md` and `conformance.html`: the decoder's learned
//! machine (states, transitions on byte ranges, outputs), what learning it cost, whether
//! it is complete, and every transition where it differs from RFC 3629's machine.
//!
//! The HTML draws the two machines side by side ([`crate::model::draw`], the harness's
//! own layout: no Graphviz), with the table of transitions collapsed below it.

use std::fmt::Write;

use crate::model::alphabet::format_ranges;
use crate::model::ModelReport;
use crate::sanitize::html as escape_html;

/// Differing transitions listed in the views (all of them are in the JSON): the section
/// stays compact for a decoder whose machine differs almost everywhere.
const DIFFERENCES_SHOWN: usize = 24;

/// The sentence after a cut list, or nothing.
fn more(model: &ModelReport) -> Option<String> {
    let hidden = model.differences.len().saturating_sub(DIFFERENCES_SHOWN);
    (hidden > 0).then(|| format!("{hidden} more differing transitions are in conformance.json."))
}

/// One line on what learning took and whether the machine is complete.
fn learning_sentence(model: &ModelReport) -> String {
    let queries = &model.model.queries;
    let state = match &model.model.incomplete {
        None => "complete (the equivalence oracle found no counterexample)".to_string(),
        Some(why) => format!(
            "incomplete: {why}; the findings are the rule-based ones, the machine is what was learned so far"
        ),
    };
    format!(
        "{} states over {} byte classes (RFC 3629's: {} states), learned from {} decodes in {:.2} s, {} equivalence rounds; {state}. {} differing transitions{}.",
        model.model.machine.states.len(),
        model.model.machine.classes.len(),
        model.reference.machine.states.len(),
        queries.decodes,
        queries.milliseconds as f64 / 1000.0,
        queries.equivalence_rounds,
        model.differences.len(),
        if model.unconfirmed > 0 {
            format!(" ({} more not shown by the decoder, dropped)", model.unconfirmed)
        } else {
            String::new()
        }
    )
}

/// Which known decoder the machine behaves like (docs/MODEL.md, "Recognising known
/// decoders"): the recognition's own sentence, and the closest decoder's first
/// difference when none is equivalent.
fn recognition_sentence(model: &ModelReport) -> String {
    let recognition = &model.recognition;
    let mut sentence = format!(
        "Compared with {} known machines, this decoder {}.",
        recognition.known, recognition.summary
    );
    if let Some(difference) = recognition.closest.first().and_then(|c| c.shown.first()) {
        let _ = write!(
            sentence,
            " The first difference is at the last byte of `{}` (bytes `{}` there): this decoder {}, {} {}.",
            crate::hex::format_hex(&difference.witness),
            format_ranges(&difference.bytes),
            difference.decoder,
            recognition.closest[0].name,
            difference.reference
        );
    }
    sentence
}

/// The Markdown model section: the learning line and the differing transitions.
pub fn markdown(out: &mut String, model: Option<&ModelReport>) {
    let Some(model) = model else {
        return;
    };
    let _ = writeln!(out, "## Learned model\n\n{}\n", learning_sentence(model));
    let _ = writeln!(out, "{}\n", recognition_sentence(model));
    if model.differences.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "| States (decoder, RFC) | Bytes | Decoder | RFC 3629 | Witness |\n|---|---|---|---|---|"
    );
    for d in model.differences.iter().take(DIFFERENCES_SHOWN) {
        let _ = writeln!(
            out,
            "| {}, {}{} | `{}` | {} | {} | `{}` |",
            d.decoder_state,
            d.reference_state,
            if d.primary { "" } else { " (behind)" },
            format_ranges(&d.bytes),
            d.decoder,
            d.reference,
            crate::hex::format_hex(&d.witness)
        );
    }
    if let Some(more) = more(model) {
        let _ = writeln!(out, "\n{more}");
    }
    let _ = writeln!(out);
}

/// The SVG of the decoder's machine beside RFC 3629's, differing transitions marked, in
/// a box that scrolls sideways when the machine is wider than the page.
fn model_drawing(model: &ModelReport) -> String {
    let svg = crate::model::draw::svg(
        &model.model.machine,
        &model.reference.machine,
        &model.differences,
        &model.decoder,
    );
    format!("<div id=\"model-drawing\" style=\"overflow-x:auto;max-width:100%\">{svg}</div>\n")
}

/// The HTML model section.
pub fn html(out: &mut String, model: Option<&ModelReport>) {
    let Some(model) = model else {
        return;
    };
    let _ = writeln!(
        out,
        "<h2>Learned model</h2><p id=\"model-summary\">{}</p><p id=\"model-recognition\">{}</p>",
        escape_html(&learning_sentence(model)),
        escape_html(&recognition_sentence(model))
    );
    out.push_str(&model_drawing(model));
    let _ = writeln!(out, "<details><summary>The decoder's transitions as a table</summary><table id=\"model-transitions\"><tr><th>From</th><th>Bytes</th><th>To</th><th>Output</th></tr>");
    for t in &model.model.machine.transitions {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            t.from,
            format_ranges(&t.bytes),
            t.to,
            escape_html(&t.output.to_string())
        );
    }
    let _ = writeln!(out, "</table></details>");
    if model.differences.is_empty() {
        return;
    }
    let _ = writeln!(out, "<table id=\"model-differences\"><tr><th>States (decoder, RFC)</th><th>Bytes</th><th>Decoder</th><th>RFC 3629</th><th>Witness</th></tr>");
    for d in model.differences.iter().take(DIFFERENCES_SHOWN) {
        let _ = writeln!(
            out,
            "<tr><td>{}, {}{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            d.decoder_state,
            d.reference_state,
            if d.primary { "" } else { " (behind)" },
            format_ranges(&d.bytes),
            escape_html(&d.decoder.to_string()),
            escape_html(&d.reference.to_string()),
            crate::hex::format_hex(&d.witness)
        );
    }
    let _ = writeln!(out, "</table>");
    if let Some(more) = more(model) {
        let _ = writeln!(out, "<p>{more}</p>");
    }
}
