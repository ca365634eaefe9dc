#!/bin/sh
# Runs the glibc iconv UTF-8 adapter: compiles iconv.c with cc into .cache/ beside
# this script on first use (or when the source is newer than the binary), then
# replaces itself with the binary.
# Usage: adapters/iconv.sh [utf-32le|wchar_t]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
binary="$cache/iconv-adapter"
if [ ! -x "$binary" ] || [ -n "$(find "$here/iconv.c" -newer "$binary")" ]; then
    echo "iconv adapter: compiling iconv.c into $cache" >&2
    mkdir -p "$cache"
    # Build under a private name, then rename, so concurrent starts never run a
    # half-written binary.
    staging=$(mktemp "$cache/iconv-adapter.XXXXXX")
    trap 'rm -f "$staging"' EXIT
    cc -O2 -Wall -Wextra -o "$staging" "$here/iconv.c" >&2
    mv -f "$staging" "$binary"
fi
exec "$binary" "$@"
