#!/bin/sh
# Runs the ICU UTF-8 converter adapter: compiles icu.c with cc against icu-uc (found
# with pkg-config) into .cache/ beside this script on first use (or when the
# source is newer than the binary), then replaces itself with the binary.
# Usage: adapters/icu.sh [stop|substitute]   (no argument: both in one answer)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
binary="$cache/icu-adapter"
if [ ! -x "$binary" ] || [ -n "$(find "$here/icu.c" -newer "$binary")" ]; then
    echo "icu adapter: compiling icu.c into $cache" >&2
    mkdir -p "$cache"
    # Build under a private name, then rename, so concurrent starts never run a
    # half-written binary.
    staging=$(mktemp "$cache/icu-adapter.XXXXXX")
    trap 'rm -f "$staging"' EXIT
    # shellcheck disable=SC2046 # pkg-config prints several flags to be split
    cc -O2 -Wall -Wextra -o "$staging" "$here/icu.c" $(pkg-config --cflags --libs icu-uc) >&2
    mv -f "$staging" "$binary"
fi
exec "$binary" "$@"
