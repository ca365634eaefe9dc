//! The drawing judged as XML and against the machines it draws. The machines are the
//! known models (no learning here, so the tests are quick).

use super::*;
use crate::model::difference::differences;
use crate::model::known;

/// One element of a parsed document: its name and attributes, and the index of the
/// nearest ancestor carrying `data-side`.
#[derive(Debug)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    side: Option<String>,
}

impl Element {
    fn get(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A strict reader of the XML subset an SVG uses (elements, quoted attributes, text,
/// the five named entities and character references, comments, one root): returns the
/// elements in document order, or where the document is not well-formed.
fn parse_xml(text: &str) -> Result<Vec<Element>, String> {
    let mut elements = Vec::new();
    let mut stack: Vec<(String, Option<String>)> = Vec::new();
    let mut roots = 0;
    let mut rest = text;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            check_text(rest)?;
            break;
        };
        check_text(&rest[..open])?;
        if !stack.is_empty() || rest[..open].trim().is_empty() {
        } else {
            return Err("text outside the root".into());
        }
        rest = &rest[open..];
        if let Some(after) = rest.strip_prefix("<!--") {
            let end = after.find("-->").ok_or("unclosed comment")?;
            rest = &after[end + 3..];
            continue;
        }
        let close = rest.find('>').ok_or("unclosed tag")?;
        let tag = &rest[1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let (open_name, _) = stack.pop().ok_or("close without open")?;
            if open_name != name.trim() {
                return Err(format!("</{name}> closes <{open_name}>"));
            }
            continue;
        }
        let empty = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, mut attrs) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '-')
        {
            return Err(format!("bad element name {name:?}"));
        }
        let mut attributes = Vec::new();
        loop {
            attrs = attrs.trim_start();
            if attrs.is_empty() {
                break;
            }
            let eq = attrs.find('=').ok_or("attribute without value")?;
            let key = attrs[..eq].trim().to_string();
            let value = attrs[eq + 1..]
                .strip_prefix('"')
                .ok_or("unquoted attribute")?;
            let end = value.find('"').ok_or("unclosed attribute")?;
            check_text(&value[..end])?;
            if attributes.iter().any(|(k, _)| *k == key) {
                return Err(format!("attribute {key} twice"));
            }
            attributes.push((key, value[..end].to_string()));
            attrs = &value[end + 1..];
        }
        if stack.is_empty() {
            roots += 1;
        }
        let own_side = attributes
            .iter()
            .find(|(k, _)| k == "data-side")
            .map(|(_, v)| v.clone());
        let side = own_side.or_else(|| stack.last().and_then(|(_, s)| s.clone()));
        elements.push(Element {
            name: name.to_string(),
            attributes,
            side: side.clone(),
        });
        if !empty {
            stack.push((name.to_string(), side));
        }
    }
    if let Some((name, _)) = stack.pop() {
        return Err(format!("<{name}> never closed"));
    }
    if roots != 1 {
        return Err(format!("{roots} roots"));
    }
    Ok(elements)
}

/// Text and attribute values: no `<`, and every `&` starts an entity XML knows.
fn check_text(text: &str) -> Result<(), String> {
    if text.contains('<') {
        return Err(format!("'<' in text {text:?}"));
    }
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        let after = &rest[amp + 1..];
        let end = after.find(';').ok_or("'&' without ';'")?;
        let entity = &after[..end];
        let known = ["amp", "lt", "gt", "quot", "apos"].contains(&entity)
            || entity
                .strip_prefix("#x")
                .is_some_and(|h| u32::from_str_radix(h, 16).is_ok())
            || entity
                .strip_prefix('#')
                .is_some_and(|d| d.parse::<u32>().is_ok());
        if !known {
            return Err(format!("unknown entity &{entity};"));
        }
        rest = &after[end + 1..];
    }
    Ok(())
}

fn known_model(name: &str) -> &'static crate::model::learner::Hypothesis {
    &known::all()
        .iter()
        .find(|(m, _)| m.name == name)
        .unwrap_or_else(|| panic!("no known model {name}"))
        .1
}

#[test]
fn the_checker_rejects_what_is_not_well_formed() {
    assert!(parse_xml("<a><b/></a>").is_ok());
    for bad in [
        "<a><b></a>",
        "<a>x & y</a>",
        "<a x=1/>",
        "<a/><b/>",
        "<a>",
        "<a x=\"<\"/>",
    ] {
        assert!(parse_xml(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_drawing_is_well_formed_with_one_box_per_state_and_a_mark_per_difference() {
    let decoder = known_model("planted-java-modified-utf8");
    let reference = known_model("reference");
    let (found, _) = differences(decoder, reference);
    assert!(!found.is_empty());
    let (model, rfc) = (MachineJson::of(decoder), MachineJson::of(reference));
    let drawing = svg(&model, &rfc, &found, "java <Modified> & \"UTF-8\"\u{1}");
    let elements = parse_xml(&drawing).unwrap_or_else(|e| panic!("{e}"));
    assert!(drawing.contains("java &lt;Modified&gt; &amp; &quot;UTF-8&quot;\\u{1}"));
    for (side, machine) in [("decoder", &model), ("reference", &rfc)] {
        let boxes: Vec<&str> = elements
            .iter()
            .filter(|e| e.side.as_deref() == Some(side) && e.name == "g")
            .filter_map(|e| e.get("data-state"))
            .collect();
        let expected: Vec<String> = (0..machine.states.len()).map(|s| s.to_string()).collect();
        assert_eq!(boxes, expected, "{side}");
    }
    for d in &found {
        for (side, state) in [
            ("decoder", d.decoder_state),
            ("reference", d.reference_state),
        ] {
            // A transition a primary difference also reaches is marked primary.
            let wanted = if d.primary { "primary" } else { "diff" };
            let marked = elements.iter().any(|e| {
                e.side.as_deref() == Some(side)
                    && e.get("data-from") == Some(&state.to_string())
                    && e.get("class")
                        .is_some_and(|c| c.contains("diff") && c.contains(wanted))
            });
            assert!(marked, "{side} s{state}: no {wanted} mark for {d:?}");
        }
    }
}

#[test]
fn an_equal_machine_has_no_marks() {
    let reference = known_model("reference");
    let json = MachineJson::of(reference);
    let drawing = svg(&json, &json, &[], "reference");
    let elements = parse_xml(&drawing).unwrap();
    // Only the legend shows the marks.
    assert!(!elements
        .iter()
        .any(|e| e.side.is_some() && e.get("class").is_some_and(|c| c.contains("diff"))));
    assert!(elements
        .iter()
        .any(|e| e.side.is_some() && e.get("data-from").is_some()));
}

#[test]
fn outputs_read_in_the_legend_notation() {
    use crate::model::output::Lossy;
    let output = StepOutput {
        strict: Strict::Error { len: 1, back: 2 },
        lossy: Some(Lossy {
            taken_back: 1,
            appended: 2,
            kinds: [Some(UnitKind::Replacement), Some(UnitKind::OwnByte)],
        }),
    };
    assert_eq!(short_output(output), "E1/2 -1 +FFFD +byte");
    assert_eq!(
        wrap("80..8F, C0..C1 ok +ch", 10),
        ["80..8F,", "  C0..C1", "  ok +ch"]
    );
}
