//! `utf8conf adapter-test`: checks an adapter's protocol handling (docs/PROTOCOL.md), not
//! its decoding, and tells its author exactly what is wrong.
//!
//! Each check drives the adapter the way `check` does and, when something goes wrong,
//! tries the experiment that tells the usual mistakes apart:
//!
//! - no hello in time: send a frame; a hello that comes only then was printed after
//!   reading input (a *late hello*); one that comes only when stdin is closed was never
//!   flushed;
//! - no answer in time: close stdin; an answer that comes only then was never flushed
//!   (*no flush*: stdout is fully buffered when it is a pipe);
//! - a line that is not JSON where an answer or the hello belongs: *debug output on
//!   stdout*;
//! - a malformed answer: the exact field (`"scalars"` sent as a string, ...);
//! - the adapter exits on an input: a *crash on* that input (the empty input, a large
//!   one, ...), with its exit status and stderr;
//! - a second line for one input, pipelined frames answered out of order (protocol 2
//!   `seq`), no exit 0 at the end of input.
//!
//! An encoder adapter (`"encode"` in its hello, docs/PROTOCOL.md "Encode mode") is sent
//! code units instead, and its answers are held to that mode: `ok`, `bytes` in 0..=255,
//! `error_at` naming one of the frame's code units, and the bytes of U+0061, U+20AC and
//! U+1F600 exactly (which shows the code units are read little-endian).

use std::time::{Duration, Instant};

use super::answer::{excerpt, parse_answer, parse_encode_answer, parse_hello, Hello};
use super::process::{AdapterProcess, NextLine};
use crate::encoders::Form;
use crate::sanitize::terminal;

/// How long the adapter-test waits for the hello before experimenting.
const HELLO_WAIT: Duration = Duration::from_secs(5);
/// How long a second line for one input is waited for.
const EXTRA_LINE_WAIT: Duration = Duration::from_millis(200);
/// Frames sent at once by the pipelining check.
const PIPELINED: usize = 200;

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// What was checked.
    pub check: String,
    /// `None` when it passed; else what is wrong and how to fix it.
    pub problem: Option<String>,
}

/// One input each adapter must answer.
struct Probe {
    name: String,
    frame: Vec<u8>,
    /// The bytes an encoder must write for it, when every encoder writes the same.
    encoded: Option<Vec<u8>>,
}

/// The inputs each adapter must answer: a decoder's bytes, or an encoder's code units.
fn probes(encode: Option<Form>) -> Vec<Probe> {
    let Some(form) = encode else {
        let mut large = vec![b'a'; 1 << 20];
        large.extend_from_slice("\u{20AC}".as_bytes());
        let decoder = [
            ("the empty input", Vec::new()),
            ("ASCII input 61", b"a".to_vec()),
            ("multi-byte input E2 82 AC", "\u{20AC}".as_bytes().to_vec()),
            ("invalid input FF", vec![0xFF]),
            ("truncated input E2 82", vec![0xE2, 0x82]),
            ("a large input (1 MiB)", large),
        ];
        return decoder
            .into_iter()
            .map(|(name, frame)| Probe {
                name: name.into(),
                frame,
                encoded: None,
            })
            .collect();
    };
    let smiley: Vec<u32> = match form {
        Form::Utf16 => vec![0xD83D, 0xDE00],
        Form::Utf32 => vec![0x1_F600],
    };
    let unencodable = match form {
        Form::Utf16 => 0xD800,
        Form::Utf32 => 0x11_0000,
    };
    let mut large = vec![0x61; 1 << 20];
    large.push(0x20AC);
    let encoder: [(&str, Vec<u32>, Option<&str>); 6] = [
        ("the empty input", vec![], Some("")),
        ("U+0061", vec![0x61], Some("a")),
        ("U+20AC", vec![0x20AC], Some("\u{20AC}")),
        ("U+1F600", smiley, Some("\u{1F600}")),
        (
            "an unencodable element",
            vec![0x61, unencodable, 0x62],
            None,
        ),
        ("a large input (1 Mi code units)", large, None),
    ];
    encoder
        .into_iter()
        .map(|(name, units, text)| Probe {
            name: format!(
                "{name} ({}: {} code unit{})",
                form.as_str(),
                units.len(),
                if units.len() == 1 { "" } else { "s" }
            ),
            frame: form.frame(&units),
            encoded: text.map(|text| text.as_bytes().to_vec()),
        })
        .collect()
}

/// Runs every check against the adapter `argv` with `answer_timeout` per answer. The
/// first result is the hello; when it fails, nothing else can be checked.
pub fn test_adapter(argv: &[String], answer_timeout: Duration) -> Vec<CheckResult> {
    let mut results = Vec::new();
    let (process, hello) = match start(argv) {
        Ok(started) => started,
        Err(problem) => {
            results.push(CheckResult {
                check: "hello line".into(),
                problem: Some(problem),
            });
            return results;
        }
    };
    results.push(CheckResult {
        check: format!(
            "hello line (protocol utf8conf/{}, name \"{}\", version \"{}\"{})",
            hello.protocol,
            hello.name,
            hello.version,
            hello
                .encode
                .map(|form| format!(", encoder of {}", form.as_str()))
                .unwrap_or_default()
        ),
        problem: None,
    });
    let mut process = Some(process);
    let mut seq = 0u64;
    for probe in probes(hello.encode) {
        let problem = answer_problem(&mut process, &hello, &mut seq, &probe, answer_timeout);
        let failed = problem.is_some();
        results.push(CheckResult {
            check: format!("answer to {}", probe.name),
            problem,
        });
        if failed {
            if let Some(mut process) = process.take() {
                process.kill();
            }
            match start(argv) {
                Ok((fresh, _)) => process = Some(fresh),
                Err(problem) => {
                    results.push(CheckResult {
                        check: "restart".into(),
                        problem: Some(problem),
                    });
                    return results;
                }
            }
            seq = 0;
        }
    }
    let process = process.expect("present after every probe");
    results.push(CheckResult {
        check: format!("{PIPELINED} pipelined frames answered in order"),
        problem: pipelining_problem(&process, &hello, &mut seq, answer_timeout),
    });
    if hello.streaming {
        results.push(CheckResult {
            check: "streaming: E4 | BD A0 | (empty) | 41 answered with one emitted list per chunk, U+4F60 U+0041 in all".into(),
            problem: streaming_problem(&process, &hello, seq, answer_timeout),
        });
    }
    results.push(CheckResult {
        check: "exit 0 at the end of input".into(),
        problem: end_problem(process),
    });
    results
}

/// Starts the adapter and reads its hello, diagnosing the usual mistakes.
fn start(argv: &[String]) -> Result<(AdapterProcess, Hello), String> {
    let process = AdapterProcess::spawn(argv)
        .map_err(|error| format!("cannot start `{}`: {error}", argv.join(" ")))?;
    let line = match process.next_line(Instant::now() + HELLO_WAIT) {
        NextLine::Line(line) => line,
        NextLine::TooLong => return Err("the first line is longer than 16 MiB".into()),
        NextLine::Interrupted => return Err("interrupted".into()),
        NextLine::Ended => {
            return Err(format!(
                "the adapter exited before printing its hello{}",
                stderr_of(&process)
            ))
        }
        NextLine::TimedOut => return Err(diagnose_missing_hello(process)),
    };
    match parse_hello(&line) {
        Ok(hello) => Ok((process, hello)),
        Err(_) if serde_json::from_slice::<serde_json::Value>(&line).is_err() => Err(format!(
            "debug output on stdout: the first line is not JSON ({}); print the hello first, and anything else on stderr",
            excerpt(&line)
        )),
        Err(reason) => Err(format!("bad hello: {reason}")),
    }
}

/// No hello within [`HELLO_WAIT`]: a late hello (after input), an unflushed one, or none.
fn diagnose_missing_hello(process: AdapterProcess) -> String {
    process.send_frame(b"a");
    if let NextLine::Line(line) = process.next_line(Instant::now() + Duration::from_secs(2)) {
        if parse_hello(&line).is_ok() {
            return format!(
                "late hello: the hello came only after the adapter was sent input; print it at start, before reading stdin (nothing came within {} s)",
                HELLO_WAIT.as_secs()
            );
        }
    }
    let finished = process.finish(Duration::from_secs(2));
    match finished.first_extra {
        Some(line) if parse_hello(&line).is_ok() => {
            "no flush: the hello came only when stdin was closed; flush stdout after the hello"
                .into()
        }
        _ => format!(
            "no hello line within {} s (the adapter must print {{\"protocol\": \"utf8conf/1\", \"name\": ..., \"version\": ...}} at start)",
            HELLO_WAIT.as_secs()
        ),
    }
}

/// Sends one input and checks its answer. The process is taken (and ended) when the
/// diagnosis needed to close its stdin.
fn answer_problem(
    slot: &mut Option<AdapterProcess>,
    hello: &Hello,
    seq: &mut u64,
    probe: &Probe,
    timeout: Duration,
) -> Option<String> {
    let name = probe.name.as_str();
    let process = slot.as_mut().expect("a running adapter");
    process.send_frame(&probe.frame);
    let line = match process.next_line(Instant::now() + timeout) {
        NextLine::Line(line) => line,
        NextLine::TooLong => return Some("the answer line is longer than 16 MiB".into()),
        NextLine::Interrupted => return Some("interrupted".into()),
        NextLine::Ended => {
            let status = process
                .exit_status(Duration::from_millis(500))
                .map_or_else(|| "closed its stdout".into(), |s| format!("exited ({s})"));
            return Some(format!(
                "crash on {name}: the adapter {status} without answering{}",
                stderr_of(process)
            ));
        }
        NextLine::TimedOut => {
            let process = slot.take().expect("a running adapter");
            return Some(diagnose_missing_answer(process, name, timeout));
        }
    };
    if let Some(problem) = line_problem(&line, hello, *seq, probe.frame.len()) {
        return Some(problem);
    }
    *seq += 1;
    if let Some(problem) = encoded_problem(&line, hello, probe) {
        return Some(problem);
    }
    match process.waiting_line(EXTRA_LINE_WAIT) {
        Some(NextLine::Line(extra)) => Some(format!(
            "two lines for one input: after the answer came {}; exactly one line per frame (debug output belongs on stderr)",
            excerpt(&extra)
        )),
        _ => None,
    }
}

/// Streaming mode (docs/PROTOCOL.md): one input as four chunks, a sequence cut in two
/// and an empty chunk among them.
fn streaming_problem(
    process: &AdapterProcess,
    hello: &Hello,
    seq: u64,
    timeout: Duration,
) -> Option<String> {
    let chunks: [&[u8]; 4] = [&[0xE4], &[0xBD, 0xA0], &[], &[0x41]];
    process.send_chunked(&chunks);
    let line = match process.next_line(Instant::now() + timeout) {
        NextLine::Line(line) => line,
        _ => {
            return Some(format!(
                "no answer to an input sent as chunk frames and an end mark within {:.1} s (a chunk frame's header has the top bit set; the end mark is FF FF FF FF)",
                timeout.as_secs_f64()
            ))
        }
    };
    if let Some(problem) = line_problem(&line, hello, seq, 0) {
        return Some(problem);
    }
    let answer = parse_answer(&hello.name, &line).ok()?;
    let Some(stream) = answer.stream else {
        return Some(format!(
            "the answer to a chunked input has no \"emitted\" and \"flush\" ({})",
            excerpt(&line)
        ));
    };
    if stream.emitted.len() != chunks.len() {
        return Some(format!(
            "{} \"emitted\" lists for {} chunks (one per chunk, empty chunks included)",
            stream.emitted.len(),
            chunks.len()
        ));
    }
    let all = stream.all_scalars();
    (all != [0x4F60, 0x41]).then(|| {
        format!(
            "E4 | BD A0 | | 41 decoded to {all:?}, not [20320, 65] (U+4F60 U+0041): is the decoder session kept from one chunk to the next?"
        )
    })
}

/// What is wrong with an answer line to a frame of `frame_bytes` bytes, if anything.
fn line_problem(line: &[u8], hello: &Hello, seq: u64, frame_bytes: usize) -> Option<String> {
    if serde_json::from_slice::<serde_json::Value>(line).is_err() {
        return Some(format!(
            "debug output on stdout: a line that is not JSON came where the answer belongs ({}); write it to stderr",
            excerpt(line)
        ));
    }
    let parsed = match hello.encode {
        None => parse_answer(&hello.name, line),
        Some(_) => parse_encode_answer(&hello.name, line),
    };
    match parsed {
        Err(reason) => Some(format!("malformed answer: {reason} ({})", excerpt(line))),
        Ok(answer) if hello.protocol >= 2 && answer.seq != Some(seq) => Some(format!(
            "protocol 2 answer with seq {:?} where {seq} was due",
            answer.seq
        )),
        Ok(answer) => {
            let units = frame_bytes / hello.encode.map_or(1, Form::unit_bytes);
            match answer.outcome.valid_up_to {
                Some(at) if hello.encode.is_some() && at >= units => Some(format!(
                    "\"error_at\": {at} is not one of the frame's {units} code units (it counts code units from 0, not bytes)"
                )),
                _ => None,
            }
        }
    }
}

/// An encoder's answer to an input every encoder encodes alike: those bytes exactly.
fn encoded_problem(line: &[u8], hello: &Hello, probe: &Probe) -> Option<String> {
    let expected = probe.encoded.as_ref()?;
    let answer = parse_encode_answer(&hello.name, line).ok()?;
    let wanted: Vec<u32> = expected.iter().map(|&b| u32::from(b)).collect();
    if answer.outcome.valid && answer.outcome.scalars.as_ref() == Some(&wanted) {
        return None;
    }
    Some(format!(
        "{} answered {}, not {{\"ok\": true, \"bytes\": {wanted:?}}}: are the code units read little-endian, {} bytes each?",
        probe.name,
        excerpt(line),
        hello.encode.map_or(1, Form::unit_bytes)
    ))
}

/// No answer within the timeout: unflushed, or none at all.
fn diagnose_missing_answer(process: AdapterProcess, name: &str, timeout: Duration) -> String {
    // Close stdin: an adapter that buffers its stdout flushes it when it exits.
    let finished = process.finish(Duration::from_secs(2));
    if finished.first_extra.is_some() {
        format!(
            "no flush: the answer to {name} came only when stdin was closed; flush stdout after every answer"
        )
    } else {
        format!("no answer to {name} within {:.1} s", timeout.as_secs_f64())
    }
}

/// Many frames at once, answered in order (checked by `valid` and, in protocol 2, `seq`).
fn pipelining_problem(
    process: &AdapterProcess,
    hello: &Hello,
    seq: &mut u64,
    timeout: Duration,
) -> Option<String> {
    // A decoder tells "ok" from FF by `valid`; an encoder tells "a" from "b" by its bytes.
    let frame = |text: &[u8]| match hello.encode {
        None => text.to_vec(),
        Some(form) => form.frame(&text.iter().map(|&b| u32::from(b)).collect::<Vec<_>>()),
    };
    let (even, odd) = match hello.encode {
        None => (frame(b"ok"), frame(b"\xFF")),
        Some(_) => (frame(b"a"), frame(b"b")),
    };
    for index in 0..PIPELINED {
        process.send_frame(if index % 2 == 0 { &even } else { &odd });
    }
    for index in 0..PIPELINED {
        let line = match process.next_line(Instant::now() + timeout) {
            NextLine::Line(line) => line,
            _ => return Some(format!("no answer to pipelined frame {index}")),
        };
        if let Some(problem) = line_problem(&line, hello, *seq, even.len()) {
            return Some(format!("pipelined frame {index}: {problem}"));
        }
        *seq += 1;
        let in_order = match hello.encode {
            None => parse_answer(&hello.name, &line).map(|a| a.outcome.valid) == Ok(index % 2 == 0),
            Some(_) => {
                let byte = if index % 2 == 0 { b'a' } else { b'b' };
                parse_encode_answer(&hello.name, &line).map(|a| a.outcome.scalars)
                    == Ok(Some(vec![u32::from(byte)]))
            }
        };
        if !in_order {
            return Some(format!(
                "pipelined frame {index} answered out of order (answer {})",
                excerpt(&line)
            ));
        }
    }
    None
}

/// Closes stdin: the adapter must exit 0 without writing more.
fn end_problem(process: AdapterProcess) -> Option<String> {
    let finished = process.finish(Duration::from_secs(2));
    if let Some(line) = finished.first_extra {
        return Some(format!(
            "wrote {} line(s) after the end of input, first {}",
            finished.extra_lines,
            excerpt(&line)
        ));
    }
    match finished.status {
        Some(status) if status.success() => None,
        Some(status) => Some(format!(
            "exited with {status} at the end of input (expected 0)"
        )),
        None => Some("did not exit within 2 s of the end of its input".into()),
    }
}

fn stderr_of(process: &AdapterProcess) -> String {
    let tail = process.stderr_tail();
    if tail.is_empty() {
        return String::new();
    }
    let skip = tail.chars().count().saturating_sub(300);
    format!(
        "; stderr: {}",
        terminal(&tail.chars().skip(skip).collect::<String>())
    )
}
