#!/usr/bin/env bash
# The docs check: the figures the docs quote that the tool determines (check inputs,
# taxonomy categories, planted-bug decoders) against `utf8conf doc-figures`. Fails, naming
# FILE:LINE, when a doc disagrees (a vector file changed without the docs, say);
# `--write` rewrites the docs from the code instead. Timings and third-party adapters'
# findings depend on the machine and are not checked here (.ci/adapters.sh measures those).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
mode="${1:---check}"
cargo run --quiet --release -- doc-figures | python3 .ci/docs_figures.py "$mode"
