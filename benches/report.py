#!/usr/bin/env python3
"""Turns criterion's results for `benches/fast.rs` into the README tables.

Usage: python3 benches/report.py [CRITERION_DIR]   (default: benches/criterion/target/criterion,
       where `cargo bench --manifest-path benches/criterion/Cargo.toml` writes them)
       python3 benches/report.py --curve RATIOS_OUTPUT [SVG]

For each group (validate, utf32, lossy) and input, prints the median throughput of
every engine in GB/s (10^9 bytes per second) and the ratios the targets are stated in.

With --curve, reads the saved output of `cargo bench --bench ratios` (its `curve` rows:
lossy decoding of mixed text with 0..100% of its bytes corrupt), prints the curve as a
table, and draws it as an SVG (default: docs/lossy-corruption-curve.svg).
"""
import json
import os
import sys

root = (
    sys.argv[1]
    if len(sys.argv) > 1
    else os.path.join("benches", "criterion", "target", "criterion")
)


def read_curve(path):
    """{size: {percent: {engine: GB/s}}} from the `curve` rows of a ratios run."""
    curve = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 7 or cells[0] != "curve":
                continue
            _, case, ours, ours_gbps, theirs, theirs_gbps, ratio = cells
            percent, size = case[len("mixed-"):].split("%-")
            point = curve.setdefault(size, {}).setdefault(int(percent), {})
            point[ours] = float(ours_gbps)
            point[theirs] = float(theirs_gbps)
            # The same-run ratio (median of per-round ratios), kept apart from the
            # engines' medians.
            point.setdefault("ratios", {})[(ours, theirs)] = ratio
    return curve


CURVE_ENGINES = [("fast", "#1f77b4"), ("fast-into", "#2ca02c"),
                 ("std", "#d62728"), ("encoding_rs", "#ff7f0e")]


def curve_table(curve):
    for size, points in curve.items():
        print(f"\n#### lossy, mixed text, {size}, by share of corrupt bytes (GB/s)\n")
        pairs = [(o, t) for o in ["fast", "fast-into"] for t in ["std", "encoding_rs"]]
        print("| corrupt | " + " | ".join(e for e, _ in CURVE_ENGINES) + " | "
              + " | ".join(f"{o} / {t}" for o, t in pairs) + " |")
        print("|---:|" + "---:|" * (len(CURVE_ENGINES) + len(pairs)))
        for percent in sorted(points):
            row = points[percent]
            cells = [f"{percent}%"] + [f"{row[e]:.2f}" if e in row else "-"
                                        for e, _ in CURVE_ENGINES]
            for pair in pairs:
                cells.append(row.get("ratios", {}).get(pair, "-"))
            print("| " + " | ".join(cells) + " |")


def curve_svg(curve, path):
    """One panel per input size: GB/s (log scale) against the share of corrupt bytes."""
    import math
    width, height, pad = 360, 260, 50
    panels = list(curve.items())
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(panels)}" '
           f'height="{height + 40}" font-family="sans-serif" font-size="11">']
    values = [v for _, pts in panels for row in pts.values() for k, v in row.items()
              if k != "ratios" and v > 0]
    low = 10 ** math.floor(math.log10(min(values)))
    high = 10 ** math.ceil(math.log10(max(values)))
    for index, (size, points) in enumerate(panels):
        x0 = index * width
        def x(p):
            return x0 + pad + p / 100 * (width - pad - 20)
        def y(v):
            frac = (math.log10(v) - math.log10(low)) / (math.log10(high) - math.log10(low))
            return height - pad + 20 - frac * (height - pad)
        out.append(f'<text x="{x0 + width / 2}" y="14" text-anchor="middle">'
                   f'lossy decoding, mixed text, {size}</text>')
        decade = low
        while decade <= high:
            out.append(f'<line x1="{x(0)}" x2="{x(100)}" y1="{y(decade)}" y2="{y(decade)}" '
                       'stroke="#ddd"/>')
            out.append(f'<text x="{x(0) - 4}" y="{y(decade) + 4}" text-anchor="end">'
                       f'{decade:g}</text>')
            decade *= 10
        for p in range(0, 101, 20):
            out.append(f'<text x="{x(p)}" y="{height - pad + 36}" text-anchor="middle">{p}%</text>')
        out.append(f'<text x="{x(50)}" y="{height + 30}" text-anchor="middle">'
                   'corrupt bytes (GB/s, log scale)</text>')
        for engine_index, (engine, colour) in enumerate(CURVE_ENGINES):
            line = [(x(p), y(points[p][engine])) for p in sorted(points)
                    if points[p].get(engine, 0) > 0]
            if not line:
                continue
            coords = " ".join(f"{a:.1f},{b:.1f}" for a, b in line)
            out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" '
                       'stroke-width="2"/>')
            ly = 30 + 14 * engine_index
            out.append(f'<line x1="{x0 + width - 110}" x2="{x0 + width - 95}" y1="{ly}" '
                       f'y2="{ly}" stroke="{colour}" stroke-width="2"/>')
            out.append(f'<text x="{x0 + width - 90}" y="{ly + 4}">{engine}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if len(sys.argv) > 2 and sys.argv[1] == "--curve":
    curve = read_curve(sys.argv[2])
    curve_table(curve)
    curve_svg(curve, sys.argv[3] if len(sys.argv) > 3
              else os.path.join("docs", "lossy-corruption-curve.svg"))
    sys.exit(0)


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
