use super::*;

fn range(lo: u8, hi: u8, text: &str) -> Node {
    Node::ByteRange {
        lo,
        hi,
        text: text.into(),
    }
}

#[test]
fn parses_ranges_repetitions_and_groups() {
    let rules = parse_rules("a = 2( %x80-BF ) / *b\nb = %x41").unwrap();
    assert_eq!(rules.len(), 2);
    assert_eq!(rules[0].text, "2( %x80-BF ) / *b");
    let Node::Alternation(alternatives) = &rules[0].body else {
        panic!("{:?}", rules[0].body)
    };
    assert_eq!(alternatives[0].text, "2( %x80-BF )");
    assert_eq!(
        alternatives[0].node,
        Node::Repetition {
            min: 2,
            max: Some(2),
            node: Box::new(range(0x80, 0xBF, "%x80-BF"))
        }
    );
    assert_eq!(
        alternatives[1].node,
        Node::Repetition {
            min: 0,
            max: None,
            node: Box::new(Node::RuleRef("b".into()))
        }
    );
}

#[test]
fn continuation_lines_comments_and_indentation() {
    let grammar = "   r = %x01 /   ; first\n       %x02\n   s = 1*3r [%d10] \"aB\"\n";
    let rules = parse_rules(grammar).unwrap();
    assert_eq!(
        rules.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["r", "s"]
    );
    assert_eq!(rules[0].text, "%x01 / %x02");
    let Node::Concatenation(items) = &rules[1].body else {
        panic!()
    };
    assert_eq!(items.len(), 3);
    assert!(matches!(
        &items[0],
        Node::Repetition {
            min: 1,
            max: Some(3),
            ..
        }
    ));
    assert!(matches!(
        &items[1],
        Node::Repetition {
            min: 0,
            max: Some(1),
            ..
        }
    ));
}

#[test]
fn dotted_values_are_concatenations() {
    let rules = parse_rules("crlf = %x0D.0A").unwrap();
    assert_eq!(
        rules[0].body,
        Node::Concatenation(vec![
            range(0x0D, 0x0D, "%x0D.0A"),
            range(0x0A, 0x0A, "%x0D.0A")
        ])
    );
}

#[test]
fn errors_name_the_line() {
    let error = parse_rules("a = %x41\nb = %x1FF").unwrap_err();
    assert_eq!(error.line, 2);
    assert!(error.message.contains("above 255"), "{error}");
    assert!(parse_rules("a = ( %x41").is_err());
    assert!(parse_rules("a %x41").is_err());
    assert!(parse_rules("a = %x42-41").is_err());
    assert!(parse_rules("").is_err());
}
