#!/usr/bin/env bash
# Runs the scalar core of `utf8conf::fast` (the shift DFA, which every backend relies on
# for error positions) under Miri. Installs the nightly Miri component if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
    rustup component add miri rust-src --toolchain nightly
fi
cargo +nightly miri setup
# The DFA tests and the shared tables: small inputs, a few minutes at most.
timeout "${MIRI_TIMEOUT:-900}" cargo +nightly miri test --lib -- fast::dfa fast::simd::tables fast::simd::vector::tests::assemble
