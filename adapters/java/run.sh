#!/bin/sh
# Runs the JDK UTF-8 CharsetDecoder adapter: compiles Utf8Adapter.java with javac
# into .cache/ beside this script on first use (or when the source is newer than
# the class file), then replaces itself with `java Utf8Adapter MODE`.
# Usage: adapters/java/run.sh [report|replace]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
class="$cache/Utf8Adapter.class"
if [ ! -f "$class" ] || [ -n "$(find "$here/Utf8Adapter.java" -newer "$class")" ]; then
    echo "java adapter: compiling Utf8Adapter.java into $cache" >&2
    mkdir -p "$cache"
    # Compile into a private directory, then move into place, so two adapters
    # starting at once never run a half-written class file.
    staging=$(mktemp -d "$cache/build.XXXXXX")
    trap 'rm -rf "$staging"' EXIT
    javac -encoding UTF-8 -d "$staging" "$here/Utf8Adapter.java" >&2
    # The nested classes first, the main class last: its presence means a full build.
    for nested in "$staging"/Utf8Adapter\$*.class; do
        mv -f "$nested" "$cache/"
    done
    mv -f "$staging/Utf8Adapter.class" "$class"
    rm -rf "$staging"
fi
exec java -XX:+UseSerialGC -cp "$cache" Utf8Adapter "$@"
