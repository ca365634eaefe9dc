//! Same-run comparison of `utf8conf::fast` with std, simdutf8, encoding_rs and the
//! simdutf C++ library, on six kinds of input at 64 KiB and 1 MiB.
//!
//! Groups (criterion ids `group/engine/input-size`):
//! * `validate`: `fast::validate` (best backend, and each SIMD backend), std
//!   `from_utf8`, simdutf8 `basic` and `compat`, encoding_rs `Encoding::utf8_valid_up_to`,
//!   simdutf `validate_utf8`;
//! * `utf32`: `fast::decode_utf32` into a reused `Vec<u32>`, std `from_utf8` + `chars()`
//!   into the same, simdutf `convert_utf8_to_utf32` into a preallocated buffer;
//! * `lossy`: `fast::decode_lossy`, `String::from_utf8_lossy`, encoding_rs
//!   `decode_without_bom_handling`.
//!
//! Inputs are generated here from fixed word lists with a fixed-seed generator (words in
//! pseudo-random order, so branch predictors cannot learn a short period). Each input
//! sits at offset 96 of its own allocation, so that its low address bits differ from the
//! output buffer's (page-aligned large allocations would otherwise make every load and
//! the store it trails alias modulo 4 KiB).
//!
//! Run: `cargo bench --manifest-path benches/criterion/Cargo.toml` (a package of its own, so
//! that the root package's `cargo test` never builds criterion; options after `--` go to
//! criterion, e.g. a filter).
//! The measurement times are short so that the whole run stays under 10 minutes on two
//! cores; `benches/report.py` turns criterion's medians into the README table.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use utf8conf::fast::{self, Backend};

mod common;

use common::{inputs, simdutf_name, SIZES};

fn configure<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(900));
    group
}

fn bench_validate(c: &mut Criterion) {
    let mut group = configure(c, "validate");
    for (len, size) in SIZES {
        for input in inputs(len) {
            if input.name == "random" || input.name.contains("errors") {
                // Every validator stops at the first error: nothing to compare.
                continue;
            }
            let bytes = input.bytes();
            let id = |engine: &str| BenchmarkId::new(engine, format!("{}-{size}", input.name));
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.bench_function(id("fast"), |b| b.iter(|| fast::validate(black_box(bytes))));
            for backend in Backend::available().filter(|&b| b != Backend::Scalar) {
                let name = format!("fast-{}", backend.name());
                group.bench_function(id(&name), |b| {
                    b.iter(|| fast::validate_with(backend, black_box(bytes)))
                });
            }
            group.bench_function(id("fast-scalar"), |b| {
                b.iter(|| fast::validate_with(Backend::Scalar, black_box(bytes)))
            });
            group.bench_function(id("std"), |b| {
                b.iter(|| std::str::from_utf8(black_box(bytes)).is_ok())
            });
            group.bench_function(id("simdutf8-basic"), |b| {
                b.iter(|| simdutf8::basic::from_utf8(black_box(bytes)).is_ok())
            });
            group.bench_function(id("simdutf8-compat"), |b| {
                b.iter(|| simdutf8::compat::from_utf8(black_box(bytes)).is_ok())
            });
            group.bench_function(id("encoding_rs"), |b| {
                b.iter(|| encoding_rs::Encoding::utf8_valid_up_to(black_box(bytes)))
            });
            #[cfg(target_arch = "x86_64")]
            group.bench_function(id(&simdutf_name("simdutf")), |b| {
                b.iter(|| simdutf::validate_utf8(black_box(bytes)))
            });
        }
    }
    group.finish();
}

fn bench_utf32(c: &mut Criterion) {
    let mut group = configure(c, "utf32");
    for (len, size) in SIZES {
        for input in inputs(len) {
            if input.name == "random" || input.name.contains("errors") {
                continue;
            }
            let bytes = input.bytes();
            let id = |engine: &str| BenchmarkId::new(engine, format!("{}-{size}", input.name));
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            let mut out: Vec<u32> = Vec::with_capacity(bytes.len() + 64);
            group.bench_function(id("fast"), |b| {
                b.iter(|| {
                    out.clear();
                    fast::decode_utf32(black_box(bytes), &mut out).is_ok()
                })
            });
            for backend in Backend::available().filter(|&b| b != Backend::Scalar) {
                let name = format!("fast-{}", backend.name());
                group.bench_function(id(&name), |b| {
                    b.iter(|| {
                        out.clear();
                        fast::decode_utf32_with(backend, black_box(bytes), &mut out)
                    })
                });
            }
            group.bench_function(id("std-chars"), |b| {
                b.iter(|| {
                    out.clear();
                    let text = std::str::from_utf8(black_box(bytes)).unwrap();
                    out.extend(text.chars().map(u32::from));
                })
            });
            #[cfg(target_arch = "x86_64")]
            group.bench_function(id(&simdutf_name("simdutf")), |b| {
                b.iter(|| {
                    out.clear();
                    let src = black_box(bytes);
                    // SAFETY: `out` has capacity for `bytes.len()` scalars, the most a
                    // UTF-8 input of that length can hold; `convert_utf8_to_utf32`
                    // writes at most that many and returns how many (0 on error).
                    unsafe {
                        let written = simdutf::convert_utf8_to_utf32(
                            src.as_ptr(),
                            src.len(),
                            out.as_mut_ptr(),
                        );
                        out.set_len(written);
                    }
                })
            });
            #[cfg(target_arch = "x86_64")]
            group.bench_function(id(&simdutf_name("simdutf-with-errors")), |b| {
                b.iter(|| {
                    out.clear();
                    let src = black_box(bytes);
                    // SAFETY: as above; `count` is the number of scalars written when
                    // `error` is `Success` (the inputs here are well-formed).
                    unsafe {
                        let result = simdutf::convert_utf8_to_utf32_with_errors(
                            src.as_ptr(),
                            src.len(),
                            out.as_mut_ptr(),
                        );
                        assert!(matches!(result.error, simdutf::ErrorCode::Success));
                        out.set_len(result.count);
                    }
                })
            });
        }
    }
    group.finish();
}

fn bench_lossy(c: &mut Criterion) {
    let mut group = configure(c, "lossy");
    for (len, size) in SIZES {
        for input in inputs(len) {
            if !matches!(input.name, "random" | "mixed-1%-errors" | "mixed" | "ascii") {
                continue;
            }
            let bytes = input.bytes();
            let id = |engine: &str| BenchmarkId::new(engine, format!("{}-{size}", input.name));
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.bench_function(id("fast"), |b| {
                b.iter(|| fast::decode_lossy(black_box(bytes)).len())
            });
            group.bench_function(id("fast-scalar"), |b| {
                b.iter(|| {
                    fast::decode_lossy_with(Backend::Scalar, black_box(bytes)).map(|s| s.len())
                })
            });
            group.bench_function(id("std"), |b| {
                b.iter(|| String::from_utf8_lossy(black_box(bytes)).len())
            });
            group.bench_function(id("encoding_rs"), |b| {
                b.iter(|| {
                    encoding_rs::UTF_8
                        .decode_without_bom_handling(black_box(bytes))
                        .0
                        .len()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_validate, bench_utf32, bench_lossy);
criterion_main!(benches);
