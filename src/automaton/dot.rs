//! Graphviz renderings of the machines, for `utf8conf prove --dot`.
//!
//! Edges are grouped into byte ranges (`80-8F`). Unit machines label each range with what
//! the bytes do (`char`, `error`, `close+char`, ...); acceptors leave out the edges into
//! their absorbing reject state, which every missing byte goes to.

use std::fmt::Write;

use super::machine::{Acceptor, Action, EndAction, Role, UnitMachine};

/// A unit machine as a Graphviz digraph named `name`.
pub fn unit_machine(name: &str, machine: &UnitMachine) -> String {
    let mut dot = header(name);
    for state in 0..machine.state_count() {
        let shape = match machine.end(state) {
            EndAction::Clean => "doublecircle",
            EndAction::Incomplete => "circle",
        };
        node(&mut dot, state, machine.label(state), shape);
    }
    for state in 0..machine.state_count() {
        // One edge per (target, action), listing its ranges.
        let mut grouped: Vec<(usize, Action, Vec<String>)> = Vec::new();
        for (first, last, target, action) in machine.edges(state) {
            let range = range_text(first, last);
            match grouped
                .iter_mut()
                .find(|(t, a, _)| *t == target && *a == action)
            {
                Some((_, _, ranges)) => ranges.push(range),
                None => grouped.push((target, action, vec![range])),
            }
        }
        for (target, action, ranges) in grouped {
            let label = format!("{} / {}", ranges.join(" "), action_text(action));
            edge(&mut dot, state, target, &label);
        }
    }
    dot.push_str("}\n");
    dot
}

/// An acceptor as a Graphviz digraph named `name`; edges into absorbing reject states
/// are left out.
pub fn acceptor(name: &str, machine: &Acceptor) -> String {
    let dead: Vec<bool> = (0..machine.state_count())
        .map(|s| !machine.end(s) && (0..=255u8).all(|b| machine.step(s, b).0 == s))
        .collect();
    let mut dot = header(name);
    for state in (0..machine.state_count()).filter(|&s| !dead[s]) {
        let shape = if machine.end(state) {
            "doublecircle"
        } else {
            "circle"
        };
        node(&mut dot, state, machine.label(state), shape);
    }
    for state in (0..machine.state_count()).filter(|&s| !dead[s]) {
        let mut grouped: Vec<(usize, Vec<String>)> = Vec::new();
        for (first, last, target, ()) in machine.edges(state) {
            if dead[target] {
                continue;
            }
            let range = range_text(first, last);
            match grouped.iter_mut().find(|(t, _)| *t == target) {
                Some((_, ranges)) => ranges.push(range),
                None => grouped.push((target, vec![range])),
            }
        }
        for (target, ranges) in grouped {
            edge(&mut dot, state, target, &ranges.join(" "));
        }
    }
    dot.push_str("}\n");
    dot
}

fn header(name: &str) -> String {
    format!(
        "digraph \"{}\" {{\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n  \
         edge [fontname=\"monospace\", fontsize=10];\n  start [shape=point];\n  start -> s0;\n",
        escape(name)
    )
}

fn node(dot: &mut String, state: usize, label: &str, shape: &str) {
    let _ = writeln!(
        dot,
        "  s{state} [shape={shape}, label=\"{}\"];",
        escape(label)
    );
}

fn edge(dot: &mut String, from: usize, to: usize, label: &str) {
    let _ = writeln!(dot, "  s{from} -> s{to} [label=\"{}\"];", escape(label));
}

fn range_text(first: u8, last: u8) -> String {
    if first == last {
        format!("{first:02X}")
    } else {
        format!("{first:02X}-{last:02X}")
    }
}

fn action_text(action: Action) -> String {
    let role = match action.role {
        Role::Pending => "more",
        Role::EndsChar => "char",
        Role::ErrorAlone => "error",
    };
    if action.closes_error {
        format!("close error, {role}")
    } else {
        role.to_string()
    }
}

/// Escapes a label for a double-quoted Graphviz string.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
