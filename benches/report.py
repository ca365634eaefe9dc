#!/usr/bin/env python3
"""Turns criterion's results for `benches/fast.rs` into the README tables.

Usage: python3 benches/report.py [CRITERION_DIR]   (default: target/criterion)

For each group (validate, utf32, lossy) and input, prints the median throughput of
every engine in GB/s (10^9 bytes per second) and the ratios the targets are stated in.
"""
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "criterion")


def load(group):
    """{input: {engine: GB/s}} from the median of each benchmark."""
    results = {}
    group_dir = os.path.join(root, group)
    if not os.path.isdir(group_dir):
        return results
    for engine in sorted(os.listdir(group_dir)):
        engine_dir = os.path.join(group_dir, engine)
        if engine == "report" or not os.path.isdir(engine_dir):
            continue
        for case in os.listdir(engine_dir):
            new = os.path.join(engine_dir, case, "new")
            try:
                with open(os.path.join(new, "estimates.json")) as f:
                    median_ns = json.load(f)["median"]["point_estimate"]
                with open(os.path.join(new, "benchmark.json")) as f:
                    size = json.load(f)["throughput"]["Bytes"]
            except (OSError, KeyError, TypeError):
                continue
            results.setdefault(case, {})[engine] = size / median_ns
    return results


INPUT_ORDER = ["ascii", "2-byte", "cjk", "emoji", "mixed", "mixed-1%-errors", "random"]


def case_key(case):
    name, size = case.rsplit("-", 1)
    return (size != "64KiB", INPUT_ORDER.index(name) if name in INPUT_ORDER else 99)


def table(group, engines, ratios, title=None):
    results = load(group)
    if not results:
        return
    header = ["input"] + engines + [name for name, _, _ in ratios]
    print(f"\n#### {title or f'`{group}`'} (GB/s)\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    for case in sorted(results, key=case_key):
        row = results[case]
        cells = [case]
        for engine in engines:
            cells.append(f"{row[engine]:.2f}" if engine in row else "-")
        for _, num, den in ratios:
            # `den` is one engine, or a list of engines whose best median is taken.
            dens = [den] if isinstance(den, str) else den
            present = [row[d] for d in dens if d in row]
            if num in row and present:
                cells.append(f"{row[num] / max(present):.2f}x")
            else:
                cells.append("-")
        print("| " + " | ".join(cells) + " |")


table(
    "validate",
    ["fast", "fast-avx512", "fast-avx2", "fast-sse42", "fast-scalar", "std",
     "simdutf8-basic", "simdutf8-compat", "encoding_rs", "simdutf"],
    [("fast / simdutf8-basic", "fast", "simdutf8-basic"),
     ("fast / simdutf", "fast", "simdutf"),
     ("fast-avx2 / simdutf8-basic", "fast-avx2", "simdutf8-basic"),
     ("fast / std", "fast", "std")],
)
table(
    "utf32",
    ["fast", "fast-avx512", "fast-avx2", "fast-sse42", "std-chars", "simdutf",
     "simdutf-with-errors"],
    [("fast / std-chars", "fast", "std-chars"),
     ("fast / best simdutf", "fast", ["simdutf", "simdutf-with-errors"])],
)
# From the run with SIMDUTF_FORCE_IMPLEMENTATION=haswell (simdutf's AVX2 kernel).
table(
    "utf32",
    ["fast-avx2", "simdutf@haswell", "simdutf-with-errors@haswell"],
    [("fast-avx2 / best simdutf@haswell", "fast-avx2",
      ["simdutf@haswell", "simdutf-with-errors@haswell"])],
    title="`utf32`, AVX2 against simdutf forced to `haswell`",
)
table(
    "lossy",
    ["fast", "fast-scalar", "std", "encoding_rs"],
    [("fast / std", "fast", "std"), ("fast / encoding_rs", "fast", "encoding_rs")],
)
