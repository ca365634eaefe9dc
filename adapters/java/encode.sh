#!/bin/sh
# Runs the JDK encoder adapter: compiles EncodeAdapter.java with javac into .cache/
# beside this script on first use (or when the source is newer than the class file),
# then replaces itself with `java EncodeAdapter MODE`.
# Usage: adapters/java/encode.sh [getbytes|report|replace|writeutf]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
class="$cache/EncodeAdapter.class"
if [ ! -f "$class" ] || [ -n "$(find "$here/EncodeAdapter.java" -newer "$class")" ]; then
    echo "java encoder adapter: compiling EncodeAdapter.java into $cache" >&2
    mkdir -p "$cache"
    # Compile into a private directory, then move into place, so two adapters
    # starting at once never run a half-written class file.
    staging=$(mktemp -d "$cache/build.XXXXXX")
    trap 'rm -rf "$staging"' EXIT
    javac -encoding UTF-8 -d "$staging" "$here/EncodeAdapter.java" >&2
    mv -f "$staging/EncodeAdapter.class" "$class"
    rm -rf "$staging"
fi
exec java -XX:+UseSerialGC -cp "$cache" EncodeAdapter "$@"
