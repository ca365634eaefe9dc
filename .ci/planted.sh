#!/usr/bin/env bash
# Planted-bug adapters (tests/adapters/planted/*.py): `utf8conf check` on each must give
# exactly one finding per planted bug, with the bug's own categories. Needs python3 (skips
# without it). About 5 x 15 s on a 2-core machine (the check's 350,000 inputs each).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 >/dev/null 2>&1; then
  echo "note: python3 not found; skipping the planted-bug adapters"
  exit 0
fi
cargo build --release --quiet
BIN=target/release/utf8conf
# This script's own reports, from an earlier run (check refuses a non-empty --out).
rm -rf reports/ci-planted

# adapter script -> expected finding categories, one comma-separated list per finding
declare -A EXPECTED=(
  [stop_at_nul]="output-cut-short"
  [utf16_pairs]="valid-misdecoded"
  [offset_after_bom]="offset-miscounted"
  [swallow_and_nul]="character-swallowed output-cut-short"
  [long_path_surrogates]="surrogate"
)
failed=0
for name in "${!EXPECTED[@]}"; do
  out="reports/ci-planted/$name"
  status=0
  "$BIN" check --cmd "python3 tests/adapters/planted/$name.py" --quiet --out "$out" || status=$?
  if [ "$status" -ne 1 ]; then
    echo "planted $name: expected exit 1 (deviations), got $status" >&2
    failed=1
    continue
  fi
  got=$(python3 - "$out/conformance.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(" ".join(sorted(",".join(f["categories"]) for f in report["findings"])))
PY
)
  want=$(echo "${EXPECTED[$name]}" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
  if [ "$got" = "$want" ]; then
    echo "planted $name: findings [$got] as expected"
  else
    echo "planted $name: expected findings [$want], got [$got]" >&2
    failed=1
  fi
done
# The second path's machine is in the report, under its condition.
condition=$(python3 - reports/ci-planted/long_path_surrogates/conformance.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(" ".join(f"{c['condition']['kind']}:{c['condition'].get('len')}"
               for c in report.get("condition_models", [])))
PY
)
if [ "$condition" = "input-longer-than:200" ]; then
  echo "planted long_path_surrogates: the second path's machine is reported ($condition)"
else
  echo "planted long_path_surrogates: expected condition_models [input-longer-than:200], got [$condition]" >&2
  failed=1
fi
exit "$failed"
