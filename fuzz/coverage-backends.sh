#!/usr/bin/env bash
# Checks that `cargo fuzz coverage` reaches every file of the fast decoder (src/fast/) that
# can run on this CPU: a backend the dispatcher would not pick must still be exercised,
# because the `backends` target calls each one by name (and `streaming` runs the streaming
# decoder over each).
#
# Needs nightly with the llvm-tools component (installed if missing). Prints, per src/fast/
# file, its coverage under the `backends` and the `streaming` targets; exits 1 if a
# runnable file has no covered region under either.
set -euo pipefail
cd "$(dirname "$0")/.."

rustup component add llvm-tools --toolchain nightly >/dev/null 2>&1 || true
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
llvm="$(rustc +nightly --print sysroot)/lib/rustlib/$host/bin"

targets=(backends streaming)
declare -A reports
for target in "${targets[@]}"; do
  cargo +nightly fuzz coverage "$target" "corpus/$target" >/dev/null 2>&1 ||
    { echo "cargo fuzz coverage $target failed"; exit 2; }
  reports[$target]="$("$llvm/llvm-cov" report "target/$host/coverage/$host/release/$target" \
    --instr-profile="fuzz/coverage/$target/coverage.profdata")"
done

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
printf '%-26s %-26s %-26s %s\n' file "backends (regions/missed)" "streaming (regions/missed)" verdict
while IFS= read -r file; do
  if ! runnable "$file"; then
    printf '%-26s %-26s %-26s %s\n' "$file" - - "not runnable on this CPU"
    continue
  fi
  columns=()
  covered=0
  measured=0
  for target in "${targets[@]}"; do
    line="$(printf '%s\n' "${reports[$target]}" | grep -E "(^|/)${file//./\\.} " || true)"
    if [ -z "$line" ]; then
      columns+=("-")
      continue
    fi
    measured=1
    regions="$(awk '{ print $2 }' <<<"$line")"
    missed="$(awk '{ print $3 }' <<<"$line")"
    columns+=("$regions/$missed ($(awk '{ print $4 }' <<<"$line"))")
    if [ "$regions" -gt 0 ] && [ "$missed" -lt "$regions" ]; then covered=1; fi
  done
  if [ "$measured" -eq 0 ]; then
    verdict="no code regions (constants only)"
  elif [ "$covered" -eq 1 ]; then
    verdict="covered"
  else
    verdict="NOT COVERED"
    failed=1
  fi
  printf '%-26s %-26s %-26s %s\n' "$file" "${columns[0]}" "${columns[1]}" "$verdict"
done < <(find src/fast -name '*.rs' | sort)
exit "$failed"
