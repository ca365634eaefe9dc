//! Validation, `utf8conf::fast` against simdutf8's git master (with its AVX-512
//! validator) and simdutf8 0.1.5, interleaved in each round as `benches/ratios.rs` does,
//! on the same inputs (`benches/common/mod.rs`). Prints one markdown row per input and
//! peer: median throughputs and the median of the per-round ratios (ours / theirs).
//!
//! With `--avx2`, our AVX2 backend is measured instead of the dispatched one (simdutf8
//! picks its own kernel at run time in every case).

use std::hint::black_box;
use std::time::Instant;

use utf8conf::fast::{self, Backend};

#[path = "../../common/mod.rs"]
mod common;

/// Rounds per input; the figures are medians over them.
const ROUNDS: usize = 101;

/// Bytes validated per engine per round.
const BYTES_PER_TURN: usize = 1 << 20;

type Engine = (&'static str, fn(&[u8]) -> bool);

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let avx2 = std::env::args().any(|arg| arg == "--avx2");
    let ours: Engine = if avx2 {
        ("fast-avx2", |b| {
            fast::validate_with(Backend::Avx2, b).is_some_and(|r| r.is_ok())
        })
    } else {
        ("fast", |b| fast::validate(b).is_ok())
    };
    let engines: [Engine; 3] = [
        ours,
        ("simdutf8-master", |b| simdutf8_master::basic::from_utf8(b).is_ok()),
        ("simdutf8-0.1.5", |b| simdutf8::basic::from_utf8(b).is_ok()),
    ];
    println!("| input | ours | GB/s | theirs | GB/s | ours / theirs |");
    println!("|---|---|---:|---|---:|---:|");
    for (len, size) in common::SIZES {
        for input in common::inputs(len) {
            let bytes = input.bytes();
            if std::str::from_utf8(bytes).is_err() {
                continue;
            }
            let turns = (BYTES_PER_TURN / bytes.len()).max(1);
            let mut seconds = vec![Vec::with_capacity(ROUNDS + 1); engines.len()];
            for _ in 0..ROUNDS + 1 {
                for ((_, validate), times) in engines.iter().zip(seconds.iter_mut()) {
                    let start = Instant::now();
                    for _ in 0..turns {
                        assert!(validate(black_box(bytes)));
                    }
                    times.push(start.elapsed().as_secs_f64() / turns as f64);
                }
            }
            // The first round warms caches; dropped.
            for times in &mut seconds {
                times.remove(0);
            }
            let gbps = |s: f64| bytes.len() as f64 / s / 1e9;
            let ours_median = median(&mut seconds[0].clone());
            for peer in 1..engines.len() {
                let mut ratios: Vec<f64> = (0..ROUNDS)
                    .map(|round| seconds[peer][round] / seconds[0][round])
                    .collect();
                println!(
                    "| {}-{size} | {} | {:.2} | {} | {:.2} | {:.2}x |",
                    input.name,
                    engines[0].0,
                    gbps(ours_median),
                    engines[peer].0,
                    gbps(median(&mut seconds[peer].clone())),
                    median(&mut ratios)
                );
            }
        }
    }
}
