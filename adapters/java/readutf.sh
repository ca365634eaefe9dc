#!/bin/sh
# Runs the DataInputStream.readUTF (Modified UTF-8) adapter: compiles
# ReadUtfAdapter.java with javac into .cache/ beside this script on first use (or when
# the source is newer than the class file), then replaces itself with the JVM.
# Usage: adapters/java/readutf.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
class="$cache/ReadUtfAdapter.class"
if [ ! -f "$class" ] || [ -n "$(find "$here/ReadUtfAdapter.java" -newer "$class")" ]; then
    echo "readUTF adapter: compiling ReadUtfAdapter.java into $cache" >&2
    mkdir -p "$cache"
    # Compile into a private directory, then move into place, so two adapters
    # starting at once never run a half-written class file.
    staging=$(mktemp -d "$cache/build.XXXXXX")
    trap 'rm -rf "$staging"' EXIT
    javac -encoding UTF-8 -d "$staging" "$here/ReadUtfAdapter.java" >&2
    mv -f "$staging/ReadUtfAdapter.class" "$class"
    rm -rf "$staging"
fi
exec java -XX:+UseSerialGC -cp "$cache" ReadUtfAdapter "$@"
