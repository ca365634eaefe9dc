#!/usr/bin/env bash
# Runs the `fast` tests for aarch64 (the NEON backend) under qemu user-mode emulation.
# Installs what it needs: the Rust target, a cross linker and qemu. Bounded by a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=aarch64-unknown-linux-gnu
if ! rustup target list --installed | grep -qx "$TARGET"; then
    rustup target add "$TARGET"
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"

# Unit tests of the fast module, then the backend and streaming integration tests; the
# report printed by `backends_are_listed...` must list `neon`.
timeout "${NEON_TIMEOUT:-1800}" cargo test --target "$TARGET" --lib fast::
log=$(mktemp)
timeout "${NEON_TIMEOUT:-1800}" cargo test --target "$TARGET" \
    --test fast -- --nocapture 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" != 0 ]; then exit "$status"; fi
if ! grep -q '"neon"' "$log"; then
    echo "neon.sh: the NEON backend was not available under emulation" >&2
    exit 1
fi
rm -f "$log"
