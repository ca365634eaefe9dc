#!/usr/bin/env bash
# Measures the fuzz targets' speed: executions per CPU-second (libFuzzer's executed units
# divided by the process's user + system time), for each target of an already-built
# cargo-fuzz binary directory.
#
#   fuzz/speed.sh <binary-dir> [target ...]
#
# <binary-dir> is where `cargo fuzz build` put the binaries, e.g.
# fuzz/target/x86_64-unknown-linux-gnu/release (nightly, ASan) or
# fuzz/target/stable/x86_64-unknown-linux-gnu/release (`--target-dir fuzz/target/stable`).
# Each target runs with libFuzzer `-seed=1`, the dictionary, and a fresh scratch copy of
# its checked-in corpus (`corpus/<target>/`, so the checked-in corpus is left alone), for
# SECONDS_PER_TARGET (default 30) seconds of wall time. CPU time, not wall time, is the
# measure because the machine may be shared: compare two builds by running them one after
# the other.
#
# Prints one line per target: `<target> <units> <cpu-seconds> <units per cpu-second>`.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir="${1:?usage: fuzz/speed.sh <binary-dir> [target ...]}"
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(differential structured streaming backends)
seconds="${SECONDS_PER_TARGET:-30}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for target in "${targets[@]}"; do
  mkdir -p "$work/$target/corpus" "$work/$target/reports"
  cp -r "corpus/$target/." "$work/$target/corpus/"
  UTF8CONF_FUZZ_REPORTS="$work/$target/reports" /usr/bin/time -f '%U %S' \
    -o "$work/$target/time" "$bin_dir/$target" "$work/$target/corpus" \
    -seed=1 -dict=fuzz/utf8.dict -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$work/$target/" >"$work/$target/log" 2>&1 ||
    { tail -20 "$work/$target/log"; echo "$target failed"; exit 1; }
  units="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target/log")"
  read -r user system <"$work/$target/time"
  awk -v t="$target" -v n="$units" -v u="$user" -v s="$system" \
    'BEGIN { c = u + s; printf "%s %d %.2f %.0f\n", t, n, c, n / c }'
done
