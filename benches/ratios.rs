//! Same-run throughput ratios of `utf8conf::fast` against its peers, measured
//! *interleaved*: in each round every engine decodes the input once in turn (a few
//! iterations, about a millisecond), so that load from other processes on a shared
//! machine hits all engines alike. Prints, per input, the median throughput of each
//! engine over the rounds and the median of the per-round ratios (ours / theirs).
//!
//! Run: `cargo bench --bench ratios` (all groups), and, for the AVX2 backend against
//! simdutf's AVX2 kernel, `SIMDUTF_FORCE_IMPLEMENTATION=haswell cargo bench --bench
//! ratios` (simdutf reads that variable once, on first use; with it set, only the
//! `utf32-haswell` and `utf16-haswell` groups, selected as `utf32` and `utf16`, and the
//! encoder groups' AVX2 rows run). The encoder groups
//! (`encode-utf16`, `encode-utf16-lossy`, `encode-utf32`) are in `benches/encode`.
//! Criterion's `benches/fast.rs` gives the absolute
//! figures for every engine; this one the ratios the targets are stated in.

use std::hint::black_box;
use std::time::Instant;

use utf8conf::fast::{self, Backend};

mod common;
mod encode;

use common::{inputs, simdutf_name, SIZES};

/// Rounds per input; the reported figures are medians over them.
const ROUNDS: usize = 31;

/// Bytes decoded per engine per round (whole inputs, at least one).
const BYTES_PER_TURN: usize = 2 << 20;

/// An engine: its name and one decoding of the input into reused buffers.
type Engine<'a> = (String, Box<dyn FnMut(&[u8]) -> usize + 'a>);

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs `engines` interleaved on `bytes`; prints one table row per engine after the
/// first, as `first / engine`.
fn compare(group: &str, input: &str, bytes: &[u8], engines: &mut [Engine<'_>]) {
    let turns = (BYTES_PER_TURN / bytes.len().max(1)).max(1);
    let mut seconds: Vec<Vec<f64>> = vec![Vec::with_capacity(ROUNDS); engines.len()];
    for _ in 0..ROUNDS + 1 {
        for (engine, times) in engines.iter_mut().zip(seconds.iter_mut()) {
            let start = Instant::now();
            for _ in 0..turns {
                black_box((engine.1)(black_box(bytes)));
            }
            times.push(start.elapsed().as_secs_f64() / turns as f64);
        }
    }
    // The first round warms caches and the allocator; drop it.
    for times in &mut seconds {
        times.remove(0);
    }
    let gbps = |s: f64| bytes.len() as f64 / s / 1e9;
    let ours = median(&mut seconds[0].clone());
    for index in 1..engines.len() {
        let mut ratios: Vec<f64> = (0..ROUNDS)
            .map(|round| seconds[index][round] / seconds[0][round])
            .collect();
        let theirs = median(&mut seconds[index].clone());
        println!(
            "| {group} | {input} | {} | {:.2} | {} | {:.2} | {:.2}x |",
            engines[0].0,
            gbps(ours),
            engines[index].0,
            gbps(theirs),
            median(&mut ratios)
        );
    }
}

/// Where a comparison's rows go: the group, the input's name, and its bytes.
#[cfg(target_arch = "x86_64")]
struct Row<'a> {
    group: &'a str,
    input: &'a str,
    bytes: &'a [u8],
}

/// Compares `ours` (a UTF-32 conversion) with each of simdutf's two UTF-8 to
/// UTF-32 conversions, plain and with errors, as two rows of `row.group`; `label` turns
/// simdutf's conversion name into the engine name shown.
#[cfg(target_arch = "x86_64")]
fn compare_with_simdutf_utf32(
    row: Row<'_>,
    ours: &mut Engine<'_>,
    label: fn(&str) -> String,
    other32: &mut Vec<u32>,
) {
    for with_errors in [false, true] {
        let their_name = if with_errors {
            "simdutf-with-errors"
        } else {
            "simdutf"
        };
        let mut engines: Vec<Engine<'_>> = vec![
            (ours.0.clone(), Box::new(|b| (ours.1)(b))),
            (
                label(their_name),
                Box::new(|b| simdutf_utf32(b, other32, with_errors)),
            ),
        ];
        compare(row.group, row.input, row.bytes, &mut engines);
    }
}

/// simdutf's `convert_utf8_to_utf32` into `out` (capacity at least `bytes.len()`).
#[cfg(target_arch = "x86_64")]
fn simdutf_utf32(bytes: &[u8], out: &mut Vec<u32>, with_errors: bool) -> usize {
    out.clear();
    out.reserve(bytes.len());
    // SAFETY: `out` has capacity for `bytes.len()` scalars, the most UTF-8 of that
    // length holds; simdutf writes at most that many and returns how many (0, or an
    // error code, on ill-formed input: the inputs here are well-formed).
    unsafe {
        let written = if with_errors {
            let result = simdutf::convert_utf8_to_utf32_with_errors(
                bytes.as_ptr(),
                bytes.len(),
                out.as_mut_ptr(),
            );
            assert!(matches!(result.error, simdutf::ErrorCode::Success));
            result.count
        } else {
            simdutf::convert_utf8_to_utf32(bytes.as_ptr(), bytes.len(), out.as_mut_ptr())
        };
        out.set_len(written);
    }
    out.len()
}

/// Whether the group `name` runs: every group, or those named on the command line
/// (`cargo bench --bench ratios -- utf16 utf16-lossy`).
fn selected(name: &str) -> bool {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    named.is_empty() || named.iter().any(|group| group == name)
}

/// simdutf's `convert_utf8_to_utf16` (or its `_with_errors` form) into `out`.
#[cfg(target_arch = "x86_64")]
fn simdutf_utf16(bytes: &[u8], out: &mut Vec<u16>, with_errors: bool) -> usize {
    out.clear();
    out.reserve(bytes.len());
    // SAFETY: `out` has room for `bytes.len()` code units, the most UTF-8 of that length
    // gives; simdutf writes at most that many and returns how many (the inputs given
    // here are well-formed).
    unsafe {
        let written = if with_errors {
            let result = simdutf::convert_utf8_to_utf16_with_errors(
                bytes.as_ptr(),
                bytes.len(),
                out.as_mut_ptr(),
            );
            assert!(matches!(result.error, simdutf::ErrorCode::Success));
            result.count
        } else {
            simdutf::convert_utf8_to_utf16(bytes.as_ptr(), bytes.len(), out.as_mut_ptr())
        };
        out.set_len(written);
    }
    out.len()
}

/// encoding_rs's UTF-8 decoder writing UTF-16 (replacement on errors) into `out`.
fn encoding_rs_utf16(bytes: &[u8], out: &mut Vec<u16>) -> usize {
    let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
    out.clear();
    out.resize(bytes.len() + 1, 0);
    let (_, _, written, _) = decoder.decode_to_utf16(bytes, out, true);
    out.truncate(written);
    out.len()
}

/// The UTF-16 groups: strict against simdutf (well-formed inputs), lossy against
/// encoding_rs and std (every input).
fn compare_utf16(name: &str, bytes: &[u8], well_formed: bool) {
    let mut ours16: Vec<u16> = Vec::with_capacity(bytes.len() + 64);
    let mut other16: Vec<u16> = Vec::with_capacity(bytes.len() + 64);
    #[cfg(target_arch = "x86_64")]
    if well_formed && selected("utf16") {
        versus_simdutf_utf16("utf16", name, bytes, "fast", |b, out| {
            let _ = fast::decode_utf16(b, out);
        });
    }
    let _ = well_formed;
    if selected("utf16-lossy") {
        let mut engines: Vec<Engine<'_>> = vec![
            (
                "fast".into(),
                Box::new(|b| {
                    ours16.clear();
                    fast::decode_utf16_lossy(b, &mut ours16);
                    ours16.len()
                }),
            ),
            (
                "encoding_rs".into(),
                Box::new(|b| encoding_rs_utf16(b, &mut other16)),
            ),
            (
                "std".into(),
                Box::new(|b| String::from_utf8_lossy(b).encode_utf16().count()),
            ),
        ];
        compare("utf16-lossy", name, bytes, &mut engines);
    }
}

/// `utf16-haswell` (with `SIMDUTF_FORCE_IMPLEMENTATION` set): the AVX2 backend called
/// directly against simdutf's forced kernel, both conversions (well-formed inputs).
#[cfg(target_arch = "x86_64")]
fn compare_utf16_avx2(name: &str, bytes: &[u8]) {
    versus_simdutf_utf16("utf16-haswell", name, bytes, "fast-avx2", |b, out| {
        let _ = fast::decode_utf16_with(Backend::Avx2, b, out);
    });
}

/// One strict UTF-16 decode of ours (`ours`, named `our_name`) against simdutf's
/// conversion and its `_with_errors` form, in turn, in bench group `group`.
#[cfg(target_arch = "x86_64")]
fn versus_simdutf_utf16(
    group: &str,
    name: &str,
    bytes: &[u8],
    our_name: &str,
    ours: fn(&[u8], &mut Vec<u16>),
) {
    let mut ours16: Vec<u16> = Vec::with_capacity(bytes.len() + 64);
    let mut other16: Vec<u16> = Vec::with_capacity(bytes.len() + 64);
    for with_errors in [false, true] {
        let their_name = if with_errors {
            "simdutf-with-errors"
        } else {
            "simdutf"
        };
        let mut engines: Vec<Engine<'_>> = vec![
            (
                our_name.to_string(),
                Box::new(|b| {
                    ours16.clear();
                    ours(b, &mut ours16);
                    ours16.len()
                }),
            ),
            (
                simdutf_name(their_name),
                Box::new(|b| simdutf_utf16(b, &mut other16, with_errors)),
            ),
        ];
        compare(group, name, bytes, &mut engines);
    }
}

/// Different texts the `mixed-unrepeated` rows decode in turn.
const UNREPEATED: usize = 16;

/// `utf16` on `mixed` text that is not the same from one call to the next: each call
/// decodes the next of [`UNREPEATED`] texts drawn with different seeds. A kernel that
/// branches on the data runs faster on one input decoded over and over (the branch
/// predictor learns its branches, even at 1 MiB) than on text it meets once; these
/// rows measure the latter.
#[cfg(target_arch = "x86_64")]
fn compare_utf16_unrepeated(len: usize, size: &str) {
    if !selected("utf16") {
        return;
    }
    let texts: Vec<common::Input> = (0..UNREPEATED as u64)
        .map(|seed| common::Input::new("mixed", common::text(common::MIXED_WORDS, len, 100 + seed)))
        .collect();
    let texts = &texts;
    let mut ours16: Vec<u16> = Vec::with_capacity(len + 64);
    let mut other16: Vec<u16> = Vec::with_capacity(len + 64);
    for with_errors in [false, true] {
        let their_name = if with_errors {
            "simdutf-with-errors"
        } else {
            "simdutf"
        };
        let (mut ours_next, mut theirs_next) = (0, 0);
        let mut engines: Vec<Engine<'_>> = vec![
            (
                "fast".into(),
                Box::new(|_| {
                    let bytes = texts[ours_next % UNREPEATED].bytes();
                    ours_next += 1;
                    ours16.clear();
                    let _ = fast::decode_utf16(bytes, &mut ours16);
                    ours16.len()
                }),
            ),
            (
                simdutf_name(their_name),
                Box::new(|_| {
                    let bytes = texts[theirs_next % UNREPEATED].bytes();
                    theirs_next += 1;
                    simdutf_utf16(bytes, &mut other16, with_errors)
                }),
            ),
        ];
        let name = format!("mixed-unrepeated-{size}");
        compare("utf16", &name, texts[0].bytes(), &mut engines);
    }
}

/// Lossy decoding to UTF-8 against std and encoding_rs: once with a fresh `String`
/// per call (`decode_lossy`), once into a buffer reused from call to call
/// (`decode_lossy_into`), each interleaved with the peers.
fn compare_lossy(name: &str, bytes: &[u8], group: &str) {
    let mut text = String::with_capacity(3 * bytes.len());
    for into in [false, true] {
        let ours: Engine<'_> = if into {
            (
                "fast-into".into(),
                Box::new(|b| {
                    text.clear();
                    fast::decode_lossy_into(b, &mut text);
                    text.len()
                }),
            )
        } else {
            ("fast".into(), Box::new(|b| fast::decode_lossy(b).len()))
        };
        let mut engines: Vec<Engine<'_>> = vec![
            ours,
            ("std".into(), Box::new(|b| String::from_utf8_lossy(b).len())),
            (
                "encoding_rs".into(),
                Box::new(|b| encoding_rs::UTF_8.decode_without_bom_handling(b).0.len()),
            ),
        ];
        compare(group, name, bytes, &mut engines);
    }
}

/// Mixed text of `len` bytes with `percent`% of its bytes replaced by random ones.
fn corrupted(len: usize, percent: usize) -> Vec<u8> {
    let mut rng = common::Rng(11 + percent as u64);
    let mut bytes = common::text(common::MIXED_WORDS, len, 6);
    for byte in bytes.iter_mut() {
        if rng.below(100) < percent {
            *byte = rng.next() as u8;
        }
    }
    bytes
}

/// The corruption curve (group `curve`): lossy decoding of mixed text with 0, 10, ...,
/// 100% of its bytes corrupt, ours (both forms) against std and encoding_rs. Rows are
/// named `mixed-<percent>%-<size>`; `benches/report.py --curve` draws them.
fn corruption_curve() {
    for (len, size) in SIZES {
        for percent in (0..=100).step_by(10) {
            let bytes = corrupted(len, percent);
            compare_lossy(&format!("mixed-{percent}%-{size}"), &bytes, "curve");
        }
    }
}

fn main() {
    let forced = std::env::var("SIMDUTF_FORCE_IMPLEMENTATION").is_ok_and(|v| !v.is_empty());
    println!("| group | input | ours | GB/s | theirs | GB/s | ours / theirs |");
    println!("|---|---|---|---:|---|---:|---:|");
    if !forced && selected("curve") {
        corruption_curve();
    }
    for (len, size) in SIZES {
        for input in inputs(len) {
            let bytes = input.bytes();
            let name = format!("{}-{size}", input.name);
            let well_formed = std::str::from_utf8(bytes).is_ok();
            let mut out32: Vec<u32> = Vec::with_capacity(len + 64);
            let mut other32: Vec<u32> = Vec::with_capacity(len + 64);
            if let Ok(text) = std::str::from_utf8(bytes) {
                encode::compare_encoders(&name, text, forced);
            }
            if forced {
                #[cfg(target_arch = "x86_64")]
                if well_formed && Backend::Avx2.is_available() && selected("utf16") {
                    compare_utf16_avx2(&name, bytes);
                }
                #[cfg(target_arch = "x86_64")]
                if well_formed && Backend::Avx2.is_available() && selected("utf32") {
                    let mut ours: Engine<'_> = (
                        "fast-avx2".into(),
                        Box::new(|b| {
                            out32.clear();
                            let _ = fast::decode_utf32_with(Backend::Avx2, b, &mut out32);
                            out32.len()
                        }),
                    );
                    let row = Row {
                        group: "utf32-haswell",
                        input: &name,
                        bytes,
                    };
                    compare_with_simdutf_utf32(row, &mut ours, simdutf_name, &mut other32);
                }
                continue;
            }
            compare_utf16(&name, bytes, well_formed);
            if well_formed && selected("validate") {
                let mut engines: Vec<Engine<'_>> = vec![
                    (
                        "fast".into(),
                        Box::new(|b| fast::validate(b).is_ok() as usize),
                    ),
                    (
                        "simdutf8-basic".into(),
                        Box::new(|b| simdutf8::basic::from_utf8(b).is_ok() as usize),
                    ),
                ];
                #[cfg(target_arch = "x86_64")]
                engines.push((
                    "simdutf".into(),
                    Box::new(|b| simdutf::validate_utf8(b) as usize),
                ));
                compare("validate", &name, bytes, &mut engines);
                drop(engines);
            }
            if well_formed && selected("utf32") {
                let mut engines: Vec<Engine<'_>> = vec![
                    (
                        "fast".into(),
                        Box::new(|b| {
                            out32.clear();
                            let _ = fast::decode_utf32(b, &mut out32);
                            out32.len()
                        }),
                    ),
                    (
                        "std-chars".into(),
                        Box::new(|b| {
                            other32.clear();
                            let text = std::str::from_utf8(b).unwrap();
                            other32.extend(text.chars().map(u32::from));
                            other32.len()
                        }),
                    ),
                ];
                compare("utf32", &name, bytes, &mut engines);
                drop(engines);
                #[cfg(target_arch = "x86_64")]
                {
                    let mut ours: Engine<'_> = (
                        "fast".into(),
                        Box::new(|b| {
                            out32.clear();
                            let _ = fast::decode_utf32(b, &mut out32);
                            out32.len()
                        }),
                    );
                    let row = Row {
                        group: "utf32",
                        input: &name,
                        bytes,
                    };
                    compare_with_simdutf_utf32(row, &mut ours, str::to_string, &mut other32);
                }
            }
            if !matches!(input.name, "random" | "mixed-1%-errors" | "mixed") || !selected("lossy") {
                continue;
            }
            compare_lossy(&name, bytes, "lossy");
        }
        #[cfg(target_arch = "x86_64")]
        if !forced {
            compare_utf16_unrepeated(len, size);
        }
    }
}
