//! `conformance.html`: the self-contained HTML view of a [`ConformanceReport`] (inline
//! CSS and script, no network), and the pieces the matrix page shares with it ([`STYLE`],
//! [`map_canvas`]). Adapter-controlled text goes through [`escape_html`].

use std::fmt::Write;

use super::{categories_text, conditions, findings, model, scalars_text, verdict_sentence};
use crate::conformance::report::{ConformanceReport, PolicyExample};
use crate::sanitize::html as escape_html;

/// The shared CSS of the HTML reports.
pub const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1b1b; max-width: 1200px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
code { font: 12px ui-monospace, monospace; background: #f6f6f6; padding: 0 2px; }
.pass { background: #d9f2d9; } .fail { background: #f8d0d0; }
.policy { background: #fdf0c4; } .untested { background: #e8e8e8; }
.verdict-conformant { color: #176317; } .verdict-deviations { color: #a01818; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; border: 1px solid #888; }
#map-wrap { position: relative; display: inline-block; margin-left: 28px; margin-top: 16px; }
#map-tip { font: 12px ui-monospace, monospace; min-height: 16px; }
#departures { table-layout: fixed; width: 100%; } #departures code { word-break: break-all; }
#departures pre.json { font: 11px/1.3 ui-monospace, monospace; margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
details > summary { cursor: pointer; margin: 8px 0; }
#findings code { word-break: break-all; } .affected { background: #fbe3c8; }
"#;

/// Map colors by state code, shared by the script and the legend.
pub const MAP_COLORS: [(char, &str); 6] = [
    ('=', "#cfe8cf"),
    ('p', "#f2c744"),
    ('s', "#e07b39"),
    ('v', "#c62828"),
    ('x', "#222222"),
    ('?', "#ffffff"),
];

/// `conformance.html`.
pub fn html(report: &ConformanceReport) -> String {
    let mut out = String::new();
    html_header(&mut out, report);
    findings::html(&mut out, &report.findings);
    model::html(&mut out, report.model.as_ref());
    conditions::html(&mut out, &report.condition_models);
    // The map right after the findings: a reader sees the whole two-byte space before
    // the detail tables below.
    html_two_byte_map(&mut out, report);
    html_categories(&mut out, report);
    html_policy(&mut out, report);
    html_wrappers(&mut out, report);
    out.push_str(&crate::report::security::html(
        &report.security,
        escape_html,
    ));
    html_departures(&mut out, report);
    // Records the page's laid-out width, so a headless browser can check it fits.
    let _ = writeln!(
        out,
        "<script>document.body.setAttribute(\"data-page-width\", document.documentElement.scrollWidth);</script>"
    );
    let _ = writeln!(out, "</body></html>");
    out
}

/// The page's head, its title, the verdict and the facts of the run.
fn html_header(out: &mut String, report: &ConformanceReport) {
    let decoder = &report.decoder;
    let title = format!("Conformance: {} ({})", decoder.name, decoder.version);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape_html(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape_html(&title));
    let _ = writeln!(
        out,
        "<p id=\"verdict\" class=\"verdict-{v}\">Verdict: <strong>{v}</strong>. {}</p>",
        verdict_sentence(report, escape_html),
        v = report.verdict
    );
    let summary = &report.summary;
    let _ = writeln!(
        out,
        "<p>{}Fields reported: {}. Inputs: {} in {:.1} s ({:.0}/s). Adapter restarts: {}. utf8conf {}, {}.</p>",
        decoder
            .command
            .as_ref()
            .map(|c| format!("Adapter: <code>{}</code>. ", escape_html(&c.join(" "))))
            .unwrap_or_default(),
        escape_html(&decoder.reports.join(", ")),
        summary.inputs,
        summary.duration_seconds,
        summary.inputs_per_second,
        summary.restarts,
        report.tool_version,
        escape_html(&report.created)
    );
}

/// The two-byte map with its legend.
fn html_two_byte_map(out: &mut String, report: &ConformanceReport) {
    let map = &report.first_two_bytes_map;
    let _ = writeln!(
        out,
        "<h2>Two-byte map</h2><p>{}.</p><p class=\"legend\">",
        escape_html(map.description)
    );
    for (code, color) in MAP_COLORS {
        let code = code.to_string();
        if let Some(meaning) = map.legend.get(&code) {
            let _ = write!(
                out,
                "<span style=\"background:{color}\"></span>{} ({})",
                escape_html(meaning),
                map.counts.get(&code).copied().unwrap_or(0)
            );
        }
    }
    let _ = writeln!(out, "</p>");
    out.push_str(&map_canvas("map", &map.rows));
}

/// The category table: each category's status and what shows in it, linked to the departures.
fn html_categories(out: &mut String, report: &ConformanceReport) {
    let _ = writeln!(out, "<h2>Categories</h2>\n<table id=\"categories\"><tr><th>Category</th><th>Status</th><th>Inputs</th><th>Failing aspects (smallest input)</th></tr>");
    for row in &report.categories {
        let detail = if !row.failures.is_empty() {
            row.failures
                .iter()
                .map(|f| {
                    format!(
                        "{} <a href=\"#departure-{}\"><code>{}</code></a>",
                        f.aspect,
                        f.departure + 1,
                        escape_html(&f.input_hex)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        } else if let Some(example) = &row.policy_example_hex {
            format!("policy shows on <code>{}</code>", escape_html(example))
        } else {
            finding_links(&row.findings, &row.affected_by)
        };
        let status = row.status.as_str();
        let _ = writeln!(
            out,
            "<tr data-category=\"{c}\" data-status=\"{status}\"><td>{c}</td><td class=\"{status}\">{status}</td><td>{}</td><td>{detail}</td></tr>",
            row.inputs,
            c = row.category
        );
    }
    let _ = writeln!(out, "</table>");
}

/// The U+FFFD policy section: the hypotheses and what each explains.
fn html_policy(out: &mut String, report: &ConformanceReport) {
    let policy = &report.replacement_policy;
    let _ = writeln!(
        out,
        "<h2>U+FFFD policy: <span id=\"policy\">{}</span></h2><p>{}. {} ill-formed inputs differ from the reference at most in their U+FFFD; in {} the count differs from maximal subparts.</p>",
        policy.recognised,
        escape_html(&policy.description),
        policy.observations,
        policy.differing_from_maximal_subpart
    );
    let _ = writeln!(
        out,
        "<table><tr><th>Hypothesis</th><th>Explains</th><th>What it does</th></tr>"
    );
    for hypothesis in &policy.hypotheses {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{} of {}</td><td>{}</td></tr>",
            hypothesis.policy.as_str(),
            hypothesis.explains,
            policy.observations,
            escape_html(hypothesis.description)
        );
    }
    let _ = writeln!(out, "</table>");
    html_examples(out, "Examples", &policy.examples);
    html_examples(
        out,
        "Counterexamples to the closest policy",
        &policy.counterexamples,
    );
}

/// The wrapper policies (a leading U+FEFF dropped or kept).
fn html_wrappers(out: &mut String, report: &ConformanceReport) {
    let _ = writeln!(out, "<h2>Wrapper policies</h2><ul>");
    for wrapper in &report.wrapper_policies {
        let _ = writeln!(
            out,
            "<li>{}: <strong>{}</strong> (dropped a leading U+FEFF in {} inputs, kept it in {})</li>",
            wrapper.policy,
            if wrapper.observed { "observed" } else { "not observed" },
            wrapper.inputs_stripped,
            wrapper.inputs_kept
        );
    }
    let _ = writeln!(out, "</ul>");
}

/// The departures from the reference, collapsed behind a summary line.
fn html_departures(out: &mut String, report: &ConformanceReport) {
    let _ = writeln!(out, "<h2>Departures</h2>");
    if report.departures.is_empty() {
        let _ = writeln!(out, "<p>None.</p>");
    } else {
        // Detail behind the findings: collapsed until asked for (or linked to).
        let _ = writeln!(
            out,
            "<details id=\"departures-section\"><summary>{}, one row per aspect and category (click to show)</summary>",
            super::counted(report.departures.len(), "distinct departure", "distinct departures")
        );
        let _ = writeln!(out, "<table id=\"departures\"><colgroup><col style=\"width:3%\"><col style=\"width:8%\"><col style=\"width:7%\"><col style=\"width:10%\"><col style=\"width:10%\"><col style=\"width:5%\"><col style=\"width:21%\"><col style=\"width:18%\"><col style=\"width:18%\"></colgroup><tr><th>#</th><th>Severity</th><th>Aspect</th><th>Categories</th><th>Smallest input</th><th>Inputs</th><th>What differs</th><th>Decoder</th><th>Reference</th></tr>");
        for (index, departure) in report.departures.iter().enumerate() {
            let _ = writeln!(
                out,
                "<tr id=\"departure-{n}\"><td>{n}</td><td class=\"severity-{}\">{}<br><small>{}</small></td><td>{}</td><td>{}</td><td><code>{}</code>{}</td><td>{}</td><td>{}<br><small>{}</small></td><td><pre class=\"json\">{}</pre></td><td><pre class=\"json\">{}</pre></td></tr>",
                departure.security.severity,
                departure.security.severity,
                departure.security.class,
                departure.aspect,
                categories_text(&departure.categories),
                escape_html(&departure.input_hex),
                if departure.minimised { " (shrunk)" } else { "" },
                departure.count,
                escape_html(&departure.summary),
                escape_html(&departure.explanation),
                escape_html(&readable_json(
                    &serde_json::to_value(&departure.decoder_answer).expect("answers serialise"),
                )),
                escape_html(&readable_json(&departure.reference)),
                n = index + 1
            );
        }
        let _ = writeln!(out, "</table></details>");
        // A link to a departure (from the categories table) opens the section first.
        let _ = writeln!(
            out,
            "<script>(function () {{ var open = function () {{ if (/^#departure-/.test(location.hash)) {{ document.getElementById(\"departures-section\").open = true; var row = document.getElementById(location.hash.slice(1)); if (row) {{ row.scrollIntoView(); }} }} }}; window.addEventListener(\"hashchange\", open); open(); }})();</script>"
        );
    }
}

/// A canvas with its drawing script for one 256x256 map.
pub fn map_canvas(id: &str, rows: &[String]) -> String {
    let rows_json = serde_json::to_string(rows).expect("strings serialise");
    let colors_json = serde_json::to_string(
        &MAP_COLORS
            .iter()
            .map(|(code, color)| (code.to_string(), *color))
            .collect::<std::collections::BTreeMap<_, _>>(),
    )
    .expect("strings serialise");
    format!(
        r##"<div id="{id}-wrap" class="map-wrap" style="position:relative;display:inline-block;margin:16px 0 0 28px">
<div id="{id}-tip" style="font:12px monospace;min-height:16px">first byte (row) x second byte (column); hover for details</div>
<div class="axis-x" style="font:10px monospace;display:flex;justify-content:space-between;width:512px">second byte &#8594; <span>00</span><span>40</span><span>80</span><span>C0</span><span>FF</span></div>
<div class="axis-y" style="position:absolute;left:-26px;top:44px;height:512px;font:10px monospace;display:flex;flex-direction:column;justify-content:space-between"><span>00</span><span>40</span><span>80</span><span>C0</span><span>FF</span></div>
<canvas id="{id}" class="byte-map" width="512" height="512" style="border:1px solid #888;image-rendering:pixelated"></canvas>
</div>
<script type="application/json" id="{id}-data">{rows_json}</script>
<script>
(function () {{
  var rows = JSON.parse(document.getElementById("{id}-data").textContent);
  var colors = {colors_json};
  var canvas = document.getElementById("{id}");
  var context = canvas.getContext("2d");
  var drawn = 0;
  for (var first = 0; first < rows.length; first++) {{
    for (var second = 0; second < rows[first].length; second++) {{
      context.fillStyle = colors[rows[first][second]] || "#ff00ff";
      context.fillRect(second * 2, first * 2, 2, 2);
      drawn++;
    }}
  }}
  context.fillStyle = "rgba(0,0,0,0.35)";
  for (var line = 0; line <= 256; line += 16) {{
    context.fillRect(line * 2, 0, 1, 512);
    context.fillRect(0, line * 2, 512, 1);
  }}
  canvas.setAttribute("data-cells-drawn", String(drawn));
  var hex = function (n) {{ return (n < 16 ? "0" : "") + n.toString(16).toUpperCase(); }};
  canvas.addEventListener("mousemove", function (event) {{
    var box = canvas.getBoundingClientRect();
    var second = Math.floor((event.clientX - box.left) / 2), first = Math.floor((event.clientY - box.top) / 2);
    if (first >= 0 && first < 256 && second >= 0 && second < 256) {{
      document.getElementById("{id}-tip").textContent = hex(first) + " " + hex(second) + ": " + rows[first][second];
    }}
  }});
}})();
</script>
"##
    )
}

/// JSON for a table cell: one field per line, a long array wrapped by the cell.
fn readable_json(value: &serde_json::Value) -> String {
    let mut text = String::new();
    match value.as_object() {
        Some(object) => {
            for (key, field) in object {
                let _ = writeln!(text, "{key}: {field}");
            }
        }
        None => text = value.to_string(),
    }
    text.trim_end().to_string()
}

/// Links to the findings a `fail` or `affected` category row is about, when it has no
/// failing aspect of its own to show.
fn finding_links(findings: &[String], affected_by: &[String]) -> String {
    let link = |id: &String| {
        let id = escape_html(id);
        format!("<a href=\"#finding-{id}\">{id}</a>")
    };
    let mut parts = Vec::new();
    if !findings.is_empty() {
        let links: Vec<String> = findings.iter().map(link).collect();
        parts.push(format!("finding {}", links.join(", ")));
    }
    if !affected_by.is_empty() {
        let links: Vec<String> = affected_by.iter().map(link).collect();
        parts.push(format!("shows finding {}", links.join(", ")));
    }
    parts.join("; ")
}

fn html_examples(out: &mut String, title: &str, examples: &[PolicyExample]) {
    if examples.is_empty() {
        return;
    }
    let _ = writeln!(out, "<p>{title}:</p><table><tr><th>Input</th><th>Categories</th><th>Decoder</th><th>Maximal subpart (reference)</th><th>Per byte</th><th>Per run</th><th>Per lead-sized sequence</th></tr>");
    for example in examples {
        let prediction =
            |name: &str| scalars_text(example.predictions.get(name).map_or(&[][..], |v| v));
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td><td><pre class=\"json\">{}</pre></td><td><pre class=\"json\">{}</pre></td></tr>",
            escape_html(&example.input_hex),
            categories_text(&example.categories),
            scalars_text(&example.decoder_scalars),
            prediction("maximal-subpart"),
            prediction("per-byte"),
            prediction("per-run"),
            prediction("per-lead-sized-sequence")
        );
    }
    let _ = writeln!(out, "</table>");
}
