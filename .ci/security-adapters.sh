#!/usr/bin/env bash
# Installs what the SQLite, Qt, libxml2 and Zig adapters need, so that
# `utf8conf check --all` (run next by .ci/adapters.sh) includes them; the JDK adapters
# need java/javac, which the CI image already has. Each install is skipped when its
# piece is already present. About 1-2 minutes on a clean 2-core machine (apt packages
# ~40 MB, the ziglang wheel ~50 MB); the Zig adapter's first build adds about 1.5
# minutes inside check --all.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=()
pkg-config --exists sqlite3 2>/dev/null || apt_packages+=(libsqlite3-dev)
pkg-config --exists libxml-2.0 2>/dev/null || apt_packages+=(libxml2-dev)
/usr/bin/python3 -c 'import PyQt5.QtCore' 2>/dev/null || apt_packages+=(python3-pyqt5)
command -v pkg-config >/dev/null 2>&1 || apt_packages+=(pkg-config)
if [ "${#apt_packages[@]}" -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "installing ${apt_packages[*]}"
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
    else
        echo "note: no apt-get; the adapters needing ${apt_packages[*]} will be listed as not run"
    fi
fi

if ! command -v zig >/dev/null 2>&1 && ! python3 -c 'import ziglang' 2>/dev/null; then
    echo "installing the ziglang package (the Zig toolchain) with pip"
    python3 -m pip install --quiet ziglang \
        || echo "note: ziglang could not be installed; the Zig adapters will be listed as not run"
fi
