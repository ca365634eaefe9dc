#!/usr/bin/env bash
# `utf8conf check --lib` on three real C decoders: GLib, GNU libunistring and utf8proc
# through the shims in adapters/c-lib/ (include/utf8conf.h). Installs the -dev packages
# with apt-get when their headers are missing, builds the shims, and checks each one:
# every check must complete with a report (exit 0 conformant or 1 deviations, never 2).
# Takes about 30 s after the packages are installed (about 1 min to install them).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n=== %s\n' "$*"; }

if ! pkg-config --exists glib-2.0 libutf8proc 2>/dev/null || [ ! -e /usr/include/unistr.h ]; then
  . .ci/apt-install.sh
  apt_install libglib2.0-dev libunistring-dev libutf8proc-dev pkg-config
fi

step "building the shims"
bash adapters/c-lib/build.sh target/c-lib

step "cargo build (the utf8conf binary)"
cargo build --quiet

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for shim in glib unistring utf8proc; do
  step "utf8conf check --lib target/c-lib/libutf8conf-$shim.so --symbol ${shim}_decode"
  status=0
  ./target/debug/utf8conf check --quiet --lib "target/c-lib/libutf8conf-$shim.so" \
    --symbol "${shim}_decode" --out "$out/$shim" || status=$?
  if [ "$status" -gt 1 ] || [ ! -s "$out/$shim/conformance.json" ]; then
    echo "check --lib on $shim failed (exit $status)"
    exit 1
  fi
done
