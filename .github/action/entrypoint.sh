#!/usr/bin/env bash
# Entrypoint of the utf8conf GitHub Action (action.yml at the repository root): grades one
# decoder with `utf8conf check` and writes the conformance report, a SARIF log and a JUnit
# file. Runs the same outside GitHub (.ci/action-test.sh runs it against the Python
# adapter).
#
# Inputs (environment; the Action maps its `with:` inputs onto these):
#   INPUT_CMD      adapter command speaking the adapter protocol (docs/PROTOCOL.md),
#                  e.g. 'python3 my_adapter.py'
#   INPUT_LIB      a C shared library exporting the include/utf8conf.h entry point, with
#   INPUT_SYMBOL   the name of its decode function
#   INPUT_CRATE    path of a Rust crate whose binary is an adapter (built with cargo)
#                  (exactly one of INPUT_CMD, INPUT_LIB, INPUT_CRATE)
#   INPUT_NAME     name to report under (default: the adapter's hello name)
#   INPUT_FAIL_ON  pass/fail threshold passed to `check --fail-on` (a severity); empty:
#                  any departure fails
#   INPUT_OUT      report directory (default utf8conf-report)
#   INPUT_ARGS     further arguments for `utf8conf check`, split on white space
#   UTF8CONF_BIN   the utf8conf binary; empty: built from this repository with cargo
#   UTF8CONF_DEFER_EXIT=1  exit 0 on a verdict (0 or 1) so that later steps (the SARIF
#                  upload) still run; the verdict is in the `exit-code` output
# Outputs (appended to $GITHUB_OUTPUT when set, else printed): report-dir, sarif, junit,
# exit-code. A Markdown summary of the JUnit file goes to $GITHUB_STEP_SUMMARY when set.
# Exit: the check's code (0 conformant, 1 findings), 2 on a usage or build error.
set -euo pipefail

action_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fail() { echo "utf8conf action: $*" >&2; exit 2; }

sources=0
for input in "${INPUT_CMD:-}" "${INPUT_LIB:-}" "${INPUT_CRATE:-}"; do
  [ -n "$input" ] && sources=$((sources + 1))
done
[ "$sources" = 1 ] || fail "give exactly one of cmd, lib, crate (got $sources)"

bin="${UTF8CONF_BIN:-}"
if [ -z "$bin" ]; then
  echo "utf8conf action: building utf8conf (cargo build --release --locked)" >&2
  cargo build --quiet --release --locked --manifest-path "$action_root/Cargo.toml" ||
    fail "cargo build of utf8conf failed"
  bin="$action_root/target/release/utf8conf"
fi
[ -x "$bin" ] || fail "utf8conf binary not found: $bin"

out="${INPUT_OUT:-utf8conf-report}"
args=(check --quiet --format sarif,junit --out "$out")
if [ -n "${INPUT_CMD:-}" ]; then
  args+=(--cmd "$INPUT_CMD")
elif [ -n "${INPUT_LIB:-}" ]; then
  [ -n "${INPUT_SYMBOL:-}" ] || fail "lib needs symbol (the decode function's name)"
  args+=(--lib "$INPUT_LIB" --symbol "$INPUT_SYMBOL")
else
  manifest="$INPUT_CRATE/Cargo.toml"
  [ -f "$manifest" ] || fail "crate: no Cargo.toml in $INPUT_CRATE"
  echo "utf8conf action: building the adapter crate $INPUT_CRATE" >&2
  cargo build --quiet --release --manifest-path "$manifest" || fail "cargo build of $INPUT_CRATE failed"
  quoted_manifest="'${manifest//\'/\'\\\'\'}'"
  args+=(--cmd "cargo run --quiet --release --manifest-path $quoted_manifest")
fi
[ -n "${INPUT_NAME:-}" ] && args+=(--name "$INPUT_NAME")
[ -n "${INPUT_FAIL_ON:-}" ] && args+=(--fail-on "$INPUT_FAIL_ON")
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<<"$INPUT_ARGS"
  args+=("${extra[@]}")
fi

echo "utf8conf action: $bin ${args[*]}" >&2
set +e
"$bin" "${args[@]}"
code=$?
set -e

emit() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "$1=$2" >>"$GITHUB_OUTPUT"
  else
    echo "$1=$2"
  fi
}
emit report-dir "$out"
emit exit-code "$code"
[ -f "$out/utf8conf.sarif" ] && emit sarif "$out/utf8conf.sarif"
[ -f "$out/junit.xml" ] && emit junit "$out/junit.xml"
if [ -f "$out/junit.xml" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  python3 "$action_root/.github/action/junit_summary.py" "$out/junit.xml" >>"$GITHUB_STEP_SUMMARY" ||
    echo "utf8conf action: could not summarise $out/junit.xml" >&2
fi

case "$code" in
  0 | 1) [ "${UTF8CONF_DEFER_EXIT:-0}" = 1 ] && exit 0; exit "$code" ;;
  *) exit "$code" ;;
esac
