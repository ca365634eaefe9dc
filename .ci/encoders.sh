#!/usr/bin/env bash
# The shipped encoder adapters end to end: each passes adapter-test, check --encoder
# names its policy, and the exit says whether it has findings (CPython under strict,
# surrogatepass, surrogateescape and replace; Node's TextEncoder and Buffer.from). Then
# a round trip through CPython's two directions. Skips a toolchain that is absent;
# installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
cargo build --quiet --release
bin=target/release/utf8conf
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

grade() { # COMMAND EXPECTED-POLICY EXPECTED-EXIT
  "$bin" adapter-test --cmd "$1" >/dev/null
  set +e
  "$bin" check --encoder --cmd "$1" --quiet --out "$out/$(echo "$1" | tr -c 'a-z0-9' '-')" \
    | tee "$out/last.txt"
  code=${PIPESTATUS[0]}
  set -e
  grep -q "surrogates: $2" "$out/last.txt" || { echo "expected policy $2 for $1"; exit 1; }
  [ "$code" = "$3" ] || { echo "expected exit $3 for $1, got $code"; exit 1; }
}

if command -v python3 >/dev/null; then
  grade "python3 adapters/python_encode.py strict" error 0
  grade "python3 adapters/python_encode.py surrogatepass" wtf8 1
  grade "python3 adapters/python_encode.py surrogateescape" surrogate-escape 1
  grade "python3 adapters/python_encode.py replace" question-mark 0
  "$bin" check --round-trip --cmd "python3 adapters/python.py" \
    --encoder-cmd "python3 adapters/python_encode.py" --out "$out/round-trip"
else
  echo "note: python3 not found; skipping the CPython encoder adapter"
fi
if command -v node >/dev/null; then
  grade "node adapters/node_encode.js textencoder" replacement-character 0
  grade "node adapters/node_encode.js buffer" replacement-character 0
else
  echo "note: node not found; skipping the Node encoder adapter"
fi
