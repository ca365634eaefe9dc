#!/usr/bin/env bash
# The crate-author worked example (examples/crate-author/, utf8-decode checked through
# utf8conf::author): its `cargo test`, then a 30-second fuzz smoke of its cargo-fuzz
# target when a nightly toolchain and cargo-fuzz are present (.ci/fuzz.sh installs
# both). The fuzz build shares fuzz/target with .ci/fuzz.sh, so utf8conf is not built
# again. About 2 min for the tests from cold, 1-2 min for the fuzz build and run.
# Environment: CRATE_AUTHOR_FUZZ_SECONDS (default 30, 0 skips the smoke).
set -euo pipefail
cd "$(dirname "$0")/../examples/crate-author"
export CARGO_TERM_COLOR=never
seconds="${CRATE_AUTHOR_FUZZ_SECONDS:-30}"

step() { printf '\n=== %s\n' "$*"; }

step "examples/crate-author: cargo test (utf8-decode departs exactly where known)"
cargo test

if [ "$seconds" -gt 0 ] && rustup toolchain list | grep -q '^nightly' \
  && cargo fuzz --version >/dev/null 2>&1; then
  step "examples/crate-author: cargo fuzz run conformance for $seconds s"
  cd fuzz
  cargo +nightly fuzz run conformance --target-dir ../../../fuzz/target -- \
    -max_total_time="$seconds"
else
  echo "note: no nightly toolchain or cargo-fuzz; skipping the fuzz smoke"
fi
