#!/bin/sh
# Runs the Zig std.unicode adapter: compiles main.zig with `zig` (from PATH, or the
# `ziglang` package on PyPI through `python3 -m ziglang`) into .cache/ beside this
# script on first use (or when the source is newer than the binary), then replaces
# itself with the binary. The first build takes about a minute.
# Usage: adapters/zig/run.sh [utf8|wtf8]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
binary="$cache/zig-adapter"
if [ ! -x "$binary" ] || [ -n "$(find "$here/main.zig" -newer "$binary")" ]; then
    if command -v zig >/dev/null 2>&1; then
        set -- zig "$@"
    elif python3 -c 'import ziglang' 2>/dev/null; then
        set -- python3 -m ziglang "$@"
    else
        echo "zig adapter: no zig on PATH and no ziglang Python package (python3 -m pip install ziglang)" >&2
        exit 2
    fi
    echo "zig adapter: compiling main.zig into $cache" >&2
    mkdir -p "$cache"
    staging=$(mktemp -d "$cache/build.XXXXXX")
    trap 'rm -rf "$staging"' EXIT
    # The compiler's own cache goes beside the binary, not into the home directory.
    if [ "$1" = zig ]; then
        shift
        zig build-exe -lc -O ReleaseSafe --cache-dir "$cache/zig-cache" --global-cache-dir "$cache/zig-cache" \
            -femit-bin="$staging/zig-adapter" "$here/main.zig" >&2
    else
        shift 3
        python3 -m ziglang build-exe -lc -O ReleaseSafe --cache-dir "$cache/zig-cache" --global-cache-dir "$cache/zig-cache" \
            -femit-bin="$staging/zig-adapter" "$here/main.zig" >&2
    fi
    mv -f "$staging/zig-adapter" "$binary"
fi
exec "$binary" "$@"
