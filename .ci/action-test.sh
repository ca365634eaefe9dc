#!/usr/bin/env bash
# Test of the GitHub Action's entrypoint (.github/action/entrypoint.sh), run locally as the
# README's snippet runs it on GitHub: against adapters/python.py (conformant: exit 0), the
# surrogatepass fixture (findings: exit 1, and 0 with UTF8CONF_DEFER_EXIT=1 and the verdict
# in the exit-code output), and with no decoder given (usage error: exit 2). Checks the
# outputs it writes to GITHUB_OUTPUT and the summary to GITHUB_STEP_SUMMARY.
#
# Usage: action-test.sh UTF8CONF_BINARY SCRATCH_DIR (leaves the reports in SCRATCH_DIR for
# .ci/ci-formats.sh to validate). About 80 s on 2 cores (two checks of a Python adapter).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "$1")"
scratch="$2"
mkdir -p "$scratch"
entry=.github/action/entrypoint.sh
failures=0
expect() { # expect WHAT ACTUAL WANTED
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1: got '$2', wanted '$3'"; failures=$((failures + 1)); fi
}
output() { grep "^$1=" "$2" | tail -1 | cut -d= -f2-; }

# 1. The README snippet's case: the Python adapter, conformant.
: >"$scratch/python.out"; : >"$scratch/python.summary"
set +e
UTF8CONF_BIN="$bin" INPUT_CMD="python3 adapters/python.py" INPUT_OUT="$scratch/python" \
  GITHUB_OUTPUT="$scratch/python.out" GITHUB_STEP_SUMMARY="$scratch/python.summary" bash "$entry"
code=$?
set -e
expect "python adapter exits 0" "$code" 0
expect "exit-code output" "$(output exit-code "$scratch/python.out")" 0
expect "sarif output" "$(output sarif "$scratch/python.out")" "$scratch/python/utf8conf.sarif"
expect "junit output" "$(output junit "$scratch/python.out")" "$scratch/python/junit.xml"
expect "conformance.json written" "$(test -s "$scratch/python/conformance.json" && echo yes)" yes
expect "step summary written" "$(grep -cE 'test cases: [0-9]+ passed, 0 failed' "$scratch/python.summary")" 1

# 2. A decoder with findings; the verdict deferred as the Action defers it.
fail_on_args=()
if grep -q -- '--fail-on' <<<"$("$bin" check --help)"; then fail_on_args=(INPUT_FAIL_ON=info); fi
: >"$scratch/surrogatepass.out"
set +e
env UTF8CONF_BIN="$bin" INPUT_CMD="python3 .ci/fixtures/surrogatepass.py" \
  INPUT_OUT="$scratch/surrogatepass" GITHUB_OUTPUT="$scratch/surrogatepass.out" \
  UTF8CONF_DEFER_EXIT=1 "${fail_on_args[@]}" bash "$entry"
code=$?
set -e
expect "deferred verdict exits 0" "$code" 0
expect "exit-code output carries the findings" "$(output exit-code "$scratch/surrogatepass.out")" 1

# 3. No decoder: a usage error, one line, exit 2.
set +e
message="$(UTF8CONF_BIN="$bin" GITHUB_OUTPUT=/dev/null bash "$entry" 2>&1)"
code=$?
set -e
expect "no decoder exits 2" "$code" 2
expect "one-line reason" "$message" "utf8conf action: give exactly one of cmd, lib, crate (got 0)"

if [ "$failures" != 0 ]; then
  echo "action entrypoint test: $failures failed"
  exit 1
fi
echo "action entrypoint test: all passed"
