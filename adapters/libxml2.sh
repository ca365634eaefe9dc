#!/bin/sh
# Runs the libxml2 adapter: compiles libxml2.c with cc against libxml-2.0 (found
# with pkg-config) into .cache/ beside this script on first use (or when the
# source is newer than the binary), then replaces itself with the binary.
# Usage: adapters/libxml2.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
binary="$cache/libxml2-adapter"
if [ ! -x "$binary" ] || [ -n "$(find "$here/libxml2.c" -newer "$binary")" ]; then
    echo "libxml2 adapter: compiling libxml2.c into $cache" >&2
    mkdir -p "$cache"
    # Build under a private name, then rename, so concurrent starts never run a
    # half-written binary.
    staging=$(mktemp "$cache/libxml2-adapter.XXXXXX")
    trap 'rm -f "$staging"' EXIT
    # shellcheck disable=SC2046 # pkg-config prints several flags to be split
    cc -O2 -Wall -Wextra -o "$staging" "$here/libxml2.c" $(pkg-config --cflags --libs libxml-2.0) >&2
    mv -f "$staging" "$binary"
fi
exec "$binary" "$@"
