#!/usr/bin/env bash
# Streaming mode of the shipped adapters (docs/PROTOCOL.md, "Streaming mode"): for each
# adapter whose hello offers `"streaming": true` (CPython's incremental decoder, Node's
# TextDecoder with {stream: true}, the JDK's CharsetDecoder, Go's FullRune/DecodeRune
# loop, ICU's ucnv_toUnicode with flush=FALSE), `utf8conf adapter-test` must pass and
# `utf8conf check --stream` must complete with a streaming section whose feeds all
# answered and which has no split-point departure (every shipped streaming decoder is
# split-point equivalent; promptness departures are findings, listed in the README), and
# whose machine fed one byte per chunk is its one-shot machine.
# Installs the toolchains with apt-get when they are missing (adapters/go/run.sh
# installs Go itself). Reports go to reports/ci-stream-<name>/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n=== %s\n' "$*"; }

missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
pkg-config --exists icu-uc 2>/dev/null || missing+=(libicu-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  . .ci/apt-install.sh
  apt_install "${missing[@]}"
fi

step "cargo build --release (the utf8conf binary)"
cargo build --release --quiet
BIN=target/release/utf8conf

run() {
  local name="$1" cmd="$2"
  step "$name: utf8conf adapter-test --cmd '$cmd'"
  "$BIN" adapter-test --cmd "$cmd"
  step "$name: utf8conf check --stream --cmd '$cmd'"
  local out="reports/ci-stream-$name" status=0
  rm -rf "$out"
  "$BIN" check --stream --quiet --cmd "$cmd" --out "$out" || status=$?
  if [ "$status" -ge 2 ]; then
    echo "$name: check --stream failed with exit status $status" >&2
    exit "$status"
  fi
  python3 - "$name" "$out/conformance.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
section = json.load(open(path)).get("streaming")
if section is None:
    sys.exit(f"{name}: the report has no streaming section")
print(f"{name}: {section['inputs']} inputs, {section['feeds']} feeds, "
      f"{section['failed_feeds']} failed; split-point departures "
      f"{section['split_point_departures']}; promptness departures "
      f"{section['promptness_departures']} ({section['promptness_not_graded']} not graded)")
if section["failed_feeds"] or section["split_point_departures"] or section.get("stopped"):
    sys.exit(f"{name}: streaming mode broken (see {path})")
machine = section.get("machine")
if machine is None:
    sys.exit(f"{name}: the streaming section has no machine (see {path})")
learned = machine["learned"]
print(f"{name}: fed one byte per chunk, {len(learned['machine']['states'])} states, "
      f"{learned['queries']['decodes']} decodes; same as the one-shot machine: "
      f"{machine['same_as_one_shot']}; streaming findings: {len(machine['findings'])}")
if machine["same_as_one_shot"] is not True or machine["findings"]:
    sys.exit(f"{name}: its byte-at-a-time machine is not its one-shot machine (see {path})")
PY
}

run python 'python3 adapters/python.py'
run node-replace 'node adapters/node.js replace'
run java-replace 'adapters/java/run.sh replace'
run go-range 'adapters/go/run.sh range'
run icu 'adapters/icu.sh'
