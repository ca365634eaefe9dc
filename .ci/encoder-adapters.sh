#!/usr/bin/env bash
# The JDK, Go, ICU and Perl encoder adapters end to end (adapters/README.md, "Encoder
# adapters"): installs the toolchains that are missing with apt-get (adapters/go/encode/
# run.sh installs Go itself), builds each adapter on its first start, and runs
# `utf8conf adapter-test` (which must pass) and `utf8conf check --encoder --cmd ...` on
# every mode, then `check --round-trip` on each decoder adapter with its encoder
# sibling. Findings are what these encoders do (exit 1 is expected for most); exit 2
# (an error: an adapter that breaks the protocol, crashes or cannot be built) fails CI.
# Each mode's policy and findings are printed by check, and the two policies again from
# its report, whose shape is checked; reports go to reports/ci-encoder-<name>/ and
# reports/ci-round-trip-<name>/ (git-ignored). About a minute once everything is built.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n=== %s\n' "$*"; }

missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
pkg-config --exists icu-uc 2>/dev/null || missing+=(libicu-dev)
# Encode is core Perl, but Debian's perl-base alone lacks it.
perl -MEncode -e 1 2>/dev/null || missing+=(perl)
if [ "${#missing[@]}" -gt 0 ]; then
  . .ci/apt-install.sh
  apt_install "${missing[@]}"
fi

step "cargo build --release (the utf8conf binary)"
cargo build --release --quiet
BIN=target/release/utf8conf

run() {
  local name="$1" cmd="$2" self_test="${3:-adapter-test}"
  local out="reports/ci-encoder-$name" status=0
  if [ "$self_test" = adapter-test ]; then
    step "$name: utf8conf adapter-test --cmd '$cmd'"
    "$BIN" adapter-test --cmd "$cmd"
  fi
  step "$name: utf8conf check --encoder --cmd '$cmd'"
  rm -rf "$out"
  "$BIN" check --encoder --quiet --cmd "$cmd" --out "$out" || status=$?
  if [ "$status" -ge 2 ]; then
    echo "$name: check --encoder failed with exit status $status" >&2
    exit "$status"
  fi
  python3 - "$name" "$out/encoder.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
report = json.load(open(path))
if len(report["encoders"]) != 1:
    sys.exit(f"{name}: {path} grades {len(report['encoders'])} encoders, not one")
grade = report["encoders"][0]["grade"]
if grade.get("stopped_by"):
    sys.exit(f"{name}: the check stopped early ({grade['stopped_by']}; see {path})")
if grade["inputs"] == 0:
    sys.exit(f"{name}: no input was encoded (see {path})")
print(f"{name}: {grade['inputs']} inputs; surrogates: {grade['policy']}; "
      f"above U+10FFFF: {grade['out_of_range_policy'] or 'not given (utf16)'}; "
      f"{len(grade['findings'])} findings")
PY
}

run jdk-getBytes 'adapters/java/encode.sh getbytes'
run jdk-CharsetEncoder-REPORT 'adapters/java/encode.sh report'
run jdk-CharsetEncoder-REPLACE 'adapters/java/encode.sh replace'
# adapter-test wants U+1F600 as F0 9F 98 80, the check that the code units are read
# little-endian; writeUTF writes it, by its specification, as the two surrogates
# (ED A0 BD ED B8 80), so only check --encoder, which recognises Modified UTF-8, runs.
run jdk-writeUTF 'adapters/java/encode.sh writeutf' no-adapter-test
run go-EncodeRune 'adapters/go/encode/run.sh encoderune'
run go-AppendRune 'adapters/go/encode/run.sh appendrune'
run go-string-runes 'adapters/go/encode/run.sh string'
run icu-u_strToUTF8 'adapters/icu_encode.sh stop'
run icu-u_strToUTF8WithSub-FFFD 'adapters/icu_encode.sh substitute'
run icu-ucnv_fromUnicode-STOP 'adapters/icu_encode.sh converter'
run icu-ucnv_fromUnicode-SUBSTITUTE 'adapters/icu_encode.sh converter-substitute'
run perl-encode-UTF-8 'perl adapters/perl_encode.pl encode'
run perl-encode-UTF-8-FB_CROAK 'perl adapters/perl_encode.pl croak'
run perl-encode-utf8 'perl adapters/perl_encode.pl lax'
run perl-utf8-encode 'perl adapters/perl_encode.pl utf8'

# Round trips where a platform ships both directions: each decoder adapter with its
# encoder sibling (check --round-trip: decode(encode(x)) for every scalar and
# encode(decode(b)) for well-formed bytes). A failing round trip is a finding (exit 1:
# Modified UTF-8 and Perl's strict UTF-8 fail by design); exit 2 fails CI.
round_trip() {
  local name="$1" decoder="$2" encoder="$3" status=0
  step "$name: utf8conf check --round-trip --cmd '$decoder' --encoder-cmd '$encoder'"
  rm -rf "reports/ci-round-trip-$name"
  "$BIN" check --round-trip --quiet --cmd "$decoder" --encoder-cmd "$encoder" \
    --out "reports/ci-round-trip-$name" || status=$?
  if [ "$status" -ge 2 ]; then
    echo "$name: check --round-trip failed with exit status $status" >&2
    exit "$status"
  fi
}

round_trip jdk 'adapters/java/run.sh report' 'adapters/java/encode.sh report'
round_trip jdk-modified-utf8 'adapters/java/readutf.sh' 'adapters/java/encode.sh writeutf'
round_trip go 'adapters/go/run.sh range' 'adapters/go/encode/run.sh encoderune'
round_trip go-string 'adapters/go/run.sh range' 'adapters/go/encode/run.sh string'
round_trip icu 'adapters/icu.sh' 'adapters/icu_encode.sh converter'
round_trip icu-u_strToUTF8 'adapters/icu.sh' 'adapters/icu_encode.sh stop'
round_trip perl-strict 'perl adapters/perl.pl strict' 'perl adapters/perl_encode.pl croak'
round_trip perl-lax 'perl adapters/perl.pl lax' 'perl adapters/perl_encode.pl utf8'
