//! A learned machine drawn as a self-contained SVG, beside the RFC 3629 machine learned
//! the same way, with the transitions where they differ marked. The harness lays it out
//! itself ([`layout`]): no Graphviz, no script, no external style or font.
//!
//! Each state is a box in the column of its breadth-first depth, headed by its number and
//! the shortest input reaching it. A transition to the next column is a line, labelled
//! beside its source with its bytes (as ranges, `80..8F`) and its output; every other
//! transition (a loop, a step back to the start or to an earlier column) is a line of text
//! inside its source's box (`→ s0  80..BF ok +ch`), so that the many returns to the start
//! do not cross the drawing. Transitions between the same two states are merged: one
//! line, one label line per output. A transition that differs from the other machine is
//! drawn in red when the difference is primary (reached through agreeing transitions
//! only) and in orange when it is a manifestation of an earlier one; the legend says so.
//!
//! Every piece of text is escaped: a state's access word is hex, but the title holds the
//! decoder's name, which an adapter chooses.

pub mod layout;

use std::fmt::Write;

use super::alphabet::format_ranges;
use super::difference::Difference;
use super::json::{MachineJson, TransitionJson};
use super::output::{StepOutput, Strict, UnitKind};
use crate::sanitize::xml as escape;
use layout::Layers;

/// Monospace font size, in pixels.
const FONT: f64 = 11.0;
/// Width of one character of the font, a little over what monospace fonts use.
const CHAR_W: f64 = 6.7;
/// Height of one line of text.
const LINE: f64 = 14.0;
/// Width of a state's box.
const NODE_W: f64 = 212.0;
/// Width of the label column beside a state's box.
const LABEL_W: f64 = 128.0;
/// Width left for the lines between the labels and the next column.
const ROUTE_W: f64 = 30.0;
/// Vertical space between two states of a column.
const NODE_GAP: f64 = 16.0;
/// Margin around a panel.
const MARGIN: f64 = 16.0;

/// How a drawn transition compares with the other machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// Same output as the other machine wherever the product reaches it.
    Same,
    /// Differs, reached only through another difference.
    Manifestation,
    /// Differs, reached through agreeing transitions only.
    Primary,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::Same => "t",
            Mark::Manifestation => "t diff manifestation",
            Mark::Primary => "t diff primary",
        }
    }
}

/// Which side of the differences a panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The learned decoder's machine.
    Decoder,
    /// The reference's machine.
    Reference,
}

/// The mark of every transition of `machine`, as `side` of `differences`.
pub fn marks(machine: &MachineJson, differences: &[Difference], side: Side) -> Vec<Mark> {
    machine
        .transitions
        .iter()
        .map(|t| {
            differences
                .iter()
                .filter(|d| {
                    let (state, output) = match side {
                        Side::Decoder => (d.decoder_state, d.decoder),
                        Side::Reference => (d.reference_state, d.reference),
                    };
                    state == t.from
                        && output == t.output
                        && d.bytes.iter().any(|b| t.bytes.contains(b))
                })
                .map(|d| {
                    if d.primary {
                        Mark::Primary
                    } else {
                        Mark::Manifestation
                    }
                })
                .max()
                .unwrap_or(Mark::Same)
        })
        .collect()
}

/// The SVG of `model` beside `reference`, titled `title`, with the transitions of
/// `differences` marked on both.
pub fn svg(
    model: &MachineJson,
    reference: &MachineJson,
    differences: &[Difference],
    title: &str,
) -> String {
    let panels = [
        Panel::new(
            &format!("{title}: {} states", model.states.len()),
            model,
            marks(model, differences, Side::Decoder),
        ),
        Panel::new(
            &format!(
                "RFC 3629, learned the same way: {} states",
                reference.states.len()
            ),
            reference,
            marks(reference, differences, Side::Reference),
        ),
    ];
    let legend_h = 4.0 * LINE + MARGIN;
    let width = panels.iter().map(|p| p.width).fold(760.0, f64::max);
    let height = legend_h + panels.iter().map(|p| p.height + MARGIN).sum::<f64>();
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"monospace\" font-size=\"{FONT}\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
        escape(title)
    );
    legend(&mut out, differences);
    let mut y = legend_h;
    for (panel, side) in panels.iter().zip([Side::Decoder, Side::Reference]) {
        panel.render(&mut out, y, side);
        y += panel.height + MARGIN;
    }
    out.push_str("</svg>\n");
    out
}

const STYLE: &str = ".state rect{fill:#f6f8fa;stroke:#57606a}.start rect{stroke-width:2.5}\
 .head{font-weight:bold}.t{stroke:#57606a;fill:none}text.t{stroke:none;fill:#24292f}\
 .primary{stroke:#cf222e;stroke-width:3}.manifestation{stroke:#d4a373;stroke-dasharray:4 3}\
 text.primary{fill:#cf222e;stroke:none;font-weight:bold}\
 text.manifestation{fill:#8a4b14;stroke:none;font-style:italic}.panel{font-size:14px;font-weight:bold}";

fn legend(out: &mut String, differences: &[Difference]) {
    let primary = differences.iter().filter(|d| d.primary).count();
    let lines = [
        (
            "t diff primary",
            format!("red: differs from the other machine where both agreed so far ({primary} of {} differences)", differences.len()),
        ),
        (
            "t diff manifestation",
            "brown italic, dashed: differs only after an earlier difference (a manifestation)".to_string(),
        ),
        (
            "t",
            "outputs: ok valid, inc incomplete, E k/d error of k bytes from d back, set/rev earlier error kept/moved, bad invalid".to_string(),
        ),
        (
            "t",
            "then -n scalars taken back, +ch +FFFD +byte +bits +other appended; '→ sN' in a box: a step back, '↻' a loop".to_string(),
        ),
    ];
    for (i, (class, text)) in lines.iter().enumerate() {
        let y = MARGIN + i as f64 * LINE;
        let _ = writeln!(
            out,
            "<line class=\"{class}\" x1=\"{MARGIN}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>\
             <text class=\"t\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            y - 4.0,
            MARGIN + 24.0,
            y - 4.0,
            MARGIN + 30.0,
            y,
            escape(text)
        );
    }
}

/// One machine, laid out.
struct Panel<'a> {
    title: String,
    machine: &'a MachineJson,
    layers: Layers,
    /// Per state: the lines inside its box (text, mark).
    inner: Vec<Vec<(String, Mark)>>,
    /// Per state: the label lines of its forward transitions, `(to, text, mark)`.
    labels: Vec<Vec<(usize, String, Mark)>>,
    /// Per state: top y of its box, relative to the panel.
    top: Vec<f64>,
    /// Per state: height of its box.
    box_h: Vec<f64>,
    width: f64,
    height: f64,
}

impl<'a> Panel<'a> {
    fn new(title: &str, machine: &'a MachineJson, marks: Vec<Mark>) -> Panel<'a> {
        let states = machine.states.len();
        let edges: Vec<(usize, usize)> =
            machine.transitions.iter().map(|t| (t.from, t.to)).collect();
        let layers = layout::layers(states, &edges);
        let mut inner = vec![Vec::new(); states];
        let mut labels = vec![Vec::new(); states];
        // Transitions are listed by source; parallel ones (same source and target) are
        // kept together so that they share one line.
        let mut order: Vec<usize> = (0..machine.transitions.len()).collect();
        order.sort_by_key(|&i| {
            (
                machine.transitions[i].from,
                layers.rank(machine.transitions[i].to),
                machine.transitions[i].to,
            )
        });
        for i in order {
            let t = &machine.transitions[i];
            let text = transition_text(t);
            if layers.is_forward(t.from, t.to) {
                for line in wrap(&text, (LABEL_W / CHAR_W) as usize) {
                    labels[t.from].push((t.to, line, marks[i]));
                }
            } else {
                let arrow = if t.to == t.from {
                    "↻ ".to_string()
                } else {
                    format!("→ s{} ", t.to)
                };
                for line in wrap(&format!("{arrow}{text}"), (NODE_W / CHAR_W) as usize - 1) {
                    inner[t.from].push((line, marks[i]));
                }
            }
        }
        let box_h: Vec<f64> = (0..states)
            .map(|s| (1 + inner[s].len()).max(labels[s].len()) as f64 * LINE + 8.0)
            .collect();
        let mut top = vec![0.0; states];
        let mut height: f64 = 0.0;
        for column in &layers.columns {
            let mut y = MARGIN + LINE * 1.5;
            for &state in column {
                top[state] = y;
                y += box_h[state] + NODE_GAP;
            }
            height = height.max(y);
        }
        let width = 2.0 * MARGIN + layers.columns.len() as f64 * (NODE_W + LABEL_W + ROUTE_W);
        Panel {
            title: title.to_string(),
            machine,
            layers,
            inner,
            labels,
            top,
            box_h,
            width,
            height,
        }
    }

    fn column_x(&self, state: usize) -> f64 {
        MARGIN + self.layers.depth[state] as f64 * (NODE_W + LABEL_W + ROUTE_W)
    }

    fn render(&self, out: &mut String, y0: f64, side: Side) {
        let side = match side {
            Side::Decoder => "decoder",
            Side::Reference => "reference",
        };
        let _ = writeln!(
            out,
            "<g class=\"machine\" data-side=\"{side}\" transform=\"translate(0 {y0:.1})\"><text class=\"panel\" x=\"{MARGIN}\" y=\"{:.1}\">{}</text>",
            MARGIN + 4.0,
            escape(&self.title)
        );
        for state in 0..self.machine.states.len() {
            self.render_state(out, state);
        }
        out.push_str("</g>\n");
    }

    fn render_state(&self, out: &mut String, state: usize) {
        let (x, y) = (self.column_x(state), self.top[state]);
        let access = crate::hex::format_hex(&self.machine.states[state].access);
        let head = if access.is_empty() {
            format!("s{state} start")
        } else {
            format!("s{state} · {access}")
        };
        let class = if state == 0 { "state start" } else { "state" };
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-state=\"{state}\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{NODE_W}\" height=\"{:.1}\" rx=\"5\"/>\
             <text class=\"head\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            self.box_h[state],
            x + 6.0,
            y + LINE,
            escape(&truncate(&head, (NODE_W / CHAR_W) as usize - 1))
        );
        for (i, (line, mark)) in self.inner[state].iter().enumerate() {
            let _ = writeln!(
                out,
                "<text class=\"{}\" data-from=\"{state}\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                mark.class(),
                x + 6.0,
                y + LINE * (i as f64 + 2.0),
                escape(line)
            );
        }
        out.push_str("</g>\n");
        // Labels beside the box; each target's line leaves from the first label line of
        // its group.
        let label_x = x + NODE_W + 4.0;
        let mut drawn: Vec<usize> = Vec::new();
        for (i, (to, line, mark)) in self.labels[state].iter().enumerate() {
            let ly = y + LINE * (i as f64 + 1.0);
            let _ = writeln!(out, "<text class=\"{}\" data-from=\"{state}\" x=\"{label_x:.1}\" y=\"{ly:.1}\">{}</text>", mark.class(), escape(line));
            if drawn.contains(to) {
                continue;
            }
            drawn.push(*to);
            let group: Vec<Mark> = self.labels[state]
                .iter()
                .filter(|(t, _, _)| t == to)
                .map(|&(_, _, m)| m)
                .collect();
            let worst = group.into_iter().max().unwrap_or(Mark::Same);
            // The line starts where its label ends, so that it never runs under text.
            let (x1, y1) = (
                label_x + line.chars().count() as f64 * CHAR_W + 3.0,
                ly - 4.0,
            );
            let (x2, y2) = (self.column_x(*to), self.top[*to] + LINE * 0.75);
            let mid = x + NODE_W + LABEL_W + ROUTE_W * 0.5;
            let _ = writeln!(
                out,
                "<path class=\"{}\" data-from=\"{state}\" data-to=\"{to}\" d=\"M{x1:.1} {y1:.1} H{:.1} C{mid:.1} {y1:.1} {mid:.1} {y2:.1} {x2:.1} {y2:.1}\"/>\
                 <path class=\"{}\" d=\"M{:.1} {:.1} L{x2:.1} {y2:.1} L{:.1} {:.1}\"/>",
                worst.class(),
                (x + NODE_W + LABEL_W).max(x1),
                worst.class(),
                x2 - 6.0,
                y2 - 4.0,
                x2 - 6.0,
                y2 + 4.0
            );
        }
    }
}

/// `80..BF ok +ch`: a transition's bytes and output.
fn transition_text(t: &TransitionJson) -> String {
    format!("{} {}", format_ranges(&t.bytes), short_output(t.output))
}

/// A step output in the legend's notation.
pub fn short_output(output: StepOutput) -> String {
    let mut text = match output.strict {
        Strict::Valid => "ok".to_string(),
        Strict::Incomplete => "inc".to_string(),
        Strict::Error { len, back } => format!("E{len}/{back}"),
        Strict::Settled => "set".to_string(),
        Strict::Revised => "rev".to_string(),
        Strict::Invalid => "bad".to_string(),
        Strict::Failed => "fail".to_string(),
    };
    if let Some(lossy) = output.lossy {
        if lossy.taken_back > 0 {
            let _ = write!(text, " -{}", lossy.taken_back);
        }
        for kind in lossy.kinds.iter().flatten() {
            text.push_str(match kind {
                UnitKind::Replacement => " +FFFD",
                UnitKind::Scalar => " +ch",
                UnitKind::OwnByte => " +byte",
                UnitKind::Bits => " +bits",
                UnitKind::Other => " +other",
            });
        }
        let shown = lossy.kinds.iter().flatten().count();
        if usize::from(lossy.appended) > shown {
            let _ = write!(text, " (of {})", lossy.appended);
        }
    }
    text
}

/// `text` cut into lines of at most `width` characters, at spaces where it can be.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if !line.is_empty() && !fits {
            lines.push(std::mem::take(&mut line));
            line.push_str("  ");
        }
        if !line.is_empty() && !line.ends_with("  ") {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.trim().is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` cut to `width` characters, with an ellipsis when cut.
fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests;
