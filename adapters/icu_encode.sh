#!/bin/sh
# Runs the ICU encoder adapter: compiles icu_encode.c with cc against icu-uc (found
# with pkg-config) into .cache/ beside this script on first use (or when the
# source is newer than the binary), then replaces itself with the binary.
# Usage: adapters/icu_encode.sh [stop|substitute|converter|converter-substitute]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
binary="$cache/icu-encode-adapter"
if [ ! -x "$binary" ] || [ -n "$(find "$here/icu_encode.c" -newer "$binary")" ]; then
    echo "icu encoder adapter: compiling icu_encode.c into $cache" >&2
    mkdir -p "$cache"
    # Build under a private name, then rename, so concurrent starts never run a
    # half-written binary.
    staging=$(mktemp "$cache/icu-encode-adapter.XXXXXX")
    trap 'rm -f "$staging"' EXIT
    # shellcheck disable=SC2046 # pkg-config prints several flags to be split
    cc -O2 -Wall -Wextra -o "$staging" "$here/icu_encode.c" $(pkg-config --cflags --libs icu-uc) >&2
    mv -f "$staging" "$binary"
fi
exec "$binary" "$@"
