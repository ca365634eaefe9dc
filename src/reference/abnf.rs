//! A parser for the subset of ABNF (RFC 5234) that RFC 3629 §4 is written in.
//!
//! The reference decoder must not contain a single hand-written byte range: every range
//! comes from the grammar text. So the grammar is parsed, and this module is the parser.
//! It covers what the RFC 3629 grammar uses and the rest of RFC 5234's core notation that
//! costs nothing to support:
//!
//! ```text
//! rule        =  rulename defined-as elements c-nl        ; RFC 5234 §4
//! alternation =  concatenation *(*c-wsp "/" *c-wsp concatenation)
//! concatenation = repetition *(1*c-wsp repetition)
//! repetition  =  [repeat] element
//! repeat      =  1*DIGIT / (*DIGIT "*" *DIGIT)
//! element     =  rulename / group / option / char-val / num-val
//! group       =  "(" *c-wsp alternation *c-wsp ")"
//! option      =  "[" *c-wsp alternation *c-wsp "]"
//! num-val     =  "%" (bin-val / dec-val / hex-val)   ; with "." concatenation and "-" ranges
//! ```
//!
//! Comments (`;` to end of line) are skipped, rule names are case-insensitive (RFC 5234
//! §2.1), and a rule continues on every following line that is indented more than the
//! rule's first line. RFC text indents the whole grammar by three spaces; the parser takes
//! the least indentation of the block as column 0, so the grammar can be embedded exactly
//! as printed in the RFC.
//!
//! Values are octets: the grammar describes bytes, so a terminal above 255 is an error.

use std::fmt;

/// One parsed rule: `name = body`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The rule name as written.
    pub name: String,
    /// The rule's definition.
    pub body: Node,
    /// The definition's source text, whitespace folded (used in explanations).
    pub text: String,
}

/// A node of a rule's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// `a / b / c`: each alternative with its source text.
    Alternation(Vec<Alternative>),
    /// `a b c`.
    Concatenation(Vec<Node>),
    /// `n*m element`; `max == None` means unbounded.
    Repetition {
        /// Least number of repetitions.
        min: u32,
        /// Greatest number of repetitions, `None` for no limit.
        max: Option<u32>,
        /// What is repeated.
        node: Box<Node>,
    },
    /// A reference to another rule by name.
    RuleRef(String),
    /// One byte in `lo..=hi`, with the terminal's source text (`%x80-BF`).
    ByteRange {
        /// Lowest byte accepted.
        lo: u8,
        /// Highest byte accepted.
        hi: u8,
        /// The terminal as written in the grammar.
        text: String,
    },
}

/// One alternative of an alternation, with the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternative {
    /// The alternative's source text, whitespace folded: `%xED %x80-9F UTF8-tail`.
    pub text: String,
    /// The parsed alternative.
    pub node: Node,
}

/// A parse error with the line it occurred on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbnfError {
    /// 1-based line number in the grammar text.
    pub line: usize,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for AbnfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ABNF line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AbnfError {}

/// Parses a block of ABNF rules.
pub fn parse_rules(grammar: &str) -> Result<Vec<Rule>, AbnfError> {
    let mut rules = Vec::new();
    for (first_line, definition) in split_rules(grammar)? {
        rules.push(parse_rule(first_line, &definition)?);
    }
    if rules.is_empty() {
        return Err(AbnfError {
            line: 1,
            message: "the grammar has no rules".into(),
        });
    }
    Ok(rules)
}

/// Splits the text into rules: a rule starts on a line at the block's least indentation and
/// continues on more-indented lines. Returns each rule's first line number and its text
/// with comments removed.
fn split_rules(grammar: &str) -> Result<Vec<(usize, String)>, AbnfError> {
    let lines: Vec<(usize, &str)> = grammar
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, strip_comment(line)))
        .filter(|(_, line)| !line.trim().is_empty())
        .collect();
    let indent = |line: &str| line.len() - line.trim_start().len();
    let base = lines
        .iter()
        .map(|(_, line)| indent(line))
        .min()
        .unwrap_or(0);
    let mut rules: Vec<(usize, String)> = Vec::new();
    for (number, line) in lines {
        if indent(line) == base {
            rules.push((number, line.trim().to_string()));
        } else if let Some((_, text)) = rules.last_mut() {
            text.push(' ');
            text.push_str(line.trim());
        } else {
            return Err(AbnfError {
                line: number,
                message: "continuation line before any rule".into(),
            });
        }
    }
    Ok(rules)
}

/// Removes a `;` comment, leaving `;` inside a quoted char-val alone.
fn strip_comment(line: &str) -> &str {
    let mut in_quotes = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            ';' if !in_quotes => return &line[..i],
            _ => {}
        }
    }
    line
}

fn parse_rule(line: usize, text: &str) -> Result<Rule, AbnfError> {
    let mut parser = Parser {
        text,
        position: 0,
        line,
    };
    let name = parser.rulename()?;
    parser.skip_whitespace();
    if !parser.eat('=') {
        return parser.error("expected '=' after the rule name");
    }
    if parser.eat('/') {
        return parser.error("incremental alternatives ('=/') are not supported");
    }
    parser.skip_whitespace();
    let body_start = parser.position;
    let body = parser.alternation()?;
    parser.skip_whitespace();
    if parser.position != text.len() {
        return parser.error("unexpected text after the rule's definition");
    }
    Ok(Rule {
        name,
        body,
        text: fold_whitespace(&text[body_start..]),
    })
}

fn fold_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Parser<'a> {
    text: &'a str,
    position: usize,
    line: usize,
}

impl Parser<'_> {
    fn error<T>(&self, message: &str) -> Result<T, AbnfError> {
        Err(AbnfError {
            line: self.line,
            message: format!("{message} (at '{}')", &self.text[self.position..]),
        })
    }

    fn peek(&self) -> Option<char> {
        self.text[self.position..].chars().next()
    }

    fn eat(&mut self, expected: char) -> bool {
        if self.peek() == Some(expected) {
            self.position += expected.len_utf8();
            true
        } else {
            false
        }
    }

    fn skip_whitespace(&mut self) -> bool {
        let start = self.position;
        while self.peek().is_some_and(char::is_whitespace) {
            self.position += 1;
        }
        self.position > start
    }

    fn take_while(&mut self, accept: impl Fn(char) -> bool) -> &str {
        let start = self.position;
        while self.peek().is_some_and(&accept) {
            self.position += 1;
        }
        &self.text[start..self.position]
    }

    /// `rulename = ALPHA *(ALPHA / DIGIT / "-")`
    fn rulename(&mut self) -> Result<String, AbnfError> {
        if !self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            return self.error("expected a rule name");
        }
        Ok(self
            .take_while(|c| c.is_ascii_alphanumeric() || c == '-')
            .to_string())
    }

    /// `alternation = concatenation *(*c-wsp "/" *c-wsp concatenation)`
    fn alternation(&mut self) -> Result<Node, AbnfError> {
        let mut alternatives = Vec::new();
        loop {
            self.skip_whitespace();
            let start = self.position;
            let node = self.concatenation()?;
            let text = fold_whitespace(&self.text[start..self.position]);
            alternatives.push(Alternative { text, node });
            let before_slash = self.position;
            self.skip_whitespace();
            if !self.eat('/') {
                self.position = before_slash;
                break;
            }
        }
        Ok(if alternatives.len() == 1 {
            alternatives.pop().expect("one alternative").node
        } else {
            Node::Alternation(alternatives)
        })
    }

    /// `concatenation = repetition *(1*c-wsp repetition)`
    fn concatenation(&mut self) -> Result<Node, AbnfError> {
        let mut items = vec![self.repetition()?];
        loop {
            let before = self.position;
            if !self.skip_whitespace() {
                break;
            }
            match self.peek() {
                Some(c) if c.is_ascii_alphanumeric() || "(%[\"*".contains(c) => {
                    items.push(self.repetition()?)
                }
                _ => {
                    self.position = before;
                    break;
                }
            }
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one item")
        } else {
            Node::Concatenation(items)
        })
    }

    /// `repetition = [repeat] element`, `repeat = 1*DIGIT / (*DIGIT "*" *DIGIT)`
    fn repetition(&mut self) -> Result<Node, AbnfError> {
        let min_digits = self.take_while(|c| c.is_ascii_digit()).to_string();
        let (min, max) = if self.eat('*') {
            let max_digits = self.take_while(|c| c.is_ascii_digit()).to_string();
            (
                if min_digits.is_empty() {
                    0
                } else {
                    self.number(&min_digits, 10)?
                },
                if max_digits.is_empty() {
                    None
                } else {
                    Some(self.number(&max_digits, 10)?)
                },
            )
        } else if !min_digits.is_empty() {
            let count = self.number(&min_digits, 10)?;
            (count, Some(count))
        } else {
            return self.element();
        };
        if max.is_some_and(|max| max < min) {
            return self.error("repetition maximum below its minimum");
        }
        let node = Box::new(self.element()?);
        Ok(Node::Repetition { min, max, node })
    }

    fn number(&self, digits: &str, radix: u32) -> Result<u32, AbnfError> {
        u32::from_str_radix(digits, radix)
            .or_else(|_| self.error(&format!("number '{digits}' out of range")))
    }

    /// `element = rulename / group / option / char-val / num-val`
    fn element(&mut self) -> Result<Node, AbnfError> {
        match self.peek() {
            Some('(') | Some('[') => {
                let optional = self.eat('[');
                if !optional {
                    self.eat('(');
                }
                let inner = self.alternation()?;
                self.skip_whitespace();
                if !self.eat(if optional { ']' } else { ')' }) {
                    return self.error("unclosed group");
                }
                Ok(if optional {
                    Node::Repetition {
                        min: 0,
                        max: Some(1),
                        node: Box::new(inner),
                    }
                } else {
                    inner
                })
            }
            Some('%') => self.num_val(),
            Some('"') => self.char_val(),
            Some(c) if c.is_ascii_alphabetic() => Ok(Node::RuleRef(self.rulename()?)),
            _ => self.error("expected an element"),
        }
    }

    /// `num-val = "%" ("b" / "d" / "x") value [1*("." value) / ("-" value)]`
    fn num_val(&mut self) -> Result<Node, AbnfError> {
        let start = self.position;
        self.eat('%');
        let radix = match self.peek().map(|c| c.to_ascii_lowercase()) {
            Some('x') => 16,
            Some('d') => 10,
            Some('b') => 2,
            _ => return self.error("expected b, d or x after '%'"),
        };
        self.position += 1;
        let digit = |c: char| c.is_digit(radix);
        let first = self.octet(radix, digit)?;
        if self.eat('-') {
            let last = self.octet(radix, digit)?;
            if last < first {
                return self.error("range end below range start");
            }
            let text = self.text[start..self.position].to_string();
            return Ok(Node::ByteRange {
                lo: first,
                hi: last,
                text,
            });
        }
        let mut values = vec![first];
        while self.eat('.') {
            values.push(self.octet(radix, digit)?);
        }
        let text = &self.text[start..self.position];
        let mut nodes: Vec<Node> = values
            .into_iter()
            .map(|value| Node::ByteRange {
                lo: value,
                hi: value,
                text: text.to_string(),
            })
            .collect();
        Ok(if nodes.len() == 1 {
            nodes.pop().expect("one value")
        } else {
            Node::Concatenation(nodes)
        })
    }

    fn octet(&mut self, radix: u32, digit: impl Fn(char) -> bool) -> Result<u8, AbnfError> {
        let digits = self.take_while(digit).to_string();
        if digits.is_empty() {
            return self.error("expected digits");
        }
        let value = self.number(&digits, radix)?;
        u8::try_from(value)
            .or_else(|_| self.error("terminal value above 255: this grammar is over octets"))
    }

    /// `char-val = DQUOTE *(%x20-21 / %x23-7E) DQUOTE`, case-insensitive (RFC 5234 §2.3).
    fn char_val(&mut self) -> Result<Node, AbnfError> {
        let start = self.position;
        self.eat('"');
        let content = self.take_while(|c| c != '"').to_string();
        if !self.eat('"') {
            return self.error("unterminated string");
        }
        let text = self.text[start..self.position].to_string();
        let nodes = content
            .bytes()
            .map(|byte| {
                let (lower, upper) = (byte.to_ascii_lowercase(), byte.to_ascii_uppercase());
                let range = |b: u8| Node::ByteRange {
                    lo: b,
                    hi: b,
                    text: text.clone(),
                };
                if lower == upper {
                    range(byte)
                } else {
                    Node::Alternation(vec![
                        Alternative {
                            text: text.clone(),
                            node: range(lower),
                        },
                        Alternative {
                            text: text.clone(),
                            node: range(upper),
                        },
                    ])
                }
            })
            .collect();
        Ok(Node::Concatenation(nodes))
    }
}

#[cfg(test)]
mod tests;
