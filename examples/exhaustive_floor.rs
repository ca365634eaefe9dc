//! The floor under `utf8conf exhaustive --max-len 4`: what the built-in decoders' own
//! calls cost on 4-byte inputs, with no harness around them.
//!
//! The exhaustive run sends each of the 4,294,967,296 inputs of 4 bytes through every
//! built-in decoder. Whatever the harness does, it cannot take less CPU time than the
//! decoders' own calls. This program measures that floor on an even sample of the 4-byte
//! space (every input whose index is a multiple of `--stride`), in CPU time of the
//! measuring thread:
//!
//! - the library APIs the `encoding_rs` and `encoding_rs-chunked` decoders exist to test
//!   (the one-shot `decode_without_bom_handling`; the streaming decoder's strict pass,
//!   `decode_to_str_without_replacement` until the input is used up, then the end call; and
//!   its replacing pass, `decode_to_str`), called directly;
//! - each built-in decoder's `decode_into` into a reused outcome: the library call plus
//!   the conversion into an outcome, without the reference, the comparison or the counts.
//!
//! Run: `cargo run --release --example exhaustive_floor [-- --stride 257]`. The figures
//! and what they mean for the 10-minute aim are in docs/PROOFS.md ("Time").

use std::hint::black_box;
use std::time::Duration;

use encoding_rs::{DecoderResult, UTF_8};
use utf8conf::decoders;
use utf8conf::outcome::Outcome;

/// CPU time used so far by the calling thread.
fn thread_cpu_time() -> Duration {
    // SAFETY: `usage` is a valid, writable `rusage`; `getrusage` only writes into it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Every `stride`-th 4-byte input, as the big-endian bytes of its index.
fn sample(stride: u64) -> impl Iterator<Item = [u8; 4]> {
    (0..1u64 << 32)
        .step_by(stride as usize)
        .map(|index| (index as u32).to_be_bytes())
}

/// Runs `call` on every sampled input; returns CPU nanoseconds per input.
fn per_input(stride: u64, mut call: impl FnMut(&[u8])) -> f64 {
    let start = thread_cpu_time();
    let mut count = 0u64;
    for input in sample(stride) {
        call(black_box(&input));
        count += 1;
    }
    (thread_cpu_time() - start).as_nanos() as f64 / count as f64
}

/// encoding_rs's strict streaming pass over `input` as one chunk, then the end call.
fn strict_pass(input: &[u8], output: &mut str) -> usize {
    let mut decoder = UTF_8.new_decoder_without_bom_handling();
    let mut malformed = 0;
    for (mut rest, last) in [(input, false), (&[][..], true)] {
        loop {
            let (result, read, _) = decoder.decode_to_str_without_replacement(rest, output, last);
            rest = &rest[read..];
            match result {
                DecoderResult::InputEmpty => break,
                DecoderResult::Malformed(..) => malformed += 1,
                DecoderResult::OutputFull => {}
            }
        }
    }
    malformed
}

/// encoding_rs's replacing streaming pass over `input` as one chunk, then the end call.
fn replacing_pass(input: &[u8], output: &mut str) -> usize {
    let mut decoder = UTF_8.new_decoder_without_bom_handling();
    let (_, _, written, _) = decoder.decode_to_str(input, output, false);
    let (_, _, more, _) = decoder.decode_to_str(&[], &mut output[written..], true);
    written + more
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut stride = 257u64;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--stride", Some(value)) if value > 0 => stride = value,
            _ => {
                eprintln!("usage: exhaustive_floor [--stride N] (N > 0; default 257)");
                std::process::exit(2);
            }
        }
    }
    let inputs = (1u64 << 32).div_ceil(stride);
    println!("every {stride}th input of 4 bytes: {inputs} inputs; CPU ns per input");
    let mut output = "\0".repeat(64);
    let mut sink = 0usize;
    let library = [
        (
            "encoding_rs one-shot decode_without_bom_handling",
            per_input(stride, |input| {
                sink += UTF_8.decode_without_bom_handling(input).0.len();
            }),
        ),
        (
            "encoding_rs streaming strict pass (one chunk + end)",
            per_input(stride, |input| sink += strict_pass(input, &mut output)),
        ),
        (
            "encoding_rs streaming replacing pass (one chunk + end)",
            per_input(stride, |input| sink += replacing_pass(input, &mut output)),
        ),
    ];
    for (name, ns) in library {
        println!("  {ns:7.1}  {name}");
    }
    let mut total = 0.0;
    let mut outcome = Outcome::verdict("", true);
    for decoder in decoders::builtin().iter().skip(1) {
        let ns = per_input(stride, |input| {
            decoder
                .decode_into(input, &mut outcome)
                .expect("built-in decoders answer");
        });
        total += ns;
        println!("  {ns:7.1}  decode_into of {}", decoder.name());
    }
    let budget = 2.0 * 600.0 * 1e9 / (1u64 << 32) as f64;
    println!(
        "  {total:7.1}  all built-in decoders but the reference; a 10-minute run on 2 cores \
         allows {budget:.1} for everything ({sink})"
    );
}
