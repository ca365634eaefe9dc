#!/bin/sh
# Runs the SQLite adapter: compiles sqlite.c with cc against sqlite3 (found
# with pkg-config) into .cache/ beside this script on first use (or when the
# source is newer than the binary), then replaces itself with the binary.
# Usage: adapters/sqlite.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
binary="$cache/sqlite-adapter"
if [ ! -x "$binary" ] || [ -n "$(find "$here/sqlite.c" -newer "$binary")" ]; then
    echo "sqlite adapter: compiling sqlite.c into $cache" >&2
    mkdir -p "$cache"
    # Build under a private name, then rename, so concurrent starts never run a
    # half-written binary.
    staging=$(mktemp "$cache/sqlite-adapter.XXXXXX")
    trap 'rm -f "$staging"' EXIT
    # shellcheck disable=SC2046 # pkg-config prints several flags to be split
    cc -O2 -Wall -Wextra -o "$staging" "$here/sqlite.c" $(pkg-config --cflags --libs sqlite3) >&2
    mv -f "$staging" "$binary"
fi
exec "$binary" "$@"
