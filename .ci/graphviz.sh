#!/usr/bin/env bash
# Installs Graphviz when `dot` is missing, so that tests/cli/prove_cli.rs renders the automata
# `utf8conf prove --dot` writes instead of skipping that check. About 20 s with apt-get.
set -euo pipefail
if command -v dot >/dev/null 2>&1; then
  echo "graphviz present: $(dot -V 2>&1)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: no apt-get; graphviz not installed, the --dot rendering check will be skipped"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq graphviz >/dev/null
echo "installed: $(dot -V 2>&1)"
