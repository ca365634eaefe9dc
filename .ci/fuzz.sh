#!/usr/bin/env bash
# Fuzzing smoke test for CI: builds the four cargo-fuzz targets and runs each for a short
# time on its checked-in corpus. Installs cargo-fuzz (and a minimal nightly toolchain) if
# missing. Uses nightly with AddressSanitizer when nightly is available, and also checks
# that the targets build on the default (stable) toolchain with `--sanitizer none`.
#
# Every build and run uses `--no-trace-compares` (fuzz/README.md, "Fuzz target speed": the
# comparison tracing costs more than half of each execution, and utf8.dict supplies the
# byte values it would find). The repository's .cargo/config.toml builds libFuzzer itself
# without AddressSanitizer (same section).
#
# Environment: FUZZ_SMOKE_SECONDS (per target, default 20), FUZZ_SKIP_STABLE=1 to skip the
# stable build check.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
smoke_seconds="${FUZZ_SMOKE_SECONDS:-20}"
targets=(differential structured streaming backends)
fuzz_flags=(--no-trace-compares)

step() { printf '\n=== %s\n' "$*"; }

if ! cargo fuzz --version >/dev/null 2>&1; then
  step "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi
if ! rustup toolchain list | grep -q '^nightly'; then
  step "installing a minimal nightly toolchain"
  rustup toolchain install nightly --profile minimal || echo "note: no nightly toolchain"
fi

if rustup toolchain list | grep -q '^nightly'; then
  toolchain=(+nightly)
  sanitizer=address
else
  toolchain=()
  sanitizer=none
fi

step "cargo fuzz list"
listed="$(cargo fuzz list | tr '\n' ' ')"
echo "$listed"
for target in "${targets[@]}"; do
  case " $listed " in *" $target "*) ;; *) echo "missing fuzz target $target"; exit 1 ;; esac
done

if [ "${FUZZ_SKIP_STABLE:-0}" != 1 ]; then
  step "cargo fuzz build --sanitizer none ${fuzz_flags[*]} (default toolchain: $(rustc --version))"
  cargo fuzz build --sanitizer none "${fuzz_flags[@]}" --target-dir fuzz/target/stable
fi

step "cargo ${toolchain[*]} fuzz build --sanitizer $sanitizer ${fuzz_flags[*]}"
cargo "${toolchain[@]}" fuzz build --sanitizer "$sanitizer" "${fuzz_flags[@]}"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for target in "${targets[@]}"; do
  step "smoke: $target for ${smoke_seconds}s"
  # New inputs go to the scratch folder (first corpus argument), not the checked-in corpus.
  mkdir -p "$scratch/$target"
  if ! UTF8CONF_FUZZ_REPORTS="$scratch/reports" cargo "${toolchain[@]}" fuzz run \
    --sanitizer "$sanitizer" "${fuzz_flags[@]}" "$target" "$scratch/$target" "corpus/$target" -- \
    -max_total_time="$smoke_seconds" -dict=fuzz/utf8.dict \
    -artifact_prefix="$scratch/" >"$scratch/$target.log" 2>&1; then
    tail -40 "$scratch/$target.log"
    cat "$scratch"/reports/*.json 2>/dev/null || true
    echo "fuzz target $target failed"
    exit 1
  fi
  grep -E '^Done [0-9]+ runs' "$scratch/$target.log" || tail -3 "$scratch/$target.log"
done
