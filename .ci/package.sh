#!/usr/bin/env bash
# The crate as a user gets it: `cargo package` builds the tarball (Cargo.toml's `include`
# decides what is in it), the file list is checked against what must and must not ship,
# and the unpacked tarball is built and its unit tests run on their own, so a file the
# crate needs but the package leaves out fails here rather than on a user's machine.
# The build shares ./target and cargo test's profile, so after `cargo test` only utf8conf
# itself is compiled again.
# Environment: PACKAGE_MAX_KIB (default 2048): the largest .crate allowed, in KiB.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
max_kib="${PACKAGE_MAX_KIB:-2048}"

step() { printf '\n=== %s\n' "$*"; }

step "cargo package --list: what ships"
list="$(cargo package --list --allow-dirty)"
printf '%s\n' "$list" | wc -l | sed 's/^/files: /'
for needed in src/lib.rs src/main.rs build.rs Cargo.lock README.md include/utf8conf.h \
  src/reference/rfc3629-section4.abnf vectors/rfc3629.toml schemas/conformance.schema.json; do
  # A here-string, not a pipe: `grep -q` stops at the first match, and under pipefail the
  # writer's SIGPIPE would fail the check for a file that is there.
  grep -qx "$needed" <<<"$list" || { echo "missing from the package: $needed"; exit 1; }
done
if printf '%s\n' "$list" | grep -E '^(fuzz|corpus|tests|benches|regressions|reports|examples|\.github|\.ci)/'; then
  echo "the files above must not ship (fuzz corpus, tests, benches, CI)"
  exit 1
fi

step "cargo package --no-verify, unpacked"
cargo package --allow-dirty --no-verify --quiet
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
crate="target/package/utf8conf-$version.crate"
kib=$(( $(wc -c <"$crate") / 1024 ))
echo "$crate: $kib KiB"
[ "$kib" -le "$max_kib" ] || { echo "the package is over $max_kib KiB"; exit 1; }
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
tar -xzf "$crate" -C "$unpacked"

step "the unpacked crate builds (library and binary) and passes its unit tests"
target="$PWD/target"
(cd "$unpacked/utf8conf-$version" \
  && CARGO_TARGET_DIR="$target" cargo test --locked --lib --bins)
