#!/usr/bin/env bash
# Installs Debian's Chromium when it is missing, so that tests/cli/check_html.rs renders the
# conformance page in a real headless browser instead of skipping.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || true)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: no apt-get; chromium not installed, the browser test will be skipped"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
echo "installed: $(/usr/bin/chromium --version 2>/dev/null || true)"
