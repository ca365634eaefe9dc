#!/usr/bin/env bash
# Measures how fast libFuzzer finds a planted bug through the `differential` target.
#
# The target is built with `--features buggy-above-max`, which adds a decoder that accepts
# F4 90..BF (code points above U+10FFFF; fuzz/src/buggy.rs). Starting from an empty corpus,
# libFuzzer runs for at most 60 seconds, once without and once with fuzz/utf8.dict. For each
# run the script prints the executions libFuzzer needed (stat::number_of_executed_units) and
# checks the divergence report: exactly one report, its categories include `above-max`, a
# minimised input of at most 4 bytes. Exit status 0 when both runs found the bug and passed the check.
#
# Environment: FUZZ_TOOLCHAIN (e.g. `+nightly`, default: the default toolchain),
# FUZZ_SANITIZER (default `none`; `address` needs nightly), SEED (libFuzzer -seed, default 1),
# MAX_SECONDS (default 60), FUZZ_BUILD_FLAGS (extra `cargo fuzz build`/`run` flags, default
# `--no-trace-compares` as in every documented command; set it empty to measure with
# comparison tracing).
set -euo pipefail
cd "$(dirname "$0")/.."

toolchain="${FUZZ_TOOLCHAIN:-}"
sanitizer="${FUZZ_SANITIZER:-none}"
seed="${SEED:-1}"
max_seconds="${MAX_SECONDS:-60}"
build_flags="${FUZZ_BUILD_FLAGS---no-trace-compares}"
target_dir="fuzz/target/buggy-above-max"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fuzz() {
  # shellcheck disable=SC2086
  cargo $toolchain fuzz "$@"
}

echo "building differential with --features buggy-above-max (sanitizer: $sanitizer)"
# shellcheck disable=SC2086
fuzz build --sanitizer "$sanitizer" $build_flags --features buggy-above-max \
  --target-dir "$target_dir" differential >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; exit 2; }

failed=0
for mode in without-dict with-dict; do
  corpus="$work/$mode/corpus"
  reports="$work/$mode/reports"
  mkdir -p "$corpus" "$reports"
  dict=()
  [ "$mode" = with-dict ] && dict=("-dict=fuzz/utf8.dict")
  start=$(date +%s.%N)
  set +e
  # shellcheck disable=SC2086
  UTF8CONF_FUZZ_REPORTS="$reports" fuzz run --sanitizer "$sanitizer" $build_flags \
    --features buggy-above-max --target-dir "$target_dir" differential "$corpus" -- \
    -seed="$seed" -max_total_time="$max_seconds" -print_final_stats=1 \
    -artifact_prefix="$work/$mode/" "${dict[@]}" >"$work/$mode.log" 2>&1
  status=$?
  set -e
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  executions=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$mode.log" |
    awk '{ print $2 }' | tail -1)

  report_files=("$reports"/*.json)
  if [ "$status" -eq 0 ] || [ ! -e "${report_files[0]}" ]; then
    echo "$mode: NOT FOUND within ${max_seconds}s (${executions:-?} executions)"
    tail -5 "$work/$mode.log"
    failed=1
    continue
  fi
  report="$(tr -d '\n' <"${report_files[0]}")"
  minimized=$(printf '%s' "$report" | sed -n 's/.*"minimized_hex": *"\([0-9A-F ]*\)".*/\1/p')
  minimized_len=$(printf '%s' "$minimized" | wc -w)
  categories=$(printf '%s' "$report" | sed -n 's/.*"categories": *\[\([^]]*\)\].*/\1/p' | tr -d ' ')
  echo "$mode: found after $executions executions, ${seconds}s wall clock (build excluded);" \
    "report ${report_files[0]##*/}: categories [$categories], minimised [$minimized]"
  if [ "${#report_files[@]}" -ne 1 ]; then
    echo "  check failed: ${#report_files[@]} reports for one bug"; failed=1
  fi
  case ",$categories," in
    *',"above-max",'*) ;;
    *) echo "  check failed: categories [$categories] lack above-max"; failed=1 ;;
  esac
  if [ "$minimized_len" -gt 4 ] || [ "$minimized_len" -eq 0 ]; then
    echo "  check failed: minimised input has $minimized_len bytes"; failed=1
  fi
done
exit "$failed"
