#!/usr/bin/env bash
# Third-party decoders end to end: `utf8conf check` on the Python adapter must exit 0
# (every category passes), and `utf8conf check --all` runs the built-in decoders and every
# adapter whose toolchain is present. Findings are the point of --all (exit 1 is fine);
# exit 2 (an error) fails CI. Reports go to reports/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=target/release/utf8conf

if command -v python3 >/dev/null 2>&1; then
  echo "=== utf8conf check --cmd 'python3 adapters/python.py'"
  "$BIN" check --cmd 'python3 adapters/python.py' --quiet --out reports/ci-check-python
else
  echo "note: python3 not found; skipping the Python adapter check"
fi

echo "=== utf8conf check --all"
status=0
# --model-time 600: only the query budget (--model-queries) bounds the learning, so that
# the findings, which depend on whether a machine is complete, are the same on a slower
# machine (the README's counts are checked against them below).
"$BIN" check --all --quiet --model-time 600 --out reports/ci-matrix || status=$?
if [ "$status" -ge 2 ]; then
  echo "utf8conf check --all failed with exit status $status" >&2
  exit "$status"
fi
echo "--- matrix (exit $status: 0 all conformant, 1 findings)"
cat reports/ci-matrix/matrix.md

echo "=== the README's findings per shipped adapter against this matrix"
python3 .ci/adapter_findings.py reports/ci-matrix

echo "=== planted-bug adapters"
bash .ci/planted.sh
