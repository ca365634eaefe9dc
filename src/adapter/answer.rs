//! Parsing what an adapter prints: its hello line and its answers (docs/PROTOCOL.md).
//!
//! Both are one JSON object on one line. The checks here are exactly the protocol's, and
//! a line that fails them is a `protocol` finding, never guessed at:
//!
//! > 1. The adapter first prints one JSON line: `{"protocol": "utf8conf/1", "name": "...",
//! >    "version": "..."}`.
//! > 3. The adapter answers with exactly one JSON line holding `valid` (required) and,
//! >    where it can, `valid_up_to`, `error_len`, `scalars`, and `error` (free text).
//!
//! The answer fields mean what they mean in the outcome JSON (§3.2): `error_len` is a
//! number, or `null` for "the input ended inside a still-completable sequence", and an
//! absent field is one the decoder cannot produce. Unknown fields are ignored, so that
//! adapters may add their own.

use serde_json::{Map, Value};

use crate::encoders::Form;
use crate::outcome::{ErrorLen, Outcome};
use crate::sanitize::{single_line, MAX_TEXT_CHARS};

/// The protocol string of version 1.
pub const PROTOCOL_V1: &str = "utf8conf/1";
/// The protocol string of version 2 (docs/PROTOCOL.md): every answer carries `seq`.
pub const PROTOCOL_V2: &str = "utf8conf/2";
/// The longest hello `name` or `version` kept, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// What an adapter said about itself in its hello line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// The protocol version it speaks: 1 or 2.
    pub protocol: u32,
    /// The adapter's name for itself (one line, control characters escaped, at most
    /// [`MAX_NAME_CHARS`]).
    pub name: String,
    /// The version of the decoder or runtime it wraps (the same limits).
    pub version: String,
    /// Protocol 2's streaming mode (`"streaming": true`): the adapter also takes inputs
    /// as chunk frames and an end mark, and answers with what its streaming API emitted.
    pub streaming: bool,
    /// Protocol 2's encode mode (`"encode": "utf16"` or `"utf32"`): the adapter is an
    /// encoder whose frames are code units of that form, and it answers only those.
    pub encode: Option<Form>,
}

/// Parses a hello line. The version is negotiated here: the adapter names the highest
/// version it speaks, and the harness speaks both.
pub fn parse_hello(line: &[u8]) -> Result<Hello, String> {
    let object = parse_object(line)?;
    let protocol = match object.get("protocol") {
        Some(Value::String(protocol)) if protocol == PROTOCOL_V1 => 1,
        Some(Value::String(protocol)) if protocol == PROTOCOL_V2 => 2,
        Some(Value::String(protocol)) => {
            return Err(format!(
                "unsupported protocol \"{}\" in hello (expected \"{PROTOCOL_V1}\" or \"{PROTOCOL_V2}\")",
                single_line(protocol, MAX_NAME_CHARS)
            ))
        }
        _ => return Err(format!("hello has no \"protocol\": \"{PROTOCOL_V1}\"")),
    };
    let text_field = |field: &str| match object.get(field) {
        Some(Value::String(text)) if !text.trim().is_empty() => {
            Ok(single_line(text, MAX_NAME_CHARS))
        }
        _ => Err(format!("hello has no non-empty string \"{field}\"")),
    };
    let streaming = match object.get("streaming") {
        None | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) if protocol >= 2 => true,
        Some(Value::Bool(true)) => {
            return Err(format!(
                "hello says \"streaming\": true with \"{PROTOCOL_V1}\" (streaming needs \"{PROTOCOL_V2}\")"
            ))
        }
        Some(other) => return Err(format!("hello's \"streaming\" is not a boolean: {other}")),
    };
    let encode = match object.get("encode") {
        None => None,
        Some(Value::String(form)) if protocol < 2 => {
            return Err(format!(
                "hello says \"encode\": \"{}\" with \"{PROTOCOL_V1}\" (encode mode needs \"{PROTOCOL_V2}\")",
                single_line(form, MAX_NAME_CHARS)
            ))
        }
        Some(Value::String(form)) if form == "utf16" => Some(Form::Utf16),
        Some(Value::String(form)) if form == "utf32" => Some(Form::Utf32),
        Some(other) => {
            return Err(format!(
                "hello's \"encode\" is neither \"utf16\" nor \"utf32\": {}",
                single_line(&other.to_string(), MAX_NAME_CHARS)
            ))
        }
    };
    if streaming && encode.is_some() {
        return Err("hello offers both \"streaming\" and \"encode\" (an encoder adapter answers only encode frames)".into());
    }
    Ok(Hello {
        protocol,
        name: text_field("name")?,
        version: text_field("version")?,
        streaming,
        encode,
    })
}

/// One parsed answer line: the wire form of a [`crate::outcome::Answer`].
///
/// Beside the outcome it holds what only the protocol has (protocol 2's `seq`, streaming
/// mode's emitted scalars); the adapter checks `seq` and streaming against the frame it
/// sent, then passes the outcome on as the `Answer` every other layer uses.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedAnswer {
    /// What the decoder said.
    pub outcome: Outcome,
    /// Protocol 2's `seq`: the index of the frame answered, counted from 0 since the
    /// adapter started (absent in protocol 1).
    pub seq: Option<u64>,
    /// Streaming mode's fields, when the answer has them.
    pub stream: Option<StreamAnswer>,
}

/// What a streaming API emitted for one input fed in chunks (docs/PROTOCOL.md,
/// "Streaming mode"): `emitted[i]` is what the call that fed chunk `i` returned, `flush`
/// what the end-of-input call returned; U+FFFD wherever the API reported an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamAnswer {
    /// The scalars emitted after each chunk, one list per chunk.
    pub emitted: Vec<Vec<u32>>,
    /// The scalars emitted by the final flush.
    pub flush: Vec<u32>,
}

impl StreamAnswer {
    /// Everything emitted, in order: the whole lossy decode.
    pub fn all_scalars(&self) -> Vec<u32> {
        let mut all: Vec<u32> = self.emitted.iter().flatten().copied().collect();
        all.extend_from_slice(&self.flush);
        all
    }
}

/// Parses one answer line into an [`Outcome`] for `decoder_name`; `error` text is kept
/// as one line of at most [`MAX_TEXT_CHARS`] characters.
pub fn parse_answer(decoder_name: &str, line: &[u8]) -> Result<ParsedAnswer, String> {
    let object = parse_object(line)?;
    let seq = match object.get("seq") {
        None => None,
        Some(value) => Some(value.as_u64().ok_or("\"seq\" is not a frame index")?),
    };
    let valid = match object.get("valid") {
        Some(Value::Bool(valid)) => *valid,
        Some(other) => return Err(format!("\"valid\" is not a boolean: {other}")),
        None => return Err("answer has no \"valid\"".into()),
    };
    let mut outcome = Outcome::verdict(decoder_name, valid);
    outcome.valid_up_to = match object.get("valid_up_to") {
        None => None,
        Some(value) => Some(as_offset(value).ok_or("\"valid_up_to\" is not an offset")?),
    };
    outcome.error_len = match object.get("error_len") {
        None => None,
        Some(Value::Null) => Some(ErrorLen::Incomplete),
        Some(value) => match as_offset(value) {
            Some(len) if len > 0 => Some(ErrorLen::Invalid(len)),
            _ => return Err("\"error_len\" is neither null nor a positive length".into()),
        },
    };
    outcome.scalars = match object.get("scalars") {
        None => None,
        Some(value) => Some(as_scalars("scalars", value)?),
    };
    outcome.error = match object.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(single_line(text, MAX_TEXT_CHARS)),
        Some(other) => Some(single_line(&other.to_string(), MAX_TEXT_CHARS)),
    };
    let stream = match (object.get("emitted"), object.get("flush")) {
        (None, None) => None,
        (Some(Value::Array(chunks)), Some(flush)) => Some(StreamAnswer {
            emitted: chunks
                .iter()
                .map(|chunk| as_scalars("emitted", chunk))
                .collect::<Result<_, _>>()?,
            flush: as_scalars("flush", flush)?,
        }),
        (Some(_), Some(_)) => return Err("\"emitted\" is not an array of arrays".into()),
        (Some(_), None) => return Err("\"emitted\" without \"flush\"".into()),
        (None, Some(_)) => return Err("\"flush\" without \"emitted\"".into()),
    };
    if let (Some(stream), None) = (&stream, &outcome.scalars) {
        outcome.scalars = Some(stream.all_scalars());
    }
    Ok(ParsedAnswer {
        outcome,
        seq,
        stream,
    })
}

/// Parses one answer of an encoder adapter (docs/PROTOCOL.md, "Encode mode"):
///
/// > `{"seq":0,"ok":true,"bytes":[226,130,172]}` or
/// > `{"seq":1,"ok":false,"error_at":3,"bytes":[…]}` where `error_at` is the index of the
/// > code unit (not byte) the encoder refused, and `bytes` (optional when ok=false) what
/// > it wrote before stopping.
///
/// The answer travels through the supervisor as an [`Outcome`], read back by
/// [`crate::adapter::encoder::encoded_from`]: `valid` is `ok`, `valid_up_to` is
/// `error_at`, and `scalars` holds the bytes, one per value. `error_at` is checked
/// against the input's length by the exchange, which knows the frame.
pub fn parse_encode_answer(encoder_name: &str, line: &[u8]) -> Result<ParsedAnswer, String> {
    let object = parse_object(line)?;
    let seq = match object.get("seq") {
        None => None,
        Some(value) => Some(value.as_u64().ok_or("\"seq\" is not a frame index")?),
    };
    let ok = match object.get("ok") {
        Some(Value::Bool(ok)) => *ok,
        Some(other) => return Err(format!("\"ok\" is not a boolean: {other}")),
        None => return Err("encode answer has no \"ok\"".into()),
    };
    let mut outcome = Outcome::verdict(encoder_name, ok);
    outcome.scalars = match object.get("bytes") {
        None if ok => return Err("encode answer with \"ok\": true has no \"bytes\"".into()),
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|item| item.as_u64().filter(|&byte| byte <= 255).map(|b| b as u32))
                .collect::<Option<Vec<u32>>>()
                .ok_or("\"bytes\" holds something other than integers 0..=255")?,
        ),
        Some(_) => return Err("\"bytes\" is not an array".into()),
    };
    outcome.valid_up_to = match object.get("error_at") {
        None | Some(Value::Null) => None,
        Some(_) if ok => return Err("\"error_at\" in an answer with \"ok\": true".into()),
        Some(value) => Some(as_offset(value).ok_or("\"error_at\" is not an element index")?),
    };
    outcome.error = match object.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(single_line(text, MAX_TEXT_CHARS)),
        Some(other) => Some(single_line(&other.to_string(), MAX_TEXT_CHARS)),
    };
    Ok(ParsedAnswer {
        outcome,
        seq,
        stream: None,
    })
}

/// An array of scalar values (`field` names it in the error).
fn as_scalars(field: &str, value: &Value) -> Result<Vec<u32>, String> {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_u64().and_then(|n| u32::try_from(n).ok()))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| {
                format!("\"{field}\" holds something other than 32-bit unsigned integers")
            }),
        _ => Err(format!("\"{field}\" is not an array")),
    }
}

fn as_offset(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|n| usize::try_from(n).ok())
}

fn parse_object(line: &[u8]) -> Result<Map<String, Value>, String> {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(format!("not a JSON object: {}", excerpt(line))),
        Err(error) => Err(format!("not JSON ({error}): {}", excerpt(line))),
    }
}

/// The first 80 bytes of a line, lossily, for messages.
pub fn excerpt(line: &[u8]) -> String {
    const LIMIT: usize = 80;
    let shown = String::from_utf8_lossy(&line[..line.len().min(LIMIT)]).into_owned();
    let shown = shown.trim_end().escape_debug().to_string();
    if line.len() > LIMIT {
        format!("\"{shown}\"... ({} bytes)", line.len())
    } else {
        format!("\"{shown}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_needs_the_v1_protocol_name_and_version() {
        let hello =
            parse_hello(br#"{"protocol": "utf8conf/1", "name": "py", "version": "3.12"}"#).unwrap();
        assert_eq!(hello.name, "py");
        assert_eq!(hello.protocol, 1);
        let v2 =
            parse_hello(br#"{"protocol": "utf8conf/2", "name": "py", "version": "3"}"#).unwrap();
        assert_eq!(v2.protocol, 2);
        assert_eq!(hello.version, "3.12");
        let wrong = parse_hello(br#"{"protocol": "utf8conf/999", "name": "x", "version": "1"}"#);
        assert!(wrong.unwrap_err().contains("unsupported protocol"));
        assert!(parse_hello(br#"{"protocol": "utf8conf/1", "name": "x"}"#).is_err());
        assert!(parse_hello(b"hello").is_err());
    }

    #[test]
    fn answers_keep_absent_null_and_numbers_apart() {
        let outcome = parse_answer(
            "a",
            br#"{"valid":false,"valid_up_to":0,"error_len":null,"scalars":[65533],"error":"x"}"#,
        )
        .unwrap()
        .outcome;
        assert!(!outcome.valid);
        assert_eq!(outcome.valid_up_to, Some(0));
        assert_eq!(outcome.error_len, Some(ErrorLen::Incomplete));
        assert_eq!(outcome.scalars, Some(vec![0xFFFD]));
        assert_eq!(outcome.error.as_deref(), Some("x"));
        let bare = parse_answer("a", br#"{"valid":true,"extra":1}"#).unwrap();
        assert_eq!(bare.outcome, Outcome::verdict("a", true));
        assert_eq!(bare.seq, None);
        let numbered = parse_answer("a", br#"{"seq":7,"valid":true}"#).unwrap();
        assert_eq!(numbered.seq, Some(7));
    }

    /// An adapter's hello name is text from another program: with newlines it once
    /// printed a fake "conformant" line and opened an HTML comment in the Markdown report.
    #[test]
    fn hello_names_and_error_texts_are_single_bounded_lines() {
        let hello = parse_hello(
            b"{\"protocol\":\"utf8conf/1\",\"name\":\"x\\nutf8conf: conformant\\n<!--\\u001b[2J\",\"version\":\"1\"}",
        )
        .unwrap();
        assert!(!hello.name.contains('\n') && !hello.name.contains('\x1b'));
        let long = format!(r#"{{"valid":false,"error":"{}"}}"#, "e".repeat(10_000));
        let answer = parse_answer("a", long.as_bytes()).unwrap();
        assert!(answer.outcome.error.unwrap().chars().count() <= MAX_TEXT_CHARS + 3);
        assert!(parse_hello(br#"{"protocol":"utf8conf/1","name":"","version":"1"}"#).is_err());
    }

    #[test]
    fn streaming_is_negotiated_in_a_v2_hello() {
        let hello =
            parse_hello(br#"{"protocol":"utf8conf/2","name":"s","version":"1","streaming":true}"#)
                .unwrap();
        assert!(hello.streaming);
        let v1 =
            parse_hello(br#"{"protocol":"utf8conf/1","name":"s","version":"1","streaming":true}"#);
        assert!(v1.unwrap_err().contains("streaming needs"));
        let bad =
            parse_hello(br#"{"protocol":"utf8conf/2","name":"s","version":"1","streaming":"yes"}"#);
        assert!(bad.is_err());
    }

    #[test]
    fn streaming_answers_keep_each_chunk_apart() {
        let answer = parse_answer(
            "a",
            br#"{"seq":0,"valid":false,"emitted":[[],[20320],[]],"flush":[65533]}"#,
        )
        .unwrap();
        let stream = answer.stream.unwrap();
        assert_eq!(stream.emitted, vec![vec![], vec![0x4F60], vec![]]);
        assert_eq!(stream.flush, vec![0xFFFD]);
        assert_eq!(answer.outcome.scalars, Some(vec![0x4F60, 0xFFFD]));
        for bad in [
            &br#"{"valid":true,"emitted":[[1]]}"#[..],
            br#"{"valid":true,"flush":[]}"#,
            br#"{"valid":true,"emitted":[1],"flush":[]}"#,
            br#"{"valid":true,"emitted":"ab","flush":[]}"#,
            br#"{"valid":true,"emitted":[[-1]],"flush":[]}"#,
        ] {
            assert!(parse_answer("a", bad).is_err(), "{}", excerpt(bad));
        }
    }

    #[test]
    fn encode_mode_is_negotiated_in_a_v2_hello() {
        let hello =
            parse_hello(br#"{"protocol":"utf8conf/2","name":"e","version":"1","encode":"utf16"}"#)
                .unwrap();
        assert_eq!(hello.encode, Some(Form::Utf16));
        let utf32 =
            parse_hello(br#"{"protocol":"utf8conf/2","name":"e","version":"1","encode":"utf32"}"#)
                .unwrap();
        assert_eq!(utf32.encode, Some(Form::Utf32));
        for bad in [
            &br#"{"protocol":"utf8conf/1","name":"e","version":"1","encode":"utf16"}"#[..],
            br#"{"protocol":"utf8conf/2","name":"e","version":"1","encode":"utf8"}"#,
            br#"{"protocol":"utf8conf/2","name":"e","version":"1","encode":16}"#,
            br#"{"protocol":"utf8conf/2","name":"e","version":"1","encode":"utf16","streaming":true}"#,
        ] {
            assert!(parse_hello(bad).is_err(), "{}", excerpt(bad));
        }
    }

    #[test]
    fn encode_answers_carry_bytes_and_the_refused_element() {
        let ok = parse_encode_answer("e", br#"{"seq":0,"ok":true,"bytes":[226,130,172]}"#).unwrap();
        assert_eq!(ok.seq, Some(0));
        assert!(ok.outcome.valid);
        assert_eq!(ok.outcome.scalars, Some(vec![226, 130, 172]));
        let refused = parse_encode_answer(
            "e",
            br#"{"seq":1,"ok":false,"error_at":3,"bytes":[97],"error":"lone"}"#,
        )
        .unwrap();
        assert!(!refused.outcome.valid);
        assert_eq!(refused.outcome.valid_up_to, Some(3));
        assert_eq!(refused.outcome.error.as_deref(), Some("lone"));
        let bare = parse_encode_answer("e", br#"{"seq":2,"ok":false}"#).unwrap();
        assert_eq!(bare.outcome.scalars, None);
        for bad in [
            &br#"{"seq":0,"bytes":[1]}"#[..],
            br#"{"seq":0,"ok":true}"#,
            br#"{"seq":0,"ok":true,"bytes":[256]}"#,
            br#"{"seq":0,"ok":true,"bytes":[-1]}"#,
            br#"{"seq":0,"ok":true,"bytes":"ab"}"#,
            br#"{"seq":0,"ok":true,"bytes":[],"error_at":0}"#,
            br#"{"seq":0,"ok":false,"error_at":-1}"#,
            br#"{"seq":0,"ok":"yes","bytes":[]}"#,
        ] {
            assert!(parse_encode_answer("e", bad).is_err(), "{}", excerpt(bad));
        }
    }

    #[test]
    fn malformed_answers_are_rejected() {
        for bad in [
            &b"not json"[..],
            b"[1,2]",
            br#"{"valid_up_to":1}"#,
            br#"{"valid":"yes"}"#,
            br#"{"valid":false,"error_len":0}"#,
            br#"{"valid":false,"valid_up_to":-1}"#,
            br#"{"valid":true,"scalars":[65,-1]}"#,
            br#"{"valid":true,"scalars":"AB"}"#,
            br#"{"valid":true,"scalars":[1.5]}"#,
            br#"{"seq":-1,"valid":true}"#,
        ] {
            assert!(parse_answer("a", bad).is_err(), "{}", excerpt(bad));
        }
    }
}
