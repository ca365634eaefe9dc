#!/usr/bin/env bash
# Checks that `cargo fuzz coverage backends` reaches every file of the fast decoder
# (src/fast/) that can run on this CPU: a backend the dispatcher would not pick must still
# be exercised, because the `backends` target calls each one by name.
#
# Needs nightly with the llvm-tools component (installed if missing). Prints the coverage of
# every src/fast/ file; exits 1 if a runnable file has no covered region.
set -euo pipefail
cd "$(dirname "$0")/.."

rustup component add llvm-tools --toolchain nightly >/dev/null 2>&1 || true
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
llvm="$(rustc +nightly --print sysroot)/lib/rustlib/$host/bin"

cargo +nightly fuzz coverage backends corpus/backends >/dev/null 2>&1 ||
  { echo "cargo fuzz coverage backends failed"; exit 2; }
binary="target/$host/coverage/$host/release/backends"
report="$("$llvm/llvm-cov" report "$binary" \
  --instr-profile=fuzz/coverage/backends/coverage.profdata)"

cpu_flags="$(grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || true)"
has_flag() { case " $cpu_flags " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Whether a file of src/fast/ can run here (the backends' own is_available conditions).
runnable() {
  case "$(basename "$1")" in
    sse42.rs) has_flag sse4_2 ;;
    avx2.rs) has_flag avx2 ;;
    avx512.rs) has_flag avx512f && has_flag avx512bw ;;
    neon.rs) [ "$(uname -m)" = aarch64 ] ;;
    *) return 0 ;;
  esac
}

failed=0
printf '%-32s %8s %8s  %s\n' file regions missed verdict
while IFS= read -r file; do
  line="$(printf '%s\n' "$report" | grep -E "(^|/)${file//./\\.} " || true)"
  if ! runnable "$file"; then
    printf '%-32s %8s %8s  %s\n' "$file" - - "not runnable on this CPU"
    continue
  fi
  if [ -z "$line" ]; then
    printf '%-32s %8s %8s  %s\n' "$file" - - "no code regions (constants only)"
    continue
  fi
  regions="$(awk '{ print $2 }' <<<"$line")"
  missed="$(awk '{ print $3 }' <<<"$line")"
  if [ "$regions" -gt 0 ] && [ "$missed" -ge "$regions" ]; then
    verdict="NOT COVERED"
    failed=1
  else
    verdict="covered ($(awk '{ print $4 }' <<<"$line") of regions)"
  fi
  printf '%-32s %8s %8s  %s\n' "$file" "$regions" "$missed" "$verdict"
done < <(find src/fast -name '*.rs' | sort)
exit "$failed"
